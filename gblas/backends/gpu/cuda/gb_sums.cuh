/* Sums of doubles over a warp, a block and a grid (the L1 changes, norms and dangling
   ranks of the iterations' vector steps). */
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

/* Sums a and b over the grid in one launch: each block stores its pair in partials
   (2 * gridDim.x doubles), and the last block to finish (an atomic ticket, zero before
   the launch) adds the pairs in block order, so the sums are the same on every run.
   Call from every thread of every block, once.  Returns true in thread 0 of the last
   block, after it wrote out[0], out[1] and reset the ticket. */
__device__ __forceinline__ bool gb_grid_sum2(double a, double b, double* partials,
                                             unsigned int* ticket, double* out) {
    gb_block_sum2(a, b);
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = a;
        partials[gridDim.x + blockIdx.x] = b;
        __threadfence();
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return false;
    __threadfence();
    a = 0.0;
    b = 0.0;
    for (unsigned int k = threadIdx.x; k < gridDim.x; k += blockDim.x) {
        a += ((volatile double*)partials)[k];
        b += ((volatile double*)partials)[gridDim.x + k];
    }
    gb_block_sum2(a, b);
    if (threadIdx.x != 0) return false;
    out[0] = a;
    out[1] = b;
    *ticket = 0u;
    return true;
}

#endif
