"""Out of memory is a gblas ``OutOfMemory`` naming the call, the bytes asked and a fix;
a derived format whose build runs out leaves the call on CSR (the reason in the plan);
COO input in dimensions whose linear keys overflow int64 is sorted by its pairs.

Allocation failures are provoked cheaply: sizes no machine has (checked before any
allocation), and allocators or builds monkeypatched to fail.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas import hardware
from gblas.exceptions import OutOfMemory, out_of_memory, requested_bytes
from gblas.formats import get_format_class
from gblas.formats.csr import CSR

try:  # NumPy 2 / NumPy 1
    from numpy._core._exceptions import _ArrayMemoryError
except ImportError:  # pragma: no cover
    from numpy.core._exceptions import _ArrayMemoryError


def _numpy_oom(n: int = 2**40):
    return _ArrayMemoryError((n,), np.dtype(np.float64))


# ------------------------------------------------------------------ host errors
def test_a_dense_vector_of_petabytes_is_refused_before_allocating():
    with pytest.raises(OutOfMemory) as e:
        gb.Vector.full(2**50, 1.0)
    msg = str(e.value)
    assert msg.startswith("Vector.full:") and "9,007,199,254,740,992 bytes" in msg
    assert e.value.nbytes == 8 * 2**50 and e.value.device == "cpu"
    assert isinstance(e.value, MemoryError) and isinstance(e.value, gb.GraphBLASError)


def test_the_dense_form_of_a_huge_sparse_vector_is_refused():
    v = gb.Vector.from_coo([0, 2**45], [1.0, 2.0], size=2**46)
    with pytest.raises(OutOfMemory, match="Keep it sparse"):
        v.to_dense()
    assert v.nvals == 2  # still usable
    assert v.to_coo()[0].tolist() == [0, 2**45]


def test_an_allocation_failing_inside_an_operation_names_the_operation(monkeypatch):
    from gblas.core import executor

    A = gb.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], shape=(2, 2))
    x = gb.Vector.from_dense([1.0, 1.0])
    out = gb.Vector.from_dense([5.0, 6.0])

    def failing(*a, **k):
        raise _numpy_oom()

    monkeypatch.setattr(executor, "kernel", lambda plan, step=None: failing)
    with pytest.raises(OutOfMemory) as e:
        gb.mxv(A, x, out=out, accum="plus")
    assert str(e.value).startswith("mxv: not enough host memory")
    assert e.value.nbytes == 8 * 2**40 and "8,796,093,022,208 bytes" in str(e.value)
    assert isinstance(e.value.__cause__, _ArrayMemoryError)
    assert out.to_dense().tolist() == [5.0, 6.0]  # left unchanged


def test_an_algorithm_running_out_names_its_inner_call(monkeypatch):
    from gblas.core import executor

    A = gb.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], shape=(2, 2))

    def failing(*a, **k):
        raise _numpy_oom(2**38)

    monkeypatch.setattr(executor, "kernel", lambda plan, step=None: failing)
    with pytest.raises(OutOfMemory) as e:
        gb.algorithms.pagerank(A)
    assert str(e.value).startswith("pagerank: mxv: not enough host memory")
    assert e.value.nbytes == 8 * 2**38


def test_matrix_construction_runs_out_as_an_error(monkeypatch):
    def failing(*a, **k):
        raise _numpy_oom(3 * 2**30)

    monkeypatch.setattr(CSR, "from_coo", classmethod(failing))
    with pytest.raises(OutOfMemory, match=r"^Matrix\.from_coo: not enough host memory"):
        gb.Matrix.from_coo([0], [1], [1.0], shape=(4, 4))
    monkeypatch.setattr(CSR, "from_scipy", classmethod(failing))
    with pytest.raises(OutOfMemory, match=r"^Matrix\.from_scipy: .*25,769,803,776 bytes"):
        gb.Matrix.from_scipy(sp.eye(3, format="csr"))


def test_error_helpers():
    assert requested_bytes(_numpy_oom(10)) == 80
    assert requested_bytes(MemoryError("Out of memory allocating 1,024 bytes (x)")) == 1024
    assert requested_bytes(MemoryError()) is None
    err = out_of_memory("apply", MemoryError())
    assert "size not reported" in str(err) and err.nbytes is None
    inner = out_of_memory("Vector.dense_data", nbytes=99)
    outer = out_of_memory("mxv", inner)
    assert str(outer).startswith("mxv: Vector.dense_data:") and outer.nbytes == 99
    assert out_of_memory("mxv", outer) is outer


# ------------------------------------------------------------------ format builds
def _segmented_case():
    A = gb.io.kronecker(12, 8, seed=3, dtype="float64")
    return A, gb.Vector.full(A.shape[0], 1.0)


def test_a_format_build_running_out_falls_back_to_csr(monkeypatch):
    """The planner chooses a derived format (caches assumed tiny); its build runs out:
    the call runs again on CSR, later plans keep CSR with the reason, the answer is
    SciPy's, and A.clear_cache() lets the planner try the build again."""
    A, x = _segmented_case()

    def failing(cls, csr, **params):
        raise _numpy_oom(2**33)

    want = A.to_scipy() @ np.ones(A.shape[0])
    with hardware.assume(l1d=1024, l2=4096, l3=8192, threads=2), gb.config(expected_uses=1000):
        fmt = gb.explain(gb.mxv, A, x).format
        assert fmt != "csr"
        cls = get_format_class(fmt)
        original = cls.from_csr.__func__
        monkeypatch.setattr(cls, "from_csr", classmethod(failing))
        y = gb.mxv(A, x)
        np.testing.assert_allclose(y.to_dense(), want)
        assert A.build_failure(fmt) is not None
        assert "68,719,476,736 bytes" in A.build_failure(fmt)
        plan = gb.explain(gb.mxv, A, x)
        assert plan.format == "csr" and f"{fmt} fell back to csr" in plan.reason
        np.testing.assert_allclose(gb.mxv(A, x).to_dense(), want)
        monkeypatch.setattr(cls, "from_csr", classmethod(original))
        A.clear_cache()
        assert A.build_failure(fmt) is None
        assert gb.explain(gb.mxv, A, x).format == fmt
        np.testing.assert_allclose(gb.mxv(A, x).to_dense(), want)


