"""Vector write-back (``out<mask> accum= T``) on every storage combination, against a dict
model of the GraphBLAS rules: ``Z = accum(C, T)`` on the union (``T`` alone without an
accumulator), then ``C<M> = Z`` (replace deletes what the mask does not allow).

The sparse-``T`` fast paths (a scatter into ``out`` when only T's positions can change)
and the general dense path must agree with the model whatever the storage of ``out``,
``T`` and the mask."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas.backends.registry import VecData
from gblas.core import writeback as wb

#: The value a dense-stored test vector holds where it has no entry: no operation may
#: read it (dense paths may compute on it, but never show it).
JUNK = 77


def _vec(entries: dict, n: int, dtype, dense: bool) -> gb.Vector:
    idx = np.array(sorted(entries), dtype=np.int64)
    vals = np.array([entries[i] for i in sorted(entries)], dtype=dtype)
    v = gb.Vector.from_coo(idx, vals, n, dtype=dtype)
    if dense:
        d = v.dense_data()
        values = d.values.copy()
        if d.present is not None:
            values[~d.present] = JUNK
        v._replace_data(VecData(d.size, None, values, d.present))
    return v


def _entries(draw, n, elements):
    keys = draw(st.sets(st.integers(0, n - 1), max_size=n))
    return {k: draw(elements) for k in keys}


@st.composite
def cases(draw):
    n = draw(st.integers(1, 12))
    small = st.integers(-3, 3)
    return (n, _entries(draw, n, small), _entries(draw, n, small), _entries(draw, n, small),
            draw(st.booleans()), draw(st.booleans()), draw(st.booleans()),
            draw(st.sampled_from([None, "S", "V", "~S", "~V", "T.S"])),
            draw(st.sampled_from([None, "plus", "min"])), draw(st.booleans()))


def _model(c, t, m, mask, accum, replace, n):
    if accum is None:
        z = dict(t)
    else:
        f = {"plus": lambda a, b: a + b, "min": min}[accum]
        z = dict(c)
        for k, v in t.items():
            z[k] = f(c[k], v) if k in c else v
    if mask is None:
        allowed = set(range(n))
    elif mask == "T.S":
        allowed = set(t)
    else:
        base = set(m) if mask.endswith("S") else {k for k, v in m.items() if v != 0}
        allowed = set(range(n)) - base if mask.startswith("~") else base
    out = {}
    for k in range(n):
        if k in allowed:
            if k in z:
                out[k] = z[k]
        elif not replace and k in c:
            out[k] = c[k]
    return out


@settings(max_examples=300, deadline=None)
@given(cases(), st.sampled_from([16, 10 ** 9]))
def test_vector_writeback_matches_the_model(case, ratio):
    """``ratio``: :data:`DENSE_OUT_RATIO` for the case; a huge one keeps a sparse ``out``
    sparse (the merge path), the default turns these small vectors dense."""
    old = wb.DENSE_OUT_RATIO
    wb.DENSE_OUT_RATIO = ratio
    try:
        _check_writeback(case)
    finally:
        wb.DENSE_OUT_RATIO = old


def _check_writeback(case):
    n, c, t, m, c_dense, t_dense, m_dense, mask, accum, replace = case
    C = _vec(c, n, np.int64, c_dense)
    T = _vec(t, n, np.int64, t_dense)
    M = _vec(m, n, np.int64, m_dense)
    mk = {None: None, "S": M.S, "V": M.V, "~S": ~M.S, "~V": ~M.V, "T.S": T.S}[mask]
    gb.apply(T, "identity", mask=mk, accum=accum, replace=replace, out=C)
    idx, vals = C.to_coo()
    got = dict(zip(idx.tolist(), vals.tolist()))
    assert got == _model(c, t, m, mask, accum, replace, n)


@pytest.mark.parametrize("accum", [None, "plus"])
def test_scatter_into_a_sparse_out_merges_while_small_and_turns_dense_when_large(accum):
    n = 1000
    out = gb.Vector.from_coo([3, 500], [1, 2], size=n)
    model = {3: 1, 500: 2}
    steps = [{3: 10, 7: 20}, {k: k for k in range(0, n, 10)}, {7: 5, 999: 9}]
    for k, entries in enumerate(steps):
        t = gb.Vector.from_coo(list(entries), list(entries.values()), size=n)
        gb.apply(t, "identity", mask=t.S, accum=accum, out=out)
        for i, v in entries.items():
            model[i] = model[i] + v if accum and i in model else v
        got = dict(zip(*(a.tolist() for a in out.to_coo())))
        assert got == model
        # 4 entries stay sparse; 104 of 1000 (over one in DENSE_OUT_RATIO) turn dense
        assert out.is_dense_storage == (k > 0)
    # dense now: with no conversion cached (to_coo made one), a scatter writes in place
    one = gb.Vector.from_coo([1], [4], size=n)
    gb.apply(one, "identity", mask=one.S, accum=accum, out=out)
    vid = id(out._data.values)
    gb.apply(one, "identity", mask=one.S, accum=accum, out=out)
    assert id(out._data.values) == vid
    assert out.to_dense()[1] == (8 if accum else 4)


@pytest.mark.parametrize("dense_out", [False, True])
def test_bfs_style_update_keeps_old_entries(dense_out):
    levels = _vec({0: 0, 5: 1}, 10, np.int64, dense_out)
    q = gb.Vector.from_coo([2, 7], [True, True], 10)
    gb.apply(q, "second", right=2, mask=q.S, out=levels)
    assert dict(zip(*(a.tolist() for a in levels.to_coo()))) == {0: 0, 2: 2, 5: 1, 7: 2}


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 12).flatmap(lambda n: st.tuples(
    st.just(n), st.dictionaries(st.integers(0, n - 1), st.integers(-3, 3)),
    st.dictionaries(st.integers(0, n - 1), st.integers(-3, 3)),
    st.booleans(), st.booleans(), st.sampled_from(["minus", "lt", "plus"]))))
def test_ewise_on_every_storage_pair(case):
    """ewise_mult / ewise_add with sparse and dense storage on either side (the
    sparse-dense intersection reads the dense side at the sparse entries only)."""
    n, a, b, a_dense, b_dense, op = case
    u, v = _vec(a, n, np.int64, a_dense), _vec(b, n, np.int64, b_dense)
    f = {"minus": lambda x, y: x - y, "lt": lambda x, y: int(x < y),
         "plus": lambda x, y: x + y}[op]
    got = gb.ewise_mult(u, v, op)
    want = {k: f(a[k], b[k]) for k in a if k in b}
    assert dict(zip(*(t.tolist() for t in got.to_coo()))) == want
    got = gb.ewise_add(u, v, op)
    cast = bool if op == "lt" else int  # entries of one side are cast to the result type
    want = {k: cast(x) for k, x in {**a, **b}.items()} | want
    assert dict(zip(*(t.tolist() for t in got.to_coo()))) == want


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 10).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.integers(-3, 3), min_size=n, max_size=n),
    st.dictionaries(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                    st.integers(-3, 3)),
    st.sampled_from(["plus", "min", "minus"]))))
def test_accumulate_a_pull_into_a_full_vector(case):
    """out full (no presence array), T a pull's dense result with absent rows, no mask:
    out = accum(out, T) where T has an entry, out elsewhere."""
    n, c, a, accum = case
    A = gb.Matrix.from_coo([i for i, _ in a], [j for _, j in a], list(a.values()),
                           shape=(n, n), dtype=np.int64)
    x = gb.Vector.from_dense(np.arange(1, n + 1, dtype=np.int64))
    C = gb.Vector.from_dense(np.array(c, dtype=np.int64))
    gb.mxv(A, x, "plus_times", accum=accum, out=C)
    t: dict = {}
    for (i, j), v in a.items():
        t[i] = t.get(i, 0) + v * (j + 1)
    f = {"plus": lambda p, q: p + q, "min": min, "minus": lambda p, q: p - q}[accum]
    want = {k: (f(c[k], t[k]) if k in t else c[k]) for k in range(n)}
    assert dict(zip(*(v.tolist() for v in C.to_coo()))) == want
    assert C.nvals == n


# ------------------------------------------------------------ in-place scatter and aliasing


def _scatter(out: gb.Vector) -> None:
    t = gb.Vector.from_coo([1, 3], [5.0, -1.0], size=6)
    gb.apply(t, "identity", accum="plus", out=out)


def _full(n: int = 6) -> gb.Vector:
    return gb.Vector.from_dense(np.arange(n, dtype=np.float64))


def test_scatter_writes_in_place_when_out_owns_its_arrays():
    out = _full()
    _scatter(out)  # the first write-back replaces from_dense's arrays
    vid = id(out._data.values)
    _scatter(out)
    assert id(out._data.values) == vid
    assert out.to_dense().tolist() == [0.0, 11.0, 2.0, 1.0, 4.0, 5.0]


def test_scatter_leaves_a_vector_sharing_the_storage_alone():
    out = _full()
    _scatter(out)
    other = gb.Vector(out._data, out.dtype, out.device)
    before = other.to_dense().copy()
    _scatter(out)
    assert other.to_dense().tolist() == before.tolist()
    assert out.to_dense().tolist() == [0.0, 11.0, 2.0, 1.0, 4.0, 5.0]


def test_scatter_leaves_a_view_and_a_cached_conversion_alone():
    out = _full()
    _scatter(out)
    view = out.to_dense(copy=False)[1:4]  # a view handed out: out stops owning its arrays
    keep = view.copy()
    _scatter(out)
    assert view.tolist() == keep.tolist()
    del view
    cached = gb.Vector(out.sparse_data(), out.dtype)  # shares the values array
    keep = cached.to_dense()
    _scatter(out)
    assert cached.to_dense().tolist() == keep.tolist()
    assert out.to_dense().tolist() == [0.0, 16.0, 2.0, 0.0, 4.0, 5.0]


def test_scatter_leaves_the_array_a_vector_was_built_from_alone():
    arr = np.arange(6, dtype=np.float64)
    out = gb.Vector.from_dense(arr)
    _scatter(out)
    _scatter(out)
    assert arr.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_scatter_in_place_keeps_partial_presence():
    out = gb.Vector.from_coo([0, 1, 2], [1.0, 1.0, 1.0], size=6)
    out._replace_data(out.dense_data())
    _scatter(out)
    _scatter(out)
    assert out.to_dense(fill=-9).tolist() == [1.0, 11.0, 1.0, -2.0, -9.0, -9.0]


def _masked_dense(out: gb.Vector, scale: float = 1.0) -> None:
    """``out<t < 0> = t`` with a dense T with holes (the SSSP update ``d<b> = t``)."""
    t = _vec({1: -5.0 * scale, 3: 2.0, 4: -1.0 * scale}, 6, np.float64, dense=True)
    b = gb.ewise_mult(t, gb.Vector.from_dense(np.zeros(6)), "lt")
    gb.apply(t, "identity", mask=b.V, out=out)


def test_masked_dense_writeback_in_place_when_out_owns_its_arrays():
    out = _full()
    _masked_dense(out)
    vid = id(out._data.values)
    _masked_dense(out, 2.0)
    assert id(out._data.values) == vid and out._data.present is None
    assert out.to_dense().tolist() == [0.0, -10.0, 2.0, 3.0, -2.0, 5.0]


def test_masked_dense_writeback_leaves_shared_storage_alone():
    out = _full()
    _masked_dense(out)
    other = gb.Vector(out._data, out.dtype, out.device)
    view = out.to_dense(copy=False)[:2]
    arr = np.arange(6, dtype=np.float64)
    built = gb.Vector.from_dense(arr)
    _masked_dense(out, 2.0)
    _masked_dense(built, 2.0)
    assert out.to_dense().tolist() == [0.0, -10.0, 2.0, 3.0, -2.0, 5.0]
    assert other.to_dense().tolist() == [0.0, -5.0, 2.0, 3.0, -1.0, 5.0]
    assert view.tolist() == [0.0, -5.0]
    assert arr.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert built.to_dense().tolist() == [0.0, -10.0, 2.0, 3.0, -2.0, 5.0]


def test_masked_dense_writeback_deletes_where_the_mask_allows_and_t_has_none():
    out = _full()
    t = _vec({1: 9.0}, 6, np.float64, dense=True)
    m = gb.Vector.from_coo([1, 2], [True, True], size=6)
    gb.apply(t, "identity", mask=m.S, out=out)
    assert out.to_dense(fill=-1).tolist() == [0.0, 9.0, -1.0, 3.0, 4.0, 5.0]


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 12).flatmap(lambda n: st.tuples(
    st.just(n), st.dictionaries(st.integers(0, n - 1), st.integers(-3, 3)), st.booleans(),
    st.sampled_from(["abs", "ainv", "identity", "times", "minus", "lt"]))))
def test_apply_on_every_storage(case):
    """apply maps the entries only, whatever the storage (a dense Vector's holes hold
    junk that the dense path may compute on but never shows)."""
    n, a, dense, op = case
    u = _vec(a, n, np.int64, dense)
    unary = {"abs": abs, "ainv": lambda x: -x, "identity": lambda x: x}
    binary = {"times": lambda x: x * 3, "minus": lambda x: x - 3, "lt": lambda x: x < 3}
    got = gb.apply(u, op) if op in unary else gb.apply(u, op, right=3)
    f = unary.get(op) or binary[op]
    assert dict(zip(*(t.tolist() for t in got.to_coo()))) == {k: f(x) for k, x in a.items()}
