"""gblas.distributed on a LocalCluster of worker processes: every distributed operation
against the single-process result (masks, accumulators, replace, out included), on
hypothesis-drawn matrices, vectors and grids (1x1, 1xp, px1, 2x2, 3x2 with ragged edges);
explain; bad grids and mismatched distributions.

One cluster of 3 worker processes (1 thread each) serves the whole module.  Each worker
process loads every kernel it runs (from the disk cache, or compiles it), ~0.3-1 s per
kernel and process on a 2-core machine, so the tests keep to a few semirings and dtypes
and vary the structure: shapes, grids, masks, accumulators, replace, out.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

# Dask's own module path: where Dask is not installed, a bare "distributed" finds this
# test folder (a namespace package) instead of failing
pytest.importorskip("dask.distributed", reason="needs the distributed extra")

from helpers import local_client  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import gblas as gb  # noqa: E402
from gblas.distributed import DistMatrix, DistVector, Grid, default_grid, split_bounds  # noqa: E402
from gblas.testing import assert_equal  # noqa: E402
from gblas.testing import strategies as gst  # noqa: E402

# Dask's client thread draws from the random module while hypothesis draws examples
pytestmark = [pytest.mark.distributed, pytest.mark.filterwarnings(
    "ignore::hypothesis.errors.HypothesisDeprecationWarning")]

GRIDS = [(1, 1), (1, 2), (1, 3), (2, 1), (3, 1), (2, 2), (3, 2), (2, 3)]
FEW = settings(max_examples=12, deadline=None,
               suppress_health_check=[HealthCheck.function_scoped_fixture,
                                      HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(scope="module")
def client():
    with local_client(3, silence_logs=40) as c:
        yield c


def _workers(client) -> list:
    """The workers' addresses, sorted.  From ``Client.nthreads`` (a call to the
    scheduler): ``Client.scheduler_info()`` returns a cached identity that the client's
    periodic refresh, which asks for no workers, may overwrite between its fetch and its
    return (a test once got an empty list from it)."""
    return sorted(client.nthreads())


def _grid(draw, shape):
    """A grid from GRIDS that fits the shape (at most one part per row/column)."""
    fits = [g for g in GRIDS if g[0] <= max(shape[0], 1) and g[1] <= max(shape[1], 1)]
    return draw(st.sampled_from(fits))


def _same_outcome(local, dist, **kw):
    """Run both; equal results, or the same exception type from both."""
    try:
        expected = local()
    except gb.GraphBLASError as e:
        with pytest.raises(type(e)):
            got = dist()
            if hasattr(got, "gather"):
                got.gather()
        return
    got = dist()
    if hasattr(got, "gather"):
        got = got.gather()
    if isinstance(expected, (gb.Vector, gb.Matrix)):
        assert_equal(got, expected, **kw)
    else:
        assert np.asarray(got).dtype == np.asarray(expected).dtype
        np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(expected, float),
                                   rtol=1e-12, atol=0)


# ------------------------------------------------------------------------ no cluster

def test_import_gblas_does_not_import_dask():
    code = ("import sys, gblas, gblas.algorithms; import gblas as gb; "
            "A = gb.Matrix.from_coo([0], [1], shape=(2, 2)); gb.algorithms.bfs(A, 0); "
            "bad = [m for m in ('dask', 'distributed', 'cloudpickle') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr


def test_bounds_and_default_grid():
    assert split_bounds(10, 3).tolist() == [0, 3, 6, 10]
    assert split_bounds(2, 2).tolist() == [0, 1, 2]
    assert default_grid(1) == (1, 1) and default_grid(4) == (2, 2)
    assert default_grid(6) == (2, 3) and default_grid(7) == (1, 7)
    g = Grid.make(7, 5, (3, 2), ["a", "b"])
    assert g.row_bounds.tolist() == [0, 2, 4, 7] and g.col_bounds.tolist() == [0, 2, 5]
    assert [g.owner(i, j) for i in range(3) for j in range(2)] == ["a", "b"] * 3


@pytest.mark.parametrize("grid, what", [
    ((0, 2), "positive integers"), ((2,), "pair"), ((2.0, 1), "pair"), ("2x2", "pair"),
    ((4, 1), "at most 3 row parts"), ((1, 5), "at most 3 row parts and 4 column parts"),
])
def test_bad_grids(grid, what):
    with pytest.raises(gb.InvalidValue, match="distribute: argument `grid`") as e:
        Grid.make(3, 4, grid, ["w"])
    assert what in str(e.value)


def test_scatter_needs_one_worker_per_segment(client):
    with pytest.raises(gb.InvalidValue, match="one worker per segment"):
        gb.distributed.scatter_vector(client, gb.Vector.from_dense([1.0, 2.0, 3.0]),
                                      split_bounds(3, 2), ["w0"])


def test_distribute_needs_a_client():
    A = gb.Matrix.from_coo([0], [1], shape=(2, 2))
    with pytest.raises(gb.InvalidObject, match="argument `client` expected a dask"):
        A.distribute(object())


# ---------------------------------------------------------------------- distribution

def test_blocks_cover_the_matrix_and_stay_put(client):
    A = gb.io.kronecker(5, 4, seed=3)
    D = A.distribute(client, grid=(3, 2))
    assert isinstance(D, DistMatrix) and D.nvals == A.nvals
    assert D.gather().isequal(A)
    keys = [b.key for b in D.blocks]
    where = client.who_has(D.blocks)
    assert [where[k][0] for k in keys] == list(D.grid.workers)
    x = gb.Vector.from_dense(np.arange(32.0))
    for _ in range(2):
        gb.mxv(D, x).gather()
    assert [b.key for b in D.blocks] == keys  # blocks are kept, not rebuilt
    assert client.who_has(D.blocks) == where  # and not moved


def test_mismatched_distributions(client):
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 3], [1.0, 2.0, 3.0], shape=(4, 4))
    D1, D2 = A.distribute(client, grid=(2, 2)), A.distribute(client, grid=(1, 2))
    with pytest.raises(gb.DimensionMismatch, match="ewise_add: argument `B` expected a "
                       "matrix distributed on the same 2 x 2 grid"):
        gb.ewise_add(D1, D2)
    with pytest.raises(gb.DimensionMismatch, match="mxv: argument `x` expected a Vector "
                       "of size 4, got size 5"):
        gb.mxv(D1, gb.Vector.from_dense(np.ones(5)))
    with pytest.raises(gb.DimensionMismatch, match="argument `mask`"):
        gb.mxv(D1, gb.Vector.from_dense(np.ones(4)), mask=gb.Vector.from_dense([1, 2]).S)
    with pytest.raises(gb.InvalidValue, match="Unknown semiring"):
        gb.mxv(D1, gb.Vector.from_dense(np.ones(4)), "plus_tims")
    with pytest.raises(gb.NoKernel, match="extract: .* has no distributed version"):
        gb.extract(D1, [0])


# -------------------------------------------------------------------------- products

@FEW
@given(data=st.data())
def test_products_match_single_process(client, data):
    A = data.draw(gst.matrices(max_dim=9, dtype="float64"))
    grid = _grid(data.draw, A.shape)
    op = data.draw(st.sampled_from(["mxv", "mxv_T", "vxm", "vxm_T"]))
    left = op.startswith("vxm")
    Aop = A.T if op.endswith("_T") else A
    nin = Aop.shape[0] if left else Aop.shape[1]
    nout = Aop.shape[1] if left else Aop.shape[0]
    x = data.draw(gst.vectors(nin, "float64"))
    sem = data.draw(st.sampled_from(["plus_times", "min_plus", "any_pair",
                                     gst.USER_SEMIRINGS["max_clip"]]))
    mask = data.draw(gst.masks(nout))
    accum = data.draw(st.sampled_from([None, "plus", "min"]))
    out = data.draw(st.one_of(st.none(), gst.vectors(nout, "float64")))
    replace = data.draw(st.booleans()) if mask is not None else False
    xd = data.draw(st.sampled_from(["local", "dist"]))
    f = gb.vxm if left else gb.mxv
    D = A.distribute(client, grid=grid)
    Dop = D.T if op.endswith("_T") else D

    def local():
        o = None if out is None else out.dup()
        args = (x, Aop) if left else (Aop, x)
        return f(*args, sem, mask=mask, accum=accum, out=o, replace=replace)

    def dist():
        parts = 2 if nin >= 2 else 1  # cut otherwise than the grid: re-cut by tasks
        xx = x if xd == "local" else gb.distributed.scatter_vector(
            client, x, split_bounds(nin, parts),
            _workers(client)[:parts])
        o = None if out is None else D.vector(out.dup(), over="rows") if (
            not left and op == "mxv") else out.dup()
        args = (xx, Dop) if left else (Dop, xx)
        got = f(*args, sem, mask=mask, accum=accum, out=o, replace=replace)
        assert isinstance(got, DistVector) or o is not None
        return got

    _same_outcome(local, dist)


def test_product_with_distributed_mask_and_out(client):
    A = gb.io.kronecker(6, 4, seed=1, symmetric=True)
    D = A.distribute(client, grid=(2, 2))
    n = A.shape[0]
    x = gb.Vector.from_coo(np.arange(0, n, 3), np.arange(0, n, 3) * 0.5, n)
    m = gb.Vector.from_coo(np.arange(0, n, 2), np.ones(n // 2, bool), n)
    out = gb.Vector.from_dense(np.full(n, 7.0))
    want = gb.mxv(A.T, x, "min_plus", mask=~m.S, accum="min", out=out.dup(), replace=True)
    md, od, xd = D.vector(m, "columns"), D.vector(out, "columns"), D.vector(x, "rows")
    got = gb.mxv(D.T, xd, "min_plus", mask=~md.S, accum="min", out=od, replace=True)
    assert got is od
    assert_equal(got.gather(), want)


# ----------------------------------------------------------------------- elementwise

@FEW
@given(data=st.data())
def test_vector_elementwise_match_single_process(client, data):
    n = data.draw(st.integers(1, 11))
    dt = data.draw(st.sampled_from(["float64", "int64"]))
    u, v = data.draw(gst.vectors(n, dt)), data.draw(gst.vectors(n, dt))
    parts = data.draw(st.integers(1, min(n, 3)))
    mask = data.draw(gst.masks(n))
    accum = data.draw(st.sampled_from([None, "plus", "max"]))
    out = data.draw(st.one_of(st.none(), gst.vectors(n, dt)))
    replace = data.draw(st.booleans()) if mask is not None else False
    call = data.draw(st.sampled_from(["ewise_add", "ewise_mult", "apply", "apply_right",
                                      "select", "select_index", "select_user"]))
    workers = _workers(client)
    bounds = split_bounds(n, parts)
    ud = gb.distributed.scatter_vector(client, u, bounds, workers[:parts])
    vd = gb.distributed.scatter_vector(client, v, split_bounds(n, 1), workers[2:])

    def run(a, b, o):
        kw = dict(mask=mask, accum=accum, out=o, replace=replace)
        if call == "ewise_add":
            return gb.ewise_add(a, b, "max", **kw)
        if call == "ewise_mult":
            return gb.ewise_mult(a, b, "plus", **kw)
        if call == "apply":
            return gb.apply(a, "ainv", **kw)
        if call == "apply_right":
            return gb.apply(a, "times", right=3, **kw)
        if call == "select":
            return gb.select(a, "valuegt", 0, **kw)
        if call == "select_index":
            return gb.select(a, "indexle", n // 2, **kw)
        return gb.select(a, lambda i, j, vals, t: (i % 3) == t, 1, **kw)

    def dist():
        o = None if out is None else gb.distributed.scatter_vector(
            client, out.dup(), bounds, workers[:parts])
        return run(ud, vd, o)

    _same_outcome(lambda: run(u, v, None if out is None else out.dup()), dist)


@FEW
@given(data=st.data())
def test_matrix_elementwise_and_reduce_match_single_process(client, data):
    A = data.draw(gst.matrices(max_dim=8, dtype="float64"))
    B = data.draw(gst.matrices(A.shape, "float64"))
    grid = _grid(data.draw, A.shape)
    mask = data.draw(gst.masks(A.shape))
    accum = data.draw(st.sampled_from([None, "plus"]))
    replace = data.draw(st.booleans()) if mask is not None else False
    call = data.draw(st.sampled_from(["ewise_add", "ewise_mult", "apply", "tril", "offdiag",
                                      "colgt", "user", "transpose"]))
    axis = data.draw(st.sampled_from(["rows", "columns"]))
    DA, DB = A.distribute(client, grid=grid), B.distribute(client, grid=grid)
    kw = dict(mask=mask, accum=accum, replace=replace)
    dmask = None if mask is None else (
        lambda m: ~m if mask.complement else m)(
        (lambda P: P.S if mask.structural else P.V)(mask.parent.distribute(client, grid)))
    dkw = dict(kw, mask=dmask)

    def run(a, b, kws):
        if call == "ewise_add":
            return gb.ewise_add(a, b, "min", **kws)
        if call == "ewise_mult":
            return gb.ewise_mult(a, b, "times", **kws)
        if call == "apply":
            return gb.apply(a, "abs", **kws)
        if call == "tril":
            return gb.select(a, "tril", -1, **kws)
        if call == "offdiag":
            return gb.select(a, "offdiag", 1, **kws)
        if call == "colgt":
            return gb.select(a, "colgt", 2, **kws)
        if call == "user":
            return gb.select(a, lambda i, j, v, t: (i + j) % 2 == t, 0, **kws)
        if kws["mask"] is None and kws["accum"] is None:
            return gb.transpose(a)
        return gb.apply(a, "identity", **kws)

    _same_outcome(lambda: run(A, B, kw), lambda: run(DA, DB, dkw))
    _same_outcome(lambda: gb.reduce(A, "plus"), lambda: gb.reduce(DA, "plus"))
    _same_outcome(lambda: gb.reduce(A, "max", axis=axis),
                  lambda: gb.reduce(DA, "max", axis=axis))


@FEW
@given(data=st.data())
def test_assign_matches_single_process(client, data):
    n = data.draw(st.integers(1, 10))
    w = data.draw(gst.vectors(n, "int64"))
    parts = data.draw(st.integers(1, min(n, 3)))
    idx = data.draw(st.one_of(st.none(), st.lists(st.integers(0, n - 1), max_size=n,
                                                   unique=True)))
    k = n if idx is None else len(idx)
    value = data.draw(st.one_of(st.integers(-5, 5), gst.vectors(k, "int64")))
    mask = data.draw(gst.masks(n))
    accum = data.draw(st.sampled_from([None, "plus"]))
    replace = data.draw(st.booleans()) if mask is not None else False
    workers = _workers(client)
    wd = gb.distributed.scatter_vector(client, w, split_bounds(n, parts), workers[:parts])
    want = gb.assign(w.dup(), value, idx, mask=mask, accum=accum, replace=replace)
    got = gb.assign(wd, value, idx, mask=mask, accum=accum, replace=replace)
    assert got is wd
    assert_equal(got.gather(), want)


def test_user_semiring_ships_to_workers(client):
    # a function defined here (a test module the workers cannot import) ships by value
    def halfmax(a, b):
        return max(a, b) * 0.5

    op = gb.BinaryOp("halfmax_test", halfmax)
    s = gb.Semiring("plus_halfmax", add=gb.monoids.plus, multiply=op)
    A = gb.Matrix.from_coo([0, 1, 2, 2], [1, 2, 0, 2], [1.0, 4.0, 2.0, 8.0], shape=(3, 3))
    D = A.distribute(client, grid=(2, 2))
    x = gb.Vector.from_dense([2.0, 6.0, 10.0])
    assert_equal(gb.mxv(D, x, s).gather(), gb.mxv(A, x, s))


def test_explain_shows_grid_exchange_and_block_plans(client):
    A = gb.io.kronecker(6, 4, seed=2)
    D = A.distribute(client, grid=(2, 2))
    x = gb.Vector.from_dense(np.ones(64))
    p = gb.explain(gb.mxv, D, x, "plus_times")
    text = str(p)
    assert "2 x 2 grid over 64 x 64 on 3 worker(s)" in text
    assert "words per worker" in text and "O(n/sqrt(p))" in text
    assert len(p.blocks) == 4 and all(isinstance(b[2], gb.Plan) for b in p.blocks)
    assert p.exchange["model_words"] == 64  # n/pc + n/pr
    assert p.exchange["words_per_worker"] <= 64
    q = gb.explain(gb.algorithms.pagerank, D)
    assert q.tier == "tasks" and "needs GPU blocks" in q.reason


# ------------------------------------------------------------------------ algorithms

def _graphs():
    """A directed Kronecker graph (pattern) and a weighted undirected one with a vertex
    count that no grid divides (ragged edges)."""
    A = gb.io.kronecker(6, 4, seed=5, dtype=None)
    r, c = gb.io.kronecker_coo(6, 3, seed=9)
    keep = (r < 61) & (c < 61)
    w = (np.arange(keep.sum()) % 7 + 1).astype(np.float64)
    B = gb.Matrix.from_coo(np.concatenate([r[keep], c[keep]]), np.concatenate([c[keep],
                           r[keep]]), np.concatenate([w, w]), shape=(61, 61), dup_op="min")
    return A, B


@pytest.mark.parametrize("grid", [(2, 2), (3, 2), (1, 3)])
def test_algorithms_match_single_process(client, grid):
    algo = gb.algorithms
    for A in _graphs():
        D = A.distribute(client, grid=grid)
        src = int(np.argmax(gb.reduce(A, "plus", axis="rows").to_dense() if A.dtype != bool
                            else np.diff(A.csr().indptr)))
        assert_equal(algo.bfs(D, src).gather(), algo.bfs(A, src))
        lv, par = algo.bfs(D, src, parents=True)
        lv0, par0 = algo.bfs(A, src, parents=True)
        assert_equal(lv.gather(), lv0)
        assert_equal(par.gather(), par0)
        r = algo.pagerank(D).gather()
        assert r.nvals == A.shape[0]
        np.testing.assert_allclose(r.to_dense(), algo.pagerank(A).to_dense(), rtol=0,
                                   atol=1e-12)
        assert_equal(algo.connected_components(D).gather(), algo.connected_components(A))
        d, d0 = algo.sssp(D, src).gather(), algo.sssp(A, src)
        assert_equal(d, d0, rtol=1e-12)
        assert algo.triangle_count(D) == algo.triangle_count(A)


def test_algorithm_options_and_errors(client):
    A, _ = _graphs()
    D = A.distribute(client, grid=(2, 2))
    p = {0: 1.0, 5: 3.0}
    np.testing.assert_allclose(
        gb.algorithms.pagerank(D, personalization=p, criterion="networkx").to_dense(),
        gb.algorithms.pagerank(A, personalization=p, criterion="networkx").to_dense(),
        atol=1e-12)
    from gblas.algorithms.pagerank import PowerIterationFailedConvergence

    with pytest.raises(PowerIterationFailedConvergence) as e:
        gb.algorithms.pagerank(D, max_iter=2, tol=1e-15)
    assert e.value.iterations == 2 and e.value.ranks.gather().nvals == 64
    with pytest.raises(gb.InvalidValue, match="bfs: argument `source`"):
        gb.algorithms.bfs(D, -1)
    with pytest.raises(gb.IndexOutOfBound, match="sssp: argument `source`"):
        gb.algorithms.sssp(D, 64)
    with pytest.raises(gb.NoKernel, match="pagerank: argument `callback`"):
        gb.algorithms.pagerank(D, callback=lambda state: True)
    with pytest.raises(gb.NoKernel, match="connection"):
        gb.algorithms.connected_components(D, "strong")
    # a transposed view is the transposed graph, in algorithms and elementwise calls
    assert_equal(gb.algorithms.bfs(D.T, 3).gather(), gb.algorithms.bfs(A.T, 3))
    assert_equal(gb.ewise_add(D, D.T, "plus").gather(), gb.ewise_add(A, A.T, "plus"))
    R = gb.Matrix.from_coo([0], [1], shape=(2, 3)).distribute(client, grid=(1, 1))
    with pytest.raises(gb.DimensionMismatch, match="pagerank: argument `A` expected a "
                       "square adjacency matrix"):
        gb.algorithms.pagerank(R)


# ------------------------------------------------------------------------- generator

def test_block_probabilities_are_rmat_marginals():
    from gblas.distributed.generators import block_probabilities

    a, b, c = 0.57, 0.19, 0.19
    d = 1 - a - b - c
    np.testing.assert_allclose(block_probabilities(5, (2, 2), a, b, c), [[a, b], [c, d]])
    np.testing.assert_allclose(block_probabilities(5, (1, 2), a, b, c), [[a + c, b + d]])
    np.testing.assert_allclose(block_probabilities(5, (2, 1), a, b, c), [[a + b], [c + d]])
    P = block_probabilities(6, (2, 4), a, b, c)
    assert P.shape == (2, 4) and abs(P.sum() - 1) < 1e-12
    np.testing.assert_allclose(P[0, :2].sum(), a, rtol=1e-12)  # the first bits: rows 0, cols 0
    np.testing.assert_allclose(P[0, 0], a * (a + c), rtol=1e-12)  # then a column bit 0


def test_distributed_kronecker_builds_blocks_on_workers(client):
    from gblas.distributed.generators import kronecker

    D = kronecker(client, 9, 8, grid=(2, 2), seed=3, symmetric=True)
    A = D.gather()
    assert A.shape == (512, 512) and A.isequal(A.T)
    assert all(k.startswith("kronecker_block") for k in (b.key for b in D.blocks))
    local = gb.io.kronecker(9, 8, seed=3, symmetric=True, dtype=None)
    assert abs(A.nvals - local.nvals) < 0.05 * local.nvals  # same distribution, other draw
    W = kronecker(client, 10, 16, grid=(1, 2), seed=1, dtype="float64", weights="uniform")
    vals = W.gather().to_coo()[2]
    assert W.dtype == np.float64 and 0 < vals.min() and vals.max() <= 1
    np.testing.assert_allclose(gb.algorithms.pagerank(D).gather().to_dense(),
                               gb.algorithms.pagerank(A).to_dense(), atol=1e-12)
    with pytest.raises(gb.InvalidValue, match="powers of two"):
        kronecker(client, 6, grid=(3, 1))
    with pytest.raises(gb.InvalidValue, match="square grid with symmetric=True"):
        kronecker(client, 6, grid=(1, 2), symmetric=True)


def test_mxm_matches_single_process(client):
    A = gb.io.kronecker(5, 4, seed=7, dtype="float64", weights="uniform")
    B = gb.io.kronecker(5, 4, seed=8, dtype="float64", weights="uniform")
    M = gb.io.kronecker(5, 4, seed=9, dtype=None)
    DA, DB, DM = (X.distribute(client, grid=(2, 2)) for X in (A, B, M))
    assert_equal(gb.mxm(DA, DB, "min_plus").gather(), gb.mxm(A, B, "min_plus"))
    assert_equal(gb.mxm(DA, DB.T, "plus_times", mask=~DM.S).gather(),
                 gb.mxm(A, B.T, "plus_times", mask=~M.S), rtol=1e-12)
    with pytest.raises(gb.DimensionMismatch, match="row cuts equal to A's column cuts"):
        gb.mxm(DA, B.distribute(client, grid=(1, 2)))


@pytest.mark.parametrize("dtype, weights, symmetric", [(None, None, False),
                                                       ("float64", "uniform", True)])
def test_gpu_generator_steps_on_the_cpu(monkeypatch, dtype, weights, symmetric):
    """The GPU generator's steps (chunked draws, key sort, CSR assembly) run with NumPy."""
    from gblas.distributed import generators as gen

    monkeypatch.setattr(gen, "GPU_CHUNK", 1000)  # several chunks per block
    blocks = [[gen._gpu_block(i, j, 9, 8, (2, 2), 5, 0.57, 0.19, 0.19, weights,
                              None if dtype is None else np.dtype(dtype), symmetric, False,
                              xp=np) for j in range(2)] for i in range(2)]
    for row in blocks:
        for B in row:
            B.csr().check_invariants()
            assert B.shape == (256, 256)
    rows, cols = [], []
    for i in range(2):
        for j in range(2):
            r, c, _ = blocks[i][j].to_coo()
            rows.append(r + 256 * i)
            cols.append(c + 256 * j)
    A = gb.Matrix.from_coo(np.concatenate(rows), np.concatenate(cols), shape=(512, 512))
    local = gb.io.kronecker(9, 8, seed=5, symmetric=symmetric, dtype=None)
    assert abs(A.nvals - local.nvals) < 0.05 * local.nvals
    assert A.isequal(A.T) == symmetric or not symmetric
    assert gb.reduce(gb.select(A, "diag")).item() == 0  # no self loops


