"""CPU graph-algorithm benchmark: gblas algorithms against their anchors, same run, same graph.

On a Graph500 Kronecker graph (undirected, A = 0.57, B = C = 0.19, edge factor 16,
duplicates and self loops removed; uniform weights in (0, 1] for SSSP):

========================  ==============================================================
gblas                     anchor
========================  ==============================================================
``bfs`` (levels)          BFS written with python-graphblas on SuiteSparse:GraphBLAS
                          (``q<!v> = q any.pair A``; SuiteSparse picks push or pull), or
                          ``graphblas_algorithms`` when installed
``pagerank``              graphblas-algorithms' ``pagerank`` (python-graphblas), and
                          ``networkx.pagerank`` (its SciPy implementation, tol 1e-6; the time
                          includes NetworkX's graph -> SciPy conversion, as a user sees it),
                          and the same SciPy power iteration on a prebuilt matrix
``sssp``                  ``scipy.sparse.csgraph.dijkstra`` from one source
``connected_components``  ``scipy.sparse.csgraph.connected_components``
``triangle_count``        python-graphblas ``C<L> = L plus.pair L``, ``sum(C)``
========================  ==============================================================

Every figure is the median of ``--repeat`` timed calls after one warm-up call (Numba
compilation, cached formats); the ratio is gblas time / anchor time (below 1: gblas is
faster).  Results are checked against the anchor before being reported.  Writes
``benchmarks/results/algorithms_cpu.md``.

Run: ``python -m benchmarks.run_algorithms --scale 16 [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import numpy as np

try:  # the shared helpers (timing, machine description, markdown)
    from benchmarks.harness import (
        describe_machine,
        fmt_time,
        markdown_table,
        time_call,
        write_results,
    )
except ImportError:  # pragma: no cover - harness not there yet
    describe_machine = None


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ------------------------------------------------------------------------- anchors


def _grb_matrix(S, dtype):
    """python-graphblas Matrix of a SciPy CSR array."""
    import graphblas as grb

    n = S.shape[0]
    return grb.Matrix.ss.import_csr(
        nrows=n, ncols=n, indptr=S.indptr.astype(np.uint64),
        col_indices=S.indices.astype(np.uint64), values=S.data.astype(dtype),
        sorted_cols=True)


def _grb_bfs(G, source: int):
    """BFS levels with python-graphblas: one masked any.pair product per level."""
    import graphblas as grb
    from graphblas import binary, semiring

    n = G.nrows
    levels = grb.Vector(grb.dtypes.INT64, n)
    q = grb.Vector(bool, n)
    q[source] << True
    levels[source] << 0
    depth = 0
    while q.nvals:
        depth += 1
        # q<!levels, replace> = q any.pair G   (SuiteSparse chooses push or pull)
        q(~levels.S, replace=True) << q.vxm(G, semiring.any_pair)
        # levels<q> = depth
        levels(q.S) << binary.second(q, depth)
    return levels


def _anchor_bfs(Gb, source: int):
    """(name, function) of the BFS anchor: graphblas_algorithms when it is installed and
    works on this graph, else the python-graphblas BFS above."""
    try:  # pragma: no cover - optional package
        import graphblas_algorithms as ga

        G = ga.Graph(Gb)

        def run():
            return ga.algorithms.single_source_shortest_path_length(G, source)

        run()
        return "graphblas_algorithms BFS", run
    except Exception:
        return "python-graphblas BFS (any.pair, masked)", lambda: _grb_bfs(Gb, source)


def _scipy_pagerank(S, alpha: float = 0.85, tol: float = 1e-6, max_iter: int = 100):
    """NetworkX's SciPy power iteration (same update and stopping rule), on a prebuilt
    matrix: the anchor without NetworkX's graph -> SciPy conversion."""
    import scipy.sparse as sp

    n = S.shape[0]
    out = np.asarray(S.sum(axis=1)).ravel()
    inv = np.divide(1.0, out, out=np.zeros(n), where=out != 0)
    Q = sp.diags_array(inv) @ S
    dangling = out == 0
    x = np.full(n, 1.0 / n)
    p = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        last = x
        x = alpha * (x @ Q + x[dangling].sum() * p) + (1 - alpha) * p
        if np.abs(x - last).sum() < n * tol:
            return x
    return x


