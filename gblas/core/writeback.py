"""The write-back ``out<mask, replace> (+)= T`` (DESIGN §2).

1. ``Z = T`` without accum, else ``Z = out (.)accum T`` on the union of patterns;
2. where the mask is true, ``out`` takes Z's entry (or loses its entry if Z has none);
3. where it is false, ``out`` keeps its entry, or loses it with ``replace=True``.

The write-back builds the new content in fresh arrays and swaps it into ``out`` at the
end, so a failure part-way never leaves ``out`` half-written.  The dense assignments and
scatters write into ``out``'s own arrays instead, after every check, when ``out`` owns
them (``Vector.owns_storage``: gblas allocated them for it and nothing else shares them);
otherwise they write into copies, which ``out`` then owns (copy-on-write), so an
iterative algorithm pays one copy and then updates in place.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from .._device import count_nonzero, unique, xp_for
from ..backends.registry import VecData
from ..formats import CSR
from . import hyper
from .arrays import (
    assign_where,
    cast,
    compress,
    csr_from_keys,
    csr_keys,
    map_binary,
    member,
    merge_kernel,
    where,
)
from .matrix import Matrix
from .vector import Vector

# ---------------------------------------------------------------------- vectors


def _allowed_entries(mask, T: VecData, device: str) -> tuple:
    """``(indices, values)`` of the sparse ``T``'s entries that ``mask`` allows (T's own
    arrays when the mask is T's structure, as in ``apply(q, ..., mask=q.S)``)."""
    d = mask.parent._data
    if d.indices is T.indices and mask.structural and not mask.complement:
        return T.indices, T.values
    return compress(mask.allow_at(T.indices), T.indices, T.values, device=device)


def writeback_vector(out, T: VecData, t_dtype, mask, accum, replace: bool, device: str,
                     premasked: bool = False):
    """Write ``T`` into ``out`` (a Vector or None) through mask/accum/replace.

    ``premasked``: ``T`` has no entry where ``mask`` disallows one (a kernel that was
    given the mask's ``allow`` array), so T's entries need no second test."""
    xp = xp_for(device)
    if out is None:
        if mask is None or premasked:
            return Vector(T, t_dtype, device)  # not owned: T may hold an operand's arrays
        if T.indices is not None:
            idx, vals = _allowed_entries(mask, T, device)
            return Vector(VecData(T.size, idx, vals, None), t_dtype, device)
        allow = mask.allow()
        present = allow if T.present is None else (T.present & allow)
        return Vector(VecData(T.size, None, T.values, present), t_dtype, device)
    if T.indices is not None and not replace and (
            accum is not None or (mask is not None and mask.within(T.indices))):
        # only T's (allowed) positions change: a scatter, not a pass over the whole vector
        return _scatter_into(out, T, t_dtype, None if premasked else mask, accum, device)

    if T.indices is not None and device == "cpu" and hyper.involved(out):
        # a sparse out far larger than its entries stays sparse: the compact write-back
        # (on the CPU; on the GPU the dense pass below, which the device's memory bounds)
        return hyper.writeback_vector(out, T, t_dtype, mask, accum, replace, device,
                                      premasked, writeback_vector)
    if (T.indices is None and mask is not None and accum is None and not replace
            and out.is_dense_storage):
        return _assign_dense(out, T, mask, device)
    od = out.dense_data()
    n, D = od.size, out.dtype
    ov = od.values
    if (mask is None and accum is not None and od.present is None and T.indices is None):
        # out full, T dense, no mask: out = accum(out, T) where T has an entry (an
        # iterative update such as PageRank's r' += A' s), out stays full
        cd = dtypes.unify(D, t_dtype)
        r = cast(map_binary(accum, cast(ov, cd), cast(T.values, cd), cd, device), D)
        newv = r if T.present is None else where(T.present, r, ov, device)
        # a map's or a blend's result: a new array unless every cast was a no-op on an
        # operand's array, which only an identity accumulator could pass through
        out._replace_data(VecData(n, None, xp.ascontiguousarray(newv), None),
                          owned=_fresh(newv, ov, T))
        return out
    op = xp.ones(n, bool) if od.present is None else od.present
    td = Vector(T, t_dtype, device).dense_data()
    tv = td.values
    tp = xp.ones(n, bool) if td.present is None else td.present
    if accum is None:
        zv, zp = cast(tv, D), tp
    else:
        cd = dtypes.unify(D, t_dtype)
        both = xp.flatnonzero(op & tp)
        zv = where(tp, cast(tv, D), ov, device)
        if both.shape[0]:
            r = map_binary(accum, cast(ov[both], cd), cast(tv[both], cd), cd, device)
            zv[both] = cast(r, D)
        zp = op | tp
    if mask is None:
        newv, newp = zv, zp
    else:
        allow = mask.allow()
        newv = where(allow, zv, ov, device)
        newp = (allow & zp) | (~allow & op) if not replace else allow & zp
    newv = xp.ascontiguousarray(newv)
    out._replace_data(VecData(n, None, newv, newp),
                      owned=_fresh(newv, ov, T) and _fresh(newp, od.present, T))
    return out


