"""Sequential push levels of a BFS with parents, level and parent packed in one integer.

A search with parents keeps, for every vertex, the smallest-id in-neighbour on the
previous level (the rule of ``min.second``).  Here both live in one int64 per vertex,
``level << 32 | parent``, an unvisited vertex holding :data:`UNVISITED` (level field
``2**31 - 1``, above every depth).  An edge ``k -> j`` of the level ``depth`` then does one
load and at most one store: ``entry[j] = min(entry[j], depth << 32 | k)``.  The minimum
keeps an earlier level's entry (a smaller level field), takes ``k`` for an unvisited vertex
and for a vertex of this level whose parent so far is larger: the least-id rule in
whatever order the frontier comes, without sorting it, a second array or a second branch
per edge (the whole search with parents on the mesh delaunay-n16: 2.5 ms against 3.2 ms
with a level array, a parent array and a branch on each, on 2 shared cores).

Vertex ids and depths must fit 31 bits (``n <= 2**31 - 1``).  The loop shares the state
slots of :func:`gblas.backends.cpu.traversal._push_levels` and returns where that one does
(an empty frontier, a level that should pull or run on several threads), so its caller can
unpack the entries and go on with the level and parent arrays.
"""

from __future__ import annotations

import numpy as np

from .jitcache import jit

__all__ = ["LOOKAHEAD", "STATE_SLOTS", "UNVISITED", "gather_packed", "packed_entries",
           "packed_push", "save_state", "split_entry", "stop_here", "unpack"]

#: The entry of an unvisited vertex: level field 2**31 - 1, above every depth.
UNVISITED = np.int64(np.iinfo(np.int64).max)
_LOW = np.int64(0xFFFFFFFF)

#: On a sparse graph (the select store) a frontier vertex reads the first out-edge of the
#: one this many places on, and the row start of the one twice as far: the rows' lines,
#: not in the core's cache on a Matrix used a while ago, come in early (on 2 cores,
#: delaunay-n16 2.05-2.57 -> 1.43-1.53 ms, luxembourg-osm 1.52-1.72 -> 1.22-1.25 ms;
#: 5-8% less time where they were cached).  On denser graphs (the branch) the first line
#: of a row is little of it, and a first try took 7% longer on Kronecker graphs.
LOOKAHEAD = 4

#: The slots of the int64 state array the push loops share with their caller: depth, the
#: frontier ``order[head:tail]``, its out-edges, the unvisited vertices' out-edges, and
#: the flags of a level that should pull or run on several threads.
STATE_SLOTS = range(7)
_DEPTH, _HEAD, _TAIL, _MF, _MU, _WANT_PULL, _WANT_PAR = STATE_SLOTS


@jit(inline="always")
def stop_here(state, n, head, tail, m_f, m_u, alpha, beta, allow_pull, par_edges):
    """Whether the push loops stop before the next level, flagging why in ``state``: it
    should pull (Beamer's test on the frontier's and the unvisited vertices' out-edges
    ``m_f``, ``m_u``) or run on several threads (``par_edges`` frontier out-edges or
    more, ``par_edges > 0``)."""
    if allow_pull and m_f * alpha > m_u and (tail - head) * beta >= n:
        state[_WANT_PULL] = 1
        return True
    if par_edges > 0 and m_f >= par_edges:
        state[_WANT_PAR] = 1
        return True
    return False


@jit(inline="always")
def save_state(state, depth, head, tail, m_f, m_u):
    """Store the push loops' position in ``state`` for their caller."""
    state[_DEPTH] = depth
    state[_HEAD] = head
    state[_TAIL] = tail
    state[_MF] = m_f
    state[_MU] = m_u


