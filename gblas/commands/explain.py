"""``gblas explain FILE OPERATION``: the planner's Plan for an operation on a graph file,
without running it (:func:`gblas.explain`).

Operations: the products an algorithm is made of, on the file's matrix ``A`` --
``mxv`` (``A' @ x`` with a dense ``x``: a PageRank step), ``vxm`` (a one-vertex frontier
pushed through ``A``: a BFS step), ``mxm`` (``A @ A`` masked by ``A``: triangle
counting's product) -- and the algorithms that plan themselves: ``bfs``, ``sssp``,
``connected_components``, ``core_number``, ``label_propagation``.

Examples
--------
>>> import os, tempfile
>>> from gblas.cli import main
>>> d = tempfile.mkdtemp()
>>> _ = open(os.path.join(d, "g.txt"), "w").write("0 1\\n1 2\\n")
>>> main(["explain", os.path.join(d, "g.txt"), "bfs", "--no-progress"])  # doctest: +ELLIPSIS
bfs: csr ... on cpu ...
0
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable

import numpy as np

from . import UsageError

__all__ = ["OPERATIONS", "add_parser", "plan_of", "run"]

#: operation -> what it plans
OPERATIONS: dict[str, str] = {
    "mxv": "A' @ x, x dense, plus_times (a PageRank step)",
    "vxm": "a one-vertex frontier pushed through A, any_pair, complemented mask (BFS step)",
    "mxm": "A @ A masked by A, plus_pair (triangle counting's product)",
    "bfs": "gblas.algorithms.bfs from --source",
    "sssp": "gblas.algorithms.sssp from --source",
    "connected_components": "gblas.algorithms.connected_components (weak)",
    "core_number": "gblas.algorithms.core_number",
    "label_propagation": "gblas.algorithms.label_propagation",
}


def plan_of(A, operation: str, source: int = 0):
    """The Plan of ``operation`` on the Matrix ``A`` (nothing runs).

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1], [1, 2], shape=(3, 3))
    >>> plan_of(A, "mxv").op
    'mxv'
    """
    import gblas as gb

    n = A.shape[0]
    if operation == "mxv":
        x = gb.Vector.from_dense(np.full(n, 1.0 / max(n, 1))).to(A.device)
        return gb.explain(gb.mxv, A.T, x, "plus_times")
    if operation == "vxm":
        f = gb.Vector.from_coo([source], None, n).to(A.device)
        return gb.explain(gb.vxm, f, A, "any_pair", mask=~f.S, replace=True)
    if operation == "mxm":
        return gb.explain(gb.mxm, A, A, "plus_pair", mask=A.S)
    algo: Callable = getattr(gb.algorithms, operation)
    if operation in ("bfs", "sssp"):
        return gb.explain(algo, A, source)
    return gb.explain(algo, A)


def add_parser(subparsers, common: Callable | None = None) -> argparse.ArgumentParser:
    """Add ``explain`` to the ``gblas`` command's subparsers."""
    from .args import ranged

    ops = "\n".join(textwrap.fill(v, 88, initial_indent=f"  {k:<22}",
                                   subsequent_indent=" " * 24) for k, v in OPERATIONS.items())
    p = subparsers.add_parser(
        "explain", help="print the planner's plan for an operation on a graph file",
        description=textwrap.fill(
            "Print the Plan the planner picks for OPERATION on the graph of FILE "
                    "(format, direction, device, kernel, conversions, estimates, why), "
                    "without running it."),
        epilog=f"operations:\n{ops}\n\nexample:\n  gblas explain web.mtx.gz mxv",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE", help="graph file (as for gblas run)")
    p.add_argument("operation", choices=list(OPERATIONS), metavar="OPERATION",
                   help="one of: " + ", ".join(OPERATIONS))
    if common is not None:
        common(p)
    p.add_argument("--source", type=ranged(int, 0), default=0, metavar="N",
                   help="the start vertex of vxm, bfs and sssp, >= 0 (default 0)")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Print the plan; 0 on success."""
    from .progress import Stages
    from .run import load

    with Stages("gblas explain", ["read"], enabled=args.progress) as stages:
        A = load(args, stages)
    if args.source >= A.shape[0] and args.operation in ("vxm", "bfs", "sssp"):
        raise UsageError(f"argument --source: expected a vertex in [0, {A.shape[0]}), got "
                         f"{args.source}")
    plan = plan_of(A, args.operation, args.source)
    print(plan)
    fields = {"graph": f"{A.shape[0]:,} vertices, {A.nvals:,} edges, {A.dtype}",
              "format": plan.format, "direction": plan.direction, "device": plan.device,
              "kernel": getattr(plan, "kernel", None) or "(a loop of operations)",
              "conversions": ", ".join(plan.conversions) or "none",
              "estimated bytes": f"{plan.est_bytes:,}" if plan.est_bytes else "-"}
    for k, v in (plan.details or {}).items():
        fields[k] = str(v)
    width = max(map(len, fields))
    for k, v in fields.items():
        print(f"  {k:<{width}}  {v}")
    return 0
