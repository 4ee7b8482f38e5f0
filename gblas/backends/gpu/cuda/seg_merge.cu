/* The merge of gpu_segmented: one thread block per range of GB_RANGE destination rows
   folds the partial results of its range, segment after segment, in shared memory. */
#include "gb_fold.cuh"

extern "C" __global__ void gb_seg_merge(
    const R_t* __restrict__ hv, const bool* __restrict__ hpres,
    const R_t* __restrict__ cv, const bool* __restrict__ cpres,
    const rm_t* __restrict__ rowmap, const long long* __restrict__ rp,
    int nseg, long long nhot, long long nranges, long long m,
    R_t* __restrict__ y, bool* __restrict__ ypres)
{
    __shared__ R_t sacc[GB_RANGE];
    __shared__ bool shave[GB_RANGE];
    const long long r = blockIdx.x;
    const long long row0 = r * (long long)GB_RANGE;
    for (int k = threadIdx.x; k < GB_RANGE; k += blockDim.x) shave[k] = false;
    __syncthreads();
    for (int s = 0; s < nseg; ++s) {
        const long long a = rp[(long long)s * (nranges + 1) + r];
        const long long b = rp[(long long)s * (nranges + 1) + r + 1];
        for (long long e = a + threadIdx.x; e < b; e += blockDim.x) {
            bool p;
            R_t v;
            if (e < nhot) {
                p = hpres[e];
                v = hv[e];
            } else {
                p = cpres[e - nhot];
                v = cv[e - nhot];
            }
            if (p) {
                /* a row appears at most once per segment: no two threads meet here */
                const int k = (int)((long long)rowmap[e] - row0);
                gb_fold(shave[k], sacc[k], v);
            }
        }
        __syncthreads();
    }
    for (int k = threadIdx.x; k < GB_RANGE; k += blockDim.x) {
        const long long row = row0 + k;
        if (row < m) gb_store(y, ypres, row, shave[k], sacc[k]);
    }
}
