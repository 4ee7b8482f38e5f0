"""Probe: a dense push product ``y = A' x`` scattered along A's own rows (float64
atomics, no transpose built) against the pull products over ``A'`` and cuSPARSE.

For each Kronecker scale (pattern, built on the device as in
:mod:`benchmarks.bench_gpu_mxv`): the transpose's build on a fresh Matrix, gblas's
planned pull product over ``A.T`` (CSR, then the light panels once built), cuSPARSE's
float64 SpMV over the prebuilt transposed matrix, and push kernels over A's CSR with
``K`` entries per thread (contiguous or warp-interleaved), each checked against cuSPARSE.

Usage::

    PYTHONPATH=. python3 benchmarks/probe_push_gpu.py --scales 22 24 --out OUTDIR
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

from benchmarks.bench_gpu_mxv import build_graph, time_ms

PUSH_SRC = r"""
extern "C" __global__ void push_contig(const int* __restrict__ Ap, const int* __restrict__ Aj,
    const double* __restrict__ x, double* __restrict__ y, long long nnz, int n, int K)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long e0 = t * K;
    if (e0 >= nnz) return;
    long long e1 = min(e0 + (long long)K, nnz);
    int lo = 0, hi = n;
    while (hi - lo > 1) { int mid = (lo + hi) >> 1; if (Ap[mid] <= e0) lo = mid; else hi = mid; }
    int r = lo; long long end = Ap[r + 1]; double xv = x[r];
    for (long long e = e0; e < e1; ++e) {
        while (e >= end) { ++r; end = Ap[r + 1]; xv = x[r]; }
        atomicAdd(y + Aj[e], xv);
    }
}

extern "C" __global__ void push_warp(const int* __restrict__ Ap, const int* __restrict__ Aj,
    const double* __restrict__ x, double* __restrict__ y, long long nnz, int n, int K)
{
    long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    long long base = w * 32LL * K;
    if (base >= nnz) return;
    long long e0 = base + lane;
    int lo = 0, hi = n;
    long long s = min(e0, nnz - 1);
    while (hi - lo > 1) { int mid = (lo + hi) >> 1; if (Ap[mid] <= s) lo = mid; else hi = mid; }
    int r = lo; long long end = Ap[r + 1]; double xv = x[r];
    for (int k = 0; k < K; ++k) {
        long long e = e0 + 32LL * k;
        if (e >= nnz) break;
        while (e >= end) { ++r; end = Ap[r + 1]; xv = x[r]; }
        atomicAdd(y + Aj[e], xv);
    }
}
"""


def run_scale(scale: int, args) -> dict:
    import cupy as cp
    import cupyx.scipy.sparse as csp

    import gblas as gb
    from gblas.formats.csr import CSR

    F, _, _ = build_graph(scale, 16, 7)
    n, nnz = F.shape[0], F.nnz
    row = {"scale": scale, "n": n, "nnz": int(nnz)}
    ip = F.indptr.astype(cp.int32)
    ix = F.indices.astype(cp.int32)
    x = cp.random.RandomState(3).random_sample(n)
    M = csp.csr_matrix((cp.ones(nnz), ix, ip), shape=(n, n)).T.tocsr()
    ref = M @ x
    row["cusparse_ms"] = time_ms(lambda: M @ x, args.repeat)
    M = None
    mod = cp.RawModule(code=PUSH_SRC, options=("-std=c++17",))
    y = cp.zeros(n)
    for name in ("push_contig", "push_warp"):
        k = mod.get_function(name)
        for K in (4, 8, 16, 32):
            per = K if name == "push_contig" else 32 * K
            threads = -(-nnz // per) * (1 if name == "push_contig" else 32)
            grid = -(-threads // 256)

            def go(k=k, K=K, grid=grid):
                y.fill(0)
                k((grid,), (256,), (ip, ix, x, y, np.int64(nnz), np.int32(n), np.int32(K)))

            go()
            err = float(cp.abs(y - ref).max() / cp.abs(ref).max())
            row[f"{name}_K{K}_ms"] = time_ms(go, args.repeat)
            row[f"{name}_K{K}_relerr"] = err
    fill_ms = time_ms(lambda: y.fill(0), args.repeat)
    row["fill_ms"] = fill_ms
    # gblas: the transpose's build on a fresh Matrix, then the planned pull products
    A = gb.Matrix(CSR((n, n), F.indptr, F.indices, None, np.dtype(np.bool_), True, "gpu"))
    s = gb.Vector.from_dense(x)
    gb.mxv(A.T, s, "plus_second")  # compile on a first Matrix
    A = gb.Matrix(CSR((n, n), F.indptr, F.indices, None, np.dtype(np.bool_), True, "gpu"))
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    A.csr(transposed=True)
    cp.cuda.Device().synchronize()
    row["transpose_ms"] = (time.perf_counter() - t0) * 1e3
    row["pull_csr_ms"] = time_ms(lambda: gb.mxv(A.T, s, "plus_second"), args.repeat)
    row["pull_format"] = gb.explain(gb.mxv, A.T, s, "plus_second").format
    A = gb.Matrix(CSR((n, n), F.indptr, F.indices, None, np.dtype(np.bool_), True, "gpu"))
    t0 = time.perf_counter()
    r = gb.algorithms.pagerank(A)
    cp.cuda.Device().synchronize()
    row["pagerank_first_ms"] = (time.perf_counter() - t0) * 1e3
    del r
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scales", type=int, nargs="+", default=[22])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    args = ap.parse_args()
    rows = [run_scale(s, args) for s in args.scales]
    with open(os.path.join(args.out, "probe_push_gpu.json"), "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
