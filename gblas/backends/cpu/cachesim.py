"""Numba kernels of the cache simulator behind :mod:`gblas.analysis`.

A cache hierarchy is a list of levels, each an LRU cache of ``sets x ways`` lines
(``sets == 1``: fully associative) over *line ids* (dense ids ``0 .. L-1`` the caller
gives the simulated arrays).  A miss at a level goes on to the next one and is filled at
every level it missed (non-inclusive, no back-invalidation); a miss at the last level is
a main-memory access.  Set indices are ``line mod sets``, or a multiplicative hash of the
line (the paper's "hashed set-associative" last level).  A set level keeps its ways as
``(stamp << 32) | line`` entries (one or two lines of the host's cache, scanned once per
access for the line and for the least recently used); a fully associative level of more
than :data:`LIST_WAYS` lines is an intrusive doubly linked LRU list over the line ids
(O(1) per access).

Streaming data (edge arrays, row pointers, partial buffers) bypasses the caches, as in
the cache-guided-scheduling paper's simulator ("L2 bypassing for streaming data"): each
streamed array has a one-line buffer, and an access to another line than the previous
one of that array costs one main-memory access.  A sequential scan thus costs its lines,
and a jump (a row processed out of order) starts a new line; a row's run of entries is
counted in O(1).

The walkers replay the accesses of a pull SpMV ``y = A x``: CSR rows in any order
(:func:`walk_rows`), the grouped-row formats of gblas (segmented, heavy/light:
:func:`walk_grouped`); the two idealized cache-guided schedules are in
:mod:`gblas.backends.cpu.cachesim_cgs`.  Kernels take arrays only and import nothing
from ``gblas.core``.

Two ways to run an access, with identical counts (the tests compare both with
:func:`access_plain`, the simulator as first written, and with an ``OrderedDict`` LRU):

* :func:`access`, one access through every level, returning the level that served it and
  the line the last level evicted (the CGS schedules react to both);
* the buffered replay of the walkers (:func:`flush`): accesses are written to a buffer,
  and a full buffer goes through the hierarchy one level at a time, each pass keeping
  only its own level's ways in the host's caches and prefetching the set of the access
  :data:`PF_AHEAD` ahead.  A level sees the same accesses in the same order either way
  (nothing below a level changes what it sees).

Both count a repeat of the previous access as a first-level hit without touching the
level (the line is already the most recently used of its set), and stamp a level's
entries with that level's own clock (the order within a set is the order in time).

State tuple ``st`` (built by :func:`new_state`)::

    res[line, l]     int8   resident in list level l (and the plain path's flags)
    node[l, 2 line]  int32  previous / next line of a list level (fully associative)
    head, tail, cnt  int64  [l, 0] ends and size of a list level
    sets, ways       int64  [l]
    hashed           bool   [1]
    stats            int64  [nlev + 1, NCLASS]: accesses served by level l (row nlev:
                            main memory)
    wayarr           int64  [l, set * ways + way]: ``(stamp << 32) | line`` of a set level
    clock            int64  [nlev + 1]: per level the last stamp; [nlev] the line of the
                            previous access
"""

from __future__ import annotations

import numpy as np

from .jitcache import jit
from .prefetch import prefetcher

__all__ = ["NCLASS", "CLS_X", "CLS_Y", "CLS_GATHER", "NSTREAM", "new_state", "walk_rows",
           "walk_grouped", "access", "access_plain", "flush",
           "replay", "resident", "stream", "lru_misses", "sampled_x_miss"]

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
#: Accesses per buffer of the buffered replay, and how far ahead a level's pass
#: prefetches the set of an access.
TRACE_CHUNK = 1 << 15
PF_AHEAD = 16
_pf = prefetcher()


