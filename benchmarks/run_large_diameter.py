"""Large-diameter graphs on the CPU: gblas against SciPy / NetworkX in the same process.

Cases on each graph (undirected, uniform random weights in (0, 1] for the shortest paths):
``dijkstra`` from 1 and 3 sources (anchor: ``scipy.sparse.csgraph.dijkstra``), ``bfs``
levels from vertex 0 (anchor: ``scipy.sparse.csgraph.breadth_first_order``),
``betweenness`` from 16 sampled sources (anchor: ``networkx.betweenness_centrality`` with
``k=16``, the same sources), and ``ewise_add`` of the graph and a random matrix of the
same size (anchor: SciPy's ``A + B``).  Each figure is the median of ``--repeat`` runs
after one warm-up run; the ratio is gblas time over anchor time.

Usage::

    python benchmarks/run_large_diameter.py [--data DIR] [--repeat 5] [--json OUT]
        [--graphs delaunay-n16,luxembourg-osm,facebook-combined] [--skip CASE,...]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as scg

import gblas as gb
from gblas import csgraph

GRAPHS = ("delaunay-n16", "luxembourg-osm", "facebook-combined")


def _median(fn, repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _load(data: Path, name: str):
    S = sp.csr_array(gb.io.read_mm(data / f"{name}.mtx.gz").to_scipy(), dtype=np.float64)
    S = sp.csr_array(S.maximum(S.T))
    S.setdiag(0)
    S.eliminate_zeros()
    W = S.copy()
    rng = np.random.default_rng(0)
    W.data = 1.0 - rng.random(W.nnz)
    W = sp.csr_array(W.maximum(W.T))
    return S, W


def _cases(S, W) -> dict:
    """``{case: (gblas call, anchor call, anchor name)}`` for one graph."""
    import networkx as nx

    n = S.shape[0]
    A = gb.Matrix.from_scipy(S)
    cases = {}
    for k in (1, 3):
        src = np.array([0, n // 3, 2 * n // 3][:k])
        cases[f"dijkstra {k} src"] = (
            lambda src=src: csgraph.dijkstra(W, indices=src, return_predecessors=True),
            lambda src=src: scg.dijkstra(W, indices=src, return_predecessors=True), "scipy")
    cases["bfs"] = (lambda: gb.algorithms.bfs(A, 0),
                    lambda: scg.breadth_first_order(S, 0, return_predecessors=False), "scipy")
    G = nx.from_scipy_sparse_array(S)
    srcs = random.Random(1).sample(list(G.nodes()), 16)
    cases["betweenness 16 src"] = (
        lambda: gb.algorithms.betweenness_centrality(A, sources=srcs),
        lambda: nx.betweenness_centrality(G, k=16, seed=1), "networkx")
    rng = np.random.default_rng(1)
    rc = rng.integers(0, n, (2, S.nnz))
    R = sp.csr_array((rng.random(S.nnz), (rc[0], rc[1])), shape=(n, n))
    R.sum_duplicates()
    B = gb.Matrix.from_scipy(R)
    cases["ewise_add"] = (lambda: gb.ewise_add(A, B, "plus"), lambda: S + R, "scipy")
    return cases


def run(data: Path, graphs, repeat: int, skip: set[str]) -> list[dict]:
    rows = []
    for name in graphs:
        S, W = _load(data, name)
        for case, (g, anchor, aname) in _cases(S, W).items():
            if case in skip or f"{name}:{case}" in skip:
                continue
            tg = _median(g, repeat)
            ta = _median(anchor, repeat)
            rows.append({"graph": name, "case": case, "gblas_s": tg, "anchor": aname,
                         "anchor_s": ta, "ratio": tg / ta})
            print(f"{name:18s} {case:20s} gblas {tg:9.4f} s  {aname} {ta:9.4f} s  "
                  f"ratio {tg / ta:8.2f}", flush=True)
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=Path("data"))
    ap.add_argument("--graphs", default=",".join(GRAPHS))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--skip", default="", help="cases to skip, e.g. 'luxembourg-osm:bfs'")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    rows = run(args.data, args.graphs.split(","), args.repeat,
               {s for s in args.skip.split(",") if s})
    if args.json:
        args.json.write_text(json.dumps({"machine": platform.processor() or platform.machine(),
                                         "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
