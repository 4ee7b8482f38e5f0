/* The MLP-first row kernels of gpu_segmented (kernel="stream"): every lane issues all
   the loads of its share of a row block or long-row chunk before it uses any. */
#include "gb_rows.cuh"

/* Load (clamped) the GB_ITER entries p = lo + lane + 32 k of [lo, hi) and their x values;
   `ok[k]` tells which are real entries with a present x.  All loads are issued before
   any is used. */
__device__ __forceinline__ void gb_load_products(
    long long lo, long long hi, int lane,
    const ix_t* __restrict__ Aj, const av_t* __restrict__ Ax,
    const xv_t* __restrict__ X, const bool* __restrict__ xpres,
    R_t (&v)[GB_ITER], bool (&ok)[GB_ITER])
{
    ix_t col[GB_ITER];
#if !GB_ISO
    av_t av[GB_ITER];
#endif
#pragma unroll
    for (int k = 0; k < GB_ITER; ++k) {
        const long long p0 = lo + lane + 32 * k;
        const long long p = p0 < hi ? p0 : lo;
        col[k] = Aj[p];
#if !GB_ISO
        av[k] = Ax[p];
#endif
    }
    xv_t xk[GB_ITER];
#pragma unroll
    for (int k = 0; k < GB_ITER; ++k) xk[k] = X[col[k]];
#if GB_XPRES
    bool xp[GB_ITER];
#pragma unroll
    for (int k = 0; k < GB_ITER; ++k) xp[k] = xpres[col[k]];
#endif
#if GB_ISO
    const T_t aiso = (T_t)Ax[0];
#endif
#pragma unroll
    for (int k = 0; k < GB_ITER; ++k) {
        ok[k] = lo + lane + 32 * k < hi;
#if GB_XPRES
        ok[k] = ok[k] && xp[k];
#endif
#if GB_ISO
        v[k] = (R_t)gb_mul(aiso, (T_t)xk[k]);
#else
        v[k] = (R_t)gb_mul((T_t)av[k], (T_t)xk[k]);
#endif
    }
}

/* One warp per row block of at most GB_ITER * 32 entries (consecutive short rows). */
extern "C" __global__ void gb_seg_stream(
    const ip_t* __restrict__ Ap, const ix_t* __restrict__ Aj, const av_t* __restrict__ Ax,
    const xv_t* __restrict__ X, const bool* __restrict__ xpres,
    const bool* __restrict__ allow, const long long* __restrict__ blk, long long nblk,
    long long nrows, R_t* __restrict__ y, bool* __restrict__ ypres)
{
    __shared__ R_t sv[GB_WARPS][GB_ITER * 32];
    __shared__ bool sp[GB_WARPS][GB_ITER * 32];
    const int w = (int)(threadIdx.x >> 5), lane = (int)(threadIdx.x & 31);
    const long long b = (long long)blockIdx.x * GB_WARPS + w;
    if (b >= nblk) return;
    const long long rb = blk[b], re = b + 1 < nblk ? blk[b + 1] : nrows;
    const long long base = (long long)Ap[rb], end = (long long)Ap[re];
    if (re - rb == 1 && end - base > GB_SMAX) return;  /* a long row: gb_seg_long's */
    if (end > base) {
        R_t v[GB_ITER];
        bool ok[GB_ITER];
        gb_load_products(base, end, lane, Aj, Ax, X, xpres, v, ok);
#pragma unroll
        for (int k = 0; k < GB_ITER; ++k) {
            sv[w][lane + 32 * k] = v[k];
            sp[w][lane + 32 * k] = ok[k];
        }
    }
    __syncwarp();
    gb_fold_staged_rows<true>(rb, re, lane, base, Ap, allow, sv[w], sp[w], y, ypres);
}

/* One warp per chunk of GB_ITER * 32 entries of a long row. */
extern "C" __global__ void gb_seg_long(
    const ip_t* __restrict__ Ap, const ix_t* __restrict__ Aj, const av_t* __restrict__ Ax,
    const xv_t* __restrict__ X, const bool* __restrict__ xpres,
    const bool* __restrict__ allow,
    const long long* __restrict__ lrows, const long long* __restrict__ cptr,
    const int* __restrict__ cslot, long long nchunks,
    R_t* __restrict__ part, bool* __restrict__ ppres)
{
    const long long c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (c >= nchunks) return;
    const int lane = (int)(threadIdx.x & 31);
    const int s = cslot[c];
    const long long row = lrows[s];
    bool have = false;
    R_t acc = (R_t)0;
    if (gb_allowed(allow, row)) {
        const long long lo = (long long)Ap[row] + (c - cptr[s]) * (long long)(GB_ITER * 32);
        const long long end = (long long)Ap[row + 1];
        const long long hi = lo + GB_ITER * 32 < end ? lo + GB_ITER * 32 : end;
        R_t v[GB_ITER];
        bool ok[GB_ITER];
        gb_load_products(lo, hi, lane, Aj, Ax, X, xpres, v, ok);
#pragma unroll
        for (int k = 0; k < GB_ITER; ++k) gb_fold_if(have, acc, ok[k], v[k]);
    }
    gb_group_reduce<32>(0xffffffffu, have, acc);
    if (lane == 0) gb_store(part, ppres, c, have, acc);
}

extern "C" __global__ void gb_seg_combine(
    const long long* __restrict__ lrows, const long long* __restrict__ cptr, long long nlong,
    const R_t* __restrict__ part, const bool* __restrict__ ppres,
    R_t* __restrict__ y, bool* __restrict__ ypres)
{
    const long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (s < nlong) gb_combine_chunks(lrows, cptr, s, part, ppres, y, ypres);
}
