"""``gblas run ALGORITHM FILE``: run an algorithm of :mod:`gblas.algorithms` on a graph file.

The graph is read (:func:`gblas.commands.files.read_graph`), moved to the device asked
for, the algorithm runs, and a summary is printed; ``--out`` writes the per-vertex result:
``.csv`` as ``vertex,value`` lines for the vertices that have a value (a BFS or SSSP
leaves unreached vertices out: missing stays visible as missing), ``.npy`` as a dense
array (unreached: level -1, distance inf).  A scalar result (triangles) is written as one
value.  Stages are reported on stderr (a tqdm bar on a terminal, plain lines otherwise).

Examples
--------
>>> import os, tempfile
>>> from gblas.cli import main
>>> d = tempfile.mkdtemp()
>>> _ = open(os.path.join(d, "g.txt"), "w").write("0 1\\n1 2\\n")
>>> main(["run", "bfs", os.path.join(d, "g.txt"), "--source", "0", "--quiet",
...       "--out", os.path.join(d, "levels.csv")])
0
>>> print(open(os.path.join(d, "levels.csv")).read().strip())
vertex,level
0,0
1,1
2,2
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import CommandFailed, UsageError

__all__ = ["ALGORITHMS", "Algorithm", "add_parser", "run"]


@dataclass(frozen=True)
class Algorithm:
    """One algorithm the command runs: how to call it and how to show its result."""

    name: str
    help: str
    call: Callable  # (A, args) -> Vector or scalar
    value: str  # column name of the result
    kind: str  # "score", "labels", "levels", "distances" or "scalar"
    fill: float = 0  # dense output's value for vertices without one
    source: bool = False  # takes --source


def _source(A, args) -> int:
    return int(args.source)


def _pagerank(A, args):
    import gblas as gb

    return gb.algorithms.pagerank(A, damping=args.damping, tol=args.tol,
                                  max_iter=args.max_iter)


def _bfs(A, args):
    import gblas as gb

    return gb.algorithms.bfs(A, _source(A, args))


def _sssp(A, args):
    import gblas as gb

    if A.dtype == np.bool_:  # a pattern: every edge weighs 1
        A = A.dup(np.float64)
    return gb.algorithms.sssp(A, _source(A, args))


def _components(A, args):
    import gblas as gb

    return gb.algorithms.connected_components(A, args.connection)


def _triangles(A, args):
    import gblas as gb

    return gb.algorithms.triangle_count(A)


def _core(A, args):
    import gblas as gb

    return gb.algorithms.core_number(A)


def _label_propagation(A, args):
    import gblas as gb

    return gb.algorithms.label_propagation(A, max_iter=args.max_iter, seed=args.seed)


def _betweenness(A, args):
    import gblas as gb

    sources = None
    if args.samples is not None and args.samples < A.shape[0]:
        rng = np.random.default_rng(args.seed)
        sources = np.sort(rng.choice(A.shape[0], size=args.samples, replace=False))
    return gb.algorithms.betweenness_centrality(A, sources)


ALGORITHMS: dict[str, Algorithm] = {a.name: a for a in [
    Algorithm("pagerank", "PageRank of every vertex (--damping, --tol, --max-iter)",
              _pagerank, "rank", "score"),
    Algorithm("bfs", "BFS levels from --source (unreached vertices: no value)", _bfs,
              "level", "levels", fill=-1, source=True),
    Algorithm("sssp", "shortest-path distances from --source (a pattern weighs 1 an edge)",
              _sssp, "distance", "distances", fill=np.inf, source=True),
    Algorithm("connected_components", "component of every vertex, labelled by its "
              "smallest vertex (--connection weak|strong)", _components, "component",
              "labels"),
    Algorithm("triangle_count", "number of triangles of the undirected graph", _triangles,
              "triangles", "scalar"),
    Algorithm("core_number", "k-core number of every vertex", _core, "core", "score"),
    Algorithm("label_propagation", "community labels by label propagation (--max-iter, "
              "--seed)", _label_propagation, "community", "labels"),
    Algorithm("betweenness_centrality", "betweenness of every vertex, exact or from "
              "--samples random sources (--seed)", _betweenness, "betweenness", "score"),
]}


def _out_path(text: str) -> Path:
    p = Path(text)
    if p.suffix.lower() not in (".csv", ".npy"):
        raise argparse.ArgumentTypeError(f"expected a file name ending in .csv or .npy, got "
                                         f"{text!r}")
    return p


def add_parser(subparsers, common: Callable | None = None) -> argparse.ArgumentParser:
    """Add ``run`` to the ``gblas`` command's subparsers; ``common`` adds the options
    shared with the other file commands (graph reading, device, progress)."""
    from .args import ranged

    names = "\n".join(textwrap.fill(a.help, 88, initial_indent=f"  {a.name:<24}",
                                     subsequent_indent=" " * 26)
                       for a in ALGORITHMS.values())
    p = subparsers.add_parser(
        "run", help="run an algorithm on a graph file",
        description=textwrap.fill(
            "Run an algorithm of gblas.algorithms on a graph file and print a "
                    "summary; --out writes the per-vertex result."),
        epilog=f"algorithms:\n{names}\n\nexamples:\n"
               "  gblas run pagerank web.mtx.gz --out ranks.csv\n"
               "  gblas run bfs edges.txt --source 3 --out levels.npy\n"
               "  gblas run connected_components graph.npz --connection strong\n"
               "  gblas run betweenness_centrality g.csv --samples 64 --seed 1",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("algorithm", choices=list(ALGORITHMS), metavar="ALGORITHM",
                   help="one of: " + ", ".join(ALGORITHMS))
    p.add_argument("file", metavar="FILE", help="graph file: .mtx/.mtx.gz, an edge list "
                   "(.txt .csv .tsv .el .edges, optionally .gz) or .npz")
    if common is not None:
        common(p)
    p.add_argument("--out", type=_out_path, metavar="PATH",
                   help="write the result: .csv (vertex,value lines) or .npy (dense array)")
    p.add_argument("--source", type=ranged(int, 0), default=0, metavar="N",
                   help="start vertex of bfs and sssp, >= 0 (default 0)")
    p.add_argument("--damping", type=ranged(float, 0, 1), default=0.85,
                   help="pagerank damping factor, 0 to 1 (0.85)")
    p.add_argument("--tol", type=ranged(float, 0, low_open=True), default=1e-6,
                   help="pagerank tolerance on the L1 change, > 0 (1e-6)")
    p.add_argument("--max-iter", type=ranged(int, 1), default=100,
                   help="iterations at most of pagerank and label_propagation, >= 1 (100)")
    p.add_argument("--connection", choices=["weak", "strong"], default="weak",
                   help="connected_components: weak or strong (default weak)")
    p.add_argument("--samples", type=ranged(int, 1), default=None,
                   help="betweenness_centrality: number of random sources (default: all)")
    p.add_argument("--seed", type=ranged(int, 0), default=0,
                   help="random seed of label_propagation and --samples, >= 0 (0)")
    p.add_argument("--quiet", action="store_true", help="print no summary")
    p.set_defaults(func=run)
    return p


# ------------------------------------------------------------------------------ output


def _dense(v, fill) -> np.ndarray:
    from .._device import to_numpy

    idx, vals = (to_numpy(a) for a in v.to_coo())
    dt = np.result_type(vals.dtype, np.asarray(fill).dtype) if vals.size else \
        np.asarray(fill).dtype
    out = np.full(v.size, fill, dtype=dt)
    out[idx] = vals
    return out


def write_result(path: Path, algo: Algorithm, result) -> None:
    """Write ``result`` to ``path`` (.csv: present entries; .npy: dense with ``fill``)."""
    from .._device import to_numpy

    try:
        if algo.kind == "scalar":
            if path.suffix.lower() == ".npy":
                np.save(path, np.asarray(result))
            else:
                path.write_text(f"{algo.value}\n{result}\n")
            return
        if path.suffix.lower() == ".npy":
            np.save(path, _dense(result, algo.fill))
            return
        idx, vals = (to_numpy(a) for a in result.to_coo())
        fmt = "%d" if np.dtype(vals.dtype).kind in "iub" else "%.17g"
        with open(path, "w") as f:
            f.write(f"vertex,{algo.value}\n")
            np.savetxt(f, np.column_stack([idx.astype(np.float64), vals.astype(np.float64)])
                       if vals.size else np.zeros((0, 2)),
                       fmt=["%d", fmt], delimiter=",")
    except OSError as e:
        raise CommandFailed(f"cannot write {path}: {e}") from None


def summary(algo: Algorithm, result) -> list[str]:
    """Lines describing ``result`` for the terminal."""
    from .._device import to_numpy

    if algo.kind == "scalar":
        return [f"{algo.value}: {int(result):,}"]
    idx, vals = (to_numpy(a) for a in result.to_coo())
    n = result.size
    if algo.kind in ("levels", "distances"):
        lines = [f"reached {idx.size:,} of {n:,} vertices"]
        if vals.size:
            lines.append(f"largest {algo.value}: {vals.max():g}")
        return lines
    if algo.kind == "labels":
        _, counts = np.unique(vals, return_counts=True)
        top = np.sort(counts)[::-1][:5]
        return [f"{counts.size:,} {algo.value}s; largest sizes: "
                + ", ".join(f"{c:,}" for c in top)]
    if not vals.size:
        return ["no values"]
    order = np.argsort(-vals, kind="stable")[:5]
    return [f"{algo.value}: min {vals.min():.6g}, max {vals.max():.6g}, sum {vals.sum():.6g}",
            "top vertices: " + ", ".join(f"{int(idx[k])} ({vals[k]:.6g})" for k in order)]


# --------------------------------------------------------------------------------- run


def load(args, stages):
    """The graph of ``args.file`` on ``args.device`` (the read and move stages)."""
    from .._device import gpu_available
    from .files import read_graph

    with stages.stage("read " + Path(args.file).name):
        A = read_graph(args.file, undirected=args.undirected, one_based=args.one_based)
    if args.device == "gpu":
        if not gpu_available():
            raise CommandFailed("--device gpu: no GPU found (CuPy with a CUDA device); "
                                "run without --device gpu, or install the gpu extra")
        with stages.stage("to gpu"):
            A = A.to("gpu")
    return A


def run(args: argparse.Namespace) -> int:
    """Run ``args.algorithm`` on ``args.file``; 0 on success."""
    from .progress import Stages

    algo = ALGORITHMS[args.algorithm]
    plan = ["read", *(["to gpu"] if args.device == "gpu" else []), algo.name,
            *(["write"] if args.out else [])]
    with Stages(f"gblas run {algo.name}", plan, enabled=args.progress) as stages:
        A = load(args, stages)
        if algo.source and not 0 <= args.source < A.shape[0]:
            raise UsageError(f"argument --source: expected a vertex in [0, {A.shape[0]}), "
                             f"got {args.source}")
        with stages.stage(algo.name):
            result = algo.call(A, args)
        if args.out:
            with stages.stage("write"):
                write_result(args.out, algo, result)
    if not args.quiet:
        print(f"{algo.name} on {args.file}: {A.shape[0]:,} vertices, {A.nvals:,} edges "
              f"({A.dtype}, {A.device})")
        for line in summary(algo, result):
            print("  " + line)
        times = ", ".join(f"{k} {v:.3f} s" for k, v in stages.times.items())
        print(f"  time: {times}")
        if args.out:
            print(f"  wrote {args.out}")
    return 0
