/* BFS levels, one fused kernel per level: push (a warp per frontier vertex claims its
   unvisited out-neighbours) or pull (an unvisited vertex scans its in-edges for the
   previous level); the parents from one pass after the levels. */
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
