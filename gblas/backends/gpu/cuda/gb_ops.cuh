/* Operator helpers with Python's semantics: the C expressions of BinaryOp.cuda_expr() /
   UnaryOp.cuda_expr() call gb_min, gb_max, gb_abs, gb_floordiv, gb_mod and use
   CUDART_INF / CUDART_NAN. */
#ifndef GB_OPS_CUH
#define GB_OPS_CUH
#ifndef CUDART_INF
#define CUDART_INF __longlong_as_double(0x7ff0000000000000LL)
#endif
#ifndef CUDART_NAN
#define CUDART_NAN __longlong_as_double(0x7ff8000000000000LL)
#endif

/* Python's min / max: the first argument unless the second is strictly smaller
   (larger); the result has the common type of the two. */
template <typename A, typename B>
__device__ __forceinline__ auto gb_min(A a, B b) -> decltype(a + b) {
    typedef decltype(a + b) C;
    return (b < a) ? (C)b : (C)a;
}
template <typename A, typename B>
__device__ __forceinline__ auto gb_max(A a, B b) -> decltype(a + b) {
    typedef decltype(a + b) C;
    return (b > a) ? (C)b : (C)a;
}

template <typename A>
__device__ __forceinline__ auto gb_abs(A x) -> decltype(+x) { return x < 0 ? -x : +x; }
__device__ __forceinline__ float gb_abs(float x) { return fabsf(x); }
__device__ __forceinline__ double gb_abs(double x) { return fabs(x); }

/* Python's floor division and modulo (the result takes the divisor's sign); an integer
   division by zero gives 0, as NumPy does. */
template <typename C>
__device__ __forceinline__ C gb_floordiv_(C x, C y) {
    if (y == 0) return (C)0;
    C q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) q -= 1;
    return q;
}
__device__ __forceinline__ float gb_floordiv_(float x, float y) { return floorf(x / y); }
__device__ __forceinline__ double gb_floordiv_(double x, double y) { return floor(x / y); }
template <typename A, typename B>
__device__ __forceinline__ auto gb_floordiv(A a, B b) -> decltype(a + b) {
    typedef decltype(a + b) C;
    return gb_floordiv_((C)a, (C)b);
}

template <typename C>
__device__ __forceinline__ C gb_mod_(C x, C y) {
    if (y == 0) return (C)0;
    C r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
}
__device__ __forceinline__ float gb_mod_(float x, float y) {
    float r = fmodf(x, y);
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
}
__device__ __forceinline__ double gb_mod_(double x, double y) {
    double r = fmod(x, y);
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
}
template <typename A, typename B>
__device__ __forceinline__ auto gb_mod(A a, B b) -> decltype(a + b) {
    typedef decltype(a + b) C;
    return gb_mod_((C)a, (C)b);
}
#endif
