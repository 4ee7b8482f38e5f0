"""Where a prepared GPU PageRank's wall time goes beyond its kernels: the device timeline
of one call (every kernel's start and length, the idle gaps between them, the host time
before the first kernel and after the last), the wall time by ``max_iter``, and a
cProfile of the host side, for the code on ``PYTHONPATH``.

The timeline comes from PyTorch's profiler (CUPTI records every kernel of the process,
CuPy's included); without PyTorch that part is skipped.  Graphs are the Kronecker graphs
of :mod:`benchmarks.bench_gpu_mxv` (pattern, built on the device); the Matrix is
prepared by six calls first.

Usage (on a GPU machine)::

    PYTHONPATH=. python3 benchmarks/probe_pagerank_timeline_gpu.py --scales 22 24 \\
        --label new --out timeline.json
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import tempfile
import time
from collections import defaultdict

import numpy as np


def _timeline(call, sync) -> dict | None:
    """Kernels of one ``call()`` by PyTorch's profiler: offsets in microseconds from the
    call's host start, gaps of the device over 2 us, and totals per kernel name."""
    try:
        import torch
        from torch.profiler import ProfilerActivity, profile, record_function
    except ImportError:
        return None
    torch.cuda.init()
    sync()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        with record_function("gblas_call"):
            call()
            sync()
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        prof.export_chrome_trace(f.name)
        trace = json.load(open(f.name))
    ev = trace["traceEvents"] if isinstance(trace, dict) else trace
    mark = [e for e in ev if e.get("name") == "gblas_call" and e.get("ph") == "X"
            and e.get("cat") in ("user_annotation", "cpu_op")]
    kern = sorted((e for e in ev if e.get("cat") == "kernel" and e.get("ph") == "X"),
                  key=lambda e: e["ts"])
    if not mark or not kern:
        return {"error": f"{len(mark)} call marks, {len(kern)} kernels in the trace"}
    t0, t1 = float(mark[0]["ts"]), float(mark[0]["ts"]) + float(mark[0]["dur"])
    kern = [e for e in kern if t0 <= float(e["ts"]) <= t1]
    per = defaultdict(lambda: [0, 0.0])
    gaps = []
    end = prev = None
    for e in kern:
        s, d = float(e["ts"]), float(e["dur"])
        per[e["name"]][0] += 1
        per[e["name"]][1] += d
        if end is not None and s - end > 2.0:
            gaps.append((round(end - t0, 1), round(s - end, 1), prev, e["name"]))
        end = max(end or s, s + d)
        prev = e["name"]
    busy = sum(v[1] for v in per.values())
    return {"call_us": round(t1 - t0, 1), "first_kernel_us": round(float(kern[0]["ts"]) - t0, 1),
            "after_last_us": round(t1 - end, 1), "kernels": len(kern),
            "kernel_busy_us": round(busy, 1), "idle_us": round(t1 - t0 - busy, 1),
            "gaps": gaps,
            "sequence": [[e["name"][:60], round(float(e["dur"]), 1)] for e in kern[:2000]],
            "per_kernel": {k: [v[0], round(v[1], 1)] for k, v in
                           sorted(per.items(), key=lambda kv: -kv[1][1])}}


def _scale(scale: int, args) -> dict:
    """The measurements of one Kronecker scale (printed as they come)."""
    import cupy as cp

    import gblas as gb
    from benchmarks.bench_gpu_mxv import build_graph
    from gblas.algorithms.pagerank import PowerIterationFailedConvergence
    from gblas.formats.csr import CSR

    sync = cp.cuda.Device().synchronize

    def wall(fn, k: int) -> list:
        times = []
        for _ in range(k):
            sync()
            t0 = time.perf_counter()
            fn()
            sync()
            times.append((time.perf_counter() - t0) * 1e3)
        return times

    def capped(m):
        try:
            gb.algorithms.pagerank(A, max_iter=m)
        except PowerIterationFailedConvergence:
            pass

    F, _, _ = build_graph(scale, 16, 0)
    n = F.shape[0]
    A = gb.Matrix(CSR((n, n), F.indptr, F.indices, None, np.dtype(np.bool_), True, "gpu"))
    for _ in range(6):
        gb.algorithms.pagerank(A)
    errs = []
    gb.algorithms.pagerank(A, callback=lambda s: errs.append(s.delta) or True)
    by_iter = {m: float(np.median(wall(lambda m=m: capped(m), 7))) for m in (1, 2, 3)}
    full = wall(lambda: gb.algorithms.pagerank(A), 9)
    try:
        tl = _timeline(lambda: gb.algorithms.pagerank(A), sync)
    except Exception as e:  # noqa: BLE001 - the profiler is optional
        tl = {"error": f"{type(e).__name__}: {e}"}
    fmt = A.cached_format("gpu_heavy_light", transposed=True)
    what = "no light panels" if fmt is None else fmt.describe()
    print(f"{args.label} Kronecker {scale} ({what}): {len(errs)} iterations; prepared "
          f"{np.median(full):.3f} ms (" + " ".join(f"{t:.2f}" for t in full) + "); by "
          "max_iter " + ", ".join(f"{m}: {t:.3f}" for m, t in by_iter.items()) + " ms",
          flush=True)
    if tl is not None:
        print("  timeline: " + json.dumps({k: v for k, v in tl.items()
                                           if k not in ("gaps", "per_kernel")}))
        print("  per kernel (launches, us): " + json.dumps(tl.get("per_kernel")))
        print(f"  gaps over 2 us (at, length, after, before): {tl.get('gaps')}", flush=True)
    if not args.no_profile:
        pr = cProfile.Profile()
        pr.enable()
        gb.algorithms.pagerank(A)
        sync()
        pr.disable()
        s = io.StringIO()
        pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(args.top)
        print(s.getvalue(), flush=True)
    return {"errs": errs, "by_max_iter": by_iter, "prepared": full, "timeline": tl}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="+", default=[22])
    p.add_argument("--label", default="gblas")
    p.add_argument("--out", default=None, help="write the timelines here (JSON)")
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--no-profile", action="store_true", help="skip the cProfile")
    p.add_argument("--panel-cols", type=int, default=None,
                   help="build the light panels with this many columns per panel")
    args = p.parse_args(argv)
    if args.panel_cols:
        from gblas.formats import light_panels

        light_panels.DEFAULT_PANEL_COLS = args.panel_cols
    import cupy as cp

    report = {}
    for scale in args.scales:
        report[scale] = _scale(scale, args)
        cp.get_default_memory_pool().free_all_blocks()
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"label": args.label, "scales": report}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
