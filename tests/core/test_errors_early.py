"""Bad input fails early, with a gblas error that names the call and says how to fix it.

Cases a hostile probe found: user operators Numba cannot compile (or that raise on every
path), operator definitions of the wrong kind, suggestions naming real modules, thread
counts, command-line arguments, indices reported after a wrapping cast, shapes that are
not pairs, ``reduce`` blaming the wrong argument, and algorithm inputs that used to
raise a raw Python error or iterate to ``max_iter``.  (``tests/core/test_errors.py`` covers
the operations' argument checks.)
"""

from __future__ import annotations

import builtins
import functools
import math
import operator

import numba
import numpy as np
import pytest

import gblas as gb
from gblas.cli import main
from gblas.core._check import check_shape
from gblas.exceptions import (
    CompileError,
    GraphBLASError,
    IndexOutOfBound,
    InvalidObject,
    InvalidValue,
    NoKernel,
)


def A3():
    return gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], shape=(3, 3))


def ones3():
    return gb.Vector.from_dense(np.ones(3))


class _NotNumba:
    pass


def _uses_object(a, b):
    return _NotNumba()


def _always_raises(a, b):
    raise ValueError("no value for you")


def _raises_on_big(a, b):
    if a > 2.5:
        raise ValueError("too big")
    return a * b


def _returns_none(a, b):
    return None


# ----------------------------------------------------------------- user operators


def test_uncompilable_operator_names_call_operator_and_reason():
    s = gb.Semiring("plus_obj", gb.monoids.plus, gb.BinaryOp("obj", _uses_object))
    with pytest.raises(CompileError) as info:
        gb.mxv(A3(), ones3(), s)
    msg = str(info.value)
    assert msg.startswith("mxv: BinaryOp 'obj' cannot be compiled for float64 operands")
    assert "_NotNumba" in msg  # Numba's reason, first line
    assert "Use only arithmetic" in msg  # the fix
    assert "\n" not in msg
    assert isinstance(info.value, GraphBLASError) and isinstance(info.value, NoKernel)


def test_uncompilable_unary_operator_in_apply():
    op = gb.UnaryOp("objop", lambda x: _NotNumba())
    with pytest.raises(CompileError, match=r"^apply: UnaryOp 'objop' cannot be compiled"):
        gb.apply(ones3(), op)


def test_uncompilable_accum_names_the_call():
    acc = gb.BinaryOp("obj_acc", _uses_object)
    out = ones3()
    with pytest.raises(CompileError, match=r"^ewise_add: BinaryOp 'obj_acc'"):
        gb.ewise_add(ones3(), ones3(), "plus", accum=acc, out=out)
    np.testing.assert_array_equal(out.to_dense(), np.ones(3))


def test_operator_raising_on_every_path_chains_the_users_exception():
    s = gb.Semiring("plus_boom", gb.monoids.plus, gb.BinaryOp("boom", _always_raises))
    with pytest.raises(CompileError) as info:
        gb.mxv(A3(), ones3(), s)
    assert str(info.value).startswith("mxv: BinaryOp 'boom' raised ValueError")
    assert "Casting" not in str(info.value)
    cause = info.value.__cause__
    assert isinstance(cause, ValueError) and str(cause) == "no value for you"


def test_operator_raising_for_some_values_raises_the_users_exception():
    s = gb.Semiring("plus_big", gb.monoids.plus, gb.BinaryOp("big", _raises_on_big))
    with pytest.raises(ValueError, match="too big"):
        gb.mxv(A3(), ones3(), s)


def test_operator_returning_a_string():
    op = gb.UnaryOp("strop", lambda x: str(x))
    with pytest.raises(CompileError, match=r"^apply: UnaryOp 'strop' returns unicode_type"):
        gb.apply(ones3(), op)


def test_operator_returning_none():
    s = gb.Semiring("plus_none", gb.monoids.plus, gb.BinaryOp("nothing", _returns_none))
    with pytest.raises(CompileError, match="returns none .* expected a number or a bool"):
        gb.mxv(A3(), ones3(), s)


