"""Graph generators: Graph500 Kronecker (R-MAT), uniform random, and 2D grids.

The edge-list functions (``*_coo``) need only NumPy; the functions returning a
:class:`gblas.Matrix` import the core lazily, so that ``kronecker_coo`` can be used by code
that never builds a gblas object (the GPU benchmark, the anchors of the CPU benchmark).

Every generator is deterministic for a given ``seed``, whatever the number of threads:
edges are drawn in fixed-size chunks, each with its own random stream spawned from the
seed, and chunks may run on any thread.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._device import unique_sorted
from ..exceptions import InvalidValue, bad_arg

__all__ = ["kronecker_coo", "kronecker", "uniform_coo", "uniform", "grid_coo", "grid"]

#: Edges drawn per chunk: small enough that a chunk's temporaries stay in the L2/L3 cache,
#: large enough that NumPy's per-call overhead is amortized.  Fixed (not derived from the
#: thread count) so that results do not depend on the machine.
_CHUNK = 1 << 18


def _workers(n_chunks: int) -> int:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(n_chunks, cpus or 1))


def check_int(call: str, arg: str, value, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise bad_arg(InvalidValue, call, arg, "an integer", type(value).__name__)
    value = int(value)
    if value < low or (high is not None and value > high):
        rng = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise bad_arg(InvalidValue, call, arg, f"an integer {rng}", str(value))
    return value


def _rmat_chunk(bitgen: np.random.BitGenerator, count: int, scale: int,
                thresholds: tuple[np.uint32, np.uint32, np.uint32]) -> tuple[np.ndarray, ...]:
    """Draw ``count`` R-MAT edges, one quadrant choice per bit level, as uint32 ids."""
    t_a, t_ab, t_abc = thresholds
    rows = np.zeros(count, dtype=np.uint32)
    cols = np.zeros(count, dtype=np.uint32)
    quad = np.empty(count, dtype=np.uint32)
    tmp = np.empty(count, dtype=bool)
    n_raw = (count + 1) // 2
    for _ in range(scale):
        # one uniform 32-bit draw u per edge and level; the quadrant is
        # 0 (a: row 0, col 0) if u < a, 1 (b: 0, 1) if u < a+b, 2 (c: 1, 0) if u < a+b+c,
        # else 3 (d: 1, 1) -- the same distribution as Graph500's two draws per level.
        u = bitgen.random_raw(n_raw).view(np.uint32)[:count]
        np.greater_equal(u, t_a, out=tmp)
        np.copyto(quad, tmp)
        np.greater_equal(u, t_ab, out=tmp)
        quad += tmp
        np.greater_equal(u, t_abc, out=tmp)
        quad += tmp
        rows <<= 1
        rows |= quad >> 1
        cols <<= 1
        cols |= quad & 1
    return rows, cols


def kronecker_coo(
    scale: int,
    edge_factor: int = 16,
    *,
    a: float = 0.57,
    b: float = 0.19,
    c: float = 0.19,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Edge list of a Graph500 Kronecker (R-MAT) graph.

    ``2**scale`` vertices and ``edge_factor * 2**scale`` directed edges (duplicates and
    self-loops included, as Graph500 generates them).  Each edge picks, for every one of
    the ``scale`` bits of its endpoints, one quadrant of the adjacency matrix with
    probabilities ``a, b, c, d = 1 - a - b - c``; vertex labels are then randomly
    permuted, as in the Graph500 reference generator, so that ids carry no degree order.

    Parameters
    ----------
    scale : int
        log2 of the number of vertices (0 to 32).
    edge_factor : int, default 16
        Edges per vertex.
    a, b, c : float
        Quadrant probabilities (Graph500: 0.57, 0.19, 0.19).
    seed : int, default 0
        Seed; the same seed gives the same edges on any machine and thread count.

    Returns
    -------
    rows, cols : numpy.ndarray of int64
        Source and destination of every edge, ids in ``[0, 2**scale)``.

    Notes
    -----
    Vectorized NumPy, ``2**18`` edges per chunk, chunks spread over the available cores
    (NumPy releases the GIL in its loops).  Peak memory is the two int64 outputs plus the
    permutation (``8 * 2**scale`` bytes) and a few MB per thread.  Graph500 also shuffles
    the edge order; that is omitted here (edge order carries no information once the
    edges are in a sparse matrix).

    Examples
    --------
    >>> from gblas.io import kronecker_coo
    >>> rows, cols = kronecker_coo(10, 8, seed=1)
    >>> rows.shape, rows.dtype, int(max(rows.max(), cols.max())) < 2**10
    ((8192,), dtype('int64'), True)
    """
    m = _edge_count("kronecker_coo", scale, edge_factor, a, b, c)
    rows = np.empty(m, dtype=np.int64)
    cols = np.empty(m, dtype=np.int64)

    def emit(lo: int, hi: int, src: np.ndarray, dst: np.ndarray) -> None:
        rows[lo:hi] = src
        cols[lo:hi] = dst

    _kronecker_chunks(int(scale), int(edge_factor), a, b, c, seed, emit)
    return rows, cols


