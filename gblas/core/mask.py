"""Masks: ``v.S``, ``v.V``, ``~v.S``, ``~v.V`` of a Vector or Matrix, and what kernels read of them.

The write-back ``out<mask, replace> (+)= T`` (DESIGN §2).

1. ``Z = T`` without accum, else ``Z = out (.)accum T`` on the union of patterns;
2. where the mask is true, ``out`` takes Z's entry (or loses its entry if Z has none);
3. where it is false, ``out`` keeps its entry, or loses it with ``replace=True``.

The write-back builds the new content in fresh arrays and swaps it into ``out`` at the
end, so a failure part-way never leaves ``out`` half-written.
"""

from __future__ import annotations

from .. import dtypes
from .._device import all_true, count_nonzero, xp_for
from ..backends.registry import MatMask
from .arrays import compress, csr_keys, member
from .executor import array_kernel


class Mask:
    """A mask view of a Vector or Matrix: ``v.S``, ``v.V``, ``~v.S``, ``~v.V``.

    Examples
    --------
    >>> import gblas as gb
    >>> v = gb.Vector.from_coo([1], [0], size=3)
    >>> v.S.allow().tolist(), v.V.allow().tolist(), (~v.S).allow().tolist()
    ([False, True, False], [False, False, False], [True, False, True])
    """

    __slots__ = ("parent", "structural", "complement")

    def __init__(self, parent, structural: bool, complement: bool = False) -> None:
        self.parent = parent
        self.structural = structural
        self.complement = complement

    def __invert__(self) -> Mask:
        return Mask(self.parent, self.structural, not self.complement)

    @property
    def shape(self):
        return self.parent.shape

    @property
    def device(self) -> str:
        return self.parent.device

    @property
    def kind(self) -> str:
        return ("~" if self.complement else "") + ("S" if self.structural else "V")

    def __repr__(self) -> str:
        return f"Mask({self.kind}, of {self.parent!r})"

    # ------------------------------------------------------------------ vector masks
    def allow(self):
        """Vector masks: a bool array, True where the mask lets a result through."""
        assert len(self.parent.shape) == 1, "a vector mask"
        d = self.parent.dense_data()
        xp = xp_for(self.parent.device)
        device = self.parent.device
        if self.structural and d.present is not None:
            # a new array either way: the complement is one pass (no copy first)
            if self.complement:
                return array_kernel("logical_not", device)(d.present)
            return d.present.copy()
        if self.structural or self.parent.dtype == dtypes.BOOL:
            a = xp.ones(d.size, bool) if d.present is None else d.present.copy()
            if not self.structural:
                a &= d.values.astype(bool)
        else:
            a = d.values != 0
            if d.present is not None:
                a &= d.present
        return array_kernel("logical_not", device)(a) if self.complement else a

    def allow_at(self, idx):
        """Vector masks: whether the mask lets a result through at each position of
        ``idx`` (an int64 array), in ``O(len(idx))`` (``O(len(idx) log nvals)`` for a
        sparse mask) rather than the ``O(size)`` of :meth:`allow`."""
        xp = xp_for(self.parent.device)
        d = self.parent._data
        if d.indices is idx:
            # the mask has exactly these positions (e.g. a comparison of the result itself)
            a = xp.ones(idx.shape[0], bool) if self.structural else d.values.astype(bool)
            return ~a if self.complement else a
        if d.indices is not None and idx.shape[0] * 8 > d.size:
            # many positions: one O(size) dense pass beats a binary search each
            return self.allow()[idx]
        if d.indices is not None:
            if d.indices.shape[0] == 0:
                a = xp.zeros(idx.shape[0], bool)
            else:
                pos = xp.minimum(xp.searchsorted(d.indices, idx), d.indices.shape[0] - 1)
                a = d.indices[pos] == idx
                if not self.structural:
                    a &= d.values[pos].astype(bool)
        else:
            a = xp.ones(idx.shape[0], bool) if d.present is None else d.present[idx]
            if not self.structural:
                a = a & d.values[idx].astype(bool)
        return ~a if self.complement else a

    def allowed_indices(self):
        """Vector masks: the sorted positions the mask lets a result through (int64), or
        None for a complemented mask (it allows nearly everything in a typical use).
        ``O(nvals)`` for a sparse-stored parent, one pass over it when dense.

        Examples
        --------
        >>> import gblas as gb
        >>> v = gb.Vector.from_coo([1, 3], [0, 2], size=5)
        >>> v.S.allowed_indices().tolist(), v.V.allowed_indices().tolist()
        ([1, 3], [3])
        """
        if self.complement:
            return None
        d = self.parent._data
        xp = xp_for(self.parent.device)
        if d.indices is None:
            return xp.flatnonzero(self.allow())
        if self.structural:
            return d.indices
        return compress(d.values.astype(bool), d.indices, device=self.parent.device)

    def within(self, idx) -> bool:
        """Vector masks: whether every position the mask allows is in the sorted array
        ``idx`` (then a write-back only touches ``idx``)."""
        if self.complement:
            return False
        d = self.parent._data
        if d.indices is None:
            return False
        if d.indices is idx:
            return True
        xp = xp_for(self.parent.device)
        cand = self.allowed_indices()
        if cand.shape[0] > idx.shape[0]:
            return False
        return all_true(member(cand, idx, xp))

    def count_allowed(self) -> int:
        """How many positions the mask allows (a planner statistic)."""
        if len(self.shape) == 1:
            if self.structural:
                n = self.parent.nvals
                return self.parent.size - n if self.complement else n
            return array_kernel("count_true", self.device)(self.allow())
        mm = self.matmask()
        n = int(mm.indices.shape[0]) if mm.values is None else count_nonzero(mm.values)
        total = int(self.shape[0]) * int(self.shape[1])
        return total - n if self.complement else n

    # ------------------------------------------------------------------ matrix masks
    def matmask(self) -> MatMask:
        """Matrix masks: the CSR arrays a kernel reads."""
        csr = self.parent.csr()
        vals = None if (self.structural or csr.values is None) else csr.values
        structural = self.structural or (csr.values is None and bool(csr.iso_value))
        if csr.values is None and not self.structural and not bool(csr.iso_value):
            # an iso-false value mask allows nothing: an empty structure
            xp = xp_for(csr.device)
            return MatMask(xp.zeros(csr.shape[0] + 1, csr.indptr.dtype),
                           csr.indices[:0], None, True, self.complement)
        return MatMask(csr.indptr, csr.indices, vals, structural, self.complement)

    def allow_pattern(self, indptr, indices, member):
        """Matrix masks: whether each entry of a CSR pattern (row pointers, columns sorted
        within rows) is allowed, by ``member`` (a ``merge_member`` kernel: linear in both
        patterns)."""
        csr = self.parent.csr()
        pos = member(indptr, indices, csr.indptr, csr.indices)
        hit = pos >= 0
        if not self.structural:
            vals = csr.dense_values()
            if vals.shape[0]:
                hit &= vals[xp_for(csr.device).maximum(pos, 0)].astype(bool)
        return ~hit if self.complement else hit

    def allow_keys(self, keys):
        """Matrix masks: whether each linear key ``row * ncols + col`` is allowed."""
        csr = self.parent.csr()
        xp = xp_for(csr.device)
        mkeys = csr_keys(csr)
        if not self.structural:
            mkeys = mkeys[csr.dense_values().astype(bool)]
        hit = member(keys, mkeys, xp)
        return ~hit if self.complement else hit


class MaskViews:
    """The mask views ``x.S`` and ``x.V`` of a collection; ``mask_type`` makes them
    (:class:`Mask` for a Vector or Matrix).

    Examples
    --------
    >>> import gblas as gb
    >>> v = gb.Vector.from_coo([1], [0], size=2)
    >>> v.S.kind, (~v.V).kind
    ('S', '~V')
    """

    __slots__ = ()
    mask_type: type = Mask

    @property
    def S(self):
        """Structural mask view: true where an entry exists."""
        return self.mask_type(self, True)

    @property
    def V(self):
        """Value mask view: true where an entry exists and its value is nonzero."""
        return self.mask_type(self, False)


__all__ = ["Mask", "MaskViews"]
