"""Hand a public operation to another implementation when an operand asks for it.

An operand whose type defines ``__gblas_dispatch__(name, args, kwargs)`` (a distributed
Matrix or Vector, or the Mask of one) takes over ``gb.<name>(*args, **kwargs)``: the
operation returns what that method returns.  Local operands pay one attribute lookup per
argument.

Examples
--------
>>> import gblas as gb
>>> class Echo:
...     @staticmethod
...     def __gblas_dispatch__(name, args, kwargs):
...         return name
>>> gb.mxv(Echo(), gb.Vector.from_dense([1.0]))
'mxv'
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..exceptions import out_of_memory

__all__ = ["dispatchable", "dispatcher"]


def dispatcher(args: tuple, kwargs: dict) -> Any:
    """The ``__gblas_dispatch__`` of the first operand that has one, else None."""
    for a in args:
        hook = getattr(type(a), "__gblas_dispatch__", None)
        if hook is not None:
            return hook
    for a in kwargs.values():
        hook = getattr(type(a), "__gblas_dispatch__", None)
        if hook is not None:
            return hook
    return None


def dispatchable(func: Callable) -> Callable:
    """Decorate a public operation so that operands with ``__gblas_dispatch__`` take it over."""
    name = func.__name__

    @functools.wraps(func)
    def operation(*args, **kwargs):
        hook = dispatcher(args, kwargs)
        if hook is not None:
            return hook(name, args, kwargs)
        # out of memory is an OutOfMemory naming this call, the bytes and the fix (NumPy's
        # and CuPy's errors are MemoryErrors); after a derived format's build ran out (the
        # Matrix records it, the planner then keeps CSR) the call runs once more
        for attempt in (0, 1):
            try:
                return func(*args, **kwargs)
            except MemoryError as exc:
                if attempt or not getattr(exc, "retry", False):
                    err = out_of_memory(name, exc)
                    if err is exc:
                        raise
                    raise err from exc
        raise AssertionError("unreachable")  # pragma: no cover

    return operation
