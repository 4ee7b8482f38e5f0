"""A fresh GPU Matrix's first pull product and first PageRank, for the gblas on
``PYTHONPATH``: what the per-matrix preparation of a product (its row schedule) costs
beyond the transpose.

Per Kronecker scale (pattern graphs built on the device, ``bench_gpu_mxv.build_graph``):
the median of ``--repeat`` PageRank calls on a new Matrix each, and of the first and
second ``gb.mxv(A.T, x, "plus_times")`` on a new Matrix whose transpose was built
before the timing.

Usage (on a GPU machine)::

    PYTHONPATH=. python3 benchmarks/probe_first_product_gpu.py new --scales 20 22
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main(argv=None) -> None:
    import cupy as cp

    import gblas as gb
    from benchmarks.bench_gpu_mxv import build_graph
    from gblas.formats.csr import CSR

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("label")
    p.add_argument("--scales", type=int, nargs="*", default=[20, 22])
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    sync = cp.cuda.Device().synchronize

    def timed(fn) -> float:
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        return (time.perf_counter() - t0) * 1e3

    for scale in args.scales:
        F, _, _ = build_graph(scale, 16, 1)
        n = F.shape[0]

        def fresh(F=F, n=n):
            return gb.Matrix(CSR((n, n), F.indptr.copy(), F.indices.copy(), None,
                                 np.dtype(np.bool_), True, "gpu"))

        gb.algorithms.pagerank(fresh())
        pagerank, first, second = [], [], []
        for _ in range(args.repeat):
            A = fresh()
            pagerank.append(timed(lambda A=A: gb.algorithms.pagerank(A)))
            A = fresh()
            x = gb.Vector.full(n, 1.0, device="gpu")
            A.csr(transposed=True)
            first.append(timed(lambda A=A, x=x: gb.mxv(A.T, x, "plus_times")))
            second.append(timed(lambda A=A, x=x: gb.mxv(A.T, x, "plus_times")))
        print(f"{args.label} Kronecker {scale}: fresh pagerank {np.median(pagerank):.2f} ms "
              f"({min(pagerank):.2f}-{max(pagerank):.2f}); first mxv after the transpose "
              f"{np.median(first):.3f} ms, second {np.median(second):.3f} ms", flush=True)


if __name__ == "__main__":
    main()
