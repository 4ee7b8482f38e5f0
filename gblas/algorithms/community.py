"""Community detection: Louvain modularity optimization.

Each level moves vertices one at a time to the neighbouring community of largest
modularity gain, in a shuffled order, until a sweep moves none; the communities then
become the vertices of the next level's graph (their internal weights a self loop).  The
levels stop when one gains no more modularity than ``threshold`` (Blondel et al., "Fast
unfolding of communities in large networks", J. Stat. Mech. P10008, 2008; the directed
gain of Dugué and Perez, "Directed Louvain: maximizing modularity in directed
networks", 2015).

The order of the visits, the order in which a vertex's neighbour communities are tried,
the sums and the gain formulas are NetworkX's (``louvain_partitions``), so that a seed
gives NetworkX's partition: the compiled phases are in
:mod:`gblas.backends.cpu.louvain`; this module runs the levels, draws the orders with
Python's ``random`` as NetworkX does and maps the communities back to the vertices.
"""

from __future__ import annotations

import random

import numpy as np

from ..exceptions import InvalidValue, bad_arg
from .common import square_matrix

__all__ = ["louvain", "louvain_levels", "prec_max_propagation"]


def _rng(seed, call: str) -> random.Random:
    """NetworkX's ``create_py_random_state``: None the global generator, an int a new
    ``random.Random(seed)``, a ``random.Random`` itself."""
    if seed is None:
        return random._inst
    if isinstance(seed, random.Random):
        return seed
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        return random.Random(int(seed))
    raise bad_arg(InvalidValue, call, "seed", "None, an int or a random.Random",
                  type(seed).__name__, "Pass an int for a reproducible result.")


def louvain_levels(n: int, src, dst, weight, directed: bool, resolution: float = 1.0,
                   threshold: float = 1e-7, seed=None):
    """The partition after each Louvain level, as NetworkX's ``louvain_partitions``
    yields them: one label array per level (labels ``0 .. c-1`` in NetworkX's order of
    the communities).

    Parameters
    ----------
    n : int
        Number of vertices.
    src, dst, weight : array_like
        The edges in ``G.edges()`` order (an undirected edge once, parallel edges
        repeated: their weights add up).
    directed : bool
        Directed modularity.
    resolution, threshold : float
        As in :func:`louvain`.
    seed : None, int or random.Random
        The generator of the visiting orders (a ``random.Random`` is advanced).

    Yields
    ------
    numpy.ndarray of int64
        The community of every vertex.

    Examples
    --------
    >>> import numpy as np
    >>> src, dst = np.array([0, 0, 1, 3, 3, 4]), np.array([1, 2, 2, 4, 5, 5])
    >>> [lab.tolist() for lab in louvain_levels(6, src, dst, np.ones(6), False, seed=1)]
    [[0, 0, 0, 1, 1, 1]]
    """
    from ..backends.cpu import louvain as kernels

    call = "louvain"
    rng = _rng(seed, call)
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    weight = np.asarray(weight, dtype=np.float64)
    labels = np.arange(n, dtype=np.int64)
    if src.size == 0:
        yield labels
        return
    g = kernels.aggregate(src, dst, weight, labels, n, directed)
    m = kernels.size(g)
    mod = kernels.modularity(g, labels, resolution)
    improvement = True
    first = True
    while improvement:
        order = list(range(g.k))
        rng.shuffle(order)
        node2com, improvement = kernels.move_nodes(g, np.array(order, dtype=np.int64), m,
                                                   resolution)
        present, inner = np.unique(node2com, return_inverse=True)
        inner = inner.astype(np.int64).reshape(-1)
        if not (improvement or first):
            return
        first = False
        labels = inner[labels]
        yield labels.copy()
        new_mod = kernels.modularity(g, inner, resolution)
        if new_mod - mod <= threshold:
            return
        mod = new_mod
        g = kernels.aggregate(g.src, g.dst, g.weight, inner, present.size, directed)


