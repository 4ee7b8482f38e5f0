"""End-to-end benchmark: every public gblas algorithm against its peers, as users call them.

For each graph and algorithm the public gblas call is timed three ways:

``fresh``
    a new :class:`gblas.Matrix` per call, built from the SciPy matrix outside the timed
    region, so nothing a Matrix caches (derived formats, statistics) carries over from
    one call to the next: what a user's one call on a new graph costs;
``prepared``
    the same Matrix for every call (its cached formats reused): what a user pays when
    calling again on a graph already used;
``cold``
    the first call in a new Python process (``import gblas`` and graph loading not
    counted), with the on-disk kernel cache warm (the in-process calls just made fill
    it).  A separate table gives the ``first-ever`` call, with an empty kernel cache, on
    the 16K-vertex Kronecker graph.

For ``gblas.csgraph`` (the SciPy drop-in), ``fresh`` passes the SciPy matrix itself, as a
SciPy user does (gblas converts it in the call), and ``prepared`` a gblas Matrix.

The peers are called through their own public API in the same run, on the same graph:
NetworkX, SciPy (``scipy.sparse.csgraph``), graphblas-algorithms (python-graphblas on
SuiteSparse:GraphBLAS), and a SciPy loop where no library call exists (PageRank's power
iteration, the masked triangle count).  Their inputs are built outside the timed region
too (a fresh python-graphblas Matrix and Graph per call; the NetworkX graph once).
Each answer is checked against gblas's before its time is reported; a wrong answer or a
failing call is marked in the table.  Times are medians after a warm-up call; a peer
whose call would take more than ``--limit`` seconds (estimated from its time on the
smaller graphs) is skipped, and the table says so.

Graphs: Graph500 Kronecker graphs of scales 10, 14 and 18 (``--large``: also 20 and 22),
edge factor 16, seed 1 (directed for PageRank, BFS, SSSP and the csgraph functions;
symmetrized for the undirected algorithms), and every ``*.mtx.gz`` file of the data folder
(``--data``; skipped when missing).  SSSP and ``dijkstra`` weigh every edge with a seeded
uniform draw in (0, 1].

``--gpu`` times ``pagerank``, ``bfs`` and ``sssp`` on a GPU Matrix (``A.to("gpu")``),
fresh, prepared and cold, against loops of cuSPARSE products through
``cupyx.scipy.sparse`` (SSSP: SciPy's ``dijkstra`` on the host) instead; named with
``--algorithms``, the spectral centralities too (:mod:`benchmarks.end_to_end_spectral`).

Run from the repository root::

    python -m benchmarks.run_end_to_end                 # writes results/end_to_end_cpu.md
    python -m benchmarks.run_end_to_end --quick         # smoke test: small graphs, 1 run
    python -m benchmarks.run_end_to_end --gpu           # writes results/end_to_end_gpu.md
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks import end_to_end_spectral as spectral

REPO = Path(__file__).resolve().parents[1]
#: The shared data folder, next to the repository.
DEFAULT_DATA = REPO.parent / "shared" / "data"

#: Algorithms, in the order they run on a graph (directed forms first, so that the
#: directed NetworkX graph can be dropped before the undirected one is built).
ALGORITHMS = ("pagerank", "bfs", "sssp", "csgraph.dijkstra", "csgraph.breadth_first_order",
              "csgraph.connected_components", "connected_components", "triangle_count",
              "core_number", "betweenness_centrality", "label_propagation"
              ) + spectral.ALGORITHMS
#: The graph each algorithm runs on: "D" directed pattern, "W" directed with weights,
#: "U" undirected pattern (symmetric, no self loops).
FORM = {"pagerank": "D", "bfs": "D", "sssp": "W", "csgraph.dijkstra": "W",
        "csgraph.breadth_first_order": "D", "csgraph.connected_components": "D",
        "connected_components": "U", "triangle_count": "U", "core_number": "U",
        "betweenness_centrality": "U", "label_propagation": "U", **spectral.FORM}
GPU_ALGORITHMS = ("pagerank", "bfs", "sssp")

SCALES = (10, 14, 18)
LARGE_SCALES = (20, 22)
EDGE_FACTOR = 16
SEED = 1
#: Scale of the graph of the first-ever (empty kernel cache) table.
FIRST_EVER_SCALE = 14
#: Sources of dijkstra in the csgraph row.
DIJKSTRA_SOURCES = 4
#: PageRank's settings (gblas's defaults): stop when the L1 change is below TOL.
DAMPING, TOL = 0.85, 1e-6
#: Betweenness takes 256 sources on graphs of at most this many stored entries, else 64.
BC_SMALL = 100_000
#: A call slower than this (seconds) is measured once, its first call counting.
SLOW = 5.0

#: Prior cost of the NetworkX calls (seconds per unit of work: stored entries, times the
#: sources for betweenness), used to skip calls over the limit before any measurement;
#: replaced by the rate measured on the graphs already run.
NX_PRIOR = {"pagerank": 1.5e-6, "bfs": 8e-7, "sssp": 2e-6, "connected_components": 8e-7,
            "triangle_count": 4e-6, "core_number": 3e-6, "betweenness_centrality": 2e-6,
            "label_propagation": 4e-6, **spectral.NX_PRIOR}


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _fmt(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} µs"


# ---------------------------------------------------------------------------- graphs


@dataclass
class GraphCase:
    """A graph to run: a Kronecker scale or a Matrix Market file."""

    name: str
    scale: int | None = None
    path: Path | None = None

    def size_hint(self) -> float:
        """Rough stored entries (for ordering the graphs, smallest first)."""
        if self.scale is not None:
            return 16.0 * 2 ** self.scale
        return float(self.path.stat().st_size) * 2.0


@dataclass
class Graph:
    """The forms of one graph as SciPy CSR arrays of float64 (sorted indices)."""

    name: str
    D: object  # directed pattern
    U: object  # undirected pattern, no self loops
    W: object  # D with weights in (0, 1]
    kind: str

    @property
    def n(self) -> int:
        return self.D.shape[0]

    def form(self, key: str):
        return {"D": self.D, "U": self.U, "W": self.W}[key]


def _csr64(S):
    import scipy.sparse as sp

    S = sp.csr_array(S, dtype=np.float64)
    S.sum_duplicates()
    S.sort_indices()
    return S


def _undirected(D):
    import scipy.sparse as sp

    U = sp.csr_array(((D + D.T) != 0).astype(np.float64))
    U.setdiag(0)
    U.eliminate_zeros()
    return _csr64(U)


def _weighted(D, seed: int = SEED):
    W = D.copy()
    W.data = 1.0 - np.random.default_rng(seed).random(W.nnz)  # uniform in (0, 1]
    return W


def load_graph(case: GraphCase) -> Graph:
    """Build the three forms of ``case``."""
    import gblas as gb

    if case.scale is not None:
        D = _csr64(gb.io.generators.kronecker(case.scale, EDGE_FACTOR, seed=SEED).to_scipy())
        U = _csr64(gb.io.generators.kronecker(case.scale, EDGE_FACTOR, seed=SEED,
                                              symmetric=True).to_scipy())
        U.setdiag(0)
        U.eliminate_zeros()
        kind = f"Graph500 Kronecker, scale {case.scale}, edge factor {EDGE_FACTOR}, seed {SEED}"
    else:
        D = _csr64(gb.io.read_mm(case.path).to_scipy())
        U = _undirected(D)
        sym = (D != D.T).nnz == 0
        kind = "undirected" if sym else "directed"
        kind += ", from the data folder"
    return Graph(case.name, D, U, _weighted(D), kind)


def graph_cases(args) -> list[GraphCase]:
    """The graphs of this run, smallest first."""
    scales = list(SCALES) + (list(LARGE_SCALES) if args.large else [])
    files: list[Path] = []
    data = Path(args.data) if args.data else DEFAULT_DATA
    if data.is_dir():
        files = sorted(data.glob("*.mtx.gz"), key=lambda p: p.stat().st_size)
    elif args.graphs is None or any(not g.startswith("kronecker") for g in args.graphs):
        _log(f"data folder {data.name!r} not found: real graphs skipped")
    if args.quick:
        scales = [10, 14]
        files = files[:3]
    cases = [GraphCase(f"kronecker-{s}", scale=s) for s in scales]
    cases += [GraphCase(p.name[:-len(".mtx.gz")], path=p) for p in files]
    if args.graphs is not None:
        known = {c.name: c for c in cases}
        chosen = []
        for g in args.graphs:
            if g in known:
                chosen.append(known[g])
            elif g.startswith("kronecker-") and g[10:].isdigit():
                chosen.append(GraphCase(g, scale=int(g[10:])))
            else:
                _log(f"graph {g!r} not found (data folder: {data.name!r}): skipped")
        cases = chosen
    return sorted(cases, key=GraphCase.size_hint)


def _source(D) -> int:
    """A vertex of largest out-degree (it reaches the giant component)."""
    return int(np.argmax(np.diff(D.indptr)))


def _bc_sources(n: int, nnz: int, seed: int = SEED) -> list[int]:
    """Betweenness sources: the vertices ``networkx.betweenness_centrality(G, k, seed)``
    samples on a graph whose nodes are ``0 .. n-1`` in order."""
    k = min(n, 256 if nnz <= BC_SMALL else 64)
    return random.Random(seed).sample(range(n), k)


def params_of(g: Graph) -> dict:
    """The fixed arguments of the calls on ``g`` (sources), shared by gblas and peers."""
    src = _source(g.D)
    deg = np.diff(g.W.indptr)
    rng = np.random.default_rng(SEED)
    cand = np.flatnonzero(deg > 0)
    others = [int(v) for v in rng.choice(cand, size=min(cand.size, DIJKSTRA_SOURCES * 2),
                                         replace=False) if v != src]
    return {"source": src, "sources": [src] + others[:DIJKSTRA_SOURCES - 1],
            "bc_sources": _bc_sources(g.n, g.U.nnz)}


# ------------------------------------------------------------------- the gblas calls


def gblas_call(alg: str, p: dict) -> Callable:
    """The public gblas call of ``alg`` as a function of its graph argument."""
    import gblas as gb

    a = gb.algorithms
    calls = {
        "pagerank": lambda A: a.pagerank(A),
        "bfs": lambda A: a.bfs(A, p["source"]),
        "sssp": lambda A: a.sssp(A, p["source"]),
        "connected_components": lambda A: a.connected_components(A),
        "triangle_count": lambda A: a.triangle_count(A),
        "core_number": lambda A: a.core_number(A),
        "betweenness_centrality": lambda A: a.betweenness_centrality(
            A, sources=p["bc_sources"]),
        "label_propagation": lambda A: a.label_propagation(A),
        "csgraph.dijkstra": lambda A: gb.csgraph.dijkstra(A, indices=p["sources"]),
        "csgraph.breadth_first_order": lambda A: gb.csgraph.breadth_first_order(
            A, p["source"]),
        "csgraph.connected_components": lambda A: gb.csgraph.connected_components(A),
    }
    if alg in spectral.ALGORITHMS:
        return spectral.gblas_calls(p)[alg]
    return calls[alg]


def gblas_input(alg: str, S, prepared: bool):
    """The graph argument of the gblas call: a new Matrix from ``S`` (the csgraph
    functions take ``S`` itself unless ``prepared``)."""
    import gblas as gb

    if alg.startswith("csgraph.") and not prepared:
        return S
    return gb.Matrix.from_scipy(S)


def _dense(v, fill=0):
    """A gblas Vector as a NumPy array (from either device)."""
    x = v.to_dense(fill=fill)
    return x.get() if hasattr(x, "get") else np.asarray(x)


def canon_gblas(alg: str, r):
    """gblas's answer in the form the checks compare."""
    if alg in spectral.ALGORITHMS:
        return spectral.canon_gblas(alg, r)
    if alg == "bfs":
        return _dense(r, -1)
    if alg == "sssp":
        return _dense(r, np.inf)
    if alg == "triangle_count":
        return int(r)
    if alg.startswith("csgraph."):
        return r
    return _dense(r)


