"""A per-step oracle for kernel tests: random kernel inputs and products computed in Python.

Kernels cast A's and x's values to ``T``, cast every product to ``M`` and then ``R``, and
fold with the monoid on ``R`` (:meth:`gblas.Semiring.types`).  The functions here do exactly
that on NumPy scalars, one operator application at a time, and keep every row's list of
products, so that a comparison can accept any of them for the ANY monoid and scale a
float tolerance to the terms that were summed.  They work on host (NumPy) arrays; a test
of device kernels copies its results to the host first.

* inputs: :func:`rand_values`, :func:`rand_csr`, :func:`rand_mask`, :func:`mxv_case`;
* products: :func:`cast`, :func:`fold`, :func:`ref_mxv`, :func:`ref_mxm`;
* comparisons: :func:`close`, :func:`assert_matches`, :func:`vector_entries`.

Examples
--------
>>> import numpy as np
>>> from gblas.semirings import builtin
>>> from gblas.testing import oracle
>>> A = oracle.rand_csr(np.random.default_rng(1), 4, 3, "int8", density=0.9, empty_frac=0)
>>> x = np.array([1, 2, 3], dtype=np.int8)
>>> sr = builtin.SEMIRINGS["plus_times"]
>>> want = oracle.ref_mxv(A, x, None, None, sr, sr.types(A.dtype, x.dtype))
>>> got = dict(enumerate(A.to_scipy() @ x.astype(np.int64)))
>>> oracle.assert_matches({i: got[i] for i in want}, want, sr, "int8")
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backends.registry import MatMask
from ..formats.csr import CSR

__all__ = ["assert_matches", "cast", "close", "fold", "mxv_case", "rand_csr", "rand_mask",
           "rand_values", "ref_mxm", "ref_mxv", "vector_entries"]


def cast(v: Any, dtype: Any) -> Any:
    """``v`` as a NumPy scalar of ``dtype``, as a kernel's C cast makes it: integers wrap
    (Python integers too), floats truncate toward zero, nonzero is True.

    Examples
    --------
    >>> cast(300, "uint8"), cast(-129, "int8"), cast(2.7, "int16"), cast(0.5, "bool")
    (np.uint8(44), np.int8(127), np.int16(2), np.True_)
    """
    dt = np.dtype(dtype)
    if dt.kind in "iu" and isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        bits = 8 * dt.itemsize
        v = int(v) % (1 << bits)
        if dt.kind == "i" and v >= 1 << (bits - 1):
            v -= 1 << bits
    with np.errstate(all="ignore"):
        return np.asarray(v).astype(dt)[()]


def rand_values(rng: np.random.Generator, n: int, dtype: Any, *, span: int = 3) -> np.ndarray:
    """``n`` random values of ``dtype``: True with probability 0.7, integers in
    ``[-span, span]`` (``[0, span]`` unsigned), floats uniform in ``[-1, 3)``.

    Examples
    --------
    >>> v = rand_values(np.random.default_rng(0), 1000, "int8", span=5)
    >>> v.dtype, int(v.min()), int(v.max())
    (dtype('int8'), -5, 5)
    """
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(n) < 0.7
    if dt.kind == "u":
        return rng.integers(0, span + 1, n).astype(dt)
    if dt.kind == "i":
        return rng.integers(-span, span + 1, n).astype(dt)
    return (rng.random(n) * 4 - 1).astype(dt)


def rand_csr(rng: np.random.Generator, m: int, n: int, dtype: Any, *, density: float = 0.2,
             empty_frac: float = 0.2, long_rows: int = 0, hot_cols: int = 0,
             iso: bool = False, idx64: bool = False, span: int = 3) -> CSR:
    """A random CSR on the CPU with empty rows, ``long_rows`` nearly full rows (90% of
    the columns) and ``hot_cols`` columns filled in 60% of the rows.

    Parameters
    ----------
    rng : numpy.random.Generator
        The source of randomness.
    m, n : int
        The shape.
    dtype : numpy.dtype
        The values' dtype.
    density : float
        Share of the positions with an entry (before the empty, long and hot ones).
    empty_frac : float
        Probability that a row is emptied.
    long_rows, hot_cols : int
        Numbers of nearly full rows and of dense columns.
    iso : bool
        Iso values: every entry is 2 (True for bool), stored once.
    idx64 : bool
        int64 index arrays (else int32).
    span : int
        Range of the integer values (:func:`rand_values`).

    Returns
    -------
    CSR

    Examples
    --------
    >>> A = rand_csr(np.random.default_rng(3), 6, 50, "float32", long_rows=1, iso=True)
    >>> A.shape, A.is_iso, int(np.diff(A.indptr).max()) >= 35
    ((6, 50), True, True)
    """
    pat = rng.random((m, n)) < density
    pat[rng.random(m) < empty_frac] = False
    if long_rows:
        for i in rng.choice(m, long_rows, replace=False):
            pat[i] = rng.random(n) < 0.9
    if hot_cols:
        for j in rng.choice(n, hot_cols, replace=False):
            pat[:, j] |= rng.random(m) < 0.6
    rows, cols = np.nonzero(pat)
    ind = np.int64 if idx64 else np.int32
    indptr = np.zeros(m + 1, dtype=ind)
    indptr[1:] = np.cumsum(np.bincount(rows, minlength=m))
    dt = np.dtype(dtype)
    if iso:
        return CSR((m, n), indptr, cols.astype(ind), None, dt,
                   cast(2 if dt.kind != "b" else True, dt), "cpu")
    return CSR((m, n), indptr, cols.astype(ind), rand_values(rng, rows.size, dt, span=span),
               dt, None, "cpu")


def rand_mask(rng: np.random.Generator, m: int, n: int, kind: str, xp: Any = np
              ) -> tuple[MatMask, np.ndarray]:
    """A random ``m x n`` matrix mask and the dense bool array of what it allows.

    Parameters
    ----------
    rng : numpy.random.Generator
        The source of randomness.
    m, n : int
        The shape.
    kind : {"struct", "struct_comp", "value", "value_comp"}
        Structural or value mask, complemented or not (30% of a value mask's entries are
        zero).
    xp : module
        The array module of the mask's arrays (``numpy``, or ``cupy`` for device kernels).

    Returns
    -------
    (MatMask, numpy.ndarray)

    Examples
    --------
    >>> mask, allowed = rand_mask(np.random.default_rng(2), 3, 4, "struct_comp")
    >>> mask.complement, allowed.shape
    (True, (3, 4))
    """
    M = rand_csr(rng, m, n, "float32", density=0.4, empty_frac=0.1)
    vals = np.where(rng.random(M.nnz) < 0.3, 0.0, 1.5).astype(np.float32)
    structural = kind.startswith("struct")
    comp = kind.endswith("comp")
    mask = MatMask(xp.asarray(M.indptr), xp.asarray(M.indices),
                   None if structural else xp.asarray(vals), structural, comp)
    allowed = np.zeros((m, n), bool)
    for i in range(m):
        for p in range(M.indptr[i], M.indptr[i + 1]):
            allowed[i, M.indices[p]] = structural or vals[p] != 0
    return mask, (~allowed if comp else allowed)


def mxv_case(rng: np.random.Generator, semiring: Any, dtype: Any, masked: bool, m: int = 61,
             n: int = 47, **csr: Any) -> tuple[CSR, np.ndarray, Any, Any, tuple]:
    """Inputs of a ``y = A x`` kernel test: ``(A, x, xpres, allow, types)``.

    ``masked`` cases have iso values, ``x`` flags (70% present) and a row mask (60% of the
    rows allowed); the others none of these.  ``csr`` goes to :func:`rand_csr`.

    Examples
    --------
    >>> from gblas.semirings import builtin
    >>> A, x, xpres, allow, types = mxv_case(np.random.default_rng(0),
    ...                                      builtin.SEMIRINGS["min_plus"], "int64", True)
    >>> A.is_iso, xpres.shape, allow.shape, types[2]
    (True, (47,), (61,), dtype('int64'))
    """
    A = rand_csr(rng, m, n, dtype, iso=masked, **csr)
    x = rand_values(rng, n, dtype, span=csr.get("span", 3))
    xpres = rng.random(n) < 0.7 if masked else None
    allow = rng.random(m) < 0.6 if masked else None
    return A, x, xpres, allow, semiring.types(A.dtype, x.dtype)


def fold(values: Any, monoid: Any, r: Any) -> Any:
    """``values`` folded left to right with ``monoid``, cast to ``r`` after every step
    (None when empty).

    Examples
    --------
    >>> from gblas.semirings import builtin
    >>> fold([np.int8(100), np.int8(100)], builtin.MONOIDS["plus"], "int8")
    np.int8(-56)
    """
    acc = None
    with np.errstate(all="ignore"):
        for v in values:
            acc = v if acc is None else cast(monoid.op.func(acc, v), r)
    return acc


def _product(semiring: Any, types: tuple, a: Any, b: Any) -> Any:
    t, m_, r = types
    return cast(cast(semiring.multiply.func(cast(a, t), cast(b, t)), m_), r)


def ref_mxv(A: CSR, x: np.ndarray, xpres: Any, allow: Any, semiring: Any, types: tuple
            ) -> dict:
    """``y = A x``: ``{row: (value, [products])}`` for the rows with a product.

    Parameters
    ----------
    A : CSR
        On the CPU (iso allowed).
    x : numpy.ndarray
        Dense values of length ``A.shape[1]``.
    xpres : numpy.ndarray of bool or None
        Which ``x`` entries exist (None: all).
    allow : numpy.ndarray of bool or None
        Rows to compute (None: all).
    semiring : Semiring
        Its operators' Python functions compute the products and the fold.
    types : tuple of numpy.dtype
        ``(T, M, R)`` of :meth:`gblas.Semiring.types`.

    Returns
    -------
    dict

    Examples
    --------
    >>> from gblas.semirings import builtin
    >>> A = CSR.from_coo(np.array([0, 0, 2]), np.array([0, 1, 1]), np.array([1.0, 2.0, 3.0]),
    ...                  (3, 2))
    >>> sr = builtin.SEMIRINGS["plus_times"]
    >>> y = ref_mxv(A, np.array([10.0, 1.0]), None, None, sr, sr.types(A.dtype, A.dtype))
    >>> {i: (float(v), [float(p) for p in ps]) for i, (v, ps) in y.items()}
    {0: (12.0, [10.0, 2.0]), 2: (3.0, [3.0])}
    """
    vals = np.asarray(A.dense_values())
    out = {}
    with np.errstate(all="ignore"):
        for i in range(A.shape[0]):
            if allow is not None and not allow[i]:
                continue
            prods = [_product(semiring, types, vals[p], x[A.indices[p]])
                     for p in range(A.indptr[i], A.indptr[i + 1])
                     if xpres is None or xpres[A.indices[p]]]
            if prods:
                out[i] = (fold(prods, semiring.add, types[2]), prods)
    return out


def ref_mxm(A: CSR, B: CSR, allowed: Any, semiring: Any, types: tuple) -> dict:
    """``C = A B``: ``{(i, j): (value, [products])}`` for the positions ``allowed`` (a
    dense bool array, or None for all) where a pair of entries meets.

    Examples
    --------
    >>> from gblas.semirings import builtin
    >>> A = CSR.from_coo(np.array([0, 0]), np.array([0, 1]), np.array([2, 3]), (1, 2))
    >>> B = CSR.from_coo(np.array([0, 1]), np.array([0, 0]), np.array([5, 7]), (2, 1))
    >>> sr = builtin.SEMIRINGS["min_plus"]
    >>> ref_mxm(A, B, None, sr, sr.types(A.dtype, B.dtype))[(0, 0)][0]
    np.int64(7)
    """
    av, bv = np.asarray(A.dense_values()), np.asarray(B.dense_values())
    prods: dict = {}
    with np.errstate(all="ignore"):
        for i in range(A.shape[0]):
            for p in range(A.indptr[i], A.indptr[i + 1]):
                k = A.indices[p]
                for q in range(B.indptr[k], B.indptr[k + 1]):
                    j = B.indices[q]
                    if allowed is None or allowed[i, j]:
                        prods.setdefault((i, j), []).append(
                            _product(semiring, types, av[p], bv[q]))
    return {ij: (fold(ps, semiring.add, types[2]), ps) for ij, ps in prods.items()}


#: Default relative tolerance of :func:`close` per float dtype.
TOLERANCE = {np.dtype(np.float32): 1e-5, np.dtype(np.float64): 1e-12}


def close(got: Any, want: Any, dtype: Any, scale: float = 1.0, rtol: float | None = None
          ) -> bool:
    """Equal, or for floats within ``rtol`` (default ``TOLERANCE``) relatively and
    ``rtol * max(1, scale)`` absolutely: a sum whose terms total ``scale`` in magnitude,
    folded in another order, is off by the order of its terms, not of its result.

    Examples
    --------
    >>> close(np.float32(1.000001), 1.0, "float32"), close(1e-7, 0.0, "float32", 100.0)
    (True, True)
    >>> close(np.int8(3), 4, "int8")
    False
    """
    dt = np.dtype(dtype)
    if dt.kind == "f":
        tol = TOLERANCE.get(dt, 1e-5) if rtol is None else rtol
        return bool(np.isclose(float(got), float(want), rtol=tol, atol=tol * max(1.0, scale)))
    return bool(got == want)


def vector_entries(values: Any, present: Any = None) -> dict:
    """``{i: values[i]}`` where ``present`` is set (everywhere when None), from host arrays.

    Examples
    --------
    >>> vector_entries(np.array([5, 6, 7]), np.array([True, False, True]))
    {0: np.int64(5), 2: np.int64(7)}
    """
    values = np.asarray(values)
    idx = range(values.shape[0]) if present is None else np.flatnonzero(present).tolist()
    return {i: values[i] for i in idx}


def assert_matches(got: dict, ref: dict, semiring: Any, r: Any, *, scaled: bool = False,
                   rtol: float | None = None) -> None:
    """Assert that ``got`` (``{key: value}``) has the keys of ``ref`` (from :func:`ref_mxv`
    or :func:`ref_mxm`) and their values: any of the products for the ANY monoid, else the
    fold, :func:`close` for floats (with ``scaled``, the absolute tolerance grows with the
    magnitude of the products summed).

    Examples
    --------
    >>> from gblas.semirings import builtin
    >>> assert_matches({3: 2.0}, {3: (2.0, [1.0, 1.0])}, builtin.SEMIRINGS["plus_times"],
    ...                "float64")
    """
    assert set(got) == set(ref), (
        f"pattern differs: missing {sorted(set(ref) - set(got))[:10]}, "
        f"extra {sorted(set(got) - set(ref))[:10]}")
    for k, (want, prods) in ref.items():
        if semiring.add.any_value:
            assert any(close(got[k], p, r, rtol=rtol) for p in prods), (k, got[k], prods)
            continue
        scale = 1.0
        if scaled:
            with np.errstate(all="ignore"):
                scale = float(np.nansum(np.abs(np.asarray(prods, dtype=np.float64))))
            scale = scale if np.isfinite(scale) else 1.0
        assert close(got[k], want, r, scale, rtol), (k, got[k], want)
