"""CPU (Numba) kernels of the grouped-rows formats: segmented CSR (and heavy/light tiles).

:class:`~gblas.formats.segmented.SegmentedCSR` (Cagra's CSR segmenting) and
:class:`~gblas.formats.heavy_light.HeavyLight` (MultiGraph's 2D tiles) store a matrix's
entries in **groups** (a segment of columns; a tile or the light tiles of a column panel),
each a CSR over only the rows with entries in the group (*local rows*) with a
local-to-global row map.  One SpMV runs in two phases:

1. **groups**: every local row folds its products (:mod:`.folds`) into one *partial*,
   written in local-row order to a buffer; masked-out rows are skipped.  The format's
   ``phase_bounds`` say which local rows run concurrently (a segment at a time, its rows
   split between the threads; or all tiles at once).
2. **merge** (Cagra's cache-aware merge; MultiGraph's per-row-panel reduction): for every
   destination block, in parallel, the partials of the groups that touch it are folded
   into the output in group order, reading the buffer slices listed for that block
   (``block_ptr`` / ``block_lo`` / ``block_hi``: Cagra's ``blockStarts`` / ``blockEnds``).

The partial buffer is kept with the format (MultiGraph's pre-allocated stream buffer).
Partials fold in group (column) order, so only the monoid's associativity is used.  The
build passes (grouping a CSR's entries) are here too, so that importing
:mod:`gblas.formats` never imports Numba.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ..registry import VecData, register
from .blocks import PULL_PARALLEL_COST, row_blocks, run_blocks, run_ranges
from .folds import KernelCache, folds
from .jitcache import jit
from .operands import BOOL_DUMMY, as_bool, matrix_values, pull_operands, uindex

__all__ = ["build_groups", "column_counts", "merge_slices", "pull", "relabel_two_runs",
           "run_grouped", "split_cost", "tile_counts"]

_U1 = np.uint64(1)


# ------------------------------------------------------------------------ build passes


@jit()
def _tile_counts(blo, bhi, bounds, indptr, indices, tile_rows, tile_cols, nrp, counts):
    """Entries per tile ``(column panel, row panel)`` of the rows of blocks [blo, bhi).

    ``indptr`` / ``indices`` are unsigned views and ``tile_cols`` a uint64 (Numba guards
    signed indices in every access).
    """
    for b in range(blo, bhi):
        for i in range(bounds[b], bounds[b + 1]):
            rp = i // tile_rows
            for k in range(np.uint64(indptr[i]), np.uint64(indptr[i + 1])):
                cp = np.int64(np.uint64(indices[k]) // tile_cols)
                counts[b, cp * nrp + rp] += 1


@jit()
def _group_pass(blo, bhi, bounds, indptr, indices, tile_rows, tile_cols, nrp, gtab, fill,
                row_cur, nnz_cur, lptr, rowmap, new_indices, take, want_take):
    """Count (``fill`` False) or place (True) the runs ``(row, column panel)``.

    Counting adds to ``row_cur[b, g]`` / ``nnz_cur[b, g]``; placing reads them as the next
    free local row / entry of group g for block b and advances them.  Index arrays are
    unsigned views, ``tile_cols`` a uint64.
    """
    for b in range(blo, bhi):
        for i in range(bounds[b], bounds[b + 1]):
            rp = i // tile_rows
            k = np.uint64(indptr[i])
            e = np.uint64(indptr[i + 1])
            while k < e:
                cp = np.uint64(indices[k]) // tile_cols
                lim = (cp + _U1) * tile_cols
                k2 = k + _U1
                while k2 < e and np.uint64(indices[k2]) < lim:
                    k2 += _U1
                g = gtab[np.int64(cp) * nrp + rp]
                cnt = np.int64(k2 - k)
                if fill:
                    r = row_cur[b, g]
                    p = nnz_cur[b, g]
                    rowmap[r] = i
                    lptr[r] = p
                    pu = np.uint64(p)
                    for t in range(k, k2):
                        new_indices[pu] = indices[t]
                        if want_take:
                            take[pu] = t
                        pu += _U1
                    row_cur[b, g] = r + 1
                    nnz_cur[b, g] = p + cnt
                else:
                    row_cur[b, g] += 1
                    nnz_cur[b, g] += cnt
                k = k2


@jit()
def _column_counts(indices, counts):
    for k in range(indices.size):
        counts[indices[k]] += 1


def column_counts(indices: np.ndarray, ncols: int) -> np.ndarray:
    """Entries per column, int64, on one thread (random increments of a table of the size
    of ``x`` are cheapest when the table is not split).

    Examples
    --------
    >>> column_counts(np.array([2, 0, 2], dtype=np.int32), 4).tolist()
    [1, 0, 2, 0]
    """
    dt = np.int32 if indices.size < 2**31 else np.int64
    counts = np.zeros(ncols, dtype=dt)
    if indices.size:
        _column_counts(uindex(indices), counts)
    return counts.astype(np.int64)


def _run(rows, bounds: np.ndarray, *args) -> None:
    """``run_blocks`` over block indices ``0 .. nblocks`` (each call gets [b, b + 1))."""
    run_blocks(rows, np.arange(bounds.size, dtype=np.int64), bounds, *args)


def tile_counts(indptr: np.ndarray, indices: np.ndarray, ncols: int, tile_rows: int,
                tile_cols: int, threads: int) -> np.ndarray:
    """Entries of every tile, shape ``(column panels, row panels)``, int64.

    Parameters
    ----------
    indptr, indices : ndarray
        CSR arrays (signed index dtypes).
    ncols : int
        Number of columns.
    tile_rows, tile_cols : int
        Tile height and width (>= 1).
    threads : int
        Row blocks for a big input.

    Examples
    --------
    >>> indptr = np.array([0, 2, 3]); indices = np.array([0, 3, 1])
    >>> tile_counts(indptr, indices, 4, 1, 2, 1).tolist()   # 2 row panels, 2 column panels
    [[1, 1], [1, 0]]
    """
    m = indptr.size - 1
    nrp = max(1, -(-m // tile_rows))
    ncp = max(1, -(-ncols // tile_cols))
    bounds = row_blocks(indptr, threads)
    counts = np.zeros((bounds.size - 1, ncp * nrp), dtype=np.int64)
    if indices.size:
        _run(_tile_counts, bounds, uindex(indptr), uindex(indices), np.int64(tile_rows),
             np.uint64(tile_cols), np.int64(nrp), counts)
    return counts.sum(axis=0).reshape(ncp, nrp)


def build_groups(indptr: np.ndarray, indices: np.ndarray, tile_rows: int, tile_cols: int,
                 gtab: np.ndarray, ngroups: int, threads: int, want_take: bool,
                 lptr_dtype, rowmap_dtype) -> dict[str, np.ndarray]:
    """Group a CSR's entries by ``gtab[column panel, row panel]`` (a group id per tile).

    Within a group, local rows are in increasing row order and entries keep their column
    order.  Every run of a row's entries in one column panel becomes one local row.

    Parameters
    ----------
    indptr, indices : ndarray
        CSR arrays (signed index dtypes, columns sorted within rows).
    tile_rows, tile_cols : int
        Row-panel height and column-panel width.
    gtab : ndarray of int64
        Group of every tile, flattened ``(column panel, row panel)``; every group id in
        ``[0, ngroups)``; tiles of a column panel never share a group with another panel.
    ngroups : int
        Number of groups.
    threads : int
        Row blocks of the passes for a big input (run in parallel).
    want_take : bool
        Also return ``take`` (old entry position of every new one) to move values.
    lptr_dtype, rowmap_dtype : dtype
        Dtypes of the local row pointers and of the row map.

    Returns
    -------
    dict
        ``group_rows`` (ngroups + 1, int64), ``lptr`` (local rows + 1), ``rowmap``,
        ``indices`` (regrouped, same dtype), ``take`` (int64, or None).

    Examples
    --------
    >>> indptr = np.array([0, 2, 3]); indices = np.array([0, 3, 1])
    >>> g = build_groups(indptr, indices, 2, 2, np.array([0, 1]), 2, 1, False,
    ...                  np.int32, np.int32)
    >>> g["group_rows"].tolist(), g["rowmap"].tolist(), g["indices"].tolist()
    ([0, 2, 3], [0, 1, 0], [0, 1, 3])
    """
    m = indptr.size - 1
    nnz = int(indices.size)
    nrp = max(1, -(-m // tile_rows))
    bounds = row_blocks(indptr, threads)
    nb = bounds.size - 1
    row_cnt = np.zeros((nb, ngroups), dtype=np.int64)
    nnz_cnt = np.zeros((nb, ngroups), dtype=np.int64)
    lptr = np.zeros(1, dtype=lptr_dtype)
    rowmap = np.zeros(1, dtype=rowmap_dtype)
    uindices = uindex(indices)
    new_indices = np.zeros(0, dtype=uindices.dtype)
    take = np.zeros(1, dtype=np.int64)
    args = (np.int64(tile_rows), np.uint64(tile_cols), np.int64(nrp), gtab)
    uptr = uindex(indptr)
    if nnz:
        _run(_group_pass, bounds, uptr, uindices, *args, False, row_cnt, nnz_cnt, lptr,
             rowmap, new_indices, take, False)
    # offsets: group-major, then block order (rows ascending within a group)
    row_start = np.zeros(nb * ngroups + 1, dtype=np.int64)
    np.cumsum(row_cnt.T.ravel(), out=row_start[1:])
    nnz_start = np.zeros(nb * ngroups + 1, dtype=np.int64)
    np.cumsum(nnz_cnt.T.ravel(), out=nnz_start[1:])
    nlocal = int(row_start[-1])
    group_rows = row_start[::nb].copy() if nb else np.zeros(ngroups + 1, np.int64)
    row_cur = np.ascontiguousarray(row_start[:-1].reshape(ngroups, nb).T)
    nnz_cur = np.ascontiguousarray(nnz_start[:-1].reshape(ngroups, nb).T)
    lptr = np.empty(nlocal + 1, dtype=lptr_dtype)
    lptr[nlocal] = nnz
    rowmap = np.empty(nlocal, dtype=rowmap_dtype)
    new_indices = np.empty(nnz, dtype=uindices.dtype)
    take = np.empty(nnz if want_take else 1, dtype=np.int64)
    if nnz:
        _run(_group_pass, bounds, uptr, uindices, *args, True, row_cur, nnz_cur, lptr,
             rowmap, new_indices, take, bool(want_take))
    return {"group_rows": group_rows, "lptr": lptr, "rowmap": rowmap,
            "indices": new_indices.view(indices.dtype), "take": take if want_take else None}


@jit()
def _relabel_two_runs(blo, bhi, bounds, indptr, indices, inv, split, out_idx, take,
                      want_take):
    """Relabel columns by ``inv`` when new ids below ``split`` and above it each keep the
    old order (frequency clustering): a stable partition of every row, no sort.  Index
    arrays are unsigned views."""
    for b in range(blo, bhi):
        for i in range(bounds[b], bounds[b + 1]):
            s = np.uint64(indptr[i])
            e = np.uint64(indptr[i + 1])
            lo = s
            hi = e
            for k in range(s, e):
                j = inv[indices[k]]
                if j < split:
                    out_idx[lo] = j
                    if want_take:
                        take[lo] = k
                    lo += _U1
                else:
                    hi -= _U1
                    out_idx[hi] = j
                    if want_take:
                        take[hi] = k
            # the second run was written backwards: reverse it
            a = lo
            z = e
            while a + _U1 < z:
                z -= _U1
                t = out_idx[a]
                out_idx[a] = out_idx[z]
                out_idx[z] = t
                if want_take:
                    u = take[a]
                    take[a] = take[z]
                    take[z] = u
                a += _U1


def relabel_two_runs(indptr: np.ndarray, indices: np.ndarray, inv: np.ndarray, split: int,
                     want_take: bool, threads: int) -> tuple[np.ndarray, np.ndarray | None]:
    """New column ids ``inv[indices]`` sorted within rows, for an ordering made of two
    increasing runs (ids below ``split``, then the rest, each in the old order).

    Returns ``(new_indices, take)``: ``take[p]`` is the old position of new entry p
    (None unless ``want_take``).

    Examples
    --------
    >>> indptr = np.array([0, 3]); indices = np.array([0, 1, 2])
    >>> inv = np.array([1, 0, 2])        # old 1 -> new 0 (the hot run), then 0, 2
    >>> idx, take = relabel_two_runs(indptr, indices, inv, 1, True, 1)
    >>> idx.tolist(), take.tolist()
    ([0, 1, 2], [1, 0, 2])
    """
    uidx = uindex(indices)
    out = np.empty(indices.size, dtype=uidx.dtype)
    take = np.empty(indices.size if want_take else 1, dtype=np.int64)
    if indices.size:
        bounds = row_blocks(indptr, threads)
        _run(_relabel_two_runs, bounds, uindex(indptr), uidx,
             inv.astype(uidx.dtype, copy=False), uidx.dtype.type(split), out, take,
             bool(want_take))
    return out.view(indices.dtype), (take if want_take else None)


@jit()
def _slices(group_rows, rowmap, block, fill, counts, lo, hi):
    """Count (``fill`` False) or emit the runs of each group's rows within one block."""
    for g in range(group_rows.size - 1):
        r = group_rows[g]
        end = group_rows[g + 1]
        while r < end:
            b = np.int64(rowmap[r]) // block
            r2 = r + 1
            while r2 < end and np.int64(rowmap[r2]) // block == b:
                r2 += 1
            if fill:
                q = counts[b]
                lo[q] = r
                hi[q] = r2
                counts[b] = q + 1
            else:
                counts[b] += 1
            r = r2


