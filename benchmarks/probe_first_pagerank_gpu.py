"""The first PageRank on a fresh GPU Matrix, several times in one process.

``run_pagerank_gpu.py`` times one first call per scale; this probe times the first
``gb.algorithms.pagerank`` call on each of several fresh Matrices over the same device
arrays (copied, so that nothing a Matrix caches carries over), after one warm-up call on
another Matrix (kernels compiled, the planner's host and device times measured), and
prints the median with the format each call's products ended in; and the first and
second ``gb.mxv(A.T, x, "plus_times")`` on a fresh Matrix whose transpose was built
before the timing (what a product's per-matrix preparation, its row schedule, costs).
Run it on the code before and after a change, each in a new process with its own cache
folder (``GBLAS_CACHE_DIR``), to compare first calls.

Usage (on a GPU machine)::

    PYTHONPATH=. python benchmarks/probe_first_pagerank_gpu.py --scales 22 24 --calls 5
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from benchmarks.bench_gpu_mxv import build_graph
from benchmarks.bench_gpu_shards import _sync


def _timed(fn) -> float:
    """Milliseconds of ``fn()``, the device synchronized before and after."""
    _sync()
    t0 = time.perf_counter()
    fn()
    _sync()
    return (time.perf_counter() - t0) * 1e3


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="*", default=[22, 24])
    p.add_argument("--calls", type=int, default=5)
    args = p.parse_args(argv)

    import gblas as gb
    from gblas.formats.csr import CSR

    for scale in args.scales:
        F, _, _ = build_graph(scale, 16, 1)
        n = F.shape[0]

        def fresh(F=F, n=n):
            return gb.Matrix(CSR((n, n), F.indptr.copy(), F.indices.copy(), None,
                                 np.dtype(np.bool_), True, "gpu"))

        gb.algorithms.pagerank(fresh())
        times, formats = [], []
        for _ in range(args.calls):
            A = fresh()
            times.append(_timed(lambda A=A: gb.algorithms.pagerank(A)))
            built = sorted({k[0] for k in A._cache if isinstance(k, tuple) and k[1] is True
                            and isinstance(k[0], str) and k[0] not in ("csr", "stats")})
            formats.append("+".join(built) or "csr")
            del A
        first, second = [], []
        for _ in range(args.calls):
            A = fresh()
            x = gb.Vector.full(n, 1.0, device="gpu")
            A.csr(transposed=True)
            first.append(_timed(lambda A=A, x=x: gb.mxv(A.T, x, "plus_times")))
            second.append(_timed(lambda A=A, x=x: gb.mxv(A.T, x, "plus_times")))
            del A
        print(f"Kronecker {scale} ({F.nnz:,} entries): first pagerank on a fresh Matrix "
              f"median {statistics.median(times):.1f} ms over {args.calls} "
              f"({', '.join(f'{t:.1f}' for t in times)}); formats built: "
              f"{', '.join(formats)}; first product after the transpose "
              f"{statistics.median(first):.3f} ms, second {statistics.median(second):.3f} ms",
              flush=True)
        del F
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
