"""`gblas.algorithms.bfs` with and without parents on a Matrix already used (symmetric
Kronecker graphs, edge factor 16, from a vertex of largest degree): median of 7 calls
after a warm-up.  Run it with ``PYTHONPATH`` set to each version of gblas to compare.

Usage::

    PYTHONPATH=. python benchmarks/probe_bfs_parents.py --scales 18 20
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scales", type=int, nargs="+", default=[18, 20])
    p.add_argument("--repeat", type=int, default=7)
    args = p.parse_args(argv)
    import gblas as gb
    from gblas.backends.cpu.blocks import num_threads

    print(f"gblas from {gb.__file__}, {num_threads()} threads")
    for scale in args.scales:
        S = gb.io.kronecker(scale, 16, seed=1, symmetric=True).to_scipy()
        src = int(np.argmax(np.diff(S.indptr)))
        A = gb.Matrix.from_scipy(S)
        for parents in (False, True):
            gb.algorithms.bfs(A, src, parents=parents)
            ts = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                gb.algorithms.bfs(A, src, parents=parents)
                ts.append(time.perf_counter() - t0)
            what = "parents" if parents else "levels"
            print(f"{scale} {what:8s} {statistics.median(ts) * 1e3:.2f} ms", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
