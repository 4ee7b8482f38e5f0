"""Where a small GPU ``gb.mxv`` call's host time goes, and how steady it is.

A call on a small graph is host time (Python, the planner, kernel launches, the
write-back); ``check_gpu_estimates.py`` saw it move between about 55 and 135 us from one
block of calls to the next on one H100 host.  This probe times blocks of calls next to two
references timed in the same blocks -- a fixed piece of pure Python, and a CuPy
element-wise launch -- so that a change of the machine's pace shows in all three, and a
change of gblas's path in gblas's alone; then profiles the calls (cProfile, by own time).

Usage (from the repository root, on the GPU machine)::

    PYTHONPATH=$PWD python3 benchmarks/probe_host_time.py --scale 14 --out probe.md
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
from pathlib import Path

import numpy as np


def _block(fn, calls: int) -> float:
    """Median microseconds of ``calls`` unsynchronized calls of ``fn``."""
    ts = []
    for _ in range(calls):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return 1e6 * statistics.median(ts)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=int, default=14)
    p.add_argument("--blocks", type=int, default=20)
    p.add_argument("--calls", type=int, default=200)
    p.add_argument("--out", type=Path, default=Path("probe_host_time.md"))
    args = p.parse_args(argv)
    import cupy as cp

    import gblas as gb

    A = gb.io.kronecker(args.scale, 16, seed=0, dtype="float32", symmetric=True).to("gpu")
    n = A.shape[1]
    x = gb.Vector.from_dense(cp.ones(n, np.float32))
    xa, ya = cp.ones(n, np.float32), cp.empty(n, np.float32)
    sync = cp.cuda.Device().synchronize

    def python_work():
        s = 0
        for i in range(400):
            s += i
        return s

    for _ in range(50):
        gb.mxv(A, x, "plus_times")
    sync()
    rows = []
    for b in range(args.blocks):
        g = _block(lambda: gb.mxv(A, x, "plus_times"), args.calls)
        sync()
        py = _block(python_work, args.calls)
        c = _block(lambda: cp.multiply(xa, 2.0, out=ya), args.calls)
        sync()
        rows.append((b, g, py, c))
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(2000):
        gb.mxv(A, x, "plus_times")
    prof.disable()
    sync()
    s = io.StringIO()
    pstats.Stats(prof, stream=s).strip_dirs().sort_stats("tottime").print_stats(30)
    g_all = [r[1] for r in rows]
    py_all = [r[2] for r in rows]
    text = [f"# Host time of a small GPU mxv (Kronecker {args.scale}, {A.nvals:,} entries)", "",
            f"{args.blocks} blocks of {args.calls} calls each; medians per block, us.", "",
            "| block | gb.mxv | pure Python (400 adds) | CuPy multiply launch |",
            "|---:|---:|---:|---:|"]
    text += [f"| {b} | {g:.1f} | {py:.1f} | {c:.1f} |" for b, g, py, c in rows]
    corr = float(np.corrcoef(g_all, py_all)[0, 1]) if len(rows) > 2 else float("nan")
    text += ["", f"gb.mxv {min(g_all):.1f}-{max(g_all):.1f} us; pure Python "
             f"{min(py_all):.1f}-{max(py_all):.1f} us; correlation {corr:.2f}", "",
             "## cProfile of 2,000 calls (by own time)", "", "```", s.getvalue()[:12000],
             "```", ""]
    args.out.write_text("\n".join(text))
    print("\n".join(text[:args.blocks + 8]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