def _grb_pagerank_rows(A, S, pagerank, check_pr) -> list:
    """python-graphblas's PageRank (the graphblas-algorithms package), when installed."""
    try:
        import graphblas as grb
        import graphblas_algorithms as ga
    except ImportError:
        return []
    G = ga.Graph(grb.io.from_scipy_sparse(S.astype(np.float64)))

    def check(ours, t):
        i, v = t.to_coo()
        return check_pr(ours, dict(zip(i.tolist(), v.tolist())))

    # tol 1e-6 as the other PageRank rows; tol 1e-4 (the default) as the issue states it
    return [Row(f"pagerank (tol {tol:g})", "graphblas-algorithms pagerank (python-graphblas)",
                lambda tol=tol: pagerank(A, tol=tol, criterion="networkx"),
                lambda tol=tol: ga.pagerank(G, tol=tol),
                check) for tol in (1e-6, 1e-4)]


def _grb_triangles(G) -> int:
    from graphblas import select, semiring

    L = select.tril(G, -1).new()
    C = L.mxm(L, semiring.plus_pair).new(mask=L.S)
    return int(C.reduce_scalar().value)


# --------------------------------------------------------------------------- cases


class Row:
    def __init__(self, name: str, anchor: str, ours: Callable, theirs: Callable,
                 check: Callable[[object, object], str], setup: Callable | None = None) -> None:
        self.name, self.anchor, self.ours, self.theirs, self.check = (name, anchor, ours,
                                                                       theirs, check)
        self.setup = setup  # builds the row's input before any timing


def _rows(A, Aw, S, Sw, G, source: int) -> list[Row]:
    import networkx as nx
    from scipy.sparse import csgraph

    import gblas as gb
    from gblas import csgraph as gb_csgraph
    from gblas.algorithms.bfs import bfs
    from gblas.algorithms.components import connected_components
    from gblas.algorithms.pagerank import pagerank
    from gblas.algorithms.sssp import sssp
    from gblas.algorithms.triangles import triangle_count

    n = S.shape[0]
    Gb = _grb_matrix(S, bool)
    bfs_name, bfs_anchor = _anchor_bfs(Gb, source)

    def check_bfs(ours, theirs):
        got = ours.to_dense(fill=-1)
        want = np.full(n, -1, dtype=np.int64)
        if isinstance(theirs, dict):
            for k, v in theirs.items():
                want[int(k)] = v
        else:
            i, v = theirs.to_coo()
            want[i] = v
        return "equal" if np.array_equal(got, want) else "DIFFERENT"

    def check_pr(ours, theirs):
        err = np.abs(ours.to_dense() - np.array([theirs[i] for i in range(n)])).max()
        return f"max diff {err:.1e}"

    def check_sssp(ours, theirs):
        got = ours.to_dense(fill=np.inf)
        if not np.array_equal(np.isinf(got), np.isinf(theirs)):
            return "DIFFERENT reach"
        fin = np.isfinite(theirs)
        return f"max diff {np.abs(got[fin] - theirs[fin]).max(initial=0.0):.1e}"

    def check_cc(ours, theirs):
        lab = ours.to_dense()
        same = theirs[0] == np.unique(lab).size and \
            len(set(zip(lab.tolist(), theirs[1].tolist()))) == theirs[0]
        return f"{theirs[0]} components, " + ("same" if same else "DIFFERENT")

    def check_tri(ours, theirs):
        return f"{ours:,} triangles, " + ("equal" if ours == theirs else "DIFFERENT")

    return [
        Row("bfs (levels)", bfs_name, lambda: bfs(A, source),
            bfs_anchor, check_bfs),
        Row("pagerank", "networkx.pagerank (scipy)",
            lambda: pagerank(A, tol=1e-6, criterion="networkx"),
            lambda: nx.pagerank(G(), tol=1e-6), check_pr),
        Row("pagerank", "its SciPy iteration, matrix prebuilt",
            lambda: pagerank(A, tol=1e-6, criterion="networkx"),
            lambda: _scipy_pagerank(S), lambda o, t: check_pr(o, dict(enumerate(t)))),
        *_grb_pagerank_rows(A, S, pagerank, check_pr),
        Row("sssp", "scipy dijkstra (1 source)", lambda: sssp(Aw(), source),
            lambda: csgraph.dijkstra(Sw(), indices=source), check_sssp, setup=Sw),
        # the drop-in: the same SciPy input to both, gblas converts it on every call
        Row("gblas.csgraph.dijkstra (1 source, SciPy input)", "scipy dijkstra (1 source)",
            lambda: gb_csgraph.dijkstra(Sw(), indices=source),
            lambda: csgraph.dijkstra(Sw(), indices=source),
            lambda o, t: check_sssp(gb.Vector.from_dense(o), t), setup=Sw),
        Row("connected_components", "scipy connected_components",
            lambda: connected_components(A),
            lambda: csgraph.connected_components(S, directed=False), check_cc),
        Row("triangle_count", "python-graphblas plus_pair mxm", lambda: triangle_count(A),
            lambda: _grb_triangles(Gb), check_tri),
    ]


