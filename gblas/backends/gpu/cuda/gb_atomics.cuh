/* Atomic monoid folds for monoids or types without a native atomic.  Needs R_t, acc_t
   and gb_add; the 1- and 2-byte results are held in int accumulators (acc_t int). */
#ifndef GB_ATOMICS_CUH
#define GB_ATOMICS_CUH

/* Fold v into *p by a compare-and-swap loop on p's int (1- and 2-byte results). */
__device__ __forceinline__ void gb_cas_fold_small(acc_t* p, R_t v) {
    int* ip = (int*)p;
    int old = *ip, assumed;
    do {
        assumed = old;
        int nw = (int)gb_add((R_t)assumed, v);
        if (nw == assumed) break;
        old = atomicCAS(ip, assumed, nw);
    } while (old != assumed);
}

/* Fold v into *p by a compare-and-swap loop on the word W holding its bits. */
template <typename W>
__device__ __forceinline__ void gb_cas_fold(acc_t* p, R_t v) {
    W* wp = (W*)p;
    W old = *wp, assumed;
    do {
        assumed = old;
        W nw = gb_bitcast<W>(gb_add(gb_bitcast<R_t>(assumed), v));
        if (nw == assumed) break;
        old = atomicCAS(wp, assumed, nw);
    } while (old != assumed);
}

/* Fold v into *p by atomic exchanges: take the accumulator's value (leaving the
   identity in its place), fold v into it and put the result back; when the word given
   back is not the identity, another thread stored a value in between: take it as the
   new v and go again.  No value is lost or counted twice; it needs a commutative monoid,
   as every atomic fold does.  Shared memory's exchange is far faster than its
   compare-and-swap. */
__device__ __forceinline__ void gb_exch_fold_small(acc_t* p, R_t v, R_t ident) {
    unsigned int* wp = (unsigned int*)p;
    const unsigned int id = (unsigned int)(int)(ident);
    unsigned int c = (unsigned int)(int)(v);
    do {
        const unsigned int t = atomicExch(wp, id);
        c = atomicExch(wp, (unsigned int)(int)(gb_add((R_t)(int)(t), (R_t)(int)(c))));
    } while (c != id);
}

template <typename W>
__device__ __forceinline__ void gb_exch_fold(acc_t* p, R_t v, R_t ident) {
    W* wp = (W*)p;
    const W id = gb_bitcast<W>(ident);
    W c = gb_bitcast<W>(v);
    do {
        const W t = atomicExch(wp, id);
        c = atomicExch(wp, gb_bitcast<W>(gb_add(gb_bitcast<R_t>(t), gb_bitcast<R_t>(c))));
    } while (c != id);
}

/* Float min / max by one integer atomic: values without the sign bit order like signed
   integers, values with it (-0.0 included) in reverse like unsigned ones.  A NaN value
   is skipped (fmin's rule); the accumulator starts at a NaN that every value beats (+NaN
   for min, -NaN for max: folds.fold_start), so a slot given only NaN stays NaN. */
__device__ __forceinline__ void gb_atomic_fmin(float* p, float v) {
    if (v != v) return;
    if (!signbit(v)) atomicMin((int*)p, __float_as_int(v));
    else atomicMax((unsigned int*)p, __float_as_uint(v));
}
__device__ __forceinline__ void gb_atomic_fmax(float* p, float v) {
    if (v != v) return;
    if (!signbit(v)) atomicMax((int*)p, __float_as_int(v));
    else atomicMin((unsigned int*)p, __float_as_uint(v));
}
__device__ __forceinline__ void gb_atomic_fmin(double* p, double v) {
    if (v != v) return;
    if (!signbit(v)) atomicMin((long long*)p, __double_as_longlong(v));
    else atomicMax((unsigned long long*)p, (unsigned long long)__double_as_longlong(v));
}
__device__ __forceinline__ void gb_atomic_fmax(double* p, double v) {
    if (v != v) return;
    if (!signbit(v)) atomicMax((long long*)p, __double_as_longlong(v));
    else atomicMin((unsigned long long*)p, (unsigned long long)__double_as_longlong(v));
}
#endif
