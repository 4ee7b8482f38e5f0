"""Triangle counts on the CPU: gblas's total and per-vertex counts against
graphblas-algorithms (python-graphblas on SuiteSparse:GraphBLAS) in the same run.

Each graph's undirected form (as in :mod:`benchmarks.run_end_to_end`: the pattern of
``S + S'`` without self loops) is timed as a user calls it: ``triangle_count`` and
``clustering`` on a new ``gblas.Matrix`` per call (built outside the timing), against
``graphblas_algorithms``' ``total_triangles`` and ``clustering`` on a new Graph per call.
Answers are compared before times are reported.  Medians after one warm-up call.

Run from the repository root::

    python -m benchmarks.run_triangles                  # results/triangles_cpu.md
    python -m benchmarks.run_triangles --graphs kronecker-14,email-Enron --no-write
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np


def _median(prepare: Callable, run: Callable, repeat: int) -> tuple[float, object]:
    """Median seconds of ``run(prepare())`` (``prepare`` untimed), after a warm-up."""
    result = run(prepare())
    times = []
    for _ in range(repeat):
        arg = prepare()
        t0 = time.perf_counter()
        run(arg)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def _fmt(seconds: float) -> str:
    """Seconds as ms (us below a millisecond)."""
    return f"{seconds * 1e6:.0f} us" if seconds < 1e-3 else f"{seconds * 1e3:.1f} ms"


def main(argv: list[str] | None = None) -> int:
    """Run the comparison; returns the exit status."""
    import graphblas as grb
    import graphblas_algorithms as ga

    import gblas as gb
    from benchmarks.harness import markdown_table, write_results
    from benchmarks.run_end_to_end import graph_cases, load_graph, machine_info

    p = argparse.ArgumentParser(prog="python -m benchmarks.run_triangles",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=None, help="folder of *.mtx.gz graphs")
    p.add_argument("--graphs", type=lambda v: [x for x in v.split(",") if x], default=None,
                   help="comma-separated graph names (kronecker-SCALE or a data file's)")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--no-write", dest="write", action="store_false")
    args = p.parse_args(argv)
    args.large = args.quick = False
    rows = []
    for case in graph_cases(args):
        g = load_graph(case)
        U = g.U
        count, mine = _median(lambda U=U: gb.Matrix.from_scipy(U), gb.algorithms.triangle_count,
                              args.repeat)
        theirs_count, theirs = _median(lambda U=U: ga.Graph(grb.io.from_scipy_sparse(U)),
                                       ga.total_triangles, args.repeat)
        clus, cmine = _median(lambda U=U: gb.Matrix.from_scipy(U), gb.algorithms.clustering,
                              args.repeat)
        theirs_clus, cthe = _median(lambda U=U: ga.Graph(grb.io.from_scipy_sparse(U)),
                                    ga.clustering, args.repeat)
        dense = np.zeros(U.shape[0])
        idx, vals = cthe.to_coo()
        dense[idx] = vals
        same = int(mine) == int(theirs)
        err = float(np.abs(cmine.to_dense() - dense).max(initial=0.0))
        rows.append([g.name, f"{U.nnz:,}", f"{int(mine):,}", _fmt(count), _fmt(theirs_count),
                     f"{theirs_count / count:.2f}", _fmt(clus), _fmt(theirs_clus),
                     f"{theirs_clus / clus:.2f}",
                     ("same count" if same else "**DIFFERENT count**")
                     + f", clustering max diff {err:.1e}"])
        print(" | ".join(map(str, rows[-1])), file=sys.stderr, flush=True)
    table = markdown_table(["graph", "entries", "triangles", "gblas count",
                            "graphblas-algorithms count", "ratio", "gblas clustering",
                            "graphblas-algorithms clustering", "ratio", "check"], rows)
    print(table)
    if args.write:
        notes = ("A new gblas Matrix (or graphblas-algorithms Graph) per call, built "
                 f"outside the timing; median of {args.repeat} calls after one warm-up; "
                 "ratio above 1: gblas faster.  Graphs: the undirected forms of the "
                 "end-to-end benchmark's graphs.")
        path = write_results("triangles_cpu", "Triangle counts on the CPU",
                             [("How to read", notes), ("Results", table)], machine_info())
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
