"""The two idealized cache-guided schedules of the cache simulator (Mukkara, Beckmann and
Sanchez, "Cache-Guided Scheduling", sections 3.2 and 3.3) over the hierarchy of
:mod:`gblas.backends.cpu.cachesim`: CGS-V (:func:`cgs_vertex`) and CGS-E
(:func:`cgs_edge`).  They react to every insertion into and eviction from the last
level, so they run each access through :func:`~gblas.backends.cpu.cachesim.access`.
"""

from __future__ import annotations

import numpy as np

from .cachesim import access, resident, stream
from .jitcache import jit

__all__ = ["cgs_vertex", "cgs_edge"]


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
                if resident(st, xbase + xline[indices[k]], last):
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
        stream(streams, 0, i, pb, line)
        stream(streams, 0, i + 1, pb, line)
        for k in range(indptr[i], indptr[i + 1]):
            stream(streams, 1, k, ib, line)
            if vb > 0:
                stream(streams, 2, k, vb, line)
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
            stream(streams, 0, i, pb, line)
            stream(streams, 0, i + 1, pb, line)
            access(st, ybase + (i * yb) // line, 1)
    return order


# ------------------------------------------------------------------------ CGS-E


@jit()
def _cgse_event(ln, inserted, skip, l_ptr, l_len, l_edge, e_a, e_b, done, st, last, c1,
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
        o_in = resident(st, o, last) and o != skip
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
    last = st[5].size - 1
    lv, ev = access(st, ln, cls)
    ins = lv == last + 1
    if ev >= 0:
        _cgse_event(ev, False, ln if ins else -1, l_ptr, l_len, l_edge, e_a, e_b, done, st,
                    last, c1, where, bh, bn, bp, top, ready, nready, inr)
    if ins:
        _cgse_event(ln, True, -1, l_ptr, l_len, l_edge, e_a, e_b, done, st, last, c1, where,
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
            if (not done[c] and resident(st, e_x[c], last)
                        and resident(st, e_y[c], last)):
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
                    if resident(st, o, last):
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
        stream(streams, 1, e, ib, line)
        if vb > 0:
            stream(streams, 2, e, vb, line)
        _cgse_access(st, e_x[e], 0, l_ptr, l_len, l_edge, e_x, e_y, done, c1, where, bh, bn,
                     bp, top, ready, nready, inr)
        _cgse_access(st, e_y[e], 1, l_ptr, l_len, l_edge, e_x, e_y, done, c1, where, bh, bn,
                     bp, top, ready, nready, inr)
    return done.size
