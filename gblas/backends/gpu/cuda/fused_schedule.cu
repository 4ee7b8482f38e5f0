/* The long rows' schedule of a CSR for the one-launch kernels (gb_fused_schedule of
   gb_pull_fused.cuh), one launch whose blocks are all resident, queued before the first
   of those kernels over these row pointers.  Needs ip_t and the GB_* flags of
   gb_pull_fused.cuh (ix_t for its declarations). */
#include "gb_pull_fused.cuh"

extern "C" __global__ void __launch_bounds__(256) gb_schedule_fused(
        const ip_t* __restrict__ indptr, long long n, long long* long_rows, long long* cptr,
        int* cslot, long long* sched, unsigned int* barrier) {
    gb_fused_schedule(indptr, n, long_rows, cptr, cslot, sched, barrier);
}
