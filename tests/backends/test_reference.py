"""The reference oracle against hand-computed examples (no core needed)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gblas.backends import reference as ref
from gblas.backends.reference import AnyOf, RefMask, RefMatrix, RefVector
from gblas.semirings.builtin import BINARY, MONOIDS, UNARY
from gblas.testing import assert_equal, assert_scalar_equal

I8, U8, I64, U64 = (np.dtype(t) for t in ("int8", "uint8", "int64", "uint64"))
F32, F64, B = np.dtype("float32"), np.dtype("float64"), np.dtype("bool")


def vec(size, data, dt="int64"):
    return RefVector.from_dict(size, data, dt)


def mat(shape, data, dt="int64"):
    return RefMatrix.from_dict(shape, data, dt)


def same(actual, expected):
    """Exact equality of data, dtype and shape (the oracle against hand values)."""
    assert_equal(actual, expected, rtol=0, atol=0)


# ------------------------------------------------------------------------- scalars


@pytest.mark.parametrize(
    "value, dt, expected",
    [
        (300, U8, 44),
        (-1, U8, 255),
        (128, I8, -128),
        (-129, I8, 127),
        (2**64 + 5, U64, 5),
        (2**63, I64, -(2**63)),
        (2.9, I8, 2),
        (-2.9, I8, -2),
        (3, B, True),
        (0.0, B, False),
        (float("nan"), B, True),
        (True, F32, 1.0),
    ],
)
def test_cast(value, dt, expected):
    got = ref.cast(value, dt)
    assert got.dtype == dt
    assert got == expected


def test_cast_float32_rounds():
    got = ref.cast(0.1, F32)
    assert got == np.float32(0.1) and got.dtype == F32


def test_cast_nonfinite_to_int_is_refused():
    with pytest.raises(ValueError, match="non-finite"):
        ref.cast(float("inf"), I64)


@pytest.mark.parametrize(
    "op, a, b, dt, expected",
    [
        ("plus", 100, 100, I8, -56),
        ("times", 16, 16, U8, 0),
        ("minus", 0, 1, U8, 255),
        ("minus", -128, 1, I8, 127),
        ("times", 2**62, 4, I64, 0),
        ("plus", True, True, B, True),
        ("minus", False, True, B, True),
        ("lor", 0, 5, I8, True),
        ("land", 0, 5, I8, False),
        ("lxor", 3, 5, I64, False),
        ("first", 3, 5, I64, 3),
        ("second", 3, 5, I64, 5),
        ("pair", 3, 5, F64, 1.0),
        ("min", -3, 5, I64, -3),
        ("max", -3, 5, U8, 253),  # -3 is 253 in uint8
        ("max", -3, 5, I8, 5),
        ("lt", 2, 3, I64, True),
        ("ge", 2, 3, I64, False),
        ("div", 1.0, 4.0, F64, 0.25),
        ("div", 1.0, 0.0, F64, math.inf),
    ],
)
def test_eval_binary(op, a, b, dt, expected):
    got = ref.eval_binary(BINARY[op], ref.cast(a, dt), ref.cast(b, dt), dt)
    assert got.dtype == BINARY[op].output_dtype(dt)
    assert got == expected


def test_float32_rounds_after_every_step():
    big = np.float32(2**24)
    one = np.float32(1)
    got = ref.eval_binary(BINARY["plus"], big, one, F32)
    assert got == big  # 2**24 + 1 is not a float32
    assert ref.monoid_fold(MONOIDS["plus"], [big, one, one], F32) == big
    # float64 keeps it
    assert ref.monoid_fold(MONOIDS["plus"], [2.0**24, 1.0, 1.0], F64) == 2.0**24 + 2


def test_min_max_ignore_nan():
    nan = np.float64("nan")
    assert ref.eval_binary(BINARY["min"], nan, np.float64(2), F64) == 2
    assert ref.eval_binary(BINARY["max"], np.float64(2), nan, F64) == 2
    assert math.isnan(ref.eval_binary(BINARY["plus"], nan, np.float64(2), F64))
    assert ref.eval_binary(BINARY["lor"], nan, np.float64(0), F64)  # NaN != 0


def test_any_operator_gives_candidates():
    got = ref.eval_binary(BINARY["any"], np.int64(3), np.int64(4), I64)
    assert isinstance(got, AnyOf) and set(got.values) == {3, 4}
    assert ref.eval_binary(BINARY["any"], np.int64(3), np.int64(3), I64) == 3
    # candidates flow through later operators
    lifted = ref.eval_binary(BINARY["plus"], got, np.int64(10), I64)
    assert set(lifted.values) == {13, 14}
    assert ref.cast(AnyOf([1.5, 2.5]), I8) == AnyOf([np.int8(1), np.int8(2)])


@pytest.mark.parametrize(
    "op, x, dt, expected",
    [
        ("ainv", -128, I8, -128),
        ("ainv", 1, U8, 255),
        ("abs", -5, I64, 5),
        ("abs", -128, I8, -128),
        ("lnot", 0, I64, True),
        ("lnot", 7, I64, False),
        ("one", 7, F32, 1.0),
        ("minv", 4.0, F64, 0.25),
        ("sqrt", 9.0, F32, 3.0),
        ("identity", 200, U8, 200),
    ],
)
def test_eval_unary(op, x, dt, expected):
    got = ref.eval_unary(UNARY[op], ref.cast(x, dt), dt)
    assert got.dtype == UNARY[op].output_dtype(dt)
    assert got == expected


def test_monoid_fold():
    vals = [np.int8(100), np.int8(100), np.int8(60)]
    assert ref.monoid_fold(MONOIDS["plus"], vals, I8) == 4  # 260 wraps
    assert ref.monoid_fold(MONOIDS["min"], [], U8) == 255  # identity
    assert ref.monoid_fold(MONOIDS["max"], [], F64) == -math.inf
    assert ref.monoid_fold(MONOIDS["land"], [], I64) is np.True_
    anyv = ref.monoid_fold(MONOIDS["any"], vals, I8)
    assert anyv == AnyOf([np.int8(100), np.int8(60)])
    assert ref.monoid_fold(MONOIDS["lor"], [np.int64(0), np.int64(2)], I64) == True  # noqa: E712


def test_scalar_dtype():
    # NumPy 2 promotion: Python scalars are weak
    assert ref.scalar_dtype(3, I8) == I8
    assert ref.scalar_dtype(300, I8) == I8  # wraps when cast
    assert ref.scalar_dtype(3, F32) == F32
    assert ref.scalar_dtype(0.5, I64) == F64
    assert ref.scalar_dtype(np.float32(1), I64) == F32
    assert ref.scalar_dtype(True, I64) == I64
    assert ref.scalar_dtype(3, B) == I64
    assert ref.scalar_dtype(2.5) == F64


def test_anyof_accepts_with_tolerance():
    a = AnyOf([np.float64(1.0), np.float64("nan")])
    assert a.accepts(np.float64("nan"))
    assert a.accepts(1.0 + 1e-12, rtol=1e-9)
    assert not a.accepts(2.0)
    assert ref.any_of([np.int64(1), np.int64(1)]) == 1


# -------------------------------------------------------------------------- products

A3 = mat((3, 3), {(0, 0): 1, (0, 2): 2, (1, 1): 3, (1, 2): -4})  # row 2 empty
X3 = vec(3, {0: 10, 2: 5})


def test_mxv_plus_times():
    # y0 = 1*10 + 2*5 = 20; y1 = 3*(none) + -4*5 = -20; row 2 has no entry
    same(ref.mxv(A3, X3), vec(3, {0: 20, 1: -20}))


def test_mxv_min_plus_and_max_times():
    same(ref.mxv(A3, X3, "min_plus"), vec(3, {0: 7, 1: 1}))
    same(ref.mxv(A3, X3, "max_times"), vec(3, {0: 10, 1: -20}))


def test_mxv_computed_zero_is_an_entry():
    x = vec(3, {0: 2, 2: -1})
    A = mat((2, 3), {(0, 0): 1, (0, 2): 2})
    same(ref.mxv(A, x), vec(2, {0: 0}))


def test_mxv_any_semirings():
    same(ref.mxv(A3, X3, "any_pair"), vec(3, {0: 1, 1: 1}))
    got = ref.mxv(A3, X3, "any_second")
    assert got.data[0] == AnyOf([np.int64(10), np.int64(5)])
    assert got.data[1] == 5


def test_mxv_bool_semirings_and_type_casts():
    A = mat((2, 2), {(0, 0): 2, (0, 1): 0, (1, 1): 0}, "int8")
    x = vec(2, {0: 1, 1: 3}, "int8")
    same(ref.mxv(A, x, "lor_land"), vec(2, {0: True, 1: False}, "bool"))
    # plus_lor: M is bool, R = bool; bool plus saturates at True
    same(ref.mxv(A, x, "plus_lor"), vec(2, {0: True, 1: True}, "bool"))
    # lor_plus: M is int8, cast to bool before lor: 2+1=3 -> True, 0+3 -> True, 0+3 -> True
    same(ref.mxv(A, x, "lor_plus"), vec(2, {0: True, 1: True}, "bool"))


def test_mxv_mixed_dtypes_and_wrap():
    A = mat((1, 2), {(0, 0): 100, (0, 1): 100}, "int8")
    x = vec(2, {0: 2, 1: 1}, "int8")
    same(ref.mxv(A, x), vec(1, {0: 44}, "int8"))  # 200 -> -56, -56 + 100 = 44
    xf = vec(2, {0: 0.5, 1: 0.25}, "float32")
    same(ref.mxv(A, xf), vec(1, {0: 75.0}, "float32"))


def test_vxm_and_mxm():
    # vxm: y[j] = sum_k x[k] * A[k, j]
    same(ref.vxm(X3, A3), vec(3, {0: 10, 2: 20}))
    same(ref.vxm(X3, A3, "plus_first"), vec(3, {0: 10, 2: 10}))  # first = x value
    B = mat((3, 2), {(0, 0): 1, (2, 0): 1, (2, 1): 7})
    # C = A3 @ B: C00 = 1*1 + 2*1 = 3, C01 = 2*7 = 14, C10 = -4*1, C11 = -4*7
    same(ref.mxm(A3, B), mat((3, 2), {(0, 0): 3, (0, 1): 14, (1, 0): -4, (1, 1): -28}))
    same(ref.mxm(A3, B, "min_first"), mat((3, 2), {(0, 0): 1, (0, 1): 2, (1, 0): -4,
                                                   (1, 1): -4}))


def test_zero_size_products():
    A = mat((0, 3), {})
    same(ref.mxv(A, X3), vec(0, {}))
    same(ref.vxm(vec(0, {}), mat((0, 2), {})), vec(2, {}))
    same(ref.mxm(mat((2, 0), {}), mat((0, 2), {})), mat((2, 2), {}))


# ------------------------------------------------------------------------ write-back

OUT = vec(4, {0: 1, 1: 1, 2: 1})
T = vec(4, {1: 10, 3: 30})
MASKV = vec(4, {1: True, 2: False, 3: True}, "bool")


@pytest.mark.parametrize(
    "mask, accum, replace, expected",
    [
        (None, None, False, {1: 10, 3: 30}),
        (None, "plus", False, {0: 1, 1: 11, 2: 1, 3: 30}),
        (None, "second", False, {0: 1, 1: 10, 2: 1, 3: 30}),
        (RefMask(MASKV, True), None, False, {0: 1, 1: 10, 3: 30}),  # 2 in mask, T has none
        (RefMask(MASKV, True), None, True, {1: 10, 3: 30}),
        (RefMask(MASKV, False), None, False, {0: 1, 1: 10, 2: 1, 3: 30}),
        (RefMask(MASKV, False), None, True, {1: 10, 3: 30}),
        (RefMask(MASKV, False, True), None, False, {1: 1}),  # allows 0, 2: no T there
        (RefMask(MASKV, True, True), "plus", False, {0: 1, 1: 1, 2: 1}),
        (RefMask(MASKV, True, True), "plus", True, {0: 1}),
        (RefMask(MASKV, False), "min", False, {0: 1, 1: 1, 2: 1, 3: 30}),
    ],
)
def test_write_back_table(mask, accum, replace, expected):
    same(ref.write_back(OUT, T, mask=mask, accum=accum, replace=replace), vec(4, expected))


def test_write_back_casts_to_out_dtype():
    out = vec(2, {0: 100}, "int8")
    Tf = vec(2, {0: 2.5, 1: 300.75}, "float64")
    # accum in unify(int8, float64) = float64: 102.5 -> int8 102; 300.75 -> 300 -> 44
    same(ref.write_back(out, Tf, accum="plus"), vec(2, {0: 102, 1: 44}, "int8"))
    # accum with a bool-valued operator, then cast back
    same(ref.write_back(out, vec(2, {0: 200}, "int64"), accum="lt"), vec(2, {0: 1}, "int8"))


def test_write_back_does_not_modify_out():
    before = OUT.copy()
    ref.write_back(OUT, T, accum="plus")
    same(OUT, before)


def test_write_back_anyof_through_accum():
    out = vec(1, {0: 1})
    t = RefVector(1, I64, {0: AnyOf([np.int64(2), np.int64(3)])})
    got = ref.write_back(out, t, accum="plus")
    assert got.data[0] == AnyOf([np.int64(3), np.int64(4)])


def test_matrix_mask_and_new_output():
    M = mat((2, 2), {(0, 1): 1, (1, 0): 0})
    got = ref.mxm(mat((2, 2), {(0, 0): 1, (1, 1): 1}), mat((2, 2), {(0, 1): 5, (1, 0): 6}),
                  mask=RefMask(M, structural=False))
    same(got, mat((2, 2), {(0, 1): 5}))


# ---------------------------------------------------------------------- element-wise

U = vec(4, {0: 1, 1: 2, 3: -3}, "int8")
V = vec(4, {1: 0.5, 2: 4.0, 3: 1.5}, "float32")


def test_ewise_add_union():
    same(ref.ewise_add(U, V), vec(4, {0: 1, 1: 2.5, 2: 4, 3: -1.5}, "float32"))
    # minus: entries present in one operand are copied (not negated)
    same(ref.ewise_add(U, V, "minus"), vec(4, {0: 1, 1: 1.5, 2: 4, 3: -4.5}, "float32"))
    # a bool-valued op: one-sided values are cast to bool
    same(ref.ewise_add(U, V, "gt"), vec(4, {0: True, 1: True, 2: True, 3: False}, "bool"))


def test_ewise_mult_intersection():
    same(ref.ewise_mult(U, V), vec(4, {1: 1.0, 3: -4.5}, "float32"))
    same(ref.ewise_mult(U, V, "first"), vec(4, {1: 2, 3: -3}, "float32"))
    got = ref.ewise_mult(U, V, "any")
    assert got.data[1] == AnyOf([np.float32(2), np.float32(0.5)])


def test_ewise_on_matrices():
    A = mat((2, 2), {(0, 0): 1, (1, 1): 2})
    Bm = mat((2, 2), {(0, 0): 5, (0, 1): 7})
    same(ref.ewise_add(A, Bm, "max"), mat((2, 2), {(0, 0): 5, (0, 1): 7, (1, 1): 2}))
    same(ref.ewise_mult(A, Bm, "plus"), mat((2, 2), {(0, 0): 6}))


# ------------------------------------------------------------------- apply / select


def test_apply():
    same(ref.apply(U, "ainv"), vec(4, {0: -1, 1: -2, 3: 3}, "int8"))
    same(ref.apply(U, "lnot"), vec(4, {0: False, 1: False, 3: False}, "bool"))
    same(ref.apply(U, "minus", right=1), vec(4, {0: 0, 1: 1, 3: -4}, "int8"))
    same(ref.apply(U, "minus", left=1), vec(4, {0: 0, 1: -1, 3: 4}, "int8"))
    same(ref.apply(U, "times", right=0.5), vec(4, {0: 0.5, 1: 1.0, 3: -1.5}, "float64"))
    same(ref.apply(U, "gt", right=1), vec(4, {0: False, 1: True, 3: False}, "bool"))


M4 = mat((3, 3), {(0, 0): 1, (0, 2): 5, (1, 0): -2, (1, 1): 0, (2, 1): 7, (2, 2): 3})


@pytest.mark.parametrize(
    "op, thunk, keys",
    [
        ("tril", None, [(0, 0), (1, 0), (1, 1), (2, 1), (2, 2)]),
        ("tril", -1, [(1, 0), (2, 1)]),
        ("triu", None, [(0, 0), (0, 2), (1, 1), (2, 2)]),
        ("triu", 1, [(0, 2)]),
        ("diag", None, [(0, 0), (1, 1), (2, 2)]),
        ("diag", 2, [(0, 2)]),
        ("offdiag", None, [(0, 2), (1, 0), (2, 1)]),
        ("rowle", 0, [(0, 0), (0, 2)]),
        ("rowgt", 1, [(2, 1), (2, 2)]),
        ("colle", 0, [(0, 0), (1, 0)]),
        ("colgt", 1, [(0, 2), (2, 2)]),
        ("valueeq", 0, [(1, 1)]),
        ("valuene", 0, [(0, 0), (0, 2), (1, 0), (2, 1), (2, 2)]),
        ("valuegt", 3, [(0, 2), (2, 1)]),
        ("valuege", 3, [(0, 2), (2, 1), (2, 2)]),
        ("valuelt", 0, [(1, 0)]),
        ("valuele", 1, [(0, 0), (1, 0), (1, 1)]),
    ],
)
def test_select_matrix(op, thunk, keys):
    got = ref.select(M4, op, thunk)
    assert sorted(got.data) == keys
    assert all(got.data[k] == M4.data[k] for k in keys)


def test_select_vector_uses_the_index():
    v = vec(5, {0: 3, 2: 4, 4: 5})
    assert sorted(ref.select(v, "rowle", 2).data) == [0, 2]
    assert sorted(ref.select(v, "rowgt", 2).data) == [4]
    assert sorted(ref.select(v, "valuege", 4).data) == [2, 4]


# ----------------------------------------------------------------------- reduce


def test_reduce_scalar():
    assert_scalar_equal(ref.reduce(M4), np.int64(14), dtype=I64)
    assert ref.reduce(M4, "min") == -2
    assert ref.reduce(mat((2, 2), {}), "min") == np.iinfo(np.int64).max
    assert ref.reduce(vec(3, {}, "float32")) == 0 and ref.reduce(vec(3, {}, "float32")).dtype == F32
    assert ref.reduce(U, "any") == AnyOf([np.int8(1), np.int8(2), np.int8(-3)])
    assert ref.reduce(vec(2, {0: 100, 1: 100}, "int8")) == -56
    assert ref.reduce(vec(2, {0: 0, 1: 2}), "lor") == True  # noqa: E712


def test_reduce_axes():
    A = mat((3, 2), {(0, 0): 1, (0, 1): 2, (2, 1): 5})
    same(ref.reduce(A, axis="rows"), vec(3, {0: 3, 2: 5}))
    same(ref.reduce(A, axis=1), vec(3, {0: 3, 2: 5}))
    same(ref.reduce(A, "max", axis="columns"), vec(2, {0: 1, 1: 5}))
    same(ref.reduce(A, axis=0, accum="plus", out=vec(2, {0: 10})), vec(2, {0: 11, 1: 7}))


# ------------------------------------------------------------- extract / assign


def test_extract():
    v = vec(4, {1: 5, 3: 7})
    same(ref.extract(v, [3, 0, 1, 1]), vec(4, {0: 7, 2: 5, 3: 5}))
    same(ref.extract(v, None), v)
    same(ref.extract(M4, [2, 0], [2]), mat((2, 1), {(0, 0): 3, (1, 0): 5}))
    same(ref.extract(M4, None, [1]), mat((3, 1), {(1, 0): 0, (2, 0): 7}))
    same(ref.extract(M4, [], None), mat((0, 3), {}))


def test_assign_vector():
    out = vec(5, {0: 1, 1: 1, 4: 1})
    same(ref.assign(out, 9, [1, 2]), vec(5, {0: 1, 1: 9, 2: 9, 4: 1}))
    same(ref.assign(out, 9, [1, 2], accum="plus"), vec(5, {0: 1, 1: 10, 2: 9, 4: 1}))
    val = vec(2, {1: 5})
    same(ref.assign(out, val, [1, 2]), vec(5, {0: 1, 2: 5, 4: 1}))  # out[1] deleted
    same(ref.assign(out, val, [1, 2], accum="plus"), vec(5, {0: 1, 1: 1, 2: 5, 4: 1}))
    # the mask applies to the whole output: with replace, out[4] outside the mask goes
    mask = RefMask(vec(5, {0: 1, 1: 1, 2: 1}), True)
    same(ref.assign(out, 9, [1, 2], mask=mask, replace=True), vec(5, {0: 1, 1: 9, 2: 9}))
    same(ref.assign(out, 9, [1, 2], mask=~mask), out)


def test_assign_matrix():
    out = mat((2, 3), {(0, 0): 1, (1, 2): 2})
    same(ref.assign(out, 0, [1], [0, 2]), mat((2, 3), {(0, 0): 1, (1, 0): 0, (1, 2): 0}))
    val = mat((1, 2), {(0, 0): 4})
    same(ref.assign(out, val, [1], [0, 2]), mat((2, 3), {(0, 0): 1, (1, 0): 4}))
    same(ref.assign(out, 5, None, None, accum="plus"),
         mat((2, 3), {(i, j): 5 for i in range(2) for j in range(3)} | {(0, 0): 6, (1, 2): 7}))


def test_transpose():
    A = mat((2, 3), {(0, 2): 1, (1, 0): 2})
    same(ref.transpose(A), mat((3, 2), {(2, 0): 1, (0, 1): 2}))
    out = mat((3, 2), {(2, 0): 10, (1, 1): 4})
    same(ref.transpose(A, out=out, accum="plus"), mat((3, 2), {(2, 0): 11, (0, 1): 2,
                                                              (1, 1): 4}))


def test_assert_equal_diff_is_readable():
    with pytest.raises(AssertionError) as e:
        assert_equal(vec(3, {0: 1, 1: 2}), vec(3, {1: 3, 2: 4}))
    msg = str(e.value)
    assert "1 entry missing in actual" in msg and "1 unexpected entry" in msg
    assert "[0] expected <no entry>, got 1" in msg
    assert "[1] expected 3, got 2" in msg
    with pytest.raises(AssertionError, match="dtype: expected int8, got int64"):
        assert_equal(vec(1, {}), vec(1, {}, "int8"))
    with pytest.raises(AssertionError, match="shape mismatch"):
        assert_equal(vec(1, {}), vec(2, {}))
