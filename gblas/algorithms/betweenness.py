"""Betweenness centrality: Brandes' algorithm on a batch of sources at once.

Notation: ``A`` the adjacency matrix (``A(i, j)`` for an edge ``i -> j``; values ignored),
``k`` the batch size, ``F`` the ``k x n`` BFS frontier of all sources of the batch (its
values: the number of shortest paths from the row's source), ``Sigma`` the path counts
of every vertex reached so far, ``L[d]`` the frontier of level ``d`` (kept for the
backward sweep), ``Delta`` the dependencies.

Forward (one SpGEMM per level)::

    F<!Sigma, replace> = F plus.first A        # path counts of the next level
    Sigma += F

Backward (from the deepest level to level 1)::

    W = (1 + Delta) ./ L[d]                    # on the pattern of level d
    Delta<L[d-1]> += (W plus.first A') .* L[d-1]

and the centrality is the column sum of ``Delta`` (sources excluded: level 0 is never
accumulated), rescaled as NetworkX does.

Cost per level: the edges of its frontier, plus a product call's fixed overhead.
``Sigma``, the BFS depth of every (source, vertex) pair and ``Delta`` are dense ``k x n``
arrays of the batch (allocated once per batch), and the products run without a mask:
their entries are kept where the depth array says so (no depth yet going forward, depth
``d - 1`` going back), one lookup each, instead of masked products and sparse
write-backs whose cost grows with everything reached so far.

Reference (ideas): Brandes, "A faster algorithm for betweenness centrality" (2001); the
batched GraphBLAS formulation of LAGraph's ``LAGr_Betweenness``.
"""

from __future__ import annotations

import math

import numpy as np

from .._device import bincount
from ..exceptions import DimensionMismatch, IndexOutOfBound, InvalidObject, InvalidValue, bad_arg
from ._progress import Progress
from .common import is_symmetric, square_matrix

__all__ = ["betweenness_centrality"]


def _sources(sources, n: int, call: str) -> np.ndarray:
    """Validated unique source ids (an array-like of ints, or a Vector's indices)."""
    from .._device import to_numpy
    from ..core import Vector

    if isinstance(sources, Vector):
        if sources.size != n:
            raise bad_arg(DimensionMismatch, call, "sources", f"a Vector of size {n}",
                          f"size {sources.size}")
        return to_numpy(sources.to_coo()[0]).astype(np.int64)
    if isinstance(sources, (int, np.integer)) and not isinstance(sources, (bool, np.bool_)):
        sources = [sources]
    try:
        arr = np.asarray(sources)
    except Exception:  # pragma: no cover - numpy accepts nearly anything
        arr = None
    if arr is None or arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise bad_arg(InvalidObject, call, "sources", "a 1-D array of vertex ids (int)",
                      type(sources).__name__ if arr is None else f"dtype {arr.dtype}, "
                      f"shape {arr.shape}")
    arr = arr.astype(np.int64)
    if arr.size and arr.min() < 0:
        raise bad_arg(InvalidValue, call, "sources", "vertex ids >= 0", str(int(arr.min())))
    if arr.size and arr.max() >= n:
        raise bad_arg(IndexOutOfBound, call, "sources", f"vertex ids in [0, {n})",
                      str(int(arr.max())))
    if np.unique(arr).size != arr.size:
        raise bad_arg(InvalidValue, call, "sources", "distinct vertex ids", "duplicates")
    return arr


def _scale(n: int, k: int | None, normalized: bool, directed: bool):
    """NetworkX's ``_rescale`` (endpoints excluded): (scale of sources, of the others)."""
    N = n - 1
    if N < 2:
        return 1.0, 1.0
    correction = 1 if directed else 2
    if k is None:
        s = 1.0 / (N * (N - 1)) if normalized else 1.0 / correction
        return s, s
    if normalized:
        src = 1.0 / ((k - 1) * (N - 1)) if k > 1 else math.nan
        return src, 1.0 / (k * (N - 1))
    src = N / ((k - 1) * correction) if k > 1 else math.nan
    return src, N / (k * correction)


def _level(T, keep, values, xp):
    """The ``k x n`` Matrix of ``T``'s entries where ``keep`` (``values`` their values),
    built straight from the arrays (its rows are counted, nothing is sorted)."""
    from .. import dtypes
    from ..core import Matrix
    from ..formats import CSR

    csr = T.csr()
    k, n = csr.shape
    cols = csr.indices[keep]
    rows = xp.repeat(xp.arange(k), xp.diff(csr.indptr.astype(np.int64)))[keep]
    indptr = xp.zeros(k + 1, dtype=dtypes.index_dtype(cols.shape[0]))
    if cols.shape[0]:
        xp.cumsum(bincount(rows, k), out=indptr[1:])
    return Matrix(CSR((k, n), indptr, cols, xp.ascontiguousarray(values, dtype=np.float64),
                      np.dtype(np.float64), None, csr.device)), rows, cols


