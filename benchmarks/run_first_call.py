"""A new process's first call of each algorithm, `import gblas` included.

Each measurement is a fresh Python process that loads a Kronecker graph saved as a SciPy
``.npz`` file (not timed), then times ``import gblas``, ``gb.Matrix.from_scipy(S)`` and
the algorithm's first call, with the on-disk kernel cache warm (a first process fills it
and is not counted).  Median of ``--repeat`` processes per algorithm.  The issue's targets
on a 16K-vertex graph: at most 1 s for each algorithm, 0.3 s for pagerank and bfs.

``--gpu`` does the same on a GPU Matrix (``.to("gpu")`` timed with ``from_scipy``, the
call synchronized) three ways: **first-ever** (gblas's, Numba's and CuPy's kernel caches
empty: what a new installation's first call costs), **warm** (the caches that first call
filled), and **after warmup** (empty caches filled by one ``gblas warmup --device gpu``,
itself timed); against the cupyx (cuSPARSE) PageRank and BFS loops' first call in a new
process with CuPy's cache empty, then warm.

Usage::

    PYTHONPATH=. python benchmarks/run_first_call.py --scale 14 --repeat 5
    PYTHONPATH=. python benchmarks/run_first_call.py --gpu --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.harness import emit_lines

ALGORITHMS = ("pagerank", "bfs", "sssp", "connected_components", "triangle_count",
              "core_number", "label_propagation")

REPO = Path(__file__).resolve().parents[1]

GPU_ALGORITHMS = ("pagerank", "bfs", "sssp", "connected_components")

_CHILD = """
import json, sys, time
import scipy.sparse as sp
S = sp.load_npz(sys.argv[1])
alg, device = sys.argv[2], sys.argv[3]
t0 = time.perf_counter()
import gblas as gb
t1 = time.perf_counter()
A = gb.Matrix.from_scipy(S)
sync = lambda: None
if device == "gpu":
    import cupy as cp
    A = A.to("gpu")
    sync = cp.cuda.Device().synchronize
    sync()
t2 = time.perf_counter()
f = getattr(gb.algorithms, alg)
r = f(A, 0) if alg in ("bfs", "sssp") else f(A)
sync()
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "from_scipy": t2 - t1, "call": t3 - t2, "total": t3 - t0}))
"""

#: The cupyx loops of ``run_end_to_end.py --gpu`` (PageRank with gblas's stopping rule;
#: BFS one SpMV per level), their first call in a new process.
_CUPYX_CHILD = """
import json, sys, time
import numpy as np, scipy.sparse as sp
from benchmarks.end_to_end_gpu import _cupy_bfs, _cupy_pagerank
S = sp.csr_matrix(sp.load_npz(sys.argv[1]))
alg = sys.argv[2]
n = S.shape[0]
t0 = time.perf_counter()
import cupy as cp, cupyx.scipy.sparse as cps
t1 = time.perf_counter()
if alg == "pagerank":
    out = np.asarray(S.sum(axis=1)).ravel()
    inv = np.divide(1.0, out, out=np.zeros(n), where=out != 0)
    M = cps.csr_matrix(sp.csr_matrix((sp.diags_array(inv) @ S).T))
    dangling = cp.asarray(out == 0)
else:
    M = cps.csr_matrix(sp.csr_matrix(S.T, dtype=np.float32))
cp.cuda.Device().synchronize()
t2 = time.perf_counter()
_cupy_pagerank(cp, M, dangling, n) if alg == "pagerank" else _cupy_bfs(cp, M, 0, n)
cp.cuda.Device().synchronize()
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "from_scipy": t2 - t1, "call": t3 - t2, "total": t3 - t0}))
"""


def _env(caches: Path | None = None) -> dict:
    """The child's environment; ``caches``: a folder holding its own (empty at first)
    gblas, Numba and CuPy kernel caches."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode
    # the repository first: gblas and (for the cupyx child) the benchmarks' loops
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    if caches is not None:
        env.update(GBLAS_CACHE_DIR=str(caches / "gblas"), NUMBA_CACHE_DIR=str(caches / "numba"),
                   CUPY_CACHE_DIR=str(caches / "cupy"))
    return env


