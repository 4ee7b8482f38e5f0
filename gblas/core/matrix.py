"""The user's Matrix: canonical CSR plus a cache of derived formats.

The planner decides which formats a call needs; the Matrix builds each one once, keeps it
(within ``gb.config(memory_budget=...)``) and counts how often it has been used, so that
preprocessing is paid once and reused across iterations and algorithms.
"""

from __future__ import annotations

import importlib
from functools import partial

import numpy as np

from .. import dtypes
from .._device import (
    array_equal,
    bincount,
    check_device,
    cupy_module,
    device_of,
    is_cupy_array,
    to_numpy,
    xp_for,
)
from ..config import config
from ..exceptions import (
    DimensionMismatch,
    InvalidObject,
    InvalidValue,
    bad_arg,
    out_of_memory,
)
from ..formats import CSR, get_format_class
from ..formats.costing import summary
from ..formats.hypersparse import MAX_EXPAND_ROWS, Hypersparse, expand_error
from ..planner import admit_format
from ..planner.choose import choose_storage
from ._check import as_device_index_array, as_index_array, check_index, check_shape
from .mask import MaskViews


def _coo_indices(check, rows, cols, shape, call: str):
    """``(r, c, (m, n))``: from_coo's row and column indices checked by ``check``
    (:func:`as_index_array`, or :func:`as_device_index_array` bound to CuPy), of one
    length and within the shape (default: one past the largest indices)."""
    r = check(rows, call, "rows")
    c = check(cols, call, "cols")
    if r.shape != c.shape:
        raise bad_arg(DimensionMismatch, call, "cols", f"{r.size} column indices (as rows)",
                      f"{c.size}")
    if shape is None:
        shape = (int(r.max()) + 1 if r.size else 0, int(c.max()) + 1 if c.size else 0)
    m, n = check_shape(shape, call)
    check(r, call, "rows", m)
    check(c, call, "cols", n)
    return r, c, (m, n)


def _coo_values(vals, r, dtype, call: str):
    """from_coo's value array (NumPy or CuPy): one per index in ``r``, cast to ``dtype``."""
    if vals.shape != r.shape:
        raise bad_arg(DimensionMismatch, call, "values", f"{r.size} values",
                      f"shape {vals.shape}")
    dt = dtypes.lookup(dtype if dtype is not None else vals.dtype, call)
    return vals.astype(dt, copy=False)


def _duplicates_error(call: str) -> InvalidValue:
    """from_coo's error for repeated (row, col) pairs without a dup_op."""
    return bad_arg(InvalidValue, call, "rows", "unique (row, col) pairs (dup_op=None)",
                   "duplicates", "Pass dup_op='plus' (or another) to combine them.")


