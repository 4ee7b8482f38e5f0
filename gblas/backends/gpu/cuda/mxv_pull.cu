/* Masked pull SpMV y = A x (dense x) over a semiring: short rows by lane groups
   (gb_pull_short) or CSR-stream row blocks (gb_pull_stream), long rows in chunks of one
   warp each (gb_pull_long) combined per row (gb_pull_combine). */
#include "gb_rows.cuh"

#define GB_GMASK(G) ((G) == 32 ? 0xffffffffu \
    : (((1u << ((G) & 31)) - 1u) << ((threadIdx.x & 31u) & ~(unsigned)((G) - 1))))

/* GB_NX > 0: every thread block first copies x (GB_NX values, and their flags) into
   dynamic shared memory and gathers from there; the grid is then about one block per
   multiprocessor and each block loops over its share of the work (GB_STRIDE).
   Otherwise one work item per warp / group, no loop. */
#if GB_NX > 0
#define GB_STAGE_X(X, xpres)                                                  \
    extern __shared__ unsigned char gb_dyn[];                                 \
    xv_t* gb_sx = (xv_t*)gb_dyn;                                              \
    bool* gb_sxp = (bool*)(gb_sx + GB_NX);                                    \
    for (int k_ = threadIdx.x; k_ < GB_NX; k_ += blockDim.x) {                \
        gb_sx[k_] = X[k_];                                                    \
        if (GB_XPRES) gb_sxp[k_] = xpres[k_];                                 \
    }                                                                         \
    __syncthreads();                                                          \
    X = gb_sx;                                                                \
    xpres = gb_sxp;
#define GB_STRIDE(per_block) ((long long)gridDim.x * (per_block))
#else
#define GB_STAGE_X(X, xpres)
#define GB_STRIDE(per_block) (1LL << 62)
#endif

/* Fold the products of entries [lo, hi) of one row, G lanes striding through them. */
template <int G>
__device__ __forceinline__ void gb_row_fold(
    ip_t lo, ip_t hi, int lane, unsigned gmask,
    const ix_t* __restrict__ Aj, const av_t* __restrict__ Ax,
    const xv_t* __restrict__ X, const bool* __restrict__ xpres,
    bool& have, R_t& acc)
{
#if GB_ISO
    const T_t aiso = (T_t)Ax[0];
#endif
#if GB_TERM_KIND == 0
#pragma unroll 4
#endif
    for (ip_t base = lo; base < hi; base += G) {
        ip_t p = base + lane;
        if (p < hi) {
            ix_t j = Aj[p];
#if GB_XPRES
            if (xpres[j])
#endif
            {
#if GB_ISO
                R_t v = (R_t)gb_mul(aiso, (T_t)X[j]);
#else
                R_t v = (R_t)gb_mul((T_t)Ax[p], (T_t)X[j]);
#endif
                gb_fold(have, acc, v);
            }
        }
#if GB_TERM_KIND == 2
        if (__any_sync(gmask, have)) break;
#elif GB_TERM_KIND == 1
        if (__any_sync(gmask, have && acc == GB_TERM)) break;
#endif
    }
}

extern "C" __global__ void gb_pull_short(
    const ip_t* __restrict__ Ap, const ix_t* __restrict__ Aj, const av_t* __restrict__ Ax,
    const xv_t* __restrict__ X, const bool* __restrict__ xpres,
    const bool* __restrict__ allow, long long nrows,
    R_t* __restrict__ y, bool* __restrict__ ypres)
{
    GB_STAGE_X(X, xpres)
    const int lane = (int)(threadIdx.x & (GB_G - 1));
    const unsigned gmask = GB_GMASK(GB_G);
    for (long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / GB_G;
         row < nrows; row += GB_STRIDE(blockDim.x / GB_G)) {
        ip_t lo = Ap[row], hi = Ap[row + 1];
        if (hi - lo > GB_SMAX) continue;  /* a long row: gb_pull_long's */
        bool have = false;
        R_t acc = (R_t)0;
        if (gb_allowed(allow, row))
            gb_row_fold<GB_G>(lo, hi, lane, gmask, Aj, Ax, X, xpres, have, acc);
        gb_group_reduce<GB_G>(gmask, have, acc);
        if (lane == 0) gb_store(y, ypres, row, have, acc);
    }
}

