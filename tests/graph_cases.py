"""Graphs shared by tests: for the BFS tests of both devices random, power-law, a grid
and a path (hundreds of one-vertex levels), as SciPy CSR arrays; for the one-launch
power iterations random graphs with hubs."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from gblas.io import generators


def bfs_graphs(sizes=((1, 0), (6, 0), (40, 70), (300, 2000), (3000, 60000)), seed: int = 11,
               path: int = 500) -> list[tuple[str, sp.csr_array]]:
    """``(name, S)`` pairs: uniform random digraphs of the given ``(n, m)``, Kronecker
    graphs (directed and symmetric), a 30 x 40 grid and a path of ``path`` vertices."""
    rng = np.random.default_rng(seed)
    out = []
    for n, m in sizes:
        out.append((f"uniform {n}x{m}", uniform_digraph(rng, n, m)))
    out.append(("kronecker 11", generators.kronecker(11, 16, seed=3).to_scipy()))
    out.append(("kronecker 10 sym", generators.kronecker(10, 8, seed=4,
                                                        symmetric=True).to_scipy()))
    out.append(("grid 30x40", generators.grid(30, 40).to_scipy()))
    ids = np.arange(path - 1)
    out.append(("path", sp.csr_array((np.ones(path - 1), (ids, ids + 1)), shape=(path, path))))
    return out


def uniform_digraph(rng: np.random.Generator, n: int, m: int) -> sp.csr_array:
    """An ``n x n`` SciPy CSR digraph of ``m`` uniform random edges of weight 1 (self loops
    possible; a repeated edge is one entry of weight 2 or more).

    >>> S = uniform_digraph(np.random.default_rng(0), 5, 8)
    >>> S.shape, int(S.sum())
    ((5, 5), 8)
    """
    r = rng.integers(0, max(n, 1), m)
    c = rng.integers(0, max(n, 1), m)
    return sp.csr_array((np.ones(m), (r, c)), shape=(n, n))


def min_weight_csr(r: np.ndarray, c: np.ndarray, w: np.ndarray, n: int, *,
                   undirected: bool = False) -> sp.csr_array:
    """An ``n x n`` SciPy CSR graph of the edges ``(r[k], c[k], w[k])``: mirrored first when
    ``undirected``; of duplicate edges the smallest weight stays (as the generators of
    ``gblas.io`` keep it), not their sum; zero weights stay as explicit entries.

    >>> S = min_weight_csr(np.array([0, 0]), np.array([1, 1]), np.array([3.0, 2.0]), 2,
    ...                    undirected=True)
    >>> S.toarray().tolist()
    [[0.0, 2.0], [2.0, 0.0]]
    """
    if undirected:
        r, c, w = np.concatenate([r, c]), np.concatenate([c, r]), np.concatenate([w, w])
    order = np.lexsort((w, c, r))
    r, c, w = r[order], c[order], w[order]
    first = np.ones(r.size, bool)
    first[1:] = (r[1:] != r[:-1]) | (c[1:] != c[:-1])
    return sp.csr_array((w[first], (r[first], c[first])), shape=(n, n))


def hub_graph(kind: str, n: int, seed: int):
    """A gblas Matrix (``kind`` "bool", "iso" or "weights") of random edges plus a few
    hubs of in-degree 40 to 2,000 (rows of ``A'`` longer than a short row and than one
    chunk of the one-launch kernels), and vertices without out-edges."""
    import gblas as gb

    rng = np.random.default_rng(seed)
    m = 4 * n
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    hubs = rng.choice(n, 4, replace=False) if n >= 4 else []
    for h, deg in zip(hubs, (40, 300, 700, 2000), strict=False):
        src = rng.choice(n, min(deg, n), replace=False)
        rows, cols = np.concatenate([rows, src]), np.concatenate([cols, np.full(src.size, h)])
    keep = rows % 17 != 3  # dangling vertices
    rows, cols = rows[keep], cols[keep]
    if kind == "bool":
        return gb.Matrix.from_coo(rows, cols, None, shape=(n, n), dup_op="any")
    vals = np.full(rows.size, 2.5) if kind == "iso" else rng.random(rows.size) + 0.01
    return gb.Matrix.from_coo(rows, cols, vals, shape=(n, n), dup_op="max")
