"""Algorithms as a user writes them with the GraphBLAS operations: gblas against
python-graphblas (SuiteSparse:GraphBLAS), the same loop in the same process.

* **BFS**: ``frontier<!levels.S> = frontier any.pair A``, then ``levels<frontier.S> =
  depth``, until the frontier is empty (``gb.vxm`` / ``gb.assign``); each library's levels
  are compared.
* **PageRank**: 20 iterations of ``w = r ./ outdeg``, ``t = A' plus.second w``,
  ``r = d t + (1 - d) / n`` (four operations each); the ranks are compared.

Graphs: Kronecker scales (symmetric, edge factor 16, seed 1), k x k grids (a mesh's
diameter: 2k - 2 levels) and the Matrix Market files of ``--data``.  Medians of
``--repeat`` calls after a warm-up call.  Prints one line per graph and loop:

    label | graph | n | loop | levels or iterations | gblas ms | python-graphblas ms | ratio

``--cold`` adds each loop's first call in a new process per library (a fresh Matrix, its
import and conversion not timed, the kernel caches filled by the calls before), appended
as ``gblas cold ms | python-graphblas cold ms | ratio``.

Usage::

    PYTHONPATH=. python benchmarks/run_user_loops.py new --scales 10 14 18 --grids 300 700 \\
        --data ../shared/data
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse

from benchmarks.harness import median_ms

DAMPING = 0.85
ITERATIONS = 20


def _none() -> None:
    """No device to wait for (the CPU)."""


def _grid(k: int):
    """The k x k grid graph (4-neighbours, both directions) as a SciPy CSR."""
    import scipy.sparse as sp

    idx = np.arange(k * k).reshape(k, k)
    r = np.concatenate([idx[:, :-1].ravel(), idx[:, 1:].ravel(), idx[:-1, :].ravel(),
                        idx[1:, :].ravel()])
    c = np.concatenate([idx[:, 1:].ravel(), idx[:, :-1].ravel(), idx[1:, :].ravel(),
                        idx[:-1, :].ravel()])
    return sp.csr_array((np.ones(r.size), (r, c)), shape=(k * k, k * k))


def _graphs(args):
    """(name, SciPy CSR pattern of float64 ones) of every graph asked for."""
    import scipy.io
    import scipy.sparse as sp

    import gblas as gb

    for s in args.scales:
        yield f"kronecker-{s}", gb.io.generators.kronecker(s, 16, seed=1).to_scipy()
    for k in args.grids:
        yield f"grid-{k}x{k}", _grid(k)
    if args.data:
        for f in sorted(Path(args.data).glob("*.mtx.gz"), key=lambda f: f.stat().st_size):
            S = sp.csr_array(scipy.io.mmread(gzip.open(f)))
            S.sum_duplicates()
            S.data[:] = 1.0
            yield f.name.split(".")[0], S


def gblas_bfs(gb, A, source: int):
    n = A.shape[0]
    levels = gb.Vector.from_coo([source], [0], size=n)
    frontier = gb.Vector.from_coo([source], [True], size=n)
    depth = 0
    while frontier.nvals:
        depth += 1
        # frontier<!levels.S> = frontier any.pair A; levels<frontier.S> = depth
        frontier = gb.vxm(frontier, A, "any_pair", mask=~levels.S)
        gb.assign(levels, depth, mask=frontier.S)
    return levels.to_dense(fill=-1), depth


def grb_bfs(grb, G, source: int):
    n = G.nrows
    levels = grb.Vector(grb.dtypes.INT64, n)
    levels[source] << 0
    frontier = grb.Vector(grb.dtypes.BOOL, n)
    frontier[source] << True
    depth = 0
    while frontier.nvals:
        depth += 1
        frontier(~levels.S, replace=True) << grb.semiring.any_pair(frontier @ G)
        levels(frontier.S) << depth
    return levels.to_dense(fill_value=-1), depth


def gblas_pagerank(gb, A):
    n = A.shape[0]
    outdeg = gb.reduce(A, "plus", axis="rows")
    r = gb.Vector.full(n, 1.0 / n)
    for _ in range(ITERATIONS):
        w = gb.ewise_mult(r, outdeg, "div")  # w = r ./ outdeg
        t = gb.mxv(A.T, w, "plus_second")  # t = A' w
        r = gb.apply(gb.apply(t, "times", right=DAMPING), "plus", right=(1 - DAMPING) / n)
    return r.to_dense(fill=0.0), ITERATIONS


def grb_pagerank(grb, G):
    n = G.nrows
    outdeg = G.reduce_rowwise(grb.monoid.plus).new()
    r = grb.Vector(grb.dtypes.FP64, n)
    r << 1.0 / n
    for _ in range(ITERATIONS):
        w = grb.binary.truediv(r & outdeg).new()
        t = grb.semiring.plus_second(G.T @ w).new()
        r = (t * DAMPING).new()
        r = (r + (1 - DAMPING) / n).new()
    return r.to_dense(fill_value=0.0), ITERATIONS


def main(argv=None) -> None:
    import graphblas as grb

    import gblas as gb

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("label")
    p.add_argument("--scales", type=int, nargs="*", default=[10, 14, 18])
    p.add_argument("--grids", type=int, nargs="*", default=[300, 700])
    p.add_argument("--data", default=None)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--loops", nargs="*", default=["bfs", "pagerank"])
    p.add_argument("--cold", action="store_true",
                   help="also time each loop's first call in a new process per library (a "
                        "fresh Matrix, the kernel caches filled by the calls before)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        for name, S in _graphs(args):
            for loop in args.loops:
                row = _row(gb, grb, S, loop, name, args.repeat)
                if args.cold:
                    path = Path(tmp) / "graph.npz"
                    scipy.sparse.save_npz(path, S)
                    t_ours, t_theirs = (_cold(lib, loop, path) for lib in ("gblas", "grb"))
                    row += f" | {t_ours:.2f} | {t_theirs:.2f} | {t_theirs / t_ours:.2f}"
                print(f"{args.label} | {name} | {S.shape[0]:,} | {row}", flush=True)


def _cold(lib: str, loop: str, path: Path) -> float:
    """Milliseconds of the loop's first call in a new process (its import and the graph's
    load and conversion not counted)."""
    out = subprocess.run([sys.executable, __file__, "--child", lib, loop, str(path)],
                         capture_output=True, text=True, check=True, timeout=600,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    return float(out.stdout.strip().splitlines()[-1])


def _child(lib: str, loop: str, path: str) -> None:
    """The ``--cold`` child: one call, its time printed in milliseconds."""
    S = scipy.sparse.load_npz(path).tocsr()
    source = int(np.argmax(np.diff(S.indptr)))
    if lib == "gblas":
        import gblas as gb

        A = gb.Matrix.from_scipy(S)
        call = (lambda: gblas_bfs(gb, A, source)) if loop == "bfs" else (
            lambda: gblas_pagerank(gb, A))
    else:
        import graphblas as grb

        G = grb.io.from_scipy_sparse(S)
        call = (lambda: grb_bfs(grb, G, source)) if loop == "bfs" else (
            lambda: grb_pagerank(grb, G))
    t0 = time.perf_counter()
    call()
    print(f"{(time.perf_counter() - t0) * 1e3:.3f}")


def _row(gb, grb, S, loop: str, name: str, repeat: int) -> str:
    """The loop's steps, both libraries' times and their ratio, the answers compared."""
    A = gb.Matrix.from_scipy(S)
    G = grb.io.from_scipy_sparse(S)
    source = int(np.argmax(np.diff(S.indptr)))
    if loop == "bfs":
        def ours():
            return gblas_bfs(gb, A, source)

        def theirs():
            return grb_bfs(grb, G, source)
    else:
        def ours():
            return gblas_pagerank(gb, A)

        def theirs():
            return grb_pagerank(grb, G)
    (a, steps), (b, _) = ours(), theirs()
    if not np.allclose(a, b, rtol=1e-12, atol=1e-15):
        raise AssertionError(f"{name} {loop}: the answers differ")
    t_ours, t_theirs = median_ms(ours, _none, repeat), median_ms(theirs, _none, repeat)
    return f"{loop} | {steps} | {t_ours:.2f} | {t_theirs:.2f} | {t_theirs / t_ours:.2f}"


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        _child(*sys.argv[2:])
    else:
        main()
