/* Push SpMSpV y = A x (sparse x) along the rows of A's transpose: one thread per edge
   leaving the frontier, products scattered with gb_scatter. */
#include "gb_mask.cuh"

extern "C" __global__ void gb_push(
    const ip_t* __restrict__ Tp, const ix_t* __restrict__ Tj, const av_t* __restrict__ Tx,
    const fi_t* __restrict__ xi, const xv_t* __restrict__ xv,
    const long long* __restrict__ offs, long long nf,
    const bool* __restrict__ allow, acc_t* __restrict__ acc, bool* __restrict__ ypres,
    li_t* __restrict__ list, unsigned long long* __restrict__ count)
{
    if (nf <= 0) return;
    const long long total = offs[nf - 1];
#if GB_ISO
    const T_t aiso = (T_t)Tx[0];
#endif
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += stride) {
        /* the frontier entry f owning edge e: the first with offs[f] > e */
        long long lo = 0, hi = nf - 1;
        while (lo < hi) {
            long long mid = (lo + hi) >> 1;
            if (offs[mid] > e) hi = mid; else lo = mid + 1;
        }
        long long before = lo ? offs[lo - 1] : 0;
        long long k = (long long)xi[lo];
        long long p = (long long)Tp[k] + (e - before);
        long long i = (long long)Tj[p];
        if (!gb_allowed(allow, i)) continue;
#if GB_ISO
        R_t v = (R_t)gb_mul(aiso, (T_t)xv[lo]);
#else
        R_t v = (R_t)gb_mul((T_t)Tx[p], (T_t)xv[lo]);
#endif
        gb_scatter(acc + i, v);
#if GB_LIST
        /* claim row i (its presence byte, through the 32-bit word holding it): the first
           claimer appends i to the list, one atomicAdd per warp for all its claimers */
        unsigned int* word = (unsigned int*)(ypres + (i & ~3LL));
        const unsigned int bit = 1u << (8 * (unsigned int)(i & 3));
        const bool first = !(atomicOr(word, bit) & bit);
        const unsigned int active = __activemask();
        const unsigned int want = __ballot_sync(active, first);
        if (want) {
            const unsigned int lane = threadIdx.x & 31u;
            const int leader = __ffs(want) - 1;
            unsigned long long base = 0;
            if ((int)lane == leader) base = atomicAdd(count, (unsigned long long)__popc(want));
            base = __shfl_sync(active, base, leader);
            if (first) list[base + __popc(want & ((1u << lane) - 1u))] = (li_t)i;
        }
#else
        ypres[i] = true;
#endif
    }
}
