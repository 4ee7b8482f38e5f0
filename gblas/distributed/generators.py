"""A Graph500 Kronecker (R-MAT) graph generated in place on the workers: each block of the
grid draws only the edges that fall in it, so the graph never passes through the client
(a graph larger than one machine's or one GPU's memory can be built).

With a grid of powers of two, block ``(i, j)`` fixes the leading ``log2 pr`` row bits and
``log2 pc`` column bits of its edges.  The number of edges of each block is one draw of a
multinomial over the blocks (each block's probability is the product, over the fixed
levels, of the R-MAT probabilities of its bits; every block task draws the same counts
from the seed), then each block draws its edges level by level: the fixed bits are set,
a free bit is drawn conditioned on the fixed one of its level (``P(col=1 | row=0) =
b / (a + b)`` ...), and below the fixed levels both bits are drawn as in R-MAT.  The
result has the distribution of :func:`gblas.io.kronecker_coo` without its random
relabelling of the vertices (a relabelling would scatter every block's edges over all
blocks).  Each block is a task with a seed: Dask can recompute a lost block, and
``D.rebuild()`` re-runs the recipe on the workers alive.

Fixing leading bits alone gives unequal blocks: with the default initiator the vertices
whose first bit is 0 hold 76% of the entries, so on a ``(1, 2)`` grid one rank would do
three times the other's work.  Unless ``balance=False``, the vertices are cut into
``G = 2**(log2 max(pr, pc) + 4)`` groups by their leading bits and the groups are
permuted (the same permutation for rows and columns: a relabelling of the vertices) so
that every block row and block column gets the same number of groups and nearly the same
expected entries (:func:`balanced_groups`); each block is drawn as the fine blocks of its
groups, the ids relabelled on the fly.

Examples
--------
>>> p = block_probabilities(2, (2, 2), 0.57, 0.19, 0.19)
>>> [round(float(v), 2) for v in p.ravel()]
[0.57, 0.19, 0.19, 0.05]
"""

from __future__ import annotations

import functools

import numpy as np

from ..exceptions import InvalidValue, bad_arg

__all__ = ["kronecker", "block_probabilities", "kronecker_block", "balanced_groups"]

#: Groups per part beyond the grid (2**4 = 16 groups a block row / column).
BALANCE_BITS = 4


def _bits(k: int) -> int:
    return int(k).bit_length() - 1


def block_probabilities(scale: int, grid: tuple, a: float, b: float, c: float) -> np.ndarray:
    """``pr x pc`` probabilities that an R-MAT edge falls in each block."""
    pr, pc = grid
    bi, bj = _bits(pr), _bits(pc)
    d = 1.0 - a - b - c
    P = np.ones((pr, pc))
    for i in range(pr):
        for j in range(pc):
            p = 1.0
            for lvl in range(max(bi, bj)):
                rb = (i >> (bi - 1 - lvl)) & 1 if lvl < bi else None
                cb = (j >> (bj - 1 - lvl)) & 1 if lvl < bj else None
                if rb is not None and cb is not None:
                    p *= (a, b, c, d)[2 * rb + cb]
                elif rb is not None:
                    p *= (a + b) if rb == 0 else (c + d)
                else:
                    p *= (a + c) if cb == 0 else (b + d)
            P[i, j] = p
    return P


def balanced_groups(scale: int, parts: int, a: float, b: float, c: float):
    """The position of every leading-bit group of vertices after the balancing
    relabelling, or None when there is nothing to balance (one part, or no spare bits).

    ``G = 2**L`` groups (``L = log2 parts + BALANCE_BITS``, at most ``scale``); group
    ``g``'s expected share of a row's and a column's entries is the product over its bits
    of the R-MAT marginals.  Groups are dealt, heaviest first, to the lightest part that
    still has room (``G / parts`` groups each); part ``k`` takes positions
    ``[k G / parts, (k + 1) G / parts)``.

    Examples
    --------
    >>> pos = balanced_groups(10, 2, 0.57, 0.19, 0.19)
    >>> len(pos), sorted(pos.tolist()) == list(range(32))
    (32, True)
    """
    if parts <= 1:
        return None
    L = min(scale, _bits(parts) + BALANCE_BITS)
    G = 1 << L
    if G <= parts:
        return None
    d = 1.0 - a - b - c
    q = ((c + d) + (b + d)) / 2  # a bit 1: the mean of the row and column marginals
    ones = np.array([bin(g).count("1") for g in range(G)])
    mass = q ** ones * (1 - q) ** (L - ones)
    room = G // parts
    load, used = np.zeros(parts), np.zeros(parts, dtype=np.int64)
    pos = np.empty(G, dtype=np.int64)
    for g in np.argsort(-mass, kind="stable"):
        k = min((k for k in range(parts) if used[k] < room), key=lambda k: load[k])
        pos[g] = k * room + used[k]
        used[k] += 1
        load[k] += mass[g]
    return pos


