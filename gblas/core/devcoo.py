"""Coordinate lists to CSR where the arrays live: NumPy on the CPU, CuPy on the GPU.

:meth:`Matrix.from_coo` given CuPy arrays builds the CSR here, on the device, so the
entries never go through the host.  The code is written once against the array module
``xp`` (the NumPy functions it uses exist in CuPy with the same meaning), which lets the
CPU tests check it against :meth:`gblas.formats.CSR.from_coo`.

Duplicates are combined on the device for the operators whose fold needs no atomics:
``first``, ``second`` and ``any`` (a gather), and ``plus`` over integers (a running sum:
integer addition wraps, so differences of the running sum are the wrapped group sums,
exactly).  Other operators (``plus`` over floats, ``min``, ``max``, user operators) fold
the duplicate groups' values on the host with the CPU's fold (the same result to the
last bit) and copy them back; the coordinates stay on the device.

Examples
--------
>>> import numpy as np
>>> from gblas.core.devcoo import csr_arrays_from_coo
>>> indptr, indices, values = csr_arrays_from_coo(
...     np, np.array([1, 0, 1]), np.array([0, 1, 0]), np.array([2, 3, 4]), (2, 2), "plus")
>>> indptr.tolist(), indices.tolist(), values.tolist()
([0, 1, 2], [1, 0], [3, 6])
"""

from __future__ import annotations

import numpy as np

from .. import dtypes

__all__ = ["csr_arrays_from_coo", "DuplicateEntries"]


class DuplicateEntries(Exception):
    """Duplicate coordinates met with ``dup_op=None`` (the caller words the error)."""


def _op_code(dup_op) -> str | None:
    if dup_op is None or isinstance(dup_op, str):
        return dup_op
    return getattr(dup_op, "code", None) or getattr(dup_op, "name", None)


def _combine(xp, dup_op, values, first, starts):
    """The values of the groups of equal coordinates (sorted, ``first`` marks each
    group's first entry, ``starts`` their positions), folded left to right by
    ``dup_op``."""
    code = _op_code(dup_op)
    size = values.shape[0]
    if code in ("first", "any"):
        return values[starts]
    if code == "second":
        ends = xp.empty_like(starts)
        ends[:-1] = starts[1:]
        ends[-1:] = size
        return values[ends - 1]
    if code == "plus" and values.dtype.kind in "iu":
        # exact: integer addition wraps, so the running sum's differences are the
        # (wrapped) sums of the groups
        run = xp.cumsum(values, dtype=values.dtype)
        ends = xp.empty_like(starts)
        ends[:-1] = starts[1:]
        ends[-1:] = size
        total = run[ends - 1]
        before = xp.zeros_like(total)
        before[1:] = run[starts[1:] - 1]
        return (total - before).astype(values.dtype, copy=False)
    # the CPU's fold, on the host (bit-for-bit what CSR.from_coo gives)
    from .._device import to_device, to_numpy
    from ..formats.csr import reduce_groups
    from ..semirings import binary_op

    op = binary_op(dup_op, "Matrix.from_coo", "dup_op")
    dev = "cpu" if xp is np else "gpu"
    folded = reduce_groups(op, to_numpy(values), to_numpy(starts))
    return to_device(np.asarray(folded).astype(values.dtype, copy=False), dev)


def csr_arrays_from_coo(xp, rows, cols, values, shape, dup_op="plus", iso_value=None):
    """``(indptr, indices, values)`` of the CSR of coordinate lists, made with ``xp``.

    Parameters
    ----------
    xp : module
        ``numpy`` or ``cupy``: every array is made with it (nothing is copied to the
        host, except the values of duplicate groups that only the CPU's fold combines).
    rows, cols : arrays of int
        Validated coordinates (within ``shape``), on ``xp``'s device.
    values : array or None
        One value per entry; None for an iso matrix (every entry ``iso_value``).
    shape : (int, int)
    dup_op : str, BinaryOp or None
        How duplicates combine; None raises :class:`DuplicateEntries` when there are any.
    iso_value : scalar, optional
        The value of every entry when ``values`` is None (None or True: a pattern).
        When duplicates combine to a new value (``plus`` of an iso value other than
        ``True``), the values are stored.

    Returns
    -------
    indptr, indices : int32 while they fit, int64 beyond (as on the CPU)
    values : array or None (iso)

    Examples
    --------
    >>> import numpy as np
    >>> from gblas.core.devcoo import csr_arrays_from_coo
    >>> p, i, v = csr_arrays_from_coo(np, np.array([0, 0]), np.array([1, 1]), None, (1, 2),
    ...                               "plus", iso_value=2)
    >>> p.tolist(), i.tolist(), v.tolist()
    ([0, 1], [1], [4])
    """
    m, n = int(shape[0]), int(shape[1])
    rows = rows.astype(np.int64, copy=False)
    cols = cols.astype(np.int64, copy=False)
    key = rows * max(n, 1) + cols
    nnz = int(key.shape[0])
    if nnz > 1 and bool((key[1:] < key[:-1]).any()):
        # sort by (row, col), ties kept in the given order (lexsort is stable on both
        # NumPy and CuPy: the last key is the primary one)
        order = xp.lexsort(xp.stack([xp.arange(nnz, dtype=np.int64), key]))
        key, rows, cols = key[order], rows[order], cols[order]
        if values is not None:
            values = values[order]
    if nnz > 1:
        first = xp.empty(nnz, dtype=bool)
        first[0] = True
        xp.not_equal(key[1:], key[:-1], out=first[1:])
        groups = int(first.sum())
        if groups != nnz:
            if dup_op is None:
                raise DuplicateEntries
            starts = xp.flatnonzero(first)
            if values is None and iso_value is not None \
                    and not isinstance(iso_value, (bool, np.bool_)) \
                    and _op_code(dup_op) not in ("first", "second", "any", "min", "max",
                                                  "lor", "land"):
                values = xp.full(nnz, iso_value)
            if values is not None:
                values = _combine(xp, dup_op, values, first, starts)
            rows, cols = rows[starts], cols[starts]
            nnz = groups
    indptr = xp.zeros(m + 1, dtype=dtypes.index_dtype(nnz))
    if nnz:
        xp.cumsum(xp.bincount(rows, minlength=m), out=indptr[1:])
    indices = cols.astype(dtypes.index_dtype(n))
    if values is not None:
        values = xp.ascontiguousarray(values.copy())
    return indptr, indices, values