def _base(a):
    """The array whose memory ``a`` uses (a view's base)."""
    while getattr(a, "base", None) is not None:
        a = a.base
    return a


def _fresh(a, old, T: VecData) -> bool:
    """Whether the write-back's array ``a`` is new: not (a view of) ``out``'s old array
    ``old`` nor any of ``T``'s arrays (which may be an operand's)."""
    if a is None:
        return True
    b = _base(a)
    return all(x is None or _base(x) is not b for x in (old, T.indices, T.values, T.present))


def _writable(out, T: VecData) -> bool:
    """Whether the write-back may update ``out``'s arrays in place: ``out`` owns them
    (``Vector.owns_storage``) and ``T`` shares none of their memory."""
    if not out._owned:
        return False
    mine = [_base(a) for a in (out._data.values, out._data.present) if a is not None]
    return not any(a is not None and any(_base(a) is b for b in mine)
                   for a in (T.indices, T.values, T.present))


def _assign_dense(out, T: VecData, mask, device: str):
    """``out<mask> = T`` for a dense ``T`` and a dense-stored ``out`` (no accumulator, no
    replace): allowed positions take T's entry or lose theirs, the others keep out's.

    One pass over the values, in out's own arrays when it owns them (no new vector-sized
    array to allocate and fill), else in a copy that it then owns."""
    mine = _writable(out, T)
    od = out._data
    allow = mask.allow()
    hit = allow if T.present is None else allow & T.present
    newv = od.values if mine else od.values.copy()
    assign_where(hit, cast(T.values, out.dtype), newv, device)
    if T.present is None:
        # every allowed position gets an entry
        newp = None if od.present is None else (od.present | allow)
    elif od.present is None:
        # allowed positions where T has no entry lose out's
        drop = allow & ~T.present
        newp = ~drop if count_nonzero(drop) else None
    else:
        newp = (od.present & ~allow) | hit
    # newv is out's array (owned) or a copy; newp a new array, out's, or None
    out._replace_data(VecData(od.size, None, newv, newp), owned=True)
    return out


#: A sparse-stored ``out`` that a scatter would leave with more than one entry in this
#: many positions turns dense (see :func:`_scatter_into`).
DENSE_OUT_RATIO = 16


