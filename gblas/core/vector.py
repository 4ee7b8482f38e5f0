"""The user's Vector: a size, a dtype, a device and entries.

A Vector is stored dense (``values`` of length ``size`` plus a ``present`` bool array, or
no ``present`` when every entry is there) or sparse (sorted ``indices`` with ``values``).
It converts between the two when an operation's plan asks for the other form.
"""

from __future__ import annotations

import weakref

import numpy as np

from .. import dtypes
from .._device import check_device, cupy_module, device_of, is_cupy_array, to_device, xp_for
from ..backends.registry import VecData
from ..exceptions import (
    DimensionMismatch,
    InvalidValue,
    bad_arg,
    check_alloc,
    out_of_memory,
)
from ._check import as_device_index_array, as_index_array, check_index, check_size
from .executor import array_kernel
from .mask import MaskViews

# ---------------------------------------------------------------------- ownership
#
# A Vector *owns* its arrays when gblas allocated them for it and no other Vector holds
# them (``Vector._owned``).  Only then does the write-back (``core/writeback.py``) update
# them in place; otherwise it writes into copies (copy-on-write), which the Vector then
# owns.  Arrays that enter a Vector without a copy (a kernel's result that passes an
# operand's array through, an algorithm's own buffer, ``Vector.from_dense(a,
# copy=False)``) are not owned by it, and the Vector that owned them stops owning them:
# ``_OWNERS`` maps the memory of every owned array (the array a view is a view of) to
# its owner, so that the owner is found when its memory enters another Vector, whatever
# path it took.  Arrays handed out without a copy (``to_dense(copy=False)``) end the
# ownership the same way (``Vector._share``).  Nothing here counts references.

_OWNERS: dict[int, weakref.ref] = {}


def _bases(data: VecData) -> list:
    """The arrays whose memory ``data`` uses (a view's base, not the view)."""
    out = []
    for a in (data.indices, data.values, data.present):
        if a is not None:
            while getattr(a, "base", None) is not None:
                a = a.base
            out.append(a)
    return out


#: The registry is swept of dead owners when it grows past this size (then twice the
#: size the sweep leaves): amortized O(1) per Vector, no callback per Vector.
_sweep_at = 1024


def _claim(vec, data: VecData) -> None:
    """Register ``vec`` as the owner of ``data``'s arrays."""
    global _sweep_at
    ref = weakref.ref(vec)
    for b in _bases(data):
        _OWNERS[id(b)] = ref
    if len(_OWNERS) > _sweep_at:
        for k in [k for k, r in _OWNERS.items() if r() is None]:
            del _OWNERS[k]
        _sweep_at = max(1024, 2 * len(_OWNERS))


def _disown(data: VecData) -> None:
    """End the ownership of whatever Vector owns memory that ``data`` uses."""
    for b in _bases(data):
        ref = _OWNERS.get(id(b))
        if ref is None:
            continue
        v = ref()
        if v is not None and v._owned and any(c is b for c in _bases(v._data)):
            v._share()
        else:  # a stale entry (its owner is gone or holds other arrays now)
            del _OWNERS[id(b)]


