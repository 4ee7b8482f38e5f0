"""Probes of a fresh Matrix's first product over ``A'`` on the GPU, at Kronecker scales:

* ``--scales``: ``y = A' x`` without building ``A'`` (a push over ``A``'s rows with atomic
  adds, warp-strided chunks of entries), against cuSPARSE's pull over a built transpose,
  its transposed SpMV, and gblas's first and warm product;
* ``--transpose-scales``: gblas's transpose as it runs, its sort route, and cuSPARSE's
  ``csr2cscEx2`` called directly (pattern and float64), and whether the arrays are equal.

Results: ``results/gpu_transpose.md``.  Usage::

    PYTHONPATH=. python3 benchmarks/probe_transpose_gpu.py --scales 22 24 --transpose-scales 14 22
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from benchmarks.bench_gpu_mxv import build_graph, time_ms

#: the push kernel, for float (f32) and double (f64) values: each warp a strided chunk of
#: entries, the row of its first entry found by binary search, atomic adds into y
PUSH = r"""
extern "C" __global__ void push_NAME(const int* __restrict__ Ap, const int* __restrict__ Aj,
                                     const T* __restrict__ x, T* __restrict__ y,
                                     int n, long long nnz, int per_lane)
{
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    const long long chunk = 32LL * per_lane;
    long long e = warp * chunk + lane;
    if (warp * chunk >= nnz) return;
    /* the row holding entry e: the last r with Ap[r] <= e */
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) >> 1;
        if ((long long)Ap[mid] <= e) lo = mid; else hi = mid - 1;
    }
    int r = lo;
    long long end = warp * chunk + chunk;
    if (end > nnz) end = nnz;
    for (; e < end; e += 32) {
        while ((long long)Ap[r + 1] <= e) ++r;
        atomicAdd(y + Aj[e], x[r]);
    }
}
"""
SRC = (PUSH.replace("NAME", "f64").replace("T*", "double*")
       + PUSH.replace("NAME", "f32").replace("T*", "float*"))


def cusparse_transpose(indptr, indices, values, shape, symbolic):
    """cuSPARSE csr2cscEx2 (ALG1): the CSR of the transpose, int32 indices."""
    import cupy as cp
    from cupy._core import _dtype
    from cupy.cuda import device
    from cupy_backends.cuda.libs import cusparse as cs

    handle = device.get_cusparse_handle()
    m, n = shape
    nnz = int(indices.size)
    tp = cp.empty(n + 1, "i")
    ti = cp.empty(nnz, "i")
    dt = np.dtype(np.float32) if values is None else values.dtype
    tv = None if symbolic else cp.empty(nnz, dt)
    vptr = 0 if values is None else values.data.ptr
    tvptr = 0 if tv is None else tv.data.ptr
    action = cs.CUSPARSE_ACTION_SYMBOLIC if symbolic else cs.CUSPARSE_ACTION_NUMERIC
    args = (handle, m, n, nnz, vptr, indptr.data.ptr, indices.data.ptr, tvptr, tp.data.ptr,
            ti.data.ptr, _dtype.to_cuda_dtype(dt), action, cs.CUSPARSE_INDEX_BASE_ZERO,
            cs.CUSPARSE_CSR2CSC_ALG1)
    size = cs.csr2cscEx2_bufferSize(*args)
    buf = cp.empty(max(size, 1), np.int8)
    cs.csr2cscEx2(*args, buf.data.ptr)
    return tp, ti, tv


def sorted_route(csr):
    """gblas's GPU transpose with cuSPARSE turned down: the sort of the column keys."""
    from gblas.backends.gpu import transpose as gpu_transpose

    real = gpu_transpose.supports
    gpu_transpose.supports = lambda *a: False
    try:
        return csr.transpose()
    finally:
        gpu_transpose.supports = real


def wall_ms(fn, repeat):
    import cupy as cp

    fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        cp.cuda.Device().synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))


