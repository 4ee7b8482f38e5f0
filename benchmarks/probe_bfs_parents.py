"""`gblas.algorithms.bfs` with and without parents on a Matrix already used (symmetric
Kronecker graphs, edge factor 16, from a vertex of largest degree): median of 7 calls
after a warm-up.  Run it with ``PYTHONPATH`` set to each version of gblas to compare.

Usage::

    PYTHONPATH=. python benchmarks/probe_bfs_parents.py
"""
import sys, time, statistics, numpy as np
import gblas as gb
from gblas.backends.cpu.blocks import num_threads
print(gb.__file__, "threads", num_threads())
for scale in (18, 20):
    S = gb.io.kronecker(scale, 16, seed=1, symmetric=True).to_scipy()
    src = int(np.argmax(np.diff(S.indptr)))
    A = gb.Matrix.from_scipy(S)
    for parents in (False, True):
        gb.algorithms.bfs(A, src, parents=parents)
        ts = []
        for _ in range(7):
            t0 = time.perf_counter(); gb.algorithms.bfs(A, src, parents=parents); ts.append(time.perf_counter() - t0)
        print(scale, "parents" if parents else "levels ", f"{statistics.median(ts)*1e3:.2f} ms", flush=True)