class Matrix(MaskViews):
    """A sparse matrix of a fixed shape and dtype.

    ``A[i, j]`` is the edge ``i -> j`` of a graph, as in SciPy and NetworkX.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], shape=(3, 3))
    >>> A
    Matrix(shape=(3, 3), nvals=3, dtype=bool, device='cpu')
    >>> x = gb.Vector.from_dense([1.0, 2.0, 3.0])
    >>> (A @ x).to_dense().tolist()
    [2.0, 3.0, 1.0]
    """

    __slots__ = ("_csr", "_cache", "_uses", "_failed", "__weakref__")

    def __init__(self, csr: CSR) -> None:
        self._csr = csr
        self._cache: dict = {}
        self._uses: dict = {}
        self._failed: dict = {}  # format key -> why its build ran out of memory

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_coo(cls, rows, cols, values=None, shape=None, *, dup_op="plus",
                 dtype=None) -> Matrix:
        """A Matrix from coordinate lists.

        Parameters
        ----------
        rows, cols : array_like of int
            Entry positions; duplicates combine with ``dup_op`` (None forbids them).
        values : array_like or scalar, optional
            Values; a scalar makes an iso matrix; None a pattern (bool True, no values
            stored).
        shape : (int, int), optional
            Defaults to one past the largest indices.

        Examples
        --------
        >>> import gblas as gb
        >>> A = gb.Matrix.from_coo([0, 0], [1, 1], [2.0, 3.0], shape=(2, 2))
        >>> A.to_coo()[2].tolist()
        [5.0]
        """
        from ..semirings import binary_op

        call = "Matrix.from_coo"
        if any(is_cupy_array(a) for a in (rows, cols, values)):
            return cls._from_coo_gpu(rows, cols, values, shape, dup_op, dtype)
        r, c, (m, n) = _coo_indices(as_index_array, rows, cols, shape, call)
        iso = None
        if values is None:
            vals = None
        elif np.ndim(values) == 0:
            dt = dtypes.lookup(dtype if dtype is not None else np.asarray(values).dtype, call)
            vals, iso = None, dt.type(values)
        else:
            vals = to_numpy(values) if hasattr(values, "get") else np.asarray(values)
            vals = _coo_values(vals, r, dtype, call)
        op = None if dup_op is None else binary_op(dup_op, call, "dup_op")
        try:
            # the planner's storage rule: DCSR when the rows far outnumber the entries
            store = Hypersparse if choose_storage((m, n), r.size)[0] == "hypersparse" else CSR
            csr = store.from_coo(r, c, vals, (m, n), dup_op=op, iso_value=iso)
        except InvalidObject:
            raise _duplicates_error(call) from None
        except MemoryError as exc:
            raise out_of_memory(call, exc, what=f"the storage of {r.size:,} entries in a "
                                f"{m:,} x {n:,} matrix") from exc
        if values is None and dtype is not None:
            csr = csr.astype(dtypes.lookup(dtype, call))
        return cls(csr)

    @classmethod
    def _from_coo_gpu(cls, rows, cols, values, shape, dup_op, dtype) -> Matrix:
        """``from_coo`` with CuPy arrays: validated and assembled on the GPU
        (:mod:`gblas.core.devcoo`); lists or NumPy arrays among them are copied there."""
        from ..semirings import binary_op
        from .devcoo import DuplicateEntries, csr_arrays_from_coo

        call = "Matrix.from_coo"
        cp = cupy_module(call)
        r, c, (m, n) = _coo_indices(partial(as_device_index_array, cp), rows, cols, shape,
                                    call)
        iso = vals = None
        if values is not None and np.ndim(values) == 0 and not is_cupy_array(values):
            dt = dtypes.lookup(dtype if dtype is not None else np.asarray(values).dtype, call)
            iso = dt.type(values)
        elif values is not None:
            vals = _coo_values(cp.asarray(values), r, dtype, call)
        op = None if dup_op is None else binary_op(dup_op, call, "dup_op")
        try:
            indptr, indices, vals = csr_arrays_from_coo(cp, r, c, vals, (m, n), op, iso)
        except DuplicateEntries:
            raise _duplicates_error(call) from None
        if vals is not None:
            csr = CSR((m, n), indptr, indices, vals, vals.dtype, None, "gpu")
        elif iso is None:
            csr = CSR((m, n), indptr, indices, None, dtypes.BOOL, np.bool_(True), "gpu")
        else:
            csr = CSR((m, n), indptr, indices, None, iso.dtype, iso, "gpu")
        if values is None and dtype is not None:
            csr = csr.astype(dtypes.lookup(dtype, call))
        return cls(csr)

    @classmethod
    def from_scipy(cls, S, dtype=None) -> Matrix:
        """A Matrix from any scipy.sparse matrix or array (duplicates summed, as SciPy does).

        A ``cupyx.scipy.sparse`` matrix gives a Matrix on the GPU, built there (its
        arrays are copied on the device, never through the host).  Explicit zeros stay
        entries, as SciPy stores them.

        Examples
        --------
        >>> import scipy.sparse as sp, gblas as gb
        >>> gb.Matrix.from_scipy(sp.eye(3, format="csr")).nvals
        3
        >>> gb.Matrix.from_scipy(sp.coo_array(([1, 2], ([0, 0], [1, 1])), shape=(2, 2))).to_coo()
        (array([0]), array([1]), array([3]))
        """
        call = "Matrix.from_scipy"
        if type(S).__module__.startswith("cupyx.scipy.sparse"):
            return cls._from_cupyx(S, dtype)
        import scipy.sparse as sp

        if not sp.issparse(S):
            raise bad_arg(InvalidObject, call, "S", "a scipy.sparse matrix or array",
                          type(S).__name__, "Use Matrix.from_dense for dense arrays.")
        if S.ndim != 2:
            raise bad_arg(DimensionMismatch, call, "S", "a 2-D sparse array",
                          f"shape {S.shape}", "Use Vector.from_scipy for a 1-D one.")
        dt = dtypes.lookup(dtype if dtype is not None else S.dtype, call)
        try:
            return cls(CSR.from_scipy(S.astype(dt, copy=False)))
        except MemoryError as exc:
            raise out_of_memory(call, exc, what=f"the CSR of a {S.shape[0]:,} x "
                                f"{S.shape[1]:,} matrix with {S.nnz:,} entries") from exc

    @classmethod
    def _from_cupyx(cls, S, dtype=None) -> Matrix:
        """A Matrix on the GPU from a ``cupyx.scipy.sparse`` matrix (no host copy)."""
        call = "Matrix.from_scipy"
        dt = dtypes.lookup(dtype if dtype is not None else S.dtype, call)
        C = S.tocsr(copy=True) if S.format == "csr" else S.tocsr()
        C.sum_duplicates()  # also sorts the column indices of every row
        C.sort_indices()
        m, n = C.shape
        nnz = int(C.nnz)
        indptr = C.indptr.astype(dtypes.index_dtype(nnz), copy=True)
        indices = C.indices.astype(dtypes.index_dtype(n), copy=True)
        values = C.data.astype(dt, copy=True)
        return cls(CSR((m, n), indptr, indices, values, dt, None, "gpu"))

    @classmethod
    def from_dense(cls, arr, dtype=None, *, missing=None) -> Matrix:
        """A Matrix from a 2-D array: every entry present, or all but those == ``missing``.

        Examples
        --------
        >>> import numpy as np, gblas as gb
        >>> gb.Matrix.from_dense(np.array([[0, 1], [2, 0]]), missing=0).nvals
        2
        """
        a = to_numpy(arr)
        if a.ndim != 2:
            raise bad_arg(InvalidValue, "Matrix.from_dense", "arr", "a 2-D array",
                          f"shape {a.shape}")
        dt = dtypes.lookup(dtype if dtype is not None else a.dtype, "Matrix.from_dense")
        keep = np.ones(a.shape, bool) if missing is None else (a != missing)
        r, c = np.nonzero(keep)
        M = cls.from_coo(r, c, a[r, c].astype(dt), a.shape, dup_op=None)
        return M.to(device_of(arr))

    @classmethod
    def _from_csr(cls, csr: CSR) -> Matrix:
        return cls(csr)

    # -------------------------------------------------------------------- properties
    @property
    def shape(self) -> tuple[int, int]:
        return self._csr.shape

    @property
    def nrows(self) -> int:
        return self._csr.shape[0]

    @property
    def ncols(self) -> int:
        return self._csr.shape[1]

    @property
    def nvals(self) -> int:
        return self._csr.nnz

    @property
    def dtype(self) -> np.dtype:
        return self._csr.dtype

    @property
    def device(self) -> str:
        return self._csr.device

    @property
    def is_hypersparse(self) -> bool:
        """Whether the storage is hypersparse (DCSR: only the rows with entries, see
        :mod:`gblas.formats.hypersparse`), as the planner's storage rule chose."""
        return isinstance(self._csr, Hypersparse)

    def storage(self, transposed: bool = False):
        """The canonical storage of this matrix or of its transpose: a CSR, or a
        Hypersparse when :attr:`is_hypersparse` (built once and cached)."""
        return self._csr if not transposed else self.get_format(self._csr.name, transposed=True)

    @property
    def is_iso(self) -> bool:
        return self._csr.is_iso

    @property
    def T(self) -> TransposedMatrix:
        """The transpose, as a view (no copy until an operation needs its CSR)."""
        return TransposedMatrix(self)

    # ----------------------------------------------------------------- format cache
    def csr(self, transposed: bool = False) -> CSR:
        """CSR of this matrix, or of its transpose (built once and cached)."""
        if not transposed and not self.is_hypersparse:
            return self._csr
        if not transposed:
            return self.get_format("csr")
        return self.get_format("csr", transposed=True)

    @property
    def known_symmetric(self) -> bool:
        """Whether this matrix is known to equal its transpose (values included), as its
        constructor knew it (an undirected NetworkX graph, a Matrix Market file declared
        symmetric, a symmetric generator): then its transposed CSR is its CSR, never
        built.  False means unknown; a write gives the Matrix a new storage, unmarked.

        Examples
        --------
        >>> import gblas as gb
        >>> gb.io.generators.kronecker(4, symmetric=True).known_symmetric
        True
        >>> gb.Matrix.from_coo([0], [1], [1.0], shape=(2, 2)).known_symmetric
        False
        """
        return not self.is_hypersparse and summary(self._csr).get("symmetric", False)

    def _mark_symmetric(self) -> Matrix:
        """Record that this matrix equals its transpose (its constructor knows it)."""
        if not self.is_hypersparse:
            summary(self._csr)["symmetric"] = True
        return self

    def get_format(self, name: str, *, transposed: bool = False, **params):
        """The format ``name`` of this matrix (or its transpose), built once and cached.

        Only the planner calls this; users pin formats with ``gb.config(format=...)``.
        """
        key = (name, transposed, tuple(sorted(params.items())))
        fmt = self._cache.get(key)
        self._uses[key] = self._uses.get(key, 0) + 1
        if fmt is not None:
            return fmt
        if name == self._csr.name and not transposed and not params:
            return self._csr
        if self.is_hypersparse:  # DCSR: its transpose is a DCSR, a CSR only on demand
            base = self._csr if not transposed else (
                self._csr.transpose() if name == "hypersparse" else self.storage(True))
            if name != "hypersparse":
                base = base.to_csr("A.csr" if name == "csr" else f"building {name!r} of A")
        elif not transposed:
            base = self._csr
        elif name == "csr":
            if self.known_symmetric:
                return self._csr  # A' = A: nothing to build (not counted twice in memory)
            base = self._csr.transpose()
        else:  # a format of A^T builds from the cached CSR of A^T (no second transpose)
            base = self.get_format("csr", transposed=True)
        if name == "csr" or (name == "hypersparse" and self.is_hypersparse):
            fmt = base
        else:
            try:
                fmt = get_format_class(name).from_csr(base, **params)
            except MemoryError as exc:  # CuPy's OutOfMemoryError is a MemoryError
                err = out_of_memory(
                    f"building format {name!r} of a {self.shape[0]}x{self.shape[1]} matrix "
                    f"with {self.nvals:,} entries ({base.nbytes / 2**20:.1f} MB in CSR)", exc,
                    device=base.device, what="the format", fix="The planner keeps CSR for "
                    "this matrix from now on (gb.explain shows why); where the format is "
                    "pinned, pin gb.config(format='csr') instead; free memory "
                    "(A.clear_cache() drops derived formats) to let it build the format.")
                # the planner reads the failure (build_failure) and falls back to CSR; an
                # operation that ran into it runs again once (core/dispatch.py)
                self._failed[key] = str(err).split(":", 1)[1].strip().split(". ")[0]
                err.retry = True
                raise err from exc
        used = sum(f.nbytes for f in self._cache.values())
        if admit_format(fmt.nbytes, used, config.current().memory_budget):
            self._cache[key] = fmt
        return fmt

    def has_format(self, name: str, *, transposed: bool = False, **params) -> bool:
        """Whether the format ``name`` (of the transpose) is built and cached."""
        return self.cached_format(name, transposed=transposed, **params) is not None

    def cached_format(self, name: str, *, transposed: bool = False, **params):
        """The cached format ``name`` (of the transpose), or None; builds nothing and
        counts no use (what the planner reads)."""
        if name == self._csr.name and not params and (not transposed or (
                name == "csr" and self.known_symmetric)):
            return self._csr
        return self._cache.get((name, transposed,
                                tuple(sorted(params.items())) if params else ()))

    def cache_state(self) -> tuple:
        """The keys of the cached formats, ``(name, transposed, params)``: a plan made on
        one state holds while it is unchanged (failed builds count, see
        :meth:`build_failure`)."""
        state = tuple(self._cache)
        return state + (("failed", *self._failed),) if self._failed else state

    def build_failure(self, name: str, *, transposed: bool = False, **params) -> str | None:
        """Why building the format ``name`` (of the transpose) ran out of memory, or None
        when it never did; the planner then keeps CSR.

        Examples
        --------
        >>> import gblas as gb
        >>> gb.Matrix.from_coo([0], [1], shape=(2, 2)).build_failure("segmented") is None
        True
        """
        return self._failed.get((name, transposed, tuple(sorted(params.items()))))

    def uses(self, name: str = "csr", *, transposed: bool = False) -> int:
        """How many times a call has used this format (a planner statistic)."""
        return sum(v for k, v in self._uses.items() if k[0] == name and k[1] == transposed)

    def clear_cache(self) -> None:
        """Drop every derived format (they are rebuilt when needed) and forget the builds
        that ran out of memory (the planner may try them again)."""
        self._cache.clear()
        self._failed.clear()

    def stats(self) -> dict:
        """Cached graph statistics (degrees) for the planner."""
        st = self._cache.get(("stats", False, ()))
        if st is None:
            csr = self.csr()
            xp = xp_for(csr.device)
            out_deg = xp.diff(csr.indptr)
            # the transposed CSR's row counts when built, else counted (on the CPU by all
            # threads; no int64 copy of the indices on either device)
            at = self._cache.get(("csr", True, ()))
            if at is not None:
                in_deg = xp.diff(at.indptr).astype(np.int64)
            elif csr.device == "cpu":
                from ..formats.reorder import column_frequencies

                in_deg = column_frequencies(csr)
            else:
                in_deg = bincount(csr.indices, csr.shape[1])
            st = _Stats(out_deg, in_deg)
            self._cache[("stats", False, ())] = st
        return st

    # ------------------------------------------------------------------- conversions
    def to_coo(self):
        """``(rows, cols, values)`` sorted by (row, col), on the Matrix's device.

        Examples
        --------
        >>> import gblas as gb
        >>> r, c, v = gb.Matrix.from_coo([1, 0], [0, 1], [3, 4], shape=(2, 2)).to_coo()
        >>> r.tolist(), c.tolist(), v.tolist()
        ([0, 1], [1, 0], [4, 3])
        """
        return self._csr.to_coo()

    def to_scipy(self, format: str = "csr"):
        """A ``scipy.sparse`` array of ``format`` (copied to the CPU when on the GPU).

        Parameters
        ----------
        format : {"csr", "csc", "coo", "bsr", "dia", "dok", "lil"}, default "csr"
            SciPy's format name (``scipy.sparse`` *arrays*: ``csr_array``, ...).

        Examples
        --------
        >>> import gblas as gb
        >>> A = gb.Matrix.from_coo([0, 1], [1, 0], [2.0, 3.0], shape=(2, 2))
        >>> type(A.to_scipy()).__name__, type(A.to_scipy("coo")).__name__
        ('csr_array', 'coo_array')
        >>> A.to_scipy("csc").toarray().tolist()
        [[0.0, 2.0], [3.0, 0.0]]
        """
        return scipy_format(self._csr.to_scipy(), format, "Matrix.to_scipy")

    def to_cupy(self, format: str = "csr", dtype=None):
        """A ``cupyx.scipy.sparse`` matrix of ``format`` on the GPU.

        A Matrix on the GPU hands its arrays over without going through the host (the
        matrix made is a copy: later changes of either side do not show in the other).
        ``cupyx.scipy.sparse`` holds bool, float and complex values only: other dtypes
        are converted to float64 unless ``dtype`` says otherwise.

        Parameters
        ----------
        format : {"csr", "csc", "coo"}, default "csr"
        dtype : optional
            The values' dtype (default: the Matrix's where CuPy takes it, else float64).

        Examples
        --------
        >>> import gblas as gb
        >>> callable(gb.Matrix.to_cupy)   # needs CuPy and a GPU to run
        True
        """
        call = "Matrix.to_cupy"
        if format not in ("csr", "csc", "coo"):
            raise bad_arg(InvalidValue, call, "format", "'csr', 'csc' or 'coo'", repr(format))
        cp = cupy_module(call)
        import cupyx.scipy.sparse as cps

        c = self._csr.to_device("gpu")
        dt = np.dtype(dtype) if dtype is not None else (
            self.dtype if self.dtype.kind in "bfc" else np.dtype(np.float64))
        values = cp.array(c.dense_values(), dtype=dt, copy=True)
        # cuSPARSE takes int32 indices where they fit
        indices = c.indices.astype(np.int32 if self.shape[1] < 2**31 else np.int64, copy=True)
        indptr = c.indptr.astype(np.int32 if self.nvals < 2**31 else np.int64, copy=True)
        args = (values, indices, indptr)
        try:
            S = cps.csr_matrix(args, shape=self.shape)
        except ValueError:
            if dt != np.bool_ or dtype is not None:
                raise
            # a CuPy without bool sparse matrices: float64 values
            S = cps.csr_matrix((values.astype(np.float64),) + args[1:], shape=self.shape)
        return S if format == "csr" else S.asformat(format)

    def to_dense(self, fill=0):
        """A 2-D array with ``fill`` where there is no entry."""
        xp = xp_for(self.device)
        r, c, v = self.to_coo()
        dt = self.dtype
        if not (fill == 0 or (dt.kind == "b" and fill in (0, 1, True, False))):
            dt = np.result_type(dt, fill)
        if self.is_hypersparse and self.shape[0] * self.shape[1] > MAX_EXPAND_ROWS:
            raise expand_error("Matrix.to_dense", self.shape, self.nvals, "dense array")
        out = xp.full(self.shape, fill, dtype=dt)
        out[r, c] = v
        return out

    # prepare(), A @ x and x @ A run operations, which import this module: they are
    # defined in core/methods.py and attached to the class there.

    def distribute(self, client, grid=None, *, timeout: float | None = None):
        """This Matrix cut into a ``grid = (pr, pc)`` of blocks pinned on the workers of a
        Dask ``client`` (needs the ``distributed`` extra); see :mod:`gblas.distributed`.

        Examples
        --------
        >>> import gblas as gb
        >>> callable(gb.Matrix.distribute)
        True
        """
        # an optional extra above the core, loaded on demand like a device backend
        extra = importlib.import_module("gblas.distributed")
        return extra.distribute(self, client, grid, timeout=timeout)

    def get(self, i: int, j: int, default=None):
        """The value of the entry ``(i, j)`` as a Python scalar, or ``default`` when there
        is none (``A[i, j]`` is ``A.get(i, j)``; negative indices count from the end).

        Examples
        --------
        >>> import gblas as gb
        >>> A = gb.Matrix.from_coo([0, 1], [1, 0], [2.5, 3.0], shape=(2, 3))
        >>> A.get(0, 1), A.get(0, 0), A.get(-1, 0), A.get(0, 2, default=0.0)
        (2.5, None, 3.0, 0.0)
        """
        m, n = self.shape
        i = check_index(i, m, "Matrix.get", "i", self.shape)
        j = check_index(j, n, "Matrix.get", "j", self.shape)
        c = self._csr
        lo, hi = int(c.indptr[i]), int(c.indptr[i + 1])
        if lo == hi:
            return default
        xp = xp_for(c.device)
        pos = lo + int(xp.searchsorted(c.indices[lo:hi], j))
        if pos == hi or int(c.indices[pos]) != j:
            return default
        if c.values is None:
            return c.iso_value.item()
        return c.values[pos].item()

    def to(self, device: str) -> Matrix:
        """This Matrix on ``device`` ("cpu" or "gpu"); itself when already there.

        Derived formats are not copied; they are rebuilt on the device when needed.
        """
        check_device(device, "Matrix.to")
        if device == self.device:
            return self
        moved = Matrix(self._csr.to_device(device))
        return moved._mark_symmetric() if self.known_symmetric else moved

    def dup(self, dtype=None) -> Matrix:
        """A copy (optionally cast to ``dtype``)."""
        c = self._csr
        dt = c.dtype if dtype is None else dtypes.lookup(dtype, "Matrix.dup")
        if self.is_hypersparse:
            return Matrix(c.copy().astype(dt))
        new = CSR(c.shape, c.indptr.copy(), c.indices.copy(),
                  None if c.values is None else c.values.copy(), c.dtype, c.iso_value, c.device)
        copied = Matrix(new.astype(dt))  # a cast keeps A' = A
        return copied._mark_symmetric() if self.known_symmetric else copied

    copy = dup

    def isequal(self, other, *, check_dtype: bool = False, values: bool = True) -> bool:
        """Same shape, pattern and (unless ``values=False``) values.

        Compares the CSR arrays where they live (``other`` may be a ``.T`` view: its
        cached transposed CSR is compared), in ``O(nvals)``.

        Examples
        --------
        >>> import gblas as gb
        >>> A = gb.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], shape=(2, 2))
        >>> A.isequal(A.T), A.isequal(A.T, values=False)
        (False, True)
        """
        if not isinstance(other, (Matrix, TransposedMatrix)) or other.shape != self.shape:
            return False
        if check_dtype and other.dtype != self.dtype:
            return False
        if self.is_hypersparse or (other if isinstance(other, Matrix) else other.parent
                                   ).is_hypersparse:  # O(entries): no row pointers
            r1, c1, v1 = self.to_coo()
            r2, c2, v2 = other.to_coo()
            return bool(np.array_equal(r1, r2) and np.array_equal(c1, c2)
                        and (not values or np.array_equal(v1, v2)))
        a = self._csr
        b = other._csr if isinstance(other, Matrix) else other.parent.csr(transposed=True)
        if b.device != a.device:
            b = b.to_device(a.device)
        if a.nnz != b.nnz:
            return False
        if not (array_equal(a.indptr, b.indptr) and array_equal(a.indices, b.indices)):
            return False
        if not values:
            return True
        if a.values is None and b.values is None:
            return bool(a.iso_value == b.iso_value)
        return array_equal(a.dense_values(), b.dense_values())

    def _replace_csr(self, csr: CSR) -> None:
        self._csr = csr
        self._cache.clear()
        self._uses.clear()

    def __repr__(self) -> str:
        return (f"Matrix(shape={self.shape}, nvals={self.nvals}, dtype={self.dtype.name}, "
                f"device={self.device!r})")


