// The light panels' build on the GPU (gblas.backends.gpu.panel_build): a stable counting
// sort of a CSR's entries by column panel straight into the layout's padded slots, the
// (panel, row) pairs' first entries, the bank interleave of the pairs, and the partial
// results of every group.  Entries and slots are counted in 32 bits (the caller checks).
//
// Typedefs given by the source: V_t, a word of the values' bytes (VW words per value).

#define PB_WARPS 8
#define PB_HEAD 0x8000

__device__ __forceinline__ unsigned pb_lanes_below(int lane) {
    return (1u << lane) - 1u;
}

// The lanes of the warp whose bucket equals this lane's (among those with ok), from one
// ballot per bit of the bucket, in place of __match_any_sync, whose cost grows with the
// distinct values among the lanes.  Every lane of the warp calls it.
__device__ __forceinline__ unsigned pb_peers(int p, bool ok, int bits) {
    unsigned same = __ballot_sync(0xffffffffu, ok);
    for (int i = 0; i < bits; ++i) {
        const bool set = (p >> i) & 1;
        const unsigned b = __ballot_sync(0xffffffffu, set);
        same &= set ? b : ~b;
    }
    return same;
}

// Steps a thread (or a warp) loads ahead: the passes are bound by memory latency, and
// one 2- or 4-byte load in flight per thread leaves most of the bandwidth unused.
#define PB_AHEAD 4

// Each entry's panel (key[k]), and every tile's count of each panel (hist[p * ntiles + t]):
// one block per tile of T consecutive entries.
extern "C" __global__ void pb_count(const int* __restrict__ indices,
                                    const int* __restrict__ rank, int has_rank, int W,
                                    int nnz, int T, int npn, int ntiles, int bits,
                                    unsigned short* __restrict__ key,
                                    int* __restrict__ hist,
                                    const int* __restrict__ rows, int plainW,
                                    unsigned long long* __restrict__ plain_pairs) {
    // plainW > 0: also count the (row, indices[k] / plainW) pairs (an entry starts one
    // where its row or its panel differs from the entry before), into *plain_pairs
    extern __shared__ int cnt[];
    __shared__ int pairs;
    const int t = blockIdx.x;
    const int lane = threadIdx.x & 31;
    for (int p = threadIdx.x; p < npn; p += blockDim.x) cnt[p] = 0;
    if (threadIdx.x == 0) pairs = 0;
    __syncthreads();
    int mine = 0;
    const int lo = t * T;
    const int hi = min(lo + T, nnz);
    const int step = blockDim.x;
    for (int b = lo; b < hi; b += PB_AHEAD * step) {
        int v[PB_AHEAD];
#pragma unroll
        for (int u = 0; u < PB_AHEAD; ++u) {
            const int k = b + u * step + threadIdx.x;
            v[u] = k < hi ? indices[k] : 0;
        }
        if (plainW > 0) {
#pragma unroll
            for (int u = 0; u < PB_AHEAD; ++u) {
                const int k = b + u * step + threadIdx.x;
                if (k < hi)
                    mine += k == 0 || rows[k - 1] != rows[k] ||
                            indices[k - 1] / plainW != v[u] / plainW;
            }
        }
        if (has_rank) {
#pragma unroll
            for (int u = 0; u < PB_AHEAD; ++u) {
                const int k = b + u * step + threadIdx.x;
                if (k < hi) v[u] = rank[v[u]];
            }
        }
#pragma unroll
        for (int u = 0; u < PB_AHEAD; ++u) {
            const int k = b + u * step + threadIdx.x;
            const bool ok = k < hi;
            const int p = ok ? v[u] / W : -1;
            if (ok) key[k] = (unsigned short)p;
            const unsigned same = pb_peers(p, ok, bits);
            if (ok && __ffs(same) - 1 == lane) atomicAdd(&cnt[p], __popc(same));
        }
    }
    if (plainW > 0) atomicAdd(&pairs, mine);
    __syncthreads();
    for (int p = threadIdx.x; p < npn; p += blockDim.x) hist[(long long)p * ntiles + t] = cnt[p];
    if (plainW > 0 && threadIdx.x == 0) atomicAdd(plain_pairs, (unsigned long long)pairs);
}

