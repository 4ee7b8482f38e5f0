"""Atomic monoid folds of the GPU kernels: how a kernel folds a value into an accumulator
that other threads update too (``gb_scatter``), per monoid and result dtype.

A native atomic where the monoid and type have one (``atomicAdd`` / ``atomicMin`` /
``atomicMax`` / ``atomicOr`` / ``atomicAnd`` / ``atomicXor``); otherwise a compare-and-swap
loop applying the monoid's ``gb_add`` (global memory) or a loop of atomic exchanges
(shared memory, whose compare-and-swap is far slower than its exchange), both in
``cuda/gb_atomics.cuh``.  1- and 2-byte results accumulate in 32-bit ``int`` slots.  ANY
stores the value (the last store wins).  The accumulators start at :func:`fold_start`:
the monoid's identity, but NaN for a float ``min`` / ``max``.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from . import codegen

__all__ = ["fold_start", "scatter_plan"]

_INT_ATOMIC_TYPES = {
    np.dtype("int32"): "int",
    np.dtype("uint32"): "unsigned int",
    np.dtype("int64"): "long long",
    np.dtype("uint64"): "unsigned long long",
}

def fold_start(monoid: Any, r: Any) -> Any:
    """The value a GPU fold's accumulators start from (and an exchange fold's
    placeholder): the monoid's identity at dtype ``r``, but NaN for a float ``min`` /
    ``max``.

    NaN is those monoids' true identity (they ignore a NaN operand, as ``fmin`` does), so
    a row whose products are all NaN ends NaN, as on the CPU; starting at +inf it ended
    +inf.  Its sign bit makes it lose to every value in the integer-view atomics of
    ``gb_atomic_fmin`` / ``gb_atomic_fmax`` (which skip NaN values): + for ``min``, - for
    ``max``.

    Examples
    --------
    >>> from gblas.semirings import builtin
    >>> f8 = np.dtype("float64")
    >>> v = fold_start(builtin.MONOIDS["max"], f8)
    >>> bool(np.isnan(v)), bool(np.signbit(v))
    (True, True)
    >>> float(fold_start(builtin.MONOIDS["plus"], f8)), int(fold_start(builtin.MONOIDS["min"],
    ...                                                  np.dtype("int32")))
    (0.0, 2147483647)
    """
    r = np.dtype(r)
    if r.kind == "f" and monoid.code in ("min", "max"):
        return np.copysign(r.type(np.nan), r.type(-1 if monoid.code == "max" else 1))
    return np.asarray(monoid.identity_for(r)).astype(r)[()]


_HEAD = ('#include "gb_atomics.cuh"\n'
         "__device__ __forceinline__ void gb_scatter(acc_t* p, R_t v) {\n")


def _native(code: str, r: np.dtype) -> str | None:
    """The native atomic statement folding ``v`` into ``*p``, or None."""
    if r.itemsize < 4:
        if r.kind == "b":
            if code in ("plus", "lor", "max"):
                return "atomicOr(p, (int)v);"
            if code in ("times", "land", "min"):
                return "atomicAnd(p, (int)v);"
            if code == "lxor":
                return "atomicXor(p, (int)v);"
            return None
        if code == "plus":
            return "atomicAdd(p, (int)v);"
        if code in ("min", "max"):
            return f"atomic{code.capitalize()}(p, (int)v);"
        return None
    if code == "plus" and (r.kind == "f" or r in _INT_ATOMIC_TYPES):
        if r.kind == "f":
            return "atomicAdd(p, v);"
        if r.itemsize == 8:
            return "atomicAdd((unsigned long long*)p, (unsigned long long)v);"
        return f"atomicAdd(({_INT_ATOMIC_TYPES[r]}*)p, v);"
    if code in ("min", "max") and r in _INT_ATOMIC_TYPES:
        ct = _INT_ATOMIC_TYPES[r]
        return f"atomic{code.capitalize()}(({ct}*)p, ({ct})v);"
    return None


@functools.lru_cache(maxsize=512)
def scatter_plan(monoid: Any, r: Any, *, shared: bool = False,
                 float_minmax: bool = False) -> tuple[np.dtype, str]:
    """How a kernel folds results of dtype ``r`` into shared accumulators with ``monoid``.

    Parameters
    ----------
    monoid : Monoid
        The semiring's ``add``.
    r : numpy.dtype
        The result dtype.
    shared : bool, default False
        The accumulators are in shared memory: a monoid without a native atomic folds by
        atomic exchanges rather than compare-and-swap.
    float_minmax : bool, default False
        Float ``min`` / ``max`` by one integer atomic on the value's bits (the same result
        for every value but NaN, whose place in the order of the updates decides the
        outcome either way) instead of a loop.

    Returns
    -------
    (numpy.dtype, str)
        The accumulator dtype (``int32`` for 1- and 2-byte results) and the source of
        ``gb_scatter(acc_t* p, R_t v)`` (to be placed after the ``acc_t`` typedef).

    Examples
    --------
    >>> from gblas.semirings import builtin
    >>> acc, src = scatter_plan(builtin.MONOIDS["times"], np.dtype("int8"), shared=True)
    >>> acc, "gb_exch_fold_small(p, v, (R_t)((signed char)(1LL)));" in src
    (dtype('int32'), True)
    """
    r = np.dtype(r)
    small = r.itemsize < 4
    acc = np.dtype(np.int32) if small else r
    if monoid.any_value:
        return r, _HEAD + "    *p = v;\n}\n"
    code = monoid.code
    body = _native(code, r)
    if body is None and float_minmax and r.kind == "f" and code in ("min", "max"):
        body = f"gb_atomic_f{code}(p, v);"
    if body is None and shared:
        lit = codegen.c_literal(fold_start(monoid, r), r)
        body = ("gb_exch_fold_small(p, v, (R_t)" if small else
                f"gb_exch_fold<{_word(r)}>(p, v, (R_t)") + f"{lit});"
    if body is None:
        body = "gb_cas_fold_small(p, v);" if small else f"gb_cas_fold<{_word(r)}>(p, v);"
    return acc, _HEAD + "    " + body + "\n}\n"


def _word(r: np.dtype) -> str:
    """The unsigned word holding the bits of a 4- or 8-byte value."""
    return "unsigned int" if r.itemsize == 4 else "unsigned long long"
