"""The subcommands of the ``gblas`` command line that work on graph files.

* :mod:`gblas.commands.files` -- read a graph file (Matrix Market, edge list, SciPy or
  gblas ``.npz``) into a :class:`gblas.Matrix`;
* :mod:`gblas.commands.run` -- ``gblas run ALGORITHM FILE``;
* :mod:`gblas.commands.explain` -- ``gblas explain FILE OPERATION``;
* :mod:`gblas.commands.plot` -- ``gblas plot degree|levels|ranks FILE`` (matplotlib, the
  ``plot`` extra), a group other modules add subcommands to.

Each module has ``add_parser(subparsers)`` and ``run(args) -> int``.

Examples
--------
>>> from gblas.commands.files import read_graph
>>> callable(read_graph)
True
"""

from __future__ import annotations


class CommandFailed(Exception):
    """A command could not do its work (a file missing or malformed, no GPU): the
    ``gblas`` command prints the message on one line and exits with status 1."""


class UsageError(Exception):
    """A bad argument found once the graph is read (``--source`` past the last vertex):
    one line, exit status 2, as the argument parser's own errors."""


def add_graph_options(p) -> None:
    """The options of every command that reads a graph file: ``--undirected``,
    ``--one-based``, ``--device`` and ``--no-progress``."""
    p.add_argument("--undirected", action="store_true",
                   help="add every edge's reverse (the smaller weight where both exist)")
    p.add_argument("--one-based", action="store_true",
                   help="edge lists: vertex ids start at 1")
    p.add_argument("--device", choices=["cpu", "gpu"], default="cpu",
                   help="where the graph and the computation live (default cpu)")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress on stderr")
