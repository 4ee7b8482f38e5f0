/* PageRank's first vectors in one launch: w = alpha ./ d where d != 0 (0 elsewhere: the
   dangling vertices), s = w / n, r = 1 / n, and state = [0, m] with m = (the vertices
   where w == 0) / n, the count folded per block and over the blocks in block order. */
#include "gb_sums.cuh"

extern "C" __global__ void gb_pagerank_start(
        const ip_t* __restrict__ indptr, const double* __restrict__ dv,
        const bool* __restrict__ dpres, int from_indptr, int has_dpres, double scale,
        double alpha, long long n, double* __restrict__ w, double* __restrict__ s,
        double* __restrict__ r, double* state, double* partials, unsigned int* ticket) {
    const double inv = 1.0 / (double)n;
    double dangling = 0.0;   /* a count: exact in a double */
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        double d;
        bool ok;
        if (from_indptr) {
            d = (double)(indptr[i + 1] - indptr[i]);
            if (scale != 1.0) d *= scale;
            ok = d != 0.0;
        } else {
            d = dv[i];
            ok = d != 0.0 && (!has_dpres || dpres[i]);
        }
        const double wi = ok ? alpha / d : 0.0;
        w[i] = wi;
        s[i] = wi * inv;
        r[i] = inv;
        if (wi == 0.0) dangling += 1.0;   /* as the step counts them */
    }
    if (gb_grid_sum2(0.0, dangling, partials, ticket, state)) state[1] /= (double)n;
}
