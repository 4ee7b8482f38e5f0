"""GraphBLAS-style exceptions.

Every error raised for bad input names the call, the argument, what was expected, what
came, and how to fix it.  Use :func:`bad_arg` to build such a message so that all calls
phrase their errors the same way.
"""

from __future__ import annotations


class GraphBLASError(Exception):
    """Base class of every error gblas raises on purpose."""


class DimensionMismatch(GraphBLASError, ValueError):
    """Shapes of the operands (or mask, or output) do not agree."""


class DomainMismatch(GraphBLASError, TypeError):
    """A dtype is not accepted by the operator or call."""


class IndexOutOfBound(GraphBLASError, IndexError):
    """An index is outside the object's shape."""


class InvalidValue(GraphBLASError, ValueError):
    """A value is not allowed (NaN weights, negative source, unknown name...)."""


class InvalidObject(GraphBLASError, TypeError):
    """An argument is not of a type the call accepts."""


class OutOfMemory(GraphBLASError, MemoryError):
    """A format or result would not fit in the memory available."""


class NoKernel(GraphBLASError, NotImplementedError):
    """No kernel is registered for this (operation, format, device)."""


class CompileError(NoKernel):
    """A user operator's function cannot be compiled for the CPU (Numba) for a dtype.

    Raised at the operator's first use with that dtype; the message names the call, the
    operator and Numba's reason.  When the function raises on every path, the error is
    chained from the exception the function raised.
    """


class NoGPU(GraphBLASError, RuntimeError):
    """The GPU was asked for but CuPy or a CUDA device is not available."""


def bad_arg(
    exc: type[GraphBLASError],
    call: str,
    arg: str,
    expected: str,
    got: str,
    fix: str | None = None,
) -> GraphBLASError:
    """Build an exception whose message follows the project's pattern.

    Examples
    --------
    >>> err = bad_arg(DimensionMismatch, "mxv", "x", "a Vector of size 3", "size 4")
    >>> str(err)
    'mxv: argument `x` expected a Vector of size 3, got size 4.'
    """
    msg = f"{call}: argument `{arg}` expected {expected}, got {got}."
    if fix:
        msg += f" {fix}"
    return exc(msg)
