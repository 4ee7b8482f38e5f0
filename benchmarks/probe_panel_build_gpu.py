"""Where the GPU light panels' build spends its time, and what each of its options buys.

On the GPU, ``gpu_heavy_light`` (light column panels, MultiGraph's layout) is the fastest
pull format on large power-law graphs, but its build pays only across calls: at
Kronecker 22 (65M entries) it takes about 38 ms, some 55 CSR products' saving.  This
probe times, on the pattern CSR of a Kronecker graph already on the device:

* the build as the planner runs it (``GPUHeavyLight.from_csr``), with every step of
  :func:`gblas.formats.light_panels._build` that is a function of its own timed apart
  (the device synchronized around each);
* :class:`~gblas.formats.light_panels.LightPanels` with the columns relabelled by degree
  or not, and the rows interleaved by bank or not;
* the product ``y = A x`` (float64 ``plus_times`` over a pattern, PageRank's) of each
  layout, and of the CSR pull kernel, medians of synchronized calls after two warm-ups
  (`bench_gpu_shards.time_ms`; the figures of `light_panel_build_gpu.md` took one).

Usage (on a GPU machine)::

    PYTHONPATH=. python benchmarks/probe_panel_build_gpu.py --scale 22 --out probe.json
"""

from __future__ import annotations

import argparse
import functools
import json
import time

import numpy as np

from benchmarks.bench_gpu_shards import _sync
from benchmarks.bench_gpu_shards import time_ms as wall_ms


def timed_steps(module, names: list[str], record: dict):
    """Wrap ``module``'s functions ``names`` so that each call's synchronized time adds to
    ``record[name]``; returns a function restoring them."""
    saved = {n: getattr(module, n) for n in names}

    def wrap(name, fn):
        @functools.wraps(fn)
        def inner(*a, **k):
            _sync()
            t0 = time.perf_counter()
            out = fn(*a, **k)
            _sync()
            record[name] = record.get(name, 0.0) + (time.perf_counter() - t0) * 1e3
            return out
        return inner

    for n, fn in saved.items():
        setattr(module, n, wrap(n, fn))
    return lambda: [setattr(module, n, fn) for n, fn in saved.items()]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=int, default=22)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    import cupy as cp

    import gblas as gb
    from benchmarks.bench_gpu_mxv import build_graph
    from gblas.backends.gpu.light_panels import light_panels_pull
    from gblas.core.vector import VecData
    from gblas.formats import light_panels as lp
    from gblas.formats.csr import CSR
    from gblas.formats.gpu_heavy_light import GPUHeavyLight
    from gblas.semirings import semiring

    csr32, source, _ = build_graph(args.scale, 16, 1)
    m, n = csr32.shape
    csr = CSR((m, n), csr32.indptr, csr32.indices, None, np.dtype(np.float64), 1.0, "gpu")
    out = {"scale": args.scale, "nnz": int(csr.nnz), "source": source,
           "gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}
    print(f"Kronecker {args.scale}: {m:,} vertices, {csr.nnz:,} entries", flush=True)

    steps: dict = {}
    array_build = functools.partial(lp._build, kernels=False)
    kernel_build = lp._build

    def array_at_a_time():
        lp._build = array_build

    def kernels():
        lp._build = kernel_build

    from gblas.backends.gpu import panel_build as pb
    from gblas.formats import light_panels_gpu as lpg

    for how, use, module, names in (
            ("array", array_at_a_time, lp, ["span_degree_order", "_panel_order",
                                            "_bank_interleave", "panel_pairs", "_pair_starts",
                                            "exclusive_cumsum", "chunk_table", "unit_table"]),
            ("kernels", kernels, pb, ["scatter", "interleave_banks", "partials"])):
        use()
        GPUHeavyLight.from_csr(csr)   # the kernels compiled before the traced build
        rec: dict = {}
        restore = timed_steps(module, names, rec)
        if how == "kernels":
            restore2 = timed_steps(lpg, ["span_degree_order", "chunk_table", "unit_table"], rec)
        _sync()
        t0 = time.perf_counter()
        H = GPUHeavyLight.from_csr(csr)
        _sync()
        out[f"heavy_light_build_ms_traced_{how}"] = (time.perf_counter() - t0) * 1e3
        restore()
        if how == "kernels":
            restore2()
        steps[how] = {k: round(v, 2) for k, v in rec.items()}
        out[f"heavy_light_build_ms_{how}"] = wall_ms(lambda: GPUHeavyLight.from_csr(csr),
                                                     args.repeat)
        del H
    kernels()
    out["steps_ms"] = steps
    from benchmarks.probe_pagerank_timeline_gpu import _timeline

    tl = _timeline(lambda: GPUHeavyLight.from_csr(csr), _sync)
    if tl is not None:
        out["kernels_timeline"] = {k: tl[k] for k in ("call_us", "kernels", "kernel_busy_us",
                                                      "idle_us", "per_kernel") if k in tl}
    print(json.dumps(out, indent=1), flush=True)

    x = VecData(n, None, cp.full(n, 1.0 / n), None)
    sr = semiring("plus_times", "probe")
    types = sr.types(np.dtype(np.float64), np.dtype(np.float64))
    variants = {}
    fields = ("ent", "val", "units", "gbase", "prow", "cptr", "chunks", "row_hit",
              "col_order")
    for relabel in (None, False):
        for bank in (True, False):
            name = f"relabel={relabel} bank={bank}"
            row = {}
            layouts = {}
            for how, use in (("array", array_at_a_time), ("kernels", kernels)):
                use()
                row[f"build_ms_{how}"] = round(wall_ms(
                    lambda r=relabel, b=bank: lp.LightPanels.from_csr(
                        csr, relabel=r, bank_order=b), args.repeat), 2)
                layouts[how] = lp.LightPanels.from_csr(csr, relabel=relabel, bank_order=bank)
            kernels()
            A, L = layouts["array"], layouts["kernels"]
            row["same_layout"] = bool(A.npart == L.npart and all(
                (getattr(A, f) is None and getattr(L, f) is None) or
                (getattr(A, f) is not None and getattr(L, f) is not None and
                 getattr(A, f).dtype == getattr(L, f).dtype and
                 bool(cp.array_equal(getattr(A, f), getattr(L, f)))) for f in fields))
            del A, layouts
            row.update({"relabelled": L.col_order is not None,
                        "partials_per_entry": round(L.npart / max(L.nnz, 1), 3)})
            row["product_ms"] = round(wall_ms(
                lambda L=L: light_panels_pull(L, x, None, sr, types), 20), 4)
            variants[name] = row
            print(name, row, flush=True)
            del L
    out["variants"] = variants
    G = gb.Matrix(csr)
    xv = gb.Vector.from_dense(cp.full(n, 1.0 / n))
    with gb.config(format="csr"):
        out["csr_product_ms"] = round(wall_ms(lambda: gb.mxv(G, xv, "plus_times"), 20), 4)
    print("csr product", out["csr_product_ms"], flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
