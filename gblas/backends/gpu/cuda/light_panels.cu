/* The light column panels of gpu_heavy_light: gb_lp_stream writes one partial per run
   of a row within a group of entries (the stream buffer), gb_lp_reduce folds them per
   row panel into shared-memory accumulators with atomic updates (gb_scatter).  With
   GB_PR, gb_lp_reduce ends with PageRank's vector step on its rows instead of writing
   y (gb_pagerank_step's arithmetic, y never stored). */
#include "gb_fold.cuh"
#include "gb_mask.cuh"
#if GB_PR
#include "gb_sums.cuh"
#endif

#define GB_GROUP (32 * GB_K)
#define GB_HEAD 0x8000u
#define GB_RK 8   /* partials per lane per step of gb_lp_reduce */
#define GB_WB 8   /* rows per thread at a time when gb_lp_reduce writes y */

/* a lane's GB_K column offsets in one 8- or 16-byte load */
#if GB_K == 8
typedef uint4 gb_raw_t;
#else
typedef uint2 gb_raw_t;
#endif

/* a lane's share of group g: its column offsets, its values, and the group's first
   partial (groups never pass the padded end) */
__device__ __forceinline__ void gb_lp_load(
    long long g, int lane, const unsigned short* __restrict__ ent,
    const av_t* __restrict__ val, const long long* __restrict__ gbase,
    gb_raw_t& raw, av_t (&vals)[GB_K], long long& g0)
{
    const long long base = g * GB_GROUP + GB_K * lane;
    raw = *reinterpret_cast<const gb_raw_t*>(ent + base);
#if !GB_ISO
#pragma unroll
    for (int k = 0; k < GB_K; ++k) vals[k] = val[base + k];
#endif
    g0 = gbase[g];
}

/* the head flags of a lane's GB_K entries as bits 0 .. GB_K - 1: the high byte of every
   16-bit offset gathered by a byte permute, then their top bits packed by one multiply
   (bit 8i lands on 24 + i, every other product bit below 24) */
__device__ __forceinline__ unsigned gb_lp_heads4(unsigned lo, unsigned hi) {
    const unsigned t = (__byte_perm(lo, hi, 0x7531) >> 7) & 0x01010101u;
    return (t * 0x01020408u) >> 24;
}
#if GB_K == 8
__device__ __forceinline__ unsigned gb_lp_heads(uint4 r) {
    return gb_lp_heads4(r.x, r.y) | (gb_lp_heads4(r.z, r.w) << 4);
}
#else
__device__ __forceinline__ unsigned gb_lp_heads(uint2 r) { return gb_lp_heads4(r.x, r.y); }
#endif

/* n bytes from global to shared memory by the whole block: 16 at a time, four loads in
   flight per thread, when both ends allow */
__device__ __forceinline__ void gb_lp_stage(unsigned char* __restrict__ d,
                                            const unsigned char* __restrict__ s, int n) {
    int done = 0;
    if ((((size_t)s | (size_t)d) & 15) == 0) {
        const uint4* s4 = (const uint4*)s;
        uint4* d4 = (uint4*)d;
        const int n4 = n >> 4, step = (int)blockDim.x;
        int k = (int)threadIdx.x;
        for (; k + 3 * step < n4; k += 4 * step) {
            const uint4 a = s4[k], b = s4[k + step], c = s4[k + 2 * step],
                        e = s4[k + 3 * step];
            d4[k] = a;
            d4[k + step] = b;
            d4[k + 2 * step] = c;
            d4[k + 3 * step] = e;
        }
        for (; k < n4; k += step) d4[k] = s4[k];
        done = n4 << 4;
    }
    for (int k = done + (int)threadIdx.x; k < n; k += (int)blockDim.x) d[k] = s[k];
}

/* the runs begun in lanes up to this one (inclusive scan of nh over the warp) */
__device__ __forceinline__ int gb_lp_before(int nh, int lane) {
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const int t = __shfl_up_sync(0xffffffffu, nh, o);
        if (lane >= o) nh += t;
    }
    return nh;
}

/* bounded for blocks of up to 1024 threads (at most 64 registers): with 8-byte values
   the compiler would otherwise take more */