def _kronecker_keys(scale: int, edge_factor: int, seed: int, symmetric: bool,
                    self_loops: bool) -> np.ndarray:
    """Sorted unique linear keys ``row << scale | col`` of a Kronecker graph's edges.

    Built in one pass over the chunks (no intermediate edge list): self-loops get a
    sentinel key that sorts last and is cut off, the reverse edges of a symmetric graph
    go to the second half of the same array, then one in-place sort and a compaction.
    """
    m = _edge_count("kronecker", scale, edge_factor, 0.57, 0.19, 0.19)
    sentinel = np.iinfo(np.int64).max
    keys = np.empty(2 * m if symmetric else m, dtype=np.int64)

    def emit(lo: int, hi: int, src: np.ndarray, dst: np.ndarray) -> None:
        part = keys[lo:hi]
        np.left_shift(src, scale, out=part)
        part |= dst
        if symmetric:
            back = keys[m + lo:m + hi]
            np.left_shift(dst, scale, out=back)
            back |= src
        if not self_loops:
            loop = src == dst
            part[loop] = sentinel
            if symmetric:
                back[loop] = sentinel

    _kronecker_chunks(scale, edge_factor, 0.57, 0.19, 0.19, seed, emit)
    keys.sort()
    if keys.size and keys[-1] == sentinel:
        keys = keys[: np.searchsorted(keys, sentinel)]
    return unique_sorted(keys)


def _edge_count(call: str, scale, edge_factor, a, b, c) -> int:
    """Validate the Kronecker parameters; the number of edges to draw."""
    scale = check_int(call, "scale", scale, 0, 32)
    edge_factor = check_int(call, "edge_factor", edge_factor, 0)
    for name, p in (("a", a), ("b", b), ("c", c)):
        if isinstance(p, bool) or not isinstance(p, (float, int, np.floating)) \
                or not 0.0 <= float(p) <= 1.0:
            raise bad_arg(InvalidValue, call, name, "a probability in [0, 1]", repr(p))
    if a + b + c > 1.0 + 1e-12:
        raise bad_arg(InvalidValue, call, "a + b + c", "at most 1", f"{a + b + c:g}")
    return edge_factor << scale


def _kronecker_chunks(scale: int, edge_factor: int, a: float, b: float, c: float, seed: int,
                      emit: Callable[[int, int, np.ndarray, np.ndarray], None]) -> None:
    """Draw the edges chunk by chunk (in parallel); ``emit(lo, hi, rows, cols)`` each chunk.

    ``rows, cols`` are int64 ids after the random relabelling; ``emit`` runs on the
    worker thread and must write only its own ``[lo, hi)`` part of any shared output.
    """
    n = 1 << scale
    m = edge_factor * n
    if m == 0:
        return
    # thresholds on a uniform uint32 draw: P(u < t_a) = a, P(u < t_ab) = a + b, ...
    top = float(2**32)
    thresholds = tuple(np.uint32(min(round(p * top), 2**32 - 1))
                       for p in (a, a + b, a + b + c))
    seq = np.random.SeedSequence(seed)
    perm_seq, edge_seq = seq.spawn(2)
    perm = np.random.Generator(np.random.SFC64(perm_seq)).permutation(n).astype(np.int64)
    n_chunks = (m + _CHUNK - 1) // _CHUNK
    chunk_seqs = edge_seq.spawn(n_chunks)

    def work(k: int) -> None:
        lo = k * _CHUNK
        hi = min(m, lo + _CHUNK)
        r, c_ = _rmat_chunk(np.random.SFC64(chunk_seqs[k]), hi - lo, scale, thresholds)
        # relabel the vertices with the random permutation
        emit(lo, hi, np.take(perm, r), np.take(perm, c_))

    workers = _workers(n_chunks)
    if workers == 1:
        for k in range(n_chunks):
            work(k)
    else:
        with ThreadPoolExecutor(workers) as pool:
            for _ in pool.map(work, range(n_chunks)):
                pass