def louvain(A, resolution: float = 1.0, threshold: float = 1e-7,
            max_level: int | None = None, seed=None, *, directed: bool | None = None):
    """Louvain communities: every vertex's community label.

    The same partition as ``networkx.community.louvain_communities(G, weight=...,
    resolution, threshold, max_level, seed)`` on the graph whose adjacency lists are
    ``A``'s rows (columns in increasing order): NetworkX's visiting orders, drawn from
    ``seed``, and its gains.  Labels are ``0 .. c-1`` in the order of NetworkX's list of
    communities.

    Parameters
    ----------
    A : gblas.Matrix
        Square adjacency matrix, ``A[i, j]`` the weight of edge ``i -> j`` (a bool
        pattern weighs 1).  A symmetric matrix is an undirected graph (each edge read
        from the entry with ``i <= j``).
    resolution : float, default 1.0
        Below 1 favours larger communities, above 1 smaller ones.
    threshold : float, default 1e-7
        Stop when a level gains no more modularity than this.
    max_level : int, optional
        At most this many levels (>= 1).
    seed : None, int or random.Random, optional
        The visiting orders: an int makes them reproducible; None uses Python's global
        ``random`` generator, as NetworkX does.
    directed : bool, optional
        Directed modularity; default: directed iff ``A`` is not symmetric.

    Returns
    -------
    gblas.Vector of int64
        Dense community labels.

    Raises
    ------
    DimensionMismatch
        ``A`` is not square.
    InvalidValue
        ``max_level`` below 1, a bad ``seed``.

    Examples
    --------
    >>> import numpy as np
    >>> import gblas as gb
    >>> rows = [0, 0, 1, 3, 3, 4, 2]
    >>> cols = [1, 2, 2, 4, 5, 5, 3]
    >>> A = gb.Matrix.from_coo(rows + cols, cols + rows, shape=(6, 6))  # two triangles
    >>> gb.algorithms.louvain(A, seed=1).to_dense().tolist()
    [0, 0, 0, 1, 1, 1]
    """
    from .._device import to_numpy
    from ..core import Vector

    call = "louvain"
    A = square_matrix(A, call)
    if max_level is not None and (isinstance(max_level, bool) or not isinstance(
            max_level, (int, np.integer)) or max_level < 1):
        raise bad_arg(InvalidValue, call, "max_level", "a positive integer or None",
                      repr(max_level), "Pass max_level=None for as many levels as gain.")
    if directed is None:
        directed = A.nvals > 0 and not bool(A.isequal(A.T))
    n = A.shape[0]
    rows, cols, vals = (to_numpy(x) for x in A.to_coo())
    vals = np.ones(rows.size) if vals is None or vals.dtype == np.bool_ else vals
    if not directed:
        keep = rows <= cols
        rows, cols, vals = rows[keep], cols[keep], vals[keep]
    labels = np.arange(n, dtype=np.int64)
    for level, lab in enumerate(louvain_levels(n, rows, cols, vals, bool(directed),
                                               resolution, threshold, seed), 1):
        labels = lab
        if max_level is not None and level >= max_level:
            break
    return Vector.from_dense(labels)


def prec_max_propagation(n: int, src, dst, order, *, distinct: bool = False) -> np.ndarray:
    """The labels NetworkX's ``label_propagation_communities`` finds (semi-synchronous
    label propagation with Prec-Max ties, Cordasco and Gargano), in compiled passes.

    Parameters
    ----------
    n : int
        Number of vertices.
    src, dst : array_like of int
        Both directions of every undirected edge (repeats and their order do not matter;
        a self loop once).
    order : array_like of int
        The greedy coloring's vertex order (NetworkX: largest degree first, stable).
    distinct : bool, default False
        The pairs are already distinct (a simple graph's adjacency): no sort where
        ``src`` is sorted too.

    Returns
    -------
    numpy.ndarray of int64
        Every vertex's label, a vertex id (each vertex's own to start with).

    Examples
    --------
    >>> import numpy as np
    >>> src, dst = np.array([0, 1, 1, 2, 3, 4]), np.array([1, 0, 2, 1, 4, 3])
    >>> prec_max_propagation(5, src, dst, np.array([1, 0, 2, 3, 4])).tolist()
    [2, 2, 2, 4, 4]
    """
    from .._device import unique
    from ..backends.registry import get_kernel

    rows = np.asarray(src, dtype=np.int64)
    cols = np.asarray(dst, dtype=np.int64)
    if not distinct or (rows.size > 1 and bool(np.any(rows[1:] < rows[:-1]))):
        # each vertex's distinct neighbours, as rows of a CSR (sorted keys, repeats out)
        rows, cols = np.divmod(unique(rows * max(n, 1) + cols), max(n, 1))
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return get_kernel("lpa", "csr", "cpu", "prec_max")(indptr, cols, order)
