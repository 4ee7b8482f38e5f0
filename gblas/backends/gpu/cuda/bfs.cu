/* BFS levels, one fused kernel per level: push (a warp per frontier vertex claims its
   unvisited out-neighbours) or pull (an unvisited vertex scans its in-edges for the
   previous level), or one block running many small push levels; the parents from one
   pass after the levels. */
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

/* Many small push levels in one block, with no host round trip between them: a road
   network or a mesh runs hundreds of levels of a few hundred vertices, where one level of
   the grid kernels costs its launches and a read-back (~35 us).  A thread per frontier
   vertex walks its out-edges; a vertex of more than LOCAL_DEG out-edges is walked by a warp
   after them.  Before each level the block stops when the frontier is empty, holds more
   vertices than the block has threads or more than max_edges out-edges, or would pull by
   Beamer's rule (alpha m_f > m_u, with at least pull_min vertices in the frontier); then
   out = [levels run, frontier left in qb, its size, its out-edges, counters[0], counters[1]]
   and the counters hold what the grid kernels' levels would have left.  The frontier in
   qa has its out-edges counted already (the host's levels add them when they find it). */
#define LOCAL_DEG 8
#define LOCAL_MAX 1024
extern "C" __global__ void __launch_bounds__(LOCAL_MAX) gb_bfs_local(
        const P* __restrict__ ptr, const I* __restrict__ idx, int* __restrict__ level,
        int depth, int* __restrict__ qa, int* __restrict__ qb, long long nq, long long nnz,
        long long alpha, long long pull_min, long long max_edges,
        unsigned long long* __restrict__ counters, long long* __restrict__ out)
{
    __shared__ unsigned long long s_edges, s_next;
    __shared__ int s_nbig;
    __shared__ int s_big[LOCAL_MAX];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int nwarps = blockDim.x >> 5;
    int* cur = qa;
    int* nxt = qb;
    unsigned long long found = counters[0], edges_total = counters[1], m_f = 0;
    long long levels = 0;
    bool counted = true;  /* the frontier's edges are in edges_total already */
    while (true) {
        if (tid == 0) { s_edges = 0; s_next = 0; s_nbig = 0; }
        __syncthreads();
        int k = -1;
        P s = 0, e = 0;
        unsigned long long mine = 0;
        for (long long f = tid; f < nq; f += blockDim.x) {
            const int v = cur[f];
            const P vs = ptr[v], ve = ptr[v + 1];
            mine += (unsigned long long)(ve - vs);
            if (f == tid) { k = v; s = vs; e = ve; }
        }
        if (mine) atomicAdd(&s_edges, mine);
        __syncthreads();
        m_f = s_edges;
        if (!counted) edges_total += m_f;  /* found by this block */
        counted = false;
        const unsigned long long m_u = (unsigned long long)nnz - edges_total;
        if (nq == 0 || nq > (long long)blockDim.x || m_f > (unsigned long long)max_edges
            || ((unsigned long long)alpha * m_f > m_u && nq >= pull_min)) break;
        if (k >= 0) {
            if (e - s > LOCAL_DEG) {
                s_big[atomicAdd(&s_nbig, 1)] = k;
            } else {
                for (P p = s; p < e; ++p) {
                    const long long j = (long long)idx[p];
                    if (level[j] < 0 && atomicCAS(&level[j], -1, depth) == -1)
                        nxt[atomicAdd(&s_next, 1ULL)] = (int)j;
                }
            }
        }
        __syncthreads();
        for (int b = warp; b < s_nbig; b += nwarps) {
            const int kb = s_big[b];
            const P be = ptr[kb + 1];
            for (P p = ptr[kb] + lane; p < be; p += 32) {
                const long long j = (long long)idx[p];
                if (level[j] < 0 && atomicCAS(&level[j], -1, depth) == -1)
                    nxt[atomicAdd(&s_next, 1ULL)] = (int)j;
            }
        }
        __syncthreads();
        nq = (long long)s_next;
        found += s_next;
        ++levels;
        ++depth;
        int* t = cur; cur = nxt; nxt = t;
        __syncthreads();  /* every thread has read s_next before thread 0 resets it */
    }
    if (tid == 0) {
        counters[0] = found;
        counters[1] = edges_total;
        out[0] = levels;
        out[1] = cur == qb;
        out[2] = nq;
        out[3] = (long long)m_f;
        out[4] = (long long)found;
        out[5] = (long long)edges_total;
    }
}