extern "C" __global__ void __launch_bounds__(1024) gb_lp_stream(
    const unsigned short* __restrict__ ent, const av_t* __restrict__ val,
    const xv_t* __restrict__ X, const bool* __restrict__ xpres, long long nx,
    const long long* __restrict__ units, const long long* __restrict__ gbase,
    R_t* __restrict__ part, bool* __restrict__ ppres)
{
    extern __shared__ __align__(16) unsigned char gb_dyn[];
    const int lane = (int)(threadIdx.x & 31), nw = (int)(blockDim.x >> 5);
    /* per warp: a group's partials, staged for coalesced stores; then the x slice */
    R_t* sp = (R_t*)gb_dyn + (threadIdx.x >> 5) * GB_GROUP;
    xv_t* sx = (xv_t*)((R_t*)gb_dyn + nw * GB_GROUP);
#if GB_XPRES
    bool* sxp = (bool*)(sx + GB_W);
    bool* spp = sxp + GB_W + (threadIdx.x >> 5) * GB_GROUP;
#endif
    const long long* U = units + 3 * (long long)blockIdx.x;
    const long long c0 = U[0] * (long long)GB_W, e0 = U[1], e1 = U[2];
    const int ncl = (int)(nx - c0 < GB_W ? nx - c0 : GB_W);
    gb_lp_stage((unsigned char*)sx, (const unsigned char*)(X + c0), ncl * (int)sizeof(xv_t));
#if GB_XPRES
    gb_lp_stage((unsigned char*)sxp, (const unsigned char*)(xpres + c0), ncl);
#endif
    __syncthreads();
#if GB_ISO
    const T_t aiso = (T_t)val[0];
#endif
    const unsigned lt = (1u << lane) - 1u;
    long long g = e0 / GB_GROUP + (threadIdx.x >> 5);
    gb_raw_t raw;
    av_t vals[GB_K];
    long long g0;
#if GB_PF
    /* software pipelining: the next group's loads are issued before this one is folded */
    gb_raw_t nraw;
    av_t nvals[GB_K];
    long long ng0 = 0;
    if (g * GB_GROUP < e1) gb_lp_load(g, lane, ent, val, gbase, nraw, nvals, ng0);
#endif
    for (; g * GB_GROUP < e1; g += nw) {
        const long long base = g * GB_GROUP + GB_K * lane;
#if GB_PF
        raw = nraw;
        g0 = ng0;
#pragma unroll
        for (int k = 0; k < GB_K; ++k) vals[k] = nvals[k];
        if ((g + nw) * GB_GROUP < e1) gb_lp_load(g + nw, lane, ent, val, gbase, nraw, nvals, ng0);
#else
        gb_lp_load(g, lane, ent, val, gbase, raw, vals, g0);
#endif
#if GB_K == 8
        const unsigned pk[GB_K] = {raw.x & 0xffffu, raw.x >> 16, raw.y & 0xffffu, raw.y >> 16,
                                   raw.z & 0xffffu, raw.z >> 16, raw.w & 0xffffu, raw.w >> 16};
#else
        const unsigned pk[GB_K] = {raw.x & 0xffffu, raw.x >> 16, raw.y & 0xffffu, raw.y >> 16};
#endif
        R_t v[GB_K];
#pragma unroll
        for (int k = 0; k < GB_K; ++k) {
            const unsigned c = pk[k] & (GB_HEAD - 1u);
#if GB_ISO
            v[k] = (R_t)gb_mul(aiso, (T_t)sx[c]);
#else
            v[k] = (R_t)gb_mul((T_t)vals[k], (T_t)sx[c]);
#endif
        }
#if GB_XPRES
        bool ok[GB_K], hd[GB_K];
        int nh = 0;
#pragma unroll
        for (int k = 0; k < GB_K; ++k) {
            const bool valid = base + k < e1;
            hd[k] = valid && ((pk[k] & GB_HEAD) || (lane == 0 && k == 0));
            nh += hd[k];
            ok[k] = valid && sxp[pk[k] & (GB_HEAD - 1u)];
        }
        const int before = gb_lp_before(nh, lane);
        int at = before - nh;   /* this lane's first partial, within the group's */
        /* fold run by run: `ah, aa` what precedes the lane's first run start (the tail of
           an earlier lane's run), `ch, ca` the run in progress */
        bool ah = false, ch = false, seen = false;
        R_t aa = (R_t)0, ca = (R_t)0;
#pragma unroll
        for (int k = 0; k < GB_K; ++k) {
            if (hd[k]) {
                if (seen) {
                    sp[at] = ca;
                    spp[at] = ch;
                    ++at;
                } else {
                    ah = ch;
                    aa = ca;
                }
                seen = true;
                ch = false;
            }
            gb_fold_if(ch, ca, ok[k], v[k]);
        }
        if (!seen) {
            ah = ch;
            aa = ca;
        }
        const int runs = __shfl_sync(0xffffffffu, before, 31);
#else
        /* every x exists: an entry's only question is where its run starts.  Heads: the
           flagged entries, the group's first, and every entry past the unit's end (each
           closes the run before it and starts one of its own, written after the group's
           runs and never copied out) */
        const long long left = e1 - base;
        const int rem = left >= GB_K ? GB_K : (left > 0 ? (int)left : 0);
        const unsigned hm = gb_lp_heads(raw) | (((1u << GB_K) - 1u) >> rem << rem) |
                            (lane == 0 ? 1u : 0u);
        const int nh = __popc(hm);
        const int before = gb_lp_before(nh, lane);
        int at = before - nh;
        /* fold run by run: `aa` what precedes the lane's first head (when `ah`), `ca` the
           run in progress */
        bool ah = !(hm & 1u), ch = true;
        const bool seen = hm != 0u;
        R_t ca = v[0], aa = v[0];
#pragma unroll
        for (int k = 1; k < GB_K; ++k) {
            if ((hm >> k) & 1u) {
                if (hm & ((1u << k) - 1u)) {
                    sp[at] = ca;
                    ++at;
                } else {
                    aa = ca;
                }
                ca = v[k];
            } else {
                ca = gb_add(ca, v[k]);
            }
        }
        if (!seen) aa = ca;
        /* the group's runs: all heads but one per entry past the unit's end */
        const long long gl = e1 - g * GB_GROUP;
        const int runs = __shfl_sync(0xffffffffu, before, 31) -
                         (GB_GROUP - (gl < GB_GROUP ? (int)gl : GB_GROUP));
#endif
        /* segmented suffix scan of (ah, aa): a segment ends at the first lane (inclusive)
           where a run starts.  Step o is taken only while some o consecutive lanes start
           no run (`rz`: the lanes where such a stretch begins), so groups whose lanes all
           start a run skip the scan */
        const unsigned starts = __ballot_sync(0xffffffffu, seen);
        const unsigned ge = starts & ~lt;
        const int last = ge ? __ffs(ge) - 1 : 31;
        unsigned rz = ~starts;
        for (int o = 1; o < 32 && rz; o <<= 1) {
            const R_t oa = gb_shfl_down(0xffffffffu, aa, o);
            const bool oh = gb_shfl_down(0xffffffffu, ah, o);
            if (lane + o <= last) gb_fold_if(ah, aa, oh, oa);
            rz &= rz >> o;
        }
        const R_t na = gb_shfl_down(0xffffffffu, aa, 1);
        const bool nh2 = gb_shfl_down(0xffffffffu, ah, 1);
        if (seen) {
            if (lane < 31) gb_fold_if(ch, ca, nh2, na);
            sp[at] = ca;
#if GB_XPRES
            spp[at] = ch;
#endif
        }
        /* the group's runs, coalesced: partials gbase[g] .. gbase[g] + runs */
        __syncwarp();
        for (int i = lane; i < runs; i += 32) {
            part[g0 + i] = sp[i];
#if GB_XPRES
            ppres[g0 + i] = spp[i];
#endif
        }
        __syncwarp();
    }
}

