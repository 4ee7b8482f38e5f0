"""Which lines of gblas make CuPy compile a kernel (NVRTC) in a first-ever GPU call, and
for how long: each algorithm runs in a new process whose gblas and CuPy kernel caches
are empty, with CuPy's NVRTC entry point wrapped to charge each compile to the innermost
gblas line on the stack (and to the CuPy function below it); ``CUB`` marks a source that
includes CUB (CuPy's reductions with its CUB accelerator on).

Besides the algorithms, ``formats`` builds every GPU pull format by a PageRank pinned to
it (what ``gblas warmup --device gpu`` compiles) and ``prepare`` runs ``A.prepare(1000)``
(the planner's builds for a Matrix used many times): their builds' reductions compile
only there.

Usage (on a GPU machine)::

    PYTHONPATH=. python benchmarks/probe_compile_sites_gpu.py connected_components pagerank
    PYTHONPATH=. python benchmarks/probe_compile_sites_gpu.py formats prepare --scale 18
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

_CHILD = r'''
import collections, sys, time, traceback
import scipy.sparse as sp
S = sp.load_npz(sys.argv[1]); alg = sys.argv[2]; top = int(sys.argv[3])
import cupy as cp
from cupy.cuda import compiler
import gblas as gb
sites = collections.defaultdict(lambda: [0, 0.0])
name = ("_compile_using_nvrtc_no_warning" if hasattr(compiler, "_compile_using_nvrtc_no_warning")
        else "compile_using_nvrtc")
inner = getattr(compiler, name)
def charged(source, *a, **k):
    t0 = time.perf_counter()
    try:
        return inner(source, *a, **k)
    finally:
        st = traceback.extract_stack()
        g = [f for f in st if "/gblas/" in f.filename]
        c = [f for f in st if "/cupy/" in f.filename and "compiler" not in f.filename]
        key = ((f"{g[-1].filename.split('/gblas/')[-1]}:{g[-1].lineno}" if g else "?")
               + (f" <- {c[0].filename.split('/cupy/')[-1]}:{c[0].name}" if c else "")
               + (" CUB" if "cub/" in source or "cub::" in source else ""))
        sites[key][0] += 1
        sites[key][1] += time.perf_counter() - t0
setattr(compiler, name, charged)
if alg in ("label_propagation", "triangle_count", "core_number"):
    S = sp.csr_array(((S + S.T) != 0).astype(float)); S.setdiag(0); S.eliminate_zeros()
A = gb.Matrix.from_scipy(S).to("gpu")
cp.cuda.Device().synchronize()
t0 = time.perf_counter()
if alg == "formats":
    from gblas.formats import pull_formats
    for fmt in pull_formats("gpu"):
        with gb.config(format=fmt):
            gb.algorithms.pagerank(A)
elif alg == "prepare":
    A.prepare(1000)
else:
    f = getattr(gb.algorithms, alg)
    f(A, 0) if alg in ("bfs", "sssp") else f(A)
cp.cuda.Device().synchronize()
print(f"{alg}: first-ever call {time.perf_counter() - t0:.2f} s, "
      f"{sum(n for n, _ in sites.values())} compiles")
ranked = sorted(sites.items(), key=lambda kv: -kv[1][1])
for k, (n, t) in [kv for kv in ranked[:top]] + [kv for kv in ranked[top:] if "CUB" in kv[0]]:
    print(f"  {t:6.2f} s {n:3d} compiles  {k}")
'''


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("algorithms", nargs="+")
    p.add_argument("--scale", type=int, default=14)
    p.add_argument("--top", type=int, default=12,
                   help="lines shown per call (every CUB line is shown besides)")
    p.add_argument("--jobs", type=int, default=1, help="algorithms probed at once")
    args = p.parse_args(argv)
    import scipy.sparse as sp

    import gblas as gb

    S = gb.io.kronecker(args.scale, 16, seed=1).to_scipy()
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "graph.npz")
        sp.save_npz(path, sp.csr_matrix(S))

        def probe(alg: str) -> str:
            caches = Path(tmp) / alg
            env = dict(os.environ, GBLAS_CACHE_DIR=str(caches / "gblas"),
                       CUPY_CACHE_DIR=str(caches / "cupy"))
            r = subprocess.run([sys.executable, "-c", _CHILD, path, alg, str(args.top)],
                               env=env, capture_output=True, text=True, timeout=900)
            return r.stdout if r.returncode == 0 else f"{alg}: failed\n{r.stderr[-2000:]}"

        # several at once share the host's cores: their compile times are then longer
        # than alone, their counts and lines the same
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            for text in pool.map(probe, args.algorithms):
                print(text, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
