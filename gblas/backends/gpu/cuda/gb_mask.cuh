/* Row masks: with GB_ALLOW, output row i is computed only where allow[i] is true. */
#ifndef GB_MASK_CUH
#define GB_MASK_CUH
__device__ __forceinline__ bool gb_allowed(const bool* __restrict__ allow, long long row) {
#if GB_ALLOW
    return allow[row];
#else
    return true;
#endif
}
#endif
