"""gblas.distributed with one GPU worker per card (a Dask worker process per GPU,
``CUDA_VISIBLE_DEVICES`` set per worker): the NCCL tier chosen and visible in the plan,
PageRank and BFS against the single-process answers, and the tasks tier's products on GPU
blocks.  Marked ``gpu``; skipped without two GPUs, CuPy or Dask.
"""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

# Dask's own module path: where Dask is not installed, a bare "distributed" finds this
# test folder (a namespace package) instead of failing
pytest.importorskip("dask.distributed", reason="needs the distributed extra")
cupy = pytest.importorskip("cupy", reason="needs CuPy")

import gblas as gb  # noqa: E402
from gblas.testing import assert_equal  # noqa: E402


def _gpus() -> int:
    try:
        return cupy.cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001
        return 0


@pytest.fixture(scope="module")
def client():
    n = _gpus()
    if n < 2:
        pytest.skip(f"needs 2 GPUs, found {n}")
    from distributed import Client, Nanny, Scheduler, SpecCluster

    workers = {f"gpu{k}": {"cls": Nanny, "options": {
        "nthreads": 1, "env": {"CUDA_VISIBLE_DEVICES": str(k)}}} for k in range(n)}
    cluster = SpecCluster(scheduler={"cls": Scheduler, "options": {"dashboard_address": None}},
                          workers=workers, silence_logs=40)
    c = Client(cluster)
    c.wait_for_workers(n, timeout=120)
    yield c
    c.close()
    cluster.close()


def test_nccl_tier_pagerank_and_bfs(client):
    from gblas.distributed.generators import kronecker

    n = len(client.scheduler_info(n_workers=-1)["workers"])
    # a column and a row grid (their BFS levels stay on the workers) and, on 4 GPUs, a
    # 2 x 2 grid and a ragged row grid
    for grid in [(1, 2), (2, 1)] + ([(2, 2), (3, 1)] if n >= 4 else []):
        if 3 in grid:  # the generator cuts at powers of two: distribute a local Matrix
            A = gb.io.kronecker(13, 16, seed=3, dtype=None).to("gpu")
            D = A.distribute(client, grid=grid)
        else:
            D = kronecker(client, 14, 16, grid=grid, seed=3, device="gpu")
        assert D.device == "gpu"
        plan = gb.explain(gb.algorithms.pagerank, D)
        try:
            from cupy.cuda import nccl  # noqa: F401
            expected = "nccl"
        except (ImportError, AttributeError):  # a CuPy built without NCCL: the tasks tier
            expected = "tasks"
        assert plan.tier == expected, str(plan)
        A = D.gather()
        r = gb.algorithms.pagerank(D).gather().to_dense()
        np.testing.assert_allclose(r, gb.algorithms.pagerank(A).to_dense(), atol=1e-9)
        levels = gb.algorithms.bfs(D, 0)
        assert levels.dtype == np.int64
        assert levels.device == "gpu" or 1 not in grid  # kept on the GPUs
        assert_equal(levels.gather(), gb.algorithms.bfs(A, 0))
        assert_equal(gb.algorithms.bfs(D, A.shape[0] - 1).gather(),
                     gb.algorithms.bfs(A, A.shape[0] - 1))


def test_tasks_tier_on_gpu_blocks(client):
    from gblas.distributed.generators import kronecker

    D = kronecker(client, 10, 8, grid=(1, 2), seed=4, dtype="float64", weights="uniform",
                  device="gpu")
    A = D.gather()
    x = gb.Vector.from_dense(np.linspace(0, 1, A.shape[0]))
    assert_equal(gb.mxv(D, x, "min_plus").gather(), gb.mxv(A, x, "min_plus"))
    assert_equal(gb.vxm(x, D, "plus_times").gather(), gb.vxm(x, A, "plus_times"),
                 rtol=1e-12)
    assert_equal(gb.algorithms.connected_components(D).gather(),
                 gb.algorithms.connected_components(A))
    assert_equal(gb.algorithms.sssp(D, 0).gather(), gb.algorithms.sssp(A, 0), rtol=1e-12)


def test_one_gpu_worker_runs_the_nccl_tier():
    """One GPU worker: the NCCL tier still runs PageRank and BFS (its long-lived task
    beats a task per step), and the answers equal a single process's."""
    from distributed import Client, LocalCluster

    from gblas.distributed.generators import kronecker

    if _gpus() < 1:
        pytest.skip("needs a GPU")
    with LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=None,
                      silence_logs=40) as cluster, Client(cluster) as c:
        D = kronecker(c, 12, 16, grid=(1, 1), seed=5, device="gpu")
        A = D.gather()
        try:
            from cupy.cuda import nccl  # noqa: F401
        except (ImportError, AttributeError):
            pytest.skip("CuPy without NCCL bindings")
        assert gb.explain(gb.algorithms.pagerank, D).tier == "nccl"
        np.testing.assert_allclose(gb.algorithms.pagerank(D).gather().to_dense(),
                                   gb.algorithms.pagerank(A).to_dense(), atol=1e-9)
        assert_equal(gb.algorithms.bfs(D, 0).gather(), gb.algorithms.bfs(A, 0))


def test_tasks_tier_bfs_on_gpu_blocks_with_a_tiny_frontier(client):
    """The tasks tier's BFS on GPU blocks: levels and frontiers are sparse Vectors far
    larger than their entries (2**21 vertices a segment, one source), written on the GPU."""
    from gblas.distributed import nccl
    from gblas.distributed.generators import kronecker

    D = kronecker(client, 22, 1, grid=(1, 2), seed=7, device="gpu")
    A = D.gather()
    real = nccl.choose_tier
    try:
        nccl.choose_tier = lambda *a, **k: ("tasks", "forced by the test")
        got = gb.algorithms.bfs(D, 0).gather()
    finally:
        nccl.choose_tier = real
    assert_equal(got, gb.algorithms.bfs(A, 0))