/* CSR-stream: one warp per block of consecutive short rows holding at most GB_CAP
   entries; the products are streamed into shared memory with coalesced loads, then each
   lane folds whole rows from there. */
extern "C" __global__ void gb_pull_stream(
    const ip_t* __restrict__ Ap, const ix_t* __restrict__ Aj, const av_t* __restrict__ Ax,
    const xv_t* __restrict__ X, const bool* __restrict__ xpres,
    const bool* __restrict__ allow, const long long* __restrict__ blk, long long nblk,
    long long nrows, R_t* __restrict__ y, bool* __restrict__ ypres)
{
    __shared__ R_t sv[GB_WARPS][GB_CAP];
#if GB_XPRES
    __shared__ bool sp[GB_WARPS][GB_CAP];
#endif
    GB_STAGE_X(X, xpres)
    const int w = (int)(threadIdx.x >> 5), lane = (int)(threadIdx.x & 31);
#if GB_ISO
    const T_t aiso = (T_t)Ax[0];
#endif
    for (long long b = (long long)blockIdx.x * GB_WARPS + w; b < nblk;
         b += GB_STRIDE(GB_WARPS)) {
    const long long rb = blk[b], re = b + 1 < nblk ? blk[b + 1] : nrows;
    const ip_t base = Ap[rb], end = Ap[re];
    if (re - rb == 1 && end - base > GB_SMAX) continue;  /* a long row: gb_pull_long's */
#pragma unroll 4
    for (ip_t p = base + lane; p < end; p += 32) {
        ix_t j = Aj[p];
#if GB_ISO
        sv[w][p - base] = (R_t)gb_mul(aiso, (T_t)X[j]);
#else
        sv[w][p - base] = (R_t)gb_mul((T_t)Ax[p], (T_t)X[j]);
#endif
#if GB_XPRES
        sp[w][p - base] = xpres[j];
#endif
    }
    __syncwarp();
#if GB_XPRES
    gb_fold_staged_rows<true>(rb, re, lane, base, Ap, allow, sv[w], sp[w], y, ypres);
#else
    gb_fold_staged_rows<false>(rb, re, lane, base, Ap, allow, sv[w], (const bool*)0, y, ypres);
#endif
    __syncwarp();  /* the next block's products overwrite sv */
    }
}

extern "C" __global__ void gb_pull_long(
    const ip_t* __restrict__ Ap, const ix_t* __restrict__ Aj, const av_t* __restrict__ Ax,
    const xv_t* __restrict__ X, const bool* __restrict__ xpres,
    const bool* __restrict__ allow,
    const long long* __restrict__ lrows, const long long* __restrict__ cptr,
    const int* __restrict__ cslot, long long nchunks,
    R_t* __restrict__ part, bool* __restrict__ ppres)
{
    GB_STAGE_X(X, xpres)
    const int lane = (int)(threadIdx.x & 31);
    for (long long c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; c < nchunks;
         c += GB_STRIDE(blockDim.x >> 5)) {
        int s = cslot[c];
        long long row = lrows[s];
        bool have = false;
        R_t acc = (R_t)0;
        if (gb_allowed(allow, row)) {
            long long lo = (long long)Ap[row] + (c - cptr[s]) * (long long)GB_CHUNK;
            long long end = (long long)Ap[row + 1];
            long long hi = lo + GB_CHUNK < end ? lo + GB_CHUNK : end;
            gb_row_fold<32>((ip_t)lo, (ip_t)hi, lane, 0xffffffffu, Aj, Ax, X, xpres, have,
                            acc);
        }
        gb_group_reduce<32>(0xffffffffu, have, acc);
        if (lane == 0) gb_store(part, ppres, c, have, acc);
    }
}

extern "C" __global__ void gb_pull_combine(
    const long long* __restrict__ lrows, const long long* __restrict__ cptr, long long nlong,
    const R_t* __restrict__ part, const bool* __restrict__ ppres,
    R_t* __restrict__ y, bool* __restrict__ ypres)
{
    long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (s < nlong) gb_combine_chunks(lrows, cptr, s, part, ppres, y, ypres);
}
