"""In-place write-back of iterative algorithms: PageRank, a BFS written as a loop of
masked products, and repeated scatters into one Vector, each against a SciPy anchor
timed in the same run.

The write-back updates a Vector's arrays in place when the Vector owns them (see
``gblas/core/vector.py``: explicit ownership, copy-on-write otherwise).  This script
measures the loops that depend on it; to compare two versions of gblas, run it with each
version's sources first on ``PYTHONPATH`` (``--label`` names the run, ``--save-json``
keeps the raw figures) and ``--before`` merges an earlier run's figures into the table.

Usage::

    python -m benchmarks.run_ownership --scale 16 --repeat 5
    python -m benchmarks.run_ownership --scale 18 --save-json after.json --before before.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from benchmarks.harness import describe_machine, markdown_table, write_results


def _median(fn, repeat: int, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def measure(scale: int, repeat: int) -> dict[str, float]:
    import scipy.sparse as sp

    import gblas as gb

    A = gb.io.kronecker(scale, 16, seed=1, dtype="float64", symmetric=True)
    S = A.to_scipy()
    ST = sp.csr_array(S.T)
    n = S.shape[0]
    x = np.ones(n)
    anchor = _median(lambda: ST @ x, repeat * 4)  # one SciPy SpMV: the unit of the table

    def pagerank():
        gb.algorithms.pagerank(A)

    def bfs_loop():
        # the loop of masked products (levels written into one Vector every level)
        with gb.config(format="csr"):
            gb.algorithms.bfs(A, 0)

    rng = np.random.default_rng(0)
    batches = [np.unique(rng.integers(0, n, 256)) for _ in range(200)]

    def scatters():
        # 200 sparse updates written into one dense Vector (accumulated, no mask)
        v = gb.Vector.full(n, 0.0)
        for idx in batches:
            t = gb.Vector.from_coo(idx, 1.0, size=n)
            gb.apply(t, "identity", accum="plus", out=v)

    return {"scipy_spmv_s": anchor,
            "pagerank_s": _median(pagerank, repeat),
            "bfs_loop_s": _median(bfs_loop, repeat),
            "scatter200_s": _median(scatters, repeat)}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, nargs="+", default=[16])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--label", default="this version")
    ap.add_argument("--save-json")
    ap.add_argument("--before", help="a --save-json file of another version")
    ap.add_argument("--write", action="store_true", help="write benchmarks/results/")
    args = ap.parse_args(argv)
    runs = {args.label: {str(s): measure(s, args.repeat) for s in args.scale}}
    if args.save_json:
        Path(args.save_json).write_text(json.dumps(runs, indent=1))
    if args.before:
        runs = {**json.loads(Path(args.before).read_text()), **runs}
    rows = []
    for label, per in runs.items():
        for scale, f in per.items():
            a = f["scipy_spmv_s"]
            rows.append([label, scale, f"{a * 1e3:.2f} ms",
                         f"{f['pagerank_s'] / a:.1f}", f"{f['bfs_loop_s'] / a:.1f}",
                         f"{f['scatter200_s'] / a:.2f}"])
    table = markdown_table(["version", "Kronecker scale", "SciPy SpMV (anchor)",
                            "pagerank / anchor", "BFS loop / anchor",
                            "200 scatters / anchor"], rows)
    print(table)
    if args.write:
        write_results("ownership_cpu", "In-place write-back with explicit ownership",
                      [("Results", table)], machine=describe_machine(bandwidth=False))


if __name__ == "__main__":
    main()