def _batch(A, AT, src: np.ndarray, report, done: int, total: int):
    """Brandes dependencies of one batch, summed over its sources (a dense array).

    The products are gblas's; the batch's path counts ``Sigma``, BFS depths and
    dependencies ``Delta`` are dense ``k x n`` arrays, so that one level costs the work
    of its frontier's edges: the product runs without a mask and its entries are kept
    where the target has no depth yet (forward) or has the previous level's (backward),
    each a lookup, instead of a masked product and a write-back whose cost grows with
    every vertex reached so far.
    """
    from .._device import xp_for
    from ..core import Matrix, mxm
    from ..formats import CSR

    xp = xp_for(A.device)
    n = A.shape[0]
    k = src.size
    rows0 = xp.arange(k)
    src_d = xp.asarray(src)
    sigma = xp.zeros((k, n))
    depth = xp.full((k, n), -1, dtype=np.int32)
    sigma[rows0, src_d] = 1.0
    depth[rows0, src_d] = 0
    # F(b, s_b) = 1: one path from each source to itself
    F, _, _ = _level(_unit_rows(k, n, src, A.device), slice(None), xp.ones(k), xp)
    levels = [(F, rows0, src_d)]
    d = 0
    while True:
        d += 1
        # T = F plus.first A: paths through the frontier's out-edges
        T = mxm(F, A, "plus_first")
        Tc = T.csr()
        rows = xp.repeat(xp.arange(k), xp.diff(Tc.indptr.astype(np.int64)))
        # F = T<depth == none>: the targets reached for the first time
        new = depth[rows, Tc.indices] < 0
        F, r, c = _level(T, new, Tc.dense_values()[new], xp)
        if c.shape[0] == 0:
            break
        # Sigma<F> = F, depth<F> = d
        sigma[r, c] = F.csr().values
        depth[r, c] = d
        levels.append((F, r, c))
        report.update(done, f"sources {done:,}/{total:,}, depth {d}")
    delta = xp.zeros((k, n))
    for d in range(len(levels) - 1, 1, -1):
        L, r, c = levels[d]
        # W = (1 + Delta) ./ Sigma on level d
        Lc = L.csr()
        W = Matrix(CSR(Lc.shape, Lc.indptr, Lc.indices, (1.0 + delta[r, c]) / sigma[r, c],
                       np.dtype(np.float64), None, Lc.device))
        # T = W plus.first A': the sum of W over the successors of every vertex
        Tc = mxm(W, AT, "plus_first").csr()
        rows = xp.repeat(xp.arange(k), xp.diff(Tc.indptr.astype(np.int64)))
        cols = Tc.indices
        # Delta<depth == d-1> += T .* Sigma: the predecessors on level d-1
        on = depth[rows, cols] == d - 1
        rows, cols = rows[on], cols[on]
        delta[rows, cols] += Tc.dense_values()[on] * sigma[rows, cols]
    # c = sum over the batch's rows of Delta
    return delta.sum(axis=0)


def _unit_rows(k: int, n: int, src, device):
    """The ``k x n`` Matrix with a 1 at ``(b, src[b])``."""
    from ..core import Matrix

    return Matrix.from_coo(np.arange(k), src, np.ones(k), shape=(k, n)).to(device)


def _sample(k, seed, n: int, call: str) -> np.ndarray:
    """``k`` distinct vertices drawn as NetworkX draws them: ``seed.sample(range(n), k)``
    with Python's ``random`` (``seed`` None: the global generator; an int: a new
    ``random.Random(seed)``; a ``random.Random``: itself)."""
    import random

    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise bad_arg(InvalidValue, call, "k", "an integer number of sources",
                      type(k).__name__)
    if not 1 <= k <= n:
        raise bad_arg(InvalidValue, call, "k", f"a number of sources in [1, {n}]", str(k),
                      "Pass k=None for the exact centrality over all sources.")
    if seed is None:
        rng = random._inst  # NetworkX's create_py_random_state(None): the global one
    elif isinstance(seed, random.Random):
        rng = seed
    elif isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        rng = random.Random(int(seed))
    else:
        raise bad_arg(InvalidValue, call, "seed", "None, an int or a random.Random",
                      type(seed).__name__, "Pass an int for a reproducible sample.")
    return np.array(rng.sample(range(n), int(k)), dtype=np.int64)