def _fine_blocks(i: int, j: int, scale: int, grid: tuple, pos):
    """The fine grid and the fine blocks ``(g, h)`` that make block ``(i, j)`` (after
    the relabelling ``pos``; the block itself when ``pos`` is None)."""
    if pos is None:
        return grid, [(i, j)]
    pr, pc = grid
    G = len(pos)
    fine = (G if pr > 1 else 1, G if pc > 1 else 1)
    rows = [g for g in range(G) if pos[g] // (G // pr) == i] if pr > 1 else [0]
    cols = [h for h in range(G) if pos[h] // (G // pc) == j] if pc > 1 else [0]
    return fine, [(g, h) for g in rows for h in cols]


def _relabel(ids, scale: int, pos, xp):
    """Vertex ids with their leading-bit group moved to its balanced position."""
    if pos is None:
        return ids
    shift = np.uint64(scale - _bits(len(pos)))
    table = xp.asarray(pos.astype(np.uint64))
    return (table[(ids >> shift).astype(np.int64)] << shift) | (ids & ((np.uint64(1) << shift)
                                                                      - np.uint64(1)))


def _block_edges(i, j, scale, edge_factor, grid, seed, a, b, c, weights, pos, xp=np,
                 chunk=None):
    """Yield the relabelled ``(rows, cols, weights)`` of block ``(i, j)``, fine block by
    fine block (and chunk by chunk of ``chunk`` edges when given)."""
    fine, parts = _fine_blocks(i, j, scale, grid, pos)
    for g, h in parts:
        k = _count(g, h, scale, edge_factor, fine, seed, a, b, c)
        step = k if chunk is None else chunk
        for part, lo in enumerate(range(0, k, max(step, 1))):
            r, cc, w = _draw(g, h, scale, edge_factor, fine, seed, a, b, c, weights, xp=xp,
                             k=min(step, k - lo), part=part)
            yield _relabel(r, scale, pos, xp), _relabel(cc, scale, pos, xp), w


def kronecker_block(i: int, j: int, scale: int, edge_factor: int, grid: tuple, seed: int,
                    a: float, b: float, c: float, weights, dtype, symmetric: bool,
                    self_loops: bool, device: str, pos=None):
    """Block ``(i, j)`` of the generated graph, as a gblas Matrix (runs on a worker);
    ``pos``: the balancing relabelling (:func:`balanced_groups`) or None."""
    from ..core.matrix import Matrix

    pr, pc = grid
    n = 1 << scale
    hr, hc = n // pr, n // pc
    if device == "gpu":
        return _gpu_block(i, j, scale, edge_factor, grid, seed, a, b, c, weights, dtype,
                          symmetric, self_loops, pos=pos)
    got = list(_block_edges(i, j, scale, edge_factor, grid, seed, a, b, c, weights, pos))
    if symmetric:  # the mirror block's edges, transposed (drawn from the same seed)
        got += [(c2, r2, w2) for r2, c2, w2 in _block_edges(
            j, i, scale, edge_factor, grid, seed, a, b, c, weights, pos)]
    r = np.concatenate([e[0] for e in got]) if got else np.zeros(0, np.uint64)
    cc = np.concatenate([e[1] for e in got]) if got else np.zeros(0, np.uint64)
    w = None if weights is None else (
        np.concatenate([e[2] for e in got]) if got else np.zeros(0))
    if not self_loops:
        keep = r != cc
        r, cc = r[keep], cc[keep]
        w = None if w is None else w[keep]
    rows = (r - i * hr).astype(np.int64)
    cols = (cc - j * hc).astype(np.int64)
    if w is None:
        iso = None if dtype is None or np.dtype(dtype) == np.bool_ else np.dtype(dtype).type(1)
        M = Matrix.from_coo(rows, cols, iso, shape=(hr, hc), dup_op="any",
                            dtype=None if iso is None else dtype)
    else:
        M = Matrix.from_coo(rows, cols, w.astype(dtype), shape=(hr, hc), dup_op="min")
    return M if device == "cpu" else M.to(device)


def _count(i, j, scale, edge_factor, grid, seed, a, b, c) -> int:
    """Edges drawn in block ``(i, j)``: its share of one multinomial draw (the same in
    every block's task)."""
    return int(_counts(scale, edge_factor, tuple(grid), seed, a, b, c)[i, j])


@functools.lru_cache(maxsize=16)
def _counts(scale, edge_factor, grid, seed, a, b, c) -> np.ndarray:
    pr, pc = grid
    P = block_probabilities(scale, grid, a, b, c)
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, 0]))) \
        .multinomial(edge_factor << scale, P.ravel() / P.sum()).reshape(pr, pc)