@jit()
def packed_push(ptr, idx, entry, order, state, alpha, beta, allow_pull, par_edges,
                select):
    """Push levels from the frontier ``order[state[_HEAD]:state[_TAIL]]`` on one thread,
    each vertex's level and least parent in ``entry`` (``level << 32 | parent``,
    :data:`UNVISITED` where unvisited), until the search ends (an empty frontier), a level
    should pull (``state[_WANT_PULL] = 1``) or run on several threads (its frontier has
    ``par_edges`` out-edges or more, ``par_edges > 0``: ``state[_WANT_PAR] = 1``).

    ``select``: every edge stores the minimum and appends its vertex at the queue's tail,
    which moves on only for a new vertex (``order`` needs ``n + 1`` slots), and the rows
    of the frontier vertices :data:`LOOKAHEAD` places on are read ahead; else a
    branch on the minimum's test (denser graphs, where most tests fail and predict well).
    Returns the sum of the values read ahead (of no use but to keep the reads).

    Examples
    --------
    >>> ptr = np.array([0, 2, 3, 4, 4], dtype=np.uint32)   # 0 -> 1, 2; 1 -> 3; 2 -> 3
    >>> idx = np.array([2, 1, 3, 3], dtype=np.uint32)
    >>> entry = np.full(4, UNVISITED); entry[0] = 0
    >>> order = np.zeros(5, dtype=np.int32)
    >>> state = np.array([0, 0, 1, 0, 4, 0, 0])
    >>> _ = packed_push(ptr, idx, entry, order, state, 14, 24, False, 0, True)
    >>> level, parent = unpack(entry)
    >>> level.tolist(), parent.tolist()     # 3: reached from 2 first, parent 1
    ([0, 1, 1, 2], [0, 0, 0, 1])
    """
    n = entry.size
    depth = state[_DEPTH]
    head = state[_HEAD]
    tail = state[_TAIL]
    m_f = state[_MF]
    m_u = state[_MU]
    count = allow_pull or par_edges > 0
    last_edge = np.int64(idx.size) - 1
    select = select and last_edge >= 0  # (no edge to read ahead: the branch)
    touched = 0  # returned: the look-ahead's loads are not optimised away
    while tail > head:
        if stop_here(state, n, head, tail, m_f, m_u, alpha, beta, allow_pull, par_edges):
            break
        depth += 1
        end = tail
        # an entry above ``last`` is unvisited: every visited level is at most depth
        last = (np.int64(depth) << 32) | _LOW
        if select:
            for q in range(head, end):
                k = order[q]
                # read ahead the row start of the vertex 2 * LOOKAHEAD places on and the
                # first out-edge of the one LOOKAHEAD places on (its row start read
                # before): their lines come in while this vertex's edges run (a load
                # issued before this vertex's loop exit, which often mispredicts, is
                # not thrown away with it)
                touched += ptr[order[min(q + 2 * LOOKAHEAD, end - 1)]]
                kk = order[min(q + LOOKAHEAD, end - 1)]
                touched += idx[min(np.int64(ptr[kk]), last_edge)]
                cand = (np.int64(depth) << 32) | np.int64(k)
                for p in range(ptr[k], ptr[k + 1]):
                    j = idx[p]
                    x = entry[j]
                    entry[j] = cand if cand < x else x
                    order[tail] = j
                    tail += x > last
        else:
            for q in range(head, end):
                k = order[q]
                cand = (np.int64(depth) << 32) | np.int64(k)
                for p in range(ptr[k], ptr[k + 1]):
                    j = idx[p]
                    x = entry[j]
                    if cand < x:
                        entry[j] = cand
                        if x > last:
                            order[tail] = j
                            tail += 1
        if count:  # the switches' edge count: the new level's out-edges, after it
            edges = 0
            for q in range(end, tail):
                j = order[q]
                edges += np.int64(ptr[j + 1]) - np.int64(ptr[j])
            m_u -= edges
            m_f = edges
        head = end
    save_state(state, depth, head, tail, m_f, m_u)
    return touched


@jit(inline="always")
def split_entry(x):
    """The level and parent of a visited vertex's entry ``level << 32 | parent``."""
    return x >> 32, x & _LOW


@jit()
def unpack(entry):
    """The level (int32) and parent (int64) arrays of ``entry``, -1 where unvisited."""
    n = entry.size
    level = np.empty(n, dtype=np.int32)
    parent = np.empty(n, dtype=np.int64)
    for i in range(n):
        x = entry[i]
        lv, par = split_entry(x) if x != UNVISITED else (-1, -1)
        level[i] = lv
        parent[i] = par
    return level, parent


@jit()
def packed_entries(entry):
    """The levels and parents as int64 with their reached flags (the storage of two
    Vectors, each its own flags), in one pass over ``entry``; -1 where unreached."""
    n = entry.size
    level = np.empty(n, dtype=np.int64)
    parent = np.empty(n, dtype=np.int64)
    present = np.empty(n, dtype=np.bool_)
    for i in range(n):
        x = entry[i]
        seen = x != UNVISITED
        lv, par = split_entry(x) if seen else (-1, -1)
        present[i] = seen
        level[i] = lv
        parent[i] = par
    return level, parent, present, present.copy()


@jit()
def gather_packed(entry, ids):
    """The levels and parents (int64) of the visited vertices ``ids``: a sparse result's
    entries (:mod:`.reached`)."""
    level = np.empty(ids.size, dtype=np.int64)
    parent = np.empty(ids.size, dtype=np.int64)
    for i in range(ids.size):
        level[i], parent[i] = split_entry(entry[ids[i]])
    return level, parent
