/* The merge of gpu_heavy_light: the light result of a row, then the partials of its
   row panel's heavy units in column-panel order. */
#include "gb_fold.cuh"
#include "gb_mask.cuh"

/* One thread per row of a row panel with heavy units (blocks: bpr per panel). */
extern "C" __global__ void gb_hl_merge(
    const long long* __restrict__ hrp, const long long* __restrict__ rp_uptr,
    const int* __restrict__ rp_units, const long long* __restrict__ units,
    const long long* __restrict__ uoff, const R_t* __restrict__ part,
    const bool* __restrict__ ppres, const bool* __restrict__ allow,
    long long nhrp, long long bpr, long long m,
    R_t* __restrict__ y, bool* __restrict__ ypres)
{
    const long long b = (long long)blockIdx.x / bpr;
    const long long k = ((long long)blockIdx.x - b * bpr) * blockDim.x + threadIdx.x;
    if (b >= nhrp || k >= GB_TR) return;
    const long long row = hrp[b] * (long long)GB_TR + k;
    if (row >= m) return;
    if (!gb_allowed(allow, row)) return;  /* the light kernel left it empty */
    bool have = ypres[row];
    R_t acc = y[row];
    const long long j1 = rp_uptr[b + 1];
#pragma unroll 4
    for (long long j = rp_uptr[b]; j < j1; ++j) {
        const long long u = rp_units[j];
        const long long d = k - units[u * 6 + 4];
        const bool in = d >= 0 && d < units[u * 6 + 5];
        /* loads clamped to the unit's first partial, so that they need no branch */
        const long long q = uoff[u] + (in ? d : 0);
        const bool p = ppres[q];
        const R_t v = part[q];
        gb_fold_if(have, acc, in && p, v);
    }
    gb_store(y, ypres, row, have, acc);
}
