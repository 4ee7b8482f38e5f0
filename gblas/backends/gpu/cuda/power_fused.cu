/* Eigenvector centrality's and HITS's power iterations in one launch, for graphs whose
   products are too small to keep the device busy between launches (as
   pagerank_fused.cu).  Needs ip_t, ix_t and the GB_* flags of gb_pull_fused.cuh, and
   GB_MINB (blocks of 256 threads a multiprocessor must hold at once).

   Iterations k0 + 1 .. k1 (fewer when the L1 change falls below limit), each with the
   arithmetic of the loop of planned products and cuda/power.cu's step, in place:

     eigenvector   z = x + A' x                 (the CSR of A' gathers x)
                   |z|_2 over the grid          barrier
                   x = z / |z|_2, err = |x' - x|_1 over the grid   barrier
     hits          z = A' h                     (authorities gather hub scores)
                   |z|_2 over the grid          barrier
                   h = A (z / |z|_2)            (hubs gather the new authorities)
                   a = z / |z|_2, err = |a' - a|_1 over the grid   barrier

   (a zero norm divides by 1, as NetworkX).  errs[k - 1] receives iteration k's change,
   result[0 .. 2] the last iteration, its change and whether the rate of the changes
   stopped it (gb_slow: the caller continues with Lanczos cycles).  gb_gram_fused is one
   product of A' A, the operator of HITS's Lanczos continuation: w = A v, barrier,
   y = A' w.  Data that other blocks wrote in
   this launch is read through the L2 (__ldcg). */
#include "gb_pull_fused.cuh"

/* one CSR's kernel arguments, names prefixed by p: its arrays, value flag and iso value,
   then the schedule of its long rows (sched: its counts, gb_pull_fused.cuh);
   GB_SCHEDULE(p) reads the counts, GB_PULL_OVER(p) passes the whole to gb_pull_rows */
#define GB_CSR_ARGS(p)                                                                   \
    const ip_t* __restrict__ p##indptr, const ix_t* __restrict__ p##indices,             \
    const double* __restrict__ p##vals, int p##has_vals, double p##iso,                  \
    const long long* __restrict__ p##long_rows, const long long* __restrict__ p##cptr,   \
    const int* __restrict__ p##cslot, const long long* __restrict__ p##sched
#define GB_SCHEDULE(p) const long long p##nlong = p##sched[0], p##nchunks = p##sched[1]
#define GB_PULL_OVER(p)                                                                  \
    p##indptr, p##indices, p##vals, p##has_vals, p##iso, n, p##long_rows, p##cptr,       \
    p##cslot, p##nlong, p##nchunks, part, barrier

#define GB_INF __longlong_as_double(0x7ff0000000000000LL)

/* the norm a step divides by, |z|_2 (1 when it is 0), from this thread's share ss of
   sum z_i^2: the grid's sum, the same in every block */
__device__ __forceinline__ double gb_grid_norm(double ss, double* partials, unsigned int& half,
                                               unsigned int* barrier) {
    double unused = 0.0;
    gb_grid_totals(ss, unused, partials + (half++ & 1u) * 2 * gridDim.x, barrier);
    return ss > 0.0 ? sqrt(ss) : 1.0;
}

/* v = z / norm for this thread's vertices, in place, and their share of |v - v_old|_1 */
__device__ __forceinline__ double gb_divide_in_place(const double* z, double* v,
                                                     double norm, long long n) {
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    double e = 0.0;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += nthreads) {
        const double t = __ldcg(z + i) / norm;
        e += fabs(t - v[i]);
        v[i] = t;
    }
    return e;
}

/* iteration it's change e summed over the grid (into err, the same in every block) and
   recorded in errs; whether the iteration stops there */
__device__ __forceinline__ bool gb_converged(double e, int it, double limit, double* partials,
                                             unsigned int& half, unsigned int* barrier,
                                             double* errs, double& err) {
    double unused = 0.0;
    gb_grid_totals(e, unused, partials + (half++ & 1u) * 2 * gridDim.x, barrier);
    err = e;
    if (blockIdx.x == 0 && threadIdx.x == 0) errs[it - 1] = err;
    return err < limit;
}

/* the switch to Lanczos cycles (gblas.algorithms.centrality._slow's rule): at every
   tenth iteration from check_after on (0: never), whether the last ten changes' mean
   rate predicts more than predicted iterations to bring err below limit (the same in
   every block: err is, and errs was written many barriers ago) */
