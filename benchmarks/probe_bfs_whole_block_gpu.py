"""GPU BFS of small graphs: the whole search in one block against the kernels per level.

``gb.algorithms.bfs`` on a GPU Matrix, from a vertex of largest out-degree, with and
without parents, three ways in one process, the calls alternating: the whole search in
one block (``gb_bfs_small``, one launch), the kernels per level (the planner's
``GPU_BFS_WHOLE_BLOCK_MAX_ENTRIES`` set below every graph), and the CPU's search on the
same graph as a CPU Matrix.  Each call
on a fresh Matrix (a new GPU Matrix per call, built outside the timed region, as
``survey_gpu_vs_cpu.py`` times it), median of ``--repeat`` synchronized calls after a
warm-up.  Kronecker graphs (symmetric, edge factor 16) and the data folder's graphs.

Usage (on a GPU machine)::

    PYTHONPATH=. python benchmarks/probe_bfs_whole_block_gpu.py --scales 8 10 12 13 14 15
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="*", default=[8, 10, 12, 13, 14, 15])
    p.add_argument("--data", type=Path, default=Path(".data"))
    p.add_argument("--repeat", type=int, default=15)
    args = p.parse_args(argv)
    import cupy as cp

    import gblas as gb
    from gblas.planner import algorithms as planned

    graphs = [(f"kronecker-{s}", lambda s=s: gb.io.kronecker(s, 16, seed=0, symmetric=True))
              for s in args.scales]
    if args.data.is_dir():
        graphs += [(f.name.split(".")[0], lambda f=f: gb.io.read_mm(f))
                   for f in sorted(args.data.glob("*.mtx.gz"))]
    default = planned.GPU_BFS_WHOLE_BLOCK_MAX_ENTRIES
    sync = cp.cuda.Device().synchronize
    print(f"device: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; "
          f"GPU_BFS_WHOLE_BLOCK_MAX_ENTRIES {default}")
    print("| graph | entries | levels | parents | whole block | per level | CPU | "
          "per level / whole |")
    print("|---|---:|---:|---|---:|---:|---:|---:|")
    for name, make in graphs:
        A = make()
        S = A.to_scipy("csr")
        s = int(np.argmax(np.diff(S.indptr)))
        for parents in (False, True):
            def gpu(limit, parents=parents, S=S, s=s):
                planned.GPU_BFS_WHOLE_BLOCK_MAX_ENTRIES = limit
                G = gb.Matrix.from_scipy(S).to("gpu")
                sync()
                t0 = time.perf_counter()
                gb.algorithms.bfs(G, s, parents=parents)
                sync()
                return time.perf_counter() - t0

            def cpu(parents=parents, S=S, s=s):
                C = gb.Matrix.from_scipy(S)
                t0 = time.perf_counter()
                gb.algorithms.bfs(C, s, parents=parents)
                return time.perf_counter() - t0

            cases = [lambda: gpu(1 << 62), lambda: gpu(-1), cpu]
            for c in cases:
                c()
            ts = [[] for _ in cases]
            for _ in range(args.repeat):
                for c, t in zip(cases, ts):
                    t.append(c())
            planned.GPU_BFS_WHOLE_BLOCK_MAX_ENTRIES = default
            whole, per, host = (statistics.median(t) * 1e3 for t in ts)
            levels = int(gb.algorithms.bfs(A, s).to_dense(fill=-1).max())
            print(f"| {name} | {A.nvals:,} | {levels} | {parents} | {whole:.3f} ms | "
                  f"{per:.3f} ms | {host:.3f} ms | {per / whole:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
