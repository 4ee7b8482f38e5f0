"""``nx.pagerank(G, backend="gblas")`` against NetworkX's own pagerank, on a real graph.

Three timings, each the median of several runs after a warm-up, in the same process:

* NetworkX's default backend (the anchor): ``nx.pagerank(G)``;
* gblas with the conversion: ``G.__networkx_cache__`` is emptied before every run, so
  each one converts the NetworkX graph to a ``GblasGraph`` and builds its matrix;
* gblas with the conversion cached (NetworkX keeps it on the graph): the call only.

The answers are compared too (largest difference of a rank).  Usage::

    python -m benchmarks.run_networkx [--graph ego-Twitter] [--repeat 3]

The graph is read from ``../shared/data/NAME.mtx.gz`` (relative to the repository);
the table goes to ``benchmarks/results/networkx_cpu.md``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from benchmarks.harness import describe_machine, markdown_table, time_call, write_results

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def load(name: str):
    """The graph as a NetworkX graph (directed iff the file is not symmetric)."""
    import networkx as nx
    import scipy.io

    S = scipy.io.mmread(str(DATA / f"{name}.mtx.gz")).tocsr()
    directed = (S != S.T).nnz != 0
    return nx.from_scipy_sparse_array(S, create_using=nx.DiGraph if directed else nx.Graph)


def main(argv=None) -> None:
    import networkx as nx

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graph", default="ego-Twitter")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    nx.config.warnings_to_ignore.add("cache")
    t0 = time.perf_counter()
    G = load(args.graph)
    load_s = time.perf_counter() - t0
    print(f"{args.graph}: {G.number_of_nodes():,} nodes, {G.number_of_edges():,} edges "
          f"(read in {load_s:.1f} s)")

    ref = {}

    def networkx_default():
        ref["r"] = nx.pagerank(G, backend="networkx")

    def gblas_fresh():
        G.__networkx_cache__.clear()
        return nx.pagerank(G, backend="gblas")

    def gblas_cached():
        return nx.pagerank(G, backend="gblas")

    t_nx = time_call(networkx_default, repeat=args.repeat, warmup=1)
    print(f"networkx: {t_nx.median:.3f} s")
    t_fresh = time_call(gblas_fresh, repeat=args.repeat, warmup=1)
    print(f"gblas with conversion: {t_fresh.median:.3f} s")
    t_cached = time_call(gblas_cached, repeat=max(args.repeat, 5), warmup=1)
    print(f"gblas, conversion cached: {t_cached.median:.3f} s")
    got = gblas_cached()
    diff = max(abs(got[v] - ref["r"][v]) for v in G)

    rows = [
        ["NetworkX (default backend)", f"{t_nx.median:.3f}", "1.00"],
        ["gblas, conversion included", f"{t_fresh.median:.3f}",
         f"{t_nx.median / t_fresh.median:.1f}"],
        ["gblas, conversion cached", f"{t_cached.median:.3f}",
         f"{t_nx.median / t_cached.median:.1f}"],
    ]
    body = markdown_table(["call", "median s", "speed-up vs NetworkX"], rows)
    body += (f"\n\n{args.graph}: {G.number_of_nodes():,} nodes, {G.number_of_edges():,} "
             f"edges ({'directed' if G.is_directed() else 'undirected'}); "
             f"`nx.pagerank` defaults (alpha 0.85, tol 1e-6); medians of {args.repeat} runs "
             f"after one warm-up (cached: {max(args.repeat, 5)}). Largest difference of a "
             f"rank between the two backends: {diff:.1e}. \"Conversion included\" empties "
             "`G.__networkx_cache__` before each call, so every call converts the NetworkX "
             "graph (a pass over its adjacency dicts in Python) and builds the matrix.")
    write_results("networkx_cpu", "NetworkX backend: pagerank on CPU",
                  [("pagerank", body)], describe_machine(bandwidth=False))
    print(body)


if __name__ == "__main__":
    main()
