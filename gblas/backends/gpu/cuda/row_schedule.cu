/* The schedule of a CSR's rows for the pull products, computed on the device in one
   launch whose blocks are all resident (they wait for each other), as
   gblas.backends.gpu.mxv._schedule_arrays computes it on the host:

     long_rows[s]  the s-th row of more than smax entries, in row order
     cptr[s]       its first chunk of `chunk` entries (cptr[nlong] = nchunks)
     cslot[c]      the long row of chunk c
     blk[b]        (block > 0: the CSR-stream's row blocks) the first row of block b: a
                   row starts one where its first entry falls in another window of
                   `block` entries than the row before it, where it or the row before
                   it is long, and at every max_rows-th row

   counts[0 .. 3) receive (nlong, nchunks, nblk); counts[4 ..] is scratch for 3 counts
   per thread block.  Each block counts its share of the rows, waits for the others,
   then places its rows after the counts of the blocks before it.  Needs ip_t. */
#include "gb_grid.cuh"

/* Exclusive prefix sums of (a, b, c) over the block's threads in thread order
   (blockDim.x a multiple of 32, at most 1024); (ta, tb, tc) receive the totals. */
__device__ __forceinline__ void gb_block_scan3(long long& a, long long& b, long long& c,
                                               long long& ta, long long& tb,
                                               long long& tc) {
    __shared__ long long wa[32], wb[32], wc[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    long long ia = a, ib = b, ic = c;
    for (int o = 1; o < 32; o <<= 1) {
        const long long ua = __shfl_up_sync(0xffffffffu, ia, o);
        const long long ub = __shfl_up_sync(0xffffffffu, ib, o);
        const long long uc = __shfl_up_sync(0xffffffffu, ic, o);
        if (lane >= o) { ia += ua; ib += ub; ic += uc; }
    }
    if (lane == 31) { wa[warp] = ia; wb[warp] = ib; wc[warp] = ic; }
    __syncthreads();
    long long pa = 0, pb = 0, pc = 0;
    ta = tb = tc = 0;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) {
        if (w < warp) { pa += wa[w]; pb += wb[w]; pc += wc[w]; }
        ta += wa[w];
        tb += wb[w];
        tc += wc[w];
    }
    __syncthreads();
    a = pa + ia - a;
    b = pb + ib - b;
    c = pc + ic - c;
}

/* Row i's parts: whether it is long, its chunks, and whether it starts a row block. */
__device__ __forceinline__ void gb_row_parts(const ip_t* __restrict__ indptr, long long i,
                                             long long smax, long long chunk,
                                             long long block, long long max_rows,
                                             long long& is_long, long long& chunks,
                                             long long& starts) {
    const long long lo = (long long)indptr[i], d = (long long)indptr[i + 1] - lo;
    is_long = d > smax;
    chunks = is_long ? (d + chunk - 1) / chunk : 0;
    starts = 0;
    if (block > 0) {
        if (i == 0 || is_long || i % max_rows == 0) {
            starts = 1;
        } else {
            const long long plo = (long long)indptr[i - 1];
            starts = (lo / block != plo / block) || (lo - plo > smax);
        }
    }
}

extern "C" __global__ void __launch_bounds__(256) gb_row_schedule(
        const ip_t* __restrict__ indptr, long long m, long long smax, long long chunk,
        long long block, long long max_rows, long long* blk, long long* long_rows,
        long long* cptr, int* cslot, long long* counts, unsigned int* barrier) {
    long long* scratch = counts + 4;
    const long long per = (m + gridDim.x - 1) / gridDim.x;
    const long long lo = min(m, (long long)blockIdx.x * per), hi = min(m, lo + per);
    /* this block's long rows, chunks and row blocks */
    long long cl = 0, cc = 0, cb = 0, f, c, b;
    for (long long i = lo + threadIdx.x; i < hi; i += blockDim.x) {
        gb_row_parts(indptr, i, smax, chunk, block, max_rows, f, c, b);
        cl += f;
        cc += c;
        cb += b;
    }
    long long bl, bc, bb;
    gb_block_scan3(cl, cc, cb, bl, bc, bb);
    if (threadIdx.x == 0) {
        scratch[3 * blockIdx.x] = bl;
        scratch[3 * blockIdx.x + 1] = bc;
        scratch[3 * blockIdx.x + 2] = bb;
    }
    gb_grid_barrier(barrier, barrier + 1);
    /* the counts of the blocks before this one, and the grid's */
    long long pl = 0, pc = 0, pb = 0, al = 0, ac = 0, ab = 0;
    for (unsigned int q = threadIdx.x; q < gridDim.x; q += blockDim.x) {
        const long long ql = __ldcg(scratch + 3 * q), qc = __ldcg(scratch + 3 * q + 1),
                        qb = __ldcg(scratch + 3 * q + 2);
        if (q < blockIdx.x) { pl += ql; pc += qc; pb += qb; }
        al += ql;
        ac += qc;
        ab += qb;
    }
    long long nlong, nchunks, nblk;
    gb_block_scan3(pl, pc, pb, bl, bc, bb);
    gb_block_scan3(al, ac, ab, nlong, nchunks, nblk);
    /* place this block's rows, a tile at a time */
    for (long long t = lo; t < hi; t += blockDim.x) {
        const long long i = t + threadIdx.x;
        long long is_long = 0, chunks = 0, starts = 0, sl, sc, sb;
        if (i < hi) gb_row_parts(indptr, i, smax, chunk, block, max_rows, is_long, chunks,
                                 starts);
        f = is_long;
        c = chunks;
        b = starts;
        gb_block_scan3(f, c, b, sl, sc, sb);  /* the row's places within the tile */
        if (is_long) {
            const long long s = bl + f, c0 = bc + c;
            long_rows[s] = i;
            cptr[s] = c0;
            for (long long k = 0; k < chunks; ++k) cslot[c0 + k] = (int)s;
        }
        if (starts) blk[bb + b] = i;
        bl += sl;
        bc += sc;
        bb += sb;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        cptr[nlong] = nchunks;
        counts[0] = nlong;
        counts[1] = nchunks;
        counts[2] = nblk;
    }
}