// The stable scatter: the tile's warps each take T / PB_WARPS consecutive entries, count
// them by panel, and write every entry to its slot (base[p * ntiles + t]: the tile's first
// slot of panel p) in entry order: its row, its (relabelled) column and its value.
extern "C" __global__ void pb_scatter(const unsigned short* __restrict__ key,
                                      const int* __restrict__ indices,
                                      const int* __restrict__ rank, int has_rank,
                                      const int* __restrict__ rows,
                                      const V_t* __restrict__ vals, int VW,
                                      int nnz, int T, int npn, int ntiles, int bits,
                                      const int* __restrict__ base,
                                      int* __restrict__ srow, int* __restrict__ scol,
                                      V_t* __restrict__ sval) {
    extern __shared__ int wcnt[];                   // [PB_WARPS][npn]
    const int t = blockIdx.x;
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    for (int i = threadIdx.x; i < PB_WARPS * npn; i += blockDim.x) wcnt[i] = 0;
    __syncthreads();
    const int sub = T / PB_WARPS;
    const int lo = t * T;
    const int hi = min(lo + T, nnz);
    const int wlo = min(lo + w * sub, hi), whi = min(wlo + sub, hi);
    int* mine = wcnt + w * npn;
    for (int b = wlo; b < whi; b += 32 * PB_AHEAD) {
        int p[PB_AHEAD];
#pragma unroll
        for (int u = 0; u < PB_AHEAD; ++u) {
            const int k = b + 32 * u + lane;
            p[u] = k < whi ? (int)key[k] : -1;
        }
#pragma unroll
        for (int u = 0; u < PB_AHEAD; ++u) {
            const unsigned same = pb_peers(p[u], p[u] >= 0, bits);
            if (p[u] >= 0 && __ffs(same) - 1 == lane) mine[p[u]] += __popc(same);
            __syncwarp();
        }
    }
    __syncthreads();
    for (int p = threadIdx.x; p < npn; p += blockDim.x) {
        int at = base[(long long)p * ntiles + t];
        for (int v = 0; v < PB_WARPS; ++v) {
            const int c = wcnt[v * npn + p];
            wcnt[v * npn + p] = at;
            at += c;
        }
    }
    __syncthreads();
    for (int b = wlo; b < whi; b += 32 * PB_AHEAD) {
        int p[PB_AHEAD], c[PB_AHEAD], r[PB_AHEAD];
#pragma unroll
        for (int u = 0; u < PB_AHEAD; ++u) {
            const int k = b + 32 * u + lane;
            const bool ok = k < whi;
            p[u] = ok ? (int)key[k] : -1;
            c[u] = ok ? indices[k] : 0;
            r[u] = ok ? rows[k] : 0;
        }
        if (has_rank) {
#pragma unroll
            for (int u = 0; u < PB_AHEAD; ++u)
                if (p[u] >= 0) c[u] = rank[c[u]];
        }
#pragma unroll
        for (int u = 0; u < PB_AHEAD; ++u) {
            const int k = b + 32 * u + lane;
            const bool ok = p[u] >= 0;
            const unsigned same = pb_peers(p[u], ok, bits);
            const int d = ok ? mine[p[u]] + __popc(same & pb_lanes_below(lane)) : 0;
            __syncwarp();
            if (ok && __ffs(same) - 1 == lane) mine[p[u]] += __popc(same);
            __syncwarp();
            if (ok) {
                srow[d] = r[u];
                scol[d] = c[u];
                for (int v = 0; v < VW; ++v)
                    sval[(long long)d * VW + v] = vals[(long long)k * VW + v];
            }
        }
    }
}

// ent of every slot: the column offset in its panel, PB_HEAD where the entry starts its
// (panel, row) pair (the slot before holds another row or panel); 0 on padding (row -1).
// The pairs are counted into *npair.
extern "C" __global__ void pb_heads(const int* __restrict__ srow, const int* __restrict__ scol,
                                    int tot, int W, unsigned short* __restrict__ ent,
                                    unsigned long long* __restrict__ npair,
                                    int* __restrict__ flag, int has_flag) {
    __shared__ int heads;
    if (threadIdx.x == 0) heads = 0;
    __syncthreads();
    int mine = 0;
    const int step = blockDim.x;
    for (int s0 = blockIdx.x * step * PB_AHEAD; s0 < tot; s0 += gridDim.x * step * PB_AHEAD) {
        int r[PB_AHEAD], rp[PB_AHEAD], c[PB_AHEAD], cp[PB_AHEAD];
#pragma unroll
        for (int u = 0; u < PB_AHEAD; ++u) {
            const int s = s0 + u * step + threadIdx.x;
            r[u] = s < tot ? srow[s] : -1;
            rp[u] = (s < tot && s > 0) ? srow[s - 1] : -1;
            c[u] = s < tot ? scol[s] : 0;
            cp[u] = (s < tot && s > 0) ? scol[s - 1] : 0;
        }
#pragma unroll
        for (int u = 0; u < PB_AHEAD; ++u) {
            const int s = s0 + u * step + threadIdx.x;
            if (s >= tot) continue;
            if (r[u] < 0) {
                ent[s] = 0;
                if (has_flag) flag[s] = 0;
                continue;
            }
            const int p = c[u] / W;
            const bool head = rp[u] != r[u] || cp[u] / W != p;
            mine += head;
            ent[s] = (unsigned short)((c[u] - p * W) | (head ? PB_HEAD : 0));
            if (has_flag) flag[s] = head;
        }
    }
    atomicAdd(&heads, mine);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(npair, (unsigned long long)heads);
}

