"""Where a warm GPU PageRank spends its host time at small scales (Kronecker graphs).

Prints, per scale: the warm call, a cProfile of it sorted by own time, and the host time
of one ``gb.mxv`` pull product (queued, not synchronized) against the GPU time it queues.

``PYTHONPATH=. python3 benchmarks/profile_pagerank_host.py --scales 16 20``
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time


def main(argv=None) -> None:
    import cupy as cp

    import gblas as gb
    from gblas.io import generators

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="+", default=[16, 20])
    p.add_argument("--top", type=int, default=35)
    args = p.parse_args(argv)
    sync = cp.cuda.Device().synchronize
    for scale in args.scales:
        G = generators.kronecker(scale, 16, seed=0).to("gpu")
        for _ in range(3):
            gb.algorithms.pagerank(G)
        sync()
        ts = []
        for _ in range(7):
            t = time.perf_counter()
            gb.algorithms.pagerank(G)
            sync()
            ts.append(time.perf_counter() - t)
        ts.sort()
        print(f"scale {scale}: warm pagerank median {ts[3] * 1e3:.2f} ms")
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(5):
            gb.algorithms.pagerank(G)
        sync()
        pr.disable()
        s = io.StringIO()
        pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(args.top)
        print(s.getvalue())
        x = gb.Vector.from_dense(cp.ones(G.shape[0]))
        AT = G.T
        for _ in range(3):
            gb.mxv(AT, x, "plus_second")
        sync()
        k = 50
        t = time.perf_counter()
        for _ in range(k):
            gb.mxv(AT, x, "plus_second")
        host = (time.perf_counter() - t) / k
        sync()
        total = (time.perf_counter() - t) / k
        print(f"scale {scale}: gb.mxv pull host {host * 1e6:.0f} us per call, "
              f"with the GPU {total * 1e6:.0f} us per call")
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(k):
            gb.mxv(AT, x, "plus_second")
        sync()
        pr.disable()
        s = io.StringIO()
        pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(25)
        print(s.getvalue())


if __name__ == "__main__":
    main()