extern "C" __global__ void __launch_bounds__(1024) gb_lp_reduce(
    const R_t* __restrict__ part, const bool* __restrict__ ppres,
    const unsigned short* __restrict__ prow, const long long* __restrict__ cptr,
    const long long* __restrict__ chunks, long long m, const bool* __restrict__ allow,
    const bool* __restrict__ row_hit, R_t* __restrict__ y, bool* __restrict__ ypres
#if GB_PR
    , const double* __restrict__ p, int has_p, double p_uniform,
    const double* __restrict__ rank, const double* __restrict__ w, double alpha,
    const double* __restrict__ state_in, double* __restrict__ r_new,
    double* __restrict__ s_new, const int* __restrict__ s_pos,
    double* __restrict__ state_out, double* partials, unsigned int* ticket
#endif
    )
{
    extern __shared__ __align__(16) unsigned char gb_dyn[];
    acc_t* acc = (acc_t*)gb_dyn;
#if GB_XPRES
    bool* sh = (bool*)(acc + GB_RS);   /* a present partial reached the row */
#endif
    /* block (q, s): rows [s * GB_RS, (s + 1) * GB_RS) of row panel q */
    const long long q = blockIdx.x / GB_SUB;
    const int s0 = (int)(blockIdx.x - q * GB_SUB) * GB_RS;
    const long long r0 = q * GB_RR + s0;
    const int nr = (int)min((long long)(GB_RR - s0 < GB_RS ? GB_RR - s0 : GB_RS), m - r0);
    for (int k = threadIdx.x; k < nr; k += blockDim.x) {
        acc[k] = GB_IDENT;
#if GB_XPRES
        sh[k] = false;
#endif
    }
    __syncthreads();
    const int lane = (int)(threadIdx.x & 31), nw = (int)(blockDim.x >> 5);
#if GB_CB
    /* the row panel's chunk table, GB_CB chunks at a time, into shared memory: a warp
       then starts its next chunk's loads without first waiting for the chunk's bounds */
    long long* sch = (long long*)(gb_dyn + GB_CB_AT);
    const long long cq1 = cptr[q + 1];
    for (long long cb = cptr[q]; cb < cq1; cb += GB_CB) {
        const int nc = (int)(cq1 - cb < GB_CB ? cq1 - cb : GB_CB);
        __syncthreads();
        for (int k = threadIdx.x; k < 2 * nc; k += blockDim.x) sch[k] = chunks[2 * cb + k];
        __syncthreads();
    for (int c = (int)(threadIdx.x >> 5); c < nc; c += nw) {
        const long long a = sch[2 * c], b = sch[2 * c + 1];
#else
    const long long c1 = cptr[q + 1];
    for (long long c = cptr[q] + (threadIdx.x >> 5); c < c1; c += nw) {
        const long long a = chunks[2 * c], b = chunks[2 * c + 1];
#endif
        for (long long k0 = a; k0 < b; k0 += 32 * GB_RK) {
            R_t v[GB_RK];
            int r[GB_RK];
            bool ok[GB_RK];
            /* the step's partials (the same for the whole warp): a lane loads only
               its own, and no load is issued past the chunk */
            const int left = (int)(b - k0 < 32 * GB_RK ? b - k0 : 32 * GB_RK);
#pragma unroll
            for (int j = 0; j < GB_RK; ++j) {
                ok[j] = lane + 32 * j < left;
                v[j] = (R_t)0;
                r[j] = -1;
                if (ok[j]) {
                    const long long kk = k0 + lane + 32 * j;
                    v[j] = part[kk];
                    r[j] = (int)prow[kk] - s0;
#if GB_XPRES
                    ok[j] = ppres[kk];
#endif
                }
#if GB_SUB > 1
                ok[j] = ok[j] && r[j] >= 0 && r[j] < GB_RS;
#endif
            }
#pragma unroll
            for (int j = 0; j < GB_RK; ++j) {
                if (ok[j]) {
                    gb_scatter(acc + r[j], v[j]);
#if GB_XPRES
                    sh[r[j]] = true;
#endif
                }
            }
        }
    }
#if GB_CB
    }
#endif
    __syncthreads();
#if GB_PR
    /* r' = y + (alpha m + 1 - alpha) p and s' = r' .* w (through s_pos into the order the
       next product reads) on the block's rows; |r' - r|_1 and the dangling rank summed
       over the grid (every row panel's rows are one block's) */
    const double c = alpha * state_in[1] + (1.0 - alpha);
    double err = 0.0, dang = 0.0;
    for (int k = threadIdx.x; k < nr; k += blockDim.x) {
        const long long row = r0 + k;
        /* (plus folds from +0: a row no partial reached holds y = 0 already) */
        const double rn = (double)acc[k] + c * (has_p ? p[row] : p_uniform);
        const double wi = w[row];
        r_new[row] = rn;
        const int at = s_pos[row];
        if (at >= 0) s_new[at] = rn * wi;
        err += fabs(rn - rank[row]);
        if (wi == 0.0) dang += rn;
    }
    gb_grid_sum2(err, dang, partials, ticket, state_out);
#else
    /* y and its flags, GB_WB rows per thread at a time: their loads of row_hit (and
       allow) are issued together */
    for (int k0 = threadIdx.x; k0 < nr; k0 += GB_WB * blockDim.x) {
        bool h[GB_WB];
#pragma unroll
        for (int j = 0; j < GB_WB; ++j) {
            const int k = k0 + j * (int)blockDim.x;
            const long long row = r0 + k;
#if GB_XPRES
            h[j] = k < nr && sh[k];
#else
            h[j] = k < nr && row_hit[row];   /* every partial is present */
#endif
            h[j] = h[j] && gb_allowed(allow, row);
        }
#pragma unroll
        for (int j = 0; j < GB_WB; ++j) {
            const int k = k0 + j * (int)blockDim.x;
            if (k < nr) {
                y[r0 + k] = h[j] ? (R_t)acc[k] : (R_t)0;
                ypres[r0 + k] = h[j];
            }
        }
    }
#endif
}
