/* Value-type helpers: warp shuffles for every value type (1- and 2-byte types travel as
   int) and bit reinterpretation. */
#ifndef GB_DTYPES_CUH
#define GB_DTYPES_CUH

/* NAME(mask, v, o) = SYNC(mask, v, o) for every value type. */
#define GB_SHFL_OVERLOADS(NAME, SYNC)                                                    \
    template <typename T>                                                                \
    __device__ __forceinline__ T NAME(unsigned m, T v, int o) {                          \
        return (T)SYNC(m, (int)v, o);                                                    \
    }                                                                                    \
    __device__ __forceinline__ int NAME(unsigned m, int v, int o) {                      \
        return SYNC(m, v, o);                                                            \
    }                                                                                    \
    __device__ __forceinline__ unsigned NAME(unsigned m, unsigned v, int o) {            \
        return SYNC(m, v, o);                                                            \
    }                                                                                    \
    __device__ __forceinline__ long long NAME(unsigned m, long long v, int o) {          \
        return SYNC(m, v, o);                                                            \
    }                                                                                    \
    __device__ __forceinline__ unsigned long long NAME(unsigned m, unsigned long long v, \
                                                       int o) {                          \
        return SYNC(m, v, o);                                                            \
    }                                                                                    \
    __device__ __forceinline__ float NAME(unsigned m, float v, int o) {                  \
        return SYNC(m, v, o);                                                            \
    }                                                                                    \
    __device__ __forceinline__ double NAME(unsigned m, double v, int o) {                \
        return SYNC(m, v, o);                                                            \
    }

GB_SHFL_OVERLOADS(gb_shfl_xor, __shfl_xor_sync)
GB_SHFL_OVERLOADS(gb_shfl_up, __shfl_up_sync)

/* Warp shuffle down for every value type (1- and 2-byte types travel as int). */
template <typename T>
__device__ __forceinline__ T gb_shfl_down(unsigned m, T v, int o) {
    if (sizeof(T) < 4) return (T)__shfl_down_sync(m, (int)v, o);
    return (T)__shfl_down_sync(m, v, o);
}

/* Reinterpret the bits of one type as another of the same size. */
template <typename To, typename From>
__device__ __forceinline__ To gb_bitcast(From f) {
    union { From f; To t; } u;
    u.f = f;
    return u.t;
}
#endif
