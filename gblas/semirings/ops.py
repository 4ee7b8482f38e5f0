"""Operator objects: UnaryOp, BinaryOp, Monoid, Semiring.

An operator is defined once, by a plain Python scalar function, and runs everywhere:

* the reference backend calls the Python function directly (the oracle);
* the CPU backend compiles it with Numba, once per dtype, with the result cast back to the
  operator's output dtype after every application (so integer arithmetic wraps exactly as
  in C, and float32 rounds after each step);
* the GPU backend translates it to a CUDA C expression (:mod:`gblas.semirings.compile`), or
  uses the ``cuda=`` expression given explicitly.

Built-in operators carry a short ``code`` (``"plus"``, ``"min"`` ...) that kernels may use
to pick hand-written fast paths (e.g. hardware atomics); user operators have ``code=None``.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .. import dtypes
from ..exceptions import DomainMismatch, InvalidObject, InvalidValue, bad_arg

# Output-dtype rules an operator can follow.
SAME = "same"  # output dtype = input dtype
BOOL = "bool"  # output is bool (logical and comparison operators)

_ARGS = {1: "x", 2: "a, b"}


def _arity_error(call: str, func, nargs: int, got: str, fix: str | None = None):
    kind = "one argument" if nargs == 1 else "two arguments"
    return bad_arg(
        InvalidObject, call, "func",
        f"a function of {kind} (a def or lambda, a numba.njit function or a NumPy ufunc "
        f"with {nargs} input{'s' if nargs > 1 else ''})", got,
        fix or f"Write it as a lambda: lambda {_ARGS[nargs]}: ...",
    )


def _check_func(func, nargs: int, call: str) -> None:
    """Raise a clear error unless ``func`` can be an operator of ``nargs`` operands."""
    if not callable(func):
        raise _arity_error(call, func, nargs, f"{type(func).__name__} {func!r}")
    if isinstance(func, np.ufunc):
        if func.nin != nargs or func.nout != 1:
            raise _arity_error(call, func, nargs, f"np.{func.__name__} with {func.nin} "
                               f"input(s) and {func.nout} output(s)")
        return
    py = getattr(func, "py_func", None)  # a numba.njit function
    target = py if isinstance(py, types.FunctionType) else func
    if not isinstance(target, (types.FunctionType, types.BuiltinFunctionType)):
        raise _arity_error(call, func, nargs, f"a {type(func).__name__}",
                           f"Numba compiles plain functions only; wrap it: "
                           f"lambda {_ARGS[nargs]}: ...")
    name = getattr(target, "__qualname__", repr(target))
    try:
        sig = inspect.signature(target)
    except (TypeError, ValueError):  # builtins.max and the like: no fixed arity
        raise _arity_error(
            call, func, nargs, f"{name}, which takes any number of arguments",
            f"Wrap it with the arguments spelled out: lambda {_ARGS[nargs]}: "
            f"{getattr(target, '__name__', 'f')}({_ARGS[nargs]}).") from None
    try:
        sig.bind(*range(nargs))
    except TypeError:
        raise _arity_error(call, func, nargs, f"{name}{sig}") from None


def _check_common(op, nargs: int, call: str) -> None:
    if not isinstance(op.name, str) or not op.name:
        raise bad_arg(InvalidValue, call, "name", "a non-empty str", repr(op.name))
    _check_func(op.func, nargs, call)
    if op.output not in (SAME, BOOL):
        raise bad_arg(InvalidValue, call, "output", f"{SAME!r} or {BOOL!r}", repr(op.output))


def _who(op) -> str | None:
    """``"<call>: operator '<name>'"`` for a user operator (compiled and checked at first
    use), None for a built-in one (compiled lazily with the kernel)."""
    if op.code is not None:
        return None
    call = op._cache.get("call")
    kind = type(op).__name__
    return f"{call}: {kind} {op.name!r}" if call else f"{kind} {op.name!r}"


_OPERANDS = {1: ("x",), 2: ("a", "b")}


@dataclass(eq=False)
class Operator:
    """What a unary and a binary operator share: a Python scalar function of
    :attr:`nargs` operands, compiled per dtype, with its CUDA C expression.

    Parameters
    ----------
    name : str
        Name used in error messages, plans and the registry.
    func : callable
        Python scalar function (a ``def`` or ``lambda``, a ``numba.njit`` function, or a
        NumPy ufunc with :attr:`nargs` inputs such as ``np.sqrt`` or ``np.add``); must be
        Numba-compilable for the CPU.  Checked here for its number of arguments;
        compiled at its first use with each dtype, where a function Numba cannot
        compile raises :class:`~gblas.CompileError`.
    cuda : str, optional
        CUDA C expression in the operands (``x``; ``a`` and ``b``); derived from
        ``func`` when omitted.
    output : {"same", "bool"}
        Output dtype rule: the (unified) input dtype, or bool.

    Examples
    --------
    >>> import gblas as gb
    >>> isinstance(gb.binary.plus, Operator), gb.unary.ainv.nargs
    (True, 1)
    """

    #: Operands of ``func``.
    nargs: ClassVar[int] = 1

    name: str
    func: Callable
    cuda: str | None = None
    output: str = SAME
    code: str | None = None
    float_only: bool = False
    _cache: dict = field(default_factory=dict, repr=False, kw_only=True)

    def __post_init__(self) -> None:
        _check_common(self, self.nargs, type(self).__name__)

    def note_call(self, call: str) -> None:
        """Remember the call using the operator (named by a compile error)."""
        self._cache["call"] = call

    def output_dtype(self, dt: np.dtype) -> np.dtype:
        """The dtype of the result for inputs of ``dt``."""
        return dtypes.BOOL if self.output == BOOL else np.dtype(dt)

    def check_dtype(self, dt: np.dtype, call: str, arg: str = "op") -> None:
        """Raise :class:`~gblas.DomainMismatch` when a float-only operator
        meets inputs of another dtype."""
        self.note_call(call)
        if self.float_only and np.dtype(dt).kind != "f":
            what = "values" if self.nargs == 1 else "operands"
            raise bad_arg(
                DomainMismatch, call, arg, f"float {what} for operator {self.name!r}",
                np.dtype(dt).name,
                f"Cast the operand{'s' if self.nargs > 1 else ''} to float64 first.",
            )

    def numba(self, dt: np.dtype):
        """The Numba-compiled function for inputs of dtype ``dt`` (cached).

        Raises
        ------
        CompileError
            A user operator's function cannot be compiled for ``dt``.
        """
        from .compile import numba_operator

        key = np.dtype(dt)
        if key not in self._cache:
            self._cache[key] = numba_operator(self.func, self.nargs, key,
                                              self.output_dtype(key), _who(self))
        return self._cache[key]

    def cuda_expr(self) -> str:
        """The CUDA C expression in the operands (translated once from ``func`` when not
        given)."""
        if self.cuda is None:
            from .compile import cuda_expression

            self.cuda = cuda_expression(self.func, _OPERANDS[self.nargs])
        return self.cuda


@dataclass(eq=False, repr=False)
class UnaryOp(Operator):
    """A unary operator ``f(x)`` (the parameters of :class:`Operator`).

    Examples
    --------
    >>> import gblas as gb
    >>> neg = gb.UnaryOp("neg", lambda x: -x)
    >>> neg.name, neg.output_dtype(np.dtype("int8"))
    ('neg', dtype('int8'))
    """

    nargs: ClassVar[int] = 1

    def __repr__(self) -> str:
        return f"UnaryOp({self.name!r})"


@dataclass(eq=False, repr=False)
class BinaryOp(Operator):
    """A binary operator ``f(a, b)`` (the parameters of :class:`Operator`, and
    ``commutative``: ``f(a, b) == f(b, a)``, so that :meth:`flipped` is the operator
    itself).

    Examples
    --------
    >>> import gblas as gb
    >>> clip = gb.BinaryOp("clip_times", lambda a, b: min(a * b, 1.0))
    >>> clip.func(3.0, 0.5)
    1.0
    """

    nargs: ClassVar[int] = 2

    commutative: bool = False

    def flipped(self) -> BinaryOp:
        """The operator with its operands swapped: ``g(a, b) = f(b, a)`` (cached)."""
        if self.commutative:
            return self
        f = self._cache.get("flipped")
        if f is None:
            f = _FlippedOp(self)
            self._cache["flipped"] = f
        return f

    def __repr__(self) -> str:
        return f"BinaryOp({self.name!r})"


class _FlippedOp(BinaryOp):
    """``f(b, a)`` of an operator ``f``; compiled from the original's per-dtype code."""

    def __init__(self, orig: BinaryOp) -> None:
        func = orig.func
        super().__init__(f"{orig.name}_flipped", lambda a, b: func(b, a), None, orig.output,
                         None, orig.float_only, False)
        self._orig = orig

    def note_call(self, call: str) -> None:
        self._orig.note_call(call)

    def numba(self, dt: np.dtype):
        key = np.dtype(dt)
        if key not in self._cache:
            from .compile import numba_swapped

            self._cache[key] = numba_swapped(self._orig.numba(key))
        return self._cache[key]

    def cuda_expr(self) -> str:
        inner = self._orig.cuda_expr()
        return f"([&](auto a, auto b) {{ return {inner}; }})(b, a)"

    def flipped(self) -> BinaryOp:
        return self._orig