def test_a_pinned_format_that_runs_out_is_an_error(monkeypatch):
    A, x = _segmented_case()
    seg = get_format_class("segmented")
    monkeypatch.setattr(seg, "from_csr",
                        classmethod(lambda cls, csr, **p: (_ for _ in ()).throw(_numpy_oom())))
    with gb.config(format="segmented"), pytest.raises(OutOfMemory) as e:
        gb.mxv(A, x)
    assert str(e.value).startswith("mxv: building format 'segmented'")
    assert "planner keeps CSR" in str(e.value)


# ------------------------------------------------------------------ int64 keys overflow
@settings(max_examples=60, deadline=None)
@given(st.sampled_from([(3, 2**62), (5, 2**61 + 7), (2, 2**63 - 1), (7, 3 * 2**60)]),
       st.lists(st.tuples(st.integers(0, 6), st.integers(0, 2**63 - 2),
                          st.integers(-5, 5)), max_size=12),
       st.booleans())
def test_coo_in_dimensions_whose_keys_overflow_sorts_by_pairs(shape, entries, via_matrix):
    m, n = shape
    rows = [r % m for r, _, _ in entries]
    cols = [c % n for _, c, _ in entries]
    vals = [float(v) for _, _, v in entries]
    want: dict = {}
    for r, c, v in zip(rows, cols, vals):
        want[(r, c)] = want.get((r, c), 0.0) + v
    if via_matrix:
        A = gb.Matrix.from_coo(rows, cols, vals, shape=shape)
        r, c, v = A.to_coo()
    else:
        csr = CSR.from_coo(np.array(rows, np.int64), np.array(cols, np.int64),
                           np.array(vals), shape, dup_op=gb.binary.plus)
        r, c, v = csr.to_coo()
    got = {(int(a), int(b)): float(x) for a, b, x in zip(r, c, v)}
    assert got == want
    keys = list(zip(r.tolist(), c.tolist()))
    assert keys == sorted(keys)


