"""NetworkX's semi-synchronous label propagation (``label_propagation_communities``:
Cordasco and Gargano's algorithm with Prec-Max ties) in compiled passes, decision for
decision.

* **Coloring**: greedy over a given vertex order (NetworkX's ``greedy_color``, largest
  degree first): each vertex takes the smallest color none of its colored neighbours has.
* **Sweeps**: while some vertex with neighbours holds a label that is not among its most
  frequent neighbour labels, the color classes are swept in color order; a vertex takes
  its most frequent label when there is one, and when there are several it keeps its own
  if it is among them, else takes the largest (Prec-Max).  Within a class no two vertices
  are neighbours, so the order inside it does not matter.  Each change adds an edge whose
  ends agree (the algorithm's proof), so the sweeps end.

Neighbours are a row's distinct entries (``G[v]``: a self loop counts the vertex's own
label once).  Kernel contract: ``("lpa", "csr", "cpu", "prec_max")``:
``f(indptr, indices, order) -> labels`` (int64, labels are vertex ids, initially each
vertex's own).

Examples
--------
>>> import numpy as np
>>> ptr = np.array([0, 2, 4, 6, 7, 9, 11, 12]); idx = np.array([1, 2, 0, 2, 0, 1, 4,
...     3, 5, 4, 6, 5])
>>> prec_max_labels(ptr, idx, np.arange(7)).tolist()   # a triangle, then a path of four
[2, 2, 2, 4, 4, 6, 6]
"""

from __future__ import annotations

import numpy as np

from ..registry import register
from .communities import count_labels
from .jitcache import jit

__all__ = ["prec_max_labels"]

#: The weights an unweighted count passes (never read)
_NO_WEIGHTS = np.ones(1, dtype=np.int64)


@jit()
def _greedy_colors(ptr, idx, order):
    """Each vertex in ``order`` takes the smallest color no colored neighbour has; returns
    (vertices by color, the colors' bounds)."""
    n = order.size
    color = np.full(n, -1, np.int64)
    taken = np.full(n + 1, -1, np.int64)  # taken[c] == u: a neighbour of u has color c
    ncolors = 0
    for k in range(n):
        u = order[k]
        for p in range(ptr[u], ptr[u + 1]):
            c = color[idx[p]]
            if c >= 0:
                taken[c] = u
        c = 0
        while taken[c] == u:
            c += 1
        color[u] = c
        ncolors = max(ncolors, c + 1)
    bounds = np.zeros(ncolors + 1, np.int64)
    for u in range(n):
        bounds[color[u] + 1] += 1
    for c in range(ncolors):
        bounds[c + 1] += bounds[c]
    fill = bounds[:-1].copy()
    by_color = np.empty(n, np.int64)
    for u in range(n):
        by_color[fill[color[u]]] = u
        fill[color[u]] += 1
    return by_color, bounds


@jit()
def _most_frequent(ptr, idx, labels, u, count, touched):
    """(how many labels tie for the most frequent among ``u``'s neighbours, the largest
    of them, whether ``u``'s own label is one); ``count`` is left all zero."""
    nt = count_labels(ptr, idx, _NO_WEIGHTS, False, labels, u, count, touched)
    best = 0
    ties = 0
    top = -1
    for t in range(nt):
        c = count[touched[t]]
        if c > best:
            best, ties, top = c, 1, touched[t]
        elif c == best:
            ties += 1
            top = max(top, touched[t])
    own = nt > 0 and count[labels[u]] == best
    for t in range(nt):
        count[touched[t]] = 0
    return ties, top, own


@jit()
def _prec_max(ptr, idx, by_color, bounds):
    n = by_color.size
    labels = np.arange(n, dtype=np.int64)
    count = np.zeros(n, np.int64)
    touched = np.empty(n, np.int64)
    limit = ptr[n] + 2  # each change makes one more edge agree: never reached
    for _ in range(limit):
        complete = True
        for u in range(n):
            if ptr[u + 1] > ptr[u]:
                if not _most_frequent(ptr, idx, labels, u, count, touched)[2]:
                    complete = False
                    break
        if complete:
            return labels, True
        for c in range(bounds.size - 1):
            for k in range(bounds[c], bounds[c + 1]):
                u = by_color[k]
                ties, top, own = _most_frequent(ptr, idx, labels, u, count, touched)
                if ties == 1 or (ties > 1 and not own):
                    labels[u] = top
    return labels, False


@register("lpa", "csr", "cpu", "prec_max")
def prec_max_labels(indptr: np.ndarray, indices: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Labels of NetworkX's ``label_propagation_communities`` on the graph whose row
    ``v`` lists ``v``'s distinct neighbours, colored greedily in ``order``."""
    ptr = np.ascontiguousarray(indptr, dtype=np.int64)
    idx = np.ascontiguousarray(indices, dtype=np.int64)
    by_color, bounds = _greedy_colors(ptr, idx, np.ascontiguousarray(order, dtype=np.int64))
    labels, done = _prec_max(ptr, idx, by_color, bounds)
    if not done:  # pragma: no cover - excluded by the algorithm's convergence proof
        raise RuntimeError("label propagation did not settle")
    return labels