class _Missing:
    def __repr__(self) -> str:
        return "<required>"


_MISSING: Any = _Missing()


def _resolve_scalar(value: Any, dt: np.dtype):
    v = value(dt) if callable(value) else value
    return np.asarray(v).astype(dt)[()] if not isinstance(v, np.generic) else dt.type(v)


@dataclass(eq=False)
class Monoid:
    """An associative, commutative binary operator with an identity.

    Parameters
    ----------
    op : BinaryOp or str
        The operator (a built-in one may be given by name).  A plain function is
        refused: wrap it in a :class:`BinaryOp` first.
    identity : scalar or callable
        The identity, or a function ``dtype -> identity`` (required).
    terminal : scalar or callable, optional
        An annihilator: once a reduction reaches it, the rest can be skipped
        (``lor`` stops at True, ``min`` on unsigned at 0, ``any`` at the first value).
        A callable may return None for dtypes without a terminal.
    name : str, optional
        Defaults to ``op.name``.

    Examples
    --------
    >>> import gblas as gb
    >>> m = gb.Monoid(gb.binary.max, identity=lambda dt: gb.dtypes.min_value(dt))
    >>> m.identity_for(np.dtype("int8"))
    np.int8(-128)
    """

    op: BinaryOp
    identity: Any = _MISSING
    terminal: Any = None
    name: str | None = None
    any_value: bool = False  # the ANY monoid: terminal at the first value

    def __post_init__(self) -> None:
        call, how = "Monoid", "gb.Monoid(gb.BinaryOp(name, func), identity=0)"
        if isinstance(self.op, str):
            from .builtin import binary_op

            self.op = binary_op(self.op, call, "op")
        if not isinstance(self.op, BinaryOp):
            got = type(self.op).__name__
            raise bad_arg(
                InvalidObject, call, "op", "a gb.BinaryOp (or a built-in operator's name)",
                f"a {got}" if not callable(self.op) else f"a plain {got}",
                f"A Monoid needs a BinaryOp and an identity: {how}.",
            )
        if self.identity is _MISSING or self.identity is None:
            got = "no identity" if self.identity is _MISSING else "None"
            raise bad_arg(
                InvalidValue, call, "identity", f"the identity of {self.op.name!r} (a "
                "scalar, or a function dtype -> scalar)", got,
                f"A Monoid needs a BinaryOp and an identity: {how}.",
            )
        if not callable(self.identity) and not isinstance(
                self.identity, (bool, int, float, np.bool_, np.number)):
            raise bad_arg(InvalidValue, call, "identity", "a number or bool, or a function "
                          "dtype -> scalar", f"{type(self.identity).__name__} "
                          f"{self.identity!r}")
        if self.name is None:
            self.name = self.op.name

    @property
    def code(self) -> str | None:
        return self.op.code

    def output_dtype(self, dt: np.dtype) -> np.dtype:
        return self.op.output_dtype(dt)

    def identity_for(self, dt: np.dtype):
        """The identity as a scalar of dtype ``dt``."""
        return _resolve_scalar(self.identity, np.dtype(dt))

    def terminal_for(self, dt: np.dtype):
        """The terminal value as a scalar of ``dt``, or None when there is none."""
        if self.terminal is None:
            return None
        t = self.terminal(np.dtype(dt)) if callable(self.terminal) else self.terminal
        return None if t is None else _resolve_scalar(t, np.dtype(dt))

    def __repr__(self) -> str:
        return f"Monoid({self.name!r})"


