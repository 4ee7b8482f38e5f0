"""GPU PageRank on a fresh and on a prepared Matrix against the cupyx loop, for the code
on ``PYTHONPATH`` (run it for two versions in turns to compare them).

For each Kronecker scale (pattern CSR built on the device, as in
:mod:`benchmarks.bench_gpu_mxv`): the cupyx loop of
:func:`benchmarks.run_pagerank_gpu.cupyx_pagerank` (cuSPARSE over the row-normalized,
transposed float64 matrix, built outside its timing) and ``gb.algorithms.pagerank``:

* prepared: one Matrix, after six calls (the planner has built what pays over them);
* fresh: a new Matrix per call (the transpose and any format built inside the call).

Both stop when the L1 change is below 1e-6, so they run the same iterations.  Each
figure is a median of synchronized wall times; the three are timed in turns, twice.

Usage (on a GPU machine)::

    PYTHONPATH=. python3 benchmarks/probe_pagerank_prepared_gpu.py --scales 20 22 24 \\
        --label new
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="+", default=[20, 22, 24])
    p.add_argument("--label", default="gblas")
    p.add_argument("--rounds", type=int, default=2)
    args = p.parse_args(argv)
    import cupy as cp
    import cupyx.scipy.sparse as csp

    import gblas as gb
    from benchmarks.bench_gpu_mxv import build_graph
    from benchmarks.run_pagerank_gpu import cupyx_pagerank
    from gblas.formats.csr import CSR

    sync = cp.cuda.Device().synchronize

    def wall(fn, k: int, prep=None) -> float:
        times = []
        for _ in range(k):
            arg = prep() if prep else None
            sync()
            t0 = time.perf_counter()
            fn(arg)
            sync()
            times.append((time.perf_counter() - t0) * 1e3)
        return float(np.median(times))

    for scale in args.scales:
        F, _, _ = build_graph(scale, 16, 0)
        n, nnz = F.shape[0], F.nnz

        def fresh(F=F, n=n):
            return gb.Matrix(CSR((n, n), F.indptr, F.indices, None, np.dtype(np.bool_), True,
                                 "gpu"))

        outdeg = cp.diff(F.indptr).astype(cp.float64)
        dmask = (outdeg == 0).astype(cp.float64)
        inv = cp.where(outdeg > 0, 1.0 / cp.maximum(outdeg, 1.0), 0.0)
        rows = cp.searchsorted(F.indptr, cp.arange(nnz, dtype=F.indptr.dtype), side="right") - 1
        M = csp.csr_matrix((inv[rows], F.indices, F.indptr), shape=(n, n)).T.tocsr()
        del rows, inv, outdeg
        A = fresh()
        for _ in range(6):
            r = gb.algorithms.pagerank(A)
        ref, iters = cupyx_pagerank(M, dmask, n)
        diff = float(cp.abs(r._data.values - ref).max())
        got: dict = {"prepared": [], "fresh": [], "cupyx": []}
        for _ in range(args.rounds):
            got["prepared"].append(wall(lambda _, A=A: gb.algorithms.pagerank(A), 7))
            got["fresh"].append(wall(lambda B: gb.algorithms.pagerank(B), 5, fresh))
            got["cupyx"].append(wall(lambda _, M=M, d=dmask, n=n: cupyx_pagerank(M, d, n), 7))
        med = {k: float(np.median(v)) for k, v in got.items()}
        print(f"{args.label} Kronecker {scale}: {iters} iterations, largest difference "
              f"{diff:.1e}; " + "; ".join(f"{k} " + " / ".join(f"{v:.2f}" for v in vs) + " ms"
                                         for k, vs in got.items())
              + f"; cupyx / prepared {med['cupyx'] / med['prepared']:.2f}, cupyx / fresh "
              f"{med['cupyx'] / med['fresh']:.2f}", flush=True)
        del A, M, F
        cp.get_default_memory_pool().free_all_blocks()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