def first_call(path: str, alg: str, device: str = "cpu", caches: Path | None = None,
               child: str = _CHILD) -> dict:
    out = subprocess.run([sys.executable, "-c", child, path, alg, device], env=_env(caches),
                         capture_output=True, text=True, check=True, timeout=600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _median(runs: list[dict]) -> dict:
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def run_gpu(args, path: str, tmp: Path) -> str:
    """The ``--gpu`` tables (markdown)."""
    rows = []
    for alg in GPU_ALGORITHMS:
        caches = tmp / f"caches-{alg}"
        first = first_call(path, alg, "gpu", caches)
        warm = _median([first_call(path, alg, "gpu", caches) for _ in range(args.repeat)])
        rows.append((alg, first, warm))
        print(f"{alg}: first-ever {first['total']:.2f} s, warm {warm['total']:.2f} s",
              file=sys.stderr)
    caches = tmp / "caches-warmup"
    t0 = time.perf_counter()
    # its progress lines (one per step, with the time so far) go to this stderr
    subprocess.run([sys.executable, "-m", "gblas.cli", "warmup", "--device", "gpu"],
                   env=_env(caches), check=True, timeout=3600)
    t_warmup = time.perf_counter() - t0
    print(f"gblas warmup --device gpu: {t_warmup:.1f} s", file=sys.stderr)
    after = {alg: _median([first_call(path, alg, "gpu", caches) for _ in range(args.repeat)])
             for alg in GPU_ALGORITHMS}
    anchors = {}
    for alg in ("pagerank", "bfs"):
        caches = tmp / f"cupyx-{alg}"
        first = first_call(path, alg, "gpu", caches, _CUPYX_CHILD)
        warm = _median([first_call(path, alg, "gpu", caches, _CUPYX_CHILD)
                        for _ in range(args.repeat)])
        anchors[alg] = (first, warm)
    lines = ["| algorithm | first-ever: import / from_scipy+to / call / total s | warm: "
             "total s (call) | after `gblas warmup --device gpu`: total s (call) | cupyx "
             "loop first-ever / warm: total s (call) |", "|---|---|---|---|---|"]
    for alg, first, warm in rows:
        a = after[alg]
        cupyx = "-"
        if alg in anchors:
            f, w = anchors[alg]
            cupyx = f"{f['total']:.2f} ({f['call']:.2f}) / {w['total']:.2f} ({w['call']:.3f})"
        lines.append(f"| {alg} | {first['import']:.2f} / {first['from_scipy']:.2f} / "
                     f"{first['call']:.2f} / **{first['total']:.2f}** | {warm['total']:.2f} "
                     f"({warm['call']:.3f}) | {a['total']:.2f} ({a['call']:.3f}) | {cupyx} |")
    lines += ["", f"`gblas warmup --device gpu` with the three caches empty: {t_warmup:.1f} s."]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=int, default=14)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--out", type=Path, default=None, help="markdown file to write")
    p.add_argument("--gpu", action="store_true",
                   help="first-ever, warm and after-warmup calls on a GPU Matrix")
    args = p.parse_args(argv)
    import scipy.sparse as sp

    import gblas as gb

    S = gb.io.kronecker(args.scale, 16, seed=1).to_scipy()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "graph.npz")
        sp.save_npz(path, sp.csr_matrix(S))
        if args.gpu:
            head = (f"Kronecker {args.scale} ({S.shape[0]:,} vertices, {S.nnz:,} entries) on "
                    f"the GPU; warm columns: median of {args.repeat} new processes; load "
                    f"average at the end {os.getloadavg()[0]:.2f}.")
            text = head + "\n\n" + run_gpu(args, path, Path(tmp)) + "\n"
            print(text)
            if args.out is not None:
                args.out.write_text(text)
            return 0
        for alg in ALGORITHMS:
            first_call(path, alg)  # fills the kernel cache (and the bytecode)
            runs = [first_call(path, alg) for _ in range(args.repeat)]
            med = _median(runs)
            rows.append((alg, med, min(r["total"] for r in runs),
                         max(r["total"] for r in runs)))
            print(f"{alg}: " + ", ".join(f"{k} {v:.3f} s" for k, v in med.items()),
                  file=sys.stderr)
    load = os.getloadavg()
    lines = [f"Kronecker {args.scale} ({S.shape[0]:,} vertices, {S.nnz:,} entries); median "
             f"of {args.repeat} new processes each, the kernel cache warm, bytecode "
             f"written; load average at the end {load[0]:.2f}.", "",
             "| algorithm | import gblas s | from_scipy s | first call s | total s "
             "(range) |", "|---|---:|---:|---:|---|"]
    for alg, med, lo, hi in rows:
        lines.append(f"| {alg} | {med['import']:.3f} | {med['from_scipy']:.3f} | "
                     f"{med['call']:.3f} | {med['total']:.3f} ({lo:.3f}-{hi:.3f}) |")
    emit_lines(lines, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