def new_state(nlines: int, sets, ways, hashed: bool = False) -> tuple:
    """A cold hierarchy over ``nlines`` line ids (see the module documentation).

    Examples
    --------
    >>> st = new_state(10, [1], [4])
    >>> st[0].shape, int(st[5][0]), int(st[6][0])
    ((10, 1), 1, 4)
    """
    sets = np.asarray(sets, dtype=np.int64)
    ways = np.asarray(ways, dtype=np.int64)
    nlev = sets.size
    n = max(int(nlines), 1)
    listed = (sets == 1) & (ways > LIST_WAYS)
    res = np.zeros((n, nlev), dtype=np.int8)
    node = np.full((nlev, 2 * n if listed.any() else 2), -1, dtype=np.int32)
    head = np.full((nlev, 1), -1, dtype=np.int64)
    tail = np.full((nlev, 1), -1, dtype=np.int64)
    cnt = np.zeros((nlev, 1), dtype=np.int64)
    slots = [0 if listed[k] else int(sets[k] * ways[k]) for k in range(nlev)]
    wayarr = np.full((nlev, max(max(slots, default=1), 1)), _EMPTY, dtype=np.int64)
    stats = np.zeros((nlev + 1, NCLASS), dtype=np.int64)
    clock = np.zeros(nlev + 1, dtype=np.int64)
    clock[nlev] = -1
    return (res, node, head, tail, cnt, sets, ways, np.array([bool(hashed)]), stats, wayarr,
            clock)


@jit(inline="always")
def _set_of(line, nsets, hashed):
    if nsets == 1:
        return 0
    if hashed:
        h = (np.uint64(line) * _HASH) >> _S32
        if (nsets & (nsets - 1)) == 0:  # a power of two: the same set as the modulo
            return np.int64(h & np.uint64(nsets - 1))
        return np.int64(h % np.uint64(nsets))
    if (nsets & (nsets - 1)) == 0:
        return line & (nsets - 1)
    return line % nsets


@jit(inline="always")
def _list_level(lv, line, res, node, head, tail, cnt, ways):
    """Fully associative LRU as an intrusive list over the line ids (``node[2 l]`` the
    previous line, ``node[2 l + 1]`` the next): ``(hit, evicted line or -1)``."""
    if res[line, lv]:
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
        res[v, lv] = 0
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
    res[line, lv] = 1
    return False, v


@jit(inline="always")
def _set_level(lv, line, wayarr, s, w, clock):
    """One set of ``w`` ways: entries ``(stamp << 32) | line``, the least recently used
    has the smallest entry (empty ways the smallest of all): ``(hit, evicted or -1)``.
    One scan looks for the line and for the smallest entry; ``clock[lv]`` stamps the
    accesses that reach this level (the order within a set is the order of time)."""
    base = s * w
    now = clock[lv] + 1
    clock[lv] = now
    lo = base
    best = wayarr[lv, base]
    for q in range(base, base + w):
        e = wayarr[lv, q]
        if (e & _LOW) == line:
            wayarr[lv, q] = (now << _SH) | line
            return True, -1
        if e < best:
            best = e
            lo = q
    wayarr[lv, lo] = (now << _SH) | line
    return False, (best & _LOW) if best != _EMPTY else -1


@jit(inline="always")
def resident(st, line, lv):
    """Whether ``line`` is in level ``lv`` (the probes of the CGS schedules)."""
    res, sets, ways, hashed, wayarr = st[0], st[5], st[6], st[7], st[9]
    if sets[lv] == 1 and ways[lv] > LIST_WAYS:
        return res[line, lv] != 0
    base = _set_of(line, sets[lv], hashed[0]) * ways[lv]
    for q in range(base, base + ways[lv]):
        if (wayarr[lv, q] & _LOW) == line:
            return True
    return False


@jit(inline="always")
def access(st, line, cls):
    """Access ``line``: ``(level that served it (nlev = memory), line evicted from the
    last level or -1)``; counts the access in ``stats[level, cls]``.

    A repeat of the previous access is a first-level hit that changes no LRU order (the
    line is already the most recently used of its set): only counted."""
    res, node, head, tail, cnt, sets, ways, hashed, stats, wayarr, clock = st
    nlev = sets.size
    if line == clock[nlev]:
        stats[0, cls] += 1
        return 0, -1
    clock[nlev] = line
    ev = -1
    for lv in range(nlev):
        if sets[lv] == 1 and ways[lv] > LIST_WAYS:
            hit, v = _list_level(lv, line, res, node, head, tail, cnt, ways)
        else:
            hit, v = _set_level(lv, line, wayarr, _set_of(line, sets[lv], hashed[0]),
                                ways[lv], clock)
        if hit:
            stats[lv, cls] += 1
            return lv, ev
        if lv == nlev - 1:
            ev = v
    stats[nlev, cls] += 1
    return nlev, ev


