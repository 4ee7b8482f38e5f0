/* PageRank's whole power iteration in one launch, for graphs whose products are too
   small to keep the device busy between launches.  Needs ip_t, ix_t (the CSR of A'),
   GB_G (lanes per short row, a power of two up to 32), GB_SMAX (the longest short row),
   GB_CHUNK (entries per warp chunk of a long row) and GB_MINB (blocks of 256 threads a
   multiprocessor must hold at once: the registers are capped to fit them).

   The grid holds no more blocks than the multiprocessors hold at once (every block
   resident), so the blocks can wait for each other: an iteration is

     phase 1  y_i of every short row (GB_G lanes each, r'_i, s'_i, the sums folded);
              each chunk of a long row summed by a warp into part[chunk]
     barrier
     phase 2  each long row adds its chunks' sums in order and finishes as a short row;
              every block's two sums into partials (this iteration's half)
     barrier
              every block adds the blocks' sums in block order: the same err and m
              everywhere, so every block stops at the same iteration

   with the arithmetic of the planned loop (cuda/pagerank.cu after the pull product):
   r'_i = y_i + (alpha m + 1 - alpha) p_i, s'_i = r'_i w_i, err = |r' - r|_1,
   m' = sum(r' where w == 0).  Data that other blocks wrote in this launch is read
   through the L2 (__ldcg): a multiprocessor's L1 is not kept coherent with the others'. */
#include "gb_grid.cuh"
#include "gb_sums.cuh"

/* Row i's end of an iteration from its sum y: r'_i, s'_i, and its parts of err and m. */
__device__ __forceinline__ void gb_finish_row(
        long long i, double y, double c, const double* __restrict__ p, int has_p,
        double p_uniform, const double* __restrict__ w, const double* r, double* rn,
        double* sn, double& e, double& d) {
    const double rv = y + c * (has_p ? p[i] : p_uniform);
    const double wi = w[i];
    rn[i] = rv;
    sn[i] = rv * wi;
    e += fabs(rv - r[i]);
    if (wi == 0.0) d += rv;
}

extern "C" __global__ void __launch_bounds__(256, GB_MINB) gb_pagerank_fused(
        const ip_t* __restrict__ indptr, const ix_t* __restrict__ indices,
        const double* __restrict__ vals, int has_vals, double iso,
        const double* __restrict__ p, int has_p, double p_uniform,
        const double* __restrict__ w, double alpha, double limit, int max_iter,
        long long n, double m0,
        const long long* __restrict__ long_rows, const long long* __restrict__ cptr,
        const int* __restrict__ cslot, long long nlong, long long nchunks,
        double* r_a, double* r_b, double* s_a, double* s_b, double* part,
        double* partials, unsigned int* barrier, double* result) {
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const int lane = threadIdx.x & (GB_G - 1);
    const long long group = tid / GB_G, ngroups = nthreads / GB_G;
    const long long warp = tid >> 5, nwarps = nthreads >> 5;
    const int wlane = threadIdx.x & 31;
    double m = m0, err = __longlong_as_double(0x7ff0000000000000LL);  /* +inf */
    int it = 0;
    double *r = r_a, *rn = r_b, *s = s_a, *sn = s_b;
    while (it < max_iter) {
        ++it;
        const double c = alpha * m + (1.0 - alpha);
        double e = 0.0, d = 0.0;
        /* phase 1: the short rows, GB_G lanes each (every lane runs every round, so the
           shuffles see the whole warp) */
        for (long long i0 = 0; i0 < n; i0 += ngroups) {
            const long long i = i0 + group;
            long long k = 0, end = 0;
            bool shortrow = false;
            if (i < n) {
                k = (long long)indptr[i];
                end = (long long)indptr[i + 1];
                shortrow = end - k <= GB_SMAX;
                if (!shortrow) end = k;  /* a long row: phase 2 */
            }
            double acc = 0.0;
            for (k += lane; k < end; k += GB_G)
                acc += (has_vals ? vals[k] : iso) * __ldcg(s + indices[k]);
            for (int o = GB_G / 2; o > 0; o >>= 1)
                acc += __shfl_down_sync(0xffffffffu, acc, o, GB_G);
            if (shortrow && lane == 0)
                gb_finish_row(i, acc, c, p, has_p, p_uniform, w, r, rn, sn, e, d);
        }
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
                    acc += (has_vals ? vals[k] : iso) * __ldcg(s + indices[k]);
            }
            acc = gb_warp_sum(acc);
            if (ch < nchunks && wlane == 0) part[ch] = acc;
        }
        gb_grid_barrier(barrier, barrier + 1);
        /* phase 2: the long rows */
        for (long long slot = tid; slot < nlong; slot += nthreads) {
            double acc = 0.0;
            for (long long ch = cptr[slot]; ch < cptr[slot + 1]; ++ch) acc += __ldcg(part + ch);
            gb_finish_row(long_rows[slot], acc, c, p, has_p, p_uniform, w, r, rn, sn, e, d);
        }
        gb_block_sum2(e, d);
        double* half = partials + (it & 1) * 2 * gridDim.x;
        if (threadIdx.x == 0) {
            half[blockIdx.x] = e;
            half[gridDim.x + blockIdx.x] = d;
        }
        gb_grid_barrier(barrier, barrier + 1);
        double a = 0.0, b = 0.0;
        for (unsigned int q = threadIdx.x; q < gridDim.x; q += blockDim.x) {
            a += __ldcg(half + q);
            b += __ldcg(half + gridDim.x + q);
        }
        gb_block_sum2(a, b);
        __shared__ double totals[2];
        if (threadIdx.x == 0) { totals[0] = a; totals[1] = b; }
        __syncthreads();
        err = totals[0];
        m = totals[1];
        __syncthreads();
        double* t = r; r = rn; rn = t;
        t = s; s = sn; sn = t;
        if (err < limit) break;
    }
    if (tid == 0) {
        result[0] = (double)it;
        result[1] = err;
    }
}