def _scatter_into(out, T: VecData, t_dtype, mask, accum, device: str):
    """``out<mask> accum= T`` when only T's positions can change (T sparse, no replace, and
    an accumulator or a mask within T's structure): copy out, scatter T's allowed entries."""
    xp = xp_for(device)
    idx, tv = T.indices, T.values
    if mask is not None:
        idx, tv = _allowed_entries(mask, T, device)
    D = out.dtype
    if out.is_dense_storage:
        mine = _writable(out, T)
        od = out._data
        n = od.size
        # out's arrays are updated in place when it owns them (no other Vector, view or
        # user array shares them): a scatter then costs O(len(T)), not O(n); otherwise
        # in copies that out owns from then on
        newv = od.values if mine else od.values.copy()
        if od.present is None:
            newp = None
        else:
            newp = od.present if mine else od.present.copy()
        if accum is not None and idx.shape[0]:
            had = xp.ones(idx.shape[0], bool) if newp is None else newp[idx]
            both = idx if newp is None else idx[had]
            if both.shape[0]:
                cd = dtypes.unify(D, t_dtype)
                r = map_binary(accum, cast(newv[both], cd), cast(tv[had], cd), cd, device)
                tv = cast(tv, D).copy()
                tv[had] = cast(r, D)
        newv[idx] = cast(tv, D)
        count = None
        if newp is not None:
            if device == "cpu" and out._nvals is not None:
                # the entries counted before, plus T's new positions: O(len(T)) instead of
                # a count over the whole vector at the next nvals (a BFS's visited set)
                count = out._nvals + idx.shape[0] - int(np.count_nonzero(newp[idx]))
            newp[idx] = True
        out._replace_data(VecData(n, None, newv, newp), owned=True)
        out._nvals = count
        return out
    od = out._data
    if (od.indices.shape[0] + idx.shape[0]) * DENSE_OUT_RATIO > od.size:
        # out would hold many entries: it turns dense (one O(size) pass), so that this
        # scatter and the later ones cost O(len(T)) instead of a merge sort of out's
        # entries (a BFS writing each level into its visited set)
        # a dense form made now is new arrays: out owns them and the scatter writes in
        # place (one converted earlier may have been handed out: then copies)
        made = out._other is None
        out._replace_data(out.dense_data(), owned=made)
        return _scatter_into(out, VecData(T.size, idx, tv, None), t_dtype, None, accum,
                             device)
    # sparse out: merge two sorted index lists
    oi, ov = od.indices, cast(od.values, D)
    tv = cast(tv, D)
    if accum is not None and idx.shape[0] and oi.shape[0]:
        pos = xp.minimum(xp.searchsorted(oi, idx), oi.shape[0] - 1)
        had = oi[pos] == idx
        if count_nonzero(had):
            cd = dtypes.unify(D, t_dtype)
            r = map_binary(accum, cast(ov[pos[had]], cd), cast(tv[had], cd), cd, device)
            tv = tv.copy()
            tv[had] = cast(r, D)
    keys = xp.concatenate([idx, oi])
    vals = xp.concatenate([tv, ov])
    # T's entries first: a stable sort keeps them ahead of out's at equal indices
    order = xp.argsort(keys, kind="stable")
    keys, vals = keys[order], vals[order]
    if keys.shape[0]:
        first = xp.ones(keys.shape[0], bool)
        first[1:] = keys[1:] != keys[:-1]
        keys, vals = keys[first], vals[first]
    # new arrays (a concatenation, sorted and compressed)
    out._replace_data(VecData(od.size, keys, xp.ascontiguousarray(vals), None), owned=True)
    return out


# ---------------------------------------------------------------------- matrices




def writeback_matrix(out, T: CSR, mask, accum, replace: bool, device: str):
    """Write the CSR ``T`` into ``out`` (a Matrix or None) through mask/accum/replace."""
    if hyper.involved(T, out, mask):  # hypersparse: over the compact union of the patterns
        return hyper.writeback_matrix(out, T, mask, accum, replace, device, writeback_matrix)
    xp = xp_for(device)
    union = merge_kernel("merge_union", "csr", device)
    if union is not None:
        return _writeback_merged(out, T, mask, accum, replace, device, union,
                                 merge_kernel("merge_member", "csr", device))
    if out is None:
        if mask is None:
            return Matrix(T)
        tk = csr_keys(T)
        keep = mask.allow_keys(tk)
        return Matrix(csr_from_keys(tk[keep], T.dense_values()[keep], T.shape, T.dtype, device))

    oc = out.csr()
    D = out.dtype
    ok, ov = csr_keys(oc), oc.dense_values()
    tk, tv = csr_keys(T), T.dense_values()
    keys = unique(xp.concatenate([ok, tk]))
    in_o, in_t = member(keys, ok, xp), member(keys, tk, xp)
    o_at = xp.searchsorted(ok, keys)
    t_at = xp.searchsorted(tk, keys)
    ovu = xp.zeros(keys.shape[0], D)
    ovu[in_o] = ov[o_at[in_o]]
    tvu = xp.zeros(keys.shape[0], T.dtype)
    tvu[in_t] = tv[t_at[in_t]]
    allow = None if mask is None else mask.allow_keys(keys)
    newv, newp = _blend(xp, ovu, tvu, in_o, in_t, D, accum, allow, replace, device)
    out._replace_csr(csr_from_keys(keys[newp], newv[newp], out.shape, D, device))
    return out


