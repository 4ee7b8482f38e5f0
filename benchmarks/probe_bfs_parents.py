"""`gblas.algorithms.bfs` with and without parents against SciPy's
``breadth_first_order(..., return_predecessors=True)`` (SciPy's predecessor is the first
discoverer, gblas's the least-id one: the same reached set), from a vertex of largest
degree: median of ``--repeat`` calls after a warm-up, on a fresh Matrix per call (built
outside the timed region) and on a Matrix already used; the four calls alternate, so that
a burst of load on a shared machine falls on all of them.  Run it with ``PYTHONPATH`` set
to each version of gblas to compare versions.

Usage::

    PYTHONPATH=. python benchmarks/probe_bfs_parents.py --graphs kronecker-18 luxembourg-osm
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np


def _medians(cases, repeat: int) -> list[float]:
    """The median time of each ``(run, make)`` case, the cases alternating call by call
    (``make()`` builds the argument outside the timed region)."""
    for run, make in cases:
        run(make())
    ts = [[] for _ in cases]
    for _ in range(repeat):
        for (run, make), t in zip(cases, ts):
            arg = make()
            t0 = time.perf_counter()
            run(arg)
            t.append(time.perf_counter() - t0)
    return [statistics.median(t) for t in ts]


def _row(name: str, S, repeat: int) -> str:
    """The table row of graph ``S``."""
    from scipy.sparse import csgraph

    import gblas as gb

    src = int(np.argmax(np.diff(S.indptr)))
    A = gb.Matrix.from_scipy(S)

    def fresh():
        return gb.Matrix.from_scipy(S)

    t_lv, t_pf, t_pu, t_sp = _medians([
        (lambda M: gb.algorithms.bfs(M, src), fresh),
        (lambda M: gb.algorithms.bfs(M, src, parents=True), fresh),
        (lambda M: gb.algorithms.bfs(M, src, parents=True), lambda: A),
        (lambda M: csgraph.breadth_first_order(M, src, return_predecessors=True),
         lambda: S)], repeat)
    return (f"| {name} | {S.nnz:,} | {t_lv * 1e3:.2f} ms | {t_pf * 1e3:.2f} ms | "
            f"{t_pu * 1e3:.2f} ms | {t_sp * 1e3:.2f} ms | {t_sp / t_pf:.2f} |")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", nargs="+", default=["kronecker-18", "kronecker-20"],
                   help="kronecker-N (symmetric) or names in --data")
    p.add_argument("--data", type=Path, default=Path(".data"))
    p.add_argument("--repeat", type=int, default=7)
    args = p.parse_args(argv)
    import gblas as gb
    from gblas.backends.cpu.blocks import num_threads

    print(f"gblas from {gb.__file__}, {num_threads()} threads")
    print("| graph | entries | levels fresh | parents fresh | parents used | SciPy "
          "(predecessors) | SciPy / parents fresh |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in args.graphs:
        if name.startswith("kronecker-"):
            S = gb.io.kronecker(int(name[10:]), 16, seed=1, symmetric=True).to_scipy()
        else:
            S = gb.io.read_mm(args.data / f"{name}.mtx.gz").to_scipy()
        print(_row(name, S.tocsr(), args.repeat), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
