"""PageRank on the GPU in one launch against the loop of planned products, by size.

For each Kronecker scale: the median of warm calls and of first calls on fresh Matrices,
with the one-launch kernel allowed (``FUSED_PAGERANK_MAX_ENTRIES`` raised above the
graph) and not (lowered to 0), the iterations, and the largest difference of the ranks.

``PYTHONPATH=. python3 benchmarks/probe_pagerank_fused_gpu.py --scales 10 14 16 18 20``
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main(argv=None) -> None:
    import cupy as cp

    import gblas as gb
    from gblas.io import generators
    from gblas.planner import algorithms as plans

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="+", default=[10, 14, 16, 18])
    p.add_argument("--repeat", type=int, default=7)
    args = p.parse_args(argv)
    sync = cp.cuda.Device().synchronize

    def timed(f, *a):
        sync()
        t0 = time.perf_counter()
        out = f(*a)
        sync()
        return (time.perf_counter() - t0) * 1e3, out

    print(f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; median of "
          f"{args.repeat} calls (ms)\n")
    print("| scale | entries | one launch, warm | loop, warm | one launch, fresh | "
          "loop, fresh | max diff |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    real = plans.FUSED_PAGERANK_MAX_ENTRIES_GPU
    for scale in args.scales:
        A = generators.kronecker(scale, 16, seed=1)
        row, ranks = {}, {}
        for name, limit in (("fused", 1 << 62), ("loop", 0)):
            plans.FUSED_PAGERANK_MAX_ENTRIES_GPU = limit
            G = A.to("gpu")
            gb.algorithms.pagerank(G)
            warm = [timed(gb.algorithms.pagerank, G) for _ in range(args.repeat)]
            fresh = []
            for _ in range(args.repeat):
                F = A.to("gpu")
                fresh.append(timed(gb.algorithms.pagerank, F)[0])
            row[name] = (np.median([t for t, _ in warm]), np.median(fresh))
            ranks[name] = warm[-1][1].to("cpu").to_dense()
        plans.FUSED_PAGERANK_MAX_ENTRIES_GPU = real
        diff = float(np.abs(ranks["fused"] - ranks["loop"]).max())
        print(f"| {scale} | {A.nvals:,} | {row['fused'][0]:.3f} | {row['loop'][0]:.3f} | "
              f"{row['fused'][1]:.3f} | {row['loop'][1]:.3f} | {diff:.1e} |")


if __name__ == "__main__":
    main()
