"""``gblas plot``: pictures of a graph file, with matplotlib (the ``plot`` extra:
``pip install gblas[plot]``).

Subcommands:

* ``gblas plot degree FILE`` -- the out- and in-degree distributions (vertices per
  degree, log-log);
* ``gblas plot levels FILE --source N`` -- vertices per BFS level from ``N``;
* ``gblas plot ranks FILE`` -- PageRank values against their rank (log-log).

The group is open: a module named in :data:`PLUGINS` that has ``add_parser(subparsers)``
(adding its subcommands to the ``gblas plot`` group) and ``run(args) -> int`` adds its
pictures (``gblas plot locality`` from :mod:`gblas.analysis.cli`).  Neither this module
nor ``import gblas`` imports matplotlib until a picture is drawn.

Examples
--------
>>> import os, tempfile
>>> from gblas.cli import main
>>> d = tempfile.mkdtemp()
>>> _ = open(os.path.join(d, "g.txt"), "w").write("0 1\\n1 2\\n0 2\\n")
>>> main(["plot", "degree", os.path.join(d, "g.txt"), "--out",
...       os.path.join(d, "deg.png"), "--no-progress"])  # doctest: +SKIP
0
"""

from __future__ import annotations

import argparse
import importlib
import textwrap
from collections.abc import Callable
from pathlib import Path

import numpy as np

from . import CommandFailed, UsageError

__all__ = ["PLUGINS", "add_parser", "degree_counts", "run"]

#: modules that add subcommands to ``gblas plot`` (skipped where not installed)
PLUGINS = ("gblas.analysis.cli",)


def _pyplot():
    """matplotlib's pyplot on the file-only Agg backend, or a one-line failure."""
    try:
        import matplotlib
    except ImportError:
        raise CommandFailed("gblas plot needs matplotlib: pip install 'gblas[plot]' (or "
                            "pip install matplotlib)") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def degree_counts(degrees: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(degree, number of vertices with it)`` for the degrees present (>= 1).

    Examples
    --------
    >>> d, c = degree_counts(np.array([0, 1, 1, 3]))
    >>> d.tolist(), c.tolist()
    ([1, 3], [2, 1])
    """
    d = np.asarray(degrees)
    d = d[d > 0]
    values, counts = np.unique(d, return_counts=True)
    return values, counts


def _degree(args, A, plt):
    S = A.to_scipy()
    out_deg = np.diff(S.indptr)
    in_deg = np.bincount(S.indices, minlength=S.shape[1])
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for deg, label, marker in ((out_deg, "out-degree", "o"), (in_deg, "in-degree", "s")):
        x, y = degree_counts(deg)
        if x.size:
            ax.loglog(x, y, marker, ms=3, alpha=0.7, label=label)
    ax.set_xlabel("degree")
    ax.set_ylabel("vertices")
    ax.set_title(f"{Path(args.file).name}: degree distribution ({A.shape[0]:,} vertices, "
                 f"{A.nvals:,} edges)", fontsize=9)
    ax.legend()
    return fig


def _levels(args, A, plt):
    import gblas as gb

    from .._device import to_numpy

    if not 0 <= args.source < A.shape[0]:
        raise UsageError(f"argument --source: expected a vertex in [0, {A.shape[0]}), got "
                         f"{args.source}")
    _, lv = (to_numpy(a) for a in gb.algorithms.bfs(A, args.source).to_coo())
    counts = np.bincount(lv.astype(np.int64))
    fig, ax = plt.subplots(figsize=(6, 4.2))
    ax.bar(np.arange(counts.size), counts)
    ax.set_yscale("log")
    ax.set_xlabel("BFS level")
    ax.set_ylabel("vertices")
    ax.set_title(f"{Path(args.file).name}: BFS from {args.source}, reached {lv.size:,} of "
                 f"{A.shape[0]:,}", fontsize=9)
    return fig


def _ranks(args, A, plt):
    import gblas as gb

    from .._device import to_numpy

    r = np.sort(to_numpy(gb.algorithms.pagerank(A).to_dense()))[::-1]
    fig, ax = plt.subplots(figsize=(6, 4.2))
    ax.loglog(np.arange(1, r.size + 1), r, lw=1.2)
    ax.set_xlabel("rank (1 = highest PageRank)")
    ax.set_ylabel("PageRank")
    ax.set_title(f"{Path(args.file).name}: PageRank by rank", fontsize=9)
    return fig


_DRAW = {"degree": (_degree, "degree distributions (out and in, log-log)"),
         "levels": (_levels, "vertices per BFS level from --source"),
         "ranks": (_ranks, "PageRank against rank (log-log)")}


def add_parser(subparsers, common: Callable | None = None) -> argparse.ArgumentParser:
    """Add the ``plot`` group to the ``gblas`` command's subparsers, with its own
    pictures and those of the :data:`PLUGINS` modules that are installed."""
    from .args import ranged

    p = subparsers.add_parser(
        "plot", help="draw pictures of a graph file (needs matplotlib)",
        description=textwrap.fill(
            "Draw a picture of a graph file into an image (png, pdf, svg). Needs "
                    "matplotlib: pip install 'gblas[plot]'."),
        epilog="examples:\n  gblas plot degree web.mtx.gz --out degrees.png\n"
               "  gblas plot levels edges.txt --source 0",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="picture", required=True, metavar="PICTURE",
                           parser_class=type(p))
    for name, (_, text) in _DRAW.items():
        q = sub.add_parser(name, help=text, description=f"Draw the {text} of FILE.")
        q.add_argument("file", metavar="FILE", help="graph file (as for gblas run)")
        if common is not None:
            common(q)
        q.add_argument("--out", type=Path, metavar="IMAGE",
                       help=f"the image file (default: FILE's name + '-{name}.png')")
        if name == "levels":
            q.add_argument("--source", type=ranged(int, 0), default=0, metavar="N",
                           help="the start vertex, >= 0 (default 0)")
        q.set_defaults(func=run)
    for module in PLUGINS:
        _add_plugin(sub, module)
    return p


def _add_plugin(sub, module: str) -> None:
    """Let ``module`` add its subcommands; those without a ``func`` run ``module.run``."""
    try:
        mod = importlib.import_module(module)
    except ImportError as e:
        if e.name and module.startswith(e.name):
            return  # not installed in this version
        raise
    if not hasattr(mod, "add_parser"):
        return
    before = set(sub.choices)
    mod.add_parser(sub)
    for name in set(sub.choices) - before:
        parser = sub.choices[name]
        if parser.get_default("func") is None and hasattr(mod, "run"):
            parser.set_defaults(func=mod.run)


def run(args: argparse.Namespace) -> int:
    """Draw ``args.picture`` of ``args.file`` into ``args.out``; 0 on success."""
    from .progress import Stages
    from .run import load

    draw, _ = _DRAW[args.picture]
    plt = _pyplot()
    out = args.out or Path(Path(args.file).name.split(".")[0] + f"-{args.picture}.png")
    with Stages(f"gblas plot {args.picture}", ["read", "draw"],
                enabled=args.progress) as stages:
        A = load(args, stages)
        with stages.stage("draw"):
            fig = draw(args, A, plt)
            fig.tight_layout()
            try:
                fig.savefig(out, dpi=120)
            except (OSError, ValueError) as e:
                raise CommandFailed(f"cannot write {out}: {e}") from None
            finally:
                plt.close(fig)
    print(f"wrote {out}")
    return 0
