"""Turn an operator's Python function into device code.

* :func:`numba_operator` — a Numba ``njit`` scalar function for one
  dtype, casting the result to the operator's output dtype after each application.  A
  user operator is compiled at its first use with a dtype (:func:`check_compiles`), so
  that a function Numba cannot compile fails there with a
  :class:`~gblas.CompileError` naming the call, the operator and the reason.
* :func:`cuda_expression` — a CUDA C expression translated from the function's source
  (a ``lambda`` or a ``def`` whose body is one ``return``), so that the same user
  definition runs on the GPU.  Supported: arithmetic, comparisons, ``and``/``or``/``not``,
  conditional expressions, ``min``/``max``/``abs``, ``float``/``int``/``bool``, and the
  ``math``/``numpy`` functions in :data:`MATH_FUNCS`.  Anything else raises
  :class:`~gblas.NoKernel` asking for an explicit ``cuda=`` expression.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import textwrap
import types

import numpy as np

from ..exceptions import CompileError, NoKernel

MATH_FUNCS = {
    "sqrt": "sqrt", "exp": "exp", "log": "log", "log2": "log2", "log10": "log10",
    "floor": "floor", "ceil": "ceil", "fabs": "fabs", "pow": "pow", "sin": "sin",
    "cos": "cos", "tanh": "tanh", "fmin": "fmin", "fmax": "fmax", "expm1": "expm1",
    "log1p": "log1p", "power": "pow",
}


def _numba():
    import numba

    return numba


#: What a CPU operator function may do, told when its compilation fails.
COMPILE_FIX = (
    "Use only arithmetic, comparisons, conditional expressions, min/max/abs, "
    "int/float/bool and math or NumPy scalar functions of the arguments (Numba's "
    "nopython mode: no Python objects, containers, strings or calls of uncompiled "
    "functions), and return a number or a bool on every path."
)


def plain_function(func, nargs: int):
    """A plain Python function Numba can compile for ``func``.

    A Python function is itself; a Numba dispatcher gives its ``py_func``; a NumPy ufunc
    or a builtin (``math.sqrt``, ``operator.add``) is called from a small plain function
    (a closure over it, so that the compiled kernels stay cacheable on disk).

    Examples
    --------
    >>> float(plain_function(np.add, 2)(1.0, 2.0))
    3.0
    """
    if isinstance(func, types.FunctionType):
        return func
    py = getattr(func, "py_func", None)
    if isinstance(py, types.FunctionType):
        return py
    if nargs == 1:
        def call1(x):
            return func(x)

        return call1

    def call2(a, b):
        return func(a, b)

    return call2


def _reason(exc: BaseException) -> str:
    """The first line of a Numba error that says what went wrong, with its place."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))
    reason = None
    for line in text.splitlines():
        s = line.strip()
        if s and not s.startswith(("Failed in ", "During:", "Rewrite", "- Resolution")):
            reason = s.rstrip(".:")
            break
    if reason is None:
        reason = type(exc).__name__
    where = re.search(r'File "([^"]+)", line (\d+)', text)
    if where:
        reason += f" (line {where.group(2)} of {os.path.basename(where.group(1))})"
    return reason


def check_compiles(f, func, nargs: int, in_dt: np.dtype, who: str) -> None:
    """Compile the dispatcher ``f`` (of the Python function ``func``) for ``nargs``
    operands of ``in_dt`` now, and turn a failure into a clear
    :class:`~gblas.CompileError`.

    ``who`` starts the message (the call and the operator).  A function Numba types as
    returning nothing (it raises on every path) is called once in Python with operands
    ``1``, and the error is chained from the exception it raises there.
    """
    numba = _numba()
    in_dt = np.dtype(in_dt)
    sig = (numba.from_dtype(in_dt),) * nargs
    try:
        f.compile(sig)
    except Exception as e:  # Numba's TypingError, UnsupportedError, ...
        raise CompileError(
            f"{who} cannot be compiled for {in_dt.name} operands (Numba: {_reason(e)}). "
            f"{COMPILE_FIX}"
        ) from None
    ret = next((s.return_type for s in f.nopython_signatures if tuple(s.args) == sig), None)
    if ret is None or isinstance(ret, (numba.types.Number, numba.types.Boolean)):
        return
    one = in_dt.type(1)
    try:
        got = func(*([one] * nargs))
    except Exception as e:
        raise CompileError(
            f"{who} raised {e!r} when called with "
            f"{', '.join(['1'] * nargs)} ({in_dt.name}); Numba finds that it raises on "
            f"every path, so it has no value to compute. Fix the function (the exception "
            f"it raised is chained below)."
        ) from e
    ret = numba.types.unliteral(ret)
    raise CompileError(
        f"{who} returns {ret} for {in_dt.name} operands (in Python: {got!r}), expected a "
        f"number or a bool on every path. {COMPILE_FIX}"
    )


