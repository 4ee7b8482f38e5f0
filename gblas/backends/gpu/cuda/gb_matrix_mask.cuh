#ifndef GB_MATRIX_MASK_CUH
#define GB_MATRIX_MASK_CUH
/* Is (i, j) allowed by the mask?  Binary search of j in mask row i. */
__device__ __forceinline__ bool gb_mask_allows(
    const mp_t* __restrict__ Mp, const mix_t* __restrict__ Mj, const mv_t* __restrict__ Mv,
    long long i, long long j)
{
    long long lo = (long long)Mp[i], hi = (long long)Mp[i + 1], end = hi;
    while (lo < hi) {
        long long mid = (lo + hi) >> 1;
        if ((long long)Mj[mid] < j) lo = mid + 1; else hi = mid;
    }
    bool ok = lo < end && (long long)Mj[lo] == j;
#if GB_MVALUE
    ok = ok && (Mv[lo] != 0);
#endif
#if GB_MCOMP
    ok = !ok;
#endif
    return ok;
}
#endif