@jit(inline="always")
def _plain_set_level(lv, line, res, wayarr, s, w, now):
    """The plain path of a set level: ``res`` an exact resident flag, cleared on
    eviction; a hit scans the ways for the line, a miss scans them again for the least
    recently used."""
    base = s * w
    if res[line, lv]:
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
        res[v, lv] = 0
    wayarr[lv, lo] = (now << _SH) | line
    res[line, lv] = 1
    return False, v


@jit(inline="always")
def access_plain(st, line, cls):
    """:func:`access` without its shortcuts, on a state of its own: one clock for all
    levels, every access looked up level by level, exact resident flags, the ways scanned
    for a hit and again for a victim (the simulator as first written: the reference the
    tests compare the fast paths with)."""
    res, node, head, tail, cnt, sets, ways, hashed, stats, wayarr, clock = st
    nlev = sets.size
    now = clock[0] + 1
    clock[0] = now
    ev = -1
    for lv in range(nlev):
        if sets[lv] == 1 and ways[lv] > LIST_WAYS:
            hit, v = _list_level(lv, line, res, node, head, tail, cnt, ways)
        else:
            hit, v = _plain_set_level(lv, line, res, wayarr,
                                      _set_of(line, sets[lv], hashed[0]), ways[lv], now)
        if hit:
            stats[lv, cls] += 1
            return lv, ev
        if lv == nlev - 1:
            ev = v
    stats[nlev, cls] += 1
    return nlev, ev


# ------------------------------------------------------------------ buffered replay
# The walkers of a product write its accesses (``line * 4 + class``) into a buffer; a
# full buffer goes through the hierarchy one level at a time: a level's pass keeps only
# its own ways in the host's caches, prefetches the set of the access PF_AHEAD ahead
# (the buffer tells which), and hands its misses to the next level.  A level sees the
# same accesses in the same order as under :func:`access` (the hierarchy is
# non-inclusive: a level never reacts to the levels below it), so the counts are
# identical.


@jit()
def _pass_set(lv, ns, w, hs, wayarr, clock, stats, nlev, src, n, dst, first):
    """One set level (``ns`` sets of ``w`` ways) over ``src[:n]``: hits counted, misses
    copied to ``dst``."""
    width = wayarr.shape[1]
    now = clock[lv]
    prev = clock[nlev] if first else -1
    out = 0
    for t in range(n):
        if t + PF_AHEAD < n:
            _pf(wayarr, lv * width + _set_of(src[t + PF_AHEAD] >> 2, ns, hs) * w)
        a = src[t]
        line = a >> 2
        if line == prev:  # the previous access again: a first-level hit, order unchanged
            stats[0, a & 3] += 1
            continue
        if first:
            prev = line
        base = _set_of(line, ns, hs) * w
        now += 1
        lo = base
        best = wayarr[lv, base]
        hit = False
        for q in range(base, base + w):
            e = wayarr[lv, q]
            if (e & _LOW) == line:
                wayarr[lv, q] = (now << _SH) | line
                hit = True
                break
            if e < best:
                best = e
                lo = q
        if hit:
            stats[lv, a & 3] += 1
        else:
            wayarr[lv, lo] = (now << _SH) | line
            dst[out] = a
            out += 1
    clock[lv] = now
    if first:
        clock[nlev] = prev
    return out