def numba_operator(func, nargs: int, in_dt: np.dtype, out_dt: np.dtype,
                   who: str | None = None):
    """Compile ``func`` of ``nargs`` (1 or 2) operands of ``in_dt`` returning ``out_dt``.

    The operands are cast to ``in_dt`` and the result to ``out_dt`` around every call.
    With ``who`` (the call and the operator, for messages) ``func`` is compiled at once
    and a failure raises :class:`~gblas.CompileError`; otherwise it compiles
    lazily with the first kernel that uses it.

    Examples
    --------
    >>> f = numba_operator(lambda a, b: a + b, 2, np.dtype("int8"), np.dtype("int8"))
    >>> int(f(np.int8(100), np.int8(100)))
    -56
    """
    numba = _numba()
    py = plain_function(func, nargs)
    f = numba.njit(py, error_model="numpy")
    if who is not None:
        check_compiles(f, py, nargs, in_dt, who)
    to_in = numba.from_dtype(np.dtype(in_dt))
    to_out = numba.from_dtype(np.dtype(out_dt))
    if nargs == 1:
        def g(x):
            return to_out(f(to_in(x)))
    else:
        def g(a, b):
            return to_out(f(to_in(a), to_in(b)))
    return numba.njit(g, inline="always", error_model="numpy")


def numba_swapped(f):
    """``g(a, b) = f(b, a)`` for a compiled binary function ``f``."""
    numba = _numba()

    def g(a, b):
        return f(b, a)

    return numba.njit(g, inline="always", error_model="numpy")


# --------------------------------------------------------------------------- CUDA source


class _Untranslatable(Exception):
    pass


_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.BitAnd: "&", ast.BitOr: "|",
           ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}
_CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
           ast.GtE: ">="}


class _Translator:
    def __init__(self, argmap: dict[str, str]):
        self.argmap = argmap

    def __call__(self, node: ast.AST) -> str:  # noqa: C901 - one dispatch table
        t = self
        if isinstance(node, ast.Name):
            if node.id in self.argmap:
                return self.argmap[node.id]
            raise _Untranslatable(f"free variable {node.id!r}")
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool):
                return "true" if v else "false"
            if isinstance(v, int):
                return f"{v}LL" if abs(v) > 2**31 - 1 else str(v)
            if isinstance(v, float):
                if v != v:
                    return "CUDART_NAN"
                if v in (float("inf"), float("-inf")):
                    return "CUDART_INF" if v > 0 else "(-CUDART_INF)"
                return repr(v)
            raise _Untranslatable(f"constant {v!r}")
        if isinstance(node, ast.BinOp):
            left, right = t(node.left), t(node.right)
            op = type(node.op)
            if op in _BINOPS:
                return f"({left} {_BINOPS[op]} {right})"
            if op is ast.Div:
                return f"((double)({left}) / (double)({right}))"
            if op is ast.FloorDiv:
                return f"gb_floordiv({left}, {right})"
            if op is ast.Mod:
                return f"gb_mod({left}, {right})"
            if op is ast.Pow:
                return f"pow((double)({left}), (double)({right}))"
            raise _Untranslatable(f"operator {op.__name__}")
        if isinstance(node, ast.UnaryOp):
            operand = t(node.operand)
            if isinstance(node.op, ast.USub):
                return f"(-{operand})"
            if isinstance(node.op, ast.UAdd):
                return operand
            if isinstance(node.op, ast.Not):
                return f"(!({operand}))"
            if isinstance(node.op, ast.Invert):
                return f"(~{operand})"
        if isinstance(node, ast.BoolOp):
            vals = [t(v) for v in node.values]
            out = vals[-1]
            for v in reversed(vals[:-1]):  # Python's and/or return an operand
                if isinstance(node.op, ast.And):
                    out = f"(({v}) ? ({out}) : ({v}))"
                else:
                    out = f"(({v}) ? ({v}) : ({out}))"
            return out
        if isinstance(node, ast.Compare):
            parts, left = [], t(node.left)
            for op, comp in zip(node.ops, node.comparators):
                right = t(comp)
                if type(op) not in _CMPOPS:
                    raise _Untranslatable(f"comparison {type(op).__name__}")
                parts.append(f"({left} {_CMPOPS[type(op)]} {right})")
                left = right
            return "(" + " && ".join(parts) + ")"
        if isinstance(node, ast.IfExp):
            return f"(({t(node.test)}) ? ({t(node.body)}) : ({t(node.orelse)}))"
        if isinstance(node, ast.Call) and not node.keywords:
            name = _callee_name(node.func)
            args = [t(a) for a in node.args]
            if name in ("min", "max") and len(args) >= 2:
                out = args[0]
                for a in args[1:]:
                    out = f"gb_{name}({out}, {a})"
                return out
            if name in ("abs", "fabs", "absolute") and len(args) == 1:
                return f"gb_abs({args[0]})"
            if name == "float" and len(args) == 1:
                return f"((double)({args[0]}))"
            if name == "int" and len(args) == 1:
                return f"((long long)({args[0]}))"
            if name == "bool" and len(args) == 1:
                return f"((bool)({args[0]}))"
            if name in MATH_FUNCS:
                return f"{MATH_FUNCS[name]}(" + ", ".join(f"(double)({a})" for a in args) + ")"
            raise _Untranslatable(f"call of {name!r}")
        raise _Untranslatable(type(node).__name__)


