"""Where a GPU call's time goes, line by line: a tracer that synchronizes the device.

CuPy queues kernels and returns, so a host profile charges the device's time to whatever
line waits for it next.  This tracer synchronizes the device at every line of the traced
functions, so each line's time is its own (inclusive of the calls it makes; the
synchronizations add a few microseconds per line).  Two subjects, on a Kronecker graph
built on the device as in :mod:`benchmarks.bench_gpu_mxv`:

* ``build``: the light panels of ``A'`` (what ``gpu_heavy_light`` builds for PageRank);
* ``first``: ``gb.algorithms.pagerank`` on a fresh Matrix (kernels compiled before, on
  another Matrix), every line of the package traced.

Usage::

    PYTHONPATH=. python3 benchmarks/profile_gpu_lines.py --scale 22 --what build first
    PYTHONPATH=. python3 benchmarks/profile_gpu_lines.py --graph G.mtx.gz --what first
"""

from __future__ import annotations

import argparse
import linecache
import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np


class SyncLineProfiler:
    """Inclusive wall time per source line of the code objects ``keep`` accepts, with
    the device synchronized at every traced line.

    Examples
    --------
    >>> prof = SyncLineProfiler(lambda code: code.co_name == "f", sync=lambda: None)
    >>> def f():
    ...     return sum(range(10))
    >>> prof.run(f)
    45
    >>> sorted(hits for (_, _, _), (_, hits) in prof.lines.items())
    [1]
    """

    def __init__(self, keep: Callable[[Any], bool], sync: Callable[[], None]) -> None:
        self.keep = keep
        self.sync = sync
        self.lines: dict = defaultdict(lambda: [0.0, 0])
        self._last: dict = {}

    def _local(self, frame, event, arg):
        self.sync()
        now = time.perf_counter()
        fid = id(frame)
        prev = self._last.get(fid)
        if prev is not None:
            rec = self.lines[(frame.f_code.co_filename, frame.f_code.co_name, prev[0])]
            rec[0] += now - prev[1]
            rec[1] += 1
        if event == "return":
            self._last.pop(fid, None)
        else:
            self._last[fid] = (frame.f_lineno, time.perf_counter())
        return self._local

    def _global(self, frame, event, arg):
        return self._local if event == "call" and self.keep(frame.f_code) else None

    def run(self, fn: Callable[[], Any]) -> Any:
        sys.settrace(self._global)
        try:
            return fn()
        finally:
            sys.settrace(None)

    def table(self, min_ms: float = 0.5) -> str:
        rows = sorted(self.lines.items(), key=lambda kv: -kv[1][0])
        out = ["| ms | hits | where | line |", "|---:|---:|---|---|"]
        for (path, name, line), (secs, hits) in rows:
            if secs * 1e3 < min_ms:
                break
            src = linecache.getline(path, line).strip().replace("|", "\\|")[:90]
            where = f"{os.path.relpath(path)}:{line} ({name})"
            out.append(f"| {secs * 1e3:.2f} | {hits} | {where} | `{src}` |")
        return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--what", nargs="+", default=["build", "first"])
    ap.add_argument("--min-ms", type=float, default=0.3)
    ap.add_argument("--out", default=None)
    ap.add_argument("--graph", default=None,
                    help="a Matrix Market file: profile `first` on Matrix.from_scipy(S)"
                         ".to('gpu') of it instead of a Kronecker graph")
    args = ap.parse_args()

    import cupy as cp

    import gblas as gb
    from benchmarks.bench_gpu_mxv import build_graph
    from gblas.formats.csr import CSR
    from gblas.formats.light_panels import LightPanels
    from gblas.planner import devicetime, hosttime

    def sync() -> None:
        cp.cuda.Device().synchronize()

    if args.graph:
        import scipy.io
        import scipy.sparse as sp

        S = sp.csr_array(scipy.io.mmread(args.graph))
        what = f"{os.path.basename(args.graph)} ({S.nnz:,} entries)"

        def fresh():
            return gb.Matrix.from_scipy(S).to("gpu")
    else:
        F, _, _ = build_graph(args.scale, 16, 0)
        n = F.shape[0]
        what = f"Kronecker {args.scale} ({F.nnz:,} entries)"

        def fresh():
            return gb.Matrix(CSR((n, n), F.indptr, F.indices, None, np.dtype(np.bool_), True,
                                 "gpu"))
    report = [f"# Line profile, {what}, "
              f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}"]
    pkg = os.path.dirname(gb.__file__)
    if "build" in args.what:
        pattern = fresh().get_format("csr")
        LightPanels.from_csr(pattern)  # warm-up: kernels compiled, memory pool grown
        sync()
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            LightPanels.from_csr(pattern)
            sync()
            times.append((time.perf_counter() - t0) * 1e3)
        prof = SyncLineProfiler(lambda c: c.co_filename.startswith(pkg), sync)
        prof.run(lambda: LightPanels.from_csr(pattern))
        report += [f"\n## Light panels build: {np.median(times):.1f} ms untraced "
                   f"(median of 3)\n", prof.table(args.min_ms)]
    if "first" in args.what:
        gb.algorithms.pagerank(fresh())  # kernels compiled
        sync()
        times = []
        for _ in range(2):
            A = fresh()
            sync()
            t0 = time.perf_counter()
            gb.algorithms.pagerank(A)
            sync()
            times.append((time.perf_counter() - t0) * 1e3)
        warm = []
        for _ in range(3):
            t0 = time.perf_counter()
            gb.algorithms.pagerank(A)
            sync()
            warm.append((time.perf_counter() - t0) * 1e3)
        A = fresh()
        prof = SyncLineProfiler(lambda c: c.co_filename.startswith(pkg), sync)
        # the traced call's host and device times are not the calls' own: dropped, not
        # saved for later processes (inside, the planner reads what earlier processes
        # saved, as a new process's first call does)
        with hosttime.set_aside(prior=True), devicetime.set_aside(prior=True):
            prof.run(lambda: gb.algorithms.pagerank(A))
        report += [f"\n## First pagerank on a fresh Matrix: {np.median(times):.1f} ms "
                   f"untraced ({', '.join(f'{t:.1f}' for t in times)}); the same Matrix "
                   f"again {np.median(warm):.1f} ms\n",
                   prof.table(args.min_ms)]
    text = "\n".join(report)
    print(text)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        name = os.path.basename(args.graph).split(".")[0] if args.graph else args.scale
        with open(os.path.join(args.out, f"profile_{name}.md"), "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