# ------------------------------------------------------------------------- the peers


@dataclass
class Anchor:
    """A peer's call: ``run(prepare())`` is timed; ``canon`` turns its answer into the
    compared form; ``work`` scales its cost estimate (NetworkX only)."""

    name: str
    prepare: Callable[[], object]
    run: Callable[[object], object]
    canon: Callable[[object], object] = lambda r: r
    networkx: bool = False
    work: float = 0.0
    skip: str | None = None


def _levels_dict(d: dict, n: int, fill) -> np.ndarray:
    out = np.full(n, fill, dtype=np.float64 if isinstance(fill, float) else np.int64)
    if d:
        k = np.fromiter(d.keys(), dtype=np.int64, count=len(d))
        out[k] = np.fromiter(d.values(), dtype=out.dtype, count=len(d))
    return out


def _grb_dense(v, n: int, fill, dtype) -> np.ndarray:
    i, x = v.to_coo()
    out = np.full(n, fill, dtype=dtype)
    out[i] = x
    return out


def _labels_of_sets(comps, n: int) -> np.ndarray:
    lab = np.empty(n, dtype=np.int64)
    for k, c in enumerate(comps):
        lab[np.fromiter(c, dtype=np.int64, count=len(c))] = k
    return lab


def scipy_pagerank(S, alpha: float = DAMPING, tol: float = TOL, max_iter: int = 100):
    """PageRank's power iteration with SciPy (NetworkX's update, gblas's stopping rule:
    the L1 change below ``tol``), the matrix normalization included."""
    import scipy.sparse as sp

    n = S.shape[0]
    out = np.asarray(S.sum(axis=1)).ravel()
    inv = np.divide(1.0, out, out=np.zeros(n), where=out != 0)
    P = sp.csr_array((sp.diags_array(inv) @ S).T)
    dangling = out == 0
    x = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        last = x
        x = alpha * (P @ x) + (alpha * x[dangling].sum() + 1 - alpha) / n
        if np.abs(x - last).sum() < tol:
            return x
    return x