@jit(inline="always")
def _pass_list(st, lv, src, n, dst, first):
    """One fully associative list level over ``src[:n]``."""
    res, node, head, tail, cnt, ways, stats, clock = (st[0], st[1], st[2], st[3], st[4],
                                                      st[6], st[8], st[10])
    nlev = ways.size
    prev = clock[nlev] if first else -1
    out = 0
    width = node.shape[1]
    base = lv * width
    for t in range(n):
        # prefetch in two steps: the flag and links of the line 2 PF_AHEAD ahead, then the
        # links of its list neighbours (read now, so perhaps stale: only a hint)
        if t + 2 * PF_AHEAD < n:
            far = src[t + 2 * PF_AHEAD] >> 2
            _pf(res, far * nlev + lv)
            _pf(node, base + 2 * far)
        if t + PF_AHEAD < n:
            near = src[t + PF_AHEAD] >> 2
            if res[near, lv]:
                p = node[lv, 2 * near]
                q = node[lv, 2 * near + 1]
                if p >= 0:
                    _pf(node, base + 2 * p)
                if q >= 0:
                    _pf(node, base + 2 * q)
        a = src[t]
        line = a >> 2
        if line == prev:
            stats[0, a & 3] += 1
            continue
        if first:
            prev = line
        hit, v = _list_level(lv, line, res, node, head, tail, cnt, ways)
        if hit:
            stats[lv, a & 3] += 1
        else:
            dst[out] = a
            out += 1
    if first:
        clock[nlev] = prev
    return out


@jit()
def flush(st, buf, tmp, n):
    """Run the accesses ``buf[:n]`` through the hierarchy, level by level (``tmp``:
    scratch of the same size); returns 0, the buffer's new fill."""
    sets, ways, stats = st[5], st[6], st[8]
    nlev = sets.size
    src = buf
    dst = tmp
    for lv in range(nlev):
        if n == 0:
            break
        if sets[lv] == 1 and ways[lv] > LIST_WAYS:
            n = _pass_list(st, lv, src, n, dst, lv == 0)
        else:
            n = _pass_set(lv, sets[lv], ways[lv], st[7][0], st[9], st[10], stats, nlev, src,
                          n, dst, lv == 0)
        src, dst = dst, src
    for t in range(n):
        stats[nlev, src[t] & 3] += 1
    return 0


@jit(inline="always")
def stream(streams, a, k, nbytes, line):
    """Element ``k`` (``nbytes`` each) of streamed array ``a``: a new line costs one
    main-memory access (``streams[a, 1]``)."""
    ln = (k * nbytes) // line
    if ln != streams[a, 0]:
        streams[a, 0] = ln
        streams[a, 1] += 1


@jit(inline="always")
def _stream_run(streams, a, k0, k1, nbytes, line):
    """Elements ``k0 .. k1 - 1`` of streamed array ``a`` in order: as many
    :func:`stream` calls, in O(1)."""
    if k1 > k0:
        f = (k0 * nbytes) // line
        g = ((k1 - 1) * nbytes) // line
        streams[a, 1] += g - f + (0 if f == streams[a, 0] else 1)
        streams[a, 0] = g


@jit(inline="always")
def _shift(nbytes, line):
    """``s`` with ``(j * nbytes) // line == j >> s`` for every ``j >= 0``, or -1."""
    if nbytes <= 0 or line % nbytes != 0:
        return -1
    r = line // nbytes
    s = 0
    while (1 << s) < r:
        s += 1
    return s if (1 << s) == r else -1


@jit(inline="always")
def _line_of(j, nbytes, line, sh):
    return j >> sh if sh >= 0 else (j * nbytes) // line


