"""GPU breadth-first levels: one fused kernel per level, switching push and pull.

One level of the BFS ``q<!v> = A' any.pair q; v<q> = depth`` is one kernel here:

* **push** (a small frontier): a warp per frontier vertex walks its out-edges (CSR of
  ``A``) and claims each unvisited neighbour with a compare-and-swap on its level, which
  appends it to the next frontier; a hub (more than 2048 out-edges) is walked by the whole
  grid in a second kernel instead of one warp;
* **pull** (a large frontier): each unvisited vertex scans its in-edges (CSR of ``A'``)
  and stops at the first in-neighbour on the previous level -- a thread per vertex of few
  in-edges, a warp per vertex of many (hubs would otherwise hold a thread for their whole
  in-list).

The kernel also sums the out-degrees of the vertices it found, so the only transfer per
level is two counters (frontier size, its edges), from which the direction of the next
level is chosen as Beamer et al. do (direction-optimizing BFS, SC 2012): pull once the
frontier's edges exceed the unvisited vertices' edges / :data:`ALPHA`, push again once the
frontier holds fewer than n / :data:`BETA` vertices.

Parents, when asked for, come from one pass after the levels: a reached vertex's parent is
its smallest in-neighbour on the previous level (in-neighbours are sorted, so the first
match), the rule of the semiring loop (``min.second``).

Kernel contract (registered as ``("bfs", "csr", "gpu", "levels")``, the same as the CPU's):
``f(A: CSR, get_AT: callable, source: int, parents: bool) -> (level int32 array, parent
int64 array or None, stats dict)`` with ``level[i] = -1`` for unreached vertices;
``get_AT()`` returns the CSR of ``A'`` (the GPU always asks for it: a transpose is cheap
there).
"""

from __future__ import annotations

from typing import Any

import cupy as cp
import numpy as np

from ..registry import register
from ._cuda import blocks, ctype, get_function, sm_count

__all__ = ["ALPHA", "BETA", "bfs_levels"]

#: Push -> pull once the frontier's out-edges exceed the unvisited edges / ALPHA.
ALPHA = 14
#: Pull -> push once the frontier holds fewer than n / BETA vertices.
BETA = 24

