"""Graph files for the command line: Matrix Market, edge lists, SciPy and gblas ``.npz``.

=====================================  ===============================================
``.mtx``, ``.mtx.gz``                   Matrix Market coordinate (:func:`gblas.io.read_mm`)
``.txt .csv .tsv .el .edges`` (+.gz)    edge list: ``src dst [weight]`` a line, split by
                                        whitespace or commas; ``#`` and ``%`` comments;
                                        one header line allowed; 0-based ids unless
                                        ``one_based``; extra columns ignored
``.npz``                                SciPy ``scipy.sparse.save_npz``, or a Matrix
                                        saved by :func:`gblas.io.save`
=====================================  ===============================================

Examples
--------
>>> import os, tempfile
>>> from gblas.commands.files import read_graph
>>> path = os.path.join(tempfile.mkdtemp(), "g.csv")
>>> _ = open(path, "w").write("src,dst,w\\n0,1,2.5\\n1,2,1.0\\n")
>>> A = read_graph(path)
>>> A.shape, A.nvals, str(A.dtype)
((3, 3), 2, 'float64')
"""

from __future__ import annotations

import gzip
import io
import os
from pathlib import Path

import numpy as np

from . import CommandFailed

#: file name endings read as edge lists (also with ``.gz``)
EDGE_LIST = (".txt", ".csv", ".tsv", ".el", ".edges", ".edgelist")

__all__ = ["EDGE_LIST", "file_kind", "read_edge_list", "read_graph"]


def file_kind(path: str | os.PathLike) -> str:
    """``"mtx"``, ``"edges"`` or ``"npz"`` from the file name.

    Examples
    --------
    >>> file_kind("web.mtx.gz"), file_kind("e.tsv"), file_kind("g.npz")
    ('mtx', 'edges', 'npz')
    """
    name = str(path).lower()
    if name.endswith(".gz"):
        name = name[:-3]
    if name.endswith(".mtx") or name.endswith(".mm"):
        return "mtx"
    if name.endswith(".npz"):
        return "npz"
    if name.endswith(EDGE_LIST):
        return "edges"
    raise CommandFailed(
        f"{path}: unknown graph file type; expected .mtx/.mtx.gz (Matrix Market), "
        f"{'/'.join(EDGE_LIST)} (edge list, optionally .gz) or .npz (SciPy sparse or "
        "gblas.io.save)")


def _text(path: Path) -> str:
    opener = gzip.open if str(path).lower().endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8", errors="strict") as f:
            return f.read()
    except UnicodeDecodeError as e:
        raise CommandFailed(f"{path}: not a text edge list ({e.reason} at byte "
                            f"{e.start})") from None
    except (OSError, EOFError) as e:
        raise CommandFailed(f"{path}: cannot read it ({e})") from None


def read_edge_list(path: str | os.PathLike, *, one_based: bool = False):
    """``(rows, cols, weights or None, n)`` of an edge-list file.

    Parameters
    ----------
    path : str or path-like
        The file (see the module notes for the format).
    one_based : bool, default False
        Vertex ids start at 1 (they are shifted to start at 0).

    Returns
    -------
    tuple
        int64 sources and destinations, float64 weights (None without a third column),
        and the number of vertices (the largest id + 1).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "g.txt")
    >>> _ = open(path, "w").write("# a comment\\n0 1\\n1\\t3\\n")
    >>> r, c, w, n = read_edge_list(path)
    >>> r.tolist(), c.tolist(), w, n
    ([0, 1], [1, 3], None, 4)
    """
    path = Path(path)
    text = _text(path)
    lines = text.splitlines()
    first = next((i for i, ln in enumerate(lines)
                  if ln.strip() and not ln.lstrip().startswith(("#", "%"))), None)
    if first is None:
        return (np.zeros(0, np.int64), np.zeros(0, np.int64), None, 0)
    line = lines[first]
    delim = "," if "," in line else None
    toks = [t for t in (line.split(",") if delim else line.split()) if t.strip()]
    header = 0
    try:
        [float(t) for t in toks[:2]]
    except ValueError:
        header = 1  # a header line such as "source,target,weight"
        nxt = next((ln for ln in lines[first + 1:]
                    if ln.strip() and not ln.lstrip().startswith(("#", "%"))), None)
        if nxt is None:
            return (np.zeros(0, np.int64), np.zeros(0, np.int64), None, 0)
        toks = [t for t in (nxt.split(",") if delim else nxt.split()) if t.strip()]
    if len(toks) < 2:
        raise CommandFailed(f"{path}, line {first + header + 1}: expected 'src dst "
                            f"[weight]', got {lines[first + header].strip()!r}")
    cols = (0, 1, 2) if len(toks) >= 3 else (0, 1)
    body = "\n".join(lines[first + header:])
    try:
        data = np.loadtxt(io.StringIO(body), comments=("#", "%"), delimiter=delim,
                          usecols=cols, ndmin=2, dtype=np.float64)
    except ValueError as e:
        msg = str(e).splitlines()[0]
        raise CommandFailed(f"{path}: not an edge list of numbers 'src dst [weight]' "
                            f"(first data line {first + header + 1}): {msg}") from None
    ids = data[:, :2]
    if ids.size and (not np.all(np.isfinite(ids)) or np.any(ids != np.floor(ids))):
        raise CommandFailed(f"{path}: vertex ids must be integers")
    ids = ids.astype(np.int64)
    if one_based:
        ids -= 1
    if ids.size and ids.min() < 0:
        raise CommandFailed(f"{path}: vertex id {int(ids.min()) + int(one_based)} is below "
                            f"{int(one_based)}" + ("" if one_based else
                                                   " (ids start at 0; 1-based files need "
                                                   "--one-based)"))
    n = int(ids.max()) + 1 if ids.size else 0
    w = data[:, 2].copy() if len(cols) == 3 else None
    return ids[:, 0].copy(), ids[:, 1].copy(), w, n