def _blend(xp, ovu, tvu, in_o, in_t, D, accum, allow, replace: bool, device: str):
    """``(values, present)`` of ``out<allow, replace> (+)= T`` over the union of their
    patterns: ``ovu`` / ``tvu`` the two sides' values there (``in_o`` / ``in_t`` where
    present), ``allow`` the mask at those entries (None: no mask)."""
    if accum is None:
        zv, zp = cast(tvu, D), in_t
    else:
        cd = dtypes.unify(D, tvu.dtype)
        both = xp.flatnonzero(in_o & in_t)
        zv = xp.where(in_t, cast(tvu, D), ovu)
        if both.shape[0]:
            r = map_binary(accum, cast(ovu[both], cd), cast(tvu[both], cd), cd, device)
            zv[both] = cast(r, D)
        zp = in_o | in_t
    if allow is None:
        return zv, zp
    return xp.where(allow, zv, ovu), xp.where(allow, zp, in_o & (not replace))


def _writeback_merged(out, T: CSR, mask, accum, replace: bool, device: str, union, member):
    """:func:`writeback_matrix` by linear merges of the sorted row patterns (``union``,
    ``member``: the device's ``merge_union`` / ``merge_member`` kernels) instead of a
    sort of ``out``'s and ``T``'s keys."""
    xp = xp_for(device)
    if out is None:
        if mask is None:
            return Matrix(T)
        keep = mask.allow_pattern(T.indptr, T.indices, member)
        return Matrix(compress_csr(T, keep, T.dense_values(), T.dtype, device))
    oc = out.csr()
    D = out.dtype
    m, n = out.shape
    ptr, idx, po, pt = union(oc.indptr, oc.indices, T.indptr, T.indices,
                             dtypes.index_dtype(n))
    in_o, in_t = po >= 0, pt >= 0
    ov, tv = oc.dense_values(), T.dense_values()
    nnz = idx.shape[0]
    ovu = xp.zeros(nnz, D)
    if ov.shape[0]:
        ovu[in_o] = ov[po[in_o]]
    tvu = xp.zeros(nnz, T.dtype)
    if tv.shape[0]:
        tvu[in_t] = tv[pt[in_t]]
    allow = None if mask is None else mask.allow_pattern(ptr, idx, member)
    newv, newp = _blend(xp, ovu, tvu, in_o, in_t, D, accum, allow, replace, device)
    merged = CSR((m, n), ptr, idx, newv, np.dtype(D), None, device)
    out._replace_csr(compress_csr(merged, newp, newv, D, device))
    return out


def compress_csr(csr: CSR, keep, values, dtype, device) -> CSR:
    """The entries of ``csr`` where ``keep`` (its row pointers recounted per row), with
    ``values`` (one per entry of ``csr``) as ``dtype``."""
    xp = xp_for(device)
    m, n = csr.shape
    nnz = count_nonzero(keep) if keep.shape[0] else 0
    indptr = xp.zeros(m + 1, dtype=dtypes.index_dtype(nnz))
    if nnz == keep.shape[0]:
        cols, vals = csr.indices, values
        indptr[1:] = csr.indptr[1:]
    else:
        cols, vals = compress(keep, csr.indices, values, device=device)
        if nnz:
            # kept entries per row: a prefix count of ``keep`` read at the row ends
            kept = xp.zeros(keep.shape[0] + 1, np.int64)
            xp.cumsum(keep, out=kept[1:])
            indptr[1:] = kept[csr.indptr[1:].astype(np.int64)]
    return CSR((m, n), indptr, cols.astype(dtypes.index_dtype(n), copy=False),
               xp.ascontiguousarray(vals.astype(dtype, copy=False)), np.dtype(dtype), None,
               device)
