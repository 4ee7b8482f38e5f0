"""The peers of the end-to-end benchmark (:mod:`benchmarks.run_end_to_end`) and the checks
of their answers: each algorithm's NetworkX, SciPy (``scipy.sparse.csgraph`` and the SciPy
loops of PageRank and the triangle count) and graphblas-algorithms calls on one graph
(:class:`Peers`), and :func:`check`, which compares a peer's answer with gblas's.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from benchmarks import end_to_end_spectral as spectral
from benchmarks.end_to_end_common import DAMPING, FORM, SEED, TOL, Graph, _log

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