def _wedges(L) -> int:
    """Products of ``L @ L`` (entries of the unmasked SciPy triangle product)."""
    cols = np.bincount(L.indices, minlength=L.shape[0])
    return int(np.dot(cols.astype(np.int64), np.diff(L.indptr).astype(np.int64)))


def scipy_triangles(U) -> int:
    """Triangles with SciPy: ``sum((L @ L) .* L)``, ``L`` the strict lower triangle."""
    import scipy.sparse as sp

    L = sp.tril(U, -1, format="csr")
    return int(round((L @ L).multiply(L).sum()))


class Peers:
    """The peers' inputs of one graph, built when first needed (NetworkX graphs are slow
    to build and large), and their calls per algorithm."""

    def __init__(self, g: Graph, p: dict, nx_max_nnz: int) -> None:
        self.g, self.p, self.nx_max_nnz = g, p, nx_max_nnz
        self._nx: dict = {}

    def nx_graph(self, form: str):
        import networkx as nx

        if form not in self._nx:
            t0 = time.perf_counter()
            if form == "U":
                self.drop()
                self._nx[form] = nx.from_scipy_sparse_array(self.g.U)
            else:
                self._nx[form] = nx.from_scipy_sparse_array(self.g.W, create_using=nx.DiGraph)
            # out of the collector's sight: a full collection would scan its millions of
            # objects inside the timed calls
            gc.freeze()
            _log(f"    (NetworkX {'Graph' if form == 'U' else 'DiGraph'} built in "
                 f"{time.perf_counter() - t0:.1f} s)")
        return self._nx[form]

    def drop(self) -> None:
        self._nx.clear()
        gc.unfreeze()
        gc.collect()

    def anchors(self, alg: str) -> list[Anchor]:
        from scipy.sparse import csgraph

        g, p, n = self.g, self.p, self.g.n
        out: list[Anchor] = []
        try:
            import networkx as nx
        except ImportError:  # pragma: no cover - networkx is a bench dependency
            nx = None
        try:
            import graphblas as grb
            import graphblas_algorithms as ga
        except ImportError:  # pragma: no cover
            ga = None
        nx_form = "U" if FORM[alg] == "U" else "W"
        nx_skip = (None if g.form(nx_form).nnz <= self.nx_max_nnz else
                   f"not run: over {self.nx_max_nnz:,} entries (graph too large to build)")

        def nxa(name, run, canon, work):
            if nx is None:
                return
            out.append(Anchor(name, lambda: self.nx_graph(nx_form), run, canon,
                              networkx=True, work=work, skip=nx_skip))

        def gaa(name, S, directed, run, canon):
            if ga is None:
                return
            cls = ga.DiGraph if directed else ga.Graph

            def prepare():
                return cls(grb.io.from_scipy_sparse(S))
            out.append(Anchor(name, prepare, run, canon))

        def scipy(name, S, run, canon=lambda r: r):
            out.append(Anchor(name, lambda: S, run, canon))

        D, U, W, src = g.D, g.U, g.W, p["source"]
        if alg == "pagerank":
            nxa("networkx.pagerank", lambda G: nx.pagerank(
                G, alpha=DAMPING, tol=TOL / n, weight=None),
                lambda r: _levels_dict(r, n, 0.0), D.nnz)
            scipy("SciPy power iteration (loop)", D, scipy_pagerank)
            gaa("graphblas_algorithms.pagerank", D, True,
                lambda G: ga.pagerank(G, alpha=DAMPING, tol=TOL / n),
                lambda r: _grb_dense(r, n, 0.0, np.float64))
        elif alg == "bfs":
            nxa("networkx.single_source_shortest_path_length",
                lambda G: nx.single_source_shortest_path_length(G, src),
                lambda r: _levels_dict(r, n, -1), D.nnz)
            scipy("scipy breadth_first_order", D,
                  lambda S: csgraph.breadth_first_order(S, src, return_predecessors=False),
                  lambda r: ("reached", np.sort(r)))
            gaa("graphblas_algorithms single_source_shortest_path_length", D, True,
                lambda G: ga.algorithms.single_source_shortest_path_length(G, src),
                lambda r: _grb_dense(r, n, -1, np.int64))
        elif alg == "sssp":
            nxa("networkx.single_source_dijkstra_path_length",
                lambda G: nx.single_source_dijkstra_path_length(G, src),
                lambda r: _levels_dict(r, n, np.inf), W.nnz)
            scipy("scipy dijkstra", W, lambda S: csgraph.dijkstra(S, indices=src))
            gaa("graphblas_algorithms single_source_bellman_ford_path_length", W, True,
                lambda G: ga.algorithms.single_source_bellman_ford_path_length(G, src),
                lambda r: _grb_dense(r, n, np.inf, np.float64))
        elif alg == "connected_components":
            nxa("networkx.connected_components", lambda G: list(nx.connected_components(G)),
                lambda r: _labels_of_sets(r, n), U.nnz)
            scipy("scipy connected_components", U,
                  lambda S: csgraph.connected_components(S, directed=False),
                  lambda r: r[1])
        elif alg == "triangle_count":
            nxa("networkx.triangles", lambda G: sum(nx.triangles(G).values()) // 3,
                lambda r: r, U.nnz)
            a = Anchor("SciPy (L @ L) .* L (loop)", lambda: U, scipy_triangles)
            import scipy.sparse as sp

            wedges = _wedges(sp.tril(U, -1, format="csr"))
            if wedges > 2e8:
                a.skip = f"not run: L @ L would hold up to {wedges:.1e} entries (memory)"
            out.append(a)
            gaa("graphblas_algorithms total_triangles", U, False,
                lambda G: ga.algorithms.total_triangles(G), int)
        elif alg == "core_number":
            nxa("networkx.core_number", lambda G: nx.core_number(G),
                lambda r: _levels_dict(r, n, 0), U.nnz)
        elif alg == "betweenness_centrality":
            k = len(p["bc_sources"])
            nxa(f"networkx.betweenness_centrality (k={k}, same sources)",
                lambda G: nx.betweenness_centrality(G, k=k, seed=SEED),
                lambda r: _levels_dict(r, n, 0.0), U.nnz * k)
        elif alg == "label_propagation":
            nxa("networkx label_propagation_communities",
                lambda G: list(nx.community.label_propagation_communities(G)),
                lambda r: _labels_of_sets(r, n), U.nnz)
        elif alg == "csgraph.dijkstra":
            scipy("scipy dijkstra", W, lambda S: csgraph.dijkstra(S, indices=p["sources"]))
        elif alg == "csgraph.breadth_first_order":
            scipy("scipy breadth_first_order", D, lambda S: csgraph.breadth_first_order(S, src))
        elif alg == "csgraph.connected_components":
            scipy("scipy connected_components", D, lambda S: csgraph.connected_components(S))
        elif alg in spectral.ALGORITHMS and nx is not None:
            for name, run, canon, work in spectral.networkx_anchors(alg, g, p):
                nxa(name, run, canon, work)
        return out


