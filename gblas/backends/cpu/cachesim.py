"""Numba kernels of the cache simulator behind :mod:`gblas.analysis`.

A cache hierarchy is a list of levels, each an LRU cache of ``sets x ways`` lines
(``sets == 1``: fully associative).  Every level keeps, for every *line id* of the
simulated address space (dense ids ``0 .. L-1``), a resident flag and the links of an
intrusive doubly linked LRU list of its set: a hit moves the line to the head, a miss
evicts the tail when the set is full and inserts at the head.  Every access costs O(1)
whatever the associativity (no scan of the ways, no hash table: the simulated arrays are
given dense line ids by the caller).  A miss at a level goes on to the next one and is
filled at every level it missed (non-inclusive, no back-invalidation); a miss at the
last level is a main-memory access.  Set indices are ``line mod sets``, or a
multiplicative hash of the line (the paper's "hashed set-associative" last level).

Streaming data (edge arrays, row pointers, partial buffers) bypasses the caches, as in
the cache-guided-scheduling paper's simulator ("L2 bypassing for streaming data"): each
streamed array has a one-line buffer, and an access to another line than the previous
one of that array costs one main-memory access.  A sequential scan thus costs its lines,
and a jump (a row processed out of order) starts a new line.

The walkers replay the accesses of a pull SpMV ``y = A x``: CSR rows in any order
(:func:`walk_rows`), the grouped-row formats of gblas (segmented, heavy/light:
:func:`walk_grouped`), and the two idealized cache-guided schedules (:func:`cgs_vertex`,
:func:`cgs_edge`).  Kernels take arrays only and import nothing from ``gblas.core``.

State tuple ``st`` (built by :func:`new_state`)::

    res[l, line]     int8   resident at level l (the probes of the CGS schedules)
    node[l, 2 line]  int32  previous / next line of a list level (fully associative)
    head, tail, cnt  int64  [l, 0] ends and size of a list level
    sets, ways       int64  [l]
    hashed           bool   [1]
    stats            int64  [nlev + 1, NCLASS]: accesses served by level l (row nlev:
                            main memory)
    wayarr           int64  [l, set * ways + way]: ``(stamp << 32) | line`` of a set level
    clock            int64  [1] access counter (the stamps)

A set level scans its ways (one or two lines of the host's cache); a fully associative
level of more than :data:`LIST_WAYS` lines is an intrusive doubly linked list over the
line ids (a hit moves the line to the head, a miss evicts the tail).
"""

from __future__ import annotations

import numpy as np

from .jitcache import jit

__all__ = ["NCLASS", "CLS_X", "CLS_Y", "CLS_GATHER", "NSTREAM", "new_state", "walk_rows",
           "walk_grouped", "cgs_vertex", "cgs_edge", "access", "lru_misses"]

#: Access classes of the cached (vertex) data.
CLS_X, CLS_Y, CLS_GATHER = 0, 1, 2
NCLASS = 3
#: Streams: 0 row pointers (indptr / lptr), 1 column indices, 2 values, 3 row map,
#: 4 partials written, 5 partials read, 6 permuted x written.
NSTREAM = 7

_HASH = np.uint64(0x9E3779B97F4A7C15)
_S32 = np.uint64(32)
#: Levels of one set with more ways than this are kept as LRU lists (O(1) per access);
#: others as arrays of ways scanned per access (one or two lines of the host's cache).
LIST_WAYS = 64
_SH = np.int64(32)
_LOW = np.int64(0xFFFFFFFF)
_EMPTY = np.int64(0xFFFFFFFF)  # stamp 0, no line: the smallest entry of a set