_BODY = r"""
#define FULL 0xffffffffu
/* counters[0] counts the vertices found so far (all levels), counters[1] their out-edges;
   a level's k-th vertex goes to next[k - base], base = counters[0] before the level.
   Appends and edge sums are aggregated per warp: one atomic per warp, not per vertex (a
   single contended counter otherwise serializes the level). */

__device__ __forceinline__ void gb_append(bool take, long long v, unsigned long long deg,
        int* __restrict__ next, unsigned long long* __restrict__ counters,
        unsigned long long base, unsigned long long& edges)
{
    const int lane = threadIdx.x & 31;
    const unsigned int m = __ballot_sync(FULL, take);
    if (!m) return;
    unsigned long long first = 0;
    if (lane == 0) first = atomicAdd(&counters[0], (unsigned long long)__popc(m));
    first = __shfl_sync(FULL, first, 0);
    if (take) {
        next[first - base + __popc(m & ((1u << lane) - 1u))] = (int)v;
        edges += deg;
    }
}

__device__ __forceinline__ void gb_add_edges(unsigned long long edges,
        unsigned long long* __restrict__ counters)
{
    for (int o = 16; o > 0; o >>= 1) edges += __shfl_down_sync(FULL, edges, o);
    if ((threadIdx.x & 31) == 0 && edges) atomicAdd(&counters[1], edges);
}

/* Push: a warp per frontier vertex; its lanes claim unvisited out-neighbours by CAS.  A
   vertex of more than BIG out-edges is listed in bigq instead (a hub would hold one warp
   for its whole list) and pushed by the whole grid in gb_bfs_push_big. */
#define BIG 2048
__device__ __forceinline__ void gb_claim(const P* __restrict__ ptr, const I* __restrict__ idx,
        P p, P e, int* __restrict__ level, int depth, int* __restrict__ next,
        unsigned long long* __restrict__ counters, unsigned long long base,
        unsigned long long& edges)
{
    bool take = false;
    long long j = 0;
    unsigned long long deg = 0;
    if (p < e) {
        j = (long long)idx[p];
        take = level[j] < 0 && atomicCAS(&level[j], -1, depth) == -1;
        if (take) deg = (unsigned long long)(ptr[j + 1] - ptr[j]);
    }
    gb_append(take, j, deg, next, counters, base, edges);
}

extern "C" __global__ void gb_bfs_push(const P* __restrict__ ptr, const I* __restrict__ idx,
        const int* __restrict__ queue, long long nq, int* __restrict__ level, int depth,
        int* __restrict__ next, unsigned long long* __restrict__ counters,
        unsigned long long base, int* __restrict__ bigq, unsigned long long* __restrict__ bigc)
{
    const int lane = threadIdx.x & 31;
    long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    unsigned long long edges = 0;
    for (; warp < nq; warp += nwarps) {           /* warp-uniform loops: ballots are safe */
        const int k = queue[warp];
        const P s = ptr[k], e = ptr[k + 1];
        if (e - s > BIG) {
            if (lane == 0) bigq[atomicAdd(bigc, 1ULL)] = k;
            continue;
        }
        for (P p0 = s; p0 < e; p0 += 32)
            gb_claim(ptr, idx, p0 + lane, e, level, depth, next, counters, base, edges);
    }
    gb_add_edges(edges, counters);
}

extern "C" __global__ void gb_bfs_push_big(const P* __restrict__ ptr,
        const I* __restrict__ idx, const int* __restrict__ bigq,
        const unsigned long long* __restrict__ bigc, int* __restrict__ level, int depth,
        int* __restrict__ next, unsigned long long* __restrict__ counters,
        unsigned long long base)
{
    const int lane = threadIdx.x & 31;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    const long long nbig = (long long)bigc[0];
    unsigned long long edges = 0;
    for (long long b = 0; b < nbig; ++b) {
        const int k = bigq[b];
        const P s = ptr[k], e = ptr[k + 1];
        for (P p0 = s + warp * 32; p0 < e; p0 += nwarps * 32)
            gb_claim(ptr, idx, p0 + lane, e, level, depth, next, counters, base, edges);
    }
    gb_add_edges(edges, counters);
}

/* Pull: a warp owns 32 consecutive vertices.  Each lane scans its own unvisited vertex when
   it has at most SMALL in-edges; the warp scans the larger ones together, 32 in-edges at a
   time (coalesced).  Both stop at the first in-neighbour in the frontier, read from a bit
   per vertex (n/8 bytes: it stays in L2 where the levels would not). */
#define SMALL 8
__device__ __forceinline__ bool gb_in(const unsigned int* __restrict__ bits, long long k)
{
    return (bits[k >> 5] >> (k & 31)) & 1u;
}

extern "C" __global__ void gb_bfs_pull(const P* __restrict__ ptrT, const I* __restrict__ idxT,
        const P* __restrict__ ptr, long long n, const unsigned int* __restrict__ bits,
        int* __restrict__ level, int depth, int* __restrict__ next,
        unsigned long long* __restrict__ counters, unsigned long long base)
{
    const int lane = threadIdx.x & 31;
    long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    unsigned long long edges = 0;
    for (long long v0 = warp * 32; v0 < n; v0 += nwarps * 32) {
        const long long i = v0 + lane;
        const bool open = i < n && level[i] < 0;
        P s = 0, e = 0;
        if (open) { s = ptrT[i]; e = ptrT[i + 1]; }
        const bool big = open && (e - s) > SMALL;
        bool take = false;
        if (open && !big) {
            for (P p = s; p < e; ++p) {
                if (gb_in(bits, (long long)idxT[p])) { take = true; break; }
            }
        }
        unsigned int todo = __ballot_sync(FULL, big);
        while (todo) {
            const int b = __ffs(todo) - 1;
            todo &= todo - 1;
            const P vs = __shfl_sync(FULL, s, b), ve = __shfl_sync(FULL, e, b);
            bool hit = false;
            for (P p0 = vs; p0 < ve; p0 += 32) {
                const P p = p0 + lane;
                if (__any_sync(FULL, p < ve && gb_in(bits, (long long)idxT[p]))) {
                    hit = true;
                    break;
                }
            }
            if (lane == b) take = hit;
        }
        unsigned long long deg = 0;
        if (take) {
            level[i] = depth;
            deg = (unsigned long long)(ptr[i + 1] - ptr[i]);
        }
        gb_append(take, i, deg, next, counters, base, edges);
    }
    gb_add_edges(edges, counters);
}

/* The first level: the source alone, at level 0. */
extern "C" __global__ void gb_bfs_start(int* __restrict__ level, int* __restrict__ queue,
        long long source)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) { level[source] = 0; queue[0] = (int)source; }
}

/* The frontier's bits, from its queue (the bits were cleared before). */
extern "C" __global__ void gb_bfs_mark(const int* __restrict__ queue, long long nq,
        unsigned int* __restrict__ bits)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < nq; q += stride) {
        const int k = queue[q];
        atomicOr(&bits[k >> 5], 1u << (k & 31));
    }
}

extern "C" __global__ void gb_bfs_parents(const P* __restrict__ ptrT,
        const I* __restrict__ idxT, long long n, const int* __restrict__ level,
        long long* __restrict__ parent)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const int d = level[i];
        long long par = -1;
        if (d == 0) {
            par = i;
        } else if (d > 0) {
            const P e = ptrT[i + 1];
            for (P p = ptrT[i]; p < e; ++p) {
                const I k = idxT[p];
                if (level[k] == d - 1) { par = (long long)k; break; }
            }
        }
        parent[i] = par;
    }
}
"""

_THREADS = 256