def transposes(scales, repeat):
    import cupy as cp

    from gblas.formats.csr import CSR

    for scale in scales:
        F, _, _ = build_graph(scale, 16, 1)
        n, nnz = F.shape[0], int(F.nnz)
        P = CSR((n, n), F.indptr, F.indices, None, np.dtype(np.bool_), True, "gpu")
        V = CSR((n, n), F.indptr, F.indices, F.values.astype(cp.float64), np.dtype(np.float64),
                None, "gpu")
        ip, ix, vals = F.indptr, F.indices, V.values
        row = {"scale": scale, "nnz": nnz,
               "gblas_pattern_ms": wall_ms(P.transpose, repeat),
               "gblas_f64_ms": wall_ms(V.transpose, repeat),
               "sort_pattern_ms": wall_ms(lambda P=P: sorted_route(P), repeat),
               "sort_f64_ms": wall_ms(lambda V=V: sorted_route(V), repeat),
               "cusparse_symbolic_ms": wall_ms(lambda ip=ip, ix=ix, n=n: cusparse_transpose(
                   ip, ix, None, (n, n), True), repeat),
               "cusparse_f64_ms": wall_ms(lambda ip=ip, ix=ix, v=vals, n=n: cusparse_transpose(
                   ip, ix, v, (n, n), False), repeat)}
        T = sorted_route(V)
        tp, ti, tv = cusparse_transpose(F.indptr, F.indices, V.values, (n, n), False)
        tp2, ti2, _ = cusparse_transpose(F.indptr, F.indices, None, (n, n), True)
        row["same"] = bool((tp == T.indptr).all() and (ti == T.indices).all()
                           and (tv == T.values).all() and (tp2 == tp).all()
                           and (ti2 == ti).all())
        print(json.dumps(row), flush=True)


def main() -> None:
    import cupy as cp

    ap = argparse.ArgumentParser()
    ap.add_argument("--scales", type=int, nargs="*", default=[])
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--transpose-scales", type=int, nargs="*", default=[])
    args = ap.parse_args()
    if args.transpose_scales:
        transposes(args.transpose_scales, args.repeat)
        if not args.scales:
            return
    mod = cp.RawModule(code=SRC)
    kernels = (mod.get_function("push_f64"), mod.get_function("push_f32"))
    for scale in args.scales:
        print(json.dumps(push_scale(scale, kernels, args.repeat)), flush=True)


def push_scale(scale: int, kernels, repeat: int) -> dict:
    """One scale's push kernels, cuSPARSE's pull and transposed SpMV, and gblas's first
    and warm product over ``A'``."""
    import cupy as cp
    import cupyx.scipy.sparse as csp

    import gblas as gb
    from gblas.formats.csr import CSR

    F, _, _ = build_graph(scale, 16, 1)
    n, nnz = F.shape[0], int(F.nnz)
    Ap, Aj = F.indptr, F.indices
    x = cp.random.random(n)
    row = {"scale": scale, "n": n, "nnz": nnz}
    ref = None
    for per_lane in (4, 16, 64):
        warps = -(-nnz // (32 * per_lane))
        grid = (-(-warps * 32 // 256),)
        for kernel, xv, name in ((kernels[0], x, "f64"), (kernels[1], x.astype(cp.float32),
                                                           "f32")):
            y = cp.zeros(n, dtype=xv.dtype)

            def run(y=y, kernel=kernel, xv=xv, per_lane=per_lane, grid=grid):
                y.fill(0)
                kernel(grid, (256,), (Ap, Aj, xv, y, np.int32(n), np.int64(nnz),
                                      np.int32(per_lane)))

            row[f"push_{name}_{per_lane}"] = time_ms(run, repeat)
            if ref is None:
                run()
                ref = y.copy()
    S = csp.csr_matrix((cp.ones(nnz), Aj, Ap), shape=(n, n))
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    M = S.T.tocsr()
    cp.cuda.Device().synchronize()
    row["cupyx_transpose_ms"] = (time.perf_counter() - t0) * 1e3
    row["cusparse_pull_ms"] = time_ms(lambda: M @ x, repeat)
    row["cusparse_transposed_ms"] = time_ms(lambda: S.T @ x, repeat)
    row["maxdiff_push"] = float(cp.abs(ref - M @ x).max())
    # gblas: a fresh Matrix's first product over A' (builds the transpose), then warm
    A = gb.Matrix(CSR((n, n), Ap, Aj, None, np.dtype(np.bool_), True, "gpu"))
    s = gb.Vector.from_dense(x)
    gb.mxv(gb.Matrix(CSR((4, 4), cp.zeros(5, cp.int32), cp.zeros(0, cp.int32), None,
                         np.dtype(np.bool_), True, "gpu")).T,
           gb.Vector.from_dense(cp.ones(4)), "plus_second")  # kernels compiled
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    gb.mxv(A.T, s, "plus_second")
    cp.cuda.Device().synchronize()
    row["gblas_first_product_ms"] = (time.perf_counter() - t0) * 1e3
    row["gblas_warm_product_ms"] = time_ms(lambda: gb.mxv(A.T, s, "plus_second"), repeat)
    return row

if __name__ == "__main__":
    main()
