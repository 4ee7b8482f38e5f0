"""Eigenvector centrality and HITS on the GPU in one launch against the loop of planned
products, by graph.

For each graph and call: the median of warm calls (one Matrix) and of calls on fresh
Matrices, with the one-launch kernels allowed (``FUSED_PAGERANK_MAX_ENTRIES_GPU`` raised
above the graph) and not (lowered to 0: the loop), and the largest difference of the
scores.  Tolerances as the end-to-end benchmark's: HITS ``1e-10``, eigenvector
centrality NetworkX's ``n * 1e-6`` within 100 iterations.

``PYTHONPATH=. python3 benchmarks/probe_power_fused_gpu.py --scales 10 14 18 --data .data``
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

import numpy as np


def _graphs(scales, data):
    import gblas as gb
    from gblas.io import generators

    for s in scales:
        yield f"kronecker-{s}", generators.kronecker(s, 16, seed=1)
    for f in sorted(Path(data).glob("*.mtx.gz")) if data else []:
        yield f.name.split(".")[0], gb.io.read_mm(f)


def main(argv=None) -> None:
    import cupy as cp

    import gblas as gb
    from benchmarks.harness import median_fresh, median_ms
    from gblas.planner import algorithms as plans

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="*", default=[10, 14, 18])
    p.add_argument("--data", default=None, help="a folder of .mtx.gz graphs")
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    sync = cp.cuda.Device().synchronize

    calls = {
        "hits": lambda M: gb.algorithms.hits(M, tol=1e-10)[1],
        "eigenvector": lambda M: gb.algorithms.eigenvector_centrality(
            M, tol=M.shape[0] * 1e-6, max_iter=100),
    }
    print(f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}; median of "
          f"{args.repeat} calls (ms)\n")
    print("| graph | entries | call | one launch, warm | loop, warm | one launch, fresh | "
          "loop, fresh | fresh speed-up | max diff |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    real = plans.FUSED_PAGERANK_MAX_ENTRIES_GPU
    for name, A in _graphs(args.scales, args.data):
        for call, fn in calls.items():
            row, got = {}, {}
            try:
                for how, limit in (("fused", 1 << 62), ("loop", 0)):
                    plans.FUSED_PAGERANK_MAX_ENTRIES_GPU = limit
                    G = A.to("gpu")
                    warm = median_ms(functools.partial(fn, G), sync, args.repeat)
                    fresh, _ = median_fresh(fn, functools.partial(A.to, "gpu"), sync,
                                            args.repeat, 60.0)
                    row[how] = (warm, fresh * 1e3)
                    got[how] = fn(G).to("cpu").to_dense()
            except gb.algorithms.PowerIterationFailedConvergence as e:
                print(f"| {name} | {A.nvals:,} | {call} | no convergence: {e} |")
                continue
            finally:
                plans.FUSED_PAGERANK_MAX_ENTRIES_GPU = real
            diff = float(np.abs(got["fused"] - got["loop"]).max())
            print(f"| {name} | {A.nvals:,} | {call} | {row['fused'][0]:.3f} | "
                  f"{row['loop'][0]:.3f} | {row['fused'][1]:.3f} | {row['loop'][1]:.3f} | "
                  f"{row['loop'][1] / row['fused'][1]:.2f}x | {diff:.1e} |", flush=True)


if __name__ == "__main__":
    main()
