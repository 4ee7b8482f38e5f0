/* Load-balanced push SpMSpV: each thread block takes GB_EPB consecutive edges of the
   frontier's edge list and finds their owners by binary search in shared memory. */
#include "gb_mask.cuh"

extern "C" __global__ void gb_push_lb(
    const ip_t* __restrict__ Tp, const ix_t* __restrict__ Tj, const av_t* __restrict__ Tx,
    const fi_t* __restrict__ xi, const xv_t* __restrict__ xv,
    const long long* __restrict__ offs, long long nf,
    const bool* __restrict__ allow, acc_t* __restrict__ acc, bool* __restrict__ ypres)
{
    __shared__ long long s_end[GB_EPB + 1];
    __shared__ long long s_base[GB_EPB + 1];
    __shared__ T_t s_x[GB_EPB + 1];
    __shared__ long long s_f[2];
    if (nf <= 0) return;
    const long long total = offs[nf - 1];
#if GB_ISO
    const T_t aiso = (T_t)Tx[0];
#endif
    for (long long vb = blockIdx.x; vb * GB_EPB < total; vb += gridDim.x) {
        const long long e0 = vb * GB_EPB;
        const long long e1 = e0 + GB_EPB < total ? e0 + GB_EPB : total;
        if (threadIdx.x < 2) {
            /* the frontier entry owning edge `target`: the first f with offs[f] > target */
            const long long target = threadIdx.x == 0 ? e0 : e1 - 1;
            long long lo = 0, hi = nf - 1;
            while (lo < hi) {
                const long long mid = (lo + hi) >> 1;
                if (offs[mid] > target) hi = mid; else lo = mid + 1;
            }
            s_f[threadIdx.x] = lo;
        }
        __syncthreads();
        const long long f0 = s_f[0];
        const long long nk = s_f[1] - f0 + 1;
        const bool tiled = nk <= GB_EPB + 1;
        if (tiled) {
            for (int k = threadIdx.x; k < (int)nk; k += blockDim.x) {
                const long long f = f0 + k;
                const long long before = f ? offs[f - 1] : 0;
                s_end[k] = offs[f];
                s_base[k] = (long long)Tp[(long long)xi[f]] - before;
                s_x[k] = (T_t)xv[f];
            }
        }
        __syncthreads();
        for (long long e = e0 + threadIdx.x; e < e1; e += blockDim.x) {
            long long p;
            T_t xval;
            if (tiled) {
                int lo = 0, hi = (int)nk - 1;
                while (lo < hi) {
                    const int mid = (lo + hi) >> 1;
                    if (s_end[mid] > e) hi = mid; else lo = mid + 1;
                }
                p = s_base[lo] + e;
                xval = s_x[lo];
            } else {
                long long lo = f0, hi = f0 + nk - 1;
                while (lo < hi) {
                    const long long mid = (lo + hi) >> 1;
                    if (offs[mid] > e) hi = mid; else lo = mid + 1;
                }
                const long long before = lo ? offs[lo - 1] : 0;
                p = (long long)Tp[(long long)xi[lo]] + (e - before);
                xval = (T_t)xv[lo];
            }
            const long long i = (long long)Tj[p];
            if (!gb_allowed(allow, i)) continue;
#if GB_ISO
            const R_t v = (R_t)gb_mul(aiso, xval);
#else
            const R_t v = (R_t)gb_mul((T_t)Tx[p], xval);
#endif
            gb_scatter(acc + i, v);
            ypres[i] = true;
        }
        __syncthreads();
    }
}
