"""PageRank's vector step run by the light panels' fold (``then=PageRankStep``, ``x`` in
the operand layout or in column order): the ranks, ``s`` in the operand layout and the
two sums equal those of the product followed by ``("pagerank_step", "array", "gpu")``,
and a NumPy step over SciPy's product, on random
matrices (iso and valued, dangling rows, rows no entry reaches, uniform and given
teleport weights) with row panels shared by several blocks or not."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from gblas.backends.registry import PageRankStep, VecData, epilogues, get_kernel
from gblas.formats.csr import CSR
from gblas.formats.gpu_heavy_light import GPUHeavyLight
from gblas.semirings import builtin

pytestmark = pytest.mark.gpu

cp = pytest.importorskip("cupy")

F8 = np.dtype(np.float64)


def _case(rng, n: int, nnz: int, iso: bool, light_rows: int):
    """A GPU light-panels layout of a random ``n x n`` matrix (relabelled columns: more
    than one panel of 64), its SciPy twin, and the arguments of a step: ``x`` in the
    layout, ``r``, ``w``.  (Square: the step writes vertex i's ``s`` to column i's
    place, ``s_pos[i]``.)"""
    m = n
    rows = rng.integers(0, m, size=nnz)
    cols = (rng.zipf(1.6, size=nnz) - 1) % n   # hub columns, as a graph's transpose has
    S = sp.csr_array((rng.random(nnz) + 0.1, (rows, cols)), shape=(m, n))
    S.sum_duplicates()
    if iso:   # a pattern: every entry counts 1 (plus_second)
        S.data[:] = 1.0
        A = CSR((m, n), S.indptr.astype(np.int64), S.indices.astype(np.int32), None,
                np.dtype(np.bool_), np.True_, "cpu")
    else:
        A = CSR.from_scipy(S)
    # every entry in the light panels (no heavy tile), as operand layouts need
    H = GPUHeavyLight.from_csr(A.to_device("gpu"), heavy_threshold=10 ** 9, light_cols=64,
                               light_rows=light_rows, light_unit=512, light_relabel=True)
    lay = H.operand_layout()
    assert lay is not None
    x = rng.random(n)
    pos = cp.asnumpy(lay.positions)
    xl = np.zeros(lay.size)
    xl[pos[pos >= 0]] = x[pos >= 0]
    w = np.where(rng.random(m) < 0.2, 0.0, rng.random(m))   # zeros: dangling vertices
    return H, S, x, cp.asarray(xl), lay, cp.asarray(rng.random(m)), cp.asarray(w)


def _expected(S, x, r, w, p, p_uniform, alpha, m_in):
    """The step in NumPy on SciPy's product: r', s' (column order) and [err, dangling]."""
    y = S @ x
    rn = y + (alpha * m_in + 1 - alpha) * (p_uniform if p is None else p)
    return rn, rn * w, np.array([np.abs(rn - r).sum(), rn[w == 0].sum()])


def _run(H, xl, lay, r, w, p, alpha, state_in, fused: bool, iso: bool, x=None):
    """``(r', s' in the layout, state)`` by the fused kernel (reading ``x`` in column
    order where given, else ``xl``) or by product then step."""
    m = H.shape[0]
    sr = builtin.SEMIRINGS["plus_second" if iso else "plus_times"]
    types = sr.types(H.dtype, F8)
    pull = get_kernel("mxv", "gpu_heavy_light", "gpu", "pull")
    r_new, s_new, state = cp.full(m, np.nan), cp.zeros(lay.size), cp.full(2, np.nan)
    xv = VecData(lay.size, None, xl, None)
    if fused:
        step = PageRankStep(p, 1.0 / m, r, w, alpha, state_in, r_new, s_new, state,
                            lay.positions)
        if x is None:
            got = pull(H, xv, None, sr, types, x_layout=True, then=step)
        else:
            got = pull(H, VecData(m, None, cp.asarray(x), None), None, sr, types, then=step)
        assert got is None
    else:
        y = pull(H, xv, None, sr, types, x_layout=True)
        get_kernel("pagerank_step", "array", "gpu")(
            y.values, y.present, p, 1.0 / m, r, w, alpha, state_in, r_new, s_new, state,
            s_pos=lay.positions)
    return cp.asnumpy(r_new), cp.asnumpy(s_new), cp.asnumpy(state)


