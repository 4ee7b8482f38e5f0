/* Monoid folds over (present, value) pairs, so that no identity is needed (the ANY
   monoid has none that works, and a NaN stays a NaN).  Needs R_t and gb_add (the
   semiring's snippet); GB_TERM_KIND / GB_TERM (the monoid's early exit) when defined. */
#ifndef GB_FOLD_CUH
#define GB_FOLD_CUH

/* Fold v into (have, acc). */
__device__ __forceinline__ void gb_fold(bool& have, R_t& acc, R_t v) {
    acc = have ? gb_add(acc, v) : v;
    have = true;
}

/* Fold (present, v) into (have, acc). */
__device__ __forceinline__ void gb_fold_if(bool& have, R_t& acc, bool present, R_t v) {
    if (present) gb_fold(have, acc, v);
}

/* Whether a fold that holds acc may stop: ANY at its first value (GB_TERM_KIND 2), a
   monoid with a terminal value once it is reached (1), never otherwise. */
__device__ __forceinline__ bool gb_done(R_t acc) {
#if GB_TERM_KIND == 2
    return true;
#elif GB_TERM_KIND == 1
    return acc == GB_TERM;
#else
    return false;
#endif
}

/* y[row] and its presence flag from (have, acc). */
__device__ __forceinline__ void gb_store(R_t* __restrict__ y, bool* __restrict__ ypres,
                                         long long row, bool have, R_t acc) {
    y[row] = have ? acc : (R_t)0;
    ypres[row] = have;
}

/* Combine the (have, acc) pairs of the G lanes of a group; every lane gets the result. */
template <int G>
__device__ __forceinline__ void gb_group_reduce(unsigned gmask, bool& have, R_t& acc) {
#pragma unroll
    for (int off = G / 2; off > 0; off >>= 1) {
        R_t oa = gb_shfl_xor(gmask, acc, off);
        bool oh = gb_shfl_xor(gmask, have, off);
        gb_fold_if(have, acc, oh, oa);
    }
}

/* Long row s (lrows[s]) of a chunked pull: fold its chunks' partials
   [cptr[s], cptr[s + 1]) and store y[row]. */
__device__ __forceinline__ void gb_combine_chunks(
    const long long* __restrict__ lrows, const long long* __restrict__ cptr, long long s,
    const R_t* __restrict__ part, const bool* __restrict__ ppres,
    R_t* __restrict__ y, bool* __restrict__ ypres)
{
    bool have = false;
    R_t acc = (R_t)0;
    for (long long c = cptr[s]; c < cptr[s + 1]; ++c) {
        if (ppres[c]) {
            gb_fold(have, acc, part[c]);
            if (gb_done(acc)) break;
        }
    }
    gb_store(y, ypres, lrows[s], have, acc);
}
#endif