def read_graph(path: str | os.PathLike, *, undirected: bool = False,
               one_based: bool = False):
    """Read a graph file into a :class:`gblas.Matrix` (edge ``i -> j`` at ``A[i, j]``).

    Parameters
    ----------
    path : str or path-like
        ``.mtx``/``.mtx.gz``, an edge list or ``.npz`` (see the module notes).
    undirected : bool, default False
        Add every edge's reverse (duplicates keep the smaller weight).
    one_based : bool, default False
        Edge lists only: ids start at 1.

    Returns
    -------
    gblas.Matrix
        float64 for weighted files, bool for patterns; square (a rectangular file's
        shape is padded to the larger side).

    Raises
    ------
    CommandFailed
        The file is missing, of an unknown type, or malformed (the message says where).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "g.el")
    >>> _ = open(path, "w").write("1 2\\n2 3\\n")
    >>> read_graph(path, one_based=True, undirected=True).nvals
    4
    """
    import gblas as gb

    from ..exceptions import GraphBLASError

    path = Path(path)
    kind = file_kind(path)
    if not path.is_file():
        raise CommandFailed(f"{path}: no such file")
    try:
        if kind == "mtx":
            A = gb.io.read_mm(path)
            if not undirected and A.shape[0] == A.shape[1]:
                return A  # as read: its dtype, no second build
            r, c, v = A.to_coo()
            n = max(A.shape)
            w = None if A.dtype == np.bool_ else np.asarray(v, dtype=np.float64)
        elif kind == "npz":
            r, c, w, n = _read_npz(path)
        else:
            r, c, w, n = read_edge_list(path, one_based=one_based)
    except GraphBLASError as e:
        raise CommandFailed(str(e)) from None
    r, c = np.asarray(r, dtype=np.int64), np.asarray(c, dtype=np.int64)
    if undirected:
        r, c = np.concatenate([r, c]), np.concatenate([c, r])
        w = None if w is None else np.concatenate([w, w])
    return gb.Matrix.from_coo(r, c, w, shape=(n, n), dup_op="min")


def _read_npz(path: Path):
    import scipy.sparse as sp

    import gblas as gb

    try:
        with np.load(path, allow_pickle=False) as z:
            keys = set(z.files)
    except (OSError, ValueError) as e:
        raise CommandFailed(f"{path}: not a NumPy .npz archive ({e})") from None
    if "__manifest__" in keys:
        A = gb.io.load(path)
        S = A.to_scipy()
    elif {"format", "shape"} <= keys:
        try:
            S = sp.load_npz(path)
        except (OSError, ValueError) as e:
            raise CommandFailed(f"{path}: not a SciPy sparse .npz ({e})") from None
    else:
        raise CommandFailed(f"{path}: a .npz without a SciPy sparse matrix (save_npz) or a "
                            f"gblas Matrix (gblas.io.save); its arrays: {sorted(keys)}")
    C = sp.coo_array(S)
    w = None if C.dtype == np.bool_ else C.data.astype(np.float64)
    return C.row, C.col, w, max(C.shape)
