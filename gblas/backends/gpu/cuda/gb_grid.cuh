/* A barrier over the whole grid, for kernels whose blocks are all resident at once (no
   more blocks than the multiprocessors hold: the launch's grid is sized for it). */
#ifndef GB_GRID_CUH
#define GB_GRID_CUH

/* Every block of the grid waits here until all have arrived; the writes before it are
   visible to every block after it (read them with __ldcg). */
__device__ __forceinline__ void gb_grid_barrier(unsigned int* count,
                                                volatile unsigned int* generation) {
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int gen = *generation;
        if (atomicAdd(count, 1u) == gridDim.x - 1) {
            atomicExch(count, 0u);
            __threadfence();
            atomicAdd((unsigned int*)generation, 1u);
        } else {
            while (*generation == gen) {}
        }
        __threadfence();
    }
    __syncthreads();
}

#endif
