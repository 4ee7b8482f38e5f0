"""The fixed cost of a first PageRank on a fresh GPU Matrix, step by step.

For each graph, over several fresh Matrices (``A.to("gpu")`` outside the timings), the
median of: the whole first call; the transpose alone; the call after the transpose was
built; the call after the transpose and its pull schedule were built; a warm call.  The
differences are the steps' shares of a fresh call (each timing synchronizes the device).

``PYTHONPATH=. python3 benchmarks/probe_fresh_overhead_gpu.py --scales 10 14``
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main(argv=None) -> None:
    import cupy as cp

    import gblas as gb
    from gblas.backends.gpu.mxv import pull_schedule
    from gblas.io import generators

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="+", default=[10, 14])
    p.add_argument("--fresh", type=int, default=9)
    args = p.parse_args(argv)
    sync = cp.cuda.Device().synchronize

    def timed(f, *a, **kw):
        sync()
        t0 = time.perf_counter()
        f(*a, **kw)
        sync()
        return (time.perf_counter() - t0) * 1e3

    gb.algorithms.pagerank(generators.kronecker(12, 16, seed=1).to("gpu"))  # compiled
    print("| graph | whole first call | transpose | call after it | after it and the "
          "schedule | schedule alone | warm call |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for scale in args.scales:
        A = generators.kronecker(scale, 16, seed=1)
        t = {k: [] for k in ("whole", "tr", "after_tr", "after_sched", "sched", "warm")}
        for _ in range(args.fresh):
            G = A.to("gpu")
            t["whole"].append(timed(gb.algorithms.pagerank, G))
            t["warm"].append(timed(gb.algorithms.pagerank, G))
            G = A.to("gpu")
            t["tr"].append(timed(G.csr, transposed=True))
            t["after_tr"].append(timed(gb.algorithms.pagerank, G))
            G = A.to("gpu")
            AT = G.csr(transposed=True)
            t["sched"].append(timed(pull_schedule, AT))
            t["after_sched"].append(timed(gb.algorithms.pagerank, G))
        med = {k: float(np.median(v)) for k, v in t.items()}
        print(f"| kronecker-{scale} | {med['whole']:.2f} | {med['tr']:.2f} | "
              f"{med['after_tr']:.2f} | {med['after_sched']:.2f} | {med['sched']:.2f} | "
              f"{med['warm']:.2f} |")


if __name__ == "__main__":
    main()
