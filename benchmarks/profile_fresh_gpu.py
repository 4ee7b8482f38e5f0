"""Where a first PageRank on a fresh GPU Matrix spends its time (Kronecker graphs).

Prints, per scale: the transpose build, the planner's format choices and builds, and the
whole first call against a warm one, with the cupyx loop's time for scale.

``PYTHONPATH=. python3 benchmarks/profile_fresh_gpu.py --scales 20 22``
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time

import numpy as np


def main(argv=None) -> None:
    import cupy as cp

    import gblas as gb
    from gblas.io import generators

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="+", default=[20, 22])
    args = p.parse_args(argv)
    sync = cp.cuda.Device().synchronize
    warm = generators.kronecker(12, 16, seed=1).to("gpu")
    gb.algorithms.pagerank(warm)  # kernels compiled
    for scale in args.scales:
        A = generators.kronecker(scale, 16, seed=1)
        G = A.to("gpu")
        sync()
        t0 = time.perf_counter()
        G.csr(transposed=True)
        sync()
        t_tr = time.perf_counter() - t0
        G = A.to("gpu")
        sync()
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        gb.algorithms.pagerank(G)
        sync()
        prof.disable()
        t_first = time.perf_counter() - t0
        ts = []
        for _ in range(5):
            t0 = time.perf_counter()
            gb.algorithms.pagerank(G)
            sync()
            ts.append(time.perf_counter() - t0)
        built = [k[0] + (".T" if k[1] else "") for k in G._cache if k[0] != "stats"]
        print(f"scale {scale}: transpose alone {t_tr * 1e3:.1f} ms; first pagerank "
              f"{t_first * 1e3:.1f} ms; warm {np.median(ts) * 1e3:.2f} ms; built {built}")
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(25)
        print(s.getvalue())


if __name__ == "__main__":
    main()
