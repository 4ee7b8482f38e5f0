/* PageRank's whole power iteration in one launch, for graphs whose products are too
   small to keep the device busy between launches.  Needs ip_t, ix_t (the CSR of A'),
   GB_G (lanes per short row, a power of two up to 32), GB_SMAX (the longest short row),
   GB_CHUNK (entries per warp chunk of a long row) and GB_MINB (blocks of 256 threads a
   multiprocessor must hold at once: the registers are capped to fit them).

   The grid holds no more blocks than the multiprocessors hold at once (every block
   resident), so the blocks can wait for each other: an iteration is

     phase 1  y_i of every short row (GB_G lanes each, r'_i, s'_i, the sums folded);
              each chunk of a long row summed by a warp into part[chunk]
     barrier  (only where there are long rows: gb_pull_fused.cuh)
     phase 2  each long row adds its chunks' sums in order and finishes as a short row;
              every block's two sums into partials (this iteration's half)
     barrier
              every block adds the blocks' sums in block order: the same err and m
              everywhere, so every block stops at the same iteration

   with the arithmetic of the planned loop (cuda/pagerank.cu after the pull product):
   r'_i = y_i + (alpha m + 1 - alpha) p_i, s'_i = r'_i w_i, err = |r' - r|_1,
   m' = sum(r' where w == 0).  Data that other blocks wrote in this launch is read
   through the L2 (__ldcg): a multiprocessor's L1 is not kept coherent with the others'. */
#include "gb_pull_fused.cuh"

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
        long long n, const double* __restrict__ m0,
        const long long* __restrict__ long_rows, const long long* __restrict__ cptr,
        const int* __restrict__ cslot, const long long* __restrict__ sched,
        double* r_a, double* r_b, double* s_a, double* s_b, double* part,
        double* partials, unsigned int* barrier, double* result) {
    const long long nlong = sched[0], nchunks = sched[1];
    double m = *m0, err = __longlong_as_double(0x7ff0000000000000LL);  /* +inf */
    int it = 0;
    double *r = r_a, *rn = r_b, *s = s_a, *sn = s_b;
    while (it < max_iter) {
        ++it;
        const double c = alpha * m + (1.0 - alpha);
        double e = 0.0, d = 0.0;
        /* phases 1 and 2: y = A' s, every row finished into r', s' and the sums */
        gb_pull_rows(indptr, indices, vals, has_vals, iso, n, long_rows, cptr, cslot,
                     nlong, nchunks, part, barrier,
                     [&](long long j) { return __ldcg(s + j); },
                     [&](long long i, double y) {
                         gb_finish_row(i, y, c, p, has_p, p_uniform, w, r, rn, sn, e, d);
                     });
        /* every block adds the blocks' sums in block order: the same err and m
           everywhere, so every block stops at the same iteration */
        gb_grid_totals(e, d, partials + (it & 1) * 2 * gridDim.x, barrier);
        err = e;
        m = d;
        double* t = r; r = rn; rn = t;
        t = s; s = sn; sn = t;
        if (err < limit) break;
    }
    if ((long long)blockIdx.x * blockDim.x + threadIdx.x == 0) {
        result[0] = (double)it;
        result[1] = err;
    }
}