def _callee_name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        if node.value.id in ("math", "np", "numpy"):
            return node.attr
    raise _Untranslatable("call of a non-builtin function")


def _function_node(func) -> ast.AST:
    """The Lambda or FunctionDef node of ``func``, from its source."""
    try:
        src = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError) as e:
        raise _Untranslatable("its source is not available") from e
    try:
        tree = ast.parse(src)
    except SyntaxError:
        # a lambda inside a larger expression: parse the line from the 'lambda' keyword on
        i = src.find("lambda")
        if i < 0:
            raise _Untranslatable("its source could not be parsed") from None
        tail = src[i:]
        for end in range(len(tail), 0, -1):
            try:
                tree = ast.parse(tail[:end])
                break
            except SyntaxError:
                continue
        else:
            raise _Untranslatable("its source could not be parsed") from None
    nargs = func.__code__.co_argcount
    names = func.__code__.co_varnames[:nargs]
    cands = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Lambda, ast.FunctionDef)):
            args = [a.arg for a in node.args.args]
            if tuple(args) == tuple(names) and (
                isinstance(node, ast.Lambda) or node.name == func.__name__
            ):
                cands.append(node)
    if len(cands) != 1:
        raise _Untranslatable("its definition could not be located uniquely in the source")
    return cands[0]


#: NumPy ufuncs (and builtins of the same name) with a CUDA operator.
_NAMED_BINOPS = {"add": "+", "subtract": "-", "multiply": "*", "sub": "-", "mul": "*"}


def _named_expression(name: str, argnames: tuple[str, ...]) -> str | None:
    """CUDA C for a ufunc or builtin known by name (``np.add``, ``math.sqrt``), or None."""
    if len(argnames) == 2 and name in _NAMED_BINOPS:
        a, b = argnames
        return f"({a} {_NAMED_BINOPS[name]} {b})"
    if len(argnames) == 2 and name in ("true_divide", "divide", "truediv"):
        a, b = argnames
        return f"((double)({a}) / (double)({b}))"
    if name in MATH_FUNCS:
        return f"{MATH_FUNCS[name]}(" + ", ".join(f"(double)({a})" for a in argnames) + ")"
    return None


def cuda_expression(func, argnames: tuple[str, ...]) -> str:
    """CUDA C expression for a Python scalar function.

    Examples
    --------
    >>> cuda_expression(lambda a, b: min(a * b, 1.0), ("a", "b"))
    'gb_min((a * b), 1.0)'
    """
    if not isinstance(func, types.FunctionType):
        py = getattr(func, "py_func", None)
        if isinstance(py, types.FunctionType):
            func = py  # a Numba dispatcher: its Python function
        else:  # a NumPy ufunc or a builtin: by its name
            expr = _named_expression(getattr(func, "__name__", ""), argnames)
            if expr is not None:
                return expr
    try:
        node = _function_node(func)
        if isinstance(node, ast.Lambda):
            body = node.body
        else:
            stmts = [s for s in node.body
                     if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
            if len(stmts) != 1 or not isinstance(stmts[0], ast.Return):
                raise _Untranslatable("a def must consist of a single return statement")
            body = stmts[0].value
        params = [a.arg for a in node.args.args]
        if len(params) != len(argnames):
            raise _Untranslatable(f"it takes {len(params)} arguments, expected {len(argnames)}")
        return _Translator(dict(zip(params, argnames)))(body)
    except _Untranslatable as e:
        name = getattr(func, "__name__", repr(func))
        raise NoKernel(
            f"GPU: operator function {name!r} cannot be translated to CUDA ({e}). "
            "Give the expression explicitly, e.g. gb.BinaryOp(name, func, cuda='a * b')."
        ) from None
