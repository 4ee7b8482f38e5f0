"""The label-setting route of the shortest-path functions, shared by
:func:`gblas.algorithms.sssp` and :mod:`gblas.csgraph`: the planner's choice between a heap
Dijkstra per source and (min, +) products, and the heap kernel's call.
"""

from __future__ import annotations

import numpy as np

from .. import hardware
from .._device import count_nonzero
from ..backends.registry import get_kernel, has_kernel
from ..config import config
from ..planner import Plan, heap_bound_holds, plan_shortest_paths
from ..planner.cost import summary
from ..planner.paths import probe_levels_cap
from .common import host_csr
from .sssp import delta_buckets

#: Distance entries per batch of sources on the (min, +) route.
BATCH_ENTRIES = 1 << 24

#: A GPU probe that reaches at most 1/this of the vertices from one source has the host's
#: heap copy only their rows (a web graph's hub reaches 6% of it: 1 MB instead of 36).
REACHED_COPY_SHARE = 4


def shortest_paths_plan(A, sources: np.ndarray, negative: bool):
    """The Plan of a shortest-path call from ``sources`` on ``A``
    (:func:`gblas.planner.plan_shortest_paths`): ``"heap"`` or ``"semiring"``.

    A probe, one BFS in hops from the first source (``O(n + m)``), gives the planner the
    graph's depth and the size of the part reached, unless the heap wins at any depth
    (:func:`gblas.planner.heap_bound_holds`).  A format or direction pinned with
    ``gb.config`` keeps the products.

    Examples
    --------
    >>> import numpy as np
    >>> from gblas import Matrix
    >>> A = Matrix.from_coo(np.arange(99), np.arange(1, 100), np.ones(99), shape=(100, 100))
    >>> shortest_paths_plan(A, np.array([0, 1, 2]), negative=False).direction
    'heap'
    """
    n = A.shape[0]
    settings = config.current()
    if settings.format is not None or settings.direction is not None:
        return Plan("shortest_paths", "csr", "semiring", A.device, None,
                    reason="(min, +) products: a format or direction is pinned by gb.config",
                    details={"sources": int(sources.size)})
    threads = hardware.detect().threads
    batch = max(1, BATCH_ENTRIES // max(n, 1))
    bound = not negative and heap_bound_holds(n, A.nvals, int(sources.size), threads,
                                              A.device, batch)
    if bound:
        # no probe: the plan depends on the sizes alone, kept for every matrix of them
        # (a new Matrix's first call skips the planning: 7 of Kronecker 10's 85 us)
        key = (n, A.nvals, int(sources.size), A.device, settings, threads, batch)
        plan = _SIZED_PLANS.get(key)
        if plan is None:
            if len(_SIZED_PLANS) >= _SIZED_PLANS_MAX:
                _SIZED_PLANS.clear()
            plan = _SIZED_PLANS[key] = _probed_plan(A, sources, negative, threads, bound,
                                                    batch)
        return plan
    # the plan of a storage, kept with it: with a probe it depends on the first source
    # too (a Matrix written to has a new storage)
    memo = summary(A.csr())
    key = ("paths_plan", int(sources.size), bool(negative), settings, threads,
           int(sources[0]) if sources.size else None)
    plan = memo.get(key)
    if plan is None:
        plan = memo[key] = _probed_plan(A, sources, negative, threads, bound, batch)
    return plan


#: Plans that depend on the sizes alone (the heap's bound settled them), by sizes and
#: settings; cleared when it holds this many.
_SIZED_PLANS: dict = {}
_SIZED_PLANS_MAX = 256


def _probed_plan(A, sources: np.ndarray, negative: bool, threads: int, bound: bool,
                 batch: int):
    """:func:`shortest_paths_plan` once the settings are read: the probe where the heap's
    bound does not settle it, then the planner's choice."""
    n = A.shape[0]
    depth = reached = None
    capped = False
    if bound:
        pass  # the heap wins at any depth: no probe
    elif not negative and sources.size and has_kernel("bfs_depth", "csr", A.device):
        csr = A.csr()
        depth, reached = get_kernel("bfs_depth", "csr", A.device)(
            csr.indptr, csr.indices, int(sources[0]))
    elif not negative and sources.size and has_kernel("bfs", "csr", A.device, "levels"):
        # a device without the probe kernel (the GPU): its fused BFS's levels, pushing
        # only unless the transpose is there (the probe does not pay for building it),
        # stopped where the depth alone settles it for the host's heap
        cap = probe_levels_cap(n, A.nvals, int(sources.size), threads, batch)
        get_AT = (lambda: A.csr(transposed=True)) if A.has_format("csr", transposed=True) \
            else None
        level, _, stats = get_kernel("bfs", "csr", A.device, "levels")(
            A.csr(), get_AT, int(sources[0]), False, max_levels=cap)
        capped = bool(stats.get("capped"))
        if capped:
            depth, reached = cap, n  # at least that deep: the heap's bound at full reach
        else:
            depth, reached = int(stats["levels"]), count_nonzero(level >= 0)
            if sources.size == 1 and reached * REACHED_COPY_SHARE <= n:
                # a small part reached: a host heap needs only its rows (heap_paths;
                # one source's at a time)
                summary(A.csr())["probe_reached"] = (int(sources[0]), level >= 0)
    plan = plan_shortest_paths(n, A.nvals, int(sources.size), depth=depth, reached=reached,
                               negative=negative, device=A.device, threads=threads,
                               batch=batch)
    if capped:
        plan.details["depth_capped"] = True  # the probe stopped: deeper than ``depth``
    if (plan.direction == "semiring" and depth is not None and sources.size == 1
            and not has_kernel("sssp", "csr", A.device, "heap")):
        # a device without a heap (the GPU): its delta-stepping's buckets count as steps
        # too (they only add to the products' side: counted where the hops left them
        # ahead; the count reads every weight once)
        plan = plan_shortest_paths(n, A.nvals, int(sources.size), depth=depth,
                                   reached=reached, negative=negative, device=A.device,
                                   threads=threads, batch=batch,
                                   buckets=delta_buckets(A, depth, reached))
    return plan


def heap_paths(A, sources: np.ndarray, limit=None, device: str | None = None,
               check: bool = False):
    """``(dist, pred)`` of shape ``(len(sources), n)`` by the heap Dijkstra of ``device``
    (the plan's: ``A``'s own, or the host's on a copy of ``A``; weights ``>= 0``; ``inf``
    and no predecessor where unreached), on that device.  ``check``: the kernel checks
    the weights it reads and raises its ``BadWeight`` (a ValueError) at a negative or
    NaN one."""
    device = device or A.device
    csr = A.csr()
    if device != A.device:
        # the copy is kept with the storage, as the plan is: a road network's repeated
        # calls pay its transfer once (a Matrix written to has a new storage); from one
        # source whose probe reached a small part, only that part's rows are copied
        memo = summary(csr)
        copy = memo.get(("host_copy", device, True))
        if copy is None:
            copy = _reached_copy(csr, memo, sources, device)
        csr = host_csr(csr, device, pinned=True) if copy is None else copy
    return get_kernel("sssp", "csr", device, "heap")(
        csr.indptr, csr.indices, csr.dense_values(), sources,
        np.inf if limit is None else limit, check=check)


def _reached_copy(csr, memo: dict, sources: np.ndarray, device: str):
    """The copy on ``device`` of the rows a single source's probe reached (kept for that
    source alone), or None where the probe left no such part."""
    source, reached = memo.get("probe_reached", (None, None))
    if sources.size != 1 or source != int(sources[0]):
        return None
    key = ("host_copy_reached", device)
    kept = memo.get(key)
    if kept is None or kept[0] != source:
        kept = memo[key] = (source, csr.keep_rows(reached).to_device(device, pinned=True))
    return kept[1]