__device__ __forceinline__ bool gb_slow(int it, double err, double limit, int check_after,
                                        double predicted, const double* errs) {
    if (check_after <= 0 || it < check_after || it < 11 || it % 10 != 0 || !(err > limit) ||
        !(limit > 0.0))
        return false;
    const double before = __ldcg(errs + it - 11);
    if (!(before > 0.0) || !isfinite(err)) return false;
    const double rate = pow(err / before, 0.1);
    return rate >= 1.0 || log(limit / err) / log(rate) > predicted;
}

/* the last iteration run, its change, and whether the switch stopped it */
__device__ __forceinline__ void gb_result(int it, double err, bool slow, double* result) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        result[0] = (double)it;
        result[1] = err;
        result[2] = slow ? 1.0 : 0.0;
    }
}

/* Iterations k0 + 1 .. k1 of a power method: each runs step(half), which returns the
   iteration's change, until the change is below limit or the convergence is slow (the
   Lanczos switch); the iteration count, the last change and the switch in result. */
template <class Step>
__device__ __forceinline__ void gb_power_loop(int k0, int k1, double limit, int check_after,
                                              double predicted, double* partials,
                                              unsigned int* barrier, double* errs,
                                              double* result, Step step) {
    double err = GB_INF;
    int it = k0;
    unsigned int half = 0;
    bool slow = false;
    while (it < k1) {
        ++it;
        const double e = step(half);
        if (gb_converged(e, it, limit, partials, half, barrier, errs, err)) break;
        if ((slow = gb_slow(it, err, limit, check_after, predicted, errs))) break;
    }
    gb_result(it, err, slow, result);
}

extern "C" __global__ void __launch_bounds__(256, GB_MINB) gb_eigen_fused(
        GB_CSR_ARGS(), long long n, double limit, int k0, int k1, int check_after,
        double predicted, double* x, double* z, double* part,
        double* partials, unsigned int* barrier, double* errs, double* result) {
    GB_SCHEDULE();
    gb_power_loop(k0, k1, limit, check_after, predicted, partials, barrier, errs, result,
                  [&](unsigned int& half) {
        double ss = 0.0;
        /* z = x + A' x (every vertex sums its in-neighbours' scores) */
        gb_pull_rows(GB_PULL_OVER(), [&](long long j) { return __ldcg(x + j); },
                     [&](long long i, double y) {
                         const double v = __ldcg(x + i) + 1.0 * y;
                         z[i] = v;
                         ss += v * v;
                     });
        /* x' = z / |z|_2; the change */
        return gb_divide_in_place(z, x, gb_grid_norm(ss, partials, half, barrier), n);
    });
}

extern "C" __global__ void __launch_bounds__(256, GB_MINB) gb_hits_fused(
        GB_CSR_ARGS(t_), GB_CSR_ARGS(), long long n, double limit, int k0, int k1,
        int check_after, double predicted, double* h, double* a, double* z, double* part,
        double* partials, unsigned int* barrier, double* errs, double* result) {
    GB_SCHEDULE(t_);
    GB_SCHEDULE();
    gb_power_loop(k0, k1, limit, check_after, predicted, partials, barrier, errs, result,
                  [&](unsigned int& half) {
        double ss = 0.0;
        /* z = A' h: authorities gather the hub scores of their in-neighbours */
        gb_pull_rows(GB_PULL_OVER(t_), [&](long long j) { return __ldcg(h + j); },
                     [&](long long i, double y) {
                         const double v = 1.0 * y;
                         z[i] = v;
                         ss += v * v;
                     });
        const double norm = gb_grid_norm(ss, partials, half, barrier);
        /* h = A a' with a' = z / |z|_2: hubs gather their out-neighbours' authorities
           (h is no longer read in this iteration) */
        gb_pull_rows(GB_PULL_OVER(), [&](long long j) { return __ldcg(z + j) / norm; },
                     [&](long long i, double y) { h[i] = 1.0 * y; });
        /* a' and its change */
        return gb_divide_in_place(z, a, norm, n);
    });
}

extern "C" __global__ void __launch_bounds__(256, GB_MINB) gb_gram_fused(
        GB_CSR_ARGS(t_), GB_CSR_ARGS(), long long n, const double* __restrict__ v, double* w,
        double* y, double* part, unsigned int* barrier) {
    GB_SCHEDULE(t_);
    GB_SCHEDULE();
    /* w = A v: hubs gather their out-neighbours' scores */
    gb_pull_rows(GB_PULL_OVER(), [&](long long j) { return v[j]; },
                 [&](long long i, double s) { w[i] = 1.0 * s; });
    gb_grid_barrier(barrier, barrier + 1);
    /* y = A' w: authorities gather their in-neighbours' hub scores */
    gb_pull_rows(GB_PULL_OVER(t_), [&](long long j) { return __ldcg(w + j); },
                 [&](long long i, double s) { y[i] = 1.0 * s; });
}