# ---------------------------------------------------------------------------- checks


def _same_partition(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    na, nb = np.unique(a).size, np.unique(b).size
    pairs = np.unique(np.stack([a, b]), axis=1).shape[1]
    return na == nb == pairs


def _lp_fixpoint(U, labels) -> bool:
    """Every vertex with neighbours holds one of its most frequent neighbour labels."""
    import scipy.sparse as sp

    n = U.shape[0]
    _, lab = np.unique(labels, return_inverse=True)
    one_hot = sp.csr_array((np.ones(n), (np.arange(n), lab)), shape=(n, lab.max() + 1))
    C = sp.csr_array(U @ one_hot)
    best = np.zeros(n)
    has = np.diff(C.indptr) > 0
    best[has] = np.maximum.reduceat(C.data, C.indptr[:-1][has])
    own = np.asarray(C[np.arange(n), lab]).ravel()
    return bool(np.all((own == best) | ~has))


def check(alg: str, g: Graph, ours, theirs) -> tuple[bool, str]:
    """Compare gblas's answer with a peer's: ``(same, description)``."""
    if alg in spectral.ALGORITHMS:
        return spectral.check(alg, g, ours, theirs)
    if alg == "pagerank":
        err = float(np.abs(ours - theirs).max())
        return err < 1e-5, f"max diff {err:.1e}"
    if alg == "bfs":
        if isinstance(theirs, tuple):  # SciPy's order: the reached set only
            ok = np.array_equal(np.flatnonzero(ours >= 0), theirs[1])
            return ok, "same reached set" if ok else "DIFFERENT reached set"
        ok = np.array_equal(ours, theirs)
        return ok, "same levels" if ok else "DIFFERENT levels"
    if alg in ("sssp", "csgraph.dijkstra"):
        a, b = np.asarray(ours, float), np.asarray(theirs, float)
        if not np.array_equal(np.isinf(a), np.isinf(b)):
            return False, "DIFFERENT reached set"
        fin = np.isfinite(b)
        err = float(np.abs(a[fin] - b[fin]).max(initial=0.0))
        return err <= 1e-9 * max(1.0, float(np.abs(b[fin]).max(initial=1.0))), \
            f"max diff {err:.1e}"
    if alg == "connected_components":
        ok = _same_partition(ours, theirs)
        k = np.unique(theirs).size
        return ok, f"{k:,} components, " + ("same" if ok else "DIFFERENT")
    if alg == "csgraph.connected_components":
        ok = int(ours[0]) == int(theirs[0]) and _same_partition(ours[1], theirs[1])
        return ok, f"{int(theirs[0]):,} components, " + ("same" if ok else "DIFFERENT")
    if alg == "triangle_count":
        return ours == theirs, f"{theirs:,} triangles" + ("" if ours == theirs else
                                                           f", gblas {ours:,}: DIFFERENT")
    if alg == "core_number":
        ok = np.array_equal(ours, theirs)
        return ok, f"max core {int(theirs.max(initial=0))}" + ("" if ok else ", DIFFERENT")
    if alg == "betweenness_centrality":
        err = float(np.abs(ours - theirs).max())
        scale = max(float(np.abs(theirs).max()), 1e-300)
        return err <= 1e-9 * scale, f"max rel. diff {err / scale:.1e}"
    if alg == "label_propagation":
        ok = _lp_fixpoint(g.U, ours)
        k_ours, k_theirs = np.unique(ours).size, np.unique(theirs).size
        return ok, (f"gblas {k_ours:,} / peer {k_theirs:,} communities; gblas labels "
                    + ("a fixpoint" if ok else "NOT a fixpoint"))
    if alg == "csgraph.breadth_first_order":
        o1, p1 = ours
        o2, p2 = theirs
        ok_o, ok_p = np.array_equal(o1, o2), np.array_equal(p1, p2)
        if ok_o and ok_p:
            return True, "same order and predecessors"
        return False, ("order " + ("same" if ok_o else "DIFFERENT") + ", predecessors "
                       + ("same" if ok_p else "DIFFERENT"))
    raise ValueError(alg)


# ---------------------------------------------------------------------------- timing


@dataclass
class Measure:
    """Times (seconds) of one call measured ``len(times)`` times; ``result`` the first
    call's answer; ``error`` the exception text when the call failed."""

    times: list = field(default_factory=list)
    result: object = None
    first: float | None = None
    error: str | None = None

    @property
    def median(self) -> float | None:
        return statistics.median(self.times) if self.times else None


def measure(prepare: Callable[[], object], run: Callable[[object], object], *, repeat: int,
            warmup: bool = True, budget: float = 60.0, min_total: float = 0.2,
            max_calls: int = 30) -> Measure:
    """Time ``run(prepare())``, ``prepare`` outside the timed region.

    Parameters
    ----------
    prepare : callable
        Builds the call's input (once per call).
    run : callable
        The timed call.
    repeat : int
        Timed calls, fewer when they would spend more than ``budget`` seconds, more
        (up to ``max_calls``) while they spent less than ``min_total``.
    warmup : bool, default True
        The first call is a warm-up, not counted (then a call slower than ``SLOW``
        seconds is timed once more only); without warm-up the first call counts, and a
        first call slower than ``SLOW`` is the only one.

    Returns
    -------
    Measure
        ``first`` is the first call's time, ``result`` its answer.
    """
    m = Measure()
    # one collection before, none inside: a full collection right before a call evicts
    # the caches, and a call that runs more Python (gblas's planner, Vectors) pays for it
    # far more than one C call does (Kronecker 10 BFS: 28 us after other calls, 330 us
    # after a collection); with the collector off, no pause lands inside a timed call
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _timed_calls(m, prepare, run, repeat, warmup, budget, min_total, max_calls)
    finally:
        if was_enabled:
            gc.enable()


def _timed_calls(m: Measure, prepare, run, repeat: int, warmup: bool, budget: float,
                 min_total: float, max_calls: int) -> Measure:
    """The calls of :func:`measure` (the collector is off)."""
    try:
        arg = prepare()
        t0 = time.perf_counter()
        m.result = run(arg)
        m.first = time.perf_counter() - t0
        del arg
    except Exception as e:  # noqa: BLE001 - a failure is reported in the table
        m.error = f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
        return m
    if not warmup:
        m.times.append(m.first)
    n_more = repeat - len(m.times)
    if m.first > SLOW:
        n_more = 1 if warmup else 0
    elif m.first > 0 and m.first * n_more > budget:
        n_more = max(0 if m.times else 1, int(budget / m.first))
    spent = 0.0
    k = 0
    while k < n_more or (spent < min_total and len(m.times) < max_calls):
        arg = prepare()
        t0 = time.perf_counter()
        run(arg)
        dt = time.perf_counter() - t0
        del arg
        m.times.append(dt)
        spent += dt
        k += 1
    return m


def cold_call(alg: str, S, p: dict, workdir: Path, env: dict | None = None,
              timeout: float = 600.0, device: str = "cpu"
              ) -> tuple[float | None, float | None, str | None]:
    """The gblas call in a new process: ``(first call s, import gblas s, error)``; on
    ``device`` "gpu" the Matrix is moved there outside the timing and the call's time
    includes the device's synchronization."""
    import scipy.sparse as sp

    tag = f"{abs(hash((alg, S.shape, S.nnz, device))) % 10**8}"
    mat = workdir / f"g{tag}.npz"
    if not mat.exists():
        sp.save_npz(mat, sp.csr_matrix(S), compressed=False)
    spec = workdir / f"spec{tag}.json"
    spec.write_text(json.dumps({"alg": alg, "matrix": str(mat), "params": p,
                                "device": device}))
    cmd = [sys.executable, "-m", "benchmarks.run_end_to_end", "--cold-child", str(spec)]
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(REPO) + os.pathsep + full_env.get("PYTHONPATH", "")
    if env:
        full_env.update(env)
    try:
        r = subprocess.run(cmd, cwd=REPO, env=full_env, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, f"over {timeout:.0f} s"
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    if r.returncode != 0 or not lines:
        tail = (r.stderr.strip().splitlines() or ["?"])[-1][:160]
        return None, None, f"exit {r.returncode}: {tail}"
    out = json.loads(lines[-1])
    return out.get("call"), out.get("import"), out.get("error")


def _no_sync() -> None:
    """A CPU call needs no synchronization."""


def _cold_child(spec_path: str) -> int:
    """Body of the new process of :func:`cold_call`; prints one JSON line."""
    spec = json.loads(Path(spec_path).read_text())
    t0 = time.perf_counter()
    import gblas  # noqa: F401 - timed: the import

    t_import = time.perf_counter() - t0
    import scipy.sparse as sp

    S = sp.csr_array(sp.load_npz(spec["matrix"]))
    alg = spec["alg"]
    A = gblas_input(alg, S, prepared=False)
    fn = gblas_call(alg, spec["params"])
    sync = _no_sync
    if spec.get("device", "cpu") == "gpu":
        import cupy as cp

        A = A.to("gpu")
        sync = cp.cuda.Device().synchronize
        sync()
    out = {"import": t_import}
    try:
        t0 = time.perf_counter()
        fn(A)
        sync()
        out["call"] = time.perf_counter() - t0
    except Exception as e:  # noqa: BLE001
        out["error"] = f"{type(e).__name__}: {e}"[:200]
    print(json.dumps(out), flush=True)
    return 0


# ------------------------------------------------------------------------------ runs


@dataclass
class Row:
    graph: str
    n: int
    nnz: int
    alg: str
    fresh: float | None
    prepared: float | None
    cold: float | None
    anchor: str
    anchor_time: float | None
    check: str
    ok: bool | None
    note: str = ""
    runs: tuple[int, int] = (0, 0)

    @property
    def ratio(self) -> float | None:
        if self.anchor_time is None or not self.fresh:
            return None
        return self.anchor_time / self.fresh


@dataclass
class GblasResult:
    fresh: Measure
    prepared: Measure
    cold: float | None
    cold_error: str | None
    import_time: float | None


def run_gblas(alg: str, S, p: dict, args, workdir: Path) -> GblasResult:
    fn = gblas_call(alg, p)
    fresh = measure(lambda: gblas_input(alg, S, False), fn, repeat=args.repeat,
                    budget=args.limit)
    if fresh.error:
        return GblasResult(fresh, Measure(), None, None, None)
    same = [gblas_input(alg, S, True)]
    prepared = measure(lambda: same[0], fn, repeat=args.repeat, budget=args.limit)
    same.clear()
    cold = t_imp = err = None
    if args.cold:
        # a throw-away process first: whatever the in-process calls did not put in the
        # kernel cache (another process's specializations) is compiled there (skipped for
        # slow calls, where loading the cache matters less)
        if fresh.first is not None and fresh.first < 2.0:
            cold_call(alg, S, p, workdir)
        cold, t_imp, err = cold_call(alg, S, p, workdir)
    return GblasResult(fresh, prepared, cold, err, t_imp)


class NxRates:
    """Seconds per unit of work of every NetworkX call measured so far."""

    def __init__(self) -> None:
        self.rates: dict[str, tuple[float, float]] = {}

    def estimate(self, alg: str, work: float) -> float:
        if alg in self.rates:
            rate, w0 = self.rates[alg]
            return rate * work * max(1.0, work / w0) ** 0.15
        return NX_PRIOR.get(alg, 2e-6) * work

    def record(self, alg: str, seconds: float, work: float) -> None:
        if work > 0:
            self.rates[alg] = (seconds / work, work)


def run_graph(case: GraphCase, algs: list[str], args, workdir: Path, rates: NxRates,
              imports: list[float]) -> list[Row]:
    """Every algorithm of ``algs`` on one graph: gblas, then each peer."""
    t0 = time.perf_counter()
    g = load_graph(case)
    p = params_of(g)
    _log(f"== {g.name}: {g.n:,} vertices, {g.D.nnz:,} directed / {g.U.nnz:,} undirected "
         f"entries ({time.perf_counter() - t0:.1f} s to load)")
    peers = Peers(g, p, args.nx_max_nnz)
    rows: list[Row] = []
    for alg in algs:
        S = g.form(FORM[alg])
        spectral.add_params(alg, g, p)
        _log(f"  {alg} ...")
        gr = run_gblas(alg, S, p, args, workdir)
        if gr.import_time is not None:
            imports.append(gr.import_time)
        base = dict(graph=g.name, n=g.n, nnz=S.nnz, alg=alg, fresh=gr.fresh.median,
                    prepared=gr.prepared.median, cold=gr.cold)
        cold_note = f"cold call failed ({gr.cold_error})" if gr.cold_error else ""
        if gr.fresh.error:
            _log(f"    gblas FAILED: {gr.fresh.error}")
            if gr.fresh.error.startswith("PowerIterationFailedConvergence") and args.peers:
                # no convergence within max_iter: does the peer converge there?
                rows += _unconverged_rows(base, gr.fresh.error, peers.anchors(alg), args)
                continue
            rows.append(Row(**base, anchor="-", anchor_time=None,
                            check=f"**gblas FAILED**: {gr.fresh.error}", ok=False))
            continue
        ours = canon_gblas(alg, gr.fresh.result)
        _log(f"    gblas fresh {_fmt(gr.fresh.median)} prepared {_fmt(gr.prepared.median)} "
             f"cold {_fmt(gr.cold)} (first in-process {_fmt(gr.fresh.first)})")
        anchors = peers.anchors(alg) if args.peers else []
        if not anchors:
            rows.append(Row(**base, anchor="(none)", anchor_time=None, check="-", ok=None,
                            note=cold_note, runs=(len(gr.fresh.times), 0)))
        for a in anchors:
            skip = a.skip
            if skip is None and a.networkx:
                est = rates.estimate(alg, a.work)
                if est > args.limit:
                    skip = f"not run: estimated {_fmt(est)} > {args.limit:.0f} s limit"
            if skip:
                _log(f"    {a.name}: {skip}")
                rows.append(Row(**base, anchor=a.name, anchor_time=None, check="-", ok=None,
                                note="; ".join(x for x in (skip, cold_note) if x),
                                runs=(len(gr.fresh.times), 0)))
                continue
            m = measure(a.prepare, a.run, repeat=args.repeat, warmup=not a.networkx,
                        budget=args.limit)
            if m.error:
                _log(f"    {a.name} FAILED: {m.error}")
                rows.append(Row(**base, anchor=a.name, anchor_time=None,
                                check=f"peer failed: {m.error}", ok=None, note=cold_note))
                continue
            if a.networkx:
                rates.record(alg, m.first, a.work)
            try:
                ok, text = check(alg, g, ours, a.canon(m.result))
            except Exception as e:  # noqa: BLE001
                ok, text = False, f"check failed: {type(e).__name__}: {e}"[:160]
            if not ok:
                text = f"**WRONG?** {text}"
            note = cold_note
            if m.first is not None and m.first > args.limit:
                note = "; ".join(x for x in (f"over the {args.limit:.0f} s limit", note) if x)
            rows.append(Row(**base, anchor=a.name, anchor_time=m.median, check=text, ok=ok,
                            note=note, runs=(len(gr.fresh.times), len(m.times))))
            r = rows[-1].ratio
            _log(f"    {a.name}: {_fmt(m.median)} (ratio {r:.3g}) {text}")
        if FORM[alg] != "U" and all(FORM[b] == "U" for b in algs[algs.index(alg) + 1:]):
            peers.drop()
    peers.drop()
    return rows


def _unconverged_rows(base: dict, error: str, anchors: list[Anchor], args) -> list[Row]:
    """The rows of an iteration gblas stopped at ``max_iter``: each peer run once; one
    that fails too is a shared limit of the method (no verdict), one that answers leaves
    gblas's failure marked."""
    rows = []
    for a in anchors:
        if a.skip:
            rows.append(Row(**base, anchor=a.name, anchor_time=None, ok=False,
                            check=f"**gblas FAILED**: {error} (peer {a.skip})"))
            continue
        m = measure(a.prepare, a.run, repeat=1, warmup=False, budget=args.limit)
        if m.error:
            _log(f"    {a.name} fails too: {m.error}")
            rows.append(Row(**base, anchor=a.name, anchor_time=None, ok=None,
                            check=f"no convergence on either side: gblas {error}; "
                                  f"peer {m.error}"))
        else:
            _log(f"    {a.name} answered in {_fmt(m.median)}")
            rows.append(Row(**base, anchor=a.name, anchor_time=m.median, ok=False,
                            check=f"**gblas FAILED** where the peer answered: {error}"))
    return rows


def first_ever(algs: list[str], args, workdir: Path) -> list[list]:
    """The first call with an empty kernel cache, per algorithm, on Kronecker 14."""
    g = load_graph(GraphCase(f"kronecker-{FIRST_EVER_SCALE}", scale=FIRST_EVER_SCALE))
    p = params_of(g)
    rows = []
    for alg in algs:
        with tempfile.TemporaryDirectory(prefix="e2e-cache-") as empty:
            env = {"GBLAS_CACHE_DIR": empty, "NUMBA_CACHE_DIR": empty}
            _log(f"  first-ever {alg} ...")
            t, t_imp, err = cold_call(alg, g.form(FORM[alg]), p, workdir, env=env,
                                      timeout=900)
        cold, _, err2 = cold_call(alg, g.form(FORM[alg]), p, workdir)
        rows.append([alg, f"{g.form(FORM[alg]).nnz:,}",
                     _fmt(t) if err is None else f"**FAILED** ({err})",
                     _fmt(cold) if err2 is None else f"**FAILED** ({err2})",
                     _fmt(t_imp)])
        _log(f"    first-ever {_fmt(t)}, then cold {_fmt(cold)}")
    return rows


# --------------------------------------------------------------------------- reports


def _ratio_text(r: float | None) -> str:
    if r is None:
        return "-"
    return f"{r:.3g}"


def _row_cells(r: Row) -> list:
    check_text = r.check + (f" ({r.note})" if r.note else "")
    return [r.graph, f"{r.n:,}", f"{r.nnz:,}", r.alg, _fmt(r.fresh), _fmt(r.prepared),
            _fmt(r.cold), r.anchor, _fmt(r.anchor_time) if r.anchor_time else "-",
            _ratio_text(r.ratio), check_text]


HEADERS = ["graph", "n", "nnz", "algorithm", "gblas fresh", "gblas prepared", "gblas cold",
           "anchor", "anchor time", "anchor / gblas fresh", "check"]


def summary(rows: list[Row]) -> str:
    """Geometric mean, min and max of the ratio per algorithm and anchor (checked rows)."""
    from benchmarks.harness import markdown_table

    groups: dict[tuple[str, str], list[Row]] = {}
    for r in rows:
        if r.ratio is not None and r.ok:
            key = (r.alg, r.anchor.split(" (k=")[0])
            groups.setdefault(key, []).append(r)
    def gmean(xs):
        return math.exp(sum(math.log(x) for x in xs) / len(xs))

    out = []
    for (alg, anchor), rs in groups.items():
        gm = gmean([r.ratio for r in rs])
        gm_p = gmean([r.anchor_time / r.prepared for r in rs if r.prepared])
        lo = min(rs, key=lambda r: r.ratio)
        hi = max(rs, key=lambda r: r.ratio)
        big = max(rs, key=lambda r: r.nnz)
        out.append([alg, anchor, len(rs), f"{gm:.3g}", f"{gm_p:.3g}",
                    f"{lo.ratio:.3g} ({lo.graph})", f"{hi.ratio:.3g} ({hi.graph})",
                    f"{big.ratio:.3g} ({big.graph})"])
    return markdown_table(["algorithm", "anchor", "graphs", "anchor / gblas fresh",
                           "anchor / gblas prepared", "lowest (fresh)", "highest (fresh)",
                           "on the largest graph (fresh)"], out)


def problems(rows: list[Row]) -> list[str]:
    out = []
    for r in rows:
        if r.ok is False:
            out.append(f"- {r.graph}, {r.alg} vs {r.anchor}: {r.check}")
        elif r.ratio is not None and r.ok and r.ratio < 1:
            out.append(f"- slower than the peer: {r.graph}, {r.alg}: gblas {_fmt(r.fresh)} "
                       f"against {r.anchor} {_fmt(r.anchor_time)} (ratio {r.ratio:.3g})")
        if r.ok is None and r.check.startswith("no convergence"):
            out.append(f"- {r.graph}, {r.alg}: {r.check}")
        if "cold call failed" in r.note:
            out.append(f"- {r.graph}, {r.alg}: {r.note}")
    return sorted(set(out), key=out.index)


def write_cpu(rows: list[Row], first: list[list] | None, imports: list[float], args,
              machine: dict, final: bool) -> Path:
    from benchmarks.harness import markdown_table, write_results

    sections = []
    sections.append(("How to read", (
        "Times are medians of several calls after one warm-up call (NetworkX: no warm-up, "
        "the first call counts; a call over 5 s is measured once), the garbage collector "
        "run once before a measurement and off during its calls. **gblas fresh**: a new "
        "`gblas.Matrix` per call, built from the SciPy matrix outside the timed region "
        "(for `gblas.csgraph.*`: the SciPy matrix itself, converted inside the call, as a "
        "SciPy user calls it); **prepared**: the same Matrix reused (its cached formats "
        "too); **cold**: the first call in a new process, the on-disk kernel cache warm "
        "(`import gblas` and loading the graph not counted). **anchor / gblas fresh**: "
        "above 1, gblas is faster. Every anchor's answer is compared with gblas's "
        "before its time is reported (**WRONG?** marks a difference, **FAILED** a call "
        "that raised). Peers take the same SciPy float64 matrix (python-graphblas: a new "
        "Matrix and Graph per call, built outside the timed region; NetworkX: its graph "
        "built once). PageRank: damping 0.85, gblas's default rule (stop when the L1 "
        "change is below 1e-6), given to NetworkX and graphblas-algorithms as "
        "`tol=1e-6/n` (their rule is L1 < n * tol), so all run the same iterations; the "
        "SciPy loop includes the matrix normalization. BFS / SSSP / breadth_first_order "
        "start at a vertex of largest out-degree; `csgraph.dijkstra` from it and "
        f"{DIJKSTRA_SOURCES - 1} seeded random vertices; SSSP weights uniform in (0, 1] "
        "(seeded). Betweenness: the sources NetworkX samples for `k` and `seed=1` "
        f"(256; 64 above {BC_SMALL:,} entries), the same for both. label_propagation: "
        "answers are not unique; the check is that gblas's labels are a fixpoint (every "
        "vertex holds one of its most frequent neighbour labels), with both community "
        "counts. "
        "Eigenvector and Katz centrality run NetworkX's iterates on both sides (its "
        "rule `L1 < n * tol`, tol 1e-6, given to gblas as `tol = n * 1e-6`; Katz with "
        f"alpha = {spectral.KATZ_SHARE} / lambda_max); NetworkX's `hits` is a sparse "
        "SVD (ARPACK, tol 1e-8), gblas's a power iteration (tol 1e-10): their sum-1 "
        f"scores may differ by {spectral.HITS_DIFF:g} of the largest; Louvain: seed 1 on "
        "both sides, the partitions compared. "
        f"Peers estimated over {args.limit:.0f} s (from their rate on smaller graphs) "
        "are not run. SciPy and NetworkX run on one core; gblas (Numba) and "
        "SuiteSparse:GraphBLAS on all. The machine is shared: other jobs add noise.")))
    sections.append(("Summary", "Geometric means of the ratio over the graphs where the "
                     "answers agree (above 1: gblas faster).\n\n" + summary(rows)))
    if first:
        imp = f"; `import gblas` in a new process: {_fmt(statistics.median(imports))} " \
              "(median)" if imports else ""
        sections.append((f"First-ever call (empty kernel cache), Kronecker "
                         f"{FIRST_EVER_SCALE}", (
                             "Each algorithm alone in a new process with an empty kernel "
                             "cache folder (`GBLAS_CACHE_DIR` and `NUMBA_CACHE_DIR`): "
                             "compilation included; then the same call in another new "
                             "process with the cache just filled" + imp + ".\n\n"
                             + markdown_table(["algorithm", "nnz", "first-ever call",
                                               "cold (cache warm)", "import gblas"],
                                              first))))
    by_alg: dict[str, list[Row]] = {}
    for r in rows:
        by_alg.setdefault(r.alg, []).append(r)
    for alg in ALGORITHMS:
        if alg in by_alg:
            sections.append((alg, markdown_table(HEADERS,
                                                 [_row_cells(r) for r in by_alg[alg]])))
    probs = problems(rows)
    sections.append(("Failures, differences and slow cases",
                     "\n".join(probs) if probs else "None."))
    if not final:
        sections.append(("Status", "Partial: the run was still going when this was "
                                   "written."))
    name = args.name or "end_to_end_cpu"
    return write_results(name, "End to end on the CPU: gblas against its peers", sections,
                         machine, directory=args.out)


def machine_info() -> dict:
    from benchmarks.harness import describe_machine

    info = describe_machine(bandwidth=False)
    try:
        import graphblas_algorithms as ga

        info["versions"] += f", graphblas-algorithms {ga.__version__}"
    except ImportError:
        pass
    info.pop("platform", None)
    return info


def run_cpu(args) -> int:
    algs = args.algorithms or list(ALGORITHMS)
    bad = [a for a in algs if a not in ALGORITHMS]
    if bad:
        _log(f"unknown algorithm(s) {bad}; choose from {', '.join(ALGORITHMS)}")
        return 2
    algs = [a for a in ALGORITHMS if a in algs]
    cases = graph_cases(args)
    if not cases:
        _log("no graph to run")
        return 1
    machine = machine_info()
    rows: list[Row] = []
    imports: list[float] = []
    rates = NxRates()
    first = None
    with tempfile.TemporaryDirectory(prefix="e2e-") as tmp:
        work = Path(tmp)
        for case in cases:
            rows += run_graph(case, algs, args, work, rates, imports)
            for f in work.glob("*"):
                f.unlink()
            path = write_cpu(rows, first, imports, args, machine, final=False)
        if args.first_ever:
            _log("== first-ever calls (empty kernel cache)")
            first = first_ever(algs, args, work)
    if hasattr(os, "getloadavg"):
        machine["load average at end"] = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    path = write_cpu(rows, first, imports, args, machine, final=True)
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"rows": [r.__dict__ for r in rows], "first_ever": first, "imports": imports},
            default=str, indent=0))
    _log(f"wrote {path}")
    return 0


