"""The compiled triangle count against NetworkX and against the loop of operations.

Random directed and undirected graphs with self loops, duplicate directions and isolated
vertices: the kernel merges the rows of ``A`` and ``A'`` into the undirected simple
graph, so every input shape counts as NetworkX's ``Graph`` of the same edges.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb


@st.composite
def edge_lists(draw):
    n = draw(st.integers(1, 30))
    m = draw(st.integers(0, 4 * n))
    rows = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    cols = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    return n, np.array(rows, np.int64), np.array(cols, np.int64)


@given(edge_lists(), st.booleans())
@settings(max_examples=60, deadline=None)
def test_kernel_counts_networkx_triangles(case, symmetric):
    n, r, c = case
    if symmetric:
        r, c = np.concatenate([r, c]), np.concatenate([c, r])
    A = gb.Matrix.from_coo(r, c, shape=(n, n), dup_op="any")
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from((int(a), int(b)) for a, b in zip(r, c) if a != b)
    want = sum(nx.triangles(G).values()) // 3
    plan = gb.explain(gb.algorithms.triangle_count, A)
    assert plan.kernel == "triangle_count/csr/cpu", plan
    assert gb.algorithms.triangle_count(A) == want
    with gb.config(format="csr"):
        assert gb.explain(gb.algorithms.triangle_count, A).key is None
        assert gb.algorithms.triangle_count(A) == want


def test_complete_graph():
    n = 12
    r, c = np.nonzero(~np.eye(n, dtype=bool))
    A = gb.Matrix.from_coo(r, c, shape=(n, n))
    assert gb.algorithms.triangle_count(A) == n * (n - 1) * (n - 2) // 6


@given(edge_lists(), st.integers(0, 3))
@settings(max_examples=40, deadline=None)
def test_count_blocks_and_stamp_budget(case, budget):
    """The count's blocks (one per thread, each with its own stamp array) give the same
    total whatever the stamp budget allows: one block, a few, or one per thread."""
    from unittest import mock

    from gblas.backends.cpu import triangles

    n, r, c = case
    A = gb.Matrix.from_coo(r, c, shape=(n, n), dup_op="any")
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from((int(a), int(b)) for a, b in zip(r, c) if a != b)
    want = sum(nx.triangles(G).values()) // 3
    # 0: one block (the budget below one stamp array); else 1-3 arrays' worth
    with mock.patch.object(triangles, "MARK_BYTES", 4 * n * budget):
        assert triangles.triangle_count(A.csr(), A.csr(transposed=True)) == want