@dataclass(eq=False)
class Semiring:
    """A semiring: an additive monoid and a multiplicative binary operator.

    ``mxv(A, x, s)`` computes ``y[i] = add_k mul(A[i, k], x[k])`` over the entries present.

    Examples
    --------
    >>> import gblas as gb
    >>> clip = gb.BinaryOp("clip_times", lambda a, b: min(a * b, 1.0))
    >>> my = gb.Semiring("max_clip", add=gb.monoids.max, multiply=clip)
    >>> my.name
    'max_clip'
    """

    name: str
    add: Monoid
    multiply: BinaryOp

    def __init__(self, name: str, add: Monoid, multiply: BinaryOp) -> None:
        if not isinstance(add, Monoid):
            raise bad_arg(InvalidValue, "Semiring", "add", "a Monoid", type(add).__name__,
                          "Wrap a BinaryOp with gb.Monoid(op, identity=...).")
        if not isinstance(multiply, BinaryOp):
            raise bad_arg(InvalidValue, "Semiring", "multiply", "a BinaryOp",
                          type(multiply).__name__)
        self.name = name
        self.add = add
        self.multiply = multiply

    def types(self, a: np.dtype, b: np.dtype) -> tuple[np.dtype, np.dtype, np.dtype]:
        """``(T, M, R)``: inputs are cast to T, ``multiply`` gives M, ``add`` gives R
        (remembered per pair of dtypes: every call of an operation asks)."""
        memo = self.__dict__.setdefault("_types", {})
        key = (a, b)
        got = memo.get(key)
        if got is None:
            t = dtypes.unify(np.dtype(a), np.dtype(b))
            m = self.multiply.output_dtype(t)
            got = memo[key] = (t, m, self.add.output_dtype(m))
        return got

    def check_dtype(self, dt: np.dtype, call: str, arg: str = "semiring") -> None:
        self.multiply.check_dtype(dt, call, arg)

    def __repr__(self) -> str:
        return f"Semiring({self.name!r})"