@jit()
def walk_rows(st, streams, order, indptr, indices, col_pos, has_col_pos, row_pos, has_row_pos,
              xbase, ybase, xb, yb, ib, vb, pb, line):
    """Pull SpMV over CSR rows in ``order``: per row its pointers, then per entry the
    index, the value and ``x`` (at ``col_pos[j]``), then ``y`` (at ``row_pos[i]``)."""
    buf = np.empty(TRACE_CHUNK, dtype=np.int64)
    tmp = np.empty(TRACE_CHUNK, dtype=np.int64)
    fill = 0
    xs = _shift(xb, line)
    ys = _shift(yb, line)
    for t in range(order.size):
        i = order[t]
        stream(streams, 0, i, pb, line)
        stream(streams, 0, i + 1, pb, line)
        k0 = indptr[i]
        k1 = indptr[i + 1]
        _stream_run(streams, 1, k0, k1, ib, line)
        if vb > 0:
            _stream_run(streams, 2, k0, k1, vb, line)
        for k in range(k0, k1):
            j = indices[k]
            if has_col_pos:
                j = col_pos[j]
            buf[fill] = (xbase + _line_of(j, xb, line, xs)) * 4
            fill += 1
            if fill == TRACE_CHUNK:
                fill = flush(st, buf, tmp, fill)
        r = row_pos[i] if has_row_pos else i
        buf[fill] = (ybase + _line_of(r, yb, line, ys)) * 4 + 1
        fill += 1
        if fill == TRACE_CHUNK:
            fill = flush(st, buf, tmp, fill)
    flush(st, buf, tmp, fill)


@jit()
def walk_grouped(st, streams, lptr, indices, rowmap, block_ptr, block_lo, block_hi, block,
                 nrows, col_perm, has_perm, xbase, x2base, ybase, xb, yb, ib, vb, pb, rb,
                 line):
    """Pull SpMV over a grouped-rows format (segmented CSR, heavy/light): the gather
    ``x' = x[col_perm]`` when relabelled, the partial of every local row (phase 1), then
    the merge per block of destination rows (phase 2)."""
    buf = np.empty(TRACE_CHUNK, dtype=np.int64)
    tmp = np.empty(TRACE_CHUNK, dtype=np.int64)
    fill = 0
    xs = _shift(xb, line)
    ys = _shift(yb, line)
    if has_perm:
        for j in range(col_perm.size):
            buf[fill] = (xbase + _line_of(col_perm[j], xb, line, xs)) * 4 + 2
            fill += 1
            if fill == TRACE_CHUNK:
                fill = flush(st, buf, tmp, fill)
        _stream_run(streams, 6, 0, col_perm.size, xb, line)
    xsb = x2base if has_perm else xbase
    nl = rowmap.size
    for r in range(nl):
        stream(streams, 0, r + 1, pb, line)
        k0 = lptr[r]
        k1 = lptr[r + 1]
        _stream_run(streams, 1, k0, k1, ib, line)
        if vb > 0:
            _stream_run(streams, 2, k0, k1, vb, line)
        for k in range(k0, k1):
            buf[fill] = (xsb + _line_of(indices[k], xb, line, xs)) * 4
            fill += 1
            if fill == TRACE_CHUNK:
                fill = flush(st, buf, tmp, fill)
        stream(streams, 4, r, yb, line)
    nb = block_ptr.size - 1
    for b in range(nb):
        g0 = b * block
        g1 = min(g0 + block, nrows)
        for g in range(g0, g1):
            buf[fill] = (ybase + _line_of(g, yb, line, ys)) * 4 + 1
            fill += 1
            if fill == TRACE_CHUNK:
                fill = flush(st, buf, tmp, fill)
        for q in range(block_ptr[b], block_ptr[b + 1]):
            for r in range(block_lo[q], block_hi[q]):
                stream(streams, 5, r, yb, line)
                stream(streams, 3, r, rb, line)
                buf[fill] = (ybase + _line_of(rowmap[r], yb, line, ys)) * 4 + 1
                fill += 1
                if fill == TRACE_CHUNK:
                    fill = flush(st, buf, tmp, fill)
    flush(st, buf, tmp, fill)


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
    replay(st, lines, np.zeros(lines.size, dtype=np.int64), 0)
    return int(st[8][1, 0])


