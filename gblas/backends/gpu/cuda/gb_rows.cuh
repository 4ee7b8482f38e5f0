/* Row blocks of the CSR-stream pull kernels: a warp stages the products of a block of
   consecutive short rows in shared memory, then each lane folds whole rows from there. */
#ifndef GB_ROWS_CUH
#define GB_ROWS_CUH
#include "gb_fold.cuh"
#include "gb_mask.cuh"

/* Fold and store rows [rb, re), one per lane: row i's products are sv[Ap[i] - base ..
   Ap[i + 1] - base) (with FLAGS, only those whose sp is set). */
template <bool FLAGS, typename P>
__device__ __forceinline__ void gb_fold_staged_rows(
    long long rb, long long re, int lane, long long base, const P* __restrict__ Ap,
    const bool* __restrict__ allow, const R_t* sv, const bool* sp,
    R_t* __restrict__ y, bool* __restrict__ ypres)
{
    for (long long row = rb + lane; row < re; row += 32) {
        bool have = false;
        R_t acc = (R_t)0;
        if (gb_allowed(allow, row)) {
            const int lo = (int)((long long)Ap[row] - base);
            const int hi = (int)((long long)Ap[row + 1] - base);
            for (int k = lo; k < hi; ++k) {
                if (FLAGS && !sp[k]) continue;
                gb_fold(have, acc, sv[k]);
                if (gb_done(acc)) break;
            }
        }
        gb_store(y, ypres, row, have, acc);
    }
}
#endif
