"""``nx.community.label_propagation_communities`` through the gblas backend against
NetworkX's own code, on the undirected forms of real graphs.

For every graph, in one process, the median of several rounds (the calls interleaved,
after one warm-up of the gblas call, which compiles or loads the kernels): NetworkX (the
anchor), gblas with the conversion (``G.__networkx_cache__`` emptied before each run),
gblas with the conversion cached, and the first gblas call in a new process.  The
communities are compared as lists of sets, in order.  Usage::

    python -m benchmarks.run_networkx_lpa [--graphs facebook-combined ...] [--repeat 3]

Graphs are read from ``../shared/data/NAME.mtx.gz`` (as :mod:`benchmarks.run_networkx`
reads them); the table goes to ``benchmarks/results/networkx_lpa_cpu.md``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

from benchmarks.harness import describe_machine, markdown_table, write_results
from benchmarks.run_networkx import DATA, load

GRAPHS = ["facebook-combined", "luxembourg-osm", "email-Enron", "delaunay-n16",
          "musae-github"]


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def run_graph(name: str, repeat: int) -> list:
    import networkx as nx

    G = load(name).to_undirected()
    lpa = nx.community.label_propagation_communities
    calls = {
        "networkx": lambda: list(lpa(G, backend="networkx")),
        "fresh": lambda: (G.__networkx_cache__.clear(), list(lpa(G, backend="gblas")))[1],
        "cached": lambda: list(lpa(G, backend="gblas")),
    }
    calls["cached"]()  # warm-up: kernels, and the cached conversion
    times: dict = {k: [] for k in calls}
    answers: dict = {}
    for _ in range(repeat):
        for k, fn in calls.items():
            t, answers[k] = _timed(fn)
            times[k].append(t)
    med = {k: statistics.median(v) for k, v in times.items()}
    med["cold"] = cold(name)
    same = answers["networkx"] == answers["fresh"] == answers["cached"]
    print(f"{name}: networkx {med['networkx']:.3f} s, gblas fresh {med['fresh']:.4f} s, "
          f"cached {med['cached']:.4f} s, new process {med['cold']:.4f} s, "
          f"same communities {same}", flush=True)
    return [name, G.number_of_nodes(), G.number_of_edges(), len(answers["networkx"]),
            f"{med['networkx']:.3f}", f"{med['fresh']:.4f}", f"{med['cached']:.4f}",
            f"{med['cold']:.4f}", f"{med['networkx'] / med['fresh']:.1f}",
            f"{med['networkx'] / med['cached']:.1f}", f"{med['networkx'] / med['cold']:.1f}",
            "yes" if same else "**no**"]


def cold(name: str) -> float:
    """Seconds of the first gblas call in a new process (graph loaded first, kernel cache
    warm from the in-process calls), conversion included."""
    code = (
        "import json, sys, time, networkx as nx\n"
        "from benchmarks.run_networkx import load\n"
        f"G = load({name!r}).to_undirected()\n"
        "t = time.perf_counter()\n"
        "list(nx.community.label_propagation_communities(G, backend='gblas'))\n"
        "print(json.dumps(time.perf_counter() - t))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", nargs="+", default=GRAPHS)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    if not DATA.is_dir():
        print(f"data folder {DATA.name!r} not found: nothing to run")
        return
    rows = [run_graph(g, args.repeat) for g in args.graphs]
    table = markdown_table(
        ["graph", "nodes", "edges", "communities", "NetworkX s", "gblas fresh s",
         "gblas cached s", "gblas new process s", "NetworkX / fresh", "NetworkX / cached",
         "NetworkX / new process", "same communities"],
        rows)
    body = (table + "\n\nUndirected forms of the files; medians of "
            f"{args.repeat} rounds after one warm-up; \"fresh\" converts the NetworkX "
            "graph in every call (its cache emptied), \"cached\" reuses the conversion, "
            "\"new process\" is the first call in a new Python process (the graph loaded "
            "before the timing; the kernel cache on disk warm), conversion included. "
            "The communities are compared as lists of sets in NetworkX's order.\n")
    write_results("networkx_lpa_cpu", "NetworkX backend: label propagation communities",
                  [("label_propagation_communities", body)], describe_machine())


if __name__ == "__main__":
    main()
