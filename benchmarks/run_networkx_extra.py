"""Weighted betweenness (``k`` sampled sources) and Louvain communities through the
NetworkX backend, against NetworkX's own code, on real graphs.

For every graph, in one process, each timing the median of several rounds (the calls
interleaved round by round, after one warm-up of the gblas calls, which compiles or loads
the kernels):

* ``nx.betweenness_centrality(G, k=K, seed=1, weight="weight")``: NetworkX (the anchor),
  gblas with the conversion (``G.__networkx_cache__`` emptied before each run) and gblas
  with the conversion cached;
* ``nx.community.louvain_communities(G, weight="weight", seed=1)``: the same three.

The answers are compared: the largest difference of a betweenness value, and whether the
Louvain partitions are equal (with both modularities).  The files are patterns, so the
edges get integer weights 1-9 drawn with a fixed seed (an undirected edge one weight).
Usage::

    python -m benchmarks.run_networkx_extra [--graphs facebook-combined wiki-Vote ...]
        [--repeat 3] [--k 256]

Graphs are read from ``../shared/data/NAME.mtx.gz`` (relative to the repository), as
:mod:`benchmarks.run_networkx` reads them; the table goes to
``benchmarks/results/networkx_extra_cpu.md``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from benchmarks.harness import describe_machine, markdown_table, write_results
from benchmarks.run_networkx import DATA, load

GRAPHS = ["facebook-combined", "wiki-Vote", "p2p-Gnutella31"]


def weighted(name: str):
    """The graph with integer weights 1-9 (fixed seed) on its edges."""
    G = load(name)
    rng = np.random.default_rng(0)
    w = rng.integers(1, 10, size=G.number_of_edges()).tolist()
    for (_, _, d), x in zip(G.edges(data=True), w):
        d["weight"] = x
    return G


def _time(calls: dict, repeat: int, warm: tuple) -> dict:
    for key in warm:
        calls[key]()
    times = {k: [] for k in calls}
    for _ in range(repeat):
        for key, fn in calls.items():
            t = time.perf_counter()
            fn()
            times[key].append(time.perf_counter() - t)
    return times


def bench_graph(name: str, repeat: int, k: int):
    import networkx as nx

    G = weighted(name)
    out = {"graph": name, "n": G.number_of_nodes(), "m": G.number_of_edges(),
           "directed": G.is_directed()}
    res = {}

    def bc(backend, fresh=False):
        def run():
            if fresh:
                G.__networkx_cache__.clear()
            res[("bc", backend)] = nx.betweenness_centrality(
                G, k=k, seed=1, weight="weight", backend=backend)
        return run

    def lv(backend, fresh=False):
        def run():
            if fresh:
                G.__networkx_cache__.clear()
            res[("lv", backend)] = nx.community.louvain_communities(
                G, weight="weight", seed=1, backend=backend)
        return run

    for algo, make in (("betweenness", bc), ("louvain", lv)):
        calls = {"networkx": make("networkx"), "fresh": make("gblas", fresh=True),
                 "cached": make("gblas")}
        times = _time(calls, repeat, warm=("fresh", "cached"))
        out[algo] = {key: statistics.median(v) for key, v in times.items()}
        out[algo + "_range"] = (min(times["networkx"]), max(times["networkx"]))
        print(f"{name} {algo}: " + ", ".join(f"{key} {v:.3f} s"
                                             for key, v in out[algo].items()), flush=True)
    a, b = res[("bc", "gblas")], res[("bc", "networkx")]
    out["bc_diff"] = max(abs(a[v] - b[v]) for v in G)
    pa, pb = res[("lv", "gblas")], res[("lv", "networkx")]
    out["lv_equal"] = pa == pb
    out["lv_mod"] = (nx.community.modularity(G, pa, weight="weight"),
                     nx.community.modularity(G, pb, weight="weight"))
    out["lv_count"] = len(pa)
    return out


def main(argv=None) -> None:
    import networkx as nx

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", nargs="+", default=GRAPHS)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--k", type=int, default=256)
    args = ap.parse_args(argv)
    nx.config.warnings_to_ignore.add("cache")
    machine = describe_machine(bandwidth=False)
    results = [bench_graph(g, args.repeat, args.k) for g in args.graphs
               if (DATA / f"{g}.mtx.gz").exists()]
    if not results:
        raise SystemExit(f"none of {args.graphs} found in {DATA.name}/")
    rows = []
    for r in results:
        kind = "directed" if r["directed"] else "undirected"
        for algo, label in (("betweenness", f"betweenness k={args.k}"),
                            ("louvain", "louvain")):
            med = r[algo]
            rows.append([f"{r['graph']} ({r['n']:,} nodes, {r['m']:,} {kind} edges)",
                         label, f"{med['networkx']:.3f}", f"{med['fresh']:.3f}",
                         f"{med['networkx'] / med['fresh']:.1f}",
                         f"{med['networkx'] / med['cached']:.1f}"])
    body = markdown_table(["graph", "call", "NetworkX s", "gblas s (conversion included)",
                           "speed-up", "speed-up, conversion cached"], rows)
    load_end = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    notes = []
    for r in results:
        lo, hi = r["betweenness_range"]
        qa, qb = r["lv_mod"]
        notes.append(
            f"* {r['graph']}: betweenness largest difference from NetworkX "
            f"{r['bc_diff']:.1e} (NetworkX anchor {lo:.1f} to {hi:.1f} s); Louvain "
            f"partition {'equal to' if r['lv_equal'] else 'different from'} NetworkX's "
            f"({r['lv_count']} communities, modularity {qa:.6f} against {qb:.6f}).")
    body += (
        f"\n\n`nx.betweenness_centrality(G, k={args.k}, seed=1, weight=\"weight\")` and "
        "`nx.community.louvain_communities(G, weight=\"weight\", seed=1)`; edge weights: "
        "integers 1-9 drawn with a fixed seed (the files are patterns). Medians of "
        f"{args.repeat} rounds, the three calls of an algorithm interleaved in each round, "
        "after one warm-up of the gblas calls; speed-ups are NetworkX's median over "
        "gblas' in the same run. \"Conversion included\" empties `G.__networkx_cache__` "
        "before each call. Betweenness runs one compiled Dijkstra per sampled source, "
        "sources split between the Numba threads; Louvain is sequential (NetworkX's "
        f"visiting order). Load average at the end: {load_end}.\n\n" + "\n".join(notes))
    write_results("networkx_extra_cpu",
                  "NetworkX backend: weighted betweenness and Louvain on CPU",
                  [("weighted betweenness and louvain", body)], machine)
    print(body)


if __name__ == "__main__":
    main()
