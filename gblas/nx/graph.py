"""The graph object of the NetworkX backend: a NetworkX graph's edges as gblas matrices.

A :class:`GblasGraph` keeps the node list of the NetworkX graph it came from (in its
order: node ``nodes[i]`` is row and column ``i``), the adjacency as coordinate arrays
(both directions of an undirected edge, every parallel edge of a multigraph) with the
values of the converted edge attributes, and builds the :class:`gblas.Matrix` an
algorithm asks for (a pattern, or one attribute's values with parallel edges summed or
minimized) once, on first use.

The conversion (:func:`from_networkx`) does its per-entry work in C-level passes over
NetworkX's dict-of-dicts (``np.fromiter`` over the chained neighbour dicts, the node
labels mapped through a dict only when they are not already ``0..n-1``, an attribute read
with ``itemgetter``), reads an attribute only when it is asked for, and reads an
undirected edge's attributes once: NetworkX shares one attribute dict between the two
directions of an undirected edge.

This module imports NetworkX only where a NetworkX graph is made
(:meth:`GblasGraph.to_networkx`).
"""

from __future__ import annotations

from itertools import chain, compress, islice, repeat
from operator import itemgetter, methodcaller

import numpy as np

from .._device import unique
from ..exceptions import InvalidValue, bad_arg

__all__ = ["GblasGraph", "from_networkx"]

_values = methodcaller("values")


def _constant(values: np.ndarray) -> bool:
    """True when every value equals the first (or there is none)."""
    return values.size == 0 or bool((values == values[0]).all())


def _column(values: list, attr) -> np.ndarray:
    """One edge attribute's values as int64 (all integers) or float64."""
    if all(type(x) is int for x in values):
        try:
            return np.array(values, dtype=np.int64)
        except OverflowError:
            pass
    try:
        return np.fromiter(values, dtype=np.float64, count=len(values))
    except (TypeError, ValueError):
        raise TypeError(f"edge attribute {attr!r} holds values that are not numbers; "
                        "the gblas backend converts numeric edge attributes only") from None


