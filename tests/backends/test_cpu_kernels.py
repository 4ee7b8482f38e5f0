"""CPU (Numba) kernels against plain dense NumPy / Python computations.

The oracle evaluates each semiring entry by entry with NumPy scalars, casting after every
step as the kernel contracts define it (inputs cast to T, ``multiply`` gives M, the product
cast to R, ``add`` on R) and folding the products of an entry in increasing k — the order
the kernels use — so results are compared exactly, floats included.

Inputs come from the suite's ``rng`` fixture (replayable with ``GBLAS_TEST_SEED``).  The
cases are grouped so that each (semiring, dtype) kernel is compiled once per run.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from gblas.backends.cpu import blocks as cpu_blocks
from gblas.backends.cpu import elementwise as ew
from gblas.backends.cpu import mxm as cpu_mxm
from gblas.backends.cpu import mxv as cpu_mxv
from gblas.backends.registry import MatMask, VecData, get_kernel
from gblas.formats.csr import CSR
from gblas.semirings import builtin
from gblas.semirings.ops import BinaryOp, Semiring, UnaryOp
from gblas.testing.oracle import cast

PULL = get_kernel("mxv", "csr", "cpu", "pull")
PUSH = get_kernel("mxv", "csr", "cpu", "push")
_SAXPY = get_kernel("mxm", "csr", "cpu", "saxpy")
_DOT = get_kernel("mxm", "csr", "cpu", "dot")


def SAXPY(*args):
    return CSR.from_data(_SAXPY(*args), "cpu")


def DOT(*args):
    return CSR.from_data(_DOT(*args), "cpu")
MAP_UNARY = get_kernel("map_unary", "array", "cpu")
MAP_BINARY = get_kernel("map_binary", "array", "cpu")

CLIP = BinaryOp("clip_times", lambda a, b: min(a * b, 1.0))
USER = Semiring("max_clip", builtin.MONOIDS["max"], CLIP)


def semiring(name: str) -> Semiring:
    return USER if name == "max_clip" else builtin.SEMIRINGS[name]


# ----------------------------------------------------------------------------- oracle


def _fmin(a, b):
    return a if (a < b or b != b) else b


def _fmax(a, b):
    return a if (a > b or b != b) else b


# (multiply, add) as plain Python on NumPy scalars of the operand dtype
ORACLE = {
    "plus_times": (lambda a, b: a * b, lambda a, b: a + b),
    "min_plus": (lambda a, b: a + b, _fmin),
    "max_min": (_fmin, _fmax),
    "any_pair": (lambda a, b: 1, lambda a, b: a),
    "lor_land": (lambda a, b: (a != 0) and (b != 0), lambda a, b: a or b),
    "plus_pair": (lambda a, b: 1, lambda a, b: a + b),
    "max_clip": (lambda a, b: min(a * b, 1.0), _fmax),
    "max_plus": (lambda a, b: a + b, _fmax),
    "min_times": (lambda a, b: a * b, _fmin),
    "max_second": (lambda a, b: b, _fmax),
}


def oracle_dot(name, types, pairs):
    """``add_k mul(a_k, b_k)`` over ``pairs`` in order; None when empty."""
    T, M, R = types
    mul, add = ORACLE[name]
    acc = None
    with np.errstate(all="ignore"):
        for a, b in pairs:
            t = cast(cast(mul(cast(a, T), cast(b, T)), M), R)
            acc = t if acc is None else cast(add(acc, t), R)
    return acc


def oracle_mxv(name, types, Ad, Ap, xd, xp, allow=None):
    m, n = Ap.shape
    vals = np.zeros(m, types[2])
    pres = np.zeros(m, bool)
    for i in range(m):
        if allow is not None and not allow[i]:
            continue
        v = oracle_dot(name, types, [(Ad[i, k], xd[k]) for k in range(n) if Ap[i, k] and xp[k]])
        if v is not None:
            vals[i], pres[i] = v, True
    return vals, pres


def oracle_mxm(name, types, Ad, Ap, Bd, Bp, allowed=None):
    m, p = Ap.shape[0], Bp.shape[1]
    C = np.zeros((m, p), types[2])
    Cp = np.zeros((m, p), bool)
    for i in range(m):
        for j in range(p):
            if allowed is not None and not allowed[i, j]:
                continue
            ks = np.flatnonzero(Ap[i] & Bp[:, j])
            v = oracle_dot(name, types, [(Ad[i, k], Bd[k, j]) for k in ks])
            if v is not None:
                C[i, j], Cp[i, j] = v, True
    return C, Cp


# ----------------------------------------------------------------------------- inputs


def rand_values(rng, size, dt):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return rng.random(size) < 0.6
    if dt == np.int8:
        return rng.integers(-100, 101, size).astype(dt)  # products and sums overflow
    if dt.kind == "u":
        return rng.integers(0, 256, size).astype(dt)
    if dt.kind == "i":
        return rng.integers(-20, 21, size).astype(dt)
    return (rng.standard_normal(size) * 3).astype(dt)


def rand_matrix(rng, m, n, dt, density=0.3, iso=False):
    """A random CSR with an empty row and column (when there are any), plus its dense form
    ``(A, dense values, pattern)``."""
    pat = rng.random((m, n)) < density
    if m > 2:
        pat[m // 2] = False
    if n > 2:
        pat[:, n // 3] = False
    rows, cols = np.nonzero(pat)
    dt = np.dtype(dt)
    if iso:
        iv = dt.type(rand_values(rng, 1, dt)[0])
        A = CSR.from_coo(rows, cols, np.zeros(rows.size, dt), (m, n))
        A = CSR((m, n), A.indptr, A.indices, None, dt, iv)
        dense = np.where(pat, iv, dt.type(0)).astype(dt)
    else:
        vals = rand_values(rng, rows.size, dt)
        A = CSR.from_coo(rows, cols, vals, (m, n))
        dense = np.zeros((m, n), dt)
        dense[rows, cols] = vals
    A.check_invariants()
    return A, dense, pat


def assert_vec(got: VecData, vals, pres):
    if got.indices is not None:
        gv = np.zeros(got.size, vals.dtype)
        gp = np.zeros(got.size, bool)
        gv[got.indices] = got.values
        gp[got.indices] = True
        assert np.all(np.diff(got.indices) > 0), "sparse indices sorted and unique"
    else:
        gv, gp = got.values, got.present
    assert got.size == vals.size
    assert np.asarray(gv).dtype == vals.dtype
    np.testing.assert_array_equal(gp, pres)
    np.testing.assert_array_equal(np.asarray(gv)[pres], vals[pres])


def assert_csr(C: CSR, vals, pat):
    C.check_invariants()
    assert C.dtype == vals.dtype and C.shape == vals.shape
    rows, cols = np.nonzero(pat)
    np.testing.assert_array_equal(C.row_indices(), rows)
    np.testing.assert_array_equal(C.indices, cols)
    np.testing.assert_array_equal(C.values, vals[rows, cols])


# ------------------------------------------------------------------------------- mxv

MXV_CASES = [
    ("plus_times", "float32"), ("plus_times", "float64"), ("plus_times", "int8"),
    ("plus_times", "uint8"), ("plus_times", "bool"), ("min_plus", "float64"),
    ("min_plus", "uint8"), ("max_min", "float32"), ("max_min", "int8"),
    ("any_pair", "float32"), ("lor_land", "int8"), ("lor_land", "bool"),
    ("plus_pair", "int8"), ("max_clip", "float32"), ("max_clip", "float64"),
]


@pytest.mark.parametrize("name,dt", MXV_CASES)
def test_mxv_pull_and_push(rng, name, dt):
    s = semiring(name)
    m, n = 23, 19
    for iso in (False, True):
        A, Ad, Ap = rand_matrix(rng, m, n, dt, iso=iso)
        AT = A.transpose()
        types = s.types(A.dtype, np.dtype(dt))
        xd = rand_values(rng, n, dt)
        xp = rng.random(n) < 0.5
        allow = rng.random(m) < 0.7
        full = np.ones(n, bool)
        # dense x, all present
        exp = oracle_mxv(name, types, Ad, Ap, xd, full)
        assert_vec(PULL(A, VecData(n, None, xd, None), None, s, types), *exp)
        # dense x with presence flags, and a row mask
        exp = oracle_mxv(name, types, Ad, Ap, xd, xp, allow)
        assert_vec(PULL(A, VecData(n, None, xd, xp), allow, s, types), *exp)
        # push from the sparse x, with and without the mask
        xi = np.flatnonzero(xp)
        assert_vec(PUSH(AT, VecData(n, xi, xd[xi]), allow, s, types, m), *exp)
        exp = oracle_mxv(name, types, Ad, Ap, xd, xp)
        assert_vec(PUSH(AT, VecData(n, xi, xd[xi]), None, s, types, m), *exp)


def test_push_scratch_is_left_clean_and_per_thread(rng):
    """The sequential push reuses its accumulator and flags between calls: each call's
    answer is its own (no flag left set by an earlier one), in several threads at once."""
    import threading

    s = semiring("plus_times")
    m, n = 40, 30
    cases = []
    for _ in range(6):
        A, Ad, Ap = rand_matrix(rng, m, n, "float64")
        xd = rand_values(rng, n, "float64")
        xp = rng.random(n) < 0.3
        cases.append((A.transpose(), xd, xp,
                      oracle_mxv("plus_times", s.types(A.dtype, xd.dtype), Ad, Ap, xd, xp)))
    errors = []

    def run():
        try:
            for _ in range(20):
                for AT, xd, xp, exp in cases:
                    xi = np.flatnonzero(xp)
                    assert_vec(PUSH(AT, VecData(n, xi, xd[xi]), None, s,
                                    s.types(AT.dtype, xd.dtype), m), *exp)
                    assert not cpu_mxv._SCRATCH.bufs[2].any(), "flags left set"
        except BaseException as e:  # reported below, from the main thread
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for t in threads:
        t.start()
    run()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_mxv_mixed_dtypes_and_int64_indices(rng):
    """int8 matrix times float32 vector: both cast to T = float32 inside the kernel; the
    same with int64 index arrays (read as uint64)."""
    s = builtin.SEMIRINGS["plus_times"]
    A, Ad, Ap = rand_matrix(rng, 15, 12, "int8")
    A64 = CSR(A.shape, A.indptr.astype(np.int64), A.indices.astype(np.int64), A.values,
              A.dtype)
    xd = rand_values(rng, 12, "float32")
    types = s.types(A.dtype, xd.dtype)
    assert types[0] == np.float32
    exp = oracle_mxv("plus_times", types, Ad, Ap, xd, np.ones(12, bool))
    for M in (A, A64):
        assert_vec(PULL(M, VecData(12, None, xd, None), None, s, types), *exp)
        xi = np.arange(12)
        assert_vec(PUSH(M.transpose(), VecData(12, xi, xd), None, s, types, 15), *exp)
    types = s.types(A.dtype, A.dtype)
    exp = oracle_mxm("plus_times", types, Ad, Ap, Ad.T, Ap.T)
    assert_csr(SAXPY(A64, A64.transpose(), None, s, types), *exp)


@pytest.mark.parametrize("shape", [(0, 5), (5, 0), (0, 0), (4, 6)])
def test_mxv_empty(shape):
    s = builtin.SEMIRINGS["plus_times"]
    m, n = shape
    A = CSR.empty(shape, np.float64)
    types = s.types(A.dtype, np.dtype(np.float64))
    x = np.ones(n)
    y = PULL(A, VecData(n, None, x, None), None, s, types)
    assert y.values.shape == (m,) and not y.present.any()
    y = PUSH(A.transpose(), VecData(n, np.arange(n), x), None, s, types, m)
    assert y.size == m and (y.present is None or not np.any(y.present))
    assert y.indices is None or y.indices.size == 0


def test_terminal_and_any_stop_early(rng):
    """lor stops at True, min on uint8 at 0, ANY at the first product: same results."""
    m, n = 40, 30
    A, Ad, Ap = rand_matrix(rng, m, n, "uint8", density=0.6)
    xd = rand_values(rng, n, "uint8")
    xd[::3] = 0
    for name in ("min_plus", "lor_land", "any_pair"):
        s = semiring(name)
        types = s.types(A.dtype, xd.dtype)
        exp = oracle_mxv(name, types, Ad, Ap, xd, np.ones(n, bool))
        assert_vec(PULL(A, VecData(n, None, xd, None), None, s, types), *exp)


def test_nan_products_stay(rng):
    """A result starts from its first product: min over {NaN} is NaN, and NaN is skipped
    among numbers (fmin); plus propagates NaN."""
    A = CSR.from_coo([0, 0, 1, 2], [0, 1, 1, 2], np.array([1.0, 2.0, 1.0, 1.0]), (3, 3))
    x = np.array([np.nan, 5.0, np.nan])
    s = builtin.SEMIRINGS["min_plus"]
    types = s.types(A.dtype, x.dtype)
    y = PULL(A, VecData(3, None, x, None), None, s, types)
    np.testing.assert_array_equal(y.values, [7.0, 6.0, np.nan])
    y = PUSH(A.transpose(), VecData(3, np.arange(3), x), None, s, types, 3)
    np.testing.assert_array_equal(y.values, [7.0, 6.0, np.nan])


@pytest.fixture
def force_parallel(monkeypatch):
    """Run the parallel paths on small inputs, with more blocks than threads."""
    monkeypatch.setattr(cpu_blocks, "PULL_PARALLEL_COST", 0)
    monkeypatch.setattr(cpu_blocks, "num_threads", lambda: 3)
    monkeypatch.setattr(cpu_mxv, "PUSH_PARALLEL_WORK", 0)
    monkeypatch.setattr(cpu_mxv, "num_threads", lambda: 3)


@pytest.mark.parametrize("name,dt", [("min_plus", "uint8")])
def test_parallel_paths(rng, force_parallel, name, dt):
    s = semiring(name)
    m, n = 60, 50
    A, Ad, Ap = rand_matrix(rng, m, n, dt, density=0.2)
    B, Bd, Bp = rand_matrix(rng, n, 40, dt, density=0.2)
    types = s.types(A.dtype, B.dtype)
    xd = rand_values(rng, n, dt)
    xp = rng.random(n) < 0.6
    allow = rng.random(m) < 0.8
    exp = oracle_mxv(name, types, Ad, Ap, xd, xp, allow)
    assert_vec(PULL(A, VecData(n, None, xd, xp), allow, s, types), *exp)
    xi = np.flatnonzero(xp)
    y = PUSH(A.transpose(), VecData(n, xi, xd[xi]), allow, s, types, m)
    assert y.indices is None  # the parallel push returns a dense result
    assert_vec(y, *exp)
    assert_csr(SAXPY(A, B, None, s, types), *oracle_mxm(name, types, Ad, Ap, Bd, Bp))
    M = (rng.random((m, 40)) < 0.5)
    rows, cols = np.nonzero(M)
    mm = MatMask(np.concatenate(([0], np.cumsum(M.sum(1)))).astype(np.int32),
                 cols.astype(np.int32), None, True, False)
    C, Cp = oracle_mxm(name, types, Ad, Ap, Bd, Bp, M)
    assert_csr(DOT(A, B.transpose(), mm, s, types), C, Cp)
    assert_csr(SAXPY(A, B, mm, s, types), C, Cp)


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("name", ["min_plus", "max_plus", "min_times", "max_second"])
def test_flag_free_push_of_selecting_monoids(rng, monkeypatch, threads, name):
    """min / max push without presence flags (the large-work path, one block or several):
    a row is reached iff its accumulator left the identity; products equal to the
    identity (inf) or NaN fall back to the flagged kernels. Every case equals the oracle
    (sparse and dense results), and plain inputs take the flag-free path."""
    monkeypatch.setattr(cpu_mxv, "PUSH_PARALLEL_WORK", 0)
    monkeypatch.setattr(cpu_mxv, "num_threads", lambda: threads)
    taken = []
    real = cpu_mxv._push_select

    def spy(*args):
        y = real(*args)
        taken.append(y is not None)
        return y

    monkeypatch.setattr(cpu_mxv, "_push_select", spy)
    s = semiring(name)
    m, n = 120, 30
    A, Ad, Ap = rand_matrix(rng, m, n, "float64", density=0.1)
    types = s.types(A.dtype, np.dtype("float64"))
    AT = A.transpose()
    kinds = set()
    for special, share in itertools.product((None, np.inf, -np.inf, np.nan), (0.6, 0.0)):
        xd = rand_values(rng, n, "float64")
        xp = rng.random(n) < share  # 0.0: one entry, at most m/4 rows reached (sparse)
        xp[0] = True
        if special is not None:
            xd[xp.nonzero()[0][::4]] = special
        xi = np.flatnonzero(xp)
        for allow in (None, rng.random(m) < 0.7):
            exp = oracle_mxv(name, types, Ad, Ap, xd, xp, allow)
            y = PUSH(AT, VecData(n, xi, xd[xi]), allow, s, types, m)
            assert_vec(y, *exp)
            if special is None:
                assert taken[-1], "plain inputs take the flag-free push"
                kinds.add(y.indices is None)
    assert kinds == {True, False}, "both a dense and a sparse result were checked"


# ------------------------------------------------------------------------------- mxm


def mask_of(rng, m, p, kind):
    """A random MatMask and the dense ``allowed`` it means."""
    pat = rng.random((m, p)) < 0.5
    rows, cols = np.nonzero(pat)
    vals = rng.random(rows.size) < 0.6
    indptr = np.zeros(m + 1, np.int32)
    np.cumsum(pat.sum(1), out=indptr[1:])
    structural = kind in ("structural", "~structural")
    complement = kind.startswith("~")
    truthy = np.zeros((m, p), bool)
    truthy[rows, cols] = True if structural else vals
    mm = MatMask(indptr, cols.astype(np.int32), None if structural else vals.astype(np.int8),
                 structural, complement)
    return mm, ~truthy if complement else truthy


MXM_CASES = [
    ("plus_times", "float32"), ("plus_times", "int8"), ("min_plus", "float64"),
    ("max_min", "uint8"), ("any_pair", "bool"), ("lor_land", "int8"), ("plus_pair", "uint8"),
    ("max_clip", "float64"),
]


@pytest.mark.parametrize("name,dt", MXM_CASES)
def test_mxm_saxpy_and_dot(rng, name, dt):
    s = semiring(name)
    m, n, p = 14, 11, 13
    for iso_a, iso_b in ((False, False), (True, False), (False, True)):
        A, Ad, Ap = rand_matrix(rng, m, n, dt, iso=iso_a)
        B, Bd, Bp = rand_matrix(rng, n, p, dt, iso=iso_b)
        types = s.types(A.dtype, B.dtype)
        assert_csr(SAXPY(A, B, None, s, types), *oracle_mxm(name, types, Ad, Ap, Bd, Bp))
        BT = B.transpose()
        for kind in ("structural", "value", "~structural", "~value"):
            mm, allowed = mask_of(rng, m, p, kind)
            exp = oracle_mxm(name, types, Ad, Ap, Bd, Bp, allowed)
            assert_csr(SAXPY(A, B, mm, s, types), *exp)
            if not mm.complement:
                assert_csr(DOT(A, BT, mm, s, types), *exp)


def test_mxm_row_orderings_and_shapes(rng):
    """Rows of C dense within their span (workspace scan), long sparse rows (radix sort,
    two passes), short rows (insertion sort); empty / 0-sized operands."""
    s = builtin.SEMIRINGS["plus_times"]
    for (m, n, p, da, db) in ((6, 30, 40, 0.9, 0.9), (5, 30, 3000, 0.6, 0.006)):
        A, Ad, Ap = rand_matrix(rng, m, n, "float64", density=da)
        B, Bd, Bp = rand_matrix(rng, n, p, "float64", density=db)
        types = s.types(A.dtype, B.dtype)
        exp = oracle_mxm("plus_times", types, Ad, Ap, Bd, Bp)
        assert exp[1].sum(1).max() > 32
        assert_csr(SAXPY(A, B, None, s, types), *exp)
    for (m, n, p) in ((0, 4, 3), (3, 0, 4), (3, 4, 0), (3, 4, 5)):
        A = CSR.empty((m, n), np.float64)
        B = CSR.empty((n, p), np.float64)
        C = SAXPY(A, B, None, s, types)
        assert C.shape == (m, p) and C.nnz == 0
        mm = MatMask(np.zeros(m + 1, np.int32), np.zeros(0, np.int32), None, True, False)
        C = DOT(A, B.transpose(), mm, s, types)
        assert C.shape == (m, p) and C.nnz == 0


def test_dot_rejects_complement(rng):
    s = builtin.SEMIRINGS["plus_times"]
    A, _, _ = rand_matrix(rng, 4, 4, "float64")
    mm, _ = mask_of(rng, 4, 4, "~structural")
    with pytest.raises(ValueError, match="non-complemented"):
        DOT(A, A, mm, s, s.types(A.dtype, A.dtype))


def test_dot_unbalanced_rows(rng):
    """One long and one short row: the binary-search intersection."""
    s = builtin.SEMIRINGS["plus_times"]
    n = 400
    Ap = np.zeros((2, n), bool)
    Ap[0] = True
    Ap[1, [3, 50, 399]] = True
    rows, cols = np.nonzero(Ap)
    vals = rand_values(rng, rows.size, "float64")
    A = CSR.from_coo(rows, cols, vals, (2, n))
    Ad = np.zeros((2, n))
    Ad[rows, cols] = vals
    mm = MatMask(np.array([0, 2, 4], np.int32), np.array([0, 1, 0, 1], np.int32), None, True,
                 False)
    types = s.types(A.dtype, A.dtype)
    exp = oracle_mxm("plus_times", types, Ad, Ap, Ad.T, Ap.T, np.ones((2, 2), bool))
    assert_csr(DOT(A, A, mm, s, types), *exp)


# ------------------------------------------------------------------------ element-wise


def py_map(func, dt, odt, *cols):
    """The operator's Python function on Python ints (bool / integer dtypes) or float64,
    cast to ``odt`` — the definition of the operators."""
    dt = np.dtype(dt)
    conv = (lambda v: int(v)) if dt.kind in "biu" else (lambda v: np.float64(v))
    with np.errstate(all="ignore"):
        out = [func(*(conv(c[i]) for c in cols)) for i in range(cols[0].size)]
        return np.array([cast(v, odt) for v in out], dtype=odt).reshape(-1)


EDGE = {
    "bool": np.array([True, False, True, False]),
    "int8": np.array([-128, 127, -1, 0, 5, -7], np.int8),
    "uint8": np.array([0, 255, 1, 128, 7, 3], np.uint8),
    "int64": np.array([2**62, -(2**63), -3, 0, 9, 1], np.int64),
    "float32": np.array([-0.0, 0.0, np.nan, np.inf, -np.inf, 1.5, -2.25, 3e38], np.float32),
    "float64": np.array([-0.0, 0.0, np.nan, np.inf, -np.inf, 1.5, -2.25, 1e308]),
}


def same_bits(a, b):
    """Equal arrays, NaN positions and signs of zero included."""
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)
    if a.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(a[~np.isnan(a)]), np.signbit(b[~np.isnan(b)]))


def _user_copy(op):
    """The same operator without a code: forces the Numba loop."""
    cls = UnaryOp if isinstance(op, UnaryOp) else BinaryOp
    return cls(op.name + "_loop", op.func, output=op.output)


@pytest.mark.parametrize("dt", list(EDGE))
def test_map_unary_builtin(dt):
    v = EDGE[dt]
    for op in builtin.UNARY.values():
        if op.float_only and v.dtype.kind != "f":
            continue
        got = MAP_UNARY(op, v, v.dtype)
        odt = op.output_dtype(v.dtype)
        assert got.dtype == odt
        exp = py_map(op.func, dt, odt, v)
        if op.code in ("exp", "log") and v.dtype == np.float32:
            np.testing.assert_allclose(got, exp, rtol=2e-7)  # float32 libm, within an ulp
        else:
            same_bits(got, exp)


@pytest.mark.parametrize("dt", list(EDGE))
def test_map_binary_builtin(rng, dt):
    a = EDGE[dt]
    b = rng.permutation(a)
    for op in builtin.BINARY.values():
        if op.float_only and a.dtype.kind != "f":
            continue
        odt = op.output_dtype(a.dtype)
        got = MAP_BINARY(op, a, b, a.dtype)
        assert got.dtype == odt and got.flags.writeable
        same_bits(got, py_map(op.func, dt, odt, a, b))
        # a bound scalar on either side
        n = a.size
        same_bits(MAP_BINARY(op, a, b[1], a.dtype),
                  py_map(op.func, dt, odt, a, np.full(n, b[1], a.dtype)))
        same_bits(MAP_BINARY(op, a[0], b, a.dtype),
                  py_map(op.func, dt, odt, np.full(n, a[0], a.dtype), b))


@pytest.mark.parametrize("dt,codes", [
    ("float32", ("min", "max", "minus", "div", "abs", "minv", "sqrt")),
    ("bool", ("plus", "minus", "rminus", "times", "min", "max", "ainv", "abs")),
    ("int8", ("plus", "times", "ainv", "abs")),
])
def test_ufunc_paths_match_numba_loops(rng, dt, codes):
    """The NumPy fast paths give the bits the operator's compiled definition gives."""
    a = EDGE[dt]
    b = rng.permutation(a)
    for code in codes:
        op = builtin.BINARY.get(code) if code in builtin.BINARY else builtin.UNARY[code]
        if isinstance(op, UnaryOp):
            same_bits(MAP_UNARY(op, a, a.dtype), MAP_UNARY(_user_copy(op), a, a.dtype))
        else:
            loop = _user_copy(op)
            same_bits(MAP_BINARY(op, a, b, a.dtype), MAP_BINARY(loop, a, b, a.dtype))
            same_bits(MAP_BINARY(op, a[0], b, a.dtype), MAP_BINARY(loop, a[0], b, a.dtype))


