"""``backends.cpu.sort.coo_order``: the stable (row, column) order of COO entries, against
NumPy's lexsort, with rows short (insertion sort) and long (runs merged), duplicates
and ties kept in input order."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gblas.backends.cpu.sort import coo_order


def _check(rows, cols, m):
    order, key, ptr, dups = coo_order(rows, cols, m)
    ref = np.lexsort((np.arange(rows.size), cols, rows))  # ties: input order
    assert order.tolist() == ref.tolist()
    assert key.tolist() == cols[ref].tolist()
    assert ptr.tolist() == np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=m)))).tolist()
    pairs = rows.astype(np.int64) * (int(cols.max(initial=0)) + 1) + cols
    assert dups == (np.unique(pairs).size < rows.size)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(0, 700), st.integers(1, 300), st.integers(0, 2**32 - 1))
def test_order_matches_lexsort(m, nnz, ncols, seed):
    rng = np.random.default_rng(seed)
    _check(rng.integers(0, m, nnz), rng.integers(0, ncols, nnz), m)


def test_long_rows_in_every_merge_shape():
    rng = np.random.default_rng(3)
    for length in (33, 64, 65, 100, 1000, 4097):
        cols = rng.integers(0, 50, length)  # many ties
        _check(np.zeros(length, np.int64), cols, 1)
        _check(np.zeros(length, np.int64), np.sort(cols), 1)  # sorted runs: no merge
        _check(np.zeros(length, np.int64), np.sort(cols)[::-1].copy(), 1)
    assert coo_order(np.array([], np.int64), np.array([], np.int64), 3)[2].tolist() == [0, 0, 0, 0]