def _source(ptr_dt: np.dtype, idx_dt: np.dtype) -> str:
    return f"typedef {ctype(ptr_dt)} P;\ntypedef {ctype(idx_dt)} I;\n" + _BODY


def _kernels(A: Any, AT: Any) -> tuple:
    dts = (np.dtype(A.indptr.dtype), np.dtype(A.indices.dtype))
    if dts != (np.dtype(AT.indptr.dtype), np.dtype(AT.indices.dtype)):
        AT = _with_dtypes(AT, *dts)
    src = _source(*dts)
    return (get_function(src, "gb_bfs_push"), get_function(src, "gb_bfs_push_big"),
            get_function(src, "gb_bfs_pull"), get_function(src, "gb_bfs_mark"),
            get_function(src, "gb_bfs_parents"), get_function(src, "gb_bfs_start"), AT)


def _with_dtypes(csr: Any, ptr_dt: np.dtype, idx_dt: np.dtype) -> Any:
    """A CSR view with its index arrays cast to the given dtypes (for one kernel source)."""
    from types import SimpleNamespace

    return SimpleNamespace(indptr=csr.indptr.astype(ptr_dt, copy=False),
                           indices=csr.indices.astype(idx_dt, copy=False), shape=csr.shape)


@register("bfs", "csr", "gpu", "levels")
def bfs_levels(A: Any, get_AT, source: int, parents: bool) -> tuple[Any, Any, dict]:
    """Levels (and parents) of a BFS from ``source`` on the GPU.

    Parameters
    ----------
    A : CSR
        The CSR of the adjacency matrix (row i lists the j of edges i -> j), on the GPU.
    get_AT : callable
        Returns the CSR of its transpose, on the GPU.
    source : int
        The start vertex.
    parents : bool
        Also compute each reached vertex's smallest parent on the previous level.

    Returns
    -------
    level : cupy.ndarray of int32
        The level of each vertex, -1 where unreached.
    parent : cupy.ndarray of int64 or None
        The parent of each vertex (the source its own), -1 where unreached.
    stats : dict
        ``levels``, ``push`` and ``pull`` counts of the levels run each way.
    """
    n = int(A.shape[0])
    push_k, big_k, pull_k, mark_k, par_k, start_k, AT = _kernels(A, get_AT())
    nnz = int(A.indices.size)
    level = cp.full(n, -1, dtype=np.int32)
    queue = cp.empty(max(n, 1), dtype=np.int32)
    nxt = cp.empty(max(n, 1), dtype=np.int32)
    start_k((1,), (32,), (level, queue, np.int64(source)))
    counters = cp.zeros(2, dtype=np.uint64)  # cumulative: no reset per level
    bits = cp.empty((n + 31) // 32, dtype=np.uint32)  # the frontier, for pull levels
    bigq = cp.empty(max(n, 1), dtype=np.int32)  # a push level's hubs, and their count
    bigc = cp.zeros(1, dtype=np.uint64)
    indptr = A.indptr
    nq = 1
    total = edges_total = 0  # the counters' values before the level
    m_f = 0  # the first level pushes from the source: its edges need no read-back
    m_u = nnz
    pull = False
    depth = 0
    stats = {"levels": 0, "push": 0, "pull": 0}
    cap = sm_count() * 16  # resident blocks enough to fill the GPU; loops stride beyond
    while nq:
        depth += 1
        # Beamer's switch: pull while the frontier is heavy, push while it is small
        if not pull and m_f > m_u / ALPHA:
            pull = True
        elif pull and nq < n / BETA:
            pull = False
        if pull:
            bits.fill(0)
            mark_k((min(blocks(nq, _THREADS), cap),), (_THREADS,), (queue, np.int64(nq), bits))
            pull_k((min(blocks(n, _THREADS), cap),), (_THREADS,),
                   (AT.indptr, AT.indices, indptr, np.int64(n), bits, level, np.int32(depth),
                    nxt, counters, np.uint64(total)))
            stats["pull"] += 1
        else:
            bigc.fill(0)
            push_k((min(blocks(nq * 32, _THREADS), cap),), (_THREADS,),
                   (indptr, A.indices, queue, np.int64(nq), level, np.int32(depth), nxt,
                    counters, np.uint64(total), bigq, bigc))
            big_k((cap,), (_THREADS,),
                  (indptr, A.indices, bigq, bigc, level, np.int32(depth), nxt, counters,
                   np.uint64(total)))
            stats["push"] += 1
        found, edges = (int(v) for v in counters.get())
        nq, m_f = found - total, edges - edges_total
        total, edges_total = found, edges
        stats["levels"] += 1 if nq else 0
        queue, nxt = nxt, queue
        m_u -= m_f
    parent = None
    if parents:
        parent = cp.empty(n, dtype=np.int64)
        par_k((min(blocks(n, _THREADS), cap),), (_THREADS,),
              (AT.indptr, AT.indices, np.int64(n), level, parent))
    return level, parent, stats
