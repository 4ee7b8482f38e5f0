"""Vectors made on their device: ``Vector.full`` and ``Vector.from_dense`` of a CuPy array,
and the fused PageRank start and step kernels and the power-iteration step kernel
against their NumPy definitions on every device."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import gblas as gb
from gblas._device import xp_for
from gblas.backends.registry import get_kernel


@pytest.mark.parametrize("value, dtype, want", [
    (0.5, None, np.float64), (3, None, np.int64), (True, None, np.bool_),
    (1, "float32", np.float32), (np.float32(2), None, np.float32)])
def test_full(device, value, dtype, want):
    x = gb.Vector.full(5, value, dtype=dtype, device=device)
    assert x.device == device and x.size == 5 and x.nvals == 5 and x.dtype == want
    assert x.is_dense_storage and x._data.present is None
    assert type(x._data.values).__module__.startswith("cupy" if device == "gpu" else "numpy")
    got = x.to("cpu").to_dense()
    assert got.dtype == want and np.array_equal(got, np.full(5, value, dtype=want))


def test_full_empty_and_errors():
    assert gb.Vector.full(0, 1.0).nvals == 0
    with pytest.raises(gb.InvalidValue, match=r"Vector.full: argument `size`"):
        gb.Vector.full(-1, 1.0)
    with pytest.raises(gb.InvalidValue, match=r"Vector.full: argument `value`.*a scalar"):
        gb.Vector.full(3, [1.0, 2.0])
    with pytest.raises(gb.InvalidValue, match=r"Vector.full: argument `device`"):
        gb.Vector.full(3, 1.0, device="tpu")
    with pytest.raises(gb.GraphBLASError, match=r"Vector.full"):
        gb.Vector.full(3, 1.0, dtype="not-a-dtype")


def test_from_dense_copies(device):
    xp = xp_for(device)
    arr = xp.arange(4, dtype=xp.float64)
    x = gb.Vector.from_dense(arr)
    assert x.device == device and x.nvals == 4
    arr[0] = 99.0  # the Vector holds its own copy
    assert x.to("cpu").to_dense().tolist() == [0.0, 1.0, 2.0, 3.0]
    y = gb.Vector.from_dense(arr, dtype="float32")
    assert y.dtype == np.float32 and y.device == device


def test_import_does_not_import_cupy():
    code = "import gblas, sys; gblas.Vector.full(3, 1.0); print('cupy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def _step_reference(y, ypres, p, r, w, alpha, m):
    y = np.where(ypres, y, 0.0) if ypres is not None else y
    c = alpha * m + 1 - alpha
    rn = y + c * (p if p is not None else 1.0 / r.size)
    return rn, rn * w, np.abs(rn - r).sum(), rn[w == 0].sum()


@pytest.mark.parametrize("n", [1, 7, 1000, 70_001])
@pytest.mark.parametrize("with_p, with_pres", [(False, False), (True, True)])
def test_pagerank_step_kernel(device, n, with_p, with_pres):
    rng = np.random.default_rng(n)
    xp = xp_for(device)
    y = rng.random(n)
    ypres = rng.random(n) < 0.8 if with_pres else None
    p = rng.random(n) / n if with_p else None
    r = rng.random(n) / n
    w = np.where(rng.random(n) < 0.3, 0.0, rng.random(n))
    alpha, m = 0.85, 0.25
    dev = lambda a: None if a is None else xp.asarray(a)  # noqa: E731
    r_new, s_new = xp.empty(n), xp.empty(n)
    step = get_kernel("pagerank_step", "array", device)
    state = step(dev(y), dev(ypres), dev(p), 1.0 / n, dev(r), dev(w), alpha,
                 xp.asarray([0.0, m]), r_new, s_new)
    rn, sn, err, dm = _step_reference(y, ypres, p, r, w, alpha, m)
    host = lambda a: a.get() if hasattr(a, "get") else a  # noqa: E731
    np.testing.assert_allclose(host(r_new), rn, rtol=1e-15, atol=0)
    np.testing.assert_allclose(host(s_new), sn, rtol=1e-15, atol=0)
    st = host(state)
    np.testing.assert_allclose(st, [err, dm], rtol=1e-12, atol=1e-300)
    # the same sums on a second launch (the last-block fold is deterministic on the GPU)
    again = host(step(dev(y), dev(ypres), dev(p), 1.0 / n, dev(r), dev(w), alpha,
                      xp.asarray([0.0, m]), xp.empty(n), xp.empty(n)))
    assert np.array_equal(st, again)


@pytest.mark.parametrize("n", [1, 7, 1000, 70_001])
def test_pagerank_step_writes_s_into_a_layout(device, n):
    """With ``s_pos`` the step writes ``s`` where an operand layout reads it (the places
    no column takes keep their zeros; columns at -1 go nowhere); the ranks and sums are
    those of the step without it."""
    rng = np.random.default_rng(n + 3)
    xp = xp_for(device)
    y, r = rng.random(n), rng.random(n) / n
    w = np.where(rng.random(n) < 0.3, 0.0, rng.random(n))
    size = n + 5  # padding places at the end of the layout
    keep = rng.random(n) < 0.7
    pos = np.full(n, -1, dtype=np.int32)
    pos[keep] = rng.permutation(size)[:int(keep.sum())].astype(np.int32)
    step = get_kernel("pagerank_step", "array", device)
    host = lambda a: a.get() if hasattr(a, "get") else a  # noqa: E731
    got, plain = [], []
    for s_pos, out in ((xp.asarray(pos), xp.zeros(size)), (None, xp.empty(n))):
        r_new = xp.empty(n)
        st = step(xp.asarray(y), None, None, 1.0 / n, xp.asarray(r), xp.asarray(w), 0.85,
                  xp.asarray([0.0, 0.25]), r_new, out, s_pos=s_pos)
        (got if s_pos is not None else plain).extend([host(r_new), host(out), host(st)])
    want = np.zeros(size)
    want[pos[keep]] = plain[1][keep]
    assert np.array_equal(got[1], want)
    assert np.array_equal(got[0], plain[0]) and np.array_equal(got[2], plain[2])


def _start_reference(d, present, alpha):
    """PageRank's first vectors as the algorithm wrote them before the fused kernel."""
    n = d.size
    ok = d != 0 if present is None else present & (d != 0)
    w = np.where(ok, alpha / np.where(ok, d, 1.0), 0.0)
    return w, w * (1.0 / n), np.full(n, 1.0 / n), [0.0, np.count_nonzero(w == 0) / n]


