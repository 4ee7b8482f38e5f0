/* Masked SpGEMM by dot products: one thread per allowed mask entry (i, j) merges row i
   of A with row j of B's transpose. */
#include "gb_fold.cuh"
#include "gb_matrix_mask.cuh"

extern "C" __global__ void gb_dot(
    const ap_t* __restrict__ Ap, const aix_t* __restrict__ Aj, const av_t* __restrict__ Ax,
    const bp_t* __restrict__ Bp, const bix_t* __restrict__ Bj, const bv_t* __restrict__ Bx,
    const mp_t* __restrict__ Mp, const mix_t* __restrict__ Mj, const mv_t* __restrict__ Mv,
    long long m, long long mnnz, R_t* __restrict__ out, bool* __restrict__ flag)
{
    long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= mnnz) return;
    /* the mask row i holding entry q: the first i with Mp[i + 1] > q */
    long long lo = 0, hi = m - 1;
    while (lo < hi) {
        long long mid = (lo + hi) >> 1;
        if ((long long)Mp[mid + 1] > q) hi = mid; else lo = mid + 1;
    }
    long long i = lo;
    bool have = false;
    R_t acc = (R_t)0;
#if GB_MVALUE
    if (Mv[q] != 0)
#endif
    {
        long long j = (long long)Mj[q];
        long long pa = (long long)Ap[i], ea = (long long)Ap[i + 1];
        long long pb = (long long)Bp[j], eb = (long long)Bp[j + 1];
#if GB_ISO_A
        const T_t aiso = (T_t)Ax[0];
#endif
#if GB_ISO_B
        const T_t biso = (T_t)Bx[0];
#endif
        while (pa < ea && pb < eb) {
            long long ka = (long long)Aj[pa], kb = (long long)Bj[pb];
            if (ka < kb) { ++pa; continue; }
            if (kb < ka) { ++pb; continue; }
#if GB_ISO_A
            T_t a = aiso;
#else
            T_t a = (T_t)Ax[pa];
#endif
#if GB_ISO_B
            T_t b = biso;
#else
            T_t b = (T_t)Bx[pb];
#endif
            gb_fold(have, acc, (R_t)gb_mul(a, b));
            ++pa;
            ++pb;
            if (gb_done(acc)) break;
        }
    }
    gb_store(out, flag, q, have, acc);
}
