"""Where a new process's first CPU call of an algorithm goes, the kernel cache warm.

Each measurement is a new Python process that imports gblas, loads the graph (a SciPy
``.npz``) and builds the Matrix outside the timing, then times the algorithm's first
call, split into: **loads**, the kernels' signatures taken from the on-disk cache
(Numba's dispatcher ``compile``), of which **unpickle** (reading, checking and unpickling
the entry, the modules its environments name imported with it) and **link** (Numba's
``unserialize_library``: parsing the bitcode kept for linking, loading the object code);
**imports**, modules first imported during the call outside the loads; the rest is
**other** (Python, the planner and the kernels' run).  A process whose call compiled
anything is reported as such (the cache was not warm).

The first process of each tree also writes the bytecode, as an installed package has it.
Several source trees (``--tree NAME=PATH``, e.g. a ``git worktree`` of an earlier commit)
run interleaved, one process of each in turn, each with its own kernel cache (filled by
a first process, not counted); medians over ``--repeat`` processes.

Usage::

    PYTHONPATH=. python benchmarks/probe_first_call_loads.py --graphs kronecker-10 \\
        facebook-combined --data .data --tree before=../old --tree after=. --repeat 15
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_CHILD = r"""
import collections, json, sys, time
T = collections.defaultdict(float)
N = collections.Counter()
def wrap(obj, name, label):
    f = getattr(obj, name)
    def timed(*a, **k):
        t0 = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            T[label] += time.perf_counter() - t0
            N[label] += 1
    setattr(obj, name, timed)
import scipy.sparse as sp
import gblas as gb
import gblas.algorithms
from numba.core import codegen, dispatcher
from gblas.backends.cpu import jitcache
S = sp.csr_array(sp.load_npz(sys.argv[1]))
A = gb.Matrix.from_scipy(S)
f = getattr(gb.algorithms, sys.argv[2])
wrap(dispatcher.Dispatcher, "compile", "loads")
wrap(jitcache._CheckedFile, "_load_data", "unpickle")
wrap(codegen.JITCPUCodegen, "unserialize_library", "link")
before = set(sys.modules)
stats0 = jitcache.compile_stats()
T.clear(); N.clear()
t0 = time.perf_counter()
f(A)
call = time.perf_counter() - t0
new = sorted(set(sys.modules) - before)
stats = {k: v - stats0[k] for k, v in jitcache.compile_stats().items()}
print(json.dumps({"call": call, "loads": T["loads"], "n_loads": N["loads"],
                  "unpickle": T["unpickle"], "link": T["link"], "modules": new, **stats}))
"""

#: The graph of each name: Kronecker (as ``run_end_to_end.py`` builds its undirected form)
#: or a Matrix Market file of the data folder, symmetrized without self loops.
KRONECKER_EDGE_FACTOR, KRONECKER_SEED = 16, 1


def _graph(name: str, data: Path | None):
    import numpy as np
    import scipy.sparse as sp

    import gblas as gb

    if name.startswith("kronecker-"):
        S = gb.io.generators.kronecker(int(name.split("-")[1]), KRONECKER_EDGE_FACTOR,
                                       seed=KRONECKER_SEED, symmetric=True).to_scipy()
    else:
        D = sp.csr_array(gb.io.read_mm(data / f"{name}.mtx.gz").to_scipy())
        S = (D + D.T) != 0
    S = sp.csr_array(S).astype(np.float64)
    S.setdiag(0)
    S.eliminate_zeros()
    return S


def _child(tree: Path, cache: Path, graph: str, alg: str) -> dict:
    env = dict(os.environ, GBLAS_CACHE_DIR=str(cache))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an installed package has its bytecode
    env["PYTHONPATH"] = str(tree) + os.pathsep + env.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", _CHILD, graph, alg], env=env, cwd=tree,
                         capture_output=True, text=True, check=True, timeout=600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", nargs="+", default=["kronecker-10"])
    p.add_argument("--algorithms", nargs="+", default=["label_propagation", "core_number"])
    p.add_argument("--data", type=Path, default=REPO / ".data")
    p.add_argument("--tree", action="append", default=None,
                   help="NAME=PATH of a source tree (default: this one, as 'this')")
    p.add_argument("--repeat", type=int, default=9)
    args = p.parse_args(argv)
    import scipy.sparse as sp

    trees = [t.split("=", 1) for t in (args.tree or [f"this={REPO}"])]
    trees = [(name, Path(path).resolve()) for name, path in trees]
    runs: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for g in args.graphs:
            path = tmp / f"{g}.npz"
            sp.save_npz(path, sp.csr_matrix(_graph(g, args.data)), compressed=False)
            for alg in args.algorithms:
                for name, tree in trees:  # fill each tree's cache (not counted)
                    _child(tree, tmp / f"cache-{name}", str(path), alg)
                for _ in range(args.repeat):
                    for name, tree in trees:
                        r = _child(tree, tmp / f"cache-{name}", str(path), alg)
                        runs.setdefault((g, alg, name), []).append(r)
                for name, _ in trees:
                    rs = runs[(g, alg, name)]
                    med = {k: statistics.median(r[k] for r in rs)
                           for k in ("call", "loads", "unpickle", "link")}
                    print(f"{g} {alg} {name}: call {med['call'] * 1e3:.1f} ms, "
                          f"loads {med['loads'] * 1e3:.1f} ms ({rs[0]['n_loads']}), unpickle "
                          f"{med['unpickle'] * 1e3:.1f}, link {med['link'] * 1e3:.1f}",
                          file=sys.stderr, flush=True)
    load = os.getloadavg()[0]
    lines = [f"Median of {args.repeat} new processes per row (the trees interleaved), the "
             f"kernel cache warm; load average at the end {load:.2f}.", "",
             "| graph | algorithm | tree | first call | kernel loads (count) | of which "
             "unpickle | of which link | other | modules imported in the call |",
             "|---|---|---|---:|---:|---:|---:|---:|---|"]
    for (g, alg, name), rs in runs.items():
        med = {k: statistics.median(r[k] for r in rs)
               for k in ("call", "loads", "unpickle", "link")}
        other = statistics.median(r["call"] - r["loads"] for r in rs)
        missed = sum(1 for r in rs if r["misses"])
        mods = {m for r in rs for m in r["modules"] if not m.startswith("gblas")}
        note = f" ({missed} compiled)" if missed else ""
        shown = ", ".join(sorted(mods)[:2]) + (f" and {len(mods) - 2} more" if len(mods) > 2
                                               else "")
        lines.append(f"| {g} | {alg} | {name}{note} | {med['call'] * 1e3:.1f} ms | "
                     f"{med['loads'] * 1e3:.1f} ms ({rs[0]['n_loads']}) | "
                     f"{med['unpickle'] * 1e3:.1f} ms | {med['link'] * 1e3:.1f} ms | "
                     f"{other * 1e3:.1f} ms | {shown or 'none'} |")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