# --------------------------------------------------------------- the NCCL tier's logic

class _FakeComm:
    """The collectives of ``nccl_ranks._Comm`` over threads and NumPy arrays."""

    groups: dict = {}
    gathers = 0
    reduces = 0

    def __init__(self, p, uid, rank):
        import threading

        self.g = _FakeComm.groups.setdefault(uid, {"barrier": threading.Barrier(p),
                                                    "slots": [None] * p})
        self.p, self.rank, self.seconds, self.bytes = p, rank, 0.0, 0

    def _all(self, arr):
        self.g["slots"][self.rank] = arr.copy()
        self.g["barrier"].wait()
        got = list(self.g["slots"])
        self.g["barrier"].wait()
        return got

    def _fold(self, got, op):
        return np.sum(got, axis=0) if op == "sum" else np.maximum.reduce(got)

    def reduce_scatter(self, send, recv, op="sum"):
        total = self._fold(self._all(send), op)
        recv[:] = total[self.rank * recv.size:(self.rank + 1) * recv.size]

    def all_gather(self, send, recv):
        _FakeComm.gathers += 1
        recv[:] = np.concatenate(self._all(send))

    def all_reduce(self, buf, op="sum"):
        buf[:] = self._fold(self._all(buf), op)

    def start_all_gather(self, send, recv):
        self.all_gather(send, recv)
        self.overlapped_s = 0.0

    def start_reduce(self, send, recv, root, op="sum"):
        _FakeComm.reduces += 1
        total = self._fold(self._all(send), op)
        if self.rank == root:
            recv[:send.size] = total
        self.overlapped_s = 0.0

    def finish(self, pending):
        pass


