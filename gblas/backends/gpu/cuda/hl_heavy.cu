/* The heavy tiles of gpu_heavy_light: one thread block per unit folds its entries in
   registers, rows across threads by a segmented scan; each row of the unit is written
   once into the unit's slice of the partial buffer (no atomics: any monoid). */
#include "gb_fold.cuh"
#include "gb_mask.cuh"

#define GB_NW (GB_NT / 32)
#define GB_PAD 0xFFFF

__device__ __forceinline__ void gb_hl_put(R_t* __restrict__ part, bool* __restrict__ ppres,
                                          long long at, R_t v) {
    part[at] = v;
    ppres[at] = true;
}

/* One block per unit: units[u] = (start, per, cp, rp, lo, span). */
extern "C" __global__ void __launch_bounds__(GB_NT) gb_hl_heavy(
    const long long* __restrict__ units, const long long* __restrict__ uoff,
    const unsigned short* __restrict__ hrow, const unsigned short* __restrict__ hcol,
    const av_t* __restrict__ hval, const xv_t* __restrict__ X,
    const bool* __restrict__ xpres, long long nx, const bool* __restrict__ allow,
    R_t* __restrict__ part, bool* __restrict__ ppres)
{
    __shared__ int s_rt[GB_NT];   /* last row of every thread */
    __shared__ int s_fr[GB_NT];   /* first row of every thread */
    __shared__ R_t s_v[GB_NT];    /* scanned value of the last row */
    __shared__ bool s_h[GB_NT];
    __shared__ R_t w_v[GB_NW];    /* per warp: scan at its last lane, then the carry in */
    __shared__ bool w_h[GB_NW];
    __shared__ bool w_f[GB_NW];
    __shared__ R_t c_v[GB_NW];
    __shared__ bool c_h[GB_NW];

    const long long* U = units + (long long)blockIdx.x * 6;
    const long long start = U[0];
    const int per = (int)U[1];
    const long long cp = U[2], rp = U[3];
    const int lo = (int)U[4], span = (int)U[5];
    const long long off = uoff[blockIdx.x] - lo;  /* partial of row offset r: off + r */
    const int t = (int)threadIdx.x, lane = t & 31, w = t >> 5;
    const long long c0 = cp * (long long)GB_TC;

#if GB_STAGE
    /* stage the column panel's slice of x (and its flags) in shared memory */
    extern __shared__ __align__(16) unsigned char gb_dyn[];
    xv_t* sx = (xv_t*)gb_dyn;
#if GB_XPRES
    bool* sxp = (bool*)(sx + GB_TC);
#endif
    const int ncl = (int)(nx - c0 < GB_TC ? nx - c0 : GB_TC);
    for (int k = t; k < ncl; k += GB_NT) {
        sx[k] = X[c0 + k];
#if GB_XPRES
        sxp[k] = xpres[c0 + k];
#endif
    }
#else
    /* gather x from global memory (through the L1) */
    const xv_t* __restrict__ sx = X + c0;
#if GB_XPRES
    const bool* __restrict__ sxp = xpres + c0;
#endif
#endif
    /* clear the unit's presence flags */
    for (int k = t; k < span; k += GB_NT) ppres[off + lo + k] = false;
    __syncthreads();

    const long long row0 = rp * (long long)GB_TR;
#if GB_ISO
    const T_t aiso = (T_t)hval[0];
#endif
    /* fold this thread's entries row by row; rows strictly inside are complete.  The
       entries come in batches of GB_BATCH: all their loads (clamped to a valid entry),
       then all their x gathers, then the folds, so that loads overlap. */
    int cur = -1;
    bool rok = false, have = false, single = true, hh = false;
    int hr = -1;
    R_t acc = (R_t)0, hv = (R_t)0;
    const long long base = start + t;
    for (int k0 = 0; k0 < per; k0 += GB_BATCH) {
        int rr[GB_BATCH], cc[GB_BATCH];
#if !GB_ISO
        av_t aa[GB_BATCH];
#endif
#pragma unroll
        for (int b = 0; b < GB_BATCH; ++b) {
            const int k = k0 + b < per ? k0 + b : per - 1;
            const long long p = base + (long long)k * GB_NT;
            rr[b] = (int)hrow[p];
            cc[b] = (int)hcol[p];
#if !GB_ISO
            aa[b] = hval[p];
#endif
        }
        xv_t xx[GB_BATCH];
#if GB_XPRES
        bool xq[GB_BATCH];
#endif
#pragma unroll
        for (int b = 0; b < GB_BATCH; ++b) {
            const int c = rr[b] != GB_PAD ? cc[b] : 0;
            xx[b] = sx[c];
#if GB_XPRES
            xq[b] = sxp[c];
#endif
        }
#pragma unroll
        for (int b = 0; b < GB_BATCH; ++b) {
            if (k0 + b >= per) break;
            const int r = rr[b];
            if (r != cur) {
                if (cur >= 0) {
                    if (single) {
                        hr = cur; hh = have; hv = acc; single = false;
                    } else if (have) {
                        gb_hl_put(part, ppres, off + cur, acc);
                    }
                }
                cur = r;
                have = false;
                rok = r != GB_PAD;
                rok = rok && gb_allowed(allow, row0 + r);
            }
            bool ok = rok;
#if GB_XPRES
            ok = ok && xq[b];
#endif
            if (ok) {
#if GB_ISO
                const R_t v = (R_t)gb_mul(aiso, (T_t)xx[b]);
#else
                const R_t v = (R_t)gb_mul((T_t)aa[b], (T_t)xx[b]);
#endif
                gb_fold(have, acc, v);
            }
        }
    }
    const int rt = cur;  /* the last row (GB_PAD for padding) */
    s_rt[t] = rt;
    s_fr[t] = single ? rt : hr;
    __syncthreads();

    /* segmented inclusive scan of the last rows' values: a segment starts at a thread
       whose last row began in it */
    bool F = (t == 0) || !single || s_rt[t - 1] != rt;
    bool sh = have;
    R_t sv = acc;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const R_t ov = gb_shfl_up(0xffffffffu, sv, o);
        const bool oh = gb_shfl_up(0xffffffffu, sh, o);
        const bool oF = gb_shfl_up(0xffffffffu, F, o);
        if (lane >= o) {
            if (!F && oh) {
                sv = sh ? gb_add(ov, sv) : ov;
                sh = true;
            }
            F = F || oF;
        }
    }
    if (lane == 31) {
        w_v[w] = sv;
        w_h[w] = sh;
        w_f[w] = F;
    }
    __syncthreads();
    if (t == 0) {
        bool ch = false;
        R_t cv = (R_t)0;
        for (int k = 0; k < GB_NW; ++k) {
            c_h[k] = ch;
            c_v[k] = cv;
            if (w_f[k]) {
                ch = w_h[k];
                cv = w_v[k];
            } else if (w_h[k]) {
                cv = ch ? gb_add(cv, w_v[k]) : w_v[k];
                ch = true;
            }
        }
    }
    __syncthreads();
    if (!F && c_h[w]) {
        sv = sh ? gb_add(c_v[w], sv) : c_v[w];
        sh = true;
    }
    s_v[t] = sv;
    s_h[t] = sh;
    __syncthreads();

    /* the first row, with what the previous threads folded of it */
    if (!single) {
        bool h2 = hh;
        R_t v2 = hv;
        if (t > 0 && s_rt[t - 1] == hr && s_h[t - 1]) {
            v2 = hh ? gb_add(s_v[t - 1], hv) : s_v[t - 1];
            h2 = true;
        }
        if (h2) gb_hl_put(part, ppres, off + hr, v2);
    }
    /* the last row, by the thread where it ends */
    if (rt != GB_PAD && sh && (t == GB_NT - 1 || s_fr[t + 1] != rt))
        gb_hl_put(part, ppres, off + rt, sv);
}