def _faults(t) -> str:
    return "-" if t.faults is None else f"{t.faults:,.0f}"


def run(scale: int, edge_factor: int, repeat: int, seed: int, name: str,
        only: str | None = None) -> str:
    import networkx as nx

    import gblas as gb

    t0 = time.perf_counter()
    A = gb.io.kronecker(scale, edge_factor, seed=seed, dtype=None, symmetric=True)
    S = A.to_scipy().astype(np.float64)
    graphs: dict = {}

    def Aw():
        # the weighted graph, built when an SSSP row runs (memory at scale 22)
        if "Aw" not in graphs:
            graphs["Aw"] = gb.io.kronecker(scale, edge_factor, seed=seed, dtype="float64",
                                           symmetric=True, weights="uniform")
        return graphs["Aw"]

    def Sw():
        if "Sw" not in graphs:
            graphs["Sw"] = Aw().to_scipy()
        return graphs["Sw"]

    def G():
        # the NetworkX graph, built when a NetworkX row runs (minutes at scale 20)
        if "nx" not in graphs:
            graphs["nx"] = nx.from_scipy_sparse_array(S)
        return graphs["nx"]

    _log(f"graph: scale {scale}, {S.shape[0]:,} vertices, {S.nnz:,} entries "
         f"({time.perf_counter() - t0:.1f} s to build)")
    deg = np.diff(S.indptr)
    source = int(np.argmax(deg))  # a hub: reaches the giant component
    rows = []
    for row in _rows(A, Aw, S, Sw, G, source):
        if only and not any(w in f"{row.name} {row.anchor}" for w in only.split(",")):
            continue
        _log(f"{row.name} ...")
        if row.setup is not None:
            row.setup()
        ours = time_call(row.ours, repeat=repeat, warmup=1)
        with gb.config(threads=1):
            ours1 = time_call(row.ours, repeat=repeat, warmup=1)
        theirs = time_call(row.theirs, repeat=repeat, warmup=1)
        check = row.check(row.ours(), row.theirs())
        ratio = ours.median / theirs.median
        rows.append([row.name, fmt_time(ours.median), fmt_time(ours1.median), row.anchor,
                     fmt_time(theirs.median), f"{ratio:.3g}", fmt_time(ours.first or 0.0),
                     f"{_faults(ours)} / {_faults(theirs)}", check])
        _log(f"  gblas {ours}  1 thread {ours1}  anchor {theirs}  ratio {ratio:.2f}  {check}")
    table = markdown_table(["algorithm", "gblas", "gblas, 1 thread", "anchor", "anchor time",
                            "gblas / anchor", "gblas first call",
                            "page faults per call (gblas / anchor)", "check"], rows)
    graph = (f"Graph500 Kronecker, scale {scale} ({S.shape[0]:,} vertices), edge factor "
             f"{edge_factor}, undirected, {S.nnz:,} stored entries after removing "
             f"duplicates and self loops; seed {seed}; BFS and SSSP from vertex {source} "
             f"(the largest degree, {deg[source]:,}); SSSP weights uniform in (0, 1].")
    notes = (f"Median of {repeat} timed calls after one warm-up call; 'gblas first call' is the "
             "warm-up (Numba compilation and format building included). Ratio below 1: "
             "gblas faster. SciPy and NetworkX run single-threaded; python-graphblas "
             "(SuiteSparse:GraphBLAS) and gblas use every core ('gblas, 1 thread': the same "
             "calls on one Numba thread; on a shared 2-core machine another busy process "
             "slows the parallel kernels most). networkx.pagerank converts the "
             "graph to SciPy on every call; the second PageRank row runs its power iteration "
             "alone. 'page faults per call': minor faults during the timed calls (first "
             "touches of memory the allocator handed back to the system and maps again; "
             "each costs microseconds, so a call's time depends on the allocator's state "
             "the process left it in).")
    machine = describe_machine()
    path = write_results(name, "Graph algorithms on the CPU: gblas against anchors",
                         [("Graph", graph), ("Results", table), ("Notes", notes)], machine)
    _log(f"wrote {path}")
    return table


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.run_algorithms",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=int, default=16, help="log2 of the number of vertices")
    p.add_argument("--edge-factor", type=int, default=16)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--name", default="algorithms_cpu", help="results file (without .md)")
    p.add_argument("--only", default=None,
                   help="comma-separated words: run the rows whose name or anchor holds one "
                        "(e.g. 'sssp,graphblas-algorithms')")
    args = p.parse_args(argv)
    if describe_machine is None:
        _log("benchmarks/harness.py is missing")
        return 1
    print(run(args.scale, args.edge_factor, args.repeat, args.seed, args.name, args.only))
    return 0


if __name__ == "__main__":
    sys.exit(main())