// The bank interleave: one warp per segment (the pairs of one (panel, row panel), by
// row): every pair's index in the segment's order by (t, bank), t its rank among the
// segment's pairs of the same bank.  Pairs of ranks below t: sum over banks of min(count,
// t); then the banks below with a pair of rank t.
extern "C" __global__ void pb_bank_order(const int* __restrict__ seg, int nseg,
                                         const unsigned char* __restrict__ bank,
                                         const int* __restrict__ plen,
                                         int* __restrict__ newidx, int* __restrict__ moved) {
    __shared__ int cur[PB_WARPS][32];
    __shared__ int fin[PB_WARPS][32];
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int g = blockIdx.x * PB_WARPS + w;
    if (g >= nseg) return;
    const int lo = seg[g], hi = seg[g + 1];
    fin[w][lane] = 0;
    __syncwarp();
    for (int b = lo; b < hi; b += 32) {
        const int j = b + lane;
        const int k = j < hi ? (int)bank[j] : 0;
        const unsigned same = pb_peers(k, j < hi, 5);
        if (j < hi && __ffs(same) - 1 == lane) fin[w][k] += __popc(same);
        __syncwarp();
    }
    cur[w][lane] = 0;
    __syncwarp();
    for (int b = lo; b < hi; b += 32) {
        const int j = b + lane;
        const int k = j < hi ? (int)bank[j] : 0;
        const unsigned same = pb_peers(k, j < hi, 5);
        int idx = 0;
        if (j < hi) {
            const int t = cur[w][k] + __popc(same & pb_lanes_below(lane));
            for (int v = 0; v < 32; ++v) {
                const int c = fin[w][v];
                idx += min(c, t) + (v < k && c > t ? 1 : 0);
            }
            newidx[j] = lo + idx;
            moved[lo + idx] = plen[j];
        }
        __syncwarp();
        if (j < hi && __ffs(same) - 1 == lane) cur[w][k] += __popc(same);
        __syncwarp();
    }
}

// Moves every real slot s by delta[pair[s] - 1] (its pair's move; pair: the inclusive
// running count of the pairs' first slots); padding stays.
extern "C" __global__ void pb_move(const int* __restrict__ srow, const int* __restrict__ scol,
                                   const unsigned short* __restrict__ ent,
                                   const V_t* __restrict__ sval, int VW,
                                   const int* __restrict__ pair, const int* __restrict__ delta,
                                   int tot, int* __restrict__ orow, int* __restrict__ ocol,
                                   unsigned short* __restrict__ oent, V_t* __restrict__ oval) {
    const int step = blockDim.x;
    for (int s0 = blockIdx.x * step * PB_AHEAD; s0 < tot; s0 += gridDim.x * step * PB_AHEAD) {
        int r[PB_AHEAD], d[PB_AHEAD];
#pragma unroll
        for (int u = 0; u < PB_AHEAD; ++u) {
            const int s = s0 + u * step + threadIdx.x;
            r[u] = s < tot ? srow[s] : -1;
            d[u] = (s < tot && r[u] >= 0) ? pair[s] - 1 : -1;
        }
#pragma unroll
        for (int u = 0; u < PB_AHEAD; ++u) {
            const int s = s0 + u * step + threadIdx.x;
            if (d[u] >= 0) d[u] = s + delta[d[u]];
            else d[u] = s;
        }
#pragma unroll
        for (int u = 0; u < PB_AHEAD; ++u) {
            const int s = s0 + u * step + threadIdx.x;
            if (s >= tot) continue;
            orow[d[u]] = r[u];
            ocol[d[u]] = scol[s];
            oent[d[u]] = ent[s];
            for (int v = 0; v < VW; ++v)
                oval[(long long)d[u] * VW + v] = sval[(long long)s * VW + v];
        }
    }
}

