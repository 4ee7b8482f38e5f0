"""CPU label propagation in compiled sweeps, with the semantics of
:func:`gblas.algorithms.label_propagation`'s products.

A vertex's most frequent neighbour labels are counted over its row of ``M`` (weights:
1, or 2 for a reciprocated edge) in a scratch array reset after each row; ties go to the
smallest label.  Semi-synchronous: the color classes (independent sets) are swept in order,
a vertex keeping its label when it is among the most frequent (Cordasco-Gargano); within a
class no two vertices are neighbours, so updating them one by one equals updating them
together.  Synchronous: every vertex takes the best label of the previous iteration.  A
vertex without neighbours keeps its label.

The coloring is Jones-Plassmann-Luby's with the given priorities: a round colors every
uncolored vertex whose priority exceeds its uncolored neighbours'.

Kernel contracts: ``("lpa_coloring", "csr", "cpu")``: ``f(M: CSR, priorities) ->
(order, class_ptr)``; ``("lpa", "csr", "cpu")``: ``f(M: CSR, labels, order, class_ptr,
max_iter, synchronous) -> (iterations, converged)``, ``labels`` updated in place.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..registry import register
from .jitcache import jit
from .operands import uindex

__all__ = ["coloring", "count_labels", "propagate"]


@jit()
def _jpl(ptr, idx, w, order, class_ptr):
    """The rounds, driven by events: a vertex blocked by an uncolored neighbour of higher
    priority waits on that neighbour and is examined again only in the round after it is
    colored, its scan resumed where the blocker stands (the neighbours before it are
    colored or of lower priority for good).  Each row is read once over all the rounds
    and each round visits its candidates only (a power-law graph takes hundreds of
    rounds: 944 at Kronecker 18).  The classes are then laid out by a pass over the
    vertices in increasing order, the order the plain rounds give within a class."""
    n = w.size
    colored = np.zeros(n, np.bool_)
    at = ptr[:n].astype(np.int64)  # where each vertex's scan resumes
    head = np.full(n, -1, np.int64)  # the vertices waiting on each vertex, linked
    link = np.empty(n, np.int64)
    cls = np.empty(n, np.int64)
    cand = np.arange(n)  # this round's vertices to examine: all, then the freed ones
    newly = np.empty(n, np.int64)
    ncand = n
    done = 0
    k = 0
    while done < n:
        nnew = 0
        for t in range(ncand):
            v = cand[t]
            end = ptr[v + 1]
            p = at[v]
            blocker = -1
            while p < end:
                u = idx[p]
                if u != v and not colored[u] and w[u] > w[v]:
                    blocker = u
                    break
                p += 1
            at[v] = p
            if blocker < 0:
                newly[nnew] = v
                nnew += 1
            else:
                link[v] = head[blocker]
                head[blocker] = v
        # colored after the round (the round saw them uncolored); their waiters are the
        # next round's candidates
        for t in range(nnew):
            colored[newly[t]] = True
            cls[newly[t]] = k
        ncand = 0
        for t in range(nnew):
            q = head[newly[t]]
            while q >= 0:
                cand[ncand] = q
                ncand += 1
                q = link[q]
        done += nnew
        k += 1
    # class c's vertices in increasing order at order[class_ptr[c]:class_ptr[c + 1]]
    class_ptr[: k + 1] = 0
    for v in range(n):
        class_ptr[cls[v] + 1] += 1
    for c in range(k):
        class_ptr[c + 1] += class_ptr[c]
    fill = class_ptr[:k].copy()
    for v in range(n):
        order[fill[cls[v]]] = v
        fill[cls[v]] += 1
    return k


@jit(inline="always")
def count_labels(ptr, idx, val, weighted, labels, i, count, touched):
    """Add row ``i``'s neighbour labels into ``count`` (``val[p]`` each when
    ``weighted``, else 1); returns how many distinct labels, listed in ``touched``."""
    nt = 0
    for p in range(ptr[i], ptr[i + 1]):
        lab = labels[idx[p]]
        if count[lab] == 0:
            touched[nt] = lab
            nt += 1
        count[lab] += val[p] if weighted else 1
    return nt


@jit()
def _best(ptr, idx, val, labels, i, count, touched):
    """``(best, m, count of i's own label)`` over row i; ``m == 0`` without neighbours."""
    nt = count_labels(ptr, idx, val, True, labels, i, count, touched)
    m = 0
    best = labels[i]
    for t in range(nt):
        lab = touched[t]
        c = count[lab]
        if c > m or (c == m and lab < best):
            m = c
            best = lab
    own = count[labels[i]]
    for t in range(nt):
        count[touched[t]] = 0
    return best, m, own


@jit()
def _sweeps(ptr, idx, val, labels, order, class_ptr, nclasses, max_iter, synchronous):
    n = labels.size
    count = np.zeros(n, np.int64)
    touched = np.empty(n, np.int64)
    nxt = np.empty(n, np.int64)
    it = 0
    while it < max_iter:
        it += 1
        changed = 0
        if synchronous:
            for i in range(n):
                best, m, own = _best(ptr, idx, val, labels, i, count, touched)
                nxt[i] = best if m > 0 else labels[i]
                changed += nxt[i] != labels[i]
            for i in range(n):
                labels[i] = nxt[i]
        else:
            for c in range(nclasses):
                for t in range(class_ptr[c], class_ptr[c + 1]):
                    i = order[t]
                    best, m, own = _best(ptr, idx, val, labels, i, count, touched)
                    if m > 0 and own < m:
                        labels[i] = best
                        changed += 1
        if changed == 0:
            return it, True
    return it, False


#: The modes of :func:`_lpa`.
_COLOR, _SEMI_SYNCHRONOUS, _SYNCHRONOUS = 0, 1, 2


@jit()
def _lpa(ptr, idx, val, w, labels, order, class_ptr, max_iter, mode):
    """The coloring (``mode`` _COLOR: ``(classes, False)``, the arguments it does not
    read empty) or the sweeps (``(iterations, converged)``).  One kernel for both, both
    called with one signature: a new process loads one entry from the kernel cache
    instead of two (2-4 ms each)."""
    if mode == _COLOR:
        return _jpl(ptr, idx, w, order, class_ptr), False
    return _sweeps(ptr, idx, val, labels, order, class_ptr, class_ptr.size - 1, max_iter,
                   mode == _SYNCHRONOUS)


_NONE = np.empty(0, np.int64)  # an argument of _lpa that a mode does not read


@register("lpa_coloring", "csr", "cpu")
def coloring(M: Any, priorities: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Jones-Plassmann-Luby color classes of ``M``: the vertices class by class in
    ``order`` and the classes' bounds in ``class_ptr``."""
    n = int(M.shape[0])
    order = np.empty(n, dtype=np.int64)
    class_ptr = np.empty(n + 1, dtype=np.int64)
    k, _ = _lpa(uindex(M.indptr), uindex(M.indices), _NONE,
                np.ascontiguousarray(priorities, dtype=np.int64), _NONE, order, class_ptr,
                0, _COLOR)
    return order, class_ptr[:k + 1]


@register("lpa", "csr", "cpu")
def propagate(M: Any, labels: np.ndarray, order: np.ndarray, class_ptr: np.ndarray,
              max_iter: int, synchronous: bool) -> tuple[int, bool]:
    """Sweeps of label propagation over ``M`` (int64 weights), ``labels`` updated in place;
    returns ``(sweeps or iterations, converged)``."""
    it, ok = _lpa(uindex(M.indptr), uindex(M.indices),
                  np.ascontiguousarray(M.dense_values(), dtype=np.int64), _NONE, labels,
                  np.ascontiguousarray(order, dtype=np.int64),
                  np.ascontiguousarray(class_ptr, dtype=np.int64), int(max_iter),
                  _SYNCHRONOUS if synchronous else _SEMI_SYNCHRONOUS)
    return int(it), bool(ok)
