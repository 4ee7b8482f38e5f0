/* Single-source shortest paths in one launch (a frontier Bellman-Ford with weights
   >= 0), for graphs a search crosses in few rounds.  Needs ip_t, ix_t (the CSR of A)
   and GB_G (lanes per frontier vertex, a power of two up to 32).

   A round: every vertex of the frontier (those whose distance fell below the one they
   last relaxed with, prev) relaxes its out-edges, d[v] = min(d[v], d[u] + w), by an
   atomic minimum on the distances' bits (for doubles >= 0 and +inf the order of the
   bits is the order of the values) whose result is not waited for.  The blocks (no more
   than the multiprocessors hold at once) wait for each other after each round and stop
   together after a round without a frontier, or after max_rounds (then result[1] is 0:
   the caller finishes another way).  A negative or NaN weight read sets result[2].  The
   kernel sets the distances up itself (one launch from the host, no fills); distances
   that other blocks wrote are read through the L2 (__ldcg). */
#include "gb_grid.cuh"

extern "C" __global__ void gb_sssp_fused(
        const ip_t* __restrict__ indptr, const ix_t* __restrict__ indices,
        const double* __restrict__ vals, int has_vals, double iso, long long n,
        long long source, int max_rounds, double* dist, double* prev,
        unsigned int* active, unsigned int* barrier, int* result) {
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const int lane = threadIdx.x & (GB_G - 1);
    const long long group = tid / GB_G, ngroups = nthreads / GB_G;
    unsigned long long* bits = (unsigned long long*)dist;
    const double inf = __longlong_as_double(0x7ff0000000000000LL);
    int round = 0, done = 0, bad = 0;
    /* the start: d = +inf but d[source] = 0, and prev = +inf (the source's distance
       fell: it is the first frontier); the counts zeroed (the barrier's count is zero
       between launches) */
    for (long long i = tid; i < n; i += nthreads) {
        dist[i] = (i == source) ? 0.0 : inf;
        prev[i] = inf;
    }
    if (tid == 0) {
        active[0] = 0u;
        result[2] = 0;
    }
    gb_grid_barrier(barrier, barrier + 1);
    while (round < max_rounds) {
        /* the count two rounds ahead: every block read it before the last barrier */
        if (tid == 0) active[(round + 1) % 3] = 0u;
        int any_here = 0;
        for (long long i0 = 0; i0 < n; i0 += ngroups) {
            const long long u = i0 + group;
            /* the frontier: the vertices whose distance fell since they last relaxed
               (prev[u] is this lane's alone: the grid-stride owner of u); the group's
               first lane decides, the others take it from it (every lane of the warp
               runs every round of this loop) */
            int act = 0;
            double du = 0.0;
            if (lane == 0 && u < n) {
                du = __longlong_as_double((long long)__ldcg(bits + u));
                if (du < prev[u]) {
                    act = 1;
                    prev[u] = du;
                }
            }
            act = __shfl_sync(0xffffffffu, act, 0, GB_G);
            du = __shfl_sync(0xffffffffu, du, 0, GB_G);
            if (!act) continue;
            any_here = 1;
            const long long end = (long long)indptr[u + 1];
            for (long long k = (long long)indptr[u] + lane; k < end; k += GB_G) {
                const double w = has_vals ? vals[k] : iso;
                if (!(w >= 0.0)) { bad = 1; continue; }
                /* the result unused: a reduction the memory system applies, no wait */
                atomicMin(bits + indices[k], (unsigned long long)__double_as_longlong(du + w));
            }
        }
        if (any_here) atomicAdd(active + round % 3, 1u);
        gb_grid_barrier(barrier, barrier + 1);
        const unsigned int any = __ldcg(active + round % 3);
        ++round;
        if (any == 0u) { done = 1; break; }
    }
    if (bad) atomicOr(result + 2, 1);
    if (tid == 0) {
        result[0] = round;
        result[1] = done;
    }
}
