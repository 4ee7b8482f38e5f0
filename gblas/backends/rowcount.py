"""``y = A (+.pair) 1``: each row's entry count, read from the CSR row pointers.

Shared by the CPU and GPU backends (``xp`` is NumPy or CuPy); registered by each as
``("mxv", "csr", dev, "rowcount")`` with the pull kernel's contract, for a full ``x`` and
no mask (the planner picks it only then).
"""

from __future__ import annotations

import numpy as np

from .registry import VecData


def row_counts(xp, A, x: VecData, allow, semiring, types) -> VecData:
    """Entry counts per row as a dense VecData of dtype R (empty rows: no entry)."""
    _, _, R = types
    counts = xp.diff(A.indptr.astype(xp.int64))
    present = counts > 0
    values = present if R.kind == "b" else counts.astype(R)  # plus on bool is lor
    if allow is not None:
        present &= allow
    return VecData(A.shape[0], None, values, None if _all_true(xp, present) else present)


def _all_true(xp, a) -> bool:
    """Whether every entry of the bool array ``a`` is True (on the GPU by gblas's count:
    CuPy's ``all`` compiles a CUB reduction on a machine's first use)."""
    if xp is np:
        return bool(a.all())
    from .gpu.reductions import count_nonzero

    return count_nonzero(a) == a.size
