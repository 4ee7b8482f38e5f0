"""``gblas.csgraph.breadth_first_order`` with and without the queue search's read-ahead,
against SciPy's own call, on the data folder's graphs (from the vertex of largest
out-degree, directed and undirected).

The read-ahead is switched by ``gblas.backends.cpu.traversal.QUEUE_AHEAD_MIN_VERTICES``
(off: above every graph); the three calls alternate ``--rounds`` times, each time the
median of ``--repeat`` calls after one warm-up.  Prints a Markdown table (us).

``PYTHONPATH=. python benchmarks/probe_queue_order.py --data .data``
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np


def _median_us(fn, repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)) * 1e6


def main(argv=None) -> None:
    import scipy.io
    import scipy.sparse as sp
    import scipy.sparse.csgraph as csg

    import gblas.csgraph as gcs
    from gblas.backends.cpu import traversal

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=".data")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--repeat", type=int, default=21)
    args = p.parse_args(argv)
    files = sorted(Path(args.data).glob("*.mtx.gz"), key=lambda f: f.stat().st_size)
    graphs = []
    for f in files:
        S = sp.csr_array(scipy.io.mmread(f))
        S.sort_indices()
        graphs.append((f.name.split(".")[0], S, int(np.argmax(np.diff(S.indptr)))))
    on = traversal.QUEUE_AHEAD_MIN_VERTICES
    print("| graph | search | vertices | SciPy | gblas, no read-ahead | gblas | "
          "SciPy / no read-ahead | SciPy / gblas |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for directed in (True, False):
        for name, S, src in graphs:
            off_t, on_t, scipy_t = [], [], []

            def ours(S=S, src=src, directed=directed):
                return gcs.breadth_first_order(S, src, directed=directed)

            def theirs(S=S, src=src, directed=directed):
                return csg.breadth_first_order(S, src, directed=directed)

            try:
                for _ in range(args.rounds):
                    traversal.QUEUE_AHEAD_MIN_VERTICES = 1 << 62
                    off_t.append(_median_us(ours, args.repeat))
                    traversal.QUEUE_AHEAD_MIN_VERTICES = on
                    on_t.append(_median_us(ours, args.repeat))
                    scipy_t.append(_median_us(theirs, args.repeat))
            finally:
                traversal.QUEUE_AHEAD_MIN_VERTICES = on
            a, b, c = (float(np.median(t)) for t in (off_t, on_t, scipy_t))
            print(f"| {name} | {'directed' if directed else 'undirected'} | {S.shape[0]:,} "
                  f"| {c:.0f} | {a:.0f} | {b:.0f} | {c / a:.2f} | {c / b:.2f} |", flush=True)


if __name__ == "__main__":
    main()