def betweenness_centrality(A, sources=None, normalized: bool = True, *,
                           k: int | None = None, seed=None,
                           directed: bool | None = None, batch_size: int | None = None,
                           progress: bool = False):
    """Betweenness centrality of every vertex (shortest paths counted without weights).

    Equal to ``networkx.betweenness_centrality(G, normalized=normalized)`` with all
    sources, and, with ``sources`` given, to NetworkX's estimate from the ``k =
    len(sources)`` sampled sources (``betweenness_centrality(G, k=k)`` when it samples
    those vertices: the same sum over the sources, rescaled as NetworkX does for ``k``).
    With ``k`` (and ``seed``), the sources are drawn as NetworkX draws them, so
    ``betweenness_centrality(A, k=10, seed=7)`` equals
    ``networkx.betweenness_centrality(G, k=10, seed=7)`` for a graph ``G`` whose nodes
    are ``0 .. n-1`` in that order.

    Parameters
    ----------
    A : gblas.Matrix
        Square adjacency matrix, ``A[i, j]`` for an edge ``i -> j``; values and self loops
        are ignored.  A symmetric matrix is an undirected graph.
    sources : array_like of int or gblas.Vector, optional
        The sources (distinct vertex ids, or the entries of a Vector; at least one).
        Default: all.  An empty set is refused, as NetworkX refuses ``k=0`` (the
        estimate from no source is undefined).
    normalized : bool, default True
        Divide by the number of (source, target) pairs as NetworkX does.
    k : int, optional
        Estimate from ``k`` sources drawn at random (without ``sources``); ``k = n`` is
        the exact centrality.
    seed : None, int or random.Random, optional
        The draw of the ``k`` sources: an int makes it reproducible; None uses Python's
        global ``random`` generator, as NetworkX does (ignored without ``k``, as there).
    directed : bool, optional
        Only matters when ``normalized=False``: an undirected graph counts every pair once
        (halves the sums).  Default: undirected iff ``A``'s pattern is symmetric.
    batch_size : int, optional
        Sources per batch (each batch keeps ``batch_size x n`` path counts per BFS level).
        Default: as many as fit about 2**23 entries, at most 512.
    progress : bool, default False
        Report the progress of the batches on stderr; the final line gives the number of
        batches.

    Returns
    -------
    gblas.Vector of float64
        Dense centralities.

    Raises
    ------
    DimensionMismatch
        ``A`` is not square.
    InvalidValue, IndexOutOfBound, InvalidObject
        Bad ``sources`` (not ids, out of range, duplicates, none) or ``batch_size``.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1, 1, 2, 2, 3], [1, 0, 2, 1, 3, 2], shape=(4, 4))
    >>> gb.algorithms.betweenness_centrality(A).to_dense().round(4).tolist()
    [0.0, 0.6667, 0.6667, 0.0]
    >>> bc = gb.algorithms.betweenness_centrality(A, k=2, seed=42)   # sampled sources
    >>> bc.size, bool(bc.isequal(gb.algorithms.betweenness_centrality(A, k=2, seed=42)))
    (4, True)
    """
    from .._device import xp_for
    from ..core import Vector, apply, ewise_mult

    call = "betweenness_centrality"
    A = square_matrix(A, call)
    n = A.shape[0]
    if k is not None:
        if sources is not None:
            raise bad_arg(InvalidValue, call, "k", "None when sources are given", repr(k),
                          "Pass either k (sources drawn at random) or sources.")
        sources = _sample(k, seed, n, call)
    src = np.arange(n, dtype=np.int64) if sources is None else _sources(sources, n, call)
    if src.size == 0 and n > 0:
        # NetworkX refuses an empty sample too (betweenness_centrality(G, k=0) divides
        # by k = 0): the estimate from no source is undefined
        raise bad_arg(InvalidValue, call, "sources", "at least one source vertex",
                      "an empty set of sources",
                      "Pass sources=None for the exact centrality over all sources.")
    if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(
            batch_size, (int, np.integer)) or batch_size < 1):
        raise bad_arg(InvalidValue, call, "batch_size", "an integer >= 1", repr(batch_size))
    if not isinstance(normalized, (bool, np.bool_)):
        raise bad_arg(InvalidValue, call, "normalized", "True or False", repr(normalized))
    if n == 0:
        return Vector.from_dense(np.zeros(0)).to(A.device)
    if batch_size is None:
        batch_size = int(max(1, min(512, (1 << 23) // max(n, 1))))
    AT = A.T
    nb = 0
    bc_sum = xp_for(A.device).zeros(n)
    with Progress(call, enabled=progress) as report:
        for lo in range(0, src.size, batch_size):
            nb += 1
            # bc += the batch's dependencies
            bc_sum += _batch(A, AT, src[lo:lo + batch_size], report, lo, src.size)
        report.close(f"{nb} batches of up to {batch_size} sources")
    bc = Vector.from_dense(bc_sum)
    k = None if sources is None or src.size == n else int(src.size)
    if directed is None:
        directed = normalized or not is_symmetric(A)
    s_src, s_other = _scale(n, k, bool(normalized), bool(directed))
    if k is None:
        # bc = bc * scale
        return apply(bc, "times", right=s_src)
    scale = np.full(n, s_other)
    scale[src] = s_src
    # bc = bc .* scale: the sources and the other vertices scale differently
    return ewise_mult(bc, Vector.from_dense(scale).to(A.device), "times")
