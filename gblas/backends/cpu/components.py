"""CPU connected components in one compiled pass, labelled by their smallest vertex id.

* **weak**: union-find over the entries of ``A`` (edge directions ignored, so no transpose
  is needed), linking the larger root under the smaller: every root is its set's smallest
  vertex, the label gblas defines; path halving keeps the finds short (O(m alpha(n))).
* **strong**: Tarjan's algorithm with an explicit call stack (no recursion limit), each
  component's vertices then labelled with their smallest id.

And core numbers (``("core_number", "csr", "cpu")``: ``f(M: CSR) -> core``, ``M`` the
symmetric multigraph, its values the multiplicity of each edge) by Batagelj and
Zaversnik's bucket peeling, O(m): vertices in order of current degree, each neighbour of
a peeled vertex moved one bucket down per parallel edge while above the peeled degree.

Kernel contract (registered as ``("components", "csr", "cpu", kind)``):
``f(A: CSR) -> labels`` (int64, length n).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..registry import register
from .jitcache import jit
from .operands import uindex

__all__ = ["core_numbers", "strong_components", "weak_components"]


@jit()
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@jit()
def _union_find(ptr, idx, labels):
    n = labels.size
    for i in range(n):
        labels[i] = i
    for i in range(n):
        ri = _find(labels, i)
        for p in range(ptr[i], ptr[i + 1]):
            rj = _find(labels, np.int64(idx[p]))
            if ri < rj:
                labels[rj] = ri
            elif rj < ri:
                labels[ri] = rj
                ri = rj
    for i in range(n):
        labels[i] = labels[labels[i]]  # roots come first: a root's label is final


@jit(inline="always")
def _open(v, counter, sp, index, low, stack, on_stack):
    """Tarjan's visit of ``v``: its index and low link ``counter``, pushed at ``sp``."""
    index[v] = counter
    low[v] = counter
    stack[sp] = v
    on_stack[v] = True


@jit()
def _tarjan(ptr, idx, labels):
    n = labels.size
    index = np.full(n, -1, np.int64)
    low = np.empty(n, np.int64)
    on_stack = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int64)
    call_v = np.empty(n, np.int64)
    call_p = np.empty(n, np.int64)
    counter = 0
    sp = 0
    for s in range(n):
        if index[s] >= 0:
            continue
        _open(s, counter, sp, index, low, stack, on_stack)
        counter += 1
        sp += 1
        call_v[0] = s
        call_p[0] = np.int64(ptr[s])
        depth = 1
        while depth > 0:
            v = call_v[depth - 1]
            p = call_p[depth - 1]
            if p < np.int64(ptr[v + 1]):
                call_p[depth - 1] = p + 1
                w = np.int64(idx[p])
                if index[w] < 0:
                    _open(w, counter, sp, index, low, stack, on_stack)
                    counter += 1
                    sp += 1
                    call_v[depth] = w
                    call_p[depth] = np.int64(ptr[w])
                    depth += 1
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            depth -= 1
            if depth > 0:
                u = call_v[depth - 1]
                if low[v] < low[u]:
                    low[u] = low[v]
            if low[v] == index[v]:  # v roots a component: the stack down to v
                k = sp
                smallest = v
                while True:
                    k -= 1
                    w = stack[k]
                    if w < smallest:
                        smallest = w
                    if w == v:
                        break
                for t in range(k, sp):
                    labels[stack[t]] = smallest
                    on_stack[stack[t]] = False
                sp = k


def _labels(kernel, A: Any) -> np.ndarray:
    """``kernel(indptr, indices, labels)`` run on ``A``'s arrays; the labels it wrote."""
    labels = np.empty(int(A.shape[0]), dtype=np.int64)
    kernel(uindex(A.indptr), uindex(A.indices), labels)
    return labels


@register("components", "csr", "cpu", "weak")
def weak_components(A: Any) -> np.ndarray:
    """Weakly connected components of ``A`` (a CSR), labelled by their smallest vertex.

    Examples
    --------
    >>> from gblas.formats import CSR
    >>> import scipy.sparse as sp
    >>> A = CSR.from_scipy(sp.csr_array(([1, 1], ([2, 4], [1, 3])), shape=(5, 5)))
    >>> weak_components(A).tolist()
    [0, 1, 1, 3, 3]
    """
    return _labels(_union_find, A)


@register("components", "csr", "cpu", "strong")
def strong_components(A: Any) -> np.ndarray:
    """Strongly connected components of ``A`` (a CSR) by Tarjan's algorithm, each labelled
    by its smallest vertex.

    Examples
    --------
    >>> from gblas.formats import CSR
    >>> A = CSR.from_coo(np.array([0, 1, 2]), np.array([1, 0, 1]), None, (3, 3),
    ...                  iso_value=True)                  # 0 <-> 1 <- 2
    >>> strong_components(A).tolist()
    [0, 0, 2]
    """
    return _labels(_tarjan, A)


@jit()
def _bz(ptr, idx, val, deg):
    n = deg.size
    top = 0
    for v in range(n):
        if deg[v] > top:
            top = deg[v]
    bins = np.zeros(top + 2, np.int64)
    for v in range(n):
        bins[deg[v]] += 1
    start = 0
    for d in range(top + 1):
        num = bins[d]
        bins[d] = start
        start += num
    pos = np.empty(n, np.int64)
    vert = np.empty(n, np.int64)
    for v in range(n):
        pos[v] = bins[deg[v]]
        vert[pos[v]] = v
        bins[deg[v]] += 1
    for d in range(top, 0, -1):
        bins[d] = bins[d - 1]
    bins[0] = 0
    for i in range(n):
        v = vert[i]
        for p in range(ptr[v], ptr[v + 1]):
            u = np.int64(idx[p])
            for _ in range(val[p]):  # one move per parallel edge
                if deg[u] <= deg[v]:
                    break
                du = deg[u]
                pu = pos[u]
                pw = bins[du]
                w = vert[pw]
                if u != w:
                    pos[u] = pw
                    vert[pu] = w
                    pos[w] = pu
                    vert[pw] = u
                bins[du] += 1
                deg[u] = du - 1


@register("core_number", "csr", "cpu")
def core_numbers(M: Any) -> np.ndarray:
    """Core number of every vertex of the symmetric multigraph ``M`` (a CSR whose values
    count each edge's multiplicity; no self loops).

    Examples
    --------
    >>> from gblas.formats import CSR
    >>> import scipy.sparse as sp
    >>> r, c = [0, 0, 1, 2, 1, 2, 2, 3], [1, 2, 2, 3, 0, 0, 1, 2]
    >>> M = CSR.from_scipy(sp.csr_array(([1] * 8, (r, c)), shape=(5, 5)))
    >>> core_numbers(M).tolist()
    [2, 2, 2, 1, 0]
    """
    ptr, idx = uindex(M.indptr), uindex(M.indices)
    val = np.ascontiguousarray(M.dense_values(), dtype=np.int64)
    deg = np.zeros(int(M.shape[0]), dtype=np.int64)
    np.add.at(deg, np.repeat(np.arange(deg.size), np.diff(M.indptr)), val)
    _bz(ptr, idx, val, deg)
    return deg
