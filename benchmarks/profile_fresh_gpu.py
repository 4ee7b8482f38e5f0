"""Where a first call on a fresh GPU Matrix spends its time (PageRank, or the search
``--algorithm`` names).

Prints, per graph: the transpose build, the first call on each of several fresh
Matrices against warm calls on one of them, and a host profile of one fresh call (by
cumulative and by own time), so the fixed cost of a fresh Matrix can be read off.
``sssp`` runs on weights uniform in (0, 1] (seeded), from the vertex of largest
out-degree, as ``run_end_to_end.py`` does.

``PYTHONPATH=. python3 benchmarks/profile_fresh_gpu.py --scales 14 22 --graphs G.mtx.gz``
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time

import numpy as np


def _graphs(scales, paths):
    """(name, host Matrix) for each Kronecker scale and Matrix Market file."""
    import scipy.io
    import scipy.sparse as sp

    import gblas as gb
    from gblas.io import generators

    for scale in scales:
        yield f"kronecker-{scale}", generators.kronecker(scale, 16, seed=1)
    for path in paths:
        S = sp.csr_array(scipy.io.mmread(path))
        yield os.path.basename(path).split(".")[0], gb.Matrix.from_scipy(S)


def _table(prof: cProfile.Profile, top: int) -> str:
    """The ``top`` functions by cumulative and by own time, in microseconds (pstats
    prints milliseconds to three places, too coarse for a call of a few)."""
    rows = [(ct, tt, nc, f"{os.path.basename(f)}:{line}({fn})")
            for (f, line, fn), (_cc, nc, tt, ct, _callers) in
            pstats.Stats(prof).stats.items()]
    out = []
    for title, key in (("cumulative", 0), ("own", 1)):
        out.append(f"{'calls':>6} {'own us':>9} {'cum us':>9}  by {title} time")
        for ct, tt, nc, name in sorted(rows, key=lambda r: -r[key])[:top]:
            out.append(f"{nc:>6} {tt * 1e6:>9.1f} {ct * 1e6:>9.1f}  {name}")
    return "\n".join(out)


def main(argv=None) -> None:
    import cupy as cp

    import gblas as gb
    from gblas.io import generators

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="*", default=[20, 22])
    p.add_argument("--graphs", nargs="*", default=[])
    p.add_argument("--fresh", type=int, default=5, help="fresh Matrices timed per graph")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--algorithm", choices=["pagerank", "bfs", "sssp"], default="pagerank")
    args = p.parse_args(argv)
    sync = cp.cuda.Device().synchronize
    warm = generators.kronecker(12, 16, seed=1).to("gpu")
    gb.algorithms.pagerank(warm)  # kernels compiled
    for name, A in _graphs(args.scales, args.graphs):
        source = int(np.argmax(np.diff(A.csr().indptr)))
        if args.algorithm == "sssp":
            S = A.to_scipy().astype(np.float64)
            S.data = 1.0 - np.random.default_rng(0).random(S.nnz)  # in (0, 1]
            A = gb.Matrix.from_scipy(S)

        def call(M, _s=source):
            if args.algorithm == "pagerank":
                return gb.algorithms.pagerank(M)
            return getattr(gb.algorithms, args.algorithm)(M, _s)

        call(A.to("gpu"))  # this algorithm's kernels compiled
        G = A.to("gpu")
        sync()
        t0 = time.perf_counter()
        G.csr(transposed=True)
        sync()
        t_tr = time.perf_counter() - t0
        firsts = []
        for _ in range(args.fresh):
            G = A.to("gpu")
            sync()
            t0 = time.perf_counter()
            call(G)
            sync()
            firsts.append(time.perf_counter() - t0)
        ts = []
        for _ in range(5):
            t0 = time.perf_counter()
            call(G)
            sync()
            ts.append(time.perf_counter() - t0)
        G = A.to("gpu")
        sync()
        prof = cProfile.Profile()
        prof.enable()
        call(G)
        sync()
        prof.disable()
        built = [k[0] + (".T" if k[1] else "") for k in G._cache if k[0] != "stats"]
        host = []
        for _ in range(5):
            t0 = time.perf_counter()
            call(A)
            host.append(time.perf_counter() - t0)
        print(f"## {name}: transpose alone {t_tr * 1e3:.2f} ms; first {args.algorithm} on "
              f"{args.fresh} fresh Matrices {np.median(firsts) * 1e3:.2f} ms "
              f"({', '.join(f'{t * 1e3:.2f}' for t in firsts)}); warm "
              f"{np.median(ts) * 1e3:.2f} ms; on the host's Matrix {np.median(host) * 1e3:.2f} ms; "
              f"built {built}")
        print(_table(prof, args.top))


if __name__ == "__main__":
    main()