def _check(H, S, x, xl, lay, r, w, p, iso: bool):
    alpha, state_in = 0.85, cp.asarray([0.25, 0.125])
    fused = _run(H, xl, lay, r, w, p, alpha, state_in, True, iso)
    gathered = _run(H, xl, lay, r, w, p, alpha, state_in, True, iso, x=x)
    apart = _run(H, xl, lay, r, w, p, alpha, state_in, False, iso)
    rn, s_col, state = _expected(S, x, cp.asnumpy(r), cp.asnumpy(w),
                                 None if p is None else cp.asnumpy(p), 1.0 / H.shape[0],
                                 alpha, 0.125)
    pos = cp.asnumpy(lay.positions)
    s_lay = np.zeros(lay.size)
    s_lay[pos[pos >= 0]] = s_col[pos >= 0]
    for got in (fused, gathered, apart):
        np.testing.assert_allclose(got[0], rn, rtol=1e-13, atol=1e-300)
        np.testing.assert_allclose(got[1], s_lay, rtol=1e-13, atol=1e-300)
        np.testing.assert_allclose(got[2], state, rtol=1e-12)
    # the two routes fold y by atomic updates in any order: equal to the last bits only
    # where no row sums more than one partial; the sums' order differs too
    np.testing.assert_allclose(fused[0], apart[0], rtol=1e-14, atol=1e-300)


@settings(max_examples=25, deadline=None)
@given(st.integers(65, 700), st.integers(1, 6000), st.booleans(), st.booleans(),
       st.integers(0, 2 ** 32 - 1))
def test_the_fused_step_equals_the_product_then_the_step(n, nnz, iso, personal, seed):
    rng = np.random.default_rng(seed)
    H, S, x, xl, lay, r, w = _case(rng, n, nnz, iso, light_rows=64)
    p = cp.asarray(rng.random(n) / n) if personal else None
    _check(H, S, x, xl, lay, r, w, p, iso)


def test_row_panels_shared_by_two_blocks():
    """Row panels of 32768 float64 accumulators (256 KB) fold in two blocks each: every
    row is still stepped once, and the grid's sums count each block once."""
    rng = np.random.default_rng(7)
    H, S, x, xl, lay, r, w = _case(rng, 70_000, 200_000, False, light_rows=32768)
    _check(H, S, x, xl, lay, r, w, None, False)


def test_the_kernel_names_its_epilogue_and_refuses_what_it_cannot_follow():
    pull = get_kernel("mxv", "gpu_heavy_light", "gpu", "pull")
    assert "pagerank_step" in epilogues(pull)
    rng = np.random.default_rng(3)
    H, _, _, xl, lay, r, w = _case(rng, 150, 900, True, light_rows=64)
    sr = builtin.SEMIRINGS["plus_second"]
    types = sr.types(H.dtype, F8)
    step = PageRankStep(None, 1 / 150, r, w, 0.85, cp.zeros(2), cp.empty(150),
                        cp.zeros(lay.size), cp.empty(2), lay.positions)
    heavy = GPUHeavyLight.from_csr(H.light.to_device("gpu"), tile_rows=8, tile_cols=32,
                                   heavy_threshold=2)
    assert heavy.nunits
    with pytest.raises(ValueError, match="no heavy tile"):
        pull(heavy, VecData(150, None, cp.ones(150), None), None, sr, types, then=step)
    with pytest.raises(ValueError, match="no mask"):
        pull(H, VecData(lay.size, None, xl, None), cp.ones(150, dtype=bool), sr, types,
             x_layout=True, then=step)
