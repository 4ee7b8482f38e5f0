"""Distributed ``mxm``: block ``(i, j)`` of ``C = A (+.*) B`` is the sum over ``k`` of
``A_ik (+.*) B_kj``, computed by one task on the owner of ``(i, j)`` that receives grid
row ``i`` of A and grid column ``j`` of B (``O(nnz / sqrt(p))`` words per task on a
square grid, as in 2D SUMMA), with the mask, accumulator and ``replace`` of block
``(i, j)`` applied there.

Examples
--------
>>> from gblas.distributed.spgemm import mxm
>>> mxm.__name__
'mxm'
"""

from __future__ import annotations

import numpy as np

from ..core.matrix import Matrix, TransposedMatrix
from ..exceptions import DimensionMismatch, InvalidObject, bad_arg
from . import exchange
from .grid import Grid, check_same_grid, same_bounds
from .matrix import DistMatrix

__all__ = ["mxm", "block_mxm"]


def block_mxm(arow: list, bcol: list, semiring, mask, accum, out, replace: bool):
    """``out<mask, replace> (+)= sum_k A_ik (+.*) B_kj`` for one output block."""
    from ..core.elementwise import apply, ewise_add
    from ..core.operations import mxm as local_mxm
    from ..semirings import semiring as resolve

    s = resolve(exchange.unship(semiring), "mxm")
    m = exchange._unpack(mask)
    T = None
    dev = arow[0].device if arow else "cpu"
    m = exchange._on(dev, m)
    for a, b in zip(arow, bcol):
        P = local_mxm(exchange._on(dev, a), exchange._on(dev, b), s, mask=m)
        T = P if T is None else ewise_add(T, P, s.add.op)
    accum = exchange.unship(accum)
    if accum is None and out is None:
        return T
    out = (Matrix.from_coo(np.zeros(0, np.int64), np.zeros(0, np.int64),
                           np.zeros(0, T.dtype), shape=T.shape) if out is None else out.dup())
    return apply(T, "identity", mask=m, accum=accum, out=out, replace=replace)


def mxm(A, B, semiring="plus_times", *, mask=None, accum=None, out=None, replace=False):
    """Distributed ``out<mask, replace> (+)= A (+.*) B`` (both DistMatrix; A's column cuts
    must be B's row cuts)."""
    import gblas as gb

    from .operations import local_proxy, materialize

    call = "mxm"
    A, B = materialize(A), materialize(B)
    for arg, M in (("A", A), ("B", B)):
        if not isinstance(M, DistMatrix):
            what = type(M).__name__
            fix = ("Distribute it on the other operand's grid."
                   if isinstance(M, (Matrix, TransposedMatrix)) else None)
            raise bad_arg(InvalidObject, call, arg, "a DistMatrix", what, fix)
    if A.shape[1] != B.shape[0]:
        raise bad_arg(DimensionMismatch, call, "B", f"{A.shape[1]} rows (A has "
                      f"{A.shape[1]} columns)", f"shape {B.shape}")
    ga, gb_ = A.grid, B.grid
    if not same_bounds(ga.col_bounds, gb_.row_bounds):
        raise bad_arg(DimensionMismatch, call, "B", f"row cuts equal to A's column cuts "
                      f"({ga.pc} parts)", f"{gb_.pr} row parts with other cuts",
                      "Distribute both on the same square grid.")
    res = gb.mxm(local_proxy(A), local_proxy(B), semiring, mask=local_proxy(mask), accum=accum,
                 out=local_proxy(out), replace=replace)
    shape = (A.shape[0], B.shape[1])
    owners = tuple(ga.owner(i, j % ga.pc) for i in range(ga.pr) for j in range(gb_.pc))
    g = Grid(ga.pr, gb_.pc, ga.row_bounds, gb_.col_bounds, owners)
    for arg, M in (("mask", None if mask is None else mask.parent), ("out", out)):
        if M is not None:
            if not isinstance(M, DistMatrix):
                raise bad_arg(InvalidObject, call, arg, "a DistMatrix (or its mask)",
                              type(M).__name__)
            check_same_grid(g, M.grid, call, arg)
    sem, acc = exchange.ship(gb.semirings.semiring(semiring, call) if isinstance(
        semiring, str) else semiring), exchange.ship(accum)
    c = A.client
    blocks = []
    for i in range(g.pr):
        for j in range(g.pc):
            spec = None if mask is None else mask.spec(mask.parent.block(i, j))
            blocks.append(c.submit(
                block_mxm, [A.block(i, k) for k in range(ga.pc)],
                [B.block(k, j) for k in range(gb_.pr)], sem, spec, acc,
                None if out is None else out.block(i, j), replace,
                workers=[g.owner(i, j)], pure=False))
    C = DistMatrix(c, g, blocks, shape, res.dtype, A.device, timeout=A.timeout)
    if out is None:
        return C
    out.blocks, out.dtype, out._nvals, out._source = blocks, res.dtype, None, None
    return out
