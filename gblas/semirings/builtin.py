"""The built-in operator, monoid and semiring tables, and name lookup.

Semirings are every ``ADD_MUL`` with ADD in {plus, times, min, max, any, lor, land, lxor}
and MUL in {times, plus, minus, first, second, pair, min, max, land, lor, div}; ``div`` is
defined for float operands only (a clear error otherwise).  Names follow GraphBLAS:
``gb.semirings.min_plus`` or the string ``"min_plus"``.
"""

from __future__ import annotations

import difflib

import numpy as np

from .. import dtypes
from ..exceptions import InvalidObject, InvalidValue, bad_arg
from .ops import BOOL, BinaryOp, Monoid, Semiring, UnaryOp

# ----------------------------------------------------------------------------- unary


def _u(name, func, cuda, output="same", float_only=False):
    return UnaryOp(name, func, cuda=cuda, output=output, code=name, float_only=float_only)


UNARY: dict[str, UnaryOp] = {
    op.name: op
    for op in (
        _u("identity", lambda x: x, "x"),
        _u("ainv", lambda x: -x, "(-x)"),
        _u("abs", lambda x: x if x >= 0 else -x, "(x >= 0 ? x : -x)"),
        _u("minv", lambda x: 1.0 / x, "(1.0 / x)", float_only=True),
        _u("lnot", lambda x: x == 0, "(x == 0)", output=BOOL),
        _u("one", lambda x: 1, "1"),
        _u("sqrt", lambda x: np.sqrt(x), "sqrt((double)x)", float_only=True),
        _u("exp", lambda x: np.exp(x), "exp((double)x)", float_only=True),
        _u("log", lambda x: np.log(x), "log((double)x)", float_only=True),
    )
}

# ---------------------------------------------------------------------------- binary


def _b(name, func, cuda, output="same", float_only=False, commutative=False):
    return BinaryOp(name, func, cuda=cuda, output=output, code=name, float_only=float_only,
                    commutative=commutative)


BINARY: dict[str, BinaryOp] = {
    op.name: op
    for op in (
        _b("plus", lambda a, b: a + b, "a + b", commutative=True),
        _b("minus", lambda a, b: a - b, "a - b"),
        _b("rminus", lambda a, b: b - a, "b - a"),
        _b("times", lambda a, b: a * b, "a * b", commutative=True),
        _b("div", lambda a, b: a / b, "a / b", float_only=True),
        _b("first", lambda a, b: a, "a"),
        _b("second", lambda a, b: b, "b"),
        _b("pair", lambda a, b: 1, "1", commutative=True),
        # fmin / fmax: a NaN operand is ignored, as in SuiteSparse:GraphBLAS
        _b("min", lambda a, b: a if (a < b or b != b) else b,
           "((a < b || b != b) ? a : b)", commutative=True),
        _b("max", lambda a, b: a if (a > b or b != b) else b,
           "((a > b || b != b) ? a : b)", commutative=True),
        _b("any", lambda a, b: a, "a", commutative=True),
        _b("lor", lambda a, b: (a != 0) | (b != 0), "((a != 0) || (b != 0))", BOOL,
           commutative=True),
        _b("land", lambda a, b: (a != 0) & (b != 0), "((a != 0) && (b != 0))", BOOL,
           commutative=True),
        _b("lxor", lambda a, b: (a != 0) ^ (b != 0), "((a != 0) != (b != 0))", BOOL,
           commutative=True),
        _b("eq", lambda a, b: a == b, "(a == b)", BOOL, commutative=True),
        _b("ne", lambda a, b: a != b, "(a != b)", BOOL, commutative=True),
        _b("gt", lambda a, b: a > b, "(a > b)", BOOL),
        _b("lt", lambda a, b: a < b, "(a < b)", BOOL),
        _b("ge", lambda a, b: a >= b, "(a >= b)", BOOL),
        _b("le", lambda a, b: a <= b, "(a <= b)", BOOL),
    )
}

# --------------------------------------------------------------------------- monoids


def _int_only(value):
    return lambda dt: value(dt) if np.dtype(dt).kind in "iub" else None


