"""The light panels' product with its partials folded into ``y`` by global atomics.

The default call (:func:`gblas.backends.gpu.light_panels.light_panels_pull`) runs two
kernels: phase 1 writes one partial per run (value and 16-bit row) to a stream buffer,
phase 2 reads them back and folds them per row panel in shared memory.  With
``atomic=True`` phase 1 folds each partial into its row of ``y`` with one global atomic
update (the rows of the partials made once per layout) and a light pass writes the rows
without entries: the partials' round trip through DRAM (10 bytes written and read per
partial) becomes atomics that the L2 serves while ``y`` fits it.

For each Kronecker scale (graph of :func:`benchmarks.bench_gpu_mxv.build_graph`, its
transpose as PageRank pulls over ``A'``), with the format's default layout:

* the product alone, both ways, median of synchronized calls: the pattern with float64
  ``plus_second`` (PageRank's product), float32 ``plus_times`` and ``min_plus`` on the
  values, and the largest difference between the two results;
* PageRank on a prepared Matrix (``A.prepare(100, semiring="plus_second")``), both ways,
  against the cupyx loop of ``run_pagerank_gpu.py`` in the same run, with their
  iteration counts and the largest difference of the ranks.

Usage (on a GPU machine)::

    PYTHONPATH=. python benchmarks/probe_light_panels_atomic_gpu.py --scales 20 22 24
"""

from __future__ import annotations

import argparse
import functools
import json
import time

import numpy as np

from benchmarks.bench_gpu_shards import time_ms


def _sync() -> None:
    import cupy as cp

    cp.cuda.Device().synchronize()


def _wall(fn, repeat: int) -> float:
    """Median synchronized wall milliseconds of ``fn`` after one warm-up call."""
    fn()
    out = []
    for _ in range(repeat):
        _sync()
        t0 = time.perf_counter()
        fn()
        _sync()
        out.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(out))


def products(scale: int, repeat: int) -> list[dict]:
    """The product both ways for three semirings at ``scale``."""
    import cupy as cp

    from benchmarks.bench_gpu_mxv import build_graph
    from gblas.backends.gpu import light_panels as lp
    from gblas.backends.registry import VecData
    from gblas.formats.csr import CSR
    from gblas.formats.gpu_heavy_light import GPUHeavyLight
    from gblas.semirings import builtin

    F, _, _ = build_graph(scale, 16, 1)
    T = F.transpose()
    del F
    n = T.shape[1]
    pattern = CSR(T.shape, T.indptr, T.indices, None, np.dtype(np.float64), 1.0, "gpu")
    rows = []
    for label, csr, sr_name, xdt in (("pattern", pattern, "plus_second", np.float64),
                                     ("float32", T, "plus_times", np.float32),
                                     ("float32", T, "min_plus", np.float32)):
        H = GPUHeavyLight.from_csr(csr)
        L = H.light_panels
        sr = builtin.SEMIRINGS[sr_name]
        x = VecData(n, None, cp.random.RandomState(2).random_sample(n).astype(xdt), None)
        types = sr.types(np.dtype(csr.dtype), np.dtype(xdt))
        _sync()
        t0 = time.perf_counter()
        lp.light_panels_pull(L, x, None, sr, types, atomic=True)   # rows of the partials
        _sync()
        first = (time.perf_counter() - t0) * 1e3
        two = lp.light_panels_pull(L, x, None, sr, types)
        one = lp.light_panels_pull(L, x, None, sr, types, atomic=True)
        a, b = two.values.astype(np.float64), one.values.astype(np.float64)
        diff = float(cp.abs(a - b).max() / max(float(cp.abs(a).max()), 1e-300))
        same_flags = bool(cp.array_equal(two.present, one.present))
        call = functools.partial(lp.light_panels_pull, L, x, None, sr, types)
        row = {"scale": scale, "nnz": int(csr.nnz), "matrix": label, "semiring": sr_name,
               "partials": int(L.npart), "y_mb": round(n * np.dtype(types[2]).itemsize / 1e6, 1),
               "two_kernels_ms": time_ms(call, repeat),
               "atomic_ms": time_ms(functools.partial(call, atomic=True), repeat),
               "atomic_first_ms": round(first, 2), "max_rel_diff": diff,
               "same_flags": same_flags}
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def pagerank(scale: int, repeat: int) -> dict:
    """PageRank on a prepared Matrix, both ways, and the cupyx loop."""
    import cupy as cp
    import cupyx.scipy.sparse as csp

    import gblas as gb
    from benchmarks.bench_gpu_mxv import build_graph
    from benchmarks.run_pagerank_gpu import cupyx_pagerank
    from gblas.backends.gpu import light_panels as lp
    from gblas.formats.csr import CSR

    F, _, _ = build_graph(scale, 16, 1)
    n, nnz = F.shape[0], F.nnz
    A = gb.Matrix(CSR((n, n), F.indptr, F.indices, None, np.dtype(np.bool_), True, "gpu"))
    outdeg = cp.diff(F.indptr).astype(cp.float64)
    dmask = (outdeg == 0).astype(cp.float64)
    inv = cp.where(outdeg > 0, 1.0 / cp.maximum(outdeg, 1.0), 0.0)
    rws = cp.searchsorted(F.indptr, cp.arange(nnz, dtype=F.indptr.dtype), side="right") - 1
    M = csp.csr_matrix((inv[rws], F.indices, F.indptr), shape=(n, n)).T.tocsr()
    del rws, F
    plans = A.prepare(100, semiring="plus_second", directions=("A.T",))
    ref, iters = cupyx_pagerank(M, dmask, n)
    row = {"scale": scale, "nnz": int(nnz), "format": plans[0].format,
           "cupyx_iterations": iters}
    defaults = lp.light_panels_pull.__kwdefaults__
    keep = defaults["atomic"]
    for label, atomic in (("two_kernels", False), ("atomic", True)):
        defaults["atomic"] = atomic
        try:
            r = gb.algorithms.pagerank(A)
            row[f"{label}_maxdiff"] = float(cp.abs(r._data.values - ref).max())
            row[f"{label}_ms"] = _wall(lambda: gb.algorithms.pagerank(A), repeat)
        finally:
            defaults["atomic"] = keep
    row["cupyx_ms"] = _wall(lambda: cupyx_pagerank(M, dmask, n), repeat)
    for label in ("two_kernels", "atomic"):
        row[f"cupyx_over_{label}"] = round(row["cupyx_ms"] / row[f"{label}_ms"], 2)
    print(json.dumps(row), flush=True)
    return row


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="*", default=[20, 22, 24])
    p.add_argument("--pagerank-scales", type=int, nargs="*", default=[22, 24])
    p.add_argument("--repeat", type=int, default=20)
    args = p.parse_args(argv)
    import cupy as cp

    dev = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    print(f"device: {dev['name'].decode()}, L2 {dev['l2CacheSize'] / 2**20:.0f} MiB",
          flush=True)
    for s in args.scales:
        products(s, args.repeat)
        cp.get_default_memory_pool().free_all_blocks()
    for s in args.pagerank_scales:
        pagerank(s, args.repeat)
        cp.get_default_memory_pool().free_all_blocks()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
