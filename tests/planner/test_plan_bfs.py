"""The plan of ``gblas.algorithms.bfs``: the fused level kernel on each device, and on the
GPU, for graphs of at most ``GPU_BFS_WHOLE_BLOCK_MAX_ENTRIES`` entries, the whole search in
one block and one launch (a choice the Plan shows)."""

from __future__ import annotations

import pytest

import gblas as gb
from gblas.config import config
from gblas.planner import algorithms


class _OnGPU:
    """What the planner reads of a GPU Matrix: its shape, device and entries."""

    device = "gpu"

    def __init__(self, nvals: int, n: int = 1000) -> None:
        self.nvals = nvals
        self.shape = (n, n)


@pytest.fixture
def gpu_kernels(monkeypatch):
    """The GPU's fused BFS registered (the plan only; nothing is launched)."""
    registered = algorithms.has_kernel
    monkeypatch.setattr(algorithms, "has_kernel", lambda *k: k == ("bfs", "csr", "gpu",
                                                                   "levels") or registered(*k))
    monkeypatch.setattr(algorithms, "_FUSED_BFS_PLANS", {})


@pytest.mark.parametrize("parents", [False, True])
def test_small_gpu_graphs_run_whole_in_one_block(parents, gpu_kernels):
    limit = algorithms.GPU_BFS_WHOLE_BLOCK_MAX_ENTRIES
    small = algorithms.plan_bfs(_OnGPU(limit), parents, config.current())
    assert small.kernel == "bfs/csr/gpu/levels" and small.details["whole_block"]
    assert not small.details["pull"] and "one launch" in small.reason
    large = algorithms.plan_bfs(_OnGPU(limit + 1), parents, config.current())
    assert large.kernel == "bfs/csr/gpu/levels" and "whole_block" not in large.details
    assert large.details["pull"] and large.details["parents"] == parents
    wide = algorithms.plan_bfs(_OnGPU(10, algorithms.GPU_BFS_WHOLE_BLOCK_MAX_VERTICES + 1),
                               parents, config.current())
    assert "whole_block" not in wide.details  # one block would fill every vertex's arrays
    with gb.config(direction="push"):  # a pinned direction keeps the loop
        assert algorithms.plan_bfs(_OnGPU(10), parents, gb.config.current()).kernel == ""


def test_cpu_plans_never_ask_for_one_block():
    A = gb.Matrix.from_coo([0, 1], [1, 2], shape=(3, 3))
    plan = algorithms.plan_bfs(A, False, config.current())
    assert plan.kernel == "bfs/csr/cpu/levels" and "whole_block" not in plan.details
