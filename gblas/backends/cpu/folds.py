"""The semiring folds every CPU kernel shares: the fold of one row's products (pull, in
every format), the accumulation of one value into an output entry (push scatters, merges
of partial results) and the pieces of a semiring a kernel closes over.

Contract
    A fold starts from its first product (no identity: a NaN product stays visible and
    ANY needs no identity), adds the products in entry order (only the monoid's
    associativity is used, so every format gives the result of the CSR pull kernel) and
    stops at the monoid's terminal value or, for ANY, after the first product.  The
    functions are ``@jit(inline="always")`` closures over the semiring's compiled
    operators, built once per (semiring, T, M, R) by :data:`FOLDS`; Numba inlines them
    into the calling kernel.

Examples
--------
>>> import numpy as np
>>> from gblas.semirings import semiring
>>> s = semiring("plus_times")
>>> f = folds(s, s.types(np.dtype("f8"), np.dtype("f8")))
>>> idx = np.array([0, 2], np.uint32); a = np.array([2.0, 3.0]); x = np.array([1.0, 9.0, 10.0])
>>> f.fold(np.uint64(0), np.uint64(2), idx, a, False, x, np.ones(3, bool), True)
(True, 32.0)
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

import numba
import numpy as np

from .jitcache import jit

__all__ = ["FOLDS", "Folds", "KernelCache", "folds", "semiring_parts"]

_U1 = np.uint64(1)


def semiring_parts(semiring: Any, types: tuple) -> tuple:
    """The pieces a kernel closes over: ``(mul, add, to_r, has_term, term, is_any)``.

    ``mul(a, b)`` casts to T and returns M; ``add(acc, t)`` casts to R and returns R;
    ``to_r`` casts a product to R (``lor`` over integer products means ``t != 0``).
    ``term`` is the monoid's terminal value at R (a placeholder when ``has_term`` is
    False).

    Examples
    --------
    >>> from gblas.semirings import semiring
    >>> s = semiring("lor_land")
    >>> semiring_parts(s, s.types(np.dtype(bool), np.dtype(bool)))[3:]
    (True, np.True_, False)
    """
    T, _, R = (np.dtype(t) for t in types)
    mul = semiring.multiply.numba(T)
    add = semiring.add.op.numba(R)
    to_r = numba.from_dtype(R)
    term = semiring.add.terminal_for(R)
    has_term = term is not None
    term = R.type(0) if term is None else R.type(term)
    return mul, add, to_r, has_term, term, bool(semiring.add.any_value)


class KernelCache:
    """Kernels built by ``build(semiring, types)``, cached per semiring object (weakly held)
    and per ``(T, M, R)``; the dtypes of the arrays (values, index widths) are specialized
    by Numba's dispatcher itself.

    Examples
    --------
    >>> from gblas.semirings import semiring
    >>> cache = KernelCache(lambda s, types: object())
    >>> s = semiring("plus_times"); t = (np.dtype("f8"),) * 3
    >>> cache.get(s, t) is cache.get(s, t), len(cache)
    (True, 1)
    """

    def __init__(self, build) -> None:
        self._build = build
        self._cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def get(self, semiring: Any, types: tuple):
        """The kernels of ``semiring`` at ``types`` (built on the first request)."""
        T, M, R = (np.dtype(t) for t in types)
        per = self._cache.get(semiring)
        if per is None:
            per = self._cache[semiring] = {}
        k = per.get((T, M, R))
        if k is None:
            k = per[(T, M, R)] = self._build(semiring, (T, M, R))
        return k

    def __len__(self) -> int:
        return sum(len(v) for v in self._cache.values())


class Folds(NamedTuple):
    """The compiled folds of one semiring at one ``(T, M, R)``.

    ``fold(s, e, indices, avals, iso, x, xpres, xall) -> (found, acc)``
        The products ``mul(A[k], x[indices[k]])`` of the entries ``[s, e)`` (unsigned
        positions, ``s < e``) folded with ``add``; with ``xall`` False only the entries
        whose ``xpres[indices[k]]`` is set count.  ``iso``: ``avals[0]`` is every value.
    ``done(acc) -> bool``
        ``acc`` can no longer change (the terminal value, or any value for ANY).
    ``fold_call``
        :attr:`fold` compiled as an ordinary (not inlined) function, for a second call
        site in one kernel: a second inlined copy of the loop made LLVM compile the hot
        one worse.
    ``combine(found, acc, t) -> acc``
        ``add(acc, t)`` when ``found``, else ``t``: the next step of a fold, and the
        accumulation ``out[i] = combine(present[i], out[i], t)`` of a scatter or a merge.

    Only :attr:`fold` takes arrays: an inlined helper that takes arrays and branches makes
    Numba count references to them on every call (atomic operations per row or product).
    """

    fold: Any
    fold_call: Any
    done: Any
    combine: Any


def _build_folds(semiring: Any, types: tuple) -> Folds:
    mul, add, to_r, has_term, term, is_any = semiring_parts(semiring, types)
    zero = np.dtype(types[2]).type(0)

    @jit(inline="always")
    def done(acc):
        return is_any or (has_term and acc == term)

    @jit(inline="always")
    def combine(found, acc, t):
        return add(acc, t) if found else t

    if is_any or has_term:

        @jit(inline="always")
        def fold_some(s, e, indices, avals, iso, x, xpres):
            """Early exit possible: branch on presence."""
            a0 = avals[0]
            found = False
            acc = zero
            for k in range(s, e):
                j = indices[k]
                if not xpres[j]:
                    continue
                t = to_r(mul(a0 if iso else avals[k], x[j]))
                if found:
                    acc = add(acc, t)
                else:
                    acc = t
                    found = True
                if done(acc):
                    break
            return found, acc

    else:

        @jit(inline="always")
        def fold_some(s, e, indices, avals, iso, x, xpres):
            """The first present entry opens the row; after it, a branch-free select (the
            product of an absent ``x[j]`` is computed and dropped: no mispredicted branch)."""
            a0 = avals[0]
            k = s
            while k < e and not xpres[indices[k]]:
                k += _U1
            if k == e:
                return False, zero
            acc = to_r(mul(a0 if iso else avals[k], x[indices[k]]))
            for k2 in range(k + _U1, e):
                j = indices[k2]
                nxt = add(acc, to_r(mul(a0 if iso else avals[k2], x[j])))
                acc = nxt if xpres[j] else acc
            return True, acc

    @jit(inline="always")
    def fold(s, e, indices, avals, iso, x, xpres, xall):
        if not xall:
            return fold_some(s, e, indices, avals, iso, x, xpres)
        # every x[k] present: the first product opens the row
        a0 = avals[0]
        acc = to_r(mul(a0 if iso else avals[s], x[indices[s]]))
        if not done(acc):
            for k in range(s + _U1, e):
                acc = add(acc, to_r(mul(a0 if iso else avals[k], x[indices[k]])))
                if has_term and acc == term:
                    break
        return True, acc

    return Folds(fold, jit()(fold.py_func), done, combine)


#: The folds of every (semiring, T, M, R) asked for so far.
FOLDS = KernelCache(_build_folds)


def folds(semiring: Any, types: tuple) -> Folds:
    """The :class:`Folds` of ``semiring`` at ``types = (T, M, R)`` (cached in :data:`FOLDS`).
    """
    return FOLDS.get(semiring, types)