@pytest.fixture
def fake_gpu(monkeypatch):
    """CuPy replaced by NumPy and NCCL by threads: the tier's arithmetic on the CPU."""
    import types

    from gblas.distributed import nccl_ranks

    shim = types.ModuleType("cupy")
    shim.__getattr__ = lambda name: getattr(np, name)
    shim.asnumpy = np.asarray
    shim.cuda = types.SimpleNamespace(Device=lambda *a: types.SimpleNamespace(
        synchronize=lambda: None))
    monkeypatch.setitem(sys.modules, "cupy", shim)
    monkeypatch.setattr(nccl_ranks, "_Comm", _FakeComm)
    return nccl_ranks


@pytest.mark.parametrize("grid", [(1, 1), (1, 2), (1, 3), (2, 2), (2, 1), (4, 1), (3, 1)])
def test_nccl_tier_arithmetic_matches_single_process(fake_gpu, grid, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    from gblas.distributed.matrix import _block
    from gblas.distributed.nccl import _stats as nccl_stats

    rk = fake_gpu  # the ranks' module, over NumPy and threads
    A = gb.io.kronecker(7, 8, seed=2, dtype=None)
    n = A.shape[0]
    rb, cb = split_bounds(n, grid[0]), split_bounds(n, grid[1])
    cells = [(i, j) for i in range(grid[0]) for j in range(grid[1])]
    p = len(cells)

    def ranks(func, *args, bounds=None):
        uid = object()
        with ThreadPoolExecutor(p) as ex:
            futs = [ex.submit(func, _block(A, int(rb[i]), int(rb[i + 1]), int(cb[j]),
                                           int(cb[j + 1])), k, p, uid, int(rb[i]),
                              int(rb[i + 1]), int(cb[j]), int(cb[j + 1]), *args,
                              bounds=bounds)
                    for k, (i, j) in enumerate(cells)]
            return [f.result(timeout=120) for f in futs]

    def assemble(res, key):
        if "lo" not in res[0]:  # every rank holds the whole vector
            return res[0][key]
        out = np.zeros(n, dtype=res[0][key].dtype)
        for x in res:
            out[x["lo"]:x["lo"] + x[key].size] = x[key]
        return out

    want_r = gb.algorithms.pagerank(A, tol=1e-9).to_dense()
    want_lv = gb.algorithms.bfs(A, 0).to_dense(fill=-1)
    # a column grid's ranks gather, a row grid's reduce shares (given the bounds), any
    # grid's reduce-scatter and gather (not given)
    shares = cb if grid[0] == 1 else rb if grid[1] == 1 else None
    modes = [None] if shares is None else [None, [int(b) for b in shares]]
    for bounds in modes:
        _FakeComm.gathers = _FakeComm.reduces = 0
        res = ranks(rk.pagerank_rank, n, 0.85, 1e-9, 100, True, bounds=bounds)
        np.testing.assert_allclose(assemble(res, "ranks"), want_r, atol=1e-9)
        if bounds is not None and grid[0] > 1:  # a row grid: a reduce per piece, no gather
            assert _FakeComm.gathers == 0
            pieces = p * rk.ROW_SPLIT  # each share in ROW_SPLIT pieces
            assert _FakeComm.reduces == p * pieces * res[0]["iterations"]
            default = rk.ROW_SPLIT
            for split in (1, 3, default):  # whole shares; ragged pieces
                monkeypatch.setattr(rk, "ROW_SPLIT", split)
                res = ranks(rk.pagerank_rank, n, 0.85, 1e-9, 100, True, bounds=bounds)
                np.testing.assert_allclose(assemble(res, "ranks"), want_r, atol=1e-9)
                for source in (0, n - 1):
                    want = gb.algorithms.bfs(A, source).to_dense(fill=-1)
                    lv = assemble(ranks(rk.bfs_rank, n, source, bounds=bounds), "levels")
                    np.testing.assert_array_equal(lv, want)
        st = nccl_stats(res, n, Grid.make(n, n, grid, ["w"] * p))
        assert st["iterations"] == res[0]["iterations"] and len(st["compute_s"]) > 3
        for source in (0, n - 1):
            want = gb.algorithms.bfs(A, source).to_dense(fill=-1) if source else want_lv
            lv = assemble(ranks(rk.bfs_rank, n, source, bounds=bounds), "levels")
            np.testing.assert_array_equal(lv, want)
            if bounds is not None:  # the shares kept on the ranks as Vectors
                kept = ranks(rk.bfs_rank, n, source, True, bounds=bounds)
                got = np.full(n, -2)
                for x in kept:
                    v = x["vector"]
                    assert "levels" not in x and v.dtype == np.int64
                    got[x["lo"]:x["lo"] + v.size] = v.to_dense(fill=-1)
                np.testing.assert_array_equal(got, want)


def test_generator_balances_the_blocks():
    """The balancing relabelling: a permutation of leading-bit groups after which the
    blocks of a column grid hold nearly equal entries (without it, 76% / 24%)."""
    from gblas.distributed import generators as gen

    args = (12, 16, (1, 2), 4, 0.57, 0.19, 0.19, None, None, False, False, "cpu")
    pos = gen.balanced_groups(12, 2, 0.57, 0.19, 0.19)
    assert sorted(pos.tolist()) == list(range(len(pos)))
    ids = np.arange(1 << 12, dtype=np.uint64)
    assert np.array_equal(np.sort(gen._relabel(ids, 12, pos, np)), ids)  # a relabelling
    for p, lo, hi in ((pos, 0.45, 0.55), (None, 0.70, 0.82)):
        nv = [gen.kronecker_block(0, j, *args, pos=p).nvals for j in range(2)]
        assert lo < nv[0] / sum(nv) < hi, (p is None, nv)
    assert gen.balanced_groups(12, 1, 0.57, 0.19, 0.19) is None


def test_nccl_column_parts_are_kept_with_their_block():
    from gblas.distributed import nccl_ranks as nccl

    A = gb.io.kronecker(6, 4, seed=1, dtype=None)
    bounds = [0, 20, 64]
    first = nccl._Shares(A, bounds, 1)
    again = nccl._Shares(A, bounds, 1)
    assert again.parts is first.parts and (again.lo, again.hi, again.chunk) == (20, 64, 44)
    assert first.others is None  # two ranks: the one other part is used as it is
    assert [P.shape for P in first.parts] == [(20, 64), (44, 64)]
    rows = gb.Matrix.from_coo(*[np.concatenate(x) for x in zip(
        *[(r + lo, c, v) for (r, c, v), lo in zip((P.to_coo() for P in first.parts),
                                                   (0, 20))])], shape=(64, 64))
    assert rows.isequal(A)
    assert nccl._Shares(A, [0, 32, 64], 0).parts is not first.parts  # other bounds
    key = id(A)
    del A, first, again, rows
    import gc

    gc.collect()
    assert key not in nccl._PARTS


def test_nccl_others_matrix_matches_the_parts(fake_gpu):
    """Beyond two ranks the other shares' rows are one matrix over the padded layout."""
    nccl = fake_gpu
    A = gb.io.kronecker(6, 4, seed=2, dtype="float64")
    bounds = [0, 20, 41, 64]
    sh = nccl._Shares(A, bounds, 1)
    assert sh.others is not None and sh.others.shape == (3 * 23, 64)
    sh.others.csr().check_invariants()
    buf = np.random.default_rng(0).random(3 * sh.chunk)
    want = sum(nccl._partial(sh.parts[i], sh.part(buf, i), "plus_times", True)
               for i in (0, 2))
    np.testing.assert_allclose(sh.others_product(buf, "plus_times"), want, rtol=1e-12)
