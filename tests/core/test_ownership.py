"""Explicit ownership of a Vector's storage (``Vector.owns_storage``).

The write-back updates ``out``'s arrays in place only when ``out`` owns them; a Vector
whose arrays came from the user (``from_dense(a, copy=False)``), were handed out
(``to_dense(copy=False)``) or are shared with another Vector (a kernel that passes an
operand's array through, a Vector built over another's storage) writes into copies.

Random sequences of operations with ``out=`` aliasing the inputs or the mask, masks over
the outputs, user arrays and views kept across the sequence are checked against a dict
model of the GraphBLAS rules; after every step no two Vectors that share memory may
own it, and no user array or handed-out view may change.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas.backends.registry import VecData

N = 6


# ------------------------------------------------------------------ the dict model
def _model(v: gb.Vector) -> dict:
    i, x = v.to_coo()
    return dict(zip(i.tolist(), x.tolist()))


def _allow(mask_model: dict, structural: bool, complement: bool, i: int) -> bool:
    hit = i in mask_model and (structural or bool(mask_model[i]))
    return hit != complement


def _writeback(out: dict, T: dict, mask, accum: bool, replace: bool) -> dict:
    Z = dict(T)
    if accum:
        Z = dict(out)
        for k, t in T.items():
            Z[k] = out[k] + t if k in out else t
    new = {}
    for i in range(N):
        if mask is None or _allow(*mask, i):
            if i in Z:
                new[i] = Z[i]
        elif not replace and i in out:
            new[i] = out[i]
    return new


# ------------------------------------------------------------------ the pool
class Pool:
    """Vectors, their models, the user arrays they were built over and the views handed
    out, each with the values it must keep."""

    def __init__(self) -> None:
        self.vecs: list[gb.Vector] = []
        self.models: list[dict] = []
        self.kept: list[tuple[np.ndarray, np.ndarray]] = []

    def add(self, v: gb.Vector) -> None:
        self.vecs.append(v)
        self.models.append(_model(v))

    def keep(self, arr: np.ndarray) -> None:
        self.kept.append((arr, arr.copy()))

    def check(self) -> None:
        for v, m in zip(self.vecs, self.models):
            assert _model(v) == m
        for arr, snap in self.kept:
            assert np.array_equal(arr, snap), "a user array or handed-out view changed"
        arrays = [[a for a in (v._data.indices, v._data.values, v._data.present)
                   if a is not None] for v in self.vecs]
        for i, v in enumerate(self.vecs):
            if not v.owns_storage:
                continue
            for j, others in enumerate(arrays):
                if j != i:
                    assert not any(np.shares_memory(a, b)
                                   for a in arrays[i] for b in others), \
                        "a Vector owns memory another Vector holds"
            for arr, _ in self.kept:
                assert not any(np.shares_memory(a, arr) for a in arrays[i]), \
                    "a Vector owns memory a user array or view holds"


values = st.integers(-3, 3).map(float)


@st.composite
def vector_spec(draw):
    entries = draw(st.dictionaries(st.integers(0, N - 1), values))
    how = draw(st.sampled_from(["coo", "dense_copy", "dense_nocopy", "full", "present"]))
    return entries, how


def _build(pool: Pool, spec) -> None:
    entries, how = spec
    if how == "coo":
        pool.add(gb.Vector.from_coo(list(entries), list(entries.values()), size=N,
                                    dtype=np.float64))
        return
    arr = np.array([entries.get(i, 1.0) for i in range(N)])
    if how == "full":
        pool.add(gb.Vector.full(N, 2.0))
    elif how == "present":
        pres = np.array([i in entries for i in range(N)])
        pool.keep(arr)
        pool.keep(pres)
        pool.add(gb.Vector.from_dense(arr, present=pres, copy=False))
    else:
        pool.keep(arr)
        pool.add(gb.Vector.from_dense(arr, copy=(how == "dense_copy")))


@st.composite
def step(draw):
    kind = draw(st.sampled_from(["apply", "ainv", "add", "mult", "mxv", "share", "view",
                                 "wrap", "dup", "sparse_view"]))
    k = draw(st.integers(0, 30))  # indices into the pool, modulo its size
    a, b, o, m = (draw(st.integers(0, 30)) for _ in range(4))
    mask = draw(st.sampled_from([None, (True, False), (False, False), (True, True),
                                 (False, True)]))
    accum = draw(st.booleans())
    replace = draw(st.booleans()) and mask is not None
    idx = draw(st.lists(st.integers(0, N - 1), max_size=N, unique=True))
    return kind, k, a, b, o, m, mask, accum, replace, idx


A_DENSE = np.array([[1.0 if (i + 2 * j) % 3 == 0 else 0.0 for j in range(N)]
                    for i in range(N)])


def _run(pool: Pool, st_) -> None:
    kind, k, a, b, o, m, mask, accum, replace, idx = st_
    n = len(pool.vecs)
    a, b, o, m, k = a % n, b % n, o % n, m % n, k % n
    if kind == "share":
        # a second Vector over the same storage (as a kernel passing an array through)
        v = pool.vecs[k]
        pool.add(gb.Vector(v._data, v.dtype, v.device))
        return
    if kind == "view":
        v = pool.vecs[k]
        if v.is_full:
            pool.keep(v.to_dense(copy=False))
        return
    if kind == "wrap":
        # the user's array of a view handed out, wrapped again without a copy
        v = pool.vecs[k]
        if v.is_full:
            view = v.to_dense(copy=False)
            pool.keep(view)
            pool.add(gb.Vector.from_dense(view, copy=False))
        return
    if kind == "dup":
        pool.add(pool.vecs[k].dup())
        return
    if kind == "sparse_view":
        v = pool.vecs[k]
        pool.add(gb.Vector(v.sparse_data(), v.dtype, v.device))
        return
    out, om = pool.vecs[o], pool.models[o]
    mk = None if mask is None else (pool.models[m], *mask)
    mobj = None
    if mask is not None:
        mv = pool.vecs[m]
        mobj = mv.S if mask[0] else mv.V
        if mask[1]:
            mobj = ~mobj
    ua, ub = pool.models[a], pool.models[b]
    if kind == "apply":
        T = dict(ua)
        gb.apply(pool.vecs[a], "identity", mask=mobj, accum="plus" if accum else None,
                 out=out, replace=replace)
    elif kind == "ainv":
        T = {i: -x for i, x in ua.items()}
        gb.apply(pool.vecs[a], "ainv", mask=mobj, accum="plus" if accum else None,
                 out=out, replace=replace)
    elif kind == "add":
        T = {i: ua.get(i, 0.0) + ub.get(i, 0.0) for i in set(ua) | set(ub)}
        gb.ewise_add(pool.vecs[a], pool.vecs[b], "plus", mask=mobj,
                     accum="plus" if accum else None, out=out, replace=replace)
    elif kind == "mult":
        T = {i: ua[i] * ub[i] for i in set(ua) & set(ub)}
        gb.ewise_mult(pool.vecs[a], pool.vecs[b], "times", mask=mobj,
                      accum="plus" if accum else None, out=out, replace=replace)
    else:  # mxv over a fixed pattern, x = pool[a]
        rows, cols = np.nonzero(A_DENSE)
        A = gb.Matrix.from_coo(rows, cols, A_DENSE[rows, cols], shape=(N, N))
        T = {}
        for i, j in zip(rows.tolist(), cols.tolist()):
            if j in ua:
                T[i] = T.get(i, 0.0) + A_DENSE[i, j] * ua[j]
        gb.mxv(A, pool.vecs[a], "plus_times", mask=mobj, accum="plus" if accum else None,
               out=out, replace=replace)
    pool.models[o] = _writeback(om, T, mk, accum, replace)


@settings(max_examples=150, deadline=None)
@given(st.lists(vector_spec(), min_size=1, max_size=4), st.lists(step(), max_size=14))
def test_random_sequences_match_the_model_and_never_write_shared_memory(specs, steps):
    pool = Pool()
    for s in specs:
        _build(pool, s)
    pool.check()
    for s in steps:
        _run(pool, s)
        pool.check()


# ------------------------------------------------------------------ deterministic cases
def _scatter(out: gb.Vector, value: float = 1.0) -> None:
    t = gb.Vector.from_coo([1, 3], [value, value], size=N)
    gb.apply(t, "identity", accum="plus", out=out)


def test_an_owned_vector_is_written_in_place():
    v = gb.Vector.full(N, 0.0)
    assert v.owns_storage
    vals = v._data.values
    _scatter(v)
    _scatter(v)
    assert v._data.values is vals
    assert v.to_dense().tolist() == [0.0, 2.0, 0.0, 2.0, 0.0, 0.0]


def test_a_user_array_is_copied_once_then_the_copy_is_written_in_place():
    arr = np.zeros(N)
    v = gb.Vector.from_dense(arr, copy=False)
    assert not v.owns_storage and v._data.values is arr
    _scatter(v)
    assert v.owns_storage and v._data.values is not arr
    copy = v._data.values
    _scatter(v)
    assert v._data.values is copy
    assert arr.tolist() == [0.0] * N
    assert v.to_dense().tolist() == [0.0, 2.0, 0.0, 2.0, 0.0, 0.0]


def test_from_dense_copies_unless_asked_and_where_it_must():
    arr = np.arange(N, dtype=np.float64)
    assert gb.Vector.from_dense(arr)._data.values is not arr
    assert gb.Vector.from_dense(arr, copy=False)._data.values is arr
    # another dtype or a strided view cannot be used as it is: a copy, owned
    v = gb.Vector.from_dense(arr, dtype=np.float32, copy=False)
    assert v.owns_storage and v.dtype == np.float32
    w = gb.Vector.from_dense(arr[::2], copy=False)
    assert w.owns_storage and w.to_dense().tolist() == [0.0, 2.0, 4.0]


def test_a_view_handed_out_keeps_its_values_and_is_read_only():
    v = gb.Vector.full(N, 1.0)
    view = v.to_dense(copy=False)
    assert not view.flags.writeable and not v.owns_storage
    _scatter(v)
    assert view.tolist() == [1.0] * N
    assert v.to_dense().tolist() == [1.0, 2.0, 1.0, 2.0, 1.0, 1.0]
    # a Vector with holes hands out a copy and keeps its ownership
    w = gb.Vector.from_coo([1], [5.0], size=3)
    w._replace_data(w.dense_data(), owned=True)
    assert w.to_dense(copy=False).flags.writeable and w.owns_storage


def test_a_vector_built_over_anothers_storage_ends_its_ownership():
    v = gb.Vector.full(N, 1.0)
    w = gb.Vector(v._data, v.dtype)
    assert not v.owns_storage and not w.owns_storage
    _scatter(v)
    assert w.to_dense().tolist() == [1.0] * N
    # a view of the storage (a kernel's slice) counts as the storage
    u = gb.Vector.full(N, 1.0)
    half = VecData(3, None, u._data.values[:3], None)
    h = gb.Vector(half, u.dtype)
    assert not u.owns_storage
    _scatter(u)
    assert h.to_dense().tolist() == [1.0, 1.0, 1.0]


def test_a_passed_through_result_does_not_see_later_writes():
    """Whatever an operation returns over its operand's arrays, a later write into the
    operand leaves the result alone."""
    for op in ("identity", "ainv"):
        v = gb.Vector.full(N, 1.0)
        r = gb.apply(v, op)
        before = r.to_dense().copy()
        _scatter(v)
        assert r.to_dense().tolist() == before.tolist()
    v = gb.Vector.full(N, 1.0)
    r = gb.select(v, "valuegt", 0.0)
    _scatter(v)
    assert r.to_dense().tolist() == [1.0] * N


def test_out_aliasing_its_input_and_its_mask():
    v = gb.Vector.from_dense([1.0, -2.0, 3.0, 0.0, 5.0, -6.0])
    gb.apply(v, "ainv", mask=v.V, accum="plus", out=v)
    assert v.to_dense().tolist() == [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    w = gb.Vector.from_coo([0, 2], [1.0, 2.0], size=N)
    gb.ewise_add(w, w, "plus", mask=~w.S, out=w)  # the mask allows none of T's entries
    assert _model(w) == {0: 1.0, 2: 2.0}
    gb.ewise_add(w, w, "plus", mask=w.S, out=w, replace=True)
    assert _model(w) == {0: 2.0, 2: 4.0}


def test_the_registry_forgets_dead_owners():
    from gblas.core import vector as vm

    for _ in range(3000):  # ~3 owned arrays each
        v = gb.Vector.full(N, 1.0)
        _scatter(v)
    assert len(vm._OWNERS) <= 2 * max(1024, vm._sweep_at)
    assert len(vm._OWNERS) < 3000
