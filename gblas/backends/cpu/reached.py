"""A search's results as sparse Vectors when it reaches few vertices.

A BFS returns its levels (and parents) as Vectors of the reached vertices.  The dense
form writes every vertex (an int64 and a flag: 9 bytes each, 18 with parents), a pass
over ``n`` whatever the search read; right after the graph was converted those lines
are out of the cache.  The queue of a search already lists the reached vertices; sorted
(a radix sort: the ids are bounded by ``n``), they are the sparse Vector's indices, and
the entries are gathered at them.  On uk-2007-05-100k (100K vertices, 5.6K reached from
its largest out-degree), a fresh Matrix's ``bfs`` took 222-227 instead of 247-322 us on
2 cores (SciPy's ``breadth_first_order`` after the same conversion: 125-144 us).
"""

from __future__ import annotations

import numpy as np

from .jitcache import jit

__all__ = ["SPARSE_RESULT_SHARE", "gather_levels", "sorted_ids", "sparse_result"]

#: A search reaching fewer than ``n / SPARSE_RESULT_SHARE`` vertices returns sparse
#: Vectors.  Not tuned: at an eighth the sparse form moves about 6 bytes per vertex of
#: the graph (16 per reached id and entry, written and sorted in two passes) against the
#: dense pass's 13 (the level read, the entry and flag written).
SPARSE_RESULT_SHARE = 8

#: Bits per pass of the radix sort (2048 buckets: their counts stay in the L1 cache).
_DIGIT = 11


def sparse_result(reached: int, n: int) -> bool:
    """Whether a search that reached ``reached`` of ``n`` vertices returns sparse Vectors.

    Examples
    --------
    >>> sparse_result(5_600, 100_000), sparse_result(60_000, 100_000)
    (True, False)
    """
    return reached * SPARSE_RESULT_SHARE < n


@jit()
def sorted_ids(order, count, n):
    """``order[:count]`` (distinct ids below ``n``) sorted, as int64: an LSD radix sort of
    11-bit digits, one pass per digit of ``n - 1``.

    Examples
    --------
    >>> sorted_ids(np.array([7, 2, 9, 0, 5], dtype=np.int32), 4, 10).tolist()
    [0, 2, 7, 9]
    """
    a = np.empty(count, dtype=np.int64)
    b = np.empty(count, dtype=np.int64)
    for i in range(count):
        a[i] = order[i]
    buckets = np.empty(1 << _DIGIT, dtype=np.int64)
    mask = (1 << _DIGIT) - 1
    shift = 0
    while shift < 63 and ((n - 1) >> shift) > 0:
        buckets[:] = 0
        for i in range(count):
            buckets[(a[i] >> shift) & mask] += 1
        start = 0
        for d in range(buckets.size):
            c = buckets[d]
            buckets[d] = start
            start += c
        for i in range(count):
            d = (a[i] >> shift) & mask
            b[buckets[d]] = a[i]
            buckets[d] += 1
        a, b = b, a
        shift += _DIGIT
    return a


@jit()
def gather_levels(level, ids):
    """``level[ids]`` as int64."""
    out = np.empty(ids.size, dtype=np.int64)
    for i in range(ids.size):
        out[i] = level[ids[i]]
    return out
