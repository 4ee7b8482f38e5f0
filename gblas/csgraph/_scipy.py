"""The functions of ``scipy.sparse.csgraph`` that :mod:`gblas.csgraph` delegates to SciPy.

Depth-first orders and trees, minimum spanning trees, Laplacians, flows, matchings,
reorderings, Yen's k shortest paths and the dense/masked/sparse conversions are
sequential algorithms (a depth-first stack, a union-find over sorted edges, augmenting
paths) or plain array conversions: written as semiring products they would be slower
than SciPy's compiled loops, so these names call SciPy's own functions, with the same
arguments, results, warnings and errors.  What gblas adds: a :class:`gblas.Matrix`
(or ``A.T``, on any device) is accepted wherever SciPy takes a graph (converted with
``to_scipy()``), and SciPy's ``NegativeCycleError`` comes out as
:class:`gblas.csgraph.NegativeCycleError` (a subclass of SciPy's, so either ``except``
catches it).

Examples
--------
>>> import numpy as np
>>> from gblas.csgraph import depth_first_order
>>> depth_first_order(np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]]), 0)[0].tolist()
[0, 1, 2]
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

import scipy
import scipy.sparse.csgraph as _sc
from scipy.sparse.csgraph import NegativeCycleError as _SciPyNegativeCycleError

from ..core.matrix import Matrix, TransposedMatrix
from ._input import NegativeCycleError

#: name -> (minimum SciPy version, one-line summary, doctest example)
_DELEGATED: dict[str, tuple[str, str, str]] = {
    "depth_first_order": ("1.0", "Depth-first order from ``i_start`` (and predecessors).", """
    >>> import numpy as np
    >>> from gblas.csgraph import depth_first_order
    >>> order, pred = depth_first_order(np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]]), 0)
    >>> order.tolist(), pred.tolist()
    ([0, 1, 2], [-9999, 0, 1])"""),
    "depth_first_tree": ("1.0", "The depth-first tree from ``i_start``.", """
    >>> import numpy as np
    >>> from gblas.csgraph import depth_first_tree
    >>> depth_first_tree(np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]]), 0).toarray().tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]"""),
    "minimum_spanning_tree": ("1.0", "A minimum spanning tree (forest) of an undirected "
                              "graph.", """
    >>> import numpy as np
    >>> from gblas.csgraph import minimum_spanning_tree
    >>> G = np.array([[0, 8, 0, 3], [0, 0, 2, 5], [0, 0, 0, 6], [0, 0, 0, 0]])
    >>> minimum_spanning_tree(G).toarray().astype(int).tolist()
    [[0, 0, 0, 3], [0, 0, 2, 5], [0, 0, 0, 0], [0, 0, 0, 0]]"""),
    "laplacian": ("1.0", "The Laplacian matrix of a graph (``normed``, ``use_out_degree``, "
                  "``form`` and the other options as in SciPy).", """
    >>> import numpy as np
    >>> from gblas.csgraph import laplacian
    >>> laplacian(np.array([[0, 1], [1, 0]])).tolist()
    [[1, -1], [-1, 1]]"""),
    "reconstruct_path": ("1.0", "The tree of the paths given by a predecessor list.", """
    >>> import numpy as np
    >>> from gblas.csgraph import reconstruct_path
    >>> G = np.array([[0, 1, 2], [0, 0, 1], [0, 0, 0]])
    >>> reconstruct_path(G, np.array([-9999, 0, 0])).toarray().tolist()
    [[0.0, 1.0, 2.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]"""),
    "construct_dist_matrix": ("1.0", "The distance matrix of the paths given by "
                              "predecessors.", """
    >>> import numpy as np
    >>> from gblas.csgraph import construct_dist_matrix
    >>> G = np.array([[0, 1, 2], [0, 0, 1], [0, 0, 0]])
    >>> construct_dist_matrix(G, np.array([[-9999, 0, 0]] * 3, dtype=np.int32))[0].tolist()
    [0.0, 1.0, 2.0]"""),
    "csgraph_from_dense": ("1.0", "A sparse graph from a dense array (``null_value``, "
                           "``nan_null``, ``infinity_null`` as in SciPy).", """
    >>> import numpy as np
    >>> from gblas.csgraph import csgraph_from_dense
    >>> csgraph_from_dense(np.array([[0, 2], [np.inf, 0]])).nnz
    1"""),
    "csgraph_to_dense": ("1.0", "A dense array from a sparse graph (non-edges "
                         "``null_value``).", """
    >>> import scipy.sparse as sp
    >>> from gblas.csgraph import csgraph_to_dense
    >>> csgraph_to_dense(sp.csr_array([[0, 2], [0, 0]]), null_value=-1).tolist()
    [[-1.0, 2.0], [-1.0, -1.0]]"""),
    "csgraph_masked_from_dense": ("1.0", "A masked array from a dense graph (non-edges "
                                  "masked).", """
    >>> import numpy as np
    >>> from gblas.csgraph import csgraph_masked_from_dense
    >>> csgraph_masked_from_dense(np.array([[0, 2], [3, 0]])).mask.tolist()
    [[True, False], [False, True]]"""),
    "csgraph_from_masked": ("1.0", "A sparse graph from a masked array.", """
    >>> import numpy as np
    >>> from gblas.csgraph import csgraph_from_masked
    >>> csgraph_from_masked(np.ma.masked_equal([[0, 2], [3, 0]], 0)).nnz
    2"""),
    "csgraph_to_masked": ("1.0", "A masked array from a sparse graph.", """
    >>> import scipy.sparse as sp
    >>> from gblas.csgraph import csgraph_to_masked
    >>> csgraph_to_masked(sp.csr_array([[0, 2], [0, 0]])).mask.tolist()
    [[True, False], [True, True]]"""),
    "maximum_flow": ("1.4", "The maximum flow from ``source`` to ``sink`` (integer "
                     "capacities; Dinic's or Edmonds-Karp).", """
    >>> import scipy.sparse as sp
    >>> from gblas.csgraph import maximum_flow
    >>> int(maximum_flow(sp.csr_array([[0, 5, 3], [0, 0, 4], [0, 0, 0]]), 0, 2).flow_value)
    7"""),
    "maximum_bipartite_matching": ("1.4", "A maximum matching of a bipartite graph.", """
    >>> import scipy.sparse as sp
    >>> from gblas.csgraph import maximum_bipartite_matching
    >>> maximum_bipartite_matching(sp.csr_array([[1, 1], [1, 0]])).tolist()
    [1, 0]"""),
    "min_weight_full_bipartite_matching": ("1.6", "A full matching of a bipartite graph of "
                                           "minimum weight.", """
    >>> import scipy.sparse as sp
    >>> from gblas.csgraph import min_weight_full_bipartite_matching
    >>> r, c = min_weight_full_bipartite_matching(sp.csr_array([[1, 3], [2, 9]]))
    >>> r.tolist(), c.tolist()
    ([0, 1], [1, 0])"""),
    "structural_rank": ("1.0", "The structural rank of a sparse matrix.", """
    >>> import scipy.sparse as sp
    >>> from gblas.csgraph import structural_rank
    >>> int(structural_rank(sp.csr_array([[1, 1], [0, 0]])))
    1"""),
    "reverse_cuthill_mckee": ("1.0", "The reverse Cuthill-McKee permutation of a sparse "
                              "matrix.", """
    >>> import scipy.sparse as sp
    >>> from gblas.csgraph import reverse_cuthill_mckee
    >>> reverse_cuthill_mckee(sp.csr_array([[1, 0, 1], [0, 1, 0], [1, 0, 1]])).tolist()
    [2, 0, 1]"""),
    "yen": ("1.14", "The ``K`` shortest loopless paths from ``source`` to ``sink`` "
            "(Yen's algorithm).", """
    >>> import numpy as np
    >>> from gblas.csgraph import yen
    >>> G = np.array([[0, 1, 3], [0, 0, 1], [0, 0, 0]])
    >>> yen(G, source=0, sink=2, K=2).tolist()
    [2.0, 3.0]"""),
}


def _version_tuple(text: str) -> tuple[int, ...]:
    out = []
    for part in text.split(".")[:3]:
        digits = "".join(ch for ch in part if ch.isdigit())
        out.append(int(digits or 0))
    return tuple(out)


def _scipy_arg(value: Any) -> Any:
    """A gblas Matrix (or ``A.T``) as a SciPy CSR array; anything else as given."""
    if isinstance(value, TransposedMatrix):
        value = value.materialize()
    if isinstance(value, Matrix):
        return value.to_scipy()
    return value


def _make(name: str, since: str, summary: str, example: str):
    target = getattr(_sc, name, None)

    def delegated(*args: Any, **kwargs: Any) -> Any:
        if target is None:
            raise NotImplementedError(
                f"{name}: needs SciPy >= {since}, found SciPy {scipy.__version__}; upgrade "
                "SciPy (pip install -U scipy).")
        args = tuple(_scipy_arg(a) for a in args)
        kwargs = {k: _scipy_arg(v) for k, v in kwargs.items()}
        try:
            return target(*args, **kwargs)
        except _SciPyNegativeCycleError as exc:
            if isinstance(exc, NegativeCycleError):
                raise
            raise NegativeCycleError(str(exc)) from None

    if target is not None:
        functools.update_wrapper(delegated, target, assigned=("__name__", "__qualname__"),
                                 updated=())
        try:
            delegated.__signature__ = inspect.signature(target)  # type: ignore[attr-defined]
        except (TypeError, ValueError):  # a compiled function without a signature
            pass
    delegated.__name__ = delegated.__qualname__ = name
    delegated.__module__ = "gblas.csgraph"
    delegated.__doc__ = (
        f"{summary}\n\n"
        f"Delegated to ``scipy.sparse.csgraph.{name}`` (SciPy >= {since}): the same "
        "arguments, results, warnings and errors. A :class:`gblas.Matrix` is accepted "
        "wherever SciPy takes a sparse graph (converted with ``to_scipy()``), and SciPy's "
        "``NegativeCycleError`` is raised as :class:`gblas.csgraph.NegativeCycleError`.\n\n"
        "Parameters\n----------\n*args, **kwargs\n    As for SciPy's function.\n\n"
        "Returns\n-------\nobject\n    What SciPy's function returns.\n\n"
        f"Examples\n--------{example}\n")
    return delegated


_funcs = {name: _make(name, *spec) for name, spec in _DELEGATED.items()}

depth_first_order = _funcs["depth_first_order"]
depth_first_tree = _funcs["depth_first_tree"]
minimum_spanning_tree = _funcs["minimum_spanning_tree"]
laplacian = _funcs["laplacian"]
reconstruct_path = _funcs["reconstruct_path"]
construct_dist_matrix = _funcs["construct_dist_matrix"]
csgraph_from_dense = _funcs["csgraph_from_dense"]
csgraph_to_dense = _funcs["csgraph_to_dense"]
csgraph_masked_from_dense = _funcs["csgraph_masked_from_dense"]
csgraph_from_masked = _funcs["csgraph_from_masked"]
csgraph_to_masked = _funcs["csgraph_to_masked"]
maximum_flow = _funcs["maximum_flow"]
maximum_bipartite_matching = _funcs["maximum_bipartite_matching"]
min_weight_full_bipartite_matching = _funcs["min_weight_full_bipartite_matching"]
structural_rank = _funcs["structural_rank"]
reverse_cuthill_mckee = _funcs["reverse_cuthill_mckee"]
yen = _funcs["yen"]

DELEGATED = tuple(_DELEGATED)
