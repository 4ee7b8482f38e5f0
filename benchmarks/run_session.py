"""A first analysis session, as a new user runs it: one new Python process that imports
the library, reads a graph file and runs seven algorithms once each (PageRank, BFS,
connected components, core numbers, triangles, betweenness from 16 sources, label
propagation), timed whole, ``import`` included.

gblas runs it three ways: with an empty kernel cache (a new installation), then with the
cache that run filled, and NetworkX runs its own calls on its own graph (read by SciPy's
``mmread``).  The graph must be undirected (the default is the data folder's
facebook-combined).

Usage::

    PYTHONPATH=. python benchmarks/run_session.py --repeat 3
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_GBLAS = """
import sys
import gblas as gb
A = gb.io.read_mm(sys.argv[1])
gb.algorithms.pagerank(A)
gb.algorithms.bfs(A, 0)
gb.algorithms.connected_components(A)
gb.algorithms.core_number(A)
gb.algorithms.triangle_count(A)
gb.algorithms.betweenness_centrality(A, sources=list(range(16)))
gb.algorithms.label_propagation(A)
"""

_NETWORKX = """
import gzip, sys
import networkx as nx, scipy.io
path = sys.argv[1]
S = scipy.io.mmread(gzip.open(path) if path.endswith(".gz") else path)
G = nx.from_scipy_sparse_array(S)
nx.pagerank(G)
nx.single_source_shortest_path_length(G, 0)
list(nx.connected_components(G))
nx.core_number(G)
nx.triangles(G)
nx.betweenness_centrality(G, k=16, seed=1)
list(nx.community.label_propagation_communities(G))
"""


def session(code: str, path: str, env: dict | None = None) -> float:
    """Seconds of one new process running ``code`` on ``path``."""
    full = dict(os.environ)
    full["PYTHONPATH"] = str(REPO) + os.pathsep + full.get("PYTHONPATH", "")
    full.update(env or {})
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, path], env=full, check=True, timeout=1800,
                   capture_output=True)
    return time.perf_counter() - t0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graph", default=str(REPO.parent / "shared" / "data" /
                                          "facebook-combined.mtx.gz"))
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    if not Path(args.graph).exists():
        print(f"run_session: no graph at {args.graph} (pass --graph)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as cache:
        env = {"GBLAS_CACHE_DIR": cache}
        first = session(_GBLAS, args.graph, env)
        warm = [session(_GBLAS, args.graph, env) for _ in range(args.repeat)]
    nx_times = [session(_NETWORKX, args.graph) for _ in range(args.repeat)]
    name = Path(args.graph).name
    print(f"| {name} | gblas, empty kernel cache | gblas, cache warm (median of {args.repeat}) "
          f"| NetworkX (median of {args.repeat}) |\n|---|---:|---:|---:|\n"
          f"| whole session, s | {first:.2f} | {statistics.median(warm):.2f} | "
          f"{statistics.median(nx_times):.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