def test_map_user_ops_and_casts(rng):
    clip = CLIP
    a = rand_values(rng, 50, "float32")
    b = rand_values(rng, 50, "float32")
    same_bits(MAP_BINARY(clip, a, b, a.dtype), py_map(clip.func, "float32", "float32", a, b))
    # operands cast to dtype first (int64 -> int8 wraps), scalar bound on the left
    sub = BinaryOp("sub", lambda x, y: x - y)
    x = np.array([300, -5, 127], np.int64)
    got = MAP_BINARY(sub, np.int8(3), x, np.int8)
    same_bits(got, np.array([3 - 44, 3 + 5, 3 - 127], np.int64).astype(np.int8))
    got = MAP_BINARY(builtin.BINARY["plus"], 2, 3, np.int16)  # two scalars
    same_bits(got, np.array([5], np.int16))
    sq = UnaryOp("sq", lambda v: v * v)
    same_bits(MAP_UNARY(sq, np.array([16, -12], np.int8), np.int8),
              np.array([0, -112], np.int8))
    assert MAP_UNARY(sq, np.zeros(0, np.float64), np.float64).shape == (0,)


def test_map_parallel_loop(monkeypatch, rng):
    monkeypatch.setattr(ew, "PARALLEL_SIZE", 0)
    a = rand_values(rng, 1000, "float64")
    b = rand_values(rng, 1000, "float64")
    same_bits(MAP_BINARY(CLIP, a, b, a.dtype), py_map(CLIP.func, "float64", "float64", a, b))
    same_bits(MAP_BINARY(CLIP, a, 0.5, a.dtype),
              py_map(CLIP.func, "float64", "float64", a, np.full(1000, 0.5)))
    sq = UnaryOp("sq2", lambda v: v * v)
    same_bits(MAP_UNARY(sq, a, a.dtype), a * a)


def test_kernel_cache_reuses():
    s = builtin.SEMIRINGS["plus_times"]
    t = s.types(np.dtype(np.float32), np.dtype(np.float32))
    assert cpu_mxv._PULL.get(s, t) is cpu_mxv._PULL.get(s, t)
    assert cpu_mxm._SAXPY.get(s, t) is cpu_mxm._SAXPY.get(s, t)