def _draw(i, j, scale, edge_factor, grid, seed, a, b, c, weights, xp=np, k=None, part=0):
    """Row and column ids (and weights) of block ``(i, j)``'s edges (``k`` of them, the
    block's count by default; ``part`` numbers a chunk of them), with NumPy or CuPy."""
    pr, pc = grid
    bi, bj = _bits(pr), _bits(pc)
    if k is None:
        k = _count(i, j, scale, edge_factor, grid, seed, a, b, c)
    ss = np.random.SeedSequence([seed, 1, i, j, part])
    if xp is np:
        rng = np.random.Generator(np.random.PCG64(ss))
    else:
        rng = xp.random.RandomState(int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1)))
        rng.random = rng.random_sample
    rows = xp.zeros(k, dtype=np.uint64)
    cols = xp.zeros(k, dtype=np.uint64)
    d = 1.0 - a - b - c
    for lvl in range(scale):
        rb = (i >> (bi - 1 - lvl)) & 1 if lvl < bi else None
        cb = (j >> (bj - 1 - lvl)) & 1 if lvl < bj else None
        if rb is not None and cb is not None:
            rbit = xp.full(k, rb, np.uint64)
            cbit = xp.full(k, cb, np.uint64)
        elif rb is not None:
            p1 = (b / (a + b)) if rb == 0 else (d / (c + d))
            rbit = xp.full(k, rb, np.uint64)
            cbit = (rng.random(k) < p1).astype(np.uint64)
        elif cb is not None:
            p1 = (c / (a + c)) if cb == 0 else (d / (b + d))
            cbit = xp.full(k, cb, np.uint64)
            rbit = (rng.random(k) < p1).astype(np.uint64)
        else:
            u = rng.random(k)
            q = (u >= a).astype(np.uint64) + (u >= a + b) + (u >= a + b + c)
            rbit, cbit = q >> np.uint64(1), q & np.uint64(1)
        rows = (rows << np.uint64(1)) | rbit
        cols = (cols << np.uint64(1)) | cbit
    w = None if weights is None else 1.0 - rng.random(k)
    return rows, cols, w


#: Edges drawn per chunk on a GPU (bounds the temporary memory of the draw).
GPU_CHUNK = 1 << 27