def new_state(nlines: int, sets, ways, hashed: bool = False) -> tuple:
    """A cold hierarchy over ``nlines`` line ids (see the module documentation).

    Examples
    --------
    >>> st = new_state(10, [1], [4])
    >>> st[0].shape, int(st[5][0]), int(st[6][0])
    ((1, 10), 1, 4)
    """
    sets = np.asarray(sets, dtype=np.int64)
    ways = np.asarray(ways, dtype=np.int64)
    nlev = sets.size
    n = max(int(nlines), 1)
    listed = (sets == 1) & (ways > LIST_WAYS)
    res = np.zeros((nlev, n), dtype=np.int8)
    node = np.full((nlev, 2 * n if listed.any() else 2), -1, dtype=np.int32)
    head = np.full((nlev, 1), -1, dtype=np.int64)
    tail = np.full((nlev, 1), -1, dtype=np.int64)
    cnt = np.zeros((nlev, 1), dtype=np.int64)
    slots = [0 if listed[k] else int(sets[k] * ways[k]) for k in range(nlev)]
    wayarr = np.full((nlev, max(max(slots, default=1), 1)), _EMPTY, dtype=np.int64)
    stats = np.zeros((nlev + 1, NCLASS), dtype=np.int64)
    clock = np.ones(1, dtype=np.int64)
    return (res, node, head, tail, cnt, sets, ways, np.array([bool(hashed)]), stats, wayarr,
            clock)


@jit(inline="always")
def _set_of(line, nsets, hashed):
    if nsets == 1:
        return 0
    if hashed:
        h = np.uint64(line) * _HASH
        return np.int64((h >> _S32) % np.uint64(nsets))
    return line % nsets


@jit(inline="always")
def _list_level(lv, line, res, node, head, tail, cnt, ways):
    """Fully associative LRU as an intrusive list over the line ids (``node[2 l]`` the
    previous line, ``node[2 l + 1]`` the next): ``(hit, evicted line or -1)``."""
    if res[lv, line]:
        h = head[lv, 0]
        if h != line:
            p = node[lv, 2 * line]
            n = node[lv, 2 * line + 1]
            node[lv, 2 * p + 1] = n
            if n >= 0:
                node[lv, 2 * n] = p
            else:
                tail[lv, 0] = p
            node[lv, 2 * line] = -1
            node[lv, 2 * line + 1] = h
            node[lv, 2 * h] = line
            head[lv, 0] = line
        return True, -1
    v = -1
    if cnt[lv, 0] >= ways[lv]:
        v = tail[lv, 0]
        p = node[lv, 2 * v]
        tail[lv, 0] = p
        if p >= 0:
            node[lv, 2 * p + 1] = -1
        else:
            head[lv, 0] = -1
        res[lv, v] = 0
    else:
        cnt[lv, 0] += 1
    h = head[lv, 0]
    node[lv, 2 * line] = -1
    node[lv, 2 * line + 1] = h
    if h >= 0:
        node[lv, 2 * h] = line
    else:
        tail[lv, 0] = line
    head[lv, 0] = line
    res[lv, line] = 1
    return False, v


@jit(inline="always")
def _set_level(lv, line, res, wayarr, s, w, now):
    """One set of ``w`` ways: entries ``(stamp << 32) | line``, the least recently used
    has the smallest entry (empty ways the smallest of all): ``(hit, evicted or -1)``."""
    base = s * w
    if res[lv, line]:
        for q in range(base, base + w):
            if (wayarr[lv, q] & _LOW) == line:
                wayarr[lv, q] = (now << _SH) | line
                break
        return True, -1
    lo = base
    best = wayarr[lv, base]
    for q in range(base + 1, base + w):
        if wayarr[lv, q] < best:
            best = wayarr[lv, q]
            lo = q
    v = -1
    if best != _EMPTY:
        v = best & _LOW
        res[lv, v] = 0
    wayarr[lv, lo] = (now << _SH) | line
    res[lv, line] = 1
    return False, v


@jit(inline="always")
def access(st, line, cls):
    """Access ``line``: ``(level that served it (nlev = memory), line evicted from the
    last level or -1)``; counts the access in ``stats[level, cls]``."""
    res, node, head, tail, cnt, sets, ways, hashed, stats, wayarr, clock = st
    nlev = sets.size
    now = clock[0]
    clock[0] = now + 1
    ev = -1
    for lv in range(nlev):
        if sets[lv] == 1 and ways[lv] > LIST_WAYS:
            hit, v = _list_level(lv, line, res, node, head, tail, cnt, ways)
        else:
            hit, v = _set_level(lv, line, res, wayarr, _set_of(line, sets[lv], hashed[0]),
                                ways[lv], now)
        if hit:
            stats[lv, cls] += 1
            return lv, ev
        if lv == nlev - 1:
            ev = v
    stats[nlev, cls] += 1
    return nlev, ev


