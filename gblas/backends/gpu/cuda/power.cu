/* The vector work of one power iteration (eigenvector, Katz, HITS) in two launches:
   z = [x +] scale * y [+ b] with its squared norm, then x' = z / norm (or z) with the
   L1 change, both sums folded over the grid in block order (the same on every run). */
#include "gb_sums.cuh"

extern "C" __global__ void gb_power_combine(
        const double* __restrict__ y, const bool* __restrict__ ypres, int has_ypres,
        const double* __restrict__ x, int add_x, double scale,
        const double* __restrict__ b, int has_b, long long n, double* __restrict__ z,
        double* sums, double* partials, unsigned int* ticket) {
    double ss = 0.0;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        double v = scale * ((has_ypres && !ypres[i]) ? 0.0 : y[i]);
        if (add_x) v = x[i] + v;
        if (has_b) v = v + b[i];
        z[i] = v;
        ss += v * v;
    }
    gb_grid_sum2(ss, 0.0, partials, ticket, sums);
}

/* out = x' (out may be x); state_out = [|x' - x|_1, |z|_2^2]; the norm divides when
   normalize (1 for a zero norm, as NetworkX). */
extern "C" __global__ void gb_power_update(
        const double* __restrict__ z, const double* x, double* out, int normalize, long long n,
        const double* __restrict__ sums, double* state_out, double* partials,
        unsigned int* ticket) {
    const double ss = sums[0];
    const double norm = (normalize && ss > 0.0) ? sqrt(ss) : 1.0;
    double err = 0.0;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        double v = z[i] / norm;
        err += fabs(v - x[i]);
        out[i] = v;
    }
    if (gb_grid_sum2(err, 0.0, partials, ticket, state_out)) state_out[1] = ss;
}
