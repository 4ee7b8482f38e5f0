"""Where a GPU call makes the host wait: every implicit device read-back CuPy reports,
counted by the gblas lines that caused it.

CuPy declares each implicit synchronization (``ndarray.get``, ``int()`` / ``float()`` /
``bool()`` of a device array, ``cupy.asnumpy``) through its ``syncdetect`` hook before it
happens; this tool replaces the hook with a recorder for the duration of a call, so one
run lists every site (explicit ``Stream.synchronize`` calls are not reported).  A read-back
in a product's path stops the host from queuing the next kernels while the device works:
an iteration that should cost its kernels costs its kernels plus the host's time.

Subjects, on the Kronecker graph of :mod:`benchmarks.bench_gpu_mxv` (pattern, on the GPU):

* ``pagerank``: ``gb.algorithms.pagerank`` on a Matrix already used (formats built);
* ``bfs``: ``gb.algorithms.bfs`` from vertex 0;
* ``piece``: the NCCL tier's row-grid piece product (``nccl_ranks._partial`` over rows of
  ``A'``), as each rank runs it per share and iteration;
* ``reached``: the same piece's BFS product (``nccl_ranks._reached``).

For each: read-backs per call by site, and the host's time to return from the call
against the device time (synchronized) of the same call.

Usage::

    PYTHONPATH=. python3 benchmarks/find_gpu_syncs.py --scale 21 --out syncs.md
"""

from __future__ import annotations

import argparse
import collections
import os
import time
import traceback
from typing import Any

import numpy as np


class SyncRecorder:
    """Counts CuPy's declared synchronizations by the innermost ``depth`` frames under
    ``root`` (a package directory) while active.

    Examples
    --------
    >>> rec = SyncRecorder(root="/nowhere")
    >>> rec.record()  # no frame under root: counted under "(outside)"
    >>> dict(rec.sites)
    {('(outside)',): 1}
    """

    def __init__(self, root: str, depth: int = 3) -> None:
        self.root, self.depth = root, depth
        self.sites: collections.Counter = collections.Counter()

    def record(self) -> None:
        frames = [f for f in traceback.extract_stack()[:-1] if f.filename.startswith(self.root)]
        key = tuple(f"{os.path.relpath(f.filename, self.root)}:{f.lineno} {f.name}"
                    for f in frames[-self.depth:]) or ("(outside)",)
        self.sites[key] += 1

    def run(self, fn) -> Any:
        from cupy._core import syncdetect

        real = syncdetect._declare_synchronize
        syncdetect._declare_synchronize = self.record
        try:
            return fn()
        finally:
            syncdetect._declare_synchronize = real


def _times(fn, sync, repeat: int = 5) -> tuple[float, float]:
    """Median host time to return from ``fn`` and median time until the device is done."""
    host, dev = [], []
    for _ in range(repeat):
        sync()
        t0 = time.perf_counter()
        fn()
        host.append(time.perf_counter() - t0)
        sync()
        dev.append(time.perf_counter() - t0)
    return float(np.median(host)), float(np.median(dev))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, default=21)
    ap.add_argument("--parts", type=int, default=4, help="shares of the row-grid pieces")
    ap.add_argument("--what", nargs="+", default=["pagerank", "bfs", "piece", "reached"])
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)

    import cupy as cp

    import gblas as gb
    from benchmarks.bench_gpu_mxv import build_graph
    from gblas.distributed import nccl_ranks as nccl
    from gblas.formats.csr import CSR

    def sync() -> None:
        cp.cuda.Device().synchronize()

    F, _, _ = build_graph(args.scale, 16, 0)
    n = F.shape[0]
    A = gb.Matrix(CSR((n, n), F.indptr, F.indices, None, np.dtype(np.bool_), True, "gpu"))
    bounds = [n * k // args.parts for k in range(args.parts + 1)]
    pieces = nccl._cut(A.T, bounds)
    # the pieces of a rank holding every row (one rank's block at p = 1): rows of A' cut
    # at the shares, each over all n columns
    x = cp.random.random(n, dtype=cp.float64)
    q = (cp.random.random(n) < 0.01).astype(cp.uint8)
    calls = {
        "pagerank": lambda: gb.algorithms.pagerank(A),
        "bfs": lambda: gb.algorithms.bfs(A, 0),
        "piece": lambda: [nccl._partial(P, x, "plus_second", False) for P in pieces],
        "reached": lambda: [nccl._reached(P, q, False) for P in pieces],
    }
    pkg = os.path.dirname(gb.__file__)
    probe = SyncRecorder(pkg)
    probe.run(lambda: int(cp.ones(1)[0]))
    if not probe.sites:
        raise SystemExit("CuPy did not report a read-back through syncdetect: this CuPy's "
                         "hook differs, the counts would be empty")
    lines = [f"# Implicit device read-backs, Kronecker {args.scale} ({F.nnz:,} entries), "
             f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}", ""]
    for what in args.what:
        fn = calls[what]
        fn()
        fn()  # formats built, kernels compiled
        host, dev = _times(fn, sync)
        rec = SyncRecorder(pkg)
        rec.run(fn)
        sync()
        lines += [f"## {what}", "",
                  f"host returns after {host * 1e3:.2f} ms, device done after "
                  f"{dev * 1e3:.2f} ms (median of 5); {sum(rec.sites.values())} read-backs "
                  "in one call", "", "| read-backs | gblas frames (innermost last) |",
                  "|---:|---|"]
        for key, cnt in rec.sites.most_common():
            lines.append(f"| {cnt} | {' <- '.join(reversed(key))} |")
        lines.append("")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