def merge_slices(group_rows: np.ndarray, rowmap: np.ndarray, block: int,
                 nrows: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cagra's ``blockStarts`` / ``blockEnds``: for each destination block, the slices of
    local rows (in group order) whose rows fall in it.

    Returns
    -------
    (block_ptr, block_lo, block_hi)
        Block b merges local rows ``[block_lo[q], block_hi[q])`` for q in
        ``[block_ptr[b], block_ptr[b + 1])``.

    Examples
    --------
    >>> ptr, lo, hi = merge_slices(np.array([0, 2, 3]), np.array([0, 3, 1]), 2, 4)
    >>> ptr.tolist(), lo.tolist(), hi.tolist()
    ([0, 2, 3], [0, 2, 1], [1, 3, 2])
    """
    nblocks = -(-nrows // block) if nrows else 0
    counts = np.zeros(nblocks + 1, dtype=np.int64)
    dummy = np.zeros(0, dtype=np.int64)
    grp = np.asarray(group_rows, dtype=np.int64)
    if rowmap.size:
        _slices(grp, rowmap, np.int64(block), False, counts, dummy, dummy)
    block_ptr = np.zeros(nblocks + 1, dtype=np.int64)
    np.cumsum(counts[:nblocks], out=block_ptr[1:])
    total = int(block_ptr[-1])
    lo = np.empty(total, dtype=np.int64)
    hi = np.empty(total, dtype=np.int64)
    if total:
        cur = block_ptr[:-1].copy()
        _slices(grp, rowmap, np.int64(block), True, cur, lo, hi)
    return block_ptr, lo, hi


def split_cost(cost_prefix: np.ndarray, parts: int) -> np.ndarray:
    """Cut ``[0, len(cost_prefix) - 1)`` into ``parts`` ranges of about equal cost.

    ``cost_prefix`` is non-decreasing (the cost before each item, then the total);
    returns ``parts + 1`` boundaries, int64.

    Examples
    --------
    >>> split_cost(np.array([0, 1, 2, 10, 11]), 2).tolist()
    [0, 3, 4]
    """
    n = cost_prefix.size - 1
    parts = max(1, int(parts))
    total = int(cost_prefix[-1]) if n >= 0 else 0
    targets = total * np.arange(parts + 1, dtype=np.int64) // parts
    b = np.searchsorted(cost_prefix, targets, side="left").astype(np.int64)
    b[0], b[-1] = 0, max(n, 0)
    return np.minimum(np.maximum.accumulate(b), max(n, 0))


# ----------------------------------------------------------------------------- kernels


def _build_grouped(semiring: Any, types: tuple):
    f = folds(semiring, types)
    fold, done, combine = f.fold, f.done, f.combine
    zero = types[2].type(0)

    @jit()
    def group_rows(lo, hi, lptr, indices, avals, iso, x, xpres, xall, rowmap, allow,
                   has_allow, part, ppres, dense_rows):
        """Partials of local rows [lo, hi) (each has at least one entry)."""
        for r in range(lo, hi):
            if has_allow and not allow[rowmap[r]]:
                ppres[r] = False
                continue
            found, acc = fold(lptr[r], lptr[r + 1], indices, avals, iso, x, xpres, xall)
            part[r] = acc
            if not dense_rows:
                ppres[r] = found

    @jit()
    def merge(blo, bhi, block_ptr, block_lo, block_hi, block, nrows, rowmap, part, ppres,
              dense_rows, out, present):
        """Fold the partials of destination blocks [blo, bhi) into ``out``."""
        for b in range(blo, bhi):
            g0 = b * block
            g1 = min(g0 + block, nrows)
            for gg in range(g0, g1):
                out[gg] = zero
                present[gg] = False
            for q in range(block_ptr[b], block_ptr[b + 1]):
                for r in range(block_lo[q], block_hi[q]):
                    if not dense_rows and not ppres[r]:
                        continue
                    g = rowmap[r]
                    seen = present[g]
                    if not (seen and done(out[g])):
                        out[g] = combine(seen, out[g], part[r])
                        present[g] = True

    return group_rows, merge


_GROUPED = KernelCache(_build_grouped)


def run_grouped(F: Any, x: VecData, allow: Any, semiring: Any, types: tuple) -> VecData:
    """Both phases over a grouped-rows format ``F`` (segmented or heavy/light).

    ``F`` provides ``shape``, ``lptr``, ``rowmap``, ``indices``, ``values`` /
    ``iso_value`` / ``dtype``, ``col_perm``, ``phase_bounds`` (one row of local-row
    boundaries per phase: the ranges of a phase run concurrently, phases one after
    another), ``block_size``, ``block_ptr`` / ``block_lo`` / ``block_hi`` and
    ``merge_bounds`` (destination blocks per thread).
    """
    R = np.dtype(types[2])
    m = int(F.shape[0])
    out, present, xv, xp, xall = pull_operands(m, x, R)
    if m == 0:
        return VecData(m, None, out, present)
    if F.col_perm is not None and F.col_perm.size:
        xv = np.take(xv, F.col_perm)
        if not xall:
            xp = np.take(xp, F.col_perm)
    has_allow = allow is not None
    dense_rows = xall and not has_allow
    nlocal = int(F.rowmap.size)
    part, ppres, release = _stream_buffer(F, R, nlocal, dense_rows)
    try:
        _phases(F, xv, xp, xall, allow, has_allow, dense_rows, part, ppres, out, present,
                semiring, types)
    finally:
        release()
    return VecData(m, None, out, present)


def _stream_buffer(F: Any, R: np.dtype, nlocal: int, dense_rows: bool):
    """The partial buffers of ``F`` (MultiGraph's pre-allocated stream buffer): allocated
    on the first call and kept with the format, so that later calls touch no new memory.
    A call that finds them in use (another thread) gets fresh ones."""
    lock = F.info.setdefault("buffer_lock", threading.Lock())
    if not lock.acquire(blocking=False):
        ppres = BOOL_DUMMY if dense_rows else np.empty(nlocal, dtype=np.bool_)
        return np.empty(nlocal, dtype=R), ppres, _no_release
    bufs = F.info.setdefault("buffers", {})
    part = bufs.get(R)
    if part is None or part.size != nlocal:
        part = bufs[R] = np.empty(nlocal, dtype=R)
    ppres = BOOL_DUMMY
    if not dense_rows:
        ppres = bufs.get("present")
        if ppres is None or ppres.size != nlocal:
            ppres = bufs["present"] = np.empty(nlocal, dtype=np.bool_)
    return part, ppres, lock.release


def _no_release() -> None:
    return None


def _phases(F, xv, xp, xall, allow, has_allow, dense_rows, part, ppres, out, present,
            semiring, types) -> None:
    m = int(F.shape[0])
    nlocal = int(F.rowmap.size)
    rows, merge = _GROUPED.get(semiring, types)
    lptr = uindex(F.lptr)
    rowmap = uindex(F.rowmap)
    avals, iso = matrix_values(F)
    big = int(F.indices.size) + nlocal >= PULL_PARALLEL_COST
    if nlocal:
        args = (lptr, uindex(F.indices), avals, iso, xv, xp, xall, rowmap, as_bool(allow),
                has_allow, part, ppres, dense_rows)
        for bounds in F.phase_bounds:
            run_ranges(rows, bounds, big, *args)
    run_ranges(merge, F.merge_bounds, big, F.block_ptr, F.block_lo, F.block_hi,
                np.int64(F.block_size), np.int64(m), rowmap, part, ppres, dense_rows, out,
                present)


@register("mxv", "segmented", "cpu", "pull")
def pull(S: Any, x: VecData, allow: Any, semiring: Any, types: tuple) -> VecData:
    """Pull SpMV over a :class:`~gblas.formats.segmented.SegmentedCSR` (same contract as
    the CSR pull kernel of :mod:`.mxv`).

    Segments run one after another, each with its local rows split between the threads
    (they share the segment's slice of ``x``), then the cache-aware merge.

    Parameters
    ----------
    S : SegmentedCSR
        The matrix; the other arguments and the result are those of
        :func:`gblas.backends.cpu.mxv.pull` (masked-out rows are skipped in every
        segment; the monoid combines the partials).

    Examples
    --------
    >>> from gblas.formats import CSR
    >>> from gblas.formats.segmented import SegmentedCSR
    >>> from gblas.semirings import semiring
    >>> A = CSR.from_coo(np.array([0, 0, 1]), np.array([0, 2, 1]),
    ...                  np.array([1.0, 2.0, 3.0]), (2, 3))
    >>> S = SegmentedCSR.from_csr(A, segment_size=1, reorder=None)   # 3 segments
    >>> s = semiring("plus_times")
    >>> x = VecData(3, None, np.array([1.0, 10.0, 100.0]))
    >>> pull(S, x, None, s, s.types(np.dtype("f8"), np.dtype("f8"))).values.tolist()
    [201.0, 30.0]
    """
    return run_grouped(S, x, allow, semiring, types)