# ------------------------------------------------------------------------------ main


def _csv(s: str) -> list[str]:
    return [x.strip() for x in s.split(",") if x.strip()]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.run_end_to_end",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=None,
                   help="folder of *.mtx.gz graphs (default: ../shared/data from the "
                        "repository root)")
    p.add_argument("--algorithms", type=_csv, default=None,
                   help=f"comma-separated subset of: {', '.join(ALGORITHMS)}")
    p.add_argument("--graphs", type=_csv, default=None,
                   help="comma-separated graph names: kronecker-SCALE (any scale) or a "
                        "data file's name without .mtx.gz")
    p.add_argument("--repeat", type=int, default=5, help="timed calls per measurement")
    p.add_argument("--limit", type=float, default=60.0,
                   help="seconds: peers estimated slower are not run; fewer repeats above")
    p.add_argument("--large", action="store_true", help="also Kronecker scales 20 and 22")
    p.add_argument("--quick", action="store_true",
                   help="smoke test: Kronecker 10 and 14, the 3 smallest data graphs, "
                        "1 repeat, no first-ever table")
    p.add_argument("--gpu", action="store_true",
                   help="pagerank, bfs and sssp (with --algorithms also hits, "
                        "eigenvector_centrality, katz_centrality) on a GPU Matrix against "
                        "cuSPARSE loops")
    p.add_argument("--no-cold", dest="cold", action="store_false",
                   help="skip the first call in a new process")
    p.add_argument("--no-first-ever", dest="first_ever", action="store_false",
                   help="skip the empty-kernel-cache table")
    p.add_argument("--no-peers", dest="peers", action="store_false",
                   help="time gblas only")
    p.add_argument("--nx-max-nnz", type=int, default=10_000_000,
                   help="largest graph (stored entries) NetworkX is given")
    p.add_argument("--out", type=Path, default=None,
                   help="results folder (default benchmarks/results)")
    p.add_argument("--name", default=None, help="results file name without .md")
    p.add_argument("--json", default=None, help="also write the rows to this JSON file")
    p.add_argument("--cold-child", default=None, help=argparse.SUPPRESS)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit status.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success.
    """
    args = parser().parse_args(argv)
    if args.cold_child:
        return _cold_child(args.cold_child)
    if args.quick:
        args.repeat = 1
        args.first_ever = False
    if args.gpu:
        from benchmarks.end_to_end_gpu import run_gpu

        return run_gpu(args)
    return run_cpu(args)


if __name__ == "__main__":
    sys.exit(main())
