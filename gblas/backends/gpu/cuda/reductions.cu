/* Whole-array reductions of one input type T (a typedef): counts, integer sums and
   histograms folded with 64-bit integer atomics (exact, in any order), and the per-block
   partials of a sum, min or max in the accumulator type A (a typedef) that the host
   finishes.  Plain block folds: no CUB, so the source compiles in a fraction of a
   second (CuPy's reductions with its CUB accelerator took 1.5-2.7 s a kernel to compile). */

#define GB_RED_BLOCK 256

template <typename V, typename F>
__device__ __forceinline__ V gb_red_block(V v, F f) {
    __shared__ V warp_part[GB_RED_BLOCK / 32];
    for (int o = 16; o > 0; o >>= 1) v = f(v, __shfl_down_sync(0xffffffffu, v, o));
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) warp_part[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = warp_part[0];
        for (int k = 1; k < (int)(blockDim.x >> 5); k++) v = f(v, warp_part[k]);
    }
    return v;  /* meaningful in thread 0 */
}

struct gb_red_add {
    template <typename V> __device__ V operator()(V a, V b) const { return a + b; }
};

/* a NaN loses to every value (NumPy's nanmin / nanmax); both NaN stays NaN */
struct gb_red_min {
    template <typename V> __device__ V operator()(V a, V b) const {
        return (b < a || a != a) ? b : a;
    }
};

struct gb_red_max {
    template <typename V> __device__ V operator()(V a, V b) const {
        return (b > a || a != a) ? b : a;
    }
};

/* out[0] += the entries of x that are not zero */
extern "C" __global__ void gb_red_count(const T* __restrict__ x, long long n,
                                        unsigned long long* out) {
    unsigned long long c = 0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        c += (x[i] != (T)0);
    c = gb_red_block(c, gb_red_add());
    if (threadIdx.x == 0 && c) atomicAdd(out, c);
}

/* out[0] += the set bits of x (a bool array read as 64-bit words: the true entries) and
   the nonzero bytes of its last ``ntail`` (< 8) */
extern "C" __global__ void gb_red_popcount(const T* __restrict__ x, long long n,
                                           const unsigned char* tail, int ntail,
                                           unsigned long long* out) {
    unsigned long long c = 0;
    if (blockIdx.x == 0 && threadIdx.x < ntail) c = tail[threadIdx.x] != 0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        c += __popcll((unsigned long long)x[i]);
    c = gb_red_block(c, gb_red_add());
    if (threadIdx.x == 0 && c) atomicAdd(out, c);
}

/* out[0] += the sum of x (integers and bool: two's complement wraps as NumPy's int64) */
extern "C" __global__ void gb_red_isum(const T* __restrict__ x, long long n,
                                       unsigned long long* out) {
    unsigned long long s = 0;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        s += (unsigned long long)(long long)x[i];
    s = gb_red_block(s, gb_red_add());
    if (threadIdx.x == 0 && s) atomicAdd(out, s);
}

/* part[block] = the fold (GB_RED_OP 0 sum, 1 min, 2 max) of the block's entries, in A;
   a block without entries writes the fold's start */
template <typename F>
__device__ __forceinline__ void gb_red_fold(const T* __restrict__ x, long long n, A start,
                                            A* part, F f) {
    A v = start;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        v = f(v, (A)x[i]);
    v = gb_red_block(v, f);
    if (threadIdx.x == 0) part[blockIdx.x] = v;
}

extern "C" __global__ void gb_red_partials(const T* __restrict__ x, long long n, A start,
                                           A* part) {
#if GB_RED_OP == 0
    gb_red_fold(x, n, start, part, gb_red_add());
#elif GB_RED_OP == 1
    gb_red_fold(x, n, start, part, gb_red_min());
#else
    gb_red_fold(x, n, start, part, gb_red_max());
#endif
}

/* out[x[i]] += 1 for every i whose value is in [0, len); a value outside is counted in
   out[len] instead of writing past the histogram.  The lanes of a warp holding the same
   value add once (sorted values and hubs: one atomic where there were 32) */
extern "C" __global__ void gb_red_bincount(const T* __restrict__ x, long long n,
                                           unsigned long long* out, long long len) {
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const long long v = (long long)x[i];
        const long long at = (v >= 0 && v < len) ? v : len;
        const unsigned same = __match_any_sync(__activemask(), at);
        if ((int)(threadIdx.x & 31) == __ffs(same) - 1)
            atomicAdd(out + at, (unsigned long long)__popc(same));
    }
}