def _gpu_block(i, j, scale, edge_factor, grid, seed, a, b, c, weights, dtype, symmetric,
               self_loops, xp=None, pos=None):
    """Block ``(i, j)`` drawn and assembled on this worker's GPU (CuPy): linear keys drawn
    in chunks, sorted, duplicates dropped (the first drawn weight kept), CSR built there.
    ``xp=numpy`` runs the same steps on the CPU (the tests' check of this path)."""
    if xp is None:
        import cupy as xp
    cupy = xp
    device = "cpu" if xp is np else "gpu"

    from .. import dtypes
    from ..core.matrix import Matrix
    from ..formats import CSR

    pr, pc = grid
    n = 1 << scale
    hr, hc = n // pr, n // pc
    keys, vals = [], []
    for bi_, bj_, mirror in ((i, j, False),) + (((j, i, True),) if symmetric else ()):
        for r, cc, w in _block_edges(bi_, bj_, scale, edge_factor, grid, seed, a, b, c,
                                     weights, pos, xp=cupy, chunk=GPU_CHUNK):
            if mirror:
                r, cc = cc, r
            if not self_loops:
                keep = r != cc
                r, cc = r[keep], cc[keep]
                w = None if w is None else w[keep]
            keys.append((r - np.uint64(i * hr)) * np.uint64(hc) + (cc - np.uint64(j * hc)))
            if w is not None:
                vals.append(w)
            del r, cc
    key = cupy.concatenate(keys) if keys else cupy.zeros(0, np.uint64)
    del keys
    order = cupy.argsort(key) if vals else None
    key = key[order] if order is not None else cupy.sort(key)
    first = cupy.ones(key.size, dtype=bool)
    if key.size > 1:
        first[1:] = key[1:] != key[:-1]
    key = key[first]
    values = None
    if vals:
        values = cupy.concatenate(vals)[order][first].astype(dtype)
    rows = (key // np.uint64(hc)).astype(np.int64)
    cols = (key % np.uint64(hc)).astype(dtypes.index_dtype(hc))
    del key
    indptr = cupy.searchsorted(rows, cupy.arange(hr + 1, dtype=np.int64)).astype(
        dtypes.index_dtype(cols.size))
    if values is not None:
        dt = np.dtype(dtype)
        return Matrix(CSR((hr, hc), indptr, cols, values, dt, None, device))
    if dtype is None or np.dtype(dtype) == np.bool_:
        return Matrix(CSR((hr, hc), indptr, cols, None, np.dtype(np.bool_), np.True_, device))
    dt = np.dtype(dtype)
    return Matrix(CSR((hr, hc), indptr, cols, None, dt, dt.type(1), device))


def kronecker(client, scale: int, edge_factor: int = 16, *, grid=None, seed: int = 0,
              a: float = 0.57, b: float = 0.19, c: float = 0.19, dtype=None,
              weights: str | None = None, symmetric: bool = False, self_loops: bool = False,
              device: str = "cpu", balance: bool = True, timeout: float | None = None):
    """A ``2**scale``-vertex Kronecker graph as a DistMatrix whose blocks are generated on
    the workers.

    Parameters
    ----------
    client : dask.distributed.Client
    scale, edge_factor, seed, a, b, c
        As :func:`gblas.io.kronecker_coo` (no vertex relabelling: see the module notes).
    grid : (int, int), optional
        Powers of two, at most ``2**scale`` each; default :func:`default_grid` over the
        workers for ``device`` (rounded down to powers of two).
    dtype : dtype or None
        None / bool: a pattern; else an iso matrix of ones, or with ``weights="uniform"``
        stored weights in (0, 1] (the lightest of duplicate edges kept).
    symmetric : bool
        Add the reverse of every edge (needs ``pr == pc``).
    device : {"cpu", "gpu"}
        Where the blocks live (each worker's own GPU for "gpu").
    balance : bool, default True
        Relabel the vertices by groups so that the blocks hold nearly equal entries
        (module notes); False keeps the ids of the R-MAT draw.

    Examples
    --------
    >>> kronecker.__name__
    'kronecker'
    """
    from ..io.generators import check_int
    from .grid import Grid, default_grid
    from .matrix import DEFAULT_TIMEOUT, DistMatrix, check_client, live_workers

    call = "distributed.kronecker"
    check_client(client, call)
    scale = check_int(call, "scale", scale, 1, 40)
    edge_factor = check_int(call, "edge_factor", edge_factor, 1)
    if weights not in (None, "uniform"):
        raise bad_arg(InvalidValue, call, "weights", "None or 'uniform'", repr(weights))
    if weights == "uniform" and (dtype is None or np.dtype(dtype).kind != "f"):
        raise bad_arg(InvalidValue, call, "dtype", "a float dtype with weights='uniform'",
                      repr(dtype))
    workers = live_workers(client)
    if grid is None:
        pr, pc = default_grid(len(workers), device)
        grid = (1 << _bits(pr), 1 << _bits(pc))
    g = Grid.make(1 << scale, 1 << scale, grid, workers, call)
    for k, arg in ((g.pr, "pr"), (g.pc, "pc")):
        if k & (k - 1):
            raise bad_arg(InvalidValue, call, "grid", "powers of two (the blocks fix the "
                          "leading bits of the vertex ids)", f"{arg}={k}",
                          "Use grid=(1, 2), (2, 2), (2, 4) ...")
    if symmetric and g.pr != g.pc:
        raise bad_arg(InvalidValue, call, "grid", "a square grid with symmetric=True",
                      f"grid=({g.pr}, {g.pc})")
    dt = None if dtype is None else np.dtype(dtype)
    D = DistMatrix(client, g, [], (1 << scale, 1 << scale), np.bool_ if dt is None else dt,
                   device, timeout=DEFAULT_TIMEOUT if timeout is None else float(timeout))
    D._source = ("recipe", kronecker_block, (scale, edge_factor, (g.pr, g.pc), int(seed),
                                              float(a), float(b), float(c), weights, dt,
                                              bool(symmetric), bool(self_loops), device,
                                              balanced_groups(scale, max(g.pr, g.pc), a, b, c)
                                              if balance else None))
    D._place()
    return D