def uniform_coo(n: int, nnz: int, *, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Edge list of a uniform random (Erdős–Rényi-like) directed graph.

    ``nnz`` edges whose endpoints are drawn uniformly in ``[0, n)`` (duplicates and
    self-loops possible).

    Examples
    --------
    >>> from gblas.io import uniform_coo
    >>> r, c = uniform_coo(100, 500, seed=3)
    >>> r.shape, bool(r.max() < 100)
    ((500,), True)
    """
    call = "uniform_coo"
    n = check_int(call, "n", n, 1)
    nnz = check_int(call, "nnz", nnz, 0)
    rng = np.random.Generator(np.random.SFC64(seed))
    rows = rng.integers(0, n, nnz, dtype=np.int64)
    cols = rng.integers(0, n, nnz, dtype=np.int64)
    return rows, cols


def grid_coo(m: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Edge list of an ``m x n`` 2D grid (4-neighbour), both directions of every edge.

    Vertex ``(i, j)`` has id ``i * n + j``.  A road-network-like graph: low, uniform
    degree and a large diameter (``m + n - 2``).

    Examples
    --------
    >>> from gblas.io import grid_coo
    >>> r, c = grid_coo(2, 3)
    >>> len(r)  # 7 undirected edges, both directions
    14
    """
    call = "grid_coo"
    m = check_int(call, "m", m, 1)
    n = check_int(call, "n", n, 1)
    ids = np.arange(m * n, dtype=np.int64).reshape(m, n)
    horiz_src, horiz_dst = ids[:, :-1].ravel(), ids[:, 1:].ravel()
    vert_src, vert_dst = ids[:-1, :].ravel(), ids[1:, :].ravel()
    src = np.concatenate([horiz_src, vert_src])
    dst = np.concatenate([horiz_dst, vert_dst])
    return np.concatenate([src, dst]), np.concatenate([dst, src])


def _check_weights(call: str, weights, dtype) -> None:
    if weights not in (None, "uniform"):
        raise bad_arg(InvalidValue, call, "weights", "None or 'uniform'", repr(weights))
    if weights == "uniform" and (dtype is None or np.dtype(dtype).kind != "f"):
        raise bad_arg(InvalidValue, call, "dtype", "a float dtype with weights='uniform'",
                      repr(dtype))


def _iso_from_keys(keys: np.ndarray, n: int, dtype, symmetric: bool = False):
    """A pattern (dtype None/bool) or all-ones iso Matrix from sorted unique linear keys
    (``symmetric``: they hold both directions of every edge)."""
    from ..core import Matrix

    if n & (n - 1) == 0:  # power of two: shifts, cheaper than a division
        bits = n.bit_length() - 1
        rows, cols = keys >> bits, keys & (n - 1)
    else:
        rows, cols = np.divmod(keys, max(n, 1))
    iso = None if dtype is None or np.dtype(dtype) == np.bool_ else np.dtype(dtype).type(1)
    # keys are sorted and unique: from_coo finds nothing to sort or combine
    A = Matrix.from_coo(rows, cols, iso, shape=(n, n), dup_op="plus")
    return A._mark_symmetric() if symmetric else A


def _to_matrix(call: str, rows: np.ndarray, cols: np.ndarray, n: int, *, seed: int,
               dtype, symmetric: bool, self_loops: bool, weights: str | None):
    """Edge list -> gb.Matrix: drop self-loops, mirror, draw weights, combine duplicates."""
    from ..core import Matrix

    _check_weights(call, weights, dtype)
    n = int(n)
    if not self_loops:
        keep = rows != cols
        rows, cols = rows[keep], cols[keep]
    if weights == "uniform":
        rng = np.random.Generator(np.random.SFC64(np.random.SeedSequence([seed, 1])))
        # weights in (0, 1]: never an explicit zero
        values = (1.0 - rng.random(len(rows))).astype(dtype)
        if symmetric:
            rows, cols = np.concatenate([rows, cols]), np.concatenate([cols, rows])
            values = np.concatenate([values, values])
        # duplicates keep the lightest edge (min is symmetric-safe: both directions see
        # the same multiset of weights)
        A = Matrix.from_coo(rows, cols, values, shape=(n, n), dup_op="min", dtype=dtype)
        return A._mark_symmetric() if symmetric else A
    # pattern or iso (all ones): sort the linear keys and drop duplicates here, a plain
    # np.sort being much cheaper than the general stable argsort with value reduction
    key = rows * n
    key += cols
    if symmetric:
        key = np.concatenate([key, cols * n + rows])
    del rows, cols
    key.sort()
    return _iso_from_keys(unique_sorted(key), n, dtype, symmetric)


def kronecker(
    scale: int,
    edge_factor: int = 16,
    *,
    seed: int = 0,
    dtype: str | np.dtype | None = "float32",
    symmetric: bool = False,
    self_loops: bool = False,
    weights: str | None = None,
):
    """Graph500 Kronecker graph as a :class:`gblas.Matrix`.

    Parameters
    ----------
    scale, edge_factor, seed
        As in :func:`kronecker_coo`.
    dtype : dtype or None, default "float32"
        Value type.  ``None`` or ``bool`` gives a pattern (bool) matrix.
    symmetric : bool, default False
        Add the reverse of every edge (an undirected graph).
    self_loops : bool, default False
        Keep the self-loops the generator draws.
    weights : {None, "uniform"}
        ``None``: every entry is 1, stored as an iso matrix (duplicates collapse);
        ``"uniform"``: weights uniform in (0, 1], the lightest of duplicate edges kept.

    Returns
    -------
    gblas.Matrix
        ``2**scale x 2**scale`` adjacency matrix, ``A[i, j]`` for an edge ``i -> j``.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.io.kronecker(8, 4, seed=2, symmetric=True)
    >>> A.shape, A.dtype
    ((256, 256), dtype('float32'))
    """
    _check_weights("kronecker", weights, dtype)
    if weights is None:
        scale = check_int("kronecker", "scale", scale, 0, 31)
        keys = _kronecker_keys(scale, edge_factor, seed, symmetric, self_loops)
        return _iso_from_keys(keys, 1 << scale, dtype, symmetric)
    rows, cols = kronecker_coo(scale, edge_factor, seed=seed)
    return _to_matrix("kronecker", rows, cols, 1 << int(scale), seed=seed, dtype=dtype,
                      symmetric=symmetric, self_loops=self_loops, weights=weights)


def uniform(
    n: int,
    nnz: int,
    *,
    seed: int = 0,
    dtype: str | np.dtype | None = "float32",
    symmetric: bool = False,
    self_loops: bool = False,
    weights: str | None = None,
):
    """Uniform random graph as a :class:`gblas.Matrix` (see :func:`uniform_coo`).

    Options as in :func:`kronecker`; ``nnz`` counts the edges drawn, before duplicates and
    self-loops are removed.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.io.uniform(1000, 5000, seed=1, dtype=None)
    >>> A.shape, A.nvals <= 5000
    ((1000, 1000), True)
    """
    rows, cols = uniform_coo(n, nnz, seed=seed)
    return _to_matrix("uniform", rows, cols, int(n), seed=seed, dtype=dtype,
                      symmetric=symmetric, self_loops=self_loops, weights=weights)


def grid(
    m: int,
    n: int,
    *,
    seed: int = 0,
    dtype: str | np.dtype | None = "float32",
    weights: str | None = None,
):
    """2D grid (road-like, undirected) as a :class:`gblas.Matrix` (see :func:`grid_coo`).

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.io.grid(3, 4)
    >>> A.shape, A.nvals
    ((12, 12), 34)
    """
    rows, cols = grid_coo(m, n)
    half = len(rows) // 2
    # generate weights on one direction and mirror them, so the grid stays symmetric
    A = _to_matrix("grid", rows[:half], cols[:half], int(m) * int(n), seed=seed, dtype=dtype,
                   symmetric=True, self_loops=False, weights=weights)
    return A
