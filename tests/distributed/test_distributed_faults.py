"""Faults of gblas.distributed: a worker killed mid-PageRank either restarts the run from
its last checkpoint (the answer then equals the single-process one) or ends in a clear
WorkerLost error, within the timeouts: never a hang, never a silent wrong answer.

The module has its own cluster of 2 worker processes, whose nannies restart a killed one.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pytest

# Dask's own module path: where Dask is not installed, a bare "distributed" finds this
# test folder (a namespace package) instead of failing
pytest.importorskip("dask.distributed", reason="needs the distributed extra")

from helpers import local_client  # noqa: E402

import gblas as gb  # noqa: E402
from gblas.distributed import Checkpoint, WorkerLost  # noqa: E402

pytestmark = pytest.mark.distributed


@pytest.fixture(scope="module")
def client():
    with local_client(2, silence_logs=50) as c:
        yield c


class _Killer(threading.Thread):
    """Kills the worker holding block (0, 0) once the checkpoint has reached
    ``after`` iterations (so the kill falls mid-run, after a checkpoint)."""

    def __init__(self, client, D, ck: Checkpoint, after: int) -> None:
        super().__init__(daemon=True)
        self.client, self.D, self.ck, self.after = client, D, ck, after
        self.killed_at = None

    def run(self) -> None:
        t0 = time.monotonic()
        while self.ck.iteration < self.after and time.monotonic() - t0 < 60:
            time.sleep(0.01)
        w = self.D.grid.owner(0, 0)
        pid = self.client.run(os.getpid, workers=[w])[w]
        self.killed_at = self.ck.iteration
        os.kill(pid, signal.SIGKILL)


def _graph():
    return gb.io.kronecker(8, 8, seed=4, dtype=None)


def test_worker_killed_mid_pagerank_restarts_from_checkpoint(client):
    A = _graph()
    D = A.distribute(client, grid=(1, 2), timeout=60)
    ck = Checkpoint(every=3)
    killer = _Killer(client, D, ck, after=3)
    killer.start()
    t0 = time.monotonic()
    r = gb.algorithms.pagerank(D, tol=1e-13, max_iter=400, checkpoint=ck)
    elapsed = time.monotonic() - t0
    killer.join(5)
    assert killer.killed_at is not None and killer.killed_at >= 3
    assert ck.restarts >= 1, "the kill did not interrupt the run"
    np.testing.assert_allclose(r.gather().to_dense(),
                               gb.algorithms.pagerank(A, tol=1e-13, max_iter=400).to_dense(),
                               rtol=0, atol=1e-12)
    assert elapsed < 120


def test_worker_killed_without_a_way_to_rebuild_is_a_clear_error(client):
    client.wait_for_workers(2, timeout=30)
    A = _graph()
    D0 = A.distribute(client, grid=(1, 2), timeout=30)
    D = gb.apply(D0, "identity")  # a computed matrix: no source to rebuild its blocks from
    assert not D.can_rebuild
    ck = Checkpoint(every=2)
    killer = _Killer(client, D, ck, after=2)
    killer.start()
    t0 = time.monotonic()
    with pytest.raises(WorkerLost, match="pagerank: a worker was lost after iteration "
                       r"\d+ .* cannot go on \(the matrix has no source"):
        gb.algorithms.pagerank(D, tol=1e-13, max_iter=400, checkpoint=ck)
    killer.join(5)
    assert killer.killed_at is not None
    assert time.monotonic() - t0 < 90


def test_lost_blocks_give_a_clear_error_in_plain_operations(client):
    client.wait_for_workers(2, timeout=30)
    A = _graph()
    D = A.distribute(client, grid=(1, 2), timeout=30)
    x = gb.Vector.from_dense(np.ones(A.shape[0]))
    assert gb.mxv(D, x).gather().nvals > 0
    w = D.grid.owner(0, 1)
    os.kill(client.run(os.getpid, workers=[w])[w], signal.SIGKILL)
    t0 = time.monotonic()
    with pytest.raises(WorkerLost, match="lost a worker holding part of its data.*"
                       r"D\.rebuild\(\)"):
        gb.mxv(D, x).gather()
    assert time.monotonic() - t0 < 60
    client.wait_for_workers(2, timeout=30)
    D.rebuild()
    assert gb.mxv(D, x).gather().isequal(gb.mxv(A, x))