class Vector(MaskViews):
    """A sparse vector of a fixed size and dtype.

    Examples
    --------
    >>> import numpy as np, gblas as gb
    >>> x = gb.Vector.from_coo([0, 3], [1.5, 2.0], size=5)
    >>> x
    Vector(size=5, nvals=2, dtype=float64, device='cpu')
    >>> x.to_dense().tolist()
    [1.5, 0.0, 0.0, 2.0, 0.0]
    """

    __slots__ = ("_data", "_other", "_nvals", "_dtype", "_device", "_owned", "__weakref__")

    def __init__(self, data: VecData, dtype, device: str = "cpu", *,
                 owned: bool = False) -> None:
        """``owned``: ``data``'s arrays were allocated for this Vector alone (see the
        ownership notes above); False (the default) makes it copy before any write."""
        self._other = None  # the other storage form, once converted (read-only cache)
        self._nvals = None  # the count of a dense storage's present flags, once counted
        self._dtype = np.dtype(dtype)
        self._device = device
        self._owned = False
        self._set_data(data, owned)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_dense(cls, values, dtype=None, *, present=None, copy: bool = True) -> Vector:
        """A Vector from a 1-D array (NumPy or CuPy): every entry present, or those that
        ``present`` marks.

        A CuPy array gives a Vector on the GPU: the copy is made on the device, nothing
        goes through the host.  The values are copied unless ``copy=False``
        (by default later writes to ``values``
        do not show in the Vector).

        Parameters
        ----------
        values : array_like or cupy.ndarray
            1-D values.
        dtype : optional
            Value dtype (default: the array's).
        present : array_like of bool, optional
            Which entries exist (same length and device as ``values``); the values where
            it is False are ignored.  Default: all.
        copy : bool, default True
            False: use ``values`` (and ``present``) without copying when they already
            have the dtype and are contiguous.  gblas never writes into such arrays (an
            operation that writes into the Vector copies them first), but writes made
            to them afterwards show in the Vector.

        Examples
        --------
        >>> import gblas as gb
        >>> gb.Vector.from_dense([1, 2, 3]).nvals
        3
        >>> gb.Vector.from_dense([1, 2], dtype="float32").dtype.name
        'float32'
        >>> gb.Vector.from_dense([5, 6, 7], present=[True, False, True]).to_coo()[0].tolist()
        [0, 2]
        >>> a = np.zeros(3)
        >>> v = gb.Vector.from_dense(a, copy=False)
        >>> _ = gb.apply(gb.Vector.from_coo([1], [5.0], size=3), "identity", out=v, accum="plus")
        >>> a.tolist(), v.to_dense().tolist()        # the Vector wrote into its own copy
        ([0.0, 0.0, 0.0], [0.0, 5.0, 0.0])
        """
        call = "Vector.from_dense"
        device = device_of(values)
        xp = xp_for(device)
        arr = xp.asarray(values)
        if arr.ndim != 1:
            raise bad_arg(InvalidValue, call, "values", "a 1-D array",
                          f"shape {arr.shape}", "Use Matrix.from_dense for 2-D data.")
        dt = dtypes.lookup(dtype if dtype is not None else arr.dtype, call)
        fresh = True  # whether every array of the Vector is a copy made here
        if present is not None:
            if device_of(present) != device:
                raise bad_arg(InvalidValue, call, "present", f"an array on {device!r} "
                              "like values", f"one on {device_of(present)!r}")
            present = xp.asarray(present)
            if present.shape != arr.shape:
                raise bad_arg(InvalidValue, call, "present", f"shape {arr.shape}",
                              f"shape {present.shape}")
            if present.dtype != np.bool_:
                if present.dtype.kind not in "biu":
                    raise bad_arg(InvalidValue, call, "present", "a bool array",
                                  f"dtype {present.dtype}")
                present = present != 0
            elif copy or not present.flags.c_contiguous:
                present = xp.ascontiguousarray(present.copy())
            else:
                fresh = False
        if copy or arr.dtype != dt or not arr.flags.c_contiguous:
            arr = xp.ascontiguousarray(arr.astype(dt, copy=True))
        else:
            fresh = False
        return cls(VecData(arr.shape[0], None, arr, present), dt, device, owned=fresh)

    @classmethod
    def full(cls, size: int, value, dtype=None, device: str = "cpu") -> Vector:
        """A Vector of ``size`` with every entry present and equal to ``value``.

        The array is made on ``device`` itself (on the GPU no host array is built or
        copied), so an algorithm's constant vectors cost one fill on the device.

        Parameters
        ----------
        size : int
            The vector's size.
        value : scalar
            Every entry's value.
        dtype : optional
            Value dtype; default: the value's (bool, int64, float64 or complex128).
        device : {"cpu", "gpu"}, default "cpu"
            Where the values live.

        Examples
        --------
        >>> import gblas as gb
        >>> x = gb.Vector.full(3, 0.5)
        >>> x.nvals, x.dtype.name, x.to_dense().tolist()
        (3, 'float64', [0.5, 0.5, 0.5])
        >>> gb.Vector.full(2, 1, dtype="int8").to_dense().tolist()
        [1, 1]
        """
        call = "Vector.full"
        size = check_size(size, call, "size")
        if np.ndim(value) != 0:
            raise bad_arg(InvalidValue, call, "value", "a scalar",
                          f"an array of shape {np.shape(value)}",
                          "Use Vector.from_dense for an array of values.")
        if hasattr(value, "get"):  # a 0-d CuPy array: its value, once
            value = value.get()[()]
        if dtype is None:
            dtype = np.asarray(value).dtype
        dt = dtypes.lookup(dtype, call)
        xp = xp_for(check_device(device, call))
        what = f"the values of {size:,} entries"
        check_alloc(call, size * dt.itemsize, what, device)
        try:
            vals = xp.full(size, value, dtype=dt)
        except MemoryError as exc:  # NumPy's or CuPy's
            raise out_of_memory(call, exc, device=device, what=what) from exc
        return cls(VecData(size, None, vals, None), dt, device,
                   owned=True)

    @classmethod
    def from_coo(cls, indices, values=None, size: int | None = None, *, dup_op="plus",
                 dtype=None) -> Vector:
        """A Vector with entries at ``indices``.

        Parameters
        ----------
        indices : array_like of int
            Positions of the entries (any order; duplicates combined with ``dup_op``).
        values : array_like or scalar, optional
            Their values; a scalar gives every entry that value; None gives a pattern
            (bool True).
        size : int
            The vector's size; defaults to ``max(indices) + 1``.
        dup_op : str or BinaryOp, optional
            How duplicate indices combine (``None`` forbids duplicates).
        dtype : optional
            Value dtype (default: the values' dtype).

        Examples
        --------
        >>> import gblas as gb
        >>> gb.Vector.from_coo([2, 2, 0], [1, 5, 3], size=4).to_coo()[1].tolist()
        [3, 6]
        """
        from ..formats.csr import reduce_groups
        from ..semirings import binary_op

        call = "Vector.from_coo"
        if any(is_cupy_array(a) for a in (indices, values)):
            return cls._from_coo_gpu(indices, values, size, dup_op, dtype)
        idx = as_index_array(indices, call, "indices")
        if size is None:
            size = int(idx.max()) + 1 if idx.size else 0
        size = check_size(size, call, "size")
        idx = as_index_array(idx, call, "indices", size)
        if values is None:
            vals = np.ones(idx.size, dtype=bool)
        elif np.ndim(values) == 0:
            vals = np.full(idx.size, values)
        else:
            vals = np.asarray(values.get() if hasattr(values, "get") else values)
            if vals.shape != idx.shape:
                raise bad_arg(DimensionMismatch, call, "values",
                              f"{idx.size} values (one per index)", f"shape {vals.shape}")
        dt = dtypes.lookup(dtype if dtype is not None else vals.dtype, call)
        vals = vals.astype(dt, copy=False)
        order = np.argsort(idx, kind="stable")
        idx, vals = idx[order], vals[order]
        if idx.size > 1:
            first = np.empty(idx.size, bool)
            first[0] = True
            np.not_equal(idx[1:], idx[:-1], out=first[1:])
            if not first.all():
                if dup_op is None:
                    raise bad_arg(InvalidValue, call, "indices", "unique indices (dup_op=None)",
                                  "duplicates", "Pass dup_op='plus' (or another) to combine them.")
                starts = np.flatnonzero(first)
                op = binary_op(dup_op, call, "dup_op")
                vals = reduce_groups(op, vals, starts).astype(dt, copy=False)
                idx = idx[starts]
        # idx and vals are new arrays (sorted copies), never the caller's
        return cls(VecData(size, idx, np.ascontiguousarray(vals), None), dt, "cpu", owned=True)

    @classmethod
    def _from_coo_gpu(cls, indices, values, size, dup_op, dtype) -> Vector:
        """``from_coo`` with CuPy arrays: sorted and combined on the GPU (the one-row
        case of :func:`gblas.core.devcoo.csr_arrays_from_coo`), nothing through the host."""
        from ..semirings import binary_op
        from .devcoo import DuplicateEntries, csr_arrays_from_coo

        call = "Vector.from_coo"
        cp = cupy_module(call)
        idx = as_device_index_array(cp, indices, call, "indices")
        if size is None:
            size = int(idx.max()) + 1 if idx.size else 0
        size = check_size(size, call, "size")
        as_device_index_array(cp, idx, call, "indices", size)
        if values is None:
            vals = cp.ones(idx.size, dtype=bool)
        elif np.ndim(values) == 0 and not is_cupy_array(values):
            vals = cp.full(idx.size, values)
        else:
            vals = cp.asarray(values)
            if vals.shape != idx.shape:
                raise bad_arg(DimensionMismatch, call, "values",
                              f"{idx.size} values (one per index)", f"shape {vals.shape}")
        dt = dtypes.lookup(dtype if dtype is not None else vals.dtype, call)
        vals = vals.astype(dt, copy=False)
        op = None if dup_op is None else binary_op(dup_op, call, "dup_op")
        try:
            _, cols, vals = csr_arrays_from_coo(cp, cp.zeros(idx.size, dtype=np.int64), idx,
                                                vals, (1, size), op)
        except DuplicateEntries:
            raise bad_arg(InvalidValue, call, "indices", "unique indices (dup_op=None)",
                          "duplicates", "Pass dup_op='plus' (or another) to combine them."
                          ) from None
        return cls(VecData(size, cols.astype(np.int64), cp.ascontiguousarray(vals), None),
                   dt, "gpu")

    @classmethod
    def empty(cls, size: int, dtype=np.float64, device: str = "cpu") -> Vector:
        """A Vector of ``size`` with no entries.

        Examples
        --------
        >>> import gblas as gb
        >>> gb.Vector.empty(3, "int32").nvals
        0
        """
        size = check_size(size, "Vector.empty", "size")
        dt = dtypes.lookup(dtype, "Vector.empty")
        xp = xp_for(check_device(device, "Vector.empty"))
        return cls(VecData(size, xp.zeros(0, np.int64), xp.zeros(0, dt), None), dt, device,
                   owned=True)

    # -------------------------------------------------------------------- properties
    @property
    def size(self) -> int:
        return self._data.size

    @property
    def shape(self) -> tuple[int]:
        return (self._data.size,)

    @property
    def dtype(self) -> np.dtype:
        return self._dtype

    @property
    def device(self) -> str:
        return self._device

    @property
    def nvals(self) -> int:
        d = self._data
        if d.indices is not None:
            return int(d.indices.shape[0])
        if d.present is None:
            return d.size
        if self._nvals is None:
            # counted once per storage (_replace_data forgets it): an iterative algorithm
            # asks several times per step, and on the GPU each count synchronizes
            self._nvals = array_kernel("count_true", self._device)(d.present)
        return self._nvals

    @property
    def is_dense_storage(self) -> bool:
        """Whether the values are stored as a dense array (with a presence mask)."""
        return self._data.indices is None

    @property
    def is_full(self) -> bool:
        """Whether every position holds an entry, stored densely."""
        d = self._data
        return d.indices is None and d.present is None

    @classmethod
    def from_scipy(cls, S, dtype=None) -> Vector:
        """A Vector from a SciPy sparse array of one dimension, or a matrix of one row or
        one column (duplicates summed and explicit zeros kept, as SciPy does).

        A ``cupyx.scipy.sparse`` matrix of one row or column gives a Vector on the GPU,
        built there.

        Parameters
        ----------
        S : scipy.sparse array or matrix
            Shape ``(n,)``, ``(1, n)`` or ``(n, 1)``.
        dtype : optional
            Value dtype (default: ``S.dtype``).

        Examples
        --------
        >>> import numpy as np, scipy.sparse as sp, gblas as gb
        >>> v = gb.Vector.from_scipy(sp.csr_array(np.array([[0.0, 2.0, 0.0, 5.0]])))
        >>> v.size, v.to_coo()[0].tolist(), v.to_coo()[1].tolist()
        (4, [1, 3], [2.0, 5.0])
        >>> gb.Vector.from_scipy(sp.coo_array(([1, 1], ([2, 2],)), shape=(3,))).get(2)
        2
        """
        call = "Vector.from_scipy"
        gpu = type(S).__module__.startswith("cupyx.scipy.sparse")
        if not gpu:
            import scipy.sparse as sp

            if not sp.issparse(S):
                raise bad_arg(InvalidValue, call, "S", "a scipy.sparse array or matrix",
                              type(S).__name__, "Use Vector.from_dense for a dense array.")
        shape = tuple(S.shape)
        if not (len(shape) == 1 or (len(shape) == 2 and 1 in shape)):
            raise bad_arg(DimensionMismatch, call, "S", "shape (n,), (1, n) or (n, 1)",
                          f"shape {shape}", "Use Matrix.from_scipy for a matrix.")
        dt = dtypes.lookup(dtype if dtype is not None else S.dtype, call)
        C = S.tocoo(copy=True)
        C.sum_duplicates()
        if len(shape) == 1:
            idx, size = C.coords[0], shape[0]
        elif shape[0] == 1:
            idx, size = C.col, shape[1]
        else:
            idx, size = C.row, shape[0]
        device = "gpu" if gpu else "cpu"
        xp = xp_for(device)
        idx = idx.astype(np.int64)
        order = xp.argsort(idx)
        vals = xp.ascontiguousarray(C.data.astype(dt)[order])
        return cls(VecData(size, xp.ascontiguousarray(idx[order]), vals, None), dt, device)

    def to_scipy(self, format: str = "coo", *, ndim: int = 1):
        """The entries as a SciPy sparse array (copied to the CPU when on the GPU).

        Parameters
        ----------
        format : str, default "coo"
            SciPy's format: "coo", "csr" or "dok" for ``ndim=1``; any 2-D format
            ("csr", "csc", "coo", "bsr", "dia", "dok", "lil") for ``ndim=2``.
        ndim : {1, 2}, default 1
            1: shape ``(size,)`` (SciPy's 1-D sparse arrays); 2: a column, shape
            ``(size, 1)`` (gblas vectors are columns: ``A @ x``).

        Examples
        --------
        >>> import gblas as gb
        >>> v = gb.Vector.from_coo([0, 2], [1.5, 2.5], size=4)
        >>> S = v.to_scipy()
        >>> type(S).__name__, S.shape, S.toarray().tolist()
        ('coo_array', (4,), [1.5, 0.0, 2.5, 0.0])
        >>> v.to_scipy("csc", ndim=2).shape
        (4, 1)
        """
        import scipy.sparse as sp

        call = "Vector.to_scipy"
        if ndim not in (1, 2) or isinstance(ndim, bool):
            raise bad_arg(InvalidValue, call, "ndim", "1 or 2", repr(ndim))
        formats = ("coo", "csr", "dok") if ndim == 1 else (
            "csr", "csc", "coo", "bsr", "dia", "dok", "lil")
        if format not in formats:
            raise bad_arg(InvalidValue, call, "format", f"one of {formats} for ndim={ndim}",
                          repr(format), None if ndim == 2 else
                          "Pass ndim=2 for a one-column matrix in any format.")
        idx, vals = self.to("cpu").to_coo()
        if ndim == 1:
            S = sp.coo_array((vals, (idx,)), shape=(self.size,))
        else:
            S = sp.coo_array((vals, (idx, np.zeros_like(idx))), shape=(self.size, 1))
        return S if format == "coo" else S.asformat(format)

    def to_cupy(self, fill=0):
        """The values as a dense CuPy array on the GPU, ``fill`` where there is no entry
        (:meth:`to_dense` on the GPU: a Vector there is not copied through the host).

        Examples
        --------
        >>> import gblas as gb
        >>> callable(gb.Vector.to_cupy)   # needs CuPy and a GPU to run
        True
        """
        return self.to("gpu").to_dense(fill)

    # ------------------------------------------------------------------- conversions
    def dense_data(self) -> VecData:
        """Storage as dense VecData (``present`` may be None when all present)."""
        d = self._data
        if d.indices is None:
            return d
        if self._other is None:
            xp = xp_for(self._device)
            check_alloc("Vector.dense_data", d.size * (self._dtype.itemsize + 1),
                        f"the dense form of a Vector of size {d.size:,} with "
                        f"{d.indices.shape[0]:,} entries", self._device,
                        "Keep it sparse: operations on sparse Vectors work in O(entries) "
                        "memory; use v.to_coo() rather than v.to_dense().")
            vals = xp.zeros(d.size, self._dtype)
            present = xp.zeros(d.size, bool)
            vals[d.indices] = d.values
            present[d.indices] = True
            self._other = VecData(d.size, None, vals, present)
        return self._other

    def sparse_data(self) -> VecData:
        """Storage as sparse VecData (sorted indices)."""
        d = self._data
        if d.indices is not None:
            return d
        if self._other is None:
            xp = xp_for(self._device)
            if d.present is None:
                idx = xp.arange(d.size, dtype=np.int64)
                self._other = VecData(d.size, idx, d.values, None)
            else:
                idx = xp.flatnonzero(d.present).astype(np.int64, copy=False)
                self._other = VecData(d.size, idx, d.values[idx], None)
        return self._other

    def present_mask(self):
        """A bool array of length ``size``: where entries are."""
        d = self.dense_data()
        xp = xp_for(self._device)
        return xp.ones(d.size, bool) if d.present is None else d.present

    def to_coo(self):
        """``(indices, values)`` sorted by index, as arrays on the Vector's device.

        Examples
        --------
        >>> import gblas as gb
        >>> i, v = gb.Vector.from_dense([4, 5]).to_coo()
        >>> i.tolist(), v.tolist()
        ([0, 1], [4, 5])
        """
        d = self.sparse_data()
        return d.indices.copy(), d.values.copy()

    def to_dense(self, fill=0, *, copy: bool = True):
        """A 1-D array with ``fill`` where there is no entry.

        The dtype is the Vector's, promoted only when ``fill`` does not fit
        (e.g. ``fill=np.nan`` on an integer vector gives float64).

        ``copy=False`` returns the Vector's own values, read-only, when every entry is
        present and stored densely (else a copy, as by default); the Vector then stops
        owning them, so later operations writing into it write into a copy and the
        array handed out keeps its values.

        Examples
        --------
        >>> import gblas as gb
        >>> gb.Vector.from_coo([1], [2], size=3).to_dense(fill=-1).tolist()
        [-1, 2, -1]
        >>> v = gb.Vector.full(2, 1.5)
        >>> a = v.to_dense(copy=False)
        >>> _ = gb.apply(v, "ainv", out=v)
        >>> a.tolist(), v.to_dense().tolist()
        ([1.5, 1.5], [-1.5, -1.5])
        """
        d = self._data
        if not copy and d.indices is None and d.present is None:
            self._share()
            view = d.values.view()
            if isinstance(view, np.ndarray):
                view.flags.writeable = False
            return view
        d = self.dense_data()
        dt = self._dtype
        if not (fill == 0 or (dt.kind == "b" and fill in (0, 1, True, False))):
            dt = np.result_type(dt, fill)
        out = d.values.astype(dt, copy=True)
        if d.present is not None:
            out[~d.present] = fill
        return out

    def to(self, device: str) -> Vector:
        """This Vector on ``device`` ("cpu" or "gpu"); itself when already there."""
        check_device(device, "Vector.to")
        if device == self._device:
            return self
        d = self._data
        data = VecData(d.size, to_device(d.indices, device), to_device(d.values, device),
                       to_device(d.present, device))
        return Vector(data, self._dtype, device, owned=True)  # copies on the other device

    def dup(self, dtype=None) -> Vector:
        """A copy (optionally cast to ``dtype``)."""
        dt = self._dtype if dtype is None else dtypes.lookup(dtype, "Vector.dup")
        d = self._data
        cp = lambda a: None if a is None else a.copy()  # noqa: E731
        vals = d.values.astype(dt, copy=True)
        return Vector(VecData(d.size, cp(d.indices), vals, cp(d.present)), dt, self._device,
                      owned=True)

    copy = dup

    def get(self, index: int, default=None):
        """The value at ``index`` as a Python scalar, or ``default`` when there is no entry
        (``v[i]`` is ``v.get(i)``; a negative index counts from the end, as in NumPy).

        Examples
        --------
        >>> import gblas as gb
        >>> v = gb.Vector.from_coo([1], [7], size=3)
        >>> v.get(1), v.get(0), v.get(-2), v.get(0, default=-1)
        (7, None, 7, -1)
        """
        index = check_index(index, self.size, "Vector.get", "index", self.shape)
        d = self._data
        if d.indices is not None:
            xp = xp_for(self._device)
            pos = int(xp.searchsorted(d.indices, index))
            if pos < d.indices.shape[0] and int(d.indices[pos]) == index:
                return d.values[pos].item()
            return default
        if d.present is not None and not bool(d.present[index]):
            return default
        return d.values[index].item()

    def isequal(self, other: Vector, *, check_dtype: bool = False) -> bool:
        """Same size, same pattern and equal values (and dtype when ``check_dtype``)."""
        if not isinstance(other, Vector) or other.size != self.size:
            return False
        if check_dtype and other.dtype != self.dtype:
            return False
        i1, v1 = self.to("cpu").to_coo()
        i2, v2 = other.to("cpu").to_coo()
        return bool(np.array_equal(i1, i2) and np.array_equal(v1, v2))

    def _replace_data(self, data: VecData, dtype=None, *, owned: bool = False) -> None:
        """New storage; ``owned``: its arrays were allocated for this Vector alone (the
        write-back's copies), else another object may hold them."""
        self._other = None
        self._nvals = None
        if dtype is not None:
            self._dtype = np.dtype(dtype)
        self._set_data(data, owned)

    # --------------------------------------------------------------------- ownership
    @property
    def owns_storage(self) -> bool:
        """Whether operations may write into this Vector's arrays in place: gblas
        allocated them for it, and no other Vector, view or user array shares them.

        Examples
        --------
        >>> import numpy as np, gblas as gb
        >>> gb.Vector.full(3, 1.0).owns_storage
        True
        >>> gb.Vector.from_dense(np.ones(3), copy=False).owns_storage
        False
        """
        return self._owned

    def _set_data(self, data: VecData, owned: bool) -> None:
        """Take ``data`` as the storage, owned or not (see the ownership notes above).
        ``owned`` data is made of new arrays, or of arrays this Vector owns already."""
        if self._owned:
            old = self._data
            if owned and data.values is old.values and data.indices is old.indices and (
                    data.present is old.present or data.present is None):
                self._data = data  # written in place: the same arrays, still owned
                return
            self._release()
        self._data = data
        if owned:
            self._owned = True
            _claim(self, data)
        else:
            self._owned = False
            _disown(data)

    def _release(self) -> None:
        """Drop this Vector's registry entries (it no longer owns its arrays)."""
        self._owned = False
        for b in _bases(self._data):
            ref = _OWNERS.get(id(b))
            if ref is not None and ref() is self:
                del _OWNERS[id(b)]

    def _share(self) -> None:
        """This Vector's arrays are now shared with another object: later writes into
        it copy them first."""
        if self._owned:
            self._release()

    def __repr__(self) -> str:
        return (f"Vector(size={self.size}, nvals={self.nvals}, dtype={self._dtype.name}, "
                f"device={self._device!r})")

    def __len__(self) -> int:
        return self.size
