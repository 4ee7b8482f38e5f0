/* Masked SpGEMM by expand-sort-compress: gb_expand makes every product with its key
   i * ncols + j (dropping those the mask forbids); gb_segreduce folds each run of equal
   keys after the sort. */
#include "gb_matrix_mask.cuh"

extern "C" __global__ void gb_expand(
    const long long* __restrict__ ce, long long pa0, long long pa1,
    long long e0, long long e1, const long long* __restrict__ arow,
    const aix_t* __restrict__ Aj, const av_t* __restrict__ Ax,
    const bp_t* __restrict__ Bp, const bix_t* __restrict__ Bj, const bv_t* __restrict__ Bx,
    const mp_t* __restrict__ Mp, const mix_t* __restrict__ Mj, const mv_t* __restrict__ Mv,
    long long ncols, long long* __restrict__ key, R_t* __restrict__ val)
{
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = e0 + (long long)blockIdx.x * blockDim.x + threadIdx.x; e < e1;
         e += stride) {
        /* the entry p of A owning product e: the first with ce[p] > e */
        long long lo = pa0, hi = pa1 - 1;
        while (lo < hi) {
            long long mid = (lo + hi) >> 1;
            if (ce[mid] > e) hi = mid; else lo = mid + 1;
        }
        long long p = lo;
        long long before = p ? ce[p - 1] : 0;
        long long k = (long long)Aj[p];
        long long q = (long long)Bp[k] + (e - before);
        long long j = (long long)Bj[q];
        long long i = arow[p];
        long long out = e - e0;
#if GB_MASK
        if (!gb_mask_allows(Mp, Mj, Mv, i, j)) {
            key[out] = -1;
            continue;
        }
#endif
#if GB_ISO_A
        T_t a = (T_t)Ax[0];
#else
        T_t a = (T_t)Ax[p];
#endif
#if GB_ISO_B
        T_t b = (T_t)Bx[0];
#else
        T_t b = (T_t)Bx[q];
#endif
        key[out] = i * ncols + j;
        val[out] = (R_t)gb_mul(a, b);
    }
}

/* Fold each run [starts[s], starts[s + 1]) of the sorted values with the monoid. */
extern "C" __global__ void gb_segreduce(
    const long long* __restrict__ starts, long long nseg, long long total,
    const R_t* __restrict__ val, R_t* __restrict__ out)
{
    long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= nseg) return;
    long long lo = starts[s], hi = s + 1 < nseg ? starts[s + 1] : total;
    R_t acc = val[lo];
    for (long long k = lo + 1; k < hi; ++k) {
#if GB_TERM_KIND == 1
        if (acc == GB_TERM) break;
#endif
        acc = gb_add(acc, val[k]);
    }
    out[s] = acc;
}
