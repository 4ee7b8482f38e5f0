"""``Matrix.prepare`` on the GPU and the PageRank that follows it.

For each Kronecker scale: a fresh Matrix over copies of the pattern's device arrays,
``A.prepare(100, directions=("A.T",))`` (PageRank's orientation) timed, then one
``gb.algorithms.pagerank(A)`` timed, with the format the prepared plan names; a few
times, after a warm-up at scale 16 (the first row of each scale still compiles what the
warm-up did not build).  Run it on the code before and after a change, each in a new
process with its own cache folder (``GBLAS_CACHE_DIR``).

Usage (on a GPU machine)::

    PYTHONPATH=. python benchmarks/probe_prepare_gpu.py --scales 22 24 --repeat 3
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="*", default=[22, 24])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    import cupy as cp

    import gblas as gb
    from benchmarks.bench_gpu_mxv import build_graph
    from gblas.formats.csr import CSR

    sync = cp.cuda.Device().synchronize

    def fresh(F):
        n = F.shape[0]
        return gb.Matrix(CSR((n, n), F.indptr.copy(), F.indices.copy(), None,
                             np.dtype(np.bool_), True, "gpu"))

    F, _, _ = build_graph(16, 16, 1)
    fresh(F).prepare(100, directions=("A.T",))
    gb.algorithms.pagerank(fresh(F))
    for scale in args.scales:
        F, _, _ = build_graph(scale, 16, 1)
        for _ in range(args.repeat):
            A = fresh(F)
            sync()
            t0 = time.perf_counter()
            plans = A.prepare(100, directions=("A.T",))
            sync()
            t1 = time.perf_counter()
            gb.algorithms.pagerank(A)
            sync()
            t2 = time.perf_counter()
            print(f"Kronecker {scale}: prepare {(t1 - t0) * 1e3:.1f} ms ({plans[0].format}), "
                  f"then pagerank {(t2 - t1) * 1e3:.2f} ms", flush=True)
            del A
        del F
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
