/* One pull product y = A x over a CSR (ip_t, ix_t) inside a kernel whose blocks wait for
   each other (every block resident: gb_grid.cuh), as the one-launch power iterations run
   it.  Needs GB_G (lanes per short row, a power of two up to 32), GB_SMAX (the longest
   short row) and GB_CHUNK (entries per warp chunk of a long row).

     short rows   GB_G lanes each, summed by shuffles, then finish(i, y_i) at once
     long rows    each GB_CHUNK-entry chunk summed by a warp into part[chunk]; after a
                  grid barrier (taken only when there are chunks: the same choice in
                  every block) each long row adds its chunks in order and finishes

   gather(j) returns x_j (the caller chooses how: data other blocks wrote in this launch
   must be read through the L2, __ldcg); finish(i, y) is called once per row, by one
   thread.  Every thread of the grid must call it (the shuffles and the barrier).

   The long rows' schedule comes from cuda/row_schedule.cu (one launch queued before
   the first iteration over these row pointers, so a fresh matrix's call never waits on
   the device for it); sched[0], sched[1] hold its counts (nlong, nchunks). */
#ifndef GB_PULL_FUSED_CUH
#define GB_PULL_FUSED_CUH

#include "gb_grid.cuh"
#include "gb_sums.cuh"

template <class Gather, class Finish>
__device__ __forceinline__ void gb_pull_rows(
        const ip_t* __restrict__ indptr, const ix_t* __restrict__ indices,
        const double* __restrict__ vals, int has_vals, double iso, long long n,
        const long long* __restrict__ long_rows, const long long* __restrict__ cptr,
        const int* __restrict__ cslot, long long nlong, long long nchunks, double* part,
        unsigned int* barrier, Gather gather, Finish finish) {
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const int lane = threadIdx.x & (GB_G - 1);
    const long long group = tid / GB_G, ngroups = nthreads / GB_G;
    const long long warp = tid >> 5, nwarps = nthreads >> 5;
    const int wlane = threadIdx.x & 31;
    /* the short rows (every lane runs every round, so the shuffles see the whole warp) */
    for (long long i0 = 0; i0 < n; i0 += ngroups) {
        const long long i = i0 + group;
        long long k = 0, end = 0;
        bool shortrow = false;
        if (i < n) {
            k = (long long)indptr[i];
            end = (long long)indptr[i + 1];
            shortrow = end - k <= GB_SMAX;
            if (!shortrow) end = k;  /* a long row: its chunks below */
        }
        double acc = 0.0;
        for (k += lane; k < end; k += GB_G)
            acc += (has_vals ? vals[k] : iso) * gather(indices[k]);
        for (int o = GB_G / 2; o > 0; o >>= 1)
            acc += __shfl_down_sync(0xffffffffu, acc, o, GB_G);
        if (shortrow && lane == 0) finish(i, acc);
    }
    if (nchunks == 0) return;
    /* the long rows' chunks, a warp each */
    for (long long ch0 = 0; ch0 < nchunks; ch0 += nwarps) {
        const long long ch = ch0 + warp;
        double acc = 0.0;
        if (ch < nchunks) {
            const long long slot = cslot[ch];
            const long long row = long_rows[slot];
            const long long start = (long long)indptr[row] + (ch - cptr[slot]) * GB_CHUNK;
            const long long stop = min(start + (long long)GB_CHUNK,
                                       (long long)indptr[row + 1]);
            for (long long k = start + wlane; k < stop; k += 32)
                acc += (has_vals ? vals[k] : iso) * gather(indices[k]);
        }
        acc = gb_warp_sum(acc);
        if (ch < nchunks && wlane == 0) part[ch] = acc;
    }
    gb_grid_barrier(barrier, barrier + 1);
    for (long long slot = tid; slot < nlong; slot += nthreads) {
        double acc = 0.0;
        for (long long ch = cptr[slot]; ch < cptr[slot + 1]; ++ch) acc += __ldcg(part + ch);
        finish(long_rows[slot], acc);
    }
}

/* The grid's sums of (a, b) in block order, the same in every block and on every run:
   each block stores its pair in partials[0 .. 2 gridDim.x) (callers alternate two such
   halves, so that a slow block's read of the last sums is never overwritten), waits
   for the others, then adds the pairs in block order. */
__device__ __forceinline__ void gb_grid_totals(double& a, double& b, double* partials,
                                               unsigned int* barrier) {
    gb_block_sum2(a, b);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = a;
        partials[gridDim.x + blockIdx.x] = b;
    }
    gb_grid_barrier(barrier, barrier + 1);
    a = 0.0;
    b = 0.0;
    for (unsigned int q = threadIdx.x; q < gridDim.x; q += blockDim.x) {
        a += __ldcg(partials + q);
        b += __ldcg(partials + gridDim.x + q);
    }
    gb_block_sum2(a, b);
    __shared__ double totals[2];
    if (threadIdx.x == 0) { totals[0] = a; totals[1] = b; }
    __syncthreads();
    a = totals[0];
    b = totals[1];
    __syncthreads();
}

#endif
