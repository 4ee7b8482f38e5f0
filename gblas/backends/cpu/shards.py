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
from .jitcache import jit
from .mxv import (
    PULL_PARALLEL_COST,
    KernelCache,
    _as_bool,
    _avals,
    _dense_x,
    run_blocks,
    semiring_parts,
    uindex,
)

__all__ = ["pull"]

_U1 = np.uint64(1)


def _build_shards(semiring: Any, types: tuple):
    mul, add, to_r, has_term, term, is_any = semiring_parts(semiring, types)
    zero = types[2].type(0)

    @jit()
    def fold(s, e, indices, avals, iso, x, xpres, xall):
        """``(found, acc)`` over entries [s, e), ``s < e`` (unsigned positions)."""
        a0 = avals[0]
        if xall:
            acc = to_r(mul(a0 if iso else avals[s], x[indices[s]]))
            if not is_any and not (has_term and acc == term):
                for k in range(s + _U1, e):
                    acc = add(acc, to_r(mul(a0 if iso else avals[k], x[indices[k]])))
                    if has_term and acc == term:
                        break
            return True, acc
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
            if is_any or (has_term and acc == term):
                break
        return found, acc

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
                    f, acc = fold(e0, ce, indices, avals, iso, x, xpres, xall)
                    rep[p] = acc
                    rep_found[p] = f
            a0 = avals[0]
            for i in range(r0, r1):
                out[i] = zero
                present[i] = False
                if has_allow and not allow[i]:
                    continue
                s = indptr[i]
                e = indptr[i + 1]
                if i == r1 - 1 and e > e1:  # only a part's last row can run past its end
                    e = e1
                if s >= e:
                    continue
                if xall:
                    acc = to_r(mul(a0 if iso else avals[s], x[indices[s]]))
                    if not is_any and not (has_term and acc == term):
                        for k in range(s + _U1, e):
                            acc = add(acc, to_r(mul(a0 if iso else avals[k], x[indices[k]])))
                            if has_term and acc == term:
                                break
                    out[i] = acc
                    present[i] = True
                else:
                    f, acc = fold(s, e, indices, avals, iso, x, xpres, xall)
                    out[i] = acc
                    present[i] = f

    @jit()
    def aggregate(part_rows, rep, rep_found, out, present):
        for p in range(1, part_rows.size - 1):
            if not rep_found[p]:
                continue
            c = part_rows[p] - 1
            if present[c]:
                if is_any or (has_term and out[c] == term):
                    continue
                out[c] = add(out[c], rep[p])
            else:
                out[c] = rep[p]
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
        The matrix.
    x : VecData
        Dense (a sparse one is densified).
    allow : ndarray of bool or None
        Rows to compute (None: all).
    semiring : Semiring
        Any semiring.
    types : tuple of dtype
        ``(T, M, R)``.

    Returns
    -------
    VecData
        Dense, values of dtype R, ``present`` False where no product met.

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
    out = np.empty(m, dtype=R)
    present = np.empty(m, dtype=np.bool_)
    if m == 0:
        return VecData(m, None, out, present)
    xv, xp, xall = _dense_x(x)
    parts, aggregate = _SHARDS.get(semiring, types)
    P = int(S.part_edges.shape[0]) - 1
    rep = np.zeros(P, dtype=R)
    rep_found = np.zeros(P, dtype=np.bool_)
    avals, iso = _avals(S)
    indptr = uindex(S.indptr)
    part_edges = np.asarray(S.part_edges).astype(indptr.dtype)  # unsigned, as indptr
    args = (part_edges, S.part_rows, indptr, uindex(S.indices), avals, iso, xv, xp, xall,
            _as_bool(allow), allow is not None, out, present, rep, rep_found)
    if P > 1 and S.nnz + m >= PULL_PARALLEL_COST:
        run_blocks(parts, np.arange(P + 1, dtype=np.int64), *args)
    else:
        parts(0, P, *args)
    aggregate(S.part_rows, rep, rep_found, out, present)
    return VecData(m, None, out, present)
