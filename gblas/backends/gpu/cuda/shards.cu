/* Garaph's replicated shards: a thread block per work item folds products into R
   replicas per destination in shared memory (gb_scatter), then folds the replicas;
   gb_shard_combine folds the items' partials of a shard of several items. */
#include "gb_fold.cuh"
#include "gb_mask.cuh"

extern "C" __global__ void gb_shard_pull(
    const unsigned short* __restrict__ dst, const ix_t* __restrict__ src,
    const av_t* __restrict__ Ax, const xv_t* __restrict__ X, const bool* __restrict__ xpres,
    const bool* __restrict__ allow,
    const long long* __restrict__ sh_row, const int* __restrict__ sh_rep,
    const int* __restrict__ it_shard, const long long* __restrict__ it_lo,
    const long long* __restrict__ it_hi, const long long* __restrict__ it_poff,
    R_t* __restrict__ y, bool* __restrict__ ypres,
    R_t* __restrict__ part, bool* __restrict__ ppres)
{
    extern __shared__ __align__(16) unsigned char gb_smem[];
    acc_t* sacc = (acc_t*)gb_smem;
    unsigned char* spres = gb_smem + (unsigned long long)GB_SLOTS * sizeof(acc_t);
    const int item = blockIdx.x;
    const int s = it_shard[item];
    const long long row0 = sh_row[s];
    const int V = (int)(sh_row[s + 1] - row0);
    const int R = sh_rep[s];
    const int nslots = V * R;
    for (int k = threadIdx.x; k < nslots; k += blockDim.x) {
        sacc[k] = GB_IDENT;
        spres[k] = 0;
    }
    __syncthreads();
    const int rep = (int)(threadIdx.x & (unsigned)(R - 1));
#if GB_ISO
    const T_t aiso = (T_t)Ax[0];
#endif
    const long long hi = it_hi[item];
#pragma unroll 4
    for (long long e = it_lo[item] + threadIdx.x; e < hi; e += blockDim.x) {
        const long long j = (long long)src[e];
        const int d = (int)dst[e];
#if GB_XPRES
        if (!xpres[j]) continue;
#endif
        if (!gb_allowed(allow, row0 + d)) continue;
#if GB_ISO
        const R_t v = (R_t)gb_mul(aiso, (T_t)X[j]);
#else
        const R_t v = (R_t)gb_mul((T_t)Ax[e], (T_t)X[j]);
#endif
        const int slot = d * R + rep;
        gb_scatter(sacc + slot, v);
        spres[slot] = 1;
    }
    __syncthreads();
    const long long poff = it_poff[item];
    for (int d = threadIdx.x; d < V; d += blockDim.x) {
        bool have = false;
        R_t acc = (R_t)0;
        for (int q = 0; q < R; ++q) {
            const int slot = d * R + q;
            if (spres[slot]) gb_fold(have, acc, (R_t)sacc[slot]);
        }
        if (poff < 0) gb_store(y, ypres, row0 + d, have, acc);
        else gb_store(part, ppres, poff + d, have, acc);
    }
}

extern "C" __global__ void gb_shard_combine(
    const int* __restrict__ multi, const long long* __restrict__ sh_row,
    const long long* __restrict__ sh_item, const long long* __restrict__ it_poff,
    const R_t* __restrict__ part, const bool* __restrict__ ppres,
    R_t* __restrict__ y, bool* __restrict__ ypres)
{
    const int s = multi[blockIdx.x];
    const long long row0 = sh_row[s];
    const int V = (int)(sh_row[s + 1] - row0);
    const long long i0 = sh_item[s], i1 = sh_item[s + 1];
    for (int d = threadIdx.x; d < V; d += blockDim.x) {
        bool have = false;
        R_t acc = (R_t)0;
        for (long long it = i0; it < i1; ++it) {
            const long long q = it_poff[it] + d;
            if (ppres[q]) gb_fold(have, acc, part[q]);
        }
        gb_store(y, ypres, row0 + d, have, acc);
    }
}
