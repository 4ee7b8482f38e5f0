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

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import dtypes
from ..exceptions import DomainMismatch, InvalidValue, bad_arg

# Output-dtype rules an operator can follow.
SAME = "same"  # output dtype = input dtype
BOOL = "bool"  # output is bool (logical and comparison operators)


@dataclass(eq=False)
class UnaryOp:
    """A unary operator ``f(x)``.

    Parameters
    ----------
    name : str
        Name used in error messages, plans and the registry.
    func : callable
        Python scalar function of one argument; must be Numba-compilable for the CPU.
    cuda : str, optional
        CUDA C expression in ``x``; derived from ``func`` when omitted.
    output : {"same", "bool"}
        Output dtype rule.

    Examples
    --------
    >>> import gblas as gb
    >>> neg = gb.UnaryOp("neg", lambda x: -x)
    >>> neg.name
    'neg'
    """

    name: str
    func: Callable
    cuda: str | None = None
    output: str = SAME
    code: str | None = None
    float_only: bool = False
    _cache: dict = field(default_factory=dict, repr=False)

    def output_dtype(self, dt: np.dtype) -> np.dtype:
        return dtypes.BOOL if self.output == BOOL else np.dtype(dt)

    def check_dtype(self, dt: np.dtype, call: str, arg: str = "op") -> None:
        if self.float_only and np.dtype(dt).kind != "f":
            raise bad_arg(
                DomainMismatch, call, arg, f"float values for operator {self.name!r}",
                np.dtype(dt).name, "Cast the operand to float64 first.",
            )

    def numba(self, dt: np.dtype):
        """The Numba-compiled function for inputs of dtype ``dt`` (cached)."""
        from .compile import numba_unary

        key = np.dtype(dt)
        if key not in self._cache:
            self._cache[key] = numba_unary(self.func, key, self.output_dtype(key))
        return self._cache[key]

    def cuda_expr(self) -> str:
        """The CUDA C expression in ``x`` (translated once from ``func`` when not given)."""
        if self.cuda is None:
            from .compile import cuda_expression

            self.cuda = cuda_expression(self.func, ("x",))
        return self.cuda

    def __repr__(self) -> str:
        return f"UnaryOp({self.name!r})"


@dataclass(eq=False)
class BinaryOp:
    """A binary operator ``f(a, b)``.

    Parameters
    ----------
    name : str
        Name used in error messages, plans and the registry.
    func : callable
        Python scalar function of two arguments; must be Numba-compilable for the CPU.
    cuda : str, optional
        CUDA C expression in ``a`` and ``b``; derived from ``func`` when omitted.
    output : {"same", "bool"}
        Output dtype rule: the unified input dtype, or bool.

    Examples
    --------
    >>> import gblas as gb
    >>> clip = gb.BinaryOp("clip_times", lambda a, b: min(a * b, 1.0))
    >>> clip.func(3.0, 0.5)
    1.0
    """

    name: str
    func: Callable
    cuda: str | None = None
    output: str = SAME
    code: str | None = None
    float_only: bool = False
    commutative: bool = False
    _cache: dict = field(default_factory=dict, repr=False)

    def output_dtype(self, dt: np.dtype) -> np.dtype:
        return dtypes.BOOL if self.output == BOOL else np.dtype(dt)

    def check_dtype(self, dt: np.dtype, call: str, arg: str = "op") -> None:
        if self.float_only and np.dtype(dt).kind != "f":
            raise bad_arg(
                DomainMismatch, call, arg, f"float operands for operator {self.name!r}",
                np.dtype(dt).name, "Cast the operands to float64 first.",
            )

    def numba(self, dt: np.dtype):
        """The Numba-compiled ``f(a, b)`` for operands of dtype ``dt`` (cached)."""
        from .compile import numba_binary

        key = np.dtype(dt)
        if key not in self._cache:
            self._cache[key] = numba_binary(self.func, key, self.output_dtype(key))
        return self._cache[key]

    def cuda_expr(self) -> str:
        """The CUDA C expression in ``a``, ``b`` (translated once from ``func`` when not given)."""
        if self.cuda is None:
            from .compile import cuda_expression

            self.cuda = cuda_expression(self.func, ("a", "b"))
        return self.cuda

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


def _resolve_scalar(value: Any, dt: np.dtype):
    v = value(dt) if callable(value) else value
    return np.asarray(v).astype(dt)[()] if not isinstance(v, np.generic) else dt.type(v)


@dataclass(eq=False)
class Monoid:
    """An associative, commutative binary operator with an identity.

    Parameters
    ----------
    op : BinaryOp
        The operator.
    identity : scalar or callable
        The identity, or a function ``dtype -> identity``.
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
    identity: Any
    terminal: Any = None
    name: str | None = None
    any_value: bool = False  # the ANY monoid: terminal at the first value

    def __post_init__(self) -> None:
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
