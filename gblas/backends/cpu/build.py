"""CPU (Numba) build passes of the formats: transpose, column counts, column segments.

Every pass is linear in the entries, runs on all threads (:func:`.blocks.row_blocks`)
and sorts nothing:

* :func:`transpose` -- the CSR of ``A^T`` by a two-pass counting scatter: per-block
  column counts, a parallel prefix sum giving each block's first output position per
  column, a scatter of the entries there.  Rows are visited in order and blocks keep their
  order within a column, so every output row comes out sorted (a stable sort by column).
* :func:`column_counts` -- entries per column, one count table per thread.
* :func:`segment_groups` -- the grouped layout of a segmented CSR (Cagra's CSR
  segmenting) in one count pass and one fill pass that also relabels the columns by a
  two-run ordering (frequency clustering) and moves the values, so that neither the
  relabelled CSR nor a permutation array is ever materialized.

Kernels take raw arrays; index arrays are read through unsigned views.

Examples
--------
>>> import numpy as np
>>> indptr = np.array([0, 2, 3, 3]); indices = np.array([0, 2, 1])
>>> ptr, idx, val = transpose(indptr, indices, np.array([1.0, 2.0, 3.0]), 3, threads=2)
>>> ptr.tolist(), idx.tolist(), val.tolist()
([0, 1, 2, 3], [0, 1, 0], [1.0, 3.0, 2.0])
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ... import dtypes
from .blocks import row_blocks
from .jitcache import jit
from .operands import uindex

__all__ = ["column_counts", "segment_groups", "transpose"]

_U1 = np.uint64(1)


def _threads() -> int:
    import numba

    return int(numba.get_num_threads())


def _count_dtype(nnz: int) -> np.dtype:
    """Unsigned dtype of counts and write positions up to ``nnz``."""
    return np.dtype(np.uint32) if nnz < 2**32 - 1 else np.dtype(np.uint64)


# -------------------------------------------------------------------- column counts


@jit(parallel=True)
def _count_columns(bounds, indptr, indices, counts):
    """``counts[b, c]``: entries of column c in the rows of block b."""
    for b in prange(bounds.size - 1):
        cnt = counts[b]
        for k in range(np.uint64(indptr[bounds[b]]), np.uint64(indptr[bounds[b + 1]])):
            cnt[indices[k]] += 1


@jit(parallel=True)
def _sum_blocks(counts, chunks, out):
    """``out[c] = sum_b counts[b, c]`` over column chunks in parallel."""
    nb = counts.shape[0]
    for t in prange(chunks.size - 1):
        for c in range(chunks[t], chunks[t + 1]):
            s = np.int64(0)
            for b in range(nb):
                s += np.int64(counts[b, c])
            out[c] = s


def _chunks(n: int, parts: int) -> np.ndarray:
    parts = max(1, min(int(parts), max(n, 1)))
    return (np.arange(parts + 1, dtype=np.int64) * n) // parts


def column_counts(indptr: np.ndarray, indices: np.ndarray, ncols: int,
                  threads: int | None = None) -> np.ndarray:
    """Entries per column of a CSR, int64, counted by all threads.

    Parameters
    ----------
    indptr, indices : ndarray
        CSR arrays (any integer dtypes, non-negative).
    ncols : int
        Number of columns.
    threads : int, optional
        Blocks of rows counted in parallel (default: Numba's threads).

    Examples
    --------
    >>> column_counts(np.array([0, 2, 3]), np.array([2, 0, 2], dtype=np.int32), 4).tolist()
    [1, 0, 2, 0]
    """
    nnz = int(indices.size)
    out = np.zeros(ncols, dtype=np.int64)
    if nnz == 0 or ncols == 0:
        return out
    threads = _threads() if threads is None else threads
    bounds = row_blocks(indptr, threads, ncols, nnz)
    counts = np.zeros((bounds.size - 1, ncols), dtype=_count_dtype(nnz))
    _count_columns(bounds, uindex(indptr), uindex(indices), counts)
    _sum_blocks(counts, _chunks(ncols, threads), out)
    return out


# ------------------------------------------------------------------------ transpose


#: Bytes of output (indices and values) per bucket of columns in the transpose's second
#: scatter: a bucket's entries are placed within a region of about this size, which
#: stays in the cache while they are.
BUCKET_BYTES = 1 << 20
#: At most this many buckets (write streams of the partition pass, per thread).
MAX_BUCKETS = 2048


def bucket_shift(ncols: int, nnz: int, entry_bytes: int) -> int:
    """log2 of the columns per bucket of :func:`transpose`.

    Examples
    --------
    >>> bucket_shift(1 << 22, 128 << 20, 12)   # 1536 MB of output in 1024 buckets
    12
    """
    want = max(1, min(MAX_BUCKETS, (nnz * entry_bytes) // BUCKET_BYTES))
    width = max(1, -(-ncols // want))
    return max(0, (width - 1).bit_length())


@jit(parallel=True)
def _bucket_count(bounds, indptr, indices, shift, counts):
    """``counts[b, u]``: entries of block b's rows in the columns of bucket u."""
    for b in prange(bounds.size - 1):
        cnt = counts[b]
        for k in range(np.uint64(indptr[bounds[b]]), np.uint64(indptr[bounds[b + 1]])):
            cnt[indices[k] >> shift] += 1


@jit(parallel=True)
def _partition(bounds, indptr, indices, values, has_values, shift, mask, cursor, out_idx,
               out_val, st_col):
    """Move every entry to its bucket's next place (``cursor[b, u]``): row id, value and
    the column's offset within the bucket (bucket-major, then block and row order)."""
    for b in prange(bounds.size - 1):
        cur = cursor[b]
        for i in range(bounds[b], bounds[b + 1]):
            for k in range(np.uint64(indptr[i]), np.uint64(indptr[i + 1])):
                c = indices[k]
                u = c >> shift
                p = cur[u]
                cur[u] = p + _U1
                out_idx[p] = i
                st_col[p] = c & mask
                if has_values:
                    out_val[p] = values[k]


@jit(parallel=True)
def _bucket_scatter(starts, width, ncols, st_col, out_idx, out_val, has_values, indptr):
    """Within every bucket's region: count its columns, write their row pointers, and
    place the region's entries (in their order: rows ascending within a column)."""
    for u in prange(starts.size - 1):
        a = starts[u]
        z = starts[u + 1]
        c0 = u * width
        w = min(width, ncols - c0)
        cur = np.zeros(w, np.uint64)
        for t in range(a, z):
            cur[st_col[t]] += _U1
        pos = np.uint64(a)
        for j in range(w):
            indptr[c0 + j] = pos
            v = cur[j]
            cur[j] = pos
            pos += v
        if z - a <= 1:
            continue
        rbuf = out_idx[a:z].copy()
        vbuf = out_val[a:z].copy() if has_values else out_val[:1]
        for t in range(a, z):
            j = st_col[t]
            p = cur[j]
            cur[j] = p + _U1
            out_idx[p] = rbuf[t - a]
            if has_values:
                out_val[p] = vbuf[t - a]


#: Below this many entries :func:`transpose` runs one sequential counting sort: the
#: bucket passes' parallel regions and extra pass cost more than they save.  On two
#: threads the sort took 0.02 / 0.19 / 0.76 / 1.41 ms against 0.23 / 1.16 / 2.66 / 4.59
#: for the buckets at 12K / 176K / 422K / 578K entries, and lost from about 2.7M on.
SERIAL_ENTRIES = 1 << 20


@jit()
def _transpose_serial(indptr, indices, values, has_values, out_ptr, out_idx, out_val):
    """Counting sort of the entries by column, rows ascending within a column."""
    m = indptr.size - 1
    ncols = out_ptr.size - 1
    for k in range(indptr[m]):
        out_ptr[indices[k] + _U1] += _U1
    for j in range(ncols):
        out_ptr[j + 1] += out_ptr[j]
    cur = out_ptr[:ncols].copy()
    for i in range(m):
        for k in range(indptr[i], indptr[i + 1]):
            c = indices[k]
            p = cur[c]
            cur[c] = p + _U1
            out_idx[p] = i
            if has_values:
                out_val[p] = values[k]


def transpose(indptr: np.ndarray, indices: np.ndarray, values: np.ndarray | None, ncols: int,
              threads: int | None = None) -> tuple:
    """The CSR of the transpose of a CSR, row ids sorted within each output row.

    Parameters
    ----------
    indptr, indices : ndarray
        CSR arrays of an ``m x ncols`` matrix (signed or unsigned integers; the indices
        need not be sorted within rows).
    values : ndarray or None
        Values (any dtype), or None for a pattern-only matrix.
    ncols : int
        Columns (the output's rows).
    threads : int, optional
        Blocks of rows (default: Numba's threads; limited so that the per-block count
        tables stay below the size of ``indices``).

    Returns
    -------
    (indptr, indices, values)
        Of the ``ncols x m`` transpose: ``indptr`` of :func:`gblas.dtypes.index_dtype`
        of the entries, ``indices`` of that of ``m``, ``values`` of the input's dtype
        (None when ``values`` is None).  Within an output row, entries are in increasing
        row order, ties (duplicates) in their input order.

    Examples
    --------
    >>> ptr, idx, val = transpose(np.array([0, 1, 3]), np.array([1, 0, 1]), None, 2)
    >>> ptr.tolist(), idx.tolist(), val is None
    ([0, 1, 3], [1, 0, 1], True)
    """
    m = int(indptr.size) - 1
    nnz = int(indices.size)
    out_ptr = np.zeros(ncols + 1, dtype=dtypes.index_dtype(nnz))
    out_idx = np.empty(nnz, dtype=dtypes.index_dtype(m))
    out_val = None if values is None else np.empty(nnz, dtype=values.dtype)
    if nnz == 0:
        return out_ptr, out_idx, out_val
    threads = _threads() if threads is None else threads
    uptr, uidx = uindex(indptr), uindex(indices)
    if nnz < SERIAL_ENTRIES or threads <= 1:
        vals = values if values is not None else np.zeros(1, np.bool_)
        ovals = out_val if out_val is not None else np.zeros(1, np.bool_)
        _transpose_serial(uptr, uidx, vals, values is not None, uindex(out_ptr),
                          uindex(out_idx), ovals)
        return out_ptr, out_idx, out_val
    bounds = row_blocks(uptr, threads, nnz=nnz)
    nb = bounds.size - 1
    shift = bucket_shift(ncols, nnz, out_idx.itemsize + (0 if values is None else
                                                         values.itemsize))
    width = 1 << shift
    nbk = -(-ncols // width)
    ut = uidx.dtype.type
    counts = np.zeros((nb, nbk), dtype=np.uint64)
    _bucket_count(bounds, uptr, uidx, ut(shift), counts)
    # bucket-major, then block order: bucket u's region is where its columns' rows go
    starts = np.zeros(nb * nbk + 1, dtype=np.uint64)
    np.cumsum(counts.T.ravel(), out=starts[1:])
    cursor = starts[:-1].reshape(nbk, nb).T.copy()
    st_col = np.empty(nnz, dtype=np.uint16 if width <= 1 << 16 else np.uint32)
    vals = np.ascontiguousarray(values) if values is not None else np.zeros(1, np.bool_)
    ovals = out_val if out_val is not None else np.zeros(1, np.bool_)
    uout = uindex(out_idx)
    _partition(bounds, uptr, uidx, vals, values is not None, ut(shift), ut(width - 1), cursor,
               uout, ovals, st_col)
    _bucket_scatter(starts[::nb].copy(), np.int64(width), np.int64(ncols), st_col, uout, ovals,
                    values is not None, uindex(out_ptr))
    out_ptr[ncols] = nnz
    return out_ptr, out_idx, out_val


# ----------------------------------------------------------------- column segments


_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_U2 = np.uint64(2)
_U4 = np.uint64(4)
_U6 = np.uint64(6)
_U56 = np.uint64(56)
_U63 = np.uint64(63)


@jit()
def _popcount(x):
    """Set bits of a uint64."""
    x = x - ((x >> _U1) & _M1)
    x = (x & _M2) + ((x >> _U2) & _M2)
    x = (x + (x >> _U4)) & _M4
    return (x * _H01) >> _U56


@jit()
def _two_run_id(tab, c, split):
    """New id of column ``c`` under a two-run relabelling kept as a rank table: word w of
    ``tab`` pairs the first-run flags of columns ``64 w ..`` (``tab[2 w]``) with the
    first-run columns before them (``tab[2 w + 1]``)."""
    c = np.uint64(c)
    w = (c >> _U6) << _U1
    bits = tab[w]
    sh = c & _U63
    r = tab[w + _U1] + _popcount(bits & ((_U1 << sh) - _U1))
    if (bits >> sh) & _U1:
        return r
    return np.uint64(split) + c - r


def two_run_table(first: np.ndarray) -> np.ndarray:
    """The rank table of a two-run relabelling (see :func:`segment_groups`): 16 bytes per
    64 columns, a sixteenth of the 4-byte table of new ids, so that it stays in the L2.

    Parameters
    ----------
    first : ndarray of bool
        Whether each column belongs to the first run (its new id is its rank among them).

    Examples
    --------
    >>> two_run_table(np.array([False, True, True])).tolist()
    [6, 0]
    """
    n = int(first.size)
    nw = -(-n // 64)
    padded = np.zeros(nw * 64, dtype=bool)
    padded[:n] = first
    words = np.packbits(padded, bitorder="little").view("<u8").astype(np.uint64)
    tab = np.empty(2 * nw, dtype=np.uint64)
    tab[0::2] = words
    cnt = np.bitwise_count(words).astype(np.uint64)
    tab[1] = 0
    np.cumsum(cnt[:-1], out=tab[3::2])
    return tab


@jit(parallel=True)
def _segment_count(bounds, indptr, indices, seg, row_cnt, nnz_cnt):
    """Local rows and entries of every (block, segment) pair; ``seg[c]``: column c's
    segment."""
    for b in prange(bounds.size - 1):
        rc = row_cnt[b]
        ec = nnz_cnt[b]
        last = np.full(rc.size, -1, np.int64)  # the row that opened the segment's local row
        for i in range(bounds[b], bounds[b + 1]):
            for k in range(np.uint64(indptr[i]), np.uint64(indptr[i + 1])):
                g = seg[indices[k]]
                if last[g] != i:
                    last[g] = i
                    rc[g] += _U1
                ec[g] += _U1


@jit(inline="always")
def _open_row(g, i, last, rcur, ecur, rowmap, lptr):
    """Start local row ``i`` of segment ``g`` unless it is open already."""
    if last[g] != i:
        last[g] = i
        r = rcur[g]
        rcur[g] = r + _U1
        rowmap[r] = i
        lptr[r] = ecur[g]


@jit(parallel=True)
def _segment_fill(bounds, indptr, indices, tab, has_perm, split, mixed, width, values,
                  has_values, maxlen, row_cur, nnz_cur, lptr, rowmap, out_idx, out_val):
    """Place every entry in its segment's next local row (opened on the row's first entry
    there), relabelled by the rank table ``tab`` (:func:`two_run_table`).

    With a permutation of two increasing runs (new ids below ``split``, then the rest),
    every segment but the one holding both runs' ids (``mixed``, -1 if none) receives
    the row's entries in increasing new ids; that one gets its ids from the second run
    after those from the first (they wait in a buffer until the row's end)."""
    for b in prange(bounds.size - 1):
        rcur = row_cur[b]
        ecur = nnz_cur[b]
        last = np.full(rcur.size, -1, np.int64)
        held_j = np.empty(maxlen, out_idx.dtype)
        held_k = np.empty(maxlen, np.uint64)
        for i in range(bounds[b], bounds[b + 1]):
            nheld = 0
            for k in range(np.uint64(indptr[i]), np.uint64(indptr[i + 1])):
                c = indices[k]
                j = _two_run_id(tab, c, split) if has_perm else np.uint64(c)
                g = np.int64(j // width)
                if g == mixed and j >= split:
                    held_j[nheld] = j
                    held_k[nheld] = k
                    nheld += 1
                    continue
                _open_row(g, i, last, rcur, ecur, rowmap, lptr)
                p = ecur[g]
                ecur[g] = p + _U1
                out_idx[p] = j
                if has_values:
                    out_val[p] = values[k]
            if nheld:
                g = mixed
                _open_row(g, i, last, rcur, ecur, rowmap, lptr)
                p = ecur[g]
                for t in range(nheld):
                    out_idx[p] = held_j[t]
                    if has_values:
                        out_val[p] = values[held_k[t]]
                    p += _U1
                ecur[g] = p


def segment_groups(indptr: np.ndarray, indices: np.ndarray, values: np.ndarray | None,
                   ncols: int, width: int, inv: np.ndarray | None = None, split: int = 0,
                   threads: int | None = None, lptr_dtype=None,
                   rowmap_dtype=None) -> dict:
    """The local rows of a CSR cut into column segments of ``width`` columns, after an
    optional relabelling of the columns.

    Parameters
    ----------
    indptr, indices : ndarray
        CSR arrays, columns ascending within rows.
    values : ndarray or None
        Values (moved with their entries), or None.
    ncols : int
        Columns.
    width : int
        Columns per segment (>= 1).
    inv : ndarray, optional
        ``inv[old column] = new column``, a permutation made of two increasing runs: the
        old columns with new ids below ``split`` in their old order, then the others in
        their old order (frequency clustering).  None: no relabelling.
    split : int
        Length of the first run.
    threads : int, optional
        Row blocks run in parallel (default: Numba's threads).
    lptr_dtype, rowmap_dtype : dtype, optional
        Dtypes of the local row pointers and of the row map (default: the smallest
        index dtype that holds the entries / the rows).

    Returns
    -------
    dict
        ``group_rows`` (segments + 1, int64), ``lptr`` (local rows + 1), ``rowmap``,
        ``indices`` (new column ids, ascending within a local row; the input's dtype),
        ``values`` (or None).  Segment ``s`` holds local rows
        ``group_rows[s]:group_rows[s + 1]`` in increasing row order.

    Examples
    --------
    >>> g = segment_groups(np.array([0, 2, 3]), np.array([0, 3, 1]), None, 4, 2)
    >>> g["group_rows"].tolist(), g["rowmap"].tolist(), g["indices"].tolist()
    ([0, 2, 3], [0, 1, 0], [0, 1, 3])
    >>> g["lptr"].tolist()
    [0, 1, 2, 3]
    """
    m = int(indptr.size) - 1
    nnz = int(indices.size)
    width = max(1, int(width))
    nseg = -(-ncols // width) if ncols else 0
    lptr_dtype = dtypes.index_dtype(nnz) if lptr_dtype is None else np.dtype(lptr_dtype)
    rowmap_dtype = (dtypes.index_dtype(max(m - 1, 0)) if rowmap_dtype is None
                    else np.dtype(rowmap_dtype))
    threads = _threads() if threads is None else threads
    uptr, uidx = uindex(indptr), uindex(indices)
    has_perm = inv is not None
    uinv = (np.ascontiguousarray(inv).astype(uidx.dtype, copy=False) if has_perm
            else np.zeros(1, uidx.dtype))
    bounds = row_blocks(uptr, threads, nnz=nnz)
    nb = bounds.size - 1
    row_cnt = np.zeros((nb, max(nseg, 1)), dtype=np.uint64)
    nnz_cnt = np.zeros((nb, max(nseg, 1)), dtype=np.uint64)
    if nnz:
        # every column's segment, in the smallest dtype (a table of 1 byte per column
        # stays in the cache better than the 4-byte relabelling)
        sdt = np.uint8 if nseg <= 1 << 8 else np.uint16 if nseg <= 1 << 16 else np.uint32
        seg = ((uinv if has_perm else np.arange(ncols, dtype=np.int64)) // width).astype(sdt)
        _segment_count(bounds, uptr, uidx, seg, row_cnt, nnz_cnt)
        del seg
    row_cnt, nnz_cnt = row_cnt[:, :nseg], nnz_cnt[:, :nseg]
    # offsets: segment-major, then block order (rows ascending within a segment)
    row_start = np.zeros(nb * nseg + 1, dtype=np.uint64)
    np.cumsum(row_cnt.T.ravel(), out=row_start[1:])
    nnz_start = np.zeros(nb * nseg + 1, dtype=np.uint64)
    np.cumsum(nnz_cnt.T.ravel(), out=nnz_start[1:])
    nlocal = int(row_start[-1])
    group_rows = (row_start[::nb].astype(np.int64) if nseg
                  else np.zeros(1, dtype=np.int64))
    lptr = np.empty(nlocal + 1, dtype=lptr_dtype)
    lptr[nlocal] = nnz
    rowmap = np.empty(nlocal, dtype=rowmap_dtype)
    out_idx = np.empty(nnz, dtype=indices.dtype)
    out_val = None if values is None else np.empty(nnz, dtype=values.dtype)
    if nnz:
        row_cur = row_start[:-1].reshape(nseg, nb).T.copy()
        nnz_cur = nnz_start[:-1].reshape(nseg, nb).T.copy()
        vals = np.ascontiguousarray(values) if values is not None else np.zeros(1, np.bool_)
        mixed = split // width if has_perm and 0 < split < ncols and split % width else -1
        maxlen = int(np.diff(uptr.astype(np.int64)).max()) if mixed >= 0 else 1
        tab = two_run_table(uinv < split) if has_perm else np.zeros(2, np.uint64)
        _segment_fill(bounds, uptr, uidx, tab, has_perm, np.uint64(split),
                      np.int64(mixed), np.uint64(width), vals, values is not None,
                      np.int64(maxlen), row_cur, nnz_cur, uindex(lptr), uindex(rowmap),
                      uindex(out_idx), out_val if out_val is not None else np.zeros(1, np.bool_))
    return {"group_rows": group_rows, "lptr": lptr, "rowmap": rowmap, "indices": out_idx,
            "values": out_val}