MONOIDS: dict[str, Monoid] = {
    "plus": Monoid(BINARY["plus"], identity=0,
                   terminal=lambda dt: True if np.dtype(dt).kind == "b" else None),
    "times": Monoid(BINARY["times"], identity=1, terminal=_int_only(lambda dt: 0)),
    "min": Monoid(BINARY["min"], identity=dtypes.max_value, terminal=dtypes.min_value),
    "max": Monoid(BINARY["max"], identity=dtypes.min_value, terminal=dtypes.max_value),
    "any": Monoid(BINARY["any"], identity=0, any_value=True),
    "lor": Monoid(BINARY["lor"], identity=False, terminal=True),
    "land": Monoid(BINARY["land"], identity=True, terminal=False),
    "lxor": Monoid(BINARY["lxor"], identity=False),
}

# ------------------------------------------------------------------------- semirings

ADD_NAMES = ("plus", "times", "min", "max", "any", "lor", "land", "lxor")
MUL_NAMES = ("times", "plus", "minus", "first", "second", "pair", "min", "max", "land",
             "lor", "div")

SEMIRINGS: dict[str, Semiring] = {
    f"{a}_{m}": Semiring(f"{a}_{m}", MONOIDS[a], BINARY[m]) for a in ADD_NAMES for m in MUL_NAMES
}

# ---------------------------------------------------------------------------- lookup


#: The module listing the built-in objects of each kind (named in error messages).
_MODULES = {"semiring": "gb.semirings", "monoid": "gb.monoids", "binary": "gb.binary",
            "unary": "gb.unary"}
_KINDS = {"semiring": "semiring", "monoid": "monoid", "binary": "binary operator",
          "unary": "unary operator"}


def _note_call(value, call: str) -> None:
    """Tell the operators inside ``value`` which call uses them (for compile errors)."""
    if isinstance(value, Semiring):
        value.multiply.note_call(call)
        value.add.op.note_call(call)
    elif isinstance(value, Monoid):
        value.op.note_call(call)
    else:
        value.note_call(call)


def _lookup(kind: str, table: dict, cls, value, call: str, arg: str):
    if isinstance(value, cls):
        _note_call(value, call)
        return value
    what, module = _KINDS[kind], _MODULES[kind]
    if isinstance(value, str):
        key = value.strip().lower().replace(".", "_")
        if key in table:
            return table[key]
        close = difflib.get_close_matches(key, list(table), n=3)
        hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
        raise bad_arg(
            InvalidValue, call, arg, f"a {what} name or gb.{cls.__name__} object",
            repr(value), f"Unknown {what}.{hint} {module} lists the built-in ones.",
        )
    fix = None
    if callable(value) and kind in ("binary", "unary"):
        args = "a, b" if kind == "binary" else "x"
        fix = f"Wrap a function in an operator: gb.{cls.__name__}('name', lambda {args}: ...)."
    raise bad_arg(InvalidObject, call, arg, f"a {what} name (str) or gb.{cls.__name__}",
                  type(value).__name__, fix)


def semiring(value, call: str = "mxv", arg: str = "semiring") -> Semiring:
    """Resolve a semiring given by object or name.

    Examples
    --------
    >>> semiring("min_plus").add.name
    'min'
    """
    return _lookup("semiring", SEMIRINGS, Semiring, value, call, arg)


def monoid(value, call: str = "reduce", arg: str = "monoid") -> Monoid:
    """Resolve a monoid given by object or name (``"plus"``, ``"min"`` ...)."""
    return _lookup("monoid", MONOIDS, Monoid, value, call, arg)


def binary_op(value, call: str = "ewise_add", arg: str = "op") -> BinaryOp:
    """Resolve a binary operator given by object or name.  A Monoid gives its operator."""
    if isinstance(value, Monoid):
        value.op.note_call(call)
        return value.op
    return _lookup("binary", BINARY, BinaryOp, value, call, arg)


def unary_op(value, call: str = "apply", arg: str = "op") -> UnaryOp:
    """Resolve a unary operator given by object or name."""
    return _lookup("unary", UNARY, UnaryOp, value, call, arg)
