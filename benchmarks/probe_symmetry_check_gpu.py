"""Probe: a symmetry test on the GPU that builds nothing, against the cuSPARSE transpose
it would spare (``benchmarks/results/history_gpu.md``, "A symmetry test without the
transpose on the GPU").

Each thread takes ``K`` consecutive entries (its first row found by a binary search of
the row pointers); an entry above the diagonal binary-searches its mirror in the sorted
row it names (and compares the values when asked); a failure sets a flag that blocks
starting later read and stop at; the counts above and below the diagonal must match.
Kronecker 18, 20 and 22 (pattern, directed and undirected forms) and four of the data
folder's graphs; medians of 9 synchronized calls, the answer read back each time, and
every answer checked against SciPy's.

Usage::

    PYTHONPATH=. python3 benchmarks/probe_symmetry_check_gpu.py --data .data --out OUTDIR
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import time

import numpy as np

SRC = r"""
extern "C" __global__ void sym_check(const int* __restrict__ ptr,
    const int* __restrict__ idx, const double* __restrict__ val, int use_val,
    long long nnz, int n, int K, unsigned long long* counts, int* flag)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long e0 = t * K;
    long long up = 0, down = 0;
    int bad = 0;
    if (e0 < nnz && !*((volatile int*)flag)) {
        long long e1 = min(e0 + (long long)K, nnz);
        int lo = 0, hi = n;
        while (hi - lo > 1) {
            int mid = (lo + hi) >> 1;
            if (ptr[mid] <= e0) lo = mid; else hi = mid;
        }
        int i = lo;
        long long end = ptr[i + 1];
        for (long long e = e0; e < e1; ++e) {
            while (e >= end) { ++i; end = ptr[i + 1]; }
            int j = idx[e];
            if (j < i) { ++down; continue; }
            if (j == i) continue;
            ++up;
            int a = ptr[j], b = ptr[j + 1];
            while (a < b) { int m = (a + b) >> 1; if (idx[m] < i) a = m + 1; else b = m; }
            if (a == ptr[j + 1] || idx[a] != i || (use_val && val[a] != val[e])) {
                bad = 1;
                break;
            }
        }
    }
    for (int o = 16; o; o >>= 1) {
        up += __shfl_down_sync(0xffffffffu, up, o);
        down += __shfl_down_sync(0xffffffffu, down, o);
        bad |= __shfl_down_sync(0xffffffffu, bad, o);
    }
    if ((threadIdx.x & 31) == 0) {
        if (up) atomicAdd(counts, (unsigned long long)up);
        if (down) atomicAdd(counts + 1, (unsigned long long)down);
        if (bad) atomicExch(flag, 1);
    }
}
"""


def check(cp, kern, ptr, idx, val, per_thread: int) -> bool:
    """Whether the CSR ``(ptr, idx[, val])`` equals its transpose (read back)."""
    n, nnz = ptr.size - 1, idx.size
    counts = cp.zeros(2, cp.uint64)
    flag = cp.zeros(1, cp.int32)
    threads = (nnz + per_thread - 1) // per_thread
    vals = val if val is not None else cp.zeros(1)
    kern(((threads + 255) // 256,), (256,),
         (ptr, idx, vals, np.int32(val is not None), np.int64(nnz), np.int32(n),
          np.int32(per_thread), counts, flag))
    c = counts.get()
    return int(flag.get()[0]) == 0 and c[0] == c[1]


def timed(cp, f, repeat: int = 9):
    """(median ms of synchronized calls, the last answer)."""
    out = f()
    cp.cuda.Device().synchronize()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        cp.cuda.Device().synchronize()
        ts.append(time.perf_counter() - t)
    return float(np.median(ts) * 1e3), out


def graphs(data: str | None):
    """(name, SciPy CSR pattern) of the Kronecker forms and the data folder's graphs."""
    import scipy.io
    import scipy.sparse as sp

    from gblas.io.generators import kronecker_coo

    for s in (18, 20, 22):
        r, c = kronecker_coo(s, 16, seed=1)
        n = 1 << s
        D = sp.csr_array((np.ones(r.size), (r, c)), shape=(n, n))
        D.sum_duplicates()
        D.data[:] = 1
        yield f"kron{s}-D", D
        U = sp.csr_array(D + D.T)
        U.setdiag(0)
        U.eliminate_zeros()
        U.data[:] = 1
        yield f"kron{s}-U", U
    for name in ("luxembourg-osm", "ego-Twitter", "uk-2007-05-100k", "cit-HepPh"):
        path = os.path.join(data or "", f"{name}.mtx.gz")
        if data and os.path.exists(path):
            S = sp.csr_array(scipy.io.mmread(gzip.open(path)))
            S.sum_duplicates()
            S.data[:] = 1
            yield name, S


def probe_graph(cp, kern, csr_transpose, name: str, S) -> dict:
    """The transposes' and the tests' times on one graph (every answer checked)."""
    S.sort_indices()
    ptr = cp.asarray(S.indptr.astype(np.int32))
    idx = cp.asarray(S.indices.astype(np.int32))
    val = cp.asarray(S.data.astype(np.float64))
    truth = (S != S.T).nnz == 0
    res = {"graph": name, "nnz": int(S.nnz), "sym": bool(truth)}
    res["transpose_ms"] = timed(cp, lambda: csr_transpose(ptr, idx, None, S.shape))[0]
    res["transpose_vals_ms"] = timed(cp, lambda: csr_transpose(ptr, idx, val, S.shape))[0]
    for k in (1, 4, 16):
        t, ok = timed(cp, lambda k=k: check(cp, kern, ptr, idx, None, k))
        tv, okv = timed(cp, lambda k=k: check(cp, kern, ptr, idx, val, k))
        assert ok == truth and okv == truth, (name, k, ok, okv, truth)
        res[f"check_K{k}_ms"], res[f"check_vals_K{k}_ms"] = t, tv
    return res


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=None, help="the folder of Matrix Market graphs")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    args = ap.parse_args(argv)
    import cupy as cp

    from gblas.backends.gpu.transpose import csr_transpose

    kern = cp.RawModule(code=SRC, options=("-std=c++17",)).get_function("sym_check")
    rows = []
    for name, S in graphs(args.data):
        res = probe_graph(cp, kern, csr_transpose, name, S)
        print(json.dumps(res), flush=True)
        rows.append(res)
    with open(os.path.join(args.out, "symcheck.json"), "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
