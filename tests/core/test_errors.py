"""Bad input raises the right exception, names the call and the argument, leaves ``out`` alone.

Every case builds a valid ``out`` (where the call takes one), snapshots it, makes the bad
call and checks: the exception class, a message starting with ``"<call>: argument `<arg>`"``
where ``<arg>`` is a real parameter of the function, and ``out`` unchanged.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

import gblas as gb
from gblas.exceptions import (
    DimensionMismatch,
    DomainMismatch,
    GraphBLASError,
    IndexOutOfBound,
    InvalidObject,
    InvalidValue,
    NoKernel,
)
from gblas.testing import assert_equal, to_reference


def A34(dtype="float64"):
    return gb.Matrix.from_coo([0, 1, 2, 2], [0, 3, 1, 2], np.array([1, 2, 3, 4], dtype=dtype),
                              shape=(3, 4))


def vec(n, dtype="float64"):
    return gb.Vector.from_dense(np.arange(1, n + 1).astype(dtype))


def out3(dtype="float64"):
    return gb.Vector.from_coo([0, 2], np.array([7, 9], dtype=dtype), size=3)


@dataclass
class Case:
    """A bad call: ``make()`` returns (func, args, kwargs, out-or-None)."""

    id: str
    make: Callable
    exc: type
    call: str
    arg: str
    contains: str = ""


def _mxv_bad_x():
    o = out3()
    return gb.mxv, (A34(), vec(5)), {"out": o}, o


def _mxv_bad_mask():
    o = out3()
    m = gb.Vector.from_dense(np.ones(4, bool))
    return gb.mxv, (A34(), vec(4)), {"out": o, "mask": m.S}, o


def _mxv_matrix_mask():
    o = out3()
    m = gb.Matrix.from_coo([0], [0], [True], shape=(3, 1))
    return gb.mxv, (A34(), vec(4)), {"out": o, "mask": m.S, "accum": "plus"}, o


def _mxv_bare_mask():
    o = out3()
    return gb.mxv, (A34(), vec(4)), {"out": o, "mask": gb.Vector.from_dense(np.ones(3, bool))}, o


def _mxv_bad_out_shape():
    o = vec(4)
    return gb.mxv, (A34(), vec(4)), {"out": o}, o


def _mxv_out_kind():
    o = A34()
    return gb.mxv, (A34(), vec(4)), {"out": o}, o


def _mxv_unknown_semiring():
    o = out3()
    return gb.mxv, (A34(), vec(4), "plus_tmies"), {"out": o}, o


def _mxv_semiring_type():
    o = out3()
    return gb.mxv, (A34(), vec(4), 42), {"out": o}, o


def _mxv_div_on_ints():
    o = out3("int64")
    return gb.mxv, (A34("int64"), vec(4, "int64"), "plus_div"), {"out": o}, o


def _mxv_x_not_vector():
    o = out3()
    return gb.mxv, (A34(), np.ones(4)), {"out": o}, o


def _mxv_A_not_matrix():
    o = out3()
    return gb.mxv, (A34().to_scipy(), vec(4)), {"out": o}, o


def _mxv_bad_accum_name():
    o = out3()
    return gb.mxv, (A34(), vec(4)), {"out": o, "accum": "plsu"}, o


def _mxv_bad_accum_type():
    o = out3()
    return gb.mxv, (A34(), vec(4)), {"out": o, "accum": 3.5}, o


def _mxv_div_accum_on_ints():
    o = out3("int64")
    return gb.mxv, (A34("int64"), vec(4, "int64")), {"out": o, "accum": "div"}, o


def _mxv_bad_replace():
    o = out3()
    return gb.mxv, (A34(), vec(4)), {"out": o, "replace": "yes"}, o


def _vxm_bad_u():
    o = vec(4)
    return gb.vxm, (vec(4), A34()), {"out": o}, o


def _mxm_bad_B():
    o = gb.Matrix.from_coo([0], [0], [1.0], shape=(3, 3))
    return gb.mxm, (A34(), A34().T.T), {"out": o}, o


def _mxm_bad_mask():
    o = gb.Matrix.from_coo([0], [0], [1.0], shape=(3, 3))
    m = gb.Matrix.from_coo([0], [0], [True], shape=(3, 4))
    return gb.mxm, (A34(), A34().T), {"out": o, "mask": m.S}, o


def _ewise_shape():
    o = out3()
    return gb.ewise_add, (out3(), vec(4)), {"out": o}, o


def _ewise_kinds():
    o = out3()
    return gb.ewise_mult, (out3(), A34()), {"out": o}, o


def _ewise_unknown_op():
    o = out3()
    return gb.ewise_add, (out3(), vec(3), "plsu"), {"out": o}, o


def _ewise_div_ints():
    o = out3("int64")
    return gb.ewise_mult, (out3("int64"), vec(3, "int64"), "div"), {"out": o}, o


def _apply_sqrt_ints():
    o = out3("int64")
    return gb.apply, (out3("int64"), "sqrt"), {"out": o}, o


def _apply_unknown_op():
    o = out3()
    return gb.apply, (out3(), "absolute_value"), {"out": o}, o


def _apply_left_right():
    o = out3()
    return gb.apply, (out3(), "plus"), {"left": 1, "right": 2, "out": o}, o


def _apply_right_not_scalar():
    o = out3()
    return gb.apply, (out3(), "plus"), {"right": np.ones(3), "out": o}, o


def _select_unknown():
    o = out3()
    return gb.select, (out3(), "valuebig", 1), {"out": o}, o


def _select_no_thunk():
    o = out3()
    return gb.select, (out3(), "valuegt"), {"out": o}, o


def _reduce_unknown_monoid():
    return gb.reduce, (out3(), "plsu"), {}, None


def _reduce_bad_axis():
    o = out3()
    return gb.reduce, (A34(),), {"axis": 2, "out": o}, o


def _reduce_axis_out_shape():
    o = vec(4)
    return gb.reduce, (A34(),), {"axis": "rows", "out": o}, o


def _extract_out_of_range():
    o = vec(2)
    return gb.extract, (vec(5), [1, 5]), {"out": o}, o


def _extract_rows_out_of_range():
    return gb.extract, (A34(), [0, 3], None), {}, None


def _extract_float_indices():
    return gb.extract, (vec(5), [0.5]), {}, None


def _assign_out_of_range():
    o = vec(5)
    return gb.assign, (o, 1.0, [0, 9]), {}, o


def _assign_value_shape():
    o = vec(5)
    return gb.assign, (o, vec(3), [0, 1]), {}, o


def _assign_mask_shape():
    o = vec(5)
    m = gb.Vector.from_dense(np.ones(2, bool))
    return gb.assign, (o, 1.0, [0, 1]), {"mask": m.S}, o


def _assign_matrix_cols():
    o = A34()
    return gb.assign, (o, 0.0, [0], [4]), {}, o


def _assign_bad_accum():
    o = vec(5)
    return gb.assign, (o, 1.0, [0]), {"accum": "plsu"}, o


def _transpose_out_shape():
    o = A34()
    return gb.transpose, (A34(),), {"out": o}, o


def _from_coo_index():
    return gb.Vector.from_coo, ([0, 3], [1.0, 2.0], 3), {}, None


def _from_coo_negative():
    return gb.Matrix.from_coo, ([0, -1], [0, 0], [1.0, 2.0], (2, 2)), {}, None


def _from_coo_values_len():
    return gb.Vector.from_coo, ([0, 1], [1.0], 3), {}, None


def _from_dense_dtype():
    return gb.Vector.from_dense, (np.array([1 + 2j]),), {}, None


def _from_coo_dtype():
    return gb.Matrix.from_coo, ([0], [0], np.array(["x"]), (1, 1)), {}, None


def _empty_bad_size():
    return gb.Vector.empty, (-1,), {}, None


def _dup_none():
    return gb.Vector.from_coo, ([1, 1], [1.0, 2.0], 3), {"dup_op": None}, None


def _mxm_dot_no_mask():
    def run(A, B):
        with gb.config(mxm_method="dot"):
            return gb.mxm(A, B)

    return run, (A34(), A34().T), {}, None


def _config_direction():
    return gb.config, (), {"direction": "sideways"}, None


def _to_bad_device():
    return A34().to, ("tpu",), {}, None


CASES = [
    Case("mxv-x-size", _mxv_bad_x, DimensionMismatch, "mxv", "x"),
    Case("mxv-mask-shape", _mxv_bad_mask, DimensionMismatch, "mxv", "mask"),
    Case("mxv-matrix-mask", _mxv_matrix_mask, DimensionMismatch, "mxv", "mask"),
    Case("mxv-bare-mask", _mxv_bare_mask, InvalidObject, "mxv", "mask", ".S"),
    Case("mxv-out-shape", _mxv_bad_out_shape, DimensionMismatch, "mxv", "out"),
    Case("mxv-out-kind", _mxv_out_kind, InvalidObject, "mxv", "out"),
    Case("mxv-unknown-semiring", _mxv_unknown_semiring, InvalidValue, "mxv", "semiring",
         "Did you mean 'plus_times'"),
    Case("mxv-semiring-type", _mxv_semiring_type, InvalidObject, "mxv", "semiring"),
    Case("mxv-div-on-ints", _mxv_div_on_ints, DomainMismatch, "mxv", "semiring", "int64"),
    Case("mxv-x-not-vector", _mxv_x_not_vector, InvalidObject, "mxv", "x"),
    Case("mxv-A-not-matrix", _mxv_A_not_matrix, InvalidObject, "mxv", "A"),
    Case("mxv-accum-name", _mxv_bad_accum_name, InvalidValue, "mxv", "accum",
         "Did you mean 'plus'"),
    Case("mxv-accum-type", _mxv_bad_accum_type, InvalidObject, "mxv", "accum"),
    Case("mxv-div-accum-ints", _mxv_div_accum_on_ints, DomainMismatch, "mxv", "accum"),
    Case("mxv-replace", _mxv_bad_replace, InvalidValue, "mxv", "replace"),
    Case("vxm-u-size", _vxm_bad_u, DimensionMismatch, "vxm", "u"),
    Case("mxm-B-shape", _mxm_bad_B, DimensionMismatch, "mxm", "B"),
    Case("mxm-mask-shape", _mxm_bad_mask, DimensionMismatch, "mxm", "mask"),
    Case("ewise-shape", _ewise_shape, DimensionMismatch, "ewise_add", "v"),
    Case("ewise-kinds", _ewise_kinds, InvalidObject, "ewise_mult", "v"),
    Case("ewise-unknown-op", _ewise_unknown_op, InvalidValue, "ewise_add", "op",
         "Did you mean 'plus'"),
    Case("ewise-div-ints", _ewise_div_ints, DomainMismatch, "ewise_mult", "op"),
    Case("apply-sqrt-ints", _apply_sqrt_ints, DomainMismatch, "apply", "op"),
    Case("apply-unknown-op", _apply_unknown_op, InvalidValue, "apply", "op"),
    Case("apply-left-and-right", _apply_left_right, InvalidValue, "apply", "left"),
    Case("apply-right-array", _apply_right_not_scalar, InvalidValue, "apply", "right"),
    Case("select-unknown-op", _select_unknown, InvalidValue, "select", "op"),
    Case("select-no-thunk", _select_no_thunk, InvalidValue, "select", "thunk"),
    Case("reduce-unknown-monoid", _reduce_unknown_monoid, InvalidValue, "reduce", "monoid",
         "Did you mean 'plus'"),
    Case("reduce-bad-axis", _reduce_bad_axis, InvalidValue, "reduce", "axis"),
    Case("reduce-axis-out-shape", _reduce_axis_out_shape, DimensionMismatch, "reduce", "out"),
    Case("extract-index", _extract_out_of_range, IndexOutOfBound, "extract", "indices", "5"),
    Case("extract-rows", _extract_rows_out_of_range, IndexOutOfBound, "extract", "indices"),
    Case("extract-float-index", _extract_float_indices, InvalidValue, "extract", "indices"),
    Case("assign-index", _assign_out_of_range, IndexOutOfBound, "assign", "indices", "9"),
    Case("assign-value-shape", _assign_value_shape, DimensionMismatch, "assign", "value"),
    Case("assign-mask-shape", _assign_mask_shape, DimensionMismatch, "assign", "mask"),
    Case("assign-cols", _assign_matrix_cols, IndexOutOfBound, "assign", "cols"),
    Case("assign-accum", _assign_bad_accum, InvalidValue, "assign", "accum"),
    Case("transpose-out-shape", _transpose_out_shape, DimensionMismatch, "transpose", "out"),
    Case("from-coo-index", _from_coo_index, IndexOutOfBound, "Vector.from_coo", "indices"),
    Case("from-coo-negative", _from_coo_negative, IndexOutOfBound, "Matrix.from_coo", "rows"),
    Case("from-coo-values", _from_coo_values_len, DimensionMismatch, "Vector.from_coo",
         "values"),
    Case("from-dense-complex", _from_dense_dtype, DomainMismatch, "Vector.from_dense", "dtype",
         "complex128"),
    Case("from-coo-strings", _from_coo_dtype, DomainMismatch, "Matrix.from_coo", "dtype"),
    Case("empty-size", _empty_bad_size, InvalidValue, "Vector.empty", "size"),
    Case("dup-op-none", _dup_none, InvalidValue, "Vector.from_coo", "indices", "duplicates"),
    Case("config-direction", _config_direction, InvalidValue, "config", "direction"),
    Case("to-device", _to_bad_device, InvalidValue, "Matrix.to", "device"),
]


def _parameters(func) -> set:
    try:
        return set(inspect.signature(func).parameters)
    except (TypeError, ValueError):  # pragma: no cover
        return set()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_bad_input(case):
    func, args, kwargs, out = case.make()
    before = None if out is None else to_reference(out)
    with pytest.raises(case.exc) as info:
        func(*args, **kwargs)
    msg = str(info.value)
    assert isinstance(info.value, GraphBLASError)
    prefix = f"{case.call}: argument `{case.arg}`"
    assert msg.startswith(prefix), f"message should start with {prefix!r}: {msg!r}"
    assert "expected" in msg and "got" in msg, msg
    if case.contains:
        assert case.contains in msg, msg
    # the named argument is a real parameter of the public function
    target = {"mxv": gb.mxv, "vxm": gb.vxm, "mxm": gb.mxm, "ewise_add": gb.ewise_add,
              "ewise_mult": gb.ewise_mult, "apply": gb.apply, "select": gb.select,
              "reduce": gb.reduce, "extract": gb.extract, "assign": gb.assign,
              "transpose": gb.transpose, "Vector.from_coo": gb.Vector.from_coo,
              "Matrix.from_coo": gb.Matrix.from_coo, "Vector.from_dense": gb.Vector.from_dense,
              "Vector.empty": gb.Vector.empty}.get(case.call)
    if target is not None:
        params = _parameters(target)
        assert case.arg in params, f"{case.call} has no parameter {case.arg!r}: {sorted(params)}"
    if out is not None:
        assert_equal(out, before)


def test_exception_hierarchy():
    # each error is also the matching builtin, so generic handlers catch them
    assert issubclass(DimensionMismatch, ValueError)
    assert issubclass(DomainMismatch, TypeError)
    assert issubclass(IndexOutOfBound, IndexError)
    assert issubclass(InvalidObject, TypeError)
    assert issubclass(NoKernel, NotImplementedError)


def test_mxm_dot_without_mask_is_refused():
    func, args, kwargs, _ = _mxm_dot_no_mask()
    with pytest.raises(NoKernel, match="mxm: .*mask"):
        func(*args, **kwargs)


def test_error_mid_call_leaves_matrix_out_unchanged():
    o = gb.Matrix.from_coo([0, 2], [1, 0], [5.0, 6.0], shape=(3, 3))
    before = to_reference(o)
    with pytest.raises(InvalidValue):
        gb.mxm(A34(), A34().T, "plus_times", out=o, accum="nope")
    with pytest.raises(DimensionMismatch):
        gb.ewise_add(o, A34(), out=o)
    assert_equal(o, before)


@pytest.mark.gpu
@pytest.mark.parametrize("which", ["x", "A", "mask", "out"])
def test_operands_on_different_devices(which):
    A, x, o = A34(), vec(4), out3()
    m = gb.Vector.from_dense(np.ones(3, bool))
    objs = {"A": A, "x": x, "mask": m, "out": o}
    objs[which] = objs[which].to("gpu")
    out = objs["out"]
    before = to_reference(out)
    with pytest.raises(InvalidValue) as info:
        gb.mxv(objs["A"], objs["x"], mask=objs["mask"].S, out=out)
    msg = str(info.value)
    assert msg.startswith("mxv: argument `"), msg
    assert "gpu" in msg and "cpu" in msg and ".to(" in msg
    assert_equal(out, before)
