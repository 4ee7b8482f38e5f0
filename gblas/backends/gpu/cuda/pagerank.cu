/* One fused PageRank vector step: the next ranks and the two sums (the change and the
   dangling rank) folded per thread, warp and block, the blocks' pairs added by the
   last block to finish; s written in column order, or through s_pos into the order in
   which the next product reads it. */
#include "gb_sums.cuh"

extern "C" __global__ void gb_pagerank_step(
        const double* __restrict__ y, const bool* __restrict__ ypres, int has_ypres,
        const double* __restrict__ p, int has_p, double p_uniform,
        const double* __restrict__ r, const double* __restrict__ w, double alpha,
        long long n, const double* __restrict__ state_in,
        double* __restrict__ r_new, double* __restrict__ s_new,
        double* __restrict__ state_out, double* partials, unsigned int* ticket,
        const int* __restrict__ s_pos, int has_pos) {
    const double c = alpha * state_in[1] + (1.0 - alpha);
    double err = 0.0, dang = 0.0;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        double yi = (has_ypres && !ypres[i]) ? 0.0 : y[i];
        double rn = yi + c * (has_p ? p[i] : p_uniform);
        double wi = w[i];
        r_new[i] = rn;
        if (!has_pos) {
            s_new[i] = rn * wi;
        } else {
            const int q = s_pos[i];   /* s in a product's operand layout */
            if (q >= 0) s_new[q] = rn * wi;
        }
        err += fabs(rn - r[i]);
        if (wi == 0.0) dang += rn;
    }
    gb_grid_sum2(err, dang, partials, ticket, state_out);
}
