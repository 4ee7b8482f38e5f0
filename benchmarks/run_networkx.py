"""``nx.pagerank(G, backend="gblas")`` against NetworkX's own pagerank, on a real graph.

Four timings, each the median of several runs after a warm-up, in the same process, the
runs of the four interleaved round by round (a load that comes and goes on a shared
machine then weighs on all of them alike):

* NetworkX's default backend (the anchor): ``nx.pagerank(G)``;
* gblas with the conversion: ``G.__networkx_cache__`` is emptied before every run, so
  each one converts the NetworkX graph to a ``GblasGraph`` and builds its matrix;
* gblas with the conversion cached (NetworkX keeps it on the graph): the call only;
* the conversion alone (``convert_from_nx`` with pagerank's ``weight`` attribute).

The answers are compared too (largest difference of a rank).  Usage::

    python -m benchmarks.run_networkx [--graph ego-Twitter] [--repeat 3]

The graph is read from ``../shared/data/NAME.mtx.gz`` (relative to the repository);
the table goes to ``benchmarks/results/networkx_cpu.md``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from benchmarks.harness import describe_machine, markdown_table, write_results

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

    from gblas.nx.interface import BackendInterface

    ref = {}

    def networkx_default():
        ref["r"] = nx.pagerank(G, backend="networkx")

    def gblas_fresh():
        G.__networkx_cache__.clear()
        return nx.pagerank(G, backend="gblas")

    def gblas_cached():
        return nx.pagerank(G, backend="gblas")

    def conversion():
        return BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1})

    calls = {"networkx": networkx_default, "fresh": gblas_fresh, "cached": gblas_cached,
             "conversion": conversion}
    times = {k: [] for k in calls}
    for fn in calls.values():  # warm-up: JIT compilation, the cached conversion
        fn()
    for r in range(args.repeat):
        for name, fn in calls.items():
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.3f} s" for k, v in times.items()))
    med = {k: statistics.median(v) for k, v in times.items()}
    got = gblas_cached()
    diff = max(abs(got[v] - ref["r"][v]) for v in G)

    def row(label, key):
        return [label, f"{med[key]:.3f}", f"{med['networkx'] / med[key]:.1f}"]

    rows = [row("NetworkX (default backend)", "networkx"),
            row("gblas, conversion included", "fresh"),
            row("gblas, conversion cached", "cached"),
            row("the conversion alone (convert_from_nx)", "conversion")]
    body = markdown_table(["call", "median s", "speed-up vs NetworkX"], rows)
    load_end = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    body += (f"\n\n{args.graph}: {G.number_of_nodes():,} nodes, {G.number_of_edges():,} "
             f"edges ({'directed' if G.is_directed() else 'undirected'}); "
             f"`nx.pagerank` defaults (alpha 0.85, tol 1e-6); medians of {args.repeat} "
             "rounds after one warm-up, the four calls interleaved in each round (range "
             "of the NetworkX anchor: "
             f"{min(times['networkx']):.2f} to {max(times['networkx']):.2f} s; load "
             f"average at the end: {load_end}). Largest difference of a rank between the "
             f"two backends: {diff:.1e}. \"Conversion included\" empties "
             "`G.__networkx_cache__` before each call, so every call converts the NetworkX "
             "graph (C-level passes over its adjacency dicts: the neighbour ids, then the "
             "`weight` of each undirected edge once) and builds the matrix. The speed-up "
             "of a ratio moves with the machine's load: the NetworkX anchor is one long "
             "Python loop, the gblas call a few short passes.")
    ratio = med["networkx"] / med["fresh"]
    body += (f"\n\nTarget of 10x with the conversion included: "
             f"{'met' if ratio >= 10 else 'not met'} in this run ({ratio:.1f}x).")
    write_results("networkx_cpu", "NetworkX backend: pagerank on CPU",
                  [("pagerank", body)], describe_machine(bandwidth=False))
    print(body)


if __name__ == "__main__":
    main()