@jit(inline="always")
def _stream(streams, a, k, nbytes, line):
    """Element ``k`` (``nbytes`` each) of streamed array ``a``: a new line costs one
    main-memory access (``streams[a, 1]``)."""
    ln = (k * nbytes) // line
    if ln != streams[a, 0]:
        streams[a, 0] = ln
        streams[a, 1] += 1


@jit()
def walk_rows(st, streams, order, indptr, indices, col_pos, has_col_pos, row_pos, has_row_pos,
              xbase, ybase, xb, yb, ib, vb, pb, line):
    """Pull SpMV over CSR rows in ``order``: per row its pointers, then per entry the
    index, the value and ``x`` (at ``col_pos[j]``), then ``y`` (at ``row_pos[i]``)."""
    for t in range(order.size):
        i = order[t]
        _stream(streams, 0, i, pb, line)
        _stream(streams, 0, i + 1, pb, line)
        for k in range(indptr[i], indptr[i + 1]):
            _stream(streams, 1, k, ib, line)
            if vb > 0:
                _stream(streams, 2, k, vb, line)
            j = indices[k]
            if has_col_pos:
                j = col_pos[j]
            access(st, xbase + (j * xb) // line, 0)
        r = row_pos[i] if has_row_pos else i
        access(st, ybase + (r * yb) // line, 1)


@jit()
def walk_grouped(st, streams, lptr, indices, rowmap, block_ptr, block_lo, block_hi, block,
                 nrows, col_perm, has_perm, xbase, x2base, ybase, xb, yb, ib, vb, pb, rb,
                 line):
    """Pull SpMV over a grouped-rows format (segmented CSR, heavy/light): the gather
    ``x' = x[col_perm]`` when relabelled, the partial of every local row (phase 1), then
    the merge per block of destination rows (phase 2)."""
    if has_perm:
        for j in range(col_perm.size):
            access(st, xbase + (col_perm[j] * xb) // line, 2)
            _stream(streams, 6, j, xb, line)
    xs = x2base if has_perm else xbase
    nl = rowmap.size
    for r in range(nl):
        _stream(streams, 0, r + 1, pb, line)
        for k in range(lptr[r], lptr[r + 1]):
            _stream(streams, 1, k, ib, line)
            if vb > 0:
                _stream(streams, 2, k, vb, line)
            access(st, xs + (indices[k] * xb) // line, 0)
        _stream(streams, 4, r, yb, line)
    nb = block_ptr.size - 1
    for b in range(nb):
        g0 = b * block
        g1 = min(g0 + block, nrows)
        for g in range(g0, g1):
            access(st, ybase + (g * yb) // line, 1)
        for q in range(block_ptr[b], block_ptr[b + 1]):
            for r in range(block_lo[q], block_hi[q]):
                _stream(streams, 5, r, yb, line)
                _stream(streams, 3, r, rb, line)
                access(st, ybase + (rowmap[r] * yb) // line, 1)


def lru_misses(lines: np.ndarray, capacity: int) -> int:
    """Misses of a fully associative LRU cache of ``capacity`` lines over the trace
    ``lines`` (dense ids), O(1) per access.

    Examples
    --------
    >>> int(lru_misses(np.array([0, 1, 2, 0, 3, 0, 1]), 2))
    6
    """
    lines = np.ascontiguousarray(lines, dtype=np.int64)
    n = int(lines.max()) + 1 if lines.size else 1
    st = new_state(n, [1], [max(int(capacity), 1)])
    _replay(st, lines)
    return int(st[8][1, 0])


@jit()
def _replay(st, lines):
    for k in range(lines.size):
        access(st, lines[k], 0)


# ------------------------------------------------------------------ bucket queues
# Items 0..n-1 in buckets 0..K: intrusive doubly linked lists, O(1) moves; ``where[i]``
# is the item's bucket, -1 when out.


@jit()
def _bq_out(i, where, bh, bn, bp):
    b = where[i]
    if b < 0:
        return
    p = bp[i]
    n = bn[i]
    if p >= 0:
        bn[p] = n
    else:
        bh[b] = n
    if n >= 0:
        bp[n] = p
    where[i] = -1


@jit()
def _bq_in(i, b, where, bh, bn, bp):
    h = bh[b]
    bp[i] = -1
    bn[i] = h
    if h >= 0:
        bp[h] = i
    bh[b] = i
    where[i] = b


# ------------------------------------------------------------------------ CGS-V


@jit()
def _cgsv_event(ln, sign, lr_ptr, lr_len, lr_row, lr_cnt, done, hit, deg, K, where, bh, bn,
                bp, top):
    """Line ``ln`` of x entered (+1) or left (-1) the last level: the hit counts of the
    pending rows that read it change (their list compacted on the way)."""
    s = lr_ptr[ln]
    w = s
    for q in range(s, s + lr_len[ln]):
        i = lr_row[q]
        if done[i]:
            continue
        lr_row[w] = i
        lr_cnt[w] = lr_cnt[q]
        w += 1
        hit[i] += sign * lr_cnt[q]
        b = (hit[i] * K) // deg[i]
        if b != where[i]:
            _bq_out(i, where, bh, bn, bp)
            _bq_in(i, b, where, bh, bn, bp)
            if b > top[0]:
                top[0] = b
    lr_len[ln] = w - s


@jit()
def cgs_vertex(st, streams, indptr, indices, xline, nxl, lr_ptr, lr_row, lr_cnt, xbase,
               ybase, yb, ib, vb, pb, line, K):
    """CGS-V (the paper's section 3.2) for a pull SpMV: a task is a row (all its
    entries, then its ``y``); the next task is the pending row with the highest hit
    ratio (entries whose x line is in the last level / entries), kept exact by the last
    level's insertions and evictions (``lr_*``: for each x line, the rows reading it and
    how many times).  Rows without entries run last.  Returns the order of the rows."""
    m = indptr.size - 1
    res = st[0]
    last = st[5].size - 1
    deg = np.zeros(m, dtype=np.int64)
    hit = np.zeros(m, dtype=np.int64)
    done = np.zeros(m, dtype=np.bool_)
    where = np.full(m, -1, dtype=np.int64)
    bn = np.full(m, -1, dtype=np.int64)
    bp = np.full(m, -1, dtype=np.int64)
    bh = np.full(K + 1, -1, dtype=np.int64)
    lr_len = np.diff(lr_ptr)
    top = np.zeros(1, dtype=np.int64)
    order = np.empty(m, dtype=np.int64)
    pending = 0
    for i in range(m - 1, -1, -1):  # lowest ids at the heads: natural order among ties
        deg[i] = indptr[i + 1] - indptr[i]
        if deg[i] > 0:
            h = 0
            for k in range(indptr[i], indptr[i + 1]):
                if res[last, xbase + xline[indices[k]]]:
                    h += 1
            hit[i] = h
            b = (h * K) // deg[i]
            _bq_in(i, b, where, bh, bn, bp)
            if b > top[0]:
                top[0] = b
            pending += 1
    t = 0
    while pending > 0:
        while bh[top[0]] < 0:
            top[0] -= 1
        i = bh[top[0]]
        _bq_out(i, where, bh, bn, bp)
        done[i] = True
        pending -= 1
        order[t] = i
        t += 1
        _stream(streams, 0, i, pb, line)
        _stream(streams, 0, i + 1, pb, line)
        for k in range(indptr[i], indptr[i + 1]):
            _stream(streams, 1, k, ib, line)
            if vb > 0:
                _stream(streams, 2, k, vb, line)
            ln = xline[indices[k]]
            lv, ev = access(st, xbase + ln, 0)
            if ev >= 0 and ev - xbase < nxl and ev >= xbase:
                _cgsv_event(ev - xbase, -1, lr_ptr, lr_len, lr_row, lr_cnt, done, hit, deg,
                            K, where, bh, bn, bp, top)
            if lv == last + 1:
                _cgsv_event(ln, 1, lr_ptr, lr_len, lr_row, lr_cnt, done, hit, deg, K, where,
                            bh, bn, bp, top)
        lv, ev = access(st, ybase + (i * yb) // line, 1)
        if ev >= 0 and ev - xbase < nxl and ev >= xbase:
            _cgsv_event(ev - xbase, -1, lr_ptr, lr_len, lr_row, lr_cnt, done, hit, deg, K,
                        where, bh, bn, bp, top)
    for i in range(m):
        if deg[i] == 0:
            order[t] = i
            t += 1
            _stream(streams, 0, i, pb, line)
            _stream(streams, 0, i + 1, pb, line)
            access(st, ybase + (i * yb) // line, 1)
    return order


# ------------------------------------------------------------------------ CGS-E


@jit()
def _cgse_event(ln, inserted, skip, l_ptr, l_len, l_edge, e_a, e_b, done, res, last, c1,
                where, bh, bn, bp, top, ready, nready, inr):
    """Line ``ln`` entered (``inserted``) or left the last level: the scores of the
    pending edges with an endpoint in it change.  ``c1[l]`` counts the pending edges
    whose only uncached endpoint is line ``l``; ``skip`` is a line being inserted by the
    same access, still counted as uncached."""
    s = l_ptr[ln]
    w = s
    for q in range(s, s + l_len[ln]):
        e = l_edge[q]
        if done[e]:
            continue
        l_edge[w] = e
        w += 1
        o = e_b[e] if e_a[e] == ln else e_a[e]
        if o == ln:  # both endpoints in this line (a y line and an x line never are)
            continue
        o_in = res[last, o] != 0 and o != skip
        if inserted:
            if o_in:
                if not inr[e]:
                    inr[e] = True
                    ready[nready[0]] = e
                    nready[0] += 1
            else:
                c1[o] += 1
                _cgse_bucket(o, c1, where, bh, bn, bp, top)
        else:
            if o_in:
                c1[ln] += 1
            else:
                c1[o] -= 1
                _cgse_bucket(o, c1, where, bh, bn, bp, top)
    l_len[ln] = w - s
    if inserted:
        c1[ln] = 0
        _bq_out(ln, where, bh, bn, bp)
    else:
        _cgse_bucket(ln, c1, where, bh, bn, bp, top)


@jit()
def _cgse_bucket(o, c1, where, bh, bn, bp, top):
    b = c1[o]
    if b >= bh.size:
        b = bh.size - 1
    if b != where[o]:
        _bq_out(o, where, bh, bn, bp)
        if b > 0:
            _bq_in(o, b, where, bh, bn, bp)
            if b > top[0]:
                top[0] = b


@jit()
def _cgse_access(st, ln, cls, l_ptr, l_len, l_edge, e_a, e_b, done, c1, where, bh, bn, bp,
                 top, ready, nready, inr):
    res = st[0]
    last = st[5].size - 1
    lv, ev = access(st, ln, cls)
    ins = lv == last + 1
    if ev >= 0:
        _cgse_event(ev, False, ln if ins else -1, l_ptr, l_len, l_edge, e_a, e_b, done, res,
                    last, c1, where, bh, bn, bp, top, ready, nready, inr)
    if ins:
        _cgse_event(ln, True, -1, l_ptr, l_len, l_edge, e_a, e_b, done, res, last, c1, where,
                    bh, bn, bp, top, ready, nready, inr)


@jit()
def cgs_edge(st, streams, e_x, e_y, e_row, l_ptr, l_edge, nlines, ib, vb, pb, line, maxb):
    """CGS-E (the paper's section 3.3) for a pull SpMV: a task is an entry ``(i, j)``
    (read the x line ``e_x``, update the y line ``e_y``).  Entries whose two lines are in
    the last level run first; otherwise the uncached line that completes the most pending
    entries (score 1 -> 2) is brought in by one of its entries; with no score-1 entry,
    the next pending entry in storage order runs.  ``l_*``: for each line, its entries.
    Entries are streamed as they run (a jump starts a new line of the edge arrays); the
    task carries its row, so no row pointer is read (the worklist is free, as in the
    paper's limit study)."""
    nnz = e_x.size
    res = st[0]
    last = st[5].size - 1
    done = np.zeros(nnz, dtype=np.bool_)
    l_len = np.diff(l_ptr)
    c1 = np.zeros(nlines, dtype=np.int64)
    where = np.full(nlines, -1, dtype=np.int64)
    bn = np.full(nlines, -1, dtype=np.int64)
    bp = np.full(nlines, -1, dtype=np.int64)
    bh = np.full(maxb + 1, -1, dtype=np.int64)
    top = np.zeros(1, dtype=np.int64)
    ready = np.empty(max(nnz, 1), dtype=np.int64)
    nready = np.zeros(1, dtype=np.int64)
    inr = np.zeros(nnz, dtype=np.bool_)
    scan = 0
    left = nnz
    while left > 0:
        e = -1
        while nready[0] > 0:
            c = ready[nready[0] - 1]
            nready[0] -= 1
            inr[c] = False
            if not done[c] and res[last, e_x[c]] and res[last, e_y[c]]:
                e = c
                break
        if e < 0:
            while top[0] > 0 and bh[top[0]] < 0:
                top[0] -= 1
            if top[0] > 0:
                ln = bh[top[0]]
                s = l_ptr[ln]
                for q in range(s, s + l_len[ln]):
                    c = l_edge[q]
                    if done[c]:
                        continue
                    o = e_y[c] if e_x[c] == ln else e_x[c]
                    if res[last, o]:
                        e = c
                        break
                if e < 0:  # stale count: drop the line and look again
                    c1[ln] = 0
                    _bq_out(ln, where, bh, bn, bp)
                    continue
        if e < 0:
            while done[scan]:
                scan += 1
            e = scan
        done[e] = True
        left -= 1
        _stream(streams, 1, e, ib, line)
        if vb > 0:
            _stream(streams, 2, e, vb, line)
        _cgse_access(st, e_x[e], 0, l_ptr, l_len, l_edge, e_x, e_y, done, c1, where, bh, bn,
                     bp, top, ready, nready, inr)
        _cgse_access(st, e_y[e], 1, l_ptr, l_len, l_edge, e_x, e_y, done, c1, where, bh, bn,
                     bp, top, ready, nready, inr)
    return done.size


# ------------------------------------------------------------------ sampled replay


@jit()
def sampled_rows(st, seen, indptr, indices, r0, r1, warm, xb, yb, ybase, line, keep):
    """Spatially sampled replay of CSR rows ``[r0, r1)`` (SHARDS, Waldspurger et al.,
    FAST'15): only the lines whose hash falls below ``keep`` (of 4096) go through the
    cache, which the caller scaled by the same rate.  Rows before ``warm`` only warm the
    cache.  Returns ``(x accesses, x misses, x first touches)`` sampled after the warm-up
    (``seen`` marks the lines touched so far: a first touch has no reuse distance to
    judge by)."""
    nlev = st[5].size
    xa = 0
    xm = 0
    xc = 0
    for i in range(r0, r1):
        counted = i >= warm
        for k in range(indptr[i], indptr[i + 1]):
            ln = (indices[k] * xb) // line
            h = (np.uint64(ln) * _HASH) >> _S32
            if (h & np.uint64(4095)) < keep:
                lv, ev = access(st, ln, 0)
                if counted:
                    xa += 1
                    if lv == nlev:
                        xm += 1
                        if not seen[ln]:
                            xc += 1
                seen[ln] = 1
        ln = ybase + (i * yb) // line
        h = (np.uint64(ln) * _HASH) >> _S32
        if (h & np.uint64(4095)) < keep:
            access(st, ln, 1)
    return xa, xm, xc