def test_a_wide_csr_keeps_row_order_against_key_overflow():
    """Keys ``row * ncols + col`` would wrap: (1, 0) would sort before (0, 2**62 - 1)."""
    n = 2**62
    csr = CSR.from_coo(np.array([1, 0, 2, 0]), np.array([0, n - 1, 5, 3]),
                       np.array([1.0, 2.0, 3.0, 4.0]), (3, n))
    assert csr.indptr.tolist() == [0, 2, 3, 4]
    assert csr.indices.tolist() == [3, n - 1, 0, 5]
    assert csr.values.tolist() == [4.0, 2.0, 1.0, 3.0]


# ------------------------------------------------------------------ dup_op keeps dtype
@pytest.mark.parametrize("op", ["eq", "lor", "land", "lt", "lxor"])
def test_a_bool_dup_op_keeps_the_requested_dtype(op):
    A = gb.Matrix.from_coo([0, 0, 1], [1, 1, 0], [1, 2, 300], shape=(2, 2), dup_op=op,
                           dtype=np.int64)
    f = {"eq": lambda a, b: a == b, "lor": lambda a, b: bool(a) or bool(b),
         "land": lambda a, b: bool(a) and bool(b), "lt": lambda a, b: a < b,
         "lxor": lambda a, b: bool(a) != bool(b)}[op]
    assert A.dtype == np.int64
    assert A.to_coo()[2].tolist() == [int(f(1, 2)), 300]
    v = gb.Vector.from_coo([0, 0, 1], [1, 2, 300], size=2, dup_op=op, dtype=np.int64)
    assert v.dtype == np.int64 and v.to_coo()[1].tolist() == [int(f(1, 2)), 300]


def test_three_duplicates_cast_back_between_steps():
    # eq(eq(2, 2), 1) = eq(1, 1) = 1 in int64 (GraphBLAS casts each result back)
    A = gb.Matrix.from_coo([0, 0, 0], [0, 0, 0], [2, 2, 1], shape=(1, 1), dup_op="eq",
                           dtype=np.int64)
    assert A.to_coo()[2].tolist() == [1]


# ------------------------------------------------------------------ GPU
@pytest.mark.gpu
def test_gpu_out_of_memory_is_an_error_and_a_format_build_falls_back(monkeypatch):
    """On the GPU: a vector no card holds is an OutOfMemory naming the call; a format
    build whose allocations fail (CuPy's allocator monkeypatched) leaves the call on
    CSR with the reason in the plan."""
    cp = pytest.importorskip("cupy")
    try:
        cp.cuda.runtime.getDeviceCount()
    except Exception:  # pragma: no cover
        pytest.skip("no GPU: CuPy with a CUDA device was not found")
    with pytest.raises(OutOfMemory) as e:
        gb.Vector.full(2**44, 1.0, device="gpu")
    assert e.value.device == "gpu" and str(e.value).startswith("Vector.full: not enough GPU")

    from gblas.planner import choose

    A = gb.io.kronecker(12, 8, seed=3, dtype="float64").to("gpu")
    x = gb.Vector.full(A.shape[0], 1.0, device="gpu")
    fmt = "gpu_segmented"
    cls = get_format_class(fmt)
    original = cls.from_csr.__func__

    def fail_alloc(size):
        raise cp.cuda.memory.OutOfMemoryError(size, 0, 0)

    def build_without_memory(klass, csr, **params):
        with cp.cuda.using_allocator(fail_alloc):
            return original(klass, csr, **params)

    real_choose = choose.choose_pull_format

    def prefer(A_, transposed, device, *a, **k):
        got = real_choose(A_, transposed, device, *a, **k)
        return (fmt, f"{fmt}: test", got[2], None) if device == "gpu" else got

    monkeypatch.setattr(choose, "choose_pull_format", prefer)
    monkeypatch.setattr(cls, "from_csr", classmethod(build_without_memory))
    want = A.to("cpu").to_scipy() @ np.ones(A.shape[0])
    y = gb.mxv(A, x)
    np.testing.assert_allclose(y.to("cpu").to_dense(), want, rtol=1e-12)
    assert A.build_failure(fmt) is not None
    plan = gb.explain(gb.mxv, A, x)
    assert plan.format == "csr" and f"{fmt} fell back to csr" in plan.reason
