"""The GPU issue's speed figures through the public API: ``gb.mxv`` with the planner's choice.

For each Kronecker scale (float32 values, built as in :mod:`benchmarks.bench_gpu_mxv`):

* the anchor, ``cupyx.scipy.sparse.csr_matrix @ x`` (cuSPARSE SpMV, float32 values);
* ``gb.mxv(A, x, "plus_times")``: the calls the planner makes before it switches to a
  cache-aware format (its ski rental), then the steady time, with the Plan's format;
* a PageRank pull iteration on the pattern-only matrix (no values: ``y = P plus.second x``,
  rows are the destinations), the same way;
* ``min_plus`` and a user-defined semiring (``max`` of a Python ``clip(a * b)``, compiled
  from the same Python function as on the CPU) against ``plus_times`` on the same format,
  and ``times_times``, whose monoid has no native atomic (folded by atomic exchanges in
  shared memory; the planner may pick another format for it);
* the memory-bandwidth floor: every index read once (and every value, for a valued
  matrix), ``indptr``, ``x`` and ``y`` once, at the device-to-device copy bandwidth
  measured in the same run.

With ``--bfs-scale``, a full BFS (levels) with a per-level breakdown (the Plan of every
product, its time, and the time of the rest of the level) against two cuSPARSE SpMVs.

Usage::

    PYTHONPATH=. python3 benchmarks/bench_gpu_planner.py --scales 22 24 25 --bfs-scale 24 \\
        --out OUTDIR
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from typing import Any

import numpy as np

from benchmarks.bench_gpu_mxv import build_graph, copy_bandwidth, time_ms

#: Most calls made while waiting for the planner to switch formats.
MAX_CALLS = 400


def _user_semiring() -> Any:
    import gblas as gb
    from gblas.semirings import builtin

    clip = gb.BinaryOp("clip_times", lambda a, b: min(a * b, 1.0))
    return gb.Semiring("max_clip_times", builtin.MONOIDS["max"], clip)


def _until_switch(call, plan_of, limit: int = MAX_CALLS) -> tuple[int, float, str]:
    """Call until the Plan leaves CSR (or ``limit``); ``(calls, seconds, format)``."""
    import cupy as cp

    t0 = time.perf_counter()
    k = 0
    fmt = plan_of().format
    while fmt == "csr" and k < limit:
        call()
        k += 1
        fmt = plan_of().format
    cp.cuda.Device().synchronize()
    return k, time.perf_counter() - t0, fmt


def run_scale(scale: int, args: argparse.Namespace, copy_gbs: float) -> list[dict]:
    import cupy as cp
    import cupyx.scipy.sparse as csp

    import gblas as gb
    from gblas.formats.csr import CSR

    A, _, build_s = build_graph(scale, args.edge_factor, args.seed)
    n, nnz = A.shape[0], A.nnz
    print(f"scale {scale}: n={n} nnz={nnz} ({build_s:.1f} s)", flush=True)
    S = csp.csr_matrix((A.values, A.indices, A.indptr), shape=(n, n))
    xd = cp.random.RandomState(7).random_sample(n, dtype=cp.float32) + 0.5
    x = gb.Vector.from_dense(xd)
    cus = time_ms(lambda: S @ xd, args.repeat)
    vertex = (n + 1) * 4 + n * 4 + n * 4
    rows: list[dict] = []

    def add(what: str, ms: float, floor_bytes: int, fmt: str, note: str = "") -> None:
        floor_ms = floor_bytes / copy_gbs / 1e6
        rows.append({"scale": scale, "nnz": nnz, "what": what, "ms": ms,
                     "speedup": cus / ms, "x_floor": ms / floor_ms, "format": fmt,
                     "bpe_floor": floor_bytes / nnz, "floor_gbs": floor_bytes / ms / 1e6,
                     "note": note})
        print(f"  {what}: {ms:.3f} ms, {cus / ms:.2f}x cuSPARSE, {ms / floor_ms:.2f}x floor "
              f"[{fmt}] {note}", flush=True)

    add("cuSPARSE csr @ x, float32 values (anchor)", cus, nnz * 8 + vertex, "cuSPARSE")
    udf = _user_semiring()
    for label, csr, sr, floor in (
            ("plus_times, float32 values", A, "plus_times", nnz * 8 + vertex),
            ("PageRank pull, pattern only (plus_second)",
             CSR((n, n), A.indptr, A.indices, None, np.dtype(np.float32), np.float32(1), "gpu"),
             "plus_second", nnz * 4 + vertex)):
        M = gb.Matrix(csr)
        y_ref = gb.mxv(M, x, sr)
        def call(M: Any = M, sr: Any = sr) -> Any:
            return gb.mxv(M, x, sr)

        def plan_of(M: Any = M, sr: Any = sr) -> Any:
            return gb.explain(gb.mxv, M, x, sr)

        with gb.config(format="csr"):
            t_csr = time_ms(call, args.repeat)
        add(f"{label}: gblas CSR (pinned)", t_csr, floor, "csr")
        calls, secs, fmt = _until_switch(call, plan_of)
        plan = plan_of()
        t = time_ms(call, args.repeat)
        y = gb.mxv(M, x, sr)
        err = float(cp.abs(y.to_dense() - y_ref.to_dense()).max() /
                    cp.abs(y_ref.to_dense()).max())
        add(f"{label}: planner", t, floor, plan.format,
            f"switched after {calls} calls ({secs:.2f} s incl. build); max rel diff vs CSR "
            f"{err:.1e}; plan: {plan.reason}")
        if "values" in label:
            for name, s in (("min_plus", "min_plus"), ("user max.clip_times", udf),
                            ("times_times (no native atomic)", "times_times")):
                ts = time_ms(lambda s=s, M=M: gb.mxv(M, x, s), args.repeat)
                add(f"{name}, float32 values: planner", ts, floor,
                    gb.explain(gb.mxv, M, x, s).format, f"{ts / t:.2f}x plus_times")
        M = y = y_ref = call = plan_of = None
        cp.get_default_memory_pool().free_all_blocks()
    return rows


def bfs_profile(scale: int, args: argparse.Namespace) -> dict:
    """A full BFS at ``scale`` (symmetric Kronecker, pattern): total, per level, anchor."""
    import cupy as cp
    import cupyx.scipy.sparse as csp

    import gblas as gb

    sync = cp.cuda.Device().synchronize
    B = gb.io.kronecker(scale, symmetric=True, dtype=None)
    SB = B.to_scipy()
    src = int(np.argmax(np.diff(SB.indptr)))
    Bg = B.to("gpu")
    G = csp.csr_matrix(SB.astype(np.float32))
    ones = cp.ones(SB.shape[0], dtype=cp.float32)
    spmv = time_ms(lambda: G @ ones, args.repeat)
    G = SB = None
    first = time.perf_counter()
    gb.algorithms.bfs(Bg, src)
    sync()
    first = time.perf_counter() - first
    totals = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        lv = gb.algorithms.bfs(Bg, src)
        sync()
        totals.append(time.perf_counter() - t0)
    # the same loop as gblas.algorithms.bfs, timed per call
    n = Bg.shape[0]
    AT = Bg.T
    levels = gb.Vector.from_coo([src], np.array([0], dtype=np.int64), n).to("gpu")
    q = gb.Vector.from_coo([src], None, n).to("gpu")
    per = []
    depth = 0
    while True:
        depth += 1
        plan = gb.explain(gb.mxv, AT, q, "any_pair", mask=~levels.S, replace=True)
        sync()
        t0 = time.perf_counter()
        q = gb.mxv(AT, q, "any_pair", mask=~levels.S, replace=True)
        sync()
        t1 = time.perf_counter()
        nq = q.nvals
        if nq == 0:
            per.append({"level": depth, "mxv_ms": (t1 - t0) * 1e3, "plan": plan.kernel})
            break
        gb.apply(q, "second", right=depth, mask=q.S, out=levels)
        sync()
        t2 = time.perf_counter()
        per.append({"level": depth, "frontier": nq, "mxv_ms": (t1 - t0) * 1e3,
                    "rest_ms": (t2 - t1) * 1e3, "plan": plan.kernel,
                    "reason": plan.reason})
    return {"scale": scale, "n": n, "nnz": Bg.nvals, "reached": lv.nvals,
            "bfs_ms": float(np.median(totals)) * 1e3, "first_s": first,
            "spmv_ms": spmv, "ratio_vs_2spmv": float(np.median(totals)) * 1e3 / (2 * spmv),
            "levels": per}


def markdown(rows: list[dict], bfs: dict | None, copy_gbs: float, header: str) -> str:
    out = [header, "", f"Device-to-device copy in the same run: **{copy_gbs:.0f} GB/s** "
           "(read + write).", "",
           "| scale | nnz | product | median ms | speedup vs cuSPARSE | x floor | floor "
           "bytes/edge | GB/s at floor bytes | format | notes |",
           "|---:|---:|---|---:|---:|---:|---:|---:|---|---|"]
    for r in rows:
        out.append(f"| {r['scale']} | {r['nnz']:,} | {r['what']} | {r['ms']:.3f} | "
                   f"{r['speedup']:.2f}x | {r['x_floor']:.2f} | {r['bpe_floor']:.2f} | "
                   f"{r['floor_gbs']:.0f} | {r['format']} | {r['note']} |")
    if bfs:
        out += ["", f"Full BFS (levels) on the symmetric Kronecker graph of scale "
                f"{bfs['scale']} ({bfs['n']:,} vertices, {bfs['nnz']:,} entries, "
                f"{bfs['reached']:,} reached): **{bfs['bfs_ms']:.2f} ms** (first call "
                f"{bfs['first_s']:.2f} s) against two cuSPARSE SpMVs "
                f"{2 * bfs['spmv_ms']:.2f} ms: ratio {bfs['ratio_vs_2spmv']:.2f}.", "",
                "| level | frontier | mxv ms | rest of the level ms | kernel |",
                "|---:|---:|---:|---:|---|"]
        for lv in bfs["levels"]:
            out.append(f"| {lv['level']} | {lv.get('frontier', 0):,} | {lv['mxv_ms']:.3f} | "
                       f"{lv.get('rest_ms', 0):.3f} | {lv['plan']} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scales", type=int, nargs="*", default=[22, 24, 25])
    p.add_argument("--bfs-scale", type=int, default=None)
    p.add_argument("--edge-factor", type=int, default=16)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)

    import cupy as cp

    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    l2 = int(cp.cuda.Device().attributes["L2CacheSize"])
    header = (f"## gb.mxv on the GPU with the planner's choice vs cuSPARSE (Kronecker A=0.57 "
              f"B=C=0.19, edge factor {args.edge_factor})\n\n{name}, "
              f"{props['multiProcessorCount']} SMs, L2 {l2 >> 20} MiB; CuPy {cp.__version__}, "
              f"CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}; Python "
              f"{platform.python_version()}; median of {args.repeat} after warm-up (CUDA "
              "events around the whole public call: planner, kernels, write-back).")
    copy_gbs = copy_bandwidth(args.repeat)
    rows: list[dict] = []
    for s in args.scales:
        rows += run_scale(s, args, copy_gbs)
        cp.get_default_memory_pool().free_all_blocks()
    bfs = bfs_profile(args.bfs_scale, args) if args.bfs_scale else None
    md = markdown(rows, bfs, copy_gbs, header)
    print(md)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "planner_gpu.md"), "w") as f:
            f.write(md)
        with open(os.path.join(args.out, "planner_gpu.json"), "w") as f:
            json.dump({"rows": rows, "bfs": bfs, "copy_gbs": copy_gbs}, f, indent=1,
                      default=str)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