@jit()
def replay(st, lines, classes, how):
    """Access ``lines[k]`` (class ``classes[k]``) in order: ``how`` 0 through the buffered
    passes, 1 through :func:`access`, 2 through :func:`access_plain` (whose state must be
    used by it alone)."""
    if how == 0:
        buf = np.empty(TRACE_CHUNK, dtype=np.int64)
        tmp = np.empty(TRACE_CHUNK, dtype=np.int64)
        fill = 0
        for k in range(lines.size):
            buf[fill] = lines[k] * 4 + classes[k]
            fill += 1
            if fill == TRACE_CHUNK:
                fill = flush(st, buf, tmp, fill)
        flush(st, buf, tmp, fill)
    elif how == 1:
        for k in range(lines.size):
            access(st, lines[k], classes[k])
    else:
        for k in range(lines.size):
            access_plain(st, lines[k], classes[k])


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


#: Share of the entries whose rows :func:`sampled_x_miss` walks, and of their lines it
#: simulates.
SAMPLE = 1 / 32
RATE = 1 / 16


def sampled_x_miss(indptr, indices, shape, cache_bytes: int, x_bytes: int, y_bytes: int,
                   line: int = 64, windows: int = 8, sample: float = SAMPLE,
                   rate: float = RATE, min_entries: int = 1 << 18) -> tuple:
    """Share of the x gathers of a CSR pull ``y = A x`` that miss one fully associative
    LRU level of ``cache_bytes``, from a spatially sampled replay (``windows`` runs of
    rows holding ``sample`` of the entries, each warmed up on its first half; the lines
    whose hash falls in a ``rate`` share go through a cache scaled by the same share:
    SHARDS, Waldspurger et al., FAST'15).  Returns ``(x_miss, simulated, entries
    walked)``; when x and y fit the cache together nothing is simulated (only their
    first touches miss), and matrices of at most ``min_entries`` are walked whole.

    Examples
    --------
    >>> ptr = np.arange(0, 4001, 4); idx = (np.arange(4000) * 7919) % 1000
    >>> sampled_x_miss(ptr, idx, (1000, 1000), 1 << 20, 8, 8)[:2]    # fits: 125 lines
    (0.03125, False)
    >>> sampled_x_miss(ptr, idx, (1000, 1000), 1024, 8, 8)[1]
    True
    """
    m, n = shape
    ip = np.ascontiguousarray(indptr, dtype=np.int64)
    nnz = int(ip[m]) if m else 0
    nx = -(-n * x_bytes // line)
    ny = -(-m * y_bytes // line)
    cap = max(1, int(cache_bytes) // line)
    if nnz == 0 or nx + ny <= cap:
        return (min(1.0, nx / nnz) if nnz else 0.0), False, 0
    whole = nnz <= min_entries
    r = 1.0 if whole else float(rate)
    keep = int(round(4096 * r))
    scap = max(1, int(cap * keep / 4096))
    st = new_state(nx + ny, [1], [scap])
    if whole:
        spans = [(0, m, 0)]
    else:
        per = max(1, int(nnz * sample) // windows)
        spans = []
        for w in range(windows):
            start = int(np.searchsorted(ip, (2 * w + 1) * nnz // (2 * windows)))
            start = min(start, m - 1)
            end = int(np.searchsorted(ip, min(nnz, int(ip[start]) + per)))
            end = max(end, start + 1)
            mid = int(np.searchsorted(ip, (int(ip[start]) + int(ip[end])) // 2))
            spans.append((start, end, mid))
    seen = np.zeros(nx + ny, dtype=np.int8)
    xa = xm = xc = 0
    walked = 0
    for a, b, warm in spans:
        sub = np.ascontiguousarray(indices[ip[a]:ip[b]], dtype=np.int64)
        local = ip[a:b + 1] - ip[a]
        got = sampled_rows(st, seen, local, sub, 0, b - a, warm - a, x_bytes, y_bytes, nx,
                           line, keep)
        xa += got[0]
        xm += got[1]
        xc += got[2]
        walked += int(ip[b] - ip[a])
    # first touches in the sample have no reuse distance to judge by: the rate of the
    # other accesses stands for them; the first touches of the whole product are counted
    # once (below the compulsory rate is the sample's luck)
    x_miss = (xm - xc) / (xa - xc) if xa > xc else 1.0
    return max(x_miss, min(1.0, nx / nnz)), True, walked