class GblasGraph:
    """A graph for NetworkX's ``gblas`` backend (``__networkx_backend__ = "gblas"``).

    Made by :func:`from_networkx` (what NetworkX's dispatcher calls); a NetworkX function
    given a ``GblasGraph`` runs with the ``gblas`` backend without converting again.

    Parameters
    ----------
    nodes : list
        The node labels; ``nodes[i]`` is vertex ``i`` of every matrix.
    rows, cols : array_like of int
        The adjacency as ``(i, j)`` pairs, one per entry of NetworkX's adjacency
        (``G.adj``): both directions of an undirected edge, each parallel edge of a
        multigraph, an undirected self loop once.
    directed, multigraph : bool
        The kind of graph.
    edge_values : dict, optional
        Attribute name -> array of the edge values (aligned with ``rows``).
    graph_attrs, node_attrs : dict, optional
        ``G.graph`` and node name -> {attribute: value}, kept for
        :meth:`to_networkx`.
    all_edge_attrs : bool, default False
        ``edge_values`` holds every attribute the edges have (an attribute not there
        then has its default on every edge).
    edge_data : list of dict, optional
        The attribute dicts of the edges (aligned with ``rows``), kept when every
        attribute is preserved, so that a subgraph returned to NetworkX carries them all.
    upper_values : dict, optional
        Undirected graphs without parallel edges only: attribute name -> the values of
        the entries with ``rows <= cols`` (each edge once), in the order of those
        entries.  NetworkX shares one attribute dict between the two directions of an
        undirected edge, so the conversion reads each edge once; :meth:`matrix` mirrors
        these values, and :attr:`edge_values` aligns them with ``rows`` on first use.

    Examples
    --------
    >>> import networkx as nx
    >>> from gblas.nx import from_networkx
    >>> G = nx.path_graph(["a", "b", "c"])
    >>> H = from_networkx(G)
    >>> H.nodes, H.number_of_edges(), H.is_directed()
    (['a', 'b', 'c'], 2, False)
    >>> H.pattern().nvals
    4
    """

    __networkx_backend__ = "gblas"

    def __init__(self, nodes, rows, cols, *, directed: bool, multigraph: bool = False,
                 edge_values: dict | None = None, graph_attrs: dict | None = None,
                 node_attrs: dict | None = None, all_edge_attrs: bool = False,
                 edge_data: list | None = None, upper_values: dict | None = None):
        self.nodes = list(nodes)
        self.rows = np.asarray(rows, dtype=np.int64)
        self.cols = np.asarray(cols, dtype=np.int64)
        self._edge_values = dict(edge_values or {})
        self._upper = dict(upper_values or {})
        if self._upper and (directed or multigraph):
            raise bad_arg(InvalidValue, "GblasGraph", "upper_values",
                          "an undirected graph without parallel edges",
                          "directed" if directed else "a multigraph",
                          "Pass the values as edge_values, aligned with rows.")
        if self._upper:
            count = int(np.count_nonzero(self.rows <= self.cols))
            for attr, vals in self._upper.items():
                self._upper[attr] = vals = np.asarray(vals)
                if vals.shape != (count,):
                    raise bad_arg(InvalidValue, "GblasGraph", "upper_values",
                                  f"{count} values of {attr!r} (the entries with "
                                  "rows <= cols)", f"shape {vals.shape}",
                                  "Give one value per entry with rows <= cols, in order.")
        self.graph = dict(graph_attrs or {})
        self.node_attrs = node_attrs
        self.all_edge_attrs = bool(all_edge_attrs)
        self.edge_data = edge_data
        self._directed = bool(directed)
        self._multigraph = bool(multigraph)
        self._index = None
        self._memo: dict = {}
        # NetworkX keeps its conversions of a graph here (none are made from this one)
        self.__networkx_cache__: dict = {}

    # ----------------------------------------------------------------- graph protocol
    def is_directed(self) -> bool:
        """True for a directed graph."""
        return self._directed

    def is_multigraph(self) -> bool:
        """True for a multigraph."""
        return self._multigraph

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self):
        return iter(self.nodes)

    def __contains__(self, node) -> bool:
        try:
            return node in self.index
        except TypeError:
            return False

    def number_of_nodes(self) -> int:
        """The number of nodes."""
        return len(self.nodes)

    def number_of_edges(self) -> int:
        """The number of edges (an undirected edge once), as ``G.number_of_edges()``."""
        if self._directed:
            return int(self.rows.size)
        return int(np.count_nonzero(self.rows <= self.cols))

    @property
    def edges(self) -> list:
        """The edges as ``(u, v)`` node pairs (an undirected edge once), as a list.

        Examples
        --------
        >>> import networkx as nx
        >>> from gblas.nx import from_networkx
        >>> from_networkx(nx.path_graph(3)).edges
        [(0, 1), (1, 2)]
        """
        keep = np.ones(self.rows.size, bool) if self._directed else self.rows <= self.cols
        nodes = self.nodes
        return [(nodes[i], nodes[j]) for i, j in zip(self.rows[keep].tolist(),
                                                     self.cols[keep].tolist())]

    def __repr__(self) -> str:
        kind = ("Multi" if self._multigraph else "") + ("DiGraph" if self._directed
                                                        else "Graph")
        return (f"GblasGraph({kind}, {len(self.nodes)} nodes, "
                f"{self.number_of_edges()} edges)")

    @property
    def edge_values(self) -> dict:
        """Attribute name -> the edge values, aligned with ``rows``."""
        for attr in list(self._upper):
            self._edge_values[attr] = self._mirror(self._upper.pop(attr))
        return self._edge_values

    def _upper_entries(self) -> np.ndarray:
        """The positions of the entries with ``rows <= cols`` (each undirected edge
        once), increasing."""
        return np.flatnonzero(self.rows <= self.cols)

    def _mirror(self, upper: np.ndarray) -> np.ndarray:
        """Values given at the entries ``rows <= cols`` spread to every entry: an entry
        ``(i, j)`` with ``i > j`` takes the value of ``(j, i)``."""
        if upper.size and _constant(upper):
            # one value on every edge (an unweighted graph's 1s): nothing to pair
            return np.full(self.rows.size, upper[0], dtype=upper.dtype)
        up = self._upper_entries()
        full = np.empty(self.rows.size, dtype=upper.dtype)
        full[up] = upper
        low = np.flatnonzero(self.rows > self.cols)
        if low.size:
            n = max(len(self.nodes), 1)
            key = self.rows[up] * n + self.cols[up]
            want = self.cols[low] * n + self.rows[low]
            order = np.argsort(key, kind="stable")
            pos = np.searchsorted(key, want, sorter=order)
            found = order[np.minimum(pos, key.size - 1)] if key.size else pos
            if not key.size or not np.array_equal(key[found], want):
                raise bad_arg(InvalidValue, "GblasGraph", "rows, cols",
                              "both (i, j) and (j, i) of every edge of an undirected graph",
                              "an entry (i, j) without (j, i)",
                              "Pass the values as edge_values, aligned with rows.")
            full[low] = upper[found]
        return full

    @property
    def index(self) -> dict:
        """Node label -> vertex id."""
        if self._index is None:
            self._index = {v: i for i, v in enumerate(self.nodes)}
        return self._index

    # ------------------------------------------------------------------------ degrees
    def out_degree(self) -> np.ndarray:
        """Entries of every row of the adjacency (parallel edges counted), int64."""
        return np.bincount(self.rows, minlength=len(self.nodes)).astype(np.int64)

    def in_degree(self) -> np.ndarray:
        """Entries of every column of the adjacency (parallel edges counted), int64."""
        return np.bincount(self.cols, minlength=len(self.nodes)).astype(np.int64)

    def degree(self) -> np.ndarray:
        """``G.degree`` of every vertex: in + out for a directed graph; for an undirected
        one the neighbours, a self loop counting twice (as in NetworkX)."""
        if self._directed:
            return self.out_degree() + self.in_degree()
        loops = self.rows[self.rows == self.cols]
        return self.out_degree() + np.bincount(loops, minlength=len(self.nodes))

    # -------------------------------------------------------------------- subgraphs
    def subgraph(self, keep_nodes: np.ndarray, keep_edges: np.ndarray | None = None,
                 *, directed: bool | None = None, attrs: bool = True) -> GblasGraph:
        """The graph on the vertices where ``keep_nodes`` is True (in this graph's order)
        and the edges between them where ``keep_edges`` is True (default all), with their
        attributes (``attrs``), as ``G.subgraph(nodes).copy()``.

        Examples
        --------
        >>> import networkx as nx
        >>> from gblas.nx import from_networkx
        >>> H = from_networkx(nx.path_graph(4))
        >>> H.subgraph(np.array([True, True, True, False]))
        GblasGraph(Graph, 3 nodes, 2 edges)
        """
        keep_nodes = np.asarray(keep_nodes, dtype=bool)
        new_id = np.cumsum(keep_nodes) - 1
        sel = keep_nodes[self.rows] & keep_nodes[self.cols]
        if keep_edges is not None:
            sel &= keep_edges
        idx = np.flatnonzero(sel)
        nodes = [self.nodes[i] for i in np.flatnonzero(keep_nodes).tolist()]
        nattrs = None
        if attrs and self.node_attrs is not None:
            nattrs = {v: self.node_attrs.get(v, {}) for v in nodes}
        data = None
        if attrs and self.edge_data is not None:
            data = [self.edge_data[i] for i in idx.tolist()]
        return GblasGraph(
            nodes, new_id[self.rows[idx]], new_id[self.cols[idx]],
            directed=self._directed if directed is None else directed,
            multigraph=self._multigraph,
            edge_values={a: v[idx] for a, v in self.edge_values.items()} if attrs else None,
            graph_attrs=self.graph if attrs else None, node_attrs=nattrs,
            all_edge_attrs=self.all_edge_attrs and attrs, edge_data=data)

    # ---------------------------------------------------------------------- matrices
    def weights(self, weight):
        """The values of edge attribute ``weight`` (None: every edge 1), aligned with
        ``rows``; int64 when every value is an integer."""
        if weight is None:
            return np.ones(self.rows.size, dtype=np.int64)
        if weight in self._edge_values or weight in self._upper:
            return self.edge_values[weight]
        if self.all_edge_attrs or self.rows.size == 0:
            # no edge has the attribute: NetworkX's default of 1 everywhere
            return np.ones(self.rows.size, dtype=np.int64)
        raise KeyError(f"edge attribute {weight!r} was not converted; convert the graph "
                       f"with from_networkx(G, edge_attrs={{{weight!r}: 1}})")

    def matrix(self, weight=None, dup: str = "plus", device: str = "cpu"):
        """The weighted adjacency matrix (float64, built once per argument set).

        Parameters
        ----------
        weight : str, optional
            Edge attribute giving the values; None: every edge weighs 1.
        dup : {"plus", "min"}, default "plus"
            How the values of parallel edges of a multigraph combine.
        device : {"cpu", "gpu"}, default "cpu"
            Where the matrix lives.

        Returns
        -------
        gblas.Matrix
            ``n x n``, ``A[i, j]`` for the edge ``nodes[i] -> nodes[j]``.

        Examples
        --------
        >>> import networkx as nx
        >>> from gblas.nx import from_networkx
        >>> G = nx.DiGraph([(0, 1, {"w": 2.5})])
        >>> from_networkx(G, edge_attrs={"w": 1}).matrix("w").to_coo()[2].tolist()
        [2.5]
        """
        from ..core import Matrix

        key = (weight, dup, device)
        A = self._memo.get(key)
        if A is None:
            n = len(self.nodes)
            up = self._upper.get(weight) if weight is not None else None
            if (up is None and weight is None or up is not None and _constant(up)) and (
                    not self._multigraph):
                # every edge weighs the same: an iso matrix (no values to store or read)
                value = 1.0 if up is None or up.size == 0 else float(up[0])
                A = Matrix.from_coo(self.rows, self.cols, value, shape=(n, n),
                                    dtype=np.float64, dup_op=dup)
            elif up is not None:
                # each undirected edge once, then its mirror image (no parallel edges:
                # the order of the entries does not change the matrix)
                once = self._upper_entries()
                r, c = self.rows[once], self.cols[once]
                off = r != c
                vals = np.asarray(up, dtype=np.float64)
                A = Matrix.from_coo(np.concatenate([r, c[off]]),
                                    np.concatenate([c, r[off]]),
                                    np.concatenate([vals, vals[off]]), shape=(n, n),
                                    dup_op=dup)
            else:
                vals = np.asarray(self.weights(weight), dtype=np.float64)
                A = Matrix.from_coo(self.rows, self.cols, vals, shape=(n, n), dup_op=dup)
            A = A.to(device) if device != "cpu" else A
            if not self._directed:  # both directions of every edge, with one value
                A._mark_symmetric()
            self._memo[key] = A
        return A

    def pattern(self, device: str = "cpu"):
        """The adjacency pattern: a bool Matrix, parallel edges merged (built once).

        Examples
        --------
        >>> import networkx as nx
        >>> from gblas.nx import from_networkx
        >>> from_networkx(nx.MultiDiGraph([(0, 1), (0, 1)])).pattern().nvals
        1
        """
        from ..core import Matrix

        key = ("pattern", device)
        A = self._memo.get(key)
        if A is None:
            n = len(self.nodes)
            r, c = self.rows, self.cols
            if self._multigraph and r.size:
                flat = unique(r * n + c)
                r, c = flat // n, flat % n
            A = Matrix.from_coo(r, c, None, shape=(n, n))
            A = A.to(device) if device != "cpu" else A
            if not self._directed:
                A._mark_symmetric()
            self._memo[key] = A
        return A

    def undirected_pattern(self):
        """``(rows, cols)`` of the simple undirected graph: both directions of every edge,
        no self loops, no parallel edges, sorted by row."""
        memo = self._memo.get("undirected")
        if memo is not None:
            return memo
        n = len(self.nodes)
        keep = self.rows != self.cols
        r, c = self.rows[keep], self.cols[keep]
        flat = unique(np.concatenate([r * n + c, c * n + r]))
        memo = self._memo["undirected"] = (flat // n, flat % n)
        return memo

    # ------------------------------------------------------------------- conversion
    def to_networkx(self):
        """The NetworkX graph (nodes in order, converted attributes on the edges).

        Examples
        --------
        >>> import networkx as nx
        >>> from gblas.nx import from_networkx
        >>> G = nx.Graph([("x", "y", {"weight": 3})])
        >>> H = from_networkx(G, edge_attrs={"weight": 1}).to_networkx()
        >>> list(H.edges(data=True))
        [('x', 'y', {'weight': 3})]
        """
        import networkx as nx

        cls = {(False, False): nx.Graph, (True, False): nx.DiGraph,
               (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}
        G = cls[(self._directed, self._multigraph)]()
        G.graph.update(self.graph)
        attrs = self.node_attrs or {}
        G.add_nodes_from((v, dict(attrs.get(v, {}))) for v in self.nodes)
        keep = np.ones(self.rows.size, bool) if self._directed else self.rows <= self.cols
        idx = np.flatnonzero(keep)
        if self.edge_data is not None:
            nodes, data = self.nodes, self.edge_data
            G.add_edges_from((nodes[i], nodes[j], dict(data[e])) for i, j, e in zip(
                self.rows[idx].tolist(), self.cols[idx].tolist(), idx.tolist()))
            return G
        names = list(self.edge_values)
        cols = [self.edge_values[a][idx].tolist() for a in names]
        nodes = self.nodes
        G.add_edges_from(
            (nodes[i], nodes[j], dict(zip(names, vals)))
            for i, j, *vals in zip(self.rows[idx].tolist(), self.cols[idx].tolist(), *cols))
        return G


def from_networkx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs: bool = False,
                  preserve_node_attrs: bool = False, preserve_graph_attrs: bool = False):
    """A :class:`GblasGraph` from a NetworkX graph (NetworkX's ``convert_from_nx``).

    Parameters
    ----------
    G : networkx.Graph, DiGraph, MultiGraph or MultiDiGraph
        The graph (nodes keep ``G``'s order).
    edge_attrs : dict, optional
        Edge attribute -> default value where an edge lacks it (None as the default:
        1, NetworkX's default weight).
    node_attrs : dict, optional
        Node attributes to keep (for :meth:`GblasGraph.to_networkx`).
    preserve_edge_attrs, preserve_node_attrs, preserve_graph_attrs : bool
        Keep every numeric edge attribute / every node attribute / ``G.graph``.

    Returns
    -------
    GblasGraph

    Examples
    --------
    >>> import networkx as nx
    >>> from gblas.nx import from_networkx
    >>> H = from_networkx(nx.DiGraph([((0, 1), (1, 2), {"weight": 4})]),
    ...                   edge_attrs={"weight": 1})
    >>> H.nodes, H.weights("weight").tolist()
    ([(0, 1), (1, 2)], [4])
    """
    nodes = list(G)
    multigraph = G.is_multigraph()
    adj = G._adj if hasattr(G, "_adj") else G.adj
    if multigraph:
        index = {v: i for i, v in enumerate(nodes)}
        rows, cols, datas = _multi_coo(index, adj)

        def edge_dicts(select=None):
            return iter(datas)
    else:
        rows, cols, nbr_dicts, deg = _simple_coo(nodes, adj)

        def edge_dicts(select=None):
            # one values view alive at a time: no garbage collection is set off
            dicts = chain.from_iterable(map(_values, nbr_dicts))
            return dicts if select is None else compress(dicts, select)

        datas = list(edge_dicts()) if preserve_edge_attrs else None
    upper = not multigraph and not G.is_directed()
    if preserve_edge_attrs:
        names: dict = {}
        for d in datas:
            for key in d:
                names.setdefault(key, 1)
        wanted = names
    else:
        wanted = {a: (1 if default is None else default)
                  for a, default in (edge_attrs or {}).items()}
    select, count = None, rows.size
    if upper and wanted:
        # NetworkX shares an undirected edge's attribute dict between its two
        # directions: read each edge once, at its entry with rows <= cols
        keep = rows <= cols
        count = int(np.count_nonzero(keep))
        tails = _tail_starts(deg, keep)
        if tails is None:
            select = keep.tolist()
        else:
            # each row's kept entries are its last ones (sorted neighbours): skip the
            # others row by row instead of testing every entry
            skips = tails.tolist()

            def edge_dicts(select=None):
                return chain.from_iterable(map(islice, map(_values, nbr_dicts), skips,
                                               repeat(None)))
    plain = getattr(G, "edge_attr_dict_factory", None) is dict
    values = {}
    for attr, default in wanted.items():
        try:
            values[attr] = _attr_column(edge_dicts, select, count, attr, default, plain)
        except TypeError:
            if not preserve_edge_attrs:
                raise
            # a non-numeric attribute among all those kept: no algorithm needs it
    if preserve_node_attrs:
        nattrs = {v: dict(d) for v, d in G.nodes(data=True)}
    elif node_attrs:
        nattrs = {v: {a: d.get(a, default) for a, default in node_attrs.items()
                      if a in d or default is not None}
                  for v, d in G.nodes(data=True)}
    else:
        nattrs = None
    return GblasGraph(nodes, rows, cols, directed=G.is_directed(), multigraph=multigraph,
                      edge_values=None if upper else values,
                      upper_values=values if upper else None,
                      graph_attrs=G.graph if preserve_graph_attrs else None,
                      node_attrs=nattrs, all_edge_attrs=bool(preserve_edge_attrs),
                      edge_data=datas if preserve_edge_attrs else None)


def _tail_starts(deg: np.ndarray, keep: np.ndarray) -> np.ndarray | None:
    """Per row (of ``deg`` entries each, in order), how many entries come before its kept
    ones, when the kept entries of every row are its last ones; else None."""
    ends = np.cumsum(deg)
    starts = ends - deg
    drop = ~keep
    # a kept entry followed by a dropped one must end its row
    turns = np.flatnonzero(keep[:-1] & drop[1:]) + 1
    row_start = np.zeros(keep.size + 1, dtype=np.bool_)
    row_start[starts] = True
    if not row_start[turns].all():
        return None
    skips = np.zeros(deg.size, dtype=np.int64)
    full = deg > 0
    if keep.size:
        skips[full] = np.add.reduceat(drop, starts[full], dtype=np.int64)
    return skips


def _simple_coo(nodes: list, adj):
    """``(rows, cols, neighbour dicts, degrees)`` of a graph without parallel edges, in
    adjacency order, with NumPy doing the per-entry work (no Python loop body per edge)."""
    n = len(nodes)
    nbr_dicts = list(adj.values())
    deg = np.fromiter(map(len, nbr_dicts), dtype=np.int64, count=n)
    nnz = int(deg.sum())
    rows = np.repeat(np.arange(n, dtype=np.int64), deg)
    keys = chain.from_iterable(nbr_dicts)
    if nodes == list(range(n)):
        cols = np.fromiter(keys, dtype=np.int64, count=nnz)  # the labels are the ids
    else:
        index = dict(zip(nodes, range(n)))
        cols = np.fromiter(map(index.__getitem__, keys), dtype=np.int64, count=nnz)
    return rows, cols, nbr_dicts, deg


def _attr_column(edge_dicts, select, count: int, attr, default, plain: bool) -> np.ndarray:
    """The values of edge attribute ``attr`` (``default`` where an edge lacks it) over
    ``edge_dicts(select)``, an iterator of the ``count`` edge attribute dicts, as
    :func:`_column` makes them.

    One C-level pass (``itemgetter``) when every edge has the attribute, straight into a
    float64 array when the first value is a float (then not every value is an int);
    otherwise the edges without any attribute are found in one cheap pass (all of them:
    the default everywhere, nothing read), else ``dict.get`` per edge.  ``plain``: the
    dicts are plain ``dict`` objects, whose ``[]`` cannot change them (a
    ``defaultdict`` would)."""
    if plain and count:
        get = itemgetter(attr)
        try:
            if type(get(next(edge_dicts(select)))) is float:
                try:
                    return np.fromiter(map(get, edge_dicts(select)), dtype=np.float64,
                                       count=count)
                except (TypeError, ValueError):
                    pass  # a value that is not a number: _column says which
            return _column(list(map(get, edge_dicts(select))), attr)
        except KeyError:
            pass
        if not any(map(len, edge_dicts(select))):
            return _column([default] * count, attr)
    return _column([d.get(attr, default) for d in edge_dicts(select)], attr)


def _multi_coo(index: dict, adj):
    """(rows, cols, edge data dicts) of a multigraph: one entry per parallel edge."""
    rows: list = []
    cols: list = []
    datas: list = []
    for u, nbrs in adj.items():
        i = index[u]
        for v, dd in nbrs.items():
            j = index[v]
            for data in dd.values():
                rows.append(i)
                cols.append(j)
                datas.append(data)
    return (np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64), datas)
