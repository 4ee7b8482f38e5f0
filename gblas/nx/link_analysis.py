"""NetworkX's link analysis and spectral centralities run by gblas: pagerank, hits,
eigenvector and Katz centrality (the iterative and the ``_numpy`` variants).

The power iterations are :mod:`gblas.algorithms` ones (pull SpMVs over ``A'``); each is
run with NetworkX's starting vector and stopping rule, so the iterates are NetworkX's.
The ``_numpy`` variants (a dense solve or an eigensolver in NetworkX) are iterated to
machine precision instead; when the iteration does not converge, gblas declines the call
(``NotImplementedError``) and NetworkX runs its own.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from ._common import device, graph, node_dict, refuse_multigraph, to_numpy

__all__ = ["eigenvector_centrality", "eigenvector_centrality_numpy", "hits",
           "katz_centrality", "katz_centrality_numpy", "pagerank"]

#: Iteration budget of the ``_numpy`` variants (their ``max_iter`` is an eigensolver's).
_EXACT_ITERATIONS = 20_000


def _iterate(algorithm, A, failure: Exception, **kwargs):
    """``algorithm(A, **kwargs)``, a gblas power iteration; its
    ``PowerIterationFailedConvergence`` becomes ``failure`` (NetworkX's own error, or a
    ``NotImplementedError`` that hands the call back to NetworkX)."""
    from ..algorithms import PowerIterationFailedConvergence

    try:
        return algorithm(A, **kwargs)
    except PowerIterationFailedConvergence:
        raise failure from None


def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6, nstart=None,
             weight="weight", dangling=None):
    """``nx.pagerank`` by :func:`gblas.algorithms.pagerank` with NetworkX's stopping rule.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a")])
    >>> r = nx.pagerank(G, backend="gblas")
    >>> {v: round(x, 4) for v, x in r.items()}
    {'a': 0.3333, 'b': 0.3333, 'c': 0.3333}
    """
    from ..algorithms import pagerank as gb_pagerank

    G = graph(G)
    if len(G) == 0:
        return {}
    p = None
    if personalization is not None:
        p = np.array([personalization.get(v, 0) for v in G.nodes], dtype=np.float64)
        if p.sum() == 0:
            raise ZeroDivisionError
    if max_iter < 1:
        # NetworkX runs no iteration, so none converges
        raise nx.PowerIterationFailedConvergence(max_iter)
    # parallel edges of a multigraph add up, as in nx.to_scipy_sparse_array
    A = G.matrix(weight, "plus", device=device())
    r = _iterate(gb_pagerank, A, nx.PowerIterationFailedConvergence(max_iter),
                 damping=alpha, tol=tol, max_iter=max_iter, personalization=p,
                 criterion="networkx")
    return node_dict(G, r.to_dense())


def hits(G, max_iter=100, tol=1.0e-8, nstart=None, normalized=True):
    """``nx.hits``: hubs and authorities, the dominant singular vectors of the adjacency
    (parallel edges summed, weights from the ``weight`` attribute as NetworkX reads
    them), by :func:`gblas.algorithms.hits` iterated to 1e-13 (Lanczos cycles where the
    power iteration would be slow).

    Examples
    --------
    >>> import networkx as nx
    >>> h, a = nx.hits(nx.DiGraph([(0, 1), (0, 2), (1, 2)]), backend="gblas")
    >>> [round(h[v], 4) for v in h], [round(a[v], 4) for v in a]
    ([0.618, 0.382, 0.0], [0.0, 0.382, 0.618])
    """
    from ..algorithms import hits as gb_hits

    G = graph(G)
    n = len(G)
    if n == 0:
        return {}, {}
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    if G.number_of_edges() == 0:
        raise NotImplementedError("hits of a graph without edges (no singular vector)")
    start = None
    if nstart is not None:
        start = np.array([nstart.get(v, 0) for v in G.nodes], dtype=np.float64)
        if start.sum() <= 0 or (start < 0).any():
            raise NotImplementedError("nstart must be non-negative and not all zero")
    A = G.matrix("weight", "plus", device=device())
    h, a = _iterate(gb_hits, A, NotImplementedError("hits: the power iteration did not "
                                                    "converge (near-equal singular values)"),
                    tol=1e-13 * n, max_iter=_EXACT_ITERATIONS, start=start,
                    normalized=bool(normalized))
    return node_dict(G, h.to_dense()), node_dict(G, a.to_dense())


def eigenvector_centrality(G, max_iter=100, tol=1.0e-6, nstart=None, weight=None):
    """``nx.eigenvector_centrality`` by :func:`gblas.algorithms.eigenvector_centrality`
    (NetworkX's iteration over ``A + I`` and stopping rule).

    Examples
    --------
    >>> import networkx as nx
    >>> x = nx.eigenvector_centrality(nx.path_graph(3), backend="gblas")
    >>> [round(v, 3) for v in x.values()]
    [0.5, 0.707, 0.5]
    """
    from ..algorithms import eigenvector_centrality as gb_eig

    G = graph(G)
    refuse_multigraph(G)
    n = len(G)
    if n == 0:
        raise nx.NetworkXPointlessConcept("cannot compute centrality for the null graph")
    start = None
    if nstart is not None:
        if all(v == 0 for v in nstart.values()):
            raise nx.NetworkXError("initial vector cannot have all zero values")
        start = np.array([nstart.get(v, 0) for v in G.nodes], dtype=np.float64)
    A = G.matrix(weight, "plus", device=device())
    # NetworkX's iterates only (no Lanczos cycles): it fails where they are slow
    x = _iterate(gb_eig, A, nx.PowerIterationFailedConvergence(max_iter), tol=n * tol,
                 max_iter=max_iter, start=start, krylov=False)
    return node_dict(G, x.to_dense())


def eigenvector_centrality_numpy(G, weight=None, max_iter=50, tol=0):
    """``nx.eigenvector_centrality_numpy``: the dominant eigenvector of ``A'`` by power
    iteration over ``A + I`` to 1e-13 (declined when it does not converge).

    Examples
    --------
    >>> import networkx as nx
    >>> x = nx.eigenvector_centrality_numpy(nx.path_graph(3), backend="gblas")
    >>> [round(v, 6) for v in x.values()]
    [0.5, 0.707107, 0.5]
    """
    from ..algorithms import eigenvector_centrality as gb_eig
    from .components import is_connected, is_strongly_connected

    G = graph(G)
    n = len(G)
    if n == 0:
        raise nx.NetworkXPointlessConcept("cannot compute centrality for the null graph")
    connected = is_strongly_connected(G) if G.is_directed() else is_connected(G)
    if not connected:
        raise nx.AmbiguousSolution("`eigenvector_centrality_numpy` does not give "
                                   "consistent results for disconnected graphs")
    A = G.matrix(weight, "plus", device=device())
    if n == 1:
        return dict.fromkeys(G.nodes, 1.0)
    x = _iterate(gb_eig, A, NotImplementedError("eigenvector_centrality_numpy: the power "
                                                "iteration did not converge"),
                 tol=1e-13 * n, max_iter=_EXACT_ITERATIONS)
    x = to_numpy(x.to_dense())
    x = x / (np.sign(x.sum()) * np.linalg.norm(x))
    return node_dict(G, x)


def _beta(G, beta):
    """Katz's beta as one float per vertex (a dict must name every node)."""
    try:
        return np.full(len(G), float(beta))
    except (TypeError, ValueError, AttributeError) as err:
        if set(beta) != set(G.nodes):
            raise nx.NetworkXError("beta dictionary must have a value for every node") \
                from err
        return np.array([beta[v] for v in G.nodes], dtype=np.float64)


def katz_centrality(G, alpha=0.1, beta=1.0, max_iter=1000, tol=1.0e-6, nstart=None,
                    normalized=True, weight=None):
    """``nx.katz_centrality`` by :func:`gblas.algorithms.katz_centrality` (NetworkX's
    iteration and stopping rule).

    Examples
    --------
    >>> import networkx as nx
    >>> x = nx.katz_centrality(nx.path_graph(3), backend="gblas")
    >>> [round(v, 4) for v in x.values()]
    [0.5599, 0.6108, 0.5599]
    """
    from ..algorithms import katz_centrality as gb_katz

    G = graph(G)
    refuse_multigraph(G)
    n = len(G)
    if n == 0:
        return {}
    b = _beta(G, beta)
    start = None
    if nstart is not None:
        start = np.array([nstart[v] for v in G.nodes], dtype=np.float64)
    A = G.matrix(weight, "plus", device=device())
    x = _iterate(gb_katz, A, nx.PowerIterationFailedConvergence(max_iter),
                 alpha=float(alpha), beta=b, tol=n * tol, max_iter=max_iter, start=start,
                 normalized=bool(normalized))
    return node_dict(G, x.to_dense())


def katz_centrality_numpy(G, alpha=0.1, beta=1.0, normalized=True, weight=None):
    """``nx.katz_centrality_numpy``: the solution of ``(I - alpha A') x = beta``, by
    the Katz iteration to 1e-13 (declined when ``alpha`` is too large to converge).

    Examples
    --------
    >>> import networkx as nx
    >>> x = nx.katz_centrality_numpy(nx.path_graph(3), backend="gblas")
    >>> [round(v, 4) for v in x.values()]
    [0.5599, 0.6108, 0.5599]
    """
    from ..algorithms import katz_centrality as gb_katz

    G = graph(G)
    refuse_multigraph(G)
    n = len(G)
    if n == 0:
        return {}
    keys = list(G.nodes)
    if hasattr(beta, "keys"):
        if set(beta.keys()) != set(G.nodes):
            raise nx.NetworkXError("beta dictionary must have a value for every node")
        keys = list(beta.keys())
        b = np.array([beta[v] for v in G.nodes], dtype=np.float64)
    else:
        try:
            b = np.full(n, 1.0) * beta
        except (TypeError, ValueError, AttributeError) as err:
            raise nx.NetworkXError("beta must be a number") from err
    A = G.matrix(weight, "plus", device=device())
    x = _iterate(gb_katz, A, NotImplementedError("katz_centrality_numpy: alpha too large "
                                                 "for the iteration to converge"),
                 alpha=float(alpha), beta=b, tol=1e-14 * n, max_iter=_EXACT_ITERATIONS,
                 normalized=False)
    x = to_numpy(x.to_dense())
    if normalized:
        norm = float(np.sign(x.sum()) * np.linalg.norm(x))
        x = x / norm if norm and math.isfinite(norm) else x
    out = dict(zip(G.nodes, x.tolist()))
    return {v: out[v] for v in keys}