/* A small graph's whole search in one block, push levels back to back with no read-back
   between them: a warp per frontier vertex, its lanes over the out-edges, each claiming an
   unvisited neighbour by CAS and appending it through a shared counter (one atomic per
   warp and step).  With parents (parent[] from INT_MAX, the source's its own) every edge
   into a vertex of the level being built (claimed by this edge or another one of the
   level) folds its tail into the parent by atomicMin: the least-id parent on the previous
   level.  The block also sets up the arrays (level, parent) and, with vectors, writes the
   Vectors' storage (int64 levels and parents, -1 where unreached, and their flags), so
   that a search is one launch.  out: the levels with vertices, the vertices reached, the
   levels run. */
extern "C" __global__ void __launch_bounds__(LOCAL_MAX) gb_bfs_small(
        const P* __restrict__ ptr, const I* __restrict__ idx, long long n, long long source,
        int* __restrict__ level, int* __restrict__ parent, int parents,
        int* __restrict__ qa, int* __restrict__ qb, int vectors,
        long long* __restrict__ lv64, bool* __restrict__ lpres,
        long long* __restrict__ pv64, bool* __restrict__ ppres, long long* __restrict__ out)
{
    __shared__ unsigned long long s_next;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int nwarps = blockDim.x >> 5;
    for (long long i = threadIdx.x; i < n; i += blockDim.x) {
        level[i] = i == source ? 0 : -1;
        if (parents) parent[i] = i == source ? (int)source : 0x7fffffff;
    }
    if (threadIdx.x == 0) qa[0] = (int)source;
    __syncthreads();
    int* cur = qa;
    int* nxt = qb;
    long long nq = 1, found = 1, levels = 0, runs = 0;
    int depth = 1;
    while (nq) {
        if (threadIdx.x == 0) s_next = 0;
        __syncthreads();
        for (long long f = warp; f < nq; f += nwarps) {
            const int k = cur[f];
            const P e = ptr[k + 1];
            for (P p0 = ptr[k]; p0 < e; p0 += 32) {   /* the whole warp: p0, e uniform */
                const P p = p0 + lane;
                bool take = false;
                int j = 0;
                if (p < e) {
                    j = (int)idx[p];
                    int old = level[j];
                    if (old < 0) {
                        old = atomicCAS(&level[j], -1, depth);
                        take = old == -1;
                    }
                    if (parents && (old == -1 || old == depth)) atomicMin(&parent[j], k);
                }
                const unsigned int m = __ballot_sync(FULL, take);
                if (m) {
                    unsigned long long first = 0;
                    if (lane == 0) first = atomicAdd(&s_next, (unsigned long long)__popc(m));
                    first = __shfl_sync(FULL, first, 0);
                    if (take) nxt[first + __popc(m & ((1u << lane) - 1u))] = j;
                }
            }
        }
        __syncthreads();
        nq = (long long)s_next;
        found += nq;
        levels += nq ? 1 : 0;
        ++runs;
        ++depth;
        int* t = cur; cur = nxt; nxt = t;
        __syncthreads();  /* every thread has read s_next before thread 0 resets it */
    }
    if (vectors) {
        for (long long i = threadIdx.x; i < n; i += blockDim.x) {
            const int lv = level[i];
            lv64[i] = lv;
            lpres[i] = lv >= 0;
            if (parents) {
                pv64[i] = lv >= 0 ? (long long)parent[i] : -1;
                ppres[i] = lv >= 0;
            }
        }
    } else if (parents) {
        for (long long i = threadIdx.x; i < n; i += blockDim.x)
            if (level[i] < 0) parent[i] = -1;
    }
    if (threadIdx.x == 0) { out[0] = levels; out[1] = found; out[2] = runs; }
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
