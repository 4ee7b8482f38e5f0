"""The planner's choice of method for multi-source shortest paths: label setting (a heap
Dijkstra per source) or (min, +) products, from the graph's depth and reach."""

from __future__ import annotations

import numpy as np

from ..backends.registry import KernelKey, has_kernel
from .plan import Plan

#: Label setting (binary-heap Dijkstra, ``backends/cpu/paths.py``): ns per edge scanned
#: and per heap operation times ``log2`` of the heap size (2-core CPU, luxembourg-osm and
#: delaunay-n16).
HEAP_NS_EDGE = 4.0
HEAP_NS_PUSH = 6.0
#: The (min, +) product path (:mod:`gblas.algorithms.sssp`): seconds of fixed cost per
#: step (one product and its masks / write-backs: delta-stepping's four calls, or the
#: batched Bellman-Ford's five), and ns per source and edge of the reached part, with
#: the edges relaxed again as distances improve (fitted on weighted real graphs with 4
#: and 64 sources: benchmarks/results/sssp_routes_cpu.md).
SEMIRING_STEP_S = 4e-4
SEMIRING_NS_EDGE = 120.0
#: The (min, +) products on a GPU: seconds per level of hops (fitted: 1.4-1.9 ms on
#: delaunay-n16, cit-HepPh, p2p-Gnutella31 and luxembourg-osm on an H100, the calls of a
#: step host-bound on small frontiers; ``benchmarks/results/end_to_end_gpu.md``), ns per
#: source and edge (several passes over the reached part at the device's bandwidth).
GPU_SEMIRING_STEP_S = 1.4e-3
GPU_SEMIRING_NS_EDGE = 0.5
#: Bytes per second of a device -> host copy into page-locked memory (CuPy's pinned pool,
#: reused after its first allocation), for the heap Dijkstra on a host copy of a device's
#: matrix.
HOST_COPY_BYTES_S = 20e9


def _has_heap_kernel(device: str) -> bool:
    try:
        return has_kernel("sssp", "csr", device, "heap")
    except ImportError:  # a device backend that cannot load here has no kernel
        return False