@pytest.mark.parametrize("n", [1, 7, 1000, 70_001])
@pytest.mark.parametrize("form", ["indptr", "indptr_iso", "indptr_int64", "degrees",
                                  "degrees_present", "no_damping"])
def test_pagerank_start_kernel(device, n, form):
    """PageRank's first vectors (w, s, r) and state on every device, bitwise against
    their NumPy definition: from a pattern's row pointers (bool or iso values) or from
    weighted out-degrees with or without flags; alpha 0 makes every vertex dangling."""
    rng = np.random.default_rng(n + len(form))
    xp = xp_for(device)
    counts = np.where(rng.random(n) < 0.3, 0, rng.integers(1, 9, n))
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(
        np.int64 if form == "indptr_int64" else np.int32)
    alpha = 0.0 if form == "no_damping" else 0.85
    scale = 2.5 if form == "indptr_iso" else 1.0
    present = None
    if form.startswith("indptr") or form == "no_damping":
        args, d = (xp.asarray(indptr), None, True, scale), counts * scale
    else:
        d = np.where(counts == 0, 0.0, rng.random(n) * counts)
        present = rng.random(n) < 0.9 if form == "degrees_present" else None
        args = (xp.asarray(d), None if present is None else xp.asarray(present), False, 1.0)
    got = get_kernel("pagerank_start", "array", device)(*args, alpha)
    host = lambda a: a.get() if hasattr(a, "get") else a  # noqa: E731
    for g, want in zip(got, _start_reference(d.astype(np.float64), present, alpha)):
        assert np.array_equal(host(g), np.asarray(want, dtype=np.float64))


def _power_reference(y, ypres, x, b, scale, add_x, normalize):
    y = np.where(ypres, y, 0.0) if ypres is not None else y
    z = scale * y
    if add_x:
        z = x + z
    if b is not None:
        z = z + b
    ss = float((z * z).sum())
    xn = z / (np.sqrt(ss) or 1.0) if normalize else z
    return xn, np.abs(xn - x).sum(), ss


