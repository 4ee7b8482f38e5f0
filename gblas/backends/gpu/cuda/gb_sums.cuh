/* Sums of doubles over a warp and a block (PageRank's L1 change and dangling rank). */
#ifndef GB_SUMS_CUH
#define GB_SUMS_CUH

__device__ __forceinline__ double gb_warp_sum(double v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

/* Sums a and b over the block; thread 0 gets the totals. */
__device__ __forceinline__ void gb_block_sum2(double& a, double& b) {
    __shared__ double sa[32], sb[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    a = gb_warp_sum(a);
    b = gb_warp_sum(b);
    if (lane == 0) { sa[warp] = a; sb[warp] = b; }
    __syncthreads();
    int nw = (blockDim.x + 31) >> 5;
    a = (threadIdx.x < nw) ? sa[threadIdx.x] : 0.0;
    b = (threadIdx.x < nw) ? sb[threadIdx.x] : 0.0;
    if (warp == 0) { a = gb_warp_sum(a); b = gb_warp_sum(b); }
    __syncthreads();
}

#endif