def test_ufuncs_builtins_and_njit_functions_are_operators():
    x = gb.Vector.from_dense(np.array([0.0, 1.0, 4.0]))
    np.testing.assert_array_equal(
        gb.ewise_add(x, x, gb.BinaryOp("np_add", np.add)).to_dense(), [0.0, 2.0, 8.0])
    np.testing.assert_array_equal(
        gb.ewise_mult(x, x, gb.BinaryOp("np_max", np.maximum)).to_dense(), [0.0, 1.0, 4.0])
    np.testing.assert_array_equal(
        gb.apply(x, gb.UnaryOp("np_sqrt", np.sqrt)).to_dense(), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(
        gb.apply(x, gb.UnaryOp("math_sqrt", math.sqrt)).to_dense(), [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(
        gb.ewise_add(x, x, gb.BinaryOp("op_add", operator.add)).to_dense(), [0.0, 2.0, 8.0])
    jitted = numba.njit(lambda a, b: a - b + 1.0)
    np.testing.assert_array_equal(
        gb.ewise_add(x, x, gb.BinaryOp("jit_op", jitted)).to_dense(), [1.0, 1.0, 1.0])
    # the GPU expression of a ufunc comes from its name
    assert gb.BinaryOp("np_add", np.add).cuda_expr() == "(a + b)"
    assert gb.UnaryOp("np_sqrt", np.sqrt).cuda_expr() == "sqrt((double)(x))"


def test_ufunc_operator_kernels_stay_cacheable():
    from gblas.backends.cpu.jitcache import definition_key

    op = gb.BinaryOp("np_add", np.add)
    key = definition_key(op.numba(np.dtype("float64")))
    assert key[0] == "dispatcher"


@pytest.mark.parametrize("func, says", [
    (builtins.max, "takes any number of arguments"),
    (42, "got int 42"),
    ("plus", "got str 'plus'"),
    (np.sqrt, "np.sqrt with 1 input(s)"),
    (np.divmod, "np.divmod with 2 input(s) and 2 output(s)"),
    (lambda a: a, "got <lambda>(a)"),
    (lambda a, b, c: a, "(a, b, c)"),
    (object(), "got object <object"),
    (functools.partial(operator.add, 1), "got a partial"),
])
def test_binary_op_definition_checks_func(func, says):
    with pytest.raises(InvalidObject) as info:
        gb.BinaryOp("f", func)
    msg = str(info.value)
    assert msg.startswith("BinaryOp: argument `func` expected a function of two arguments")
    assert says in msg, msg


def test_unary_op_definition_checks_func():
    with pytest.raises(InvalidObject, match="function of one argument.*np.add"):
        gb.UnaryOp("f", np.add)
    with pytest.raises(InvalidObject, match="function of one argument"):
        gb.UnaryOp("f", lambda a, b: a)
    with pytest.raises(InvalidValue, match="argument `output`"):
        gb.UnaryOp("f", lambda a: a, output="int")
    with pytest.raises(InvalidValue, match="argument `name`"):
        gb.UnaryOp(None, lambda a: a)


def test_monoid_needs_a_binary_op_and_an_identity():
    with pytest.raises(InvalidObject) as info:
        gb.Monoid(lambda a, b: a, identity=0)
    msg = str(info.value)
    assert msg.startswith("Monoid: argument `op` expected a gb.BinaryOp")
    assert "needs a BinaryOp and an identity" in msg
    with pytest.raises(InvalidValue, match="Monoid: argument `identity`.*got no identity"):
        gb.Monoid(gb.binary.max)
    with pytest.raises(InvalidValue, match="argument `identity`"):
        gb.Monoid(gb.binary.max, identity="zero")
    # a built-in operator by name is fine
    m = gb.Monoid("max", identity=-np.inf)
    assert m.op is gb.binary.max and float(gb.reduce(ones3(), m)) == 1.0


# ------------------------------------------------------------------- suggestions


@pytest.mark.parametrize("call, module", [
    (lambda: gb.ewise_add(ones3(), ones3(), "plsu"), "gb.binary"),
    (lambda: gb.apply(ones3(), "sqrtt"), "gb.unary"),
    (lambda: gb.reduce(ones3(), "plsu"), "gb.monoids"),
    (lambda: gb.mxv(A3(), ones3(), "plus_tmies"), "gb.semirings"),
])
def test_suggestions_name_real_modules(call, module):
    with pytest.raises(InvalidValue) as info:
        call()
    msg = str(info.value)
    assert f"{module} lists the built-in ones" in msg
    assert "binarys" not in msg and "unarys" not in msg
    name = module.split(".")[1]
    assert hasattr(gb, name)


def test_function_where_operator_expected_suggests_wrapping():
    with pytest.raises(InvalidObject, match=r"gb.BinaryOp\('name', lambda a, b"):
        gb.ewise_add(ones3(), ones3(), lambda a, b: a + b)


# -------------------------------------------------------------------------- config


@pytest.mark.parametrize("threads", [0, -1, 1000, 2.0, True, "2"])
def test_config_threads_validated(threads):
    most = numba.config.NUMBA_NUM_THREADS
    with pytest.raises(InvalidValue) as info:
        gb.config(threads=threads)
    msg = str(info.value)
    assert msg.startswith("config: argument `threads`")
    assert f"an integer in [1, {most}]" in msg


def test_config_threads_in_range_applies():
    before = numba.get_num_threads()
    with gb.config(threads=1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == before


# ----------------------------------------------------------------------------- CLI


@pytest.mark.parametrize("argv, says", [
    (["demo", "--scale", "-1"], "argument --scale: expected an integer from 1 to 31, got '-1'"),
    (["demo", "--scale", "x"], "argument --scale"),
    (["demo", "--tol", "nan"], "argument --tol: expected a finite number > 0, got 'nan'"),
    (["demo", "--tol", "0"], "argument --tol"),
    (["demo", "--seed", "-5"], "argument --seed: expected an integer >= 0, got '-5'"),
    (["demo", "--edge-factor", "0"], "argument --edge-factor"),
    (["nosuchcommand"], "invalid choice"),
])
def test_cli_bad_arguments_one_line_exit_2(argv, says, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert says in err and "Traceback" not in err


def test_cli_version(capsys):
    import importlib.metadata as md

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    out = capsys.readouterr().out.strip()
    try:
        version = md.version("gblas")
    except md.PackageNotFoundError:  # pragma: no cover - a source tree not installed
        version = gb.__version__
    assert out == f"gblas {version}"


# ------------------------------------------------------------------ indices, shape


@pytest.mark.parametrize("indices, shown", [
    ([1e20], "got index 1e+20"),
    ([-1e20], "got index -1e+20"),
    (np.array([2**63 + 5], dtype=np.uint64), f"got index {2**63 + 5}"),
    ([7.0], "got index 7."),
])
def test_bad_index_reported_as_given(indices, shown):
    with pytest.raises(IndexOutOfBound) as info:
        gb.Vector.from_coo(indices, 1.0, 3)
    msg = str(info.value)
    assert shown in msg, msg
    assert "-9223372036854775808" not in msg


def test_non_whole_index_named():
    with pytest.raises(InvalidValue, match=r"got index nan \(dtype float64\)"):
        gb.extract(ones3(), [np.nan])
    with pytest.raises(InvalidValue, match=r"got index 0.5"):
        gb.extract(ones3(), [0.5])


def test_check_shape():
    assert check_shape((2, 3), "Matrix.from_coo") == (2, 3)
    for bad in (3, (3,), (1, 2, 3), "ab", (2, -1), (2.0, 3), None):
        with pytest.raises(InvalidValue,
                           match=r"^Matrix.from_coo: argument `shape` expected a pair"):
            check_shape(bad, "Matrix.from_coo")


def test_from_coo_shape_not_a_pair():
    with pytest.raises(InvalidValue, match="argument `shape` expected a pair"):
        gb.Matrix.from_coo([0], [0], [1.0], shape=3)


# -------------------------------------------------------------------------- reduce


@pytest.mark.parametrize("kw, arg", [
    ({"out": "vector"}, "out"),
    ({"mask": "mask"}, "mask"),
    ({"accum": "plus"}, "accum"),
    ({"replace": True}, "replace"),
    ({"axis": "rows"}, "axis"),
])
def test_reduce_to_scalar_names_the_argument(kw, arg):
    v = ones3()
    if kw.get("out") == "vector":
        kw = {"out": ones3()}
    if kw.get("mask") == "mask":
        kw = {"mask": v.S}
    with pytest.raises(InvalidValue) as info:
        gb.reduce(v, "plus", **kw)
    assert str(info.value).startswith(f"reduce: argument `{arg}`"), str(info.value)


def test_reduce_matrix_to_scalar_with_out_suggests_axis():
    with pytest.raises(InvalidValue, match="argument `out`.*axis='rows'"):
        gb.reduce(A3(), out=ones3())


# ---------------------------------------------------------------------- algorithms


@pytest.mark.parametrize("sources", [[], np.array([], dtype=np.int64), "empty vector"])
def test_betweenness_empty_sources(sources):
    if isinstance(sources, str):
        sources = gb.Vector.empty(3, bool)
    with pytest.raises(InvalidValue, match="betweenness_centrality: argument `sources` "
                       "expected at least one source"):
        gb.algorithms.betweenness_centrality(A3(), sources=sources)


@pytest.mark.parametrize("weights, says", [
    ([1.0, np.nan, 2.0], "a NaN weight"),
    ([1.0, -2.0, 2.0], "a negative weight (-2)"),
    ([1.0, np.inf, 2.0], "an infinite weight"),
    (-1.0, "a negative weight (-1)"),  # iso
])
def test_pagerank_checks_weights_up_front(weights, says):
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], weights, shape=(3, 3))
    for M in (A, A.T):
        with pytest.raises(InvalidValue) as info:
            gb.algorithms.pagerank(M, max_iter=10**6)
        msg = str(info.value)
        assert msg.startswith("pagerank: argument `A` expected finite edge weights >= 0")
        assert says in msg, msg


def test_select_value_thunk_must_be_a_number():
    x = gb.Vector.from_dense([1.0, 2.0])
    with pytest.raises(gb.InvalidValue, match="thunk"):
        gb.select(x, "valuegt", "a")
    assert gb.select(x, "valuegt", 1).nvals == 1
