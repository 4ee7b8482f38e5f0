"""Garaph's replicated shards on the GPU: where do they win?

In one process, per graph and semiring, ``gb.mxv(A, x)`` timed with each GPU pull format
pinned (``csr``, ``gpu_shards``, ``gpu_segmented``, ``gpu_heavy_light``), with the
planner's own choice, and cuSPARSE (``cupyx.scipy.sparse.csr_matrix @ x``, the anchor,
``plus_times`` only); every figure is a ratio against cuSPARSE measured in the same run
(for ``min_plus``, against gblas CSR).  Then Garaph's dual mode: BFS and SSSP with the
direction pinned to pull, pinned to push (Garaph's notify-pull touches only the active
vertices' out-edges, as a push does), and the planner's per-step switch.

Graphs: Graph500 Kronecker (``--scales``, symmetric: high-degree, conflict-heavy
destinations), and the real graphs of ``--data`` (gzipped Matrix Market) when the folder
exists.  Times: median of ``--repeat`` calls after two warm-up calls, the device
synchronized around each call.

Usage (from the repository root, on the GPU machine)::

    PYTHONPATH=$PWD python3 benchmarks/bench_gpu_shards.py --scales 20 22 24 \\
        --data ../shared/data benchmarks/results/shards_gpu.md
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

FORMATS = ("csr", "gpu_shards", "gpu_segmented", "gpu_heavy_light")
SEMIRINGS = ("plus_times", "min_plus")


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _sync() -> None:
    import cupy as cp

    cp.cuda.Device().synchronize()


def time_ms(fn, repeat: int) -> float:
    for _ in range(2):
        fn()
    _sync()
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        _sync()
        out.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(out)


def graphs(scales, data: Path | None):
    import gblas as gb

    for s in scales:
        yield f"kron{s}", lambda s=s: gb.io.kronecker(s, 16, seed=0, dtype="float32",
                                                       symmetric=True)
    if data is not None and data.is_dir():
        for path in sorted(data.glob("*.mtx.gz")):
            def build(path=path):
                A = gb.io.read_mm(path)
                r, c, _ = A.to_coo()
                return gb.Matrix.from_coo(c, r, np.float32(1), shape=A.shape[::-1],
                                          dup_op="any")
            yield path.name.replace(".mtx.gz", ""), build
    elif data is not None:
        _log(f"{data} not found: real graphs skipped")


def mxv_rows(name: str, A, repeat: int) -> list[list]:
    import cupy as cp
    import cupyx.scipy.sparse as csp

    import gblas as gb

    G = A.to("gpu")
    n = G.shape[1]
    x = gb.Vector.from_dense(np.ones(n, np.float32)).to("gpu")
    S = A.to_scipy().astype(np.float32)
    C = csp.csr_matrix(S)
    xc = cp.ones(n, dtype=cp.float32)
    cus = time_ms(lambda: C @ xc, repeat)
    deg = np.diff(S.indptr)
    rows = []
    for sr in SEMIRINGS:
        times = {}
        for f in FORMATS:
            try:
                with gb.config(format=f):
                    times[f] = time_ms(lambda sr=sr: gb.mxv(G, x, sr), repeat)
            except Exception as e:  # a format without a kernel for this semiring
                _log(f"{name} {sr} {f}: {type(e).__name__}: {e}")
                times[f] = float("nan")
        chosen = gb.explain(gb.mxv, G, x, sr).format
        times["planner"] = time_ms(lambda sr=sr: gb.mxv(G, x, sr), repeat)
        anchor = cus if sr == "plus_times" else times["csr"]
        best = min((f for f in FORMATS if not np.isnan(times[f])), key=lambda f: times[f])
        rows.append([name, G.shape[0], A.nvals, int(deg.max()), sr,
                     f"{anchor:.3f}"] + [f"{anchor / times[f]:.2f}" for f in FORMATS]
                    + [f"{chosen} {anchor / times['planner']:.2f}", best,
                       "yes" if best == "gpu_shards" else "no"])
        _log(f"{name} {sr}: " + ", ".join(f"{k} {v:.3f} ms" for k, v in times.items()))
    return rows


def traversal_rows(name: str, A, repeat: int) -> list[list]:
    import gblas as gb

    G = A.to("gpu")
    out = []
    W = G
    for algo in ("bfs", "sssp"):
        fn = getattr(gb.algorithms, algo)
        t = {}
        for d in ("pull", "push", None):
            try:
                if d is None:
                    t["switch"] = time_ms(lambda fn=fn: fn(W, 0), max(3, repeat // 3))
                else:
                    with gb.config(direction=d):
                        t[d] = time_ms(lambda fn=fn: fn(W, 0), max(3, repeat // 3))
            except Exception as e:
                _log(f"{name} {algo} {d}: {type(e).__name__}: {e}")
                t[d or "switch"] = float("nan")
        base = t["switch"]
        out.append([name, algo, f"{base:.2f}", f"{t['pull'] / base:.2f}",
                    f"{t['push'] / base:.2f}"])
    return out


def table(head, rows) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", help="markdown file to write")
    p.add_argument("--scales", type=int, nargs="*", default=[20, 22, 24])
    p.add_argument("--data", type=Path, default=None, help="folder of .mtx.gz graphs")
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--no-traversal", dest="traversal", action="store_false")
    args = p.parse_args(argv)
    import cupy as cp

    dev = cp.cuda.runtime.getDeviceProperties(0)
    machine = (f"GPU {dev['name'].decode()}, {dev['totalGlobalMem'] / 2**30:.0f} GiB, L2 "
               f"{dev['l2CacheSize'] / 2**20:.0f} MiB; CuPy {cp.__version__}; Python "
               f"{platform.python_version()}")
    mrows, trows = [], []
    for name, build in graphs(args.scales, args.data):
        A = build()
        _log(f"{name}: {A.shape[0]:,} vertices, {A.nvals:,} entries")
        mrows += mxv_rows(name, A, args.repeat)
        if args.traversal:
            trows += traversal_rows(name, A, args.repeat)
        del A
        cp.get_default_memory_pool().free_all_blocks()
    head = ["graph", "vertices", "entries", "max degree", "semiring", "anchor ms"]
    head += [f"{f} (x anchor)" for f in FORMATS] + ["planner (x anchor)", "fastest",
                                                     "shards win"]
    wins = sum(r[-1] == "yes" for r in mrows)
    text = [f"# Garaph's replicated shards on the GPU\n\n{machine}\n",
            "Speed-ups over the anchor (cuSPARSE for plus_times, gblas CSR for min_plus) "
            "measured in the same run; > 1 is faster.\n", table(head, mrows),
            f"\ngpu_shards fastest in {wins} of {len(mrows)} (graph, semiring) cases.\n"]
    if trows:
        text += ["## Dual mode: BFS and SSSP, pinned directions against the planner's "
                 "switch\n", "Times over the switch's (> 1: slower than the switch).\n",
                 table(["graph", "algorithm", "switch ms", "pull only", "push only "
                        "(notify-pull)"], trows)]
    Path(args.out).write_text("\n".join(text) + "\n")
    print("\n".join(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
