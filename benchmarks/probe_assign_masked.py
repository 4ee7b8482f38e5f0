"""Probe: a scalar assigned under a matrix's own structure, ``C<C.S> = s`` (every entry
set to ``s``), with gblas and with python-graphblas in the same process.

Kronecker graphs (symmetric, edge factor 8, seed 1) of the scales given; medians of
``--repeat`` calls after a warm-up, each on a fresh copy of the matrix (the copy not
timed).  Prints ``scale | entries | gblas ms | python-graphblas ms``.

Usage::

    PYTHONPATH=. python benchmarks/probe_assign_masked.py --scales 12 16
"""

from __future__ import annotations

import argparse

from benchmarks.harness import median_fresh


def _median_ms(run, make, repeat: int) -> float:
    return median_fresh(run, make, lambda: None, repeat, 60.0)[0] * 1e3


def main(argv=None) -> None:
    import graphblas as grb

    import gblas as gb

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="*", default=[12, 16])
    p.add_argument("--repeat", type=int, default=7)
    args = p.parse_args(argv)
    for s in args.scales:
        S = gb.io.generators.kronecker(s, 8, seed=1).to_scipy()

        def ours(A):
            gb.assign(A, 2.0, mask=A.S)

        def theirs(G):
            G(G.S) << 2.0

        t_ours = _median_ms(ours, lambda S=S: gb.Matrix.from_scipy(S), args.repeat)
        t_theirs = _median_ms(theirs, lambda S=S: grb.io.from_scipy_sparse(S), args.repeat)
        print(f"{s} | {S.nnz:,} | {t_ours:.3f} | {t_theirs:.3f}", flush=True)


if __name__ == "__main__":
    main()