class _Stats:
    __slots__ = ("out_degree", "in_degree", "nbytes")

    def __init__(self, out_degree, in_degree) -> None:
        self.out_degree = out_degree
        self.in_degree = in_degree
        self.nbytes = int(out_degree.nbytes + in_degree.nbytes)


class TransposedView:
    """What every transposed view (``A.T`` of a Matrix, of a DistMatrix) reads from its
    ``parent``: the shape reversed, the count of entries, the dtype and device, and
    ``.T`` giving the parent back.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0], [1], [5], shape=(2, 3))
    >>> isinstance(A.T, TransposedView), A.T.nrows, A.T.ncols, A.T.T is A
    (True, 3, 2, True)
    """

    __slots__ = ()

    shape = property(lambda self: self.parent.shape[::-1])
    nrows = property(lambda self: self.parent.shape[1])
    ncols = property(lambda self: self.parent.shape[0])
    nvals = property(lambda self: self.parent.nvals)
    dtype = property(lambda self: self.parent.dtype)
    device = property(lambda self: self.parent.device)
    T = property(lambda self: self.parent)


class TransposedMatrix(TransposedView):
    """A transposed view of a Matrix (``A.T``): operations use the cached CSR of A^T.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0], [1], [5], shape=(2, 3))
    >>> A.T.shape
    (3, 2)
    """

    __slots__ = ("parent",)

    def __init__(self, parent: Matrix) -> None:
        self.parent = parent

    def csr(self, transposed: bool = False) -> CSR:
        return self.parent.csr(not transposed)

    def materialize(self) -> Matrix:
        """A new Matrix holding the transpose."""
        return Matrix(self.parent.storage(transposed=True))

    def to_coo(self):
        return self.parent.storage(transposed=True).to_coo()

    def to_scipy(self, format: str = "csr"):
        """The transpose as a ``scipy.sparse`` array of ``format`` (see
        :meth:`Matrix.to_scipy`)."""
        return scipy_format(self.parent.csr(transposed=True).to_scipy(), format,
                            "TransposedMatrix.to_scipy")

    def to_cupy(self, format: str = "csr", dtype=None):
        """The transpose as a ``cupyx.scipy.sparse`` matrix (see :meth:`Matrix.to_cupy`)."""
        return self.materialize().to_cupy(format, dtype)

    def to_dense(self, fill=0):
        return self.materialize().to_dense(fill)

    def to(self, device: str) -> TransposedMatrix:
        return TransposedMatrix(self.parent.to(device))

    def isequal(self, other, **kw) -> bool:
        return self.materialize().isequal(other, **kw)

    @property
    def S(self):
        return self.materialize().S

    @property
    def V(self):
        return self.materialize().V

    def __matmul__(self, other):
        return Matrix.__matmul__(self, other)

    def __repr__(self) -> str:
        return f"TransposedMatrix(of {self.parent!r})"


SCIPY_FORMATS = ("csr", "csc", "coo", "bsr", "dia", "dok", "lil")


def scipy_format(S, format: str, call: str):
    """``S`` (a ``csr_array``) converted to SciPy's ``format``; a clear error for a name
    SciPy does not know."""
    if format not in SCIPY_FORMATS:
        raise bad_arg(InvalidValue, call, "format", "one of " + ", ".join(
            repr(f) for f in SCIPY_FORMATS), repr(format))
    return S if format == "csr" else S.asformat(format)


def canonical(A, call: str, arg: str):
    """``(base Matrix, transposed)`` for a Matrix or a ``.T`` view; a clear error otherwise."""
    if isinstance(A, Matrix):
        return A, False
    if isinstance(A, TransposedMatrix):
        return A.parent, True
    raise bad_arg(InvalidObject, call, arg, "a gb.Matrix (or its .T)", type(A).__name__,
                  "Convert SciPy input with gb.Matrix.from_scipy(S).")
