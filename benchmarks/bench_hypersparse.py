"""Hypersparse products: memory and time of mxv / vxm on a 2^40 x 2^40 matrix.

Each size runs in a fresh process (peak RSS from ``resource.getrusage``, the traced
NumPy / Python allocations from ``tracemalloc``).  The anchor, timed in the same process,
is SciPy's ``csr @ x`` on the compact matrix (the non-empty rows and columns only, with
x gathered there): what the product costs once the ids are compacted.  Figures are the
median of ``--repeat`` runs after a warm-up.

    PYTHONPATH=$PWD python3 benchmarks/bench_hypersparse.py --nnz 1000000 --out \
        benchmarks/results/hypersparse.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys

CHILD = r"""
import json, resource, statistics, sys, time, tracemalloc
import numpy as np, scipy.sparse as sp, gblas as gb
nnz, nx, repeat = (int(a) for a in sys.argv[1:4])
n = 2**40
rng = np.random.default_rng(7)
rows, cols = rng.integers(0, n, nnz), rng.integers(0, n, nnz)
x_idx = np.unique(cols[:nx])
w = gb.Matrix.from_coo([0, 1], [1, 0], [1.0, 1.0], shape=(n, n))   # kernels loaded first
wx = gb.Vector.from_coo([1], [1.0], size=n)
gb.mxv(w, wx), gb.vxm(wx, w)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
tracemalloc.start()
t0 = time.perf_counter()
A = gb.Matrix.from_coo(rows, cols, rng.random(nnz), shape=(n, n))
build = time.perf_counter() - t0
x = gb.Vector.from_coo(x_idx, np.ones(x_idx.size), size=n)
def med(f):
    f()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return statistics.median(ts)
t_mxv = med(lambda: gb.mxv(A, x))
t_vxm = med(lambda: gb.vxm(x, A))
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
# the anchor: SciPy on the compact matrix (rows and columns with entries)
r, c, v = A.to_coo()
ur, lr = np.unique(r, return_inverse=True); uc, lc = np.unique(c, return_inverse=True)
S = sp.csr_array((v, (lr, lc)), shape=(ur.size, uc.size))
xs = np.zeros(uc.size); pos = np.searchsorted(uc, x_idx)
hit = uc[np.minimum(pos, uc.size - 1)] == x_idx
xs[pos[hit]] = 1.0
t_sp = med(lambda: S @ xs)
t_spT = med(lambda: S.T @ np.ones(ur.size))
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps(dict(nnz=nnz, nx=int(x_idx.size), hyper=A.is_hypersparse, build_s=build,
                      mxv_s=t_mxv, vxm_s=t_vxm, scipy_s=t_sp, scipyT_s=t_spT, traced=peak,
                      rss=rss, rss_start=base, plan=gb.explain(gb.mxv, A, x).reason[:160])))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nnz", type=int, nargs="+", default=[10**4, 10**5, 10**6])
    ap.add_argument("--nx", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    rows = []
    for nnz in a.nnz:
        res = subprocess.run([sys.executable, "-c", CHILD, str(nnz), str(a.nx), str(a.repeat)],
                             capture_output=True, text=True, check=True)
        rows.append(json.loads(res.stdout.strip().splitlines()[-1]))
        print(rows[-1], flush=True)
    lines = [
        "# Hypersparse mxv / vxm on a 2^40 x 2^40 matrix",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores shared with other jobs, Python "
        f"{platform.python_version()}; `benchmarks/bench_hypersparse.py --repeat {a.repeat}`"
        f" (x: {a.nx} random columns' ids, a sparse Vector of size 2^40).",
        "Times are ratios to SciPy's `csr @ x` on the compact matrix (rows and columns with "
        "entries only), timed in the same process; medians after a warm-up.  Memory: "
        "peak RSS of the whole process (Python, NumPy, Numba and the kernels included) "
        "and the peak of the allocations traced while building A and running the products "
        "(kernels loaded before, on a 2-entry matrix).",
        "",
        "| entries | x entries | hypersparse | build (s) | mxv / SciPy compact | vxm / SciPy "
        "compact (A^T x) | traced peak (MB) | bytes / entry | peak RSS (MB) |",
        "|---:|---:|:---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['nnz']:,} | {r['nx']:,} | {r['hyper']} | {r['build_s']:.3f} | "
            f"{r['mxv_s'] / r['scipy_s']:.2f}x | {r['vxm_s'] / r['scipyT_s']:.2f}x | "
            f"{r['traced'] / 2**20:.1f} | {r['traced'] / r['nnz']:.0f} | "
            f"{r['rss'] / 2**20:.0f} |")
    lines += ["", f"Plan of the largest: {rows[-1]['plan']}...", ""]
    text = "\n".join(lines)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