def heap_bound_holds(n: int, nnz: int, sources: int, threads: int, device: str = "cpu",
                     batch: int = 1) -> bool:
    """Whether the heap's estimate is below the products' whatever the depth and the part
    reached (then no probe is needed).

    With ``r`` reached and ``e = nnz r / n`` edges, heap <= products when
    ``sources log2(r + 1) HEAP_NS_PUSH / k <= (sources SEMIRING_NS_EDGE / threads -
    sources HEAP_NS_EDGE / k) nnz / n`` (``k = min(sources, threads)``; the products'
    cost per step only adds to their side), and the left side is largest at ``r = n``.

    On a ``device`` without a heap kernel (the GPU) the bound is the host's heap on a
    copy of the matrix, everything reached, against the device's products at their
    least: one step per batch of ``batch`` sources, nothing relaxed (a graph of a few
    thousand vertices, where the probe alone would cost more than the heap).

    Examples
    --------
    >>> heap_bound_holds(62_586, 147_892, 4, 2)    # p2p-Gnutella31: 2.4 entries per row
    True
    >>> heap_bound_holds(1_000_000, 10_000, 1, 2)  # almost no edges: probe first
    False
    >>> heap_bound_holds(1_024, 12_030, 1, 2, device="gpu")      # Kronecker 10
    True
    >>> heap_bound_holds(16_384, 227_993, 1, 2, device="gpu")    # Kronecker 14: probe
    False
    """
    if n <= 1:
        return True
    if not _has_heap_kernel(device):
        if not _has_heap_kernel("cpu"):
            return False
        heap_s, _ = _heap_seconds(n, nnz, sources, n, threads)
        return bool(heap_s + _copy_seconds(n, nnz, sources)
                    <= -(-sources // max(batch, 1)) * GPU_SEMIRING_STEP_S)
    k = max(1, min(sources, threads))
    margin = sources * (SEMIRING_NS_EDGE / max(threads, 1) - HEAP_NS_EDGE / k)
    return bool(sources * np.log2(n + 1) * HEAP_NS_PUSH / k <= margin * nnz / n)


def probe_levels_cap(n: int, nnz: int, sources: int, threads: int, batch: int = 1) -> int:
    """The levels of hops past which a device without a heap kernel (the GPU) loses to
    the host's heap on a copy, everything reached: its probe may stop there (a road
    network is a thousand levels deep, and the probe's launches would cost more than
    the heap).

    Examples
    --------
    >>> probe_levels_cap(114_599, 239_332, 1, 16)    # luxembourg-osm: a few levels
    10
    """
    heap_s, _ = _heap_seconds(n, nnz, sources, n, threads)
    batches = -(-sources // max(batch, 1))
    return max(1, int(np.ceil((heap_s + _copy_seconds(n, nnz, sources))
                              / (batches * GPU_SEMIRING_STEP_S))))


def _copy_seconds(n: int, nnz: int, sources: int) -> float:
    """A device's matrix to the host (indices and values) and the distances back."""
    return (nnz * 12 + n * 8 * (sources + 1)) / HOST_COPY_BYTES_S


def plan_shortest_paths(n: int, nnz: int, sources: int, *, depth: int | None,
                        reached: int | None, negative: bool, device: str,
                        threads: int, batch: int, buckets: int = 0) -> Plan:
    """Choose the method of a multi-source shortest-path call: ``heap`` (Dijkstra per
    source, label setting) or ``semiring`` (delta-stepping / batched Bellman-Ford over
    (min, +) products).

    The rule, in order:

    1. negative weights: **semiring** (label setting needs weights ``>= 0``); on a
       device without a ``("sssp", "csr", device, "heap")`` kernel (the GPU), its
       products unless the host's heap on a copy of the matrix is estimated faster
       (``device`` "cpu" in the Plan: a copy at :data:`HOST_COPY_BYTES_S`, the device's
       steps at :data:`GPU_SEMIRING_STEP_S`, one per level of hops and one per bucket
       of a single source's delta-stepping, ``buckets``: on a shallow graph whose
       weights span decades the buckets, not the hops, set the count);
    2. otherwise the estimated times, from ``depth`` and ``reached`` (a BFS in hops from
       the first source, run by the caller: ``O(n + m)``, cheaper than either method):

       * heap: ``sources * (e * HEAP_NS_EDGE + r * log2(r) * HEAP_NS_PUSH)`` over
         ``min(sources, threads)`` threads, with ``r = reached`` and ``e`` the edges of
         the reached part (``nnz * r / n``);
       * semiring: ``batches * (depth + 1) * SEMIRING_STEP_S`` (a product per level of
         hops at least) plus ``sources * e * SEMIRING_NS_EDGE / threads``;

       the smaller wins (without a probe, ``depth=None``: the heap where
       :func:`heap_bound_holds`, else the products).  Power-law graphs are a few hops
       deep and their products amortize the fixed cost; meshes and road networks are
       hundreds to thousands of hops deep, where the heap settles each vertex once.

    Examples
    --------
    >>> plan_shortest_paths(114_599, 239_332, 1, depth=1000, reached=114_599,
    ...                     negative=False, device="cpu", threads=2, batch=146).direction
    'heap'
    >>> plan_shortest_paths(10, 20, 1, depth=2, reached=10, negative=True, device="cpu",
    ...                     threads=2, batch=10).direction
    'semiring'

    On a GPU (no heap kernel there), a road network a thousand hops deep goes to the
    host's heap; a power-law graph five hops deep keeps the device's products:

    >>> p = plan_shortest_paths(114_599, 239_332, 1, depth=1000, reached=114_599,
    ...                         negative=False, device="gpu", threads=2, batch=146)
    >>> p.direction, p.device
    ('heap', 'cpu')
    >>> p = plan_shortest_paths(1 << 22, 65_000_000, 1, depth=6, reached=2_000_000,
    ...                         negative=False, device="gpu", threads=2, batch=4)
    >>> p.direction, p.device
    ('semiring', 'gpu')

    A web graph two hops deep from a hub that reaches 6% of it, with weights over six
    decades: eleven buckets of delta-stepping cost more than the host's heap on the part
    reached:

    >>> p = plan_shortest_paths(100_000, 3_050_615, 1, depth=2, reached=5_635,
    ...                         negative=False, device="gpu", threads=2, batch=167,
    ...                         buckets=11)
    >>> p.direction, p.device
    ('heap', 'cpu')
    """
    details = {"sources": sources, "depth": depth, "reached": reached}
    if negative:
        return Plan("shortest_paths", "csr", "semiring", device, None,
                    (), 0, "negative weights: Bellman-Ford over (min, +)", details)
    if not _has_heap_kernel(device):
        return _device_without_heap(n, nnz, sources, depth, reached, device, threads, batch,
                                    buckets, details)
    if depth is None or reached is None:
        if heap_bound_holds(n, nnz, sources, threads):
            return Plan("shortest_paths", "csr", "heap", device,
                        KernelKey("sssp", "csr", device, "heap"), (), 0,
                        f"heap Dijkstra: below the (min, +) products at any depth and reach "
                        f"({nnz / max(n, 1):.3g} entries per row; no probe needed)", details)
        return Plan("shortest_paths", "csr", "semiring", device, None,
                    (), 0, "(min, +) products: the graph was not probed", details)
    heap_s, e = _heap_seconds(n, nnz, sources, reached, threads)
    batches = -(-sources // max(batch, 1))
    semi_s = (batches * (depth + 1) * SEMIRING_STEP_S
              + sources * e * SEMIRING_NS_EDGE * 1e-9 / max(threads, 1))
    details.update(heap_s=heap_s, semiring_s=semi_s)
    if heap_s <= semi_s:
        return Plan("shortest_paths", "csr", "heap", device,
                    KernelKey("sssp", "csr", device, "heap"),
                    (), 0, f"heap Dijkstra {heap_s:.3g} s <= (min, +) products {semi_s:.3g} s "
                    f"({depth} hops deep, {reached} reached)", details)
    return Plan("shortest_paths", "csr", "semiring", device, None, (), 0,
                f"(min, +) products {semi_s:.3g} s < heap Dijkstra {heap_s:.3g} s "
                f"({depth} hops deep, {reached} reached)", details)


#: Most entries of a graph whose single-source search may run in one launch on the GPU
#: (``("sssp", "csr", "gpu", "fused")``): the largest size measured (on an H100 the
#: launch beat the other routes from 2^20 to 2^26 entries, Kronecker 22 in 77 against
#: 171 ms for a fresh Matrix; ``benchmarks/results/sssp_fused_gpu.md``).
FUSED_SSSP_MAX_ENTRIES = 1 << 27
#: Most rounds of that launch after a probe found the graph shallow; a search that
#: needs more finishes by the route planned without it.
FUSED_SSSP_MAX_ROUNDS = 256
#: Most rounds where no probe ran (a small graph, whose depth is unknown: a deep one
#: loses at most these rounds, ~2-4 us each on an H100, before the planned route).
FUSED_SSSP_UNPROBED_ROUNDS = 64
#: Deepest probed search (hops; a round per weighted hop at least) that takes it.
FUSED_SSSP_MAX_DEPTH = 64


def plan_fused_sssp(plan: Plan, nnz: int, device: str) -> Plan:
    """The Plan of a single-source search on a GPU Matrix: ``plan`` (from
    :func:`plan_shortest_paths`), or the search in one launch of frontier rounds on the
    device (a frontier Bellman-Ford, weights ``>= 0``) where the graph has at most
    :data:`FUSED_SSSP_MAX_ENTRIES` entries and its probe, if one ran, found it at most
    :data:`FUSED_SSSP_MAX_DEPTH` hops deep (a probe stopped at its cap counts as that
    deep: on an H100 the launch finished a mesh and a peer-to-peer graph whose probes
    stopped at 5-6 hops in 4.4 and 1.5 ms, against 10.9 and 7.8 ms by the host's heap).
    That saves the host heap's copy of the matrix and the products' host time per step;
    after :data:`FUSED_SSSP_MAX_ROUNDS` rounds without the end
    (:data:`FUSED_SSSP_UNPROBED_ROUNDS` where no probe ran), ``plan``
    (``details["then"]``) finishes the search.

    Examples
    --------
    >>> heap = plan_shortest_paths(1024, 12_030, 1, depth=None, reached=None,
    ...                            negative=False, device="gpu", threads=2, batch=16384)
    >>> plan_fused_sssp(heap, 12_030, "gpu").direction  # doctest: +SKIP
    'fused'
    >>> plan_fused_sssp(heap, 12_030, "cpu").direction
    'heap'
    """
    depth = plan.details.get("depth")
    if (device != "gpu" or plan.details.get("sources") != 1 or nnz > FUSED_SSSP_MAX_ENTRIES
            or plan.direction not in ("heap", "semiring")
            or (depth is not None and depth > FUSED_SSSP_MAX_DEPTH)
            or not has_kernel("sssp", "csr", device, "fused")):
        return plan
    rounds = FUSED_SSSP_UNPROBED_ROUNDS if depth is None else FUSED_SSSP_MAX_ROUNDS
    hops = ("not probed" if depth is None else
            f"at least {depth} hops deep" if plan.details.get("depth_capped") else
            f"{depth} hops deep")
    return Plan("shortest_paths", "csr", "fused", device,
                KernelKey("sssp", "csr", device, "fused"), (), 0,
                f"one launch of frontier rounds on the {device} ({nnz:,} entries, {hops}; "
                f"after {rounds} rounds: {plan.reason})",
                {**plan.details, "max_rounds": rounds, "then": plan})


def _heap_seconds(n: int, nnz: int, sources: int, reached: int, threads: int
                  ) -> tuple[float, float]:
    """The heap Dijkstra's estimated seconds on the host, and the edges of the reached
    part."""
    r = max(int(reached), 1)
    e = float(nnz) * r / max(n, 1)
    heap_s = sources * (e * HEAP_NS_EDGE + r * np.log2(r + 1) * HEAP_NS_PUSH) * 1e-9 / max(
        1, min(sources, threads))
    return heap_s, e


def _device_without_heap(n: int, nnz: int, sources: int, depth: int | None,
                         reached: int | None, device: str, threads: int, batch: int,
                         buckets: int, details: dict) -> Plan:
    """A device without a label-setting kernel (the GPU): its (min, +) products, or the
    host's heap Dijkstra on a copy of the matrix (made by the first such call, then kept
    with the storage) where the products' steps (one per level of hops: a road network
    is a thousand deep) would cost more than the copy and the heap (the device's probe
    gave the depth)."""
    if (depth is None or reached is None) and heap_bound_holds(n, nnz, sources, threads,
                                                               device, batch):
        return Plan("shortest_paths", "csr", "heap", "cpu",
                    KernelKey("sssp", "csr", "cpu", "heap"), (), 0,
                    f"heap Dijkstra on a host copy: below one {device} (min, +) step at "
                    f"any depth and reach ({n:,} vertices; no probe needed)", details)
    if depth is not None and reached is not None and _has_heap_kernel("cpu"):
        heap_s, e = _heap_seconds(n, nnz, sources, reached, threads)
        copy_s = _copy_seconds(n, nnz, sources)
        batches = -(-sources // max(batch, 1))
        steps = depth + 1 + (buckets if sources == 1 else 0)
        semi_s = (batches * steps * GPU_SEMIRING_STEP_S
                  + sources * e * GPU_SEMIRING_NS_EDGE * 1e-9)
        details.update(heap_s=heap_s + copy_s, semiring_s=semi_s, buckets=buckets)
        steps_text = f"{buckets} buckets, " if buckets else ""
        if heap_s + copy_s < semi_s:
            return Plan("shortest_paths", "csr", "heap", "cpu",
                        KernelKey("sssp", "csr", "cpu", "heap"), (), 0,
                        f"heap Dijkstra on a host copy {heap_s + copy_s:.3g} s (copy "
                        f"{copy_s:.3g} s) < {device} (min, +) products {semi_s:.3g} s "
                        f"({depth} hops deep, {steps_text}{reached} reached)",
                        details)
        return Plan("shortest_paths", "csr", "semiring", device, None, (), 0,
                    f"{device} (min, +) products {semi_s:.3g} s <= heap Dijkstra on a host "
                    f"copy {heap_s + copy_s:.3g} s ({depth} hops deep, {steps_text}"
                    f"{reached} reached)",
                    details)
    return Plan("shortest_paths", "csr", "semiring", device, None,
                (), 0, f"no label-setting kernel on {device}", details)