// Every pair j (its first slot s, j = pair[s] - 1): hp[j] = s, its row's bank, and
// whether it starts a segment (its panel or row panel differs from the slot before's).
extern "C" __global__ void pb_pair_list(const int* __restrict__ srow,
                                        const int* __restrict__ scol,
                                        const unsigned short* __restrict__ ent,
                                        const int* __restrict__ pair, int tot, int W, int RR,
                                        int* __restrict__ hp, unsigned char* __restrict__ bank,
                                        unsigned char* __restrict__ segstart) {
    for (int s = blockIdx.x * blockDim.x + threadIdx.x; s < tot;
         s += gridDim.x * blockDim.x) {
        if (ent[s] < PB_HEAD) continue;
        const int j = pair[s] - 1;
        const int r = srow[s];
        hp[j] = s;
        bank[j] = (unsigned char)((r % RR) & 31);
        bool start = true;
        if (s > 0) {
            const int rp = srow[s - 1];
            start = rp < 0 || scol[s - 1] / W != scol[s] / W || rp / RR != r / RR;
        }
        segstart[j] = start;
    }
}

// Entries of every pair: the next pair's first compact index (slot minus its panel's
// padding before it, shift[panel]) less its own; nnz after the last.
extern "C" __global__ void pb_pair_len(const int* __restrict__ hp, const int* __restrict__ scol,
                                       const int* __restrict__ shift, int npair, int nnz,
                                       int W, int* __restrict__ plen) {
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < npair;
         j += gridDim.x * blockDim.x) {
        const int s = hp[j];
        const int here = s - shift[scol[s] / W];
        int next = nnz;
        if (j + 1 < npair) {
            const int s2 = hp[j + 1];
            next = s2 - shift[scol[s2] / W];
        }
        plen[j] = next - here;
    }
}

// Every pair's move: its first slot in the new order (cnew: the pairs' exclusive running
// entry counts in the new order, by new index; plus its panel's shift) less its own.
extern "C" __global__ void pb_pair_delta(const int* __restrict__ hp,
                                         const int* __restrict__ scol,
                                         const int* __restrict__ shift,
                                         const int* __restrict__ newidx,
                                         const int* __restrict__ cnew, int npair, int W,
                                         int* __restrict__ delta) {
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < npair;
         j += gridDim.x * blockDim.x) {
        const int s = hp[j];
        delta[j] = cnew[newidx[j]] + shift[scol[s] / W] - s;
    }
}

__device__ __forceinline__ bool pb_run(const int* srow, const unsigned short* ent, int s) {
    return srow[s] >= 0 && ((ent[s] & PB_HEAD) != 0 || (threadIdx.x == 0));
}

// Runs (partial results) of every group of blockDim.x slots: one block per group.
extern "C" __global__ void pb_group_runs(const int* __restrict__ srow,
                                         const unsigned short* __restrict__ ent,
                                         long long* __restrict__ gcount) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    const int n = __syncthreads_count(pb_run(srow, ent, s));
    if (threadIdx.x == 0) gcount[blockIdx.x] = n;
}

// Every partial's row offset in its row panel (prow) and its (panel, row panel) key.
extern "C" __global__ void pb_partials(const int* __restrict__ srow,
                                       const int* __restrict__ scol,
                                       const unsigned short* __restrict__ ent,
                                       const long long* __restrict__ gbase, int W, int RR,
                                       int nq, unsigned short* __restrict__ prow,
                                       long long* __restrict__ pkey) {
    __shared__ int before[PB_WARPS + 1];
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const bool run = pb_run(srow, ent, s);
    const unsigned mask = __ballot_sync(0xffffffffu, run);
    if (lane == 0) before[w + 1] = __popc(mask);
    __syncthreads();
    if (threadIdx.x == 0) {
        before[0] = 0;
        for (int v = 1; v <= (int)(blockDim.x >> 5); ++v) before[v] += before[v - 1];
    }
    __syncthreads();
    if (run) {
        const long long part = gbase[blockIdx.x] + before[w] + __popc(mask & pb_lanes_below(lane));
        const int r = srow[s];
        prow[part] = (unsigned short)(r % RR);
        pkey[part] = (long long)(scol[s] / W) * nq + r / RR;
    }
}
