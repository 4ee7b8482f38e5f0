"""CPU (Numba) pull SpMV over replicated shards: Garaph's edge-balanced partitions.

The entries of the CSR are cut into ``P`` parts of equal size (``part_edges``), one per
thread, whatever the rows' degrees.  Part p computes every row it *owns* (the rows whose
first entry falls in it, ``[part_rows[p], part_rows[p+1])``), stopping at its last
entry, and writes them straight into the output; the row cut at its start (when its
first entry is in the middle of a row) is a *replica*: its partial goes to slot p.
Afterwards one thread aggregates the replicas in part order into their rows (Garaph:
"an aggregation phase aggregates values of vertices replicated at the partition
boundaries"), so a row shared by several parts receives its partials in entry order and
only the monoid's associativity is used.  No atomics; at most ``P - 1`` replicas.

Masks skip rows (and replicas) whose mask entry is false; sparse ``x`` is handled as in
the CSR pull kernel; terminal values and ANY stop a row early in every part.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..registry import VecData, register
from .blocks import PULL_PARALLEL_COST, run_blocks
from .folds import KernelCache, folds
from .jitcache import jit
from .operands import as_bool, matrix_values, pull_operands, uindex

__all__ = ["pull"]


def _build_shards(semiring: Any, types: tuple):
    f = folds(semiring, types)
    fold, fold_call, done, combine = f.fold, f.fold_call, f.done, f.combine
    zero = types[2].type(0)

    @jit()
    def parts(plo, phi, part_edges, part_rows, indptr, indices, avals, iso, x, xpres, xall,
              allow, has_allow, out, present, rep, rep_found):
        for p in range(plo, phi):
            e0 = part_edges[p]
            e1 = part_edges[p + 1]
            r0 = part_rows[p]
            r1 = part_rows[p + 1]
            rep_found[p] = False
            # the row cut at this part's start: a replica
            if r0 > 0:
                c = r0 - 1
                ce = min(indptr[r0], e1)
                if ce > e0 and (not has_allow or allow[c]):
                    found, acc = fold_call(e0, ce, indices, avals, iso, x, xpres, xall)
                    rep[p] = acc
                    rep_found[p] = found
            for i in range(r0, r1):
                s = indptr[i]
                e = min(indptr[i + 1], e1)  # only a part's last row can run past its end
                present[i] = False
                out[i] = zero
                if s < e and (not has_allow or allow[i]):
                    found, acc = fold(s, e, indices, avals, iso, x, xpres, xall)
                    out[i] = acc
                    present[i] = found

    @jit()
    def aggregate(part_rows, rep, rep_found, out, present):
        for p in range(1, part_rows.size - 1):
            c = part_rows[p] - 1
            seen = present[c]
            if rep_found[p] and not (seen and done(out[c])):
                out[c] = combine(seen, out[c], rep[p])
                present[c] = True

    return parts, aggregate


_SHARDS = KernelCache(_build_shards)


@register("mxv", "shards", "cpu", "pull")
def pull(S: Any, x: VecData, allow: Any, semiring: Any, types: tuple) -> VecData:
    """Pull SpMV over :class:`~gblas.formats.shards.Shards` (same contract as the CSR pull
    kernel of :mod:`.mxv`): equal edge parts per thread, replicated boundary rows.

    Parameters
    ----------
    S : Shards
        The matrix; the other arguments and the result are those of
        :func:`gblas.backends.cpu.mxv.pull`.

    Examples
    --------
    >>> from gblas.formats import CSR
    >>> from gblas.formats.shards import Shards
    >>> from gblas.semirings import semiring
    >>> A = CSR.from_coo(np.zeros(5, int), np.arange(5), np.arange(1.0, 6.0), (1, 5))
    >>> S = Shards.from_csr(A, threads=3)          # the one row is cut twice: 2 replicas
    >>> s = semiring("plus_times")
    >>> pull(S, VecData(5, None, np.ones(5)), None, s,
    ...      s.types(np.dtype("f8"), np.dtype("f8"))).values.tolist()
    [15.0]
    """
    R = np.dtype(types[2])
    m = int(S.shape[0])
    out, present, xv, xp, xall = pull_operands(m, x, R)
    if m == 0:
        return VecData(m, None, out, present)
    parts, aggregate = _SHARDS.get(semiring, types)
    P = int(S.part_edges.shape[0]) - 1
    rep = np.zeros(P, dtype=R)
    rep_found = np.zeros(P, dtype=np.bool_)
    avals, iso = matrix_values(S)
    indptr = uindex(S.indptr)
    part_edges = np.asarray(S.part_edges).astype(indptr.dtype)  # unsigned, as indptr
    args = (part_edges, S.part_rows, indptr, uindex(S.indices), avals, iso, xv, xp, xall,
            as_bool(allow), allow is not None, out, present, rep, rep_found)
    if P > 1 and S.nnz + m >= PULL_PARALLEL_COST:
        run_blocks(parts, np.arange(P + 1, dtype=np.int64), *args)
    else:
        parts(0, P, *args)
    aggregate(S.part_rows, rep, rep_found, out, present)
    return VecData(m, None, out, present)