@pytest.mark.parametrize("n", [1, 7, 1000, 70_001])
@pytest.mark.parametrize("form", ["eigenvector", "katz", "hits", "zero"])
def test_power_step_kernel(device, n, form):
    """The fused power-iteration step on every device against its NumPy definition, for
    the three centralities' forms (and a zero product: divided by 1, as NetworkX)."""
    rng = np.random.default_rng(n)
    xp = xp_for(device)
    y = np.zeros(n) if form == "zero" else rng.random(n)
    ypres = rng.random(n) < 0.7 if form in ("katz", "zero") else None
    x = rng.random(n)
    b = rng.random(n) if form == "katz" else None
    scale = 0.3 if form == "katz" else 1.0
    add_x, normalize = form == "eigenvector", form != "katz"
    dev = lambda a: None if a is None else xp.asarray(a)  # noqa: E731
    host = lambda a: a.get() if hasattr(a, "get") else a  # noqa: E731
    step = get_kernel("power_step", "array", device)
    xd = xp.array(x)  # a copy: the step rewrites it
    state = host(step(dev(y), dev(ypres), xd, dev(b), scale, add_x, normalize,
                      xp.empty(n), xd))
    want_x, want_err, want_ss = _power_reference(y, ypres, x, b, scale, add_x, normalize)
    first = np.array(host(xd))
    np.testing.assert_allclose(first, want_x, rtol=1e-13, atol=1e-300)
    np.testing.assert_allclose(state, [want_err, want_ss], rtol=1e-12, atol=1e-300)
    # into another array, x untouched: the same scores and sums (the grid's fold is in
    # block order, the same on every launch)
    xd, out = xp.array(x), xp.full(n, np.nan)
    again = host(step(dev(y), dev(ypres), xd, dev(b), scale, add_x, normalize,
                      xp.empty(n), out))
    assert np.array_equal(state, again) and np.array_equal(host(xd), x)
    assert np.array_equal(host(out), first)


def test_read_async(device):
    xp = xp_for(device)
    arr = xp.asarray([1.5, -2.0])
    got = get_kernel("read_async", "array", device)(arr).result()
    assert isinstance(got, np.ndarray) and got.tolist() == [1.5, -2.0]


@pytest.mark.gpu
def test_gpu_write_back_into_a_sparse_vector_far_larger_than_its_entries():
    """BFS's steps on the GPU with Vectors of 2**21 positions and a few entries: the
    write-back runs on the device (the compact write-back is the CPU's)."""
    n = 1 << 21
    src = np.arange(n)
    ring = gb.Matrix.from_coo(src, (src + 1) % n, None, shape=(n, n), dtype=bool).to("gpu")
    levels = gb.Vector.from_coo([0], np.array([0], np.int64), n).to("gpu")
    q = gb.Vector.from_coo([0], None, n, dtype=bool).to("gpu")
    for depth in (1, 2, 3):
        q = gb.mxv(ring.T, q, "any_pair", mask=~levels.S, replace=True)
        gb.apply(q, "second", right=depth, mask=q.S, out=levels)
    i, v = levels.to("cpu").to_coo()
    assert i.tolist() == [0, 1, 2, 3] and v.tolist() == [0, 1, 2, 3]


@pytest.mark.gpu
@pytest.mark.parametrize("transposed", [False, True])
def test_gpu_product_of_a_csr_far_larger_than_its_entries(transposed):
    """A CSR-stored Matrix whose rows far outnumber its entries (a row piece of a
    distributed block) runs its ordinary product on the GPU, as the CPU's compact one."""
    from gblas.formats import CSR

    n, rng = 1 << 21, np.random.default_rng(3)
    rows = np.sort(rng.choice(n, 40, replace=False))
    cols = rng.integers(0, 64, 40)
    S = gb.Matrix.from_coo(rows, cols, rng.random(40), shape=(n, 64)).csr()
    A = gb.Matrix(CSR(S.shape, S.indptr, S.indices, S.values, S.dtype, S.iso_value, "cpu"))
    assert not A.is_hypersparse
    op = (lambda M: M.T) if transposed else (lambda M: M)
    x = gb.Vector.from_dense(rng.random(A.shape[0] if transposed else 64))
    want = gb.mxv(op(A), x, "plus_times")
    got = gb.mxv(op(A.to("gpu")), x.to("gpu"), "plus_times").to("cpu")
    np.testing.assert_allclose(got.to_dense(), want.to_dense(), rtol=1e-12)
    assert np.array_equal(got.to_coo()[0], want.to_coo()[0])


def test_power_step_refuses_short_arrays(device):
    """A wrong-length operand is refused before the unchecked passes run."""
    xp = xp_for(device)
    step = get_kernel("power_step", "array", device)
    x = xp.zeros(5)
    with pytest.raises(ValueError, match=r"power_step: argument `out` expected shape \(5,\)"):
        step(xp.zeros(5), None, x, None, 1.0, False, False, xp.empty(5), xp.empty(2))
    with pytest.raises(ValueError, match=r"argument `state_out` expected shape \(2,\)"):
        step(xp.zeros(5), None, x, None, 1.0, False, False, xp.empty(5), x, xp.empty(5))
