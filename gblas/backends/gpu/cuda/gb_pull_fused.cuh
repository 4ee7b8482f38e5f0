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

   The long rows' schedule comes from gb_fused_schedule (cuda/fused_schedule.cu: one
   launch queued before the first iteration over these row pointers, so a fresh
   matrix's call never waits on the device for it); sched[0], sched[1] hold its counts. */
#ifndef GB_PULL_FUSED_CUH
#define GB_PULL_FUSED_CUH

#include "gb_grid.cuh"
#include "gb_sums.cuh"

/* Exclusive prefix sums of (a, b) over the block's threads in thread order (blockDim.x a
   multiple of 32); (ta, tb) receive the block's totals. */
__device__ __forceinline__ void gb_block_scan2(long long& a, long long& b, long long& ta,
                                               long long& tb) {
    __shared__ long long wa[32], wb[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    long long ia = a, ib = b;
    for (int o = 1; o < 32; o <<= 1) {
        const long long ua = __shfl_up_sync(0xffffffffu, ia, o);
        const long long ub = __shfl_up_sync(0xffffffffu, ib, o);
        if (lane >= o) { ia += ua; ib += ub; }
    }
    if (lane == 31) { wa[warp] = ia; wb[warp] = ib; }
    __syncthreads();
    long long pa = 0, pb = 0;
    ta = 0;
    tb = 0;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) {
        if (w < warp) { pa += wa[w]; pb += wb[w]; }
        ta += wa[w];
        tb += wb[w];
    }
    __syncthreads();
    a = pa + ia - a;
    b = pb + ib - b;
}

/* Row i's part of the schedule: whether it is long (more than GB_SMAX entries) and its
   chunks of GB_CHUNK entries. */
__device__ __forceinline__ void gb_long_row(const ip_t* __restrict__ indptr, long long i,
                                            long long& is_long, long long& chunks) {
    const long long d = (long long)indptr[i + 1] - (long long)indptr[i];
    is_long = d > GB_SMAX;
    chunks = is_long ? (d + GB_CHUNK - 1) / GB_CHUNK : 0;
}

/* The long rows' schedule of the CSR's n rows, as the host computes it
   (gblas.backends.gpu.mxv.host_or_device_schedule, "vector" mode): long_rows[s] the s-th
   long row in row order, cptr[s] its first chunk (cptr[nlong] = nchunks), cslot[c] the
   long row of chunk c, and sched[0], sched[1] = (nlong, nchunks).  Each block counts
   its share of the rows, waits for the others, and places its long rows after the
   counts of the blocks before it (sched[4 ..] holds the 2 gridDim.x counts).  Every
   thread of a grid whose blocks are all resident calls it. */
__device__ __forceinline__ void gb_fused_schedule(
        const ip_t* __restrict__ indptr, long long n, long long* long_rows, long long* cptr,
        int* cslot, long long* sched, unsigned int* barrier) {
    long long* counts = sched + 4;
    const long long per = (n + gridDim.x - 1) / gridDim.x;
    const long long lo = min(n, (long long)blockIdx.x * per), hi = min(n, lo + per);
    /* this block's long rows and chunks */
    long long cl = 0, cc = 0, f, c;
    for (long long i = lo + threadIdx.x; i < hi; i += blockDim.x) {
        gb_long_row(indptr, i, f, c);
        cl += f;
        cc += c;
    }
    long long bl, bc;
    gb_block_scan2(cl, cc, bl, bc);
    if (threadIdx.x == 0) {
        counts[2 * blockIdx.x] = bl;
        counts[2 * blockIdx.x + 1] = bc;
    }
    gb_grid_barrier(barrier, barrier + 1);
    /* the counts of the blocks before this one, and the grid's */
    long long pl = 0, pc = 0, al = 0, ac = 0;
    for (unsigned int q = threadIdx.x; q < gridDim.x; q += blockDim.x) {
        const long long ql = __ldcg(counts + 2 * q), qc = __ldcg(counts + 2 * q + 1);
        if (q < blockIdx.x) { pl += ql; pc += qc; }
        al += ql;
        ac += qc;
    }
    long long nlong, nchunks;
    gb_block_scan2(pl, pc, bl, bc);
    gb_block_scan2(al, ac, nlong, nchunks);
    /* place this block's long rows and their chunks, a tile of rows at a time */
    for (long long t = lo; t < hi; t += blockDim.x) {
        const long long i = t + threadIdx.x;
        long long is_long = 0, chunks = 0, sl, sc;
        if (i < hi) gb_long_row(indptr, i, is_long, chunks);
        f = is_long;
        c = chunks;
        gb_block_scan2(f, c, sl, sc);  /* f, c: the row's places within the tile */
        if (is_long) {
            const long long s = bl + f, c0 = bc + c;
            long_rows[s] = i;
            cptr[s] = c0;
            for (long long k = 0; k < chunks; ++k) cslot[c0 + k] = (int)s;
        }
        bl += sl;
        bc += sc;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        cptr[nlong] = nchunks;
        sched[0] = nlong;
        sched[1] = nchunks;
    }
}

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
