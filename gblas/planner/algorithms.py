"""Plans of whole algorithms: a compiled kernel for the whole run where the device has one
(a BFS, SciPy's BFS order, connected components, label propagation, PageRank on up to
:data:`FUSED_PAGERANK_MAX_ENTRIES` entries or ranks that fit the cache), or the
algorithm's loop of planned products.
A format or direction pinned with ``gb.config`` keeps the loop.

Examples
--------
>>> import gblas as gb
>>> from gblas.config import config
>>> A = gb.Matrix.from_coo([0, 1], [1, 2], shape=(3, 3))
>>> plan_bfs(A, parents=False, settings=config.current()).kernel
'bfs/csr/cpu/levels'
"""

from __future__ import annotations

from .. import hardware
from ..backends.registry import KernelKey, has_kernel
from ..config import Settings
from . import cost
from .plan import Plan

__all__ = ["plan_bfs", "plan_bfs_order", "plan_components", "plan_core_number",
           "plan_eigenvector", "plan_hits", "plan_katz", "plan_label_propagation",
           "plan_pagerank", "plan_triangle_count"]

#: Up to this many entries a pagerank runs as one fused loop where the device has one:
#: below it a loop of planned products is bound by their fixed cost per iteration
#: (~0.1 ms of host time; 2M entries take ~1 ms a product on the 2-core machine), above
#: it the products' derived formats (segmented) can pay within one call where the ranks
#: outgrow the cache (:func:`_ranks_fit`; within it the loop stays fused).
FUSED_PAGERANK_MAX_ENTRIES = 1 << 21
#: The same on the GPU, where the one launch replaces ~0.15 ms of host time per
#: iteration: on an H100 a first call on a fresh Matrix was the faster up to Kronecker
#: 20 (16M entries: 6.2 against 8.2 ms), a call on a Matrix already used up to 19 (at
#: 20, 5.0 against 4.6 ms; ``benchmarks/results/pagerank_fused_gpu.md``).
FUSED_PAGERANK_MAX_ENTRIES_GPU = 1 << 24

#: Connected components of a GPU Matrix up to this many entries run on a host copy: the
#: GPU's rounds cost 7-20 ms whatever the size, the copy and the compiled pass 0.5 ms at
#: 97K entries and 8.6 ms at 1.8M (31 ms against 21 at 7.6M; ``host_route_gpu.md``).
HOST_COMPONENTS_MAX_ENTRIES = 1 << 21
#: A triangle count of a GPU Matrix up to this many entries runs on a host copy: on an
#: H200, a new Matrix per call, the GPU's loop (a masked SpGEMM and its setup) took 9.4 /
#: 10.1 / 11.6 ms at Kronecker 12 / 13 / 14 (97K-425K entries) against 2.5 / 4.3 / 8.7 ms
#: for the copy and the compiled pass, and 13.2 against 20.2 ms at 15 (883K;
#: ``host_route_gpu.md``).
HOST_TRIANGLES_MAX_ENTRIES = 1 << 19
#: The same for the triangles through every vertex, whose loop adds a row reduce of the
#: SpGEMM: 10.7 / 17.7 / 24.3 / 43.3 / 59.2 ms at Kronecker 12-16 against 3.3 / 5.2 /
#: 12.9 / 32.0 / 53.8 ms on the host copy (1.8M entries at 16; larger not measured).
HOST_TRIANGLES_PER_VERTEX_MAX_ENTRIES = 1 << 21

#: A GPU BFS of a graph of at most this many entries runs whole in one block and one launch
#: (``gb_bfs_small``).  On an H200, a fresh Matrix per call (``bfs_whole_block_gpu.md``):
#: 1.7-2.7x faster than the kernels per level up to 2^15 entries; from 2^17 to 2^19
#: 1.0-2.4x, the most where a search is deep (luxembourg-osm's 951 levels: 10.2 -> 5.7
#: ms), at parity on Kronecker 14 (425K entries); slower above (Kronecker 15, 883K
#: entries, 0.7x; musae-github, 578K, 0.7-0.9x), where one multiprocessor's share of
#: each level's edges costs more than the launches and read-backs of the grid's kernels.
GPU_BFS_WHOLE_BLOCK_MAX_ENTRIES = 1 << 19
#: ... and of at most this many vertices: the block also fills and writes every vertex's
#: arrays, which a hypersparse graph's few entries would not pay for.
GPU_BFS_WHOLE_BLOCK_MAX_VERTICES = 1 << 20

#: The fused level kernels keep vertex ids in 32-bit integers.
_FUSED_MAX_VERTICES = 2**31 - 1


def _pinned(settings: Settings) -> str | None:
    """Why a whole-algorithm kernel is not taken: a format or direction pinned by
    ``gb.config`` (the loop of products is then planned as pinned), else None."""
    if settings.format is not None:
        return f"format pinned to {settings.format!r} by gb.config"
    if settings.direction is not None:
        return f"direction pinned to {settings.direction!r} by gb.config"
    return None


def plan_bfs(A, parents: bool, settings: Settings) -> Plan:
    """The Plan of ``gblas.algorithms.bfs`` on ``A``.

    The whole search runs in one fused kernel per device (``q<!v> = A' any.pair q`` and
    ``v<q> = depth`` together, push or pull per level by Beamer's switch) instead of a loop
    of planned products, whose fixed cost per level (launches, a mask, a write-back) is most
    of a BFS's time on a GPU and on large-diameter graphs (8 ms against 0.7 ms for two
    cuSPARSE SpMVs at Kronecker 20; ~1,000 levels on a road network).  On the CPU a level
    pulls only where the transpose is already built (``details["pull"]``): for one search,
    building it costs more than pulling saves.  On the GPU a graph of at most
    :data:`GPU_BFS_WHOLE_BLOCK_MAX_ENTRIES` entries is searched whole by one block in one
    launch, push only (``details["whole_block"]``).  A pinned format or direction
    (``gb.config``) keeps the loop, whose products are then planned as pinned.
    """
    n = int(A.shape[0])
    dev = A.device
    why = _pinned(settings)
    if why is None and n <= _FUSED_MAX_VERTICES:
        # the fused plan depends on these alone: made once per combination (planning was
        # a tenth of a small graph's search), where the kernel is registered (it stays so)
        whole = dev == "gpu" and A.nvals <= GPU_BFS_WHOLE_BLOCK_MAX_ENTRIES and \
            n <= GPU_BFS_WHOLE_BLOCK_MAX_VERTICES
        key = (dev, bool(parents), not whole and (dev == "gpu" or _transpose_ready(A)),
               whole)
        plan = _FUSED_BFS_PLANS.get(key)
        if plan is not None:
            return plan
        if has_kernel("bfs", "csr", dev, "levels"):
            plan = _FUSED_BFS_PLANS[key] = _fused_bfs_plan(*key)
            return plan
        why = f"no fused BFS kernel registered for {dev}"
    elif why is None:
        why = f"{n} vertices exceed the fused kernel's 32-bit levels"
    return Plan("bfs", "csr", "per level", dev, None,
                reason=f"loop of planned products ({why})", details={"parents": parents})


#: (device, parents, pull, whole block) -> the Plan of the fused BFS
_FUSED_BFS_PLANS: dict = {}


def _fused_bfs_plan(dev: str, parents: bool, pull: bool, whole: bool) -> Plan:
    details = {"parents": parents, "pull": pull}
    if whole:
        details["whole_block"] = True
        return Plan("bfs", "csr", "push", dev, KernelKey("bfs", "csr", dev, "levels"),
                    reason="fused kernel, the whole search in one block and one launch "
                           f"(at most {GPU_BFS_WHOLE_BLOCK_MAX_ENTRIES:,} entries: the "
                           "launches and read-backs of a kernel per level cost more)",
                    details=details)
    how = ("push while the frontier's edges are few, pull while they are many (Beamer's "
           "switch)" if pull else "push only: the transpose is not built, and one search "
           "does not pay for it")
    return Plan("bfs", "csr", "push/pull per level" if pull else "push", dev,
                KernelKey("bfs", "csr", dev, "levels"),
                reason=f"fused level kernel, no return to the host inside a level; {how}",
                details=details)


def plan_pagerank(A, settings: Settings, *, callback: bool, resumed: bool) -> Plan:
    """The Plan of ``gblas.algorithms.pagerank`` on ``A``: the whole power iteration in
    one fused kernel (``("pagerank", "csr", device, "fused")``, on the CSR of ``A'``) for
    a graph of at most :data:`FUSED_PAGERANK_MAX_ENTRIES` entries
    (:data:`FUSED_PAGERANK_MAX_ENTRIES_GPU` on the GPU) or whose ranks fit the
    cache, else a loop of planned products and fused vector steps.  A callback (it reads
    every iteration), a resumed run, or a pinned format or direction keep the loop.

    Examples
    --------
    >>> import gblas as gb
    >>> from gblas.config import config
    >>> A = gb.Matrix.from_coo([0, 1], [1, 2], shape=(3, 3))
    >>> plan_pagerank(A, config.current(), callback=False, resumed=False).kernel
    'pagerank/csr/cpu/fused'
    """
    dev = A.device
    why = _pinned(settings) or ("a callback reads every iteration" if callback else None) \
        or ("resumed from a checkpoint" if resumed else None)
    if why is None and not has_kernel("pagerank", "csr", dev, "fused"):
        why = f"no fused PageRank kernel registered for {dev}"
    limit = FUSED_PAGERANK_MAX_ENTRIES_GPU if dev == "gpu" else FUSED_PAGERANK_MAX_ENTRIES
    if why is None and A.nvals > limit and not _ranks_fit(A):
        why = (f"{A.nvals:,} entries: above {limit:,}, with vertex "
               "data beyond the cache, the products' formats can pay within one call")
    if why is not None:
        return Plan("pagerank", "csr", "pull per iteration", dev, None,
                    reason=f"loop of planned products ({why})")
    because = ("a product's fixed cost would dominate each iteration"
               if A.nvals <= limit else
               "the ranks fit the cache, where no format built for the products pays")
    return Plan("pagerank", "csr", "pull", dev, KernelKey("pagerank", "csr", dev, "fused"),
                reason=f"one fused loop on the CSR of A' ({A.nvals:,} entries: {because})")


def plan_katz(A, settings: Settings) -> Plan:
    """The Plan of ``gblas.algorithms.katz_centrality`` on ``A``: on the GPU, up to
    :data:`FUSED_PAGERANK_MAX_ENTRIES_GPU` entries, the whole iteration in PageRank's
    fused kernel (``x' = A' (x .* w) + c p`` with ``w = alpha``, ``p = beta`` and no
    damping, ``c = 1``: Katz's ``x' = alpha A' x + beta``, alpha applied before the sum),
    which replaces the host time of a product and a step per iteration; elsewhere the
    loop of planned products and fused steps (NetworkX's iterates).

    Examples
    --------
    >>> import gblas as gb
    >>> from gblas.config import config
    >>> A = gb.Matrix.from_coo([0, 1], [1, 2], shape=(3, 3))
    >>> plan_katz(A, config.current()).kernel     # the CPU keeps NetworkX's loop
    ''
    """
    return _one_launch_power("katz_centrality", "pagerank", "PageRank's fused loop on the "
                             "CSR of A'", A, settings)


def plan_eigenvector(A, settings: Settings) -> Plan:
    """The Plan of ``gblas.algorithms.eigenvector_centrality`` on ``A``: on the GPU, up
    to :data:`FUSED_PAGERANK_MAX_ENTRIES_GPU` entries, the whole power iteration in one
    launch (``("eigenvector", "csr", "gpu", "fused")``, on the CSR of ``A'``); elsewhere
    the loop of planned products and fused steps.

    Examples
    --------
    >>> import gblas as gb
    >>> from gblas.config import config
    >>> A = gb.Matrix.from_coo([0, 1], [1, 2], shape=(3, 3))
    >>> plan_eigenvector(A, config.current()).reason
    "loop of planned products (NetworkX's iterates, one product and one fused step each)"
    """
    return _one_launch_power("eigenvector_centrality", "eigenvector",
                             "one launch on the CSR of A'", A, settings)


def plan_hits(A, settings: Settings) -> Plan:
    """The Plan of ``gblas.algorithms.hits`` on ``A``: on the GPU, up to
    :data:`FUSED_PAGERANK_MAX_ENTRIES_GPU` entries, the power iteration in one launch
    (``("hits", "csr", "gpu", "fused")``, on the CSRs of ``A'`` and ``A``; the kernel
    checks the rate of the changes and stops where HITS switches to Lanczos cycles, whose
    products of ``A' A`` are the plan's step ``("gram", "csr", "gpu", "fused")``);
    elsewhere the loop of planned products and fused steps.

    Examples
    --------
    >>> import gblas as gb
    >>> from gblas.config import config
    >>> A = gb.Matrix.from_coo([0, 1], [1, 2], shape=(3, 3))
    >>> plan_hits(A, config.current()).key is None
    True
    """
    return _one_launch_power("hits", "hits", "one launch on the CSRs of A' and A, the "
                             "Lanczos continuation's products of A' A one launch each", A,
                             settings, also="gram")


def _one_launch_power(call: str, kernel: str, what: str, A, settings: Settings,
                      also: str | None = None) -> Plan:
    """A spectral centrality's Plan: its one-launch kernel ``(kernel, "csr", "gpu",
    "fused")`` (and ``(also, "csr", "gpu", "fused")`` as its step, where given) on a GPU
    Matrix of up to :data:`FUSED_PAGERANK_MAX_ENTRIES_GPU` entries (where a product's
    host time would dominate each iteration), else the loop."""
    dev = A.device
    why = _pinned(settings)
    if why is None and dev != "gpu":
        why = "NetworkX's iterates, one product and one fused step each"
    for name in (kernel, also or kernel):
        if why is None and not has_kernel(name, "csr", dev, "fused"):
            why = f"no fused {name} kernel registered for {dev}"
    if why is None and A.nvals > FUSED_PAGERANK_MAX_ENTRIES_GPU:
        why = f"{A.nvals:,} entries: above {FUSED_PAGERANK_MAX_ENTRIES_GPU:,}"
    if why is not None:
        return Plan(call, "csr", "pull per iteration", dev, None,
                    reason=f"loop of planned products ({why})")
    return Plan(call, "csr", "pull", dev, KernelKey(kernel, "csr", dev, "fused"),
                reason=f"{what} ({A.nvals:,} entries: a product's fixed cost would "
                       "dominate each iteration)",
                steps=() if also is None else (KernelKey(also, "csr", dev, "fused"),))


def _ranks_fit(A) -> bool:
    """Whether a CPU product's vertex data (``x`` read, ``y`` and its flag written) fits
    the cache share the pull rule allows: then that rule keeps CSR (or shards, on rows
    split unevenly), and the fused loop over the CSR is the faster run
    (``benchmarks/results/end_to_end_pagerank_cpu.md``)."""
    if A.device != "cpu":
        return False
    n = A.shape[0]
    # PageRank's product: float64 x, float64 y and its flag
    return cost.vertex_data((n, n), 8, 9, hardware.detect().l3)[2]


def _transpose_ready(A) -> bool:
    """Whether the CSR of ``A'`` costs nothing: built already, or ``A`` is a ``.T`` view
    (whose transpose is its parent's own CSR)."""
    has = getattr(A, "has_format", None)
    return True if has is None else bool(has("csr", transposed=True))


def plan_bfs_order(A, directed: bool, settings: Settings) -> Plan:
    """The Plan of ``gblas.csgraph.breadth_first_order``: SciPy's visit order comes from a
    queue (each vertex's out-neighbours in index order, then its in-neighbours when
    undirected), which a compiled queue kernel reproduces in ``O(n + m)``; where none is
    registered for the device, or a format or direction is pinned, a loop of masked
    products per level computes the same order.

    Examples
    --------
    >>> import gblas as gb
    >>> from gblas.config import config
    >>> A = gb.Matrix.from_coo([0, 1], [1, 2], shape=(3, 3))
    >>> plan_bfs_order(A, True, config.current()).kernel
    'bfs_order/csr/cpu'
    """
    return _compiled_or_loop(
        A, settings, "bfs_order", ("bfs_order", "csr", A.device, ""), "push",
        "queue kernel: SciPy's order in one pass over the edges",
        "per level", "loop of masked products", details={"directed": directed})


def plan_components(A, kind: str, settings: Settings) -> Plan:
    """The Plan of ``gblas.algorithms.connected_components`` (``kind`` "weak" or "strong").

    Where the device has one, a compiled pass labels the components (union-find over the
    entries for weak ones, Tarjan's algorithm for strong ones; on a host copy of a GPU
    Matrix of at most :data:`HOST_COMPONENTS_MAX_ENTRIES` entries): O(n + m) work, against a
    BFS plus FastSV iterations (weak) or coloring rounds (strong) of products, each round
    a pass over the matrix.  A pinned format or direction keeps the products.

    Examples
    --------
    >>> import gblas as gb
    >>> from gblas.config import config
    >>> A = gb.Matrix.from_coo([0, 1], [1, 2], shape=(3, 3))
    >>> plan_components(A, "weak", config.current()).kernel
    'components/csr/cpu/weak'
    """
    how = "union-find over the entries" if kind == "weak" else "Tarjan's algorithm"
    rounds = "BFS + FastSV" if kind == "weak" else "trimming and coloring rounds"
    return _compiled_or_loop(
        A, settings, "components", ("components", "csr", A.device, kind), "one pass",
        f"compiled {how}: O(n + m), labels = smallest vertex id",
        "per round", f"loop of products: {rounds}",
        host=f"its rounds' fixed costs exceed the copy and the pass up to "
             f"{HOST_COMPONENTS_MAX_ENTRIES:,} entries",
        host_max_entries=HOST_COMPONENTS_MAX_ENTRIES)


def plan_label_propagation(A, method: str, settings: Settings) -> Plan:
    """The Plan of ``gblas.algorithms.label_propagation``: compiled sweeps (each vertex's
    neighbour labels counted in a scratch array, O(m) a sweep) where the device has them,
    on a host copy of a GPU Matrix (the GPU has none), else the loop of products (a
    counting SpGEMM, a row arg-max and several element-wise passes per color class and
    sweep).  The coloring and the results are the same.

    Examples
    --------
    >>> import gblas as gb
    >>> from gblas.config import config
    >>> A = gb.Matrix.from_coo([0, 1], [1, 2], shape=(3, 3))
    >>> plan_label_propagation(A, "semi-synchronous", config.current()).kernel
    'lpa/csr/cpu'
    """
    return _compiled_or_loop(
        A, settings, "label_propagation", ("lpa", "csr", A.device, ""), method,
        "compiled sweeps: neighbour labels counted in a scratch array",
        method, "loop of products per color class",
        also=("lpa_coloring", "csr", A.device, ""),
        host="its loop runs a dozen operations per color class and sweep, each costing "
             "host time")


def plan_triangle_count(A, settings: Settings, *, per_vertex: bool = False) -> Plan:
    """The Plan of ``gblas.algorithms.triangle_count`` (``per_vertex``: of the triangles
    through every vertex, for ``triangles``, ``clustering``, ``average_clustering`` and
    ``transitivity``): compiled passes (the undirected graph merged from the rows of A
    and A', edges oriented by degree, stamped intersections; each triangle credited to
    its three vertices when ``per_vertex``) where the device has them (on a host copy of
    a GPU Matrix of at most :data:`HOST_TRIANGLES_MAX_ENTRIES` entries,
    :data:`HOST_TRIANGLES_PER_VERTEX_MAX_ENTRIES` per vertex), else the loop of
    operations (a masked plus_pair SpGEMM, a reduce).  The counts are the same.

    Examples
    --------
    >>> import gblas as gb
    >>> from gblas.config import config
    >>> A = gb.Matrix.from_coo([0, 1], [1, 2], shape=(3, 3))
    >>> plan_triangle_count(A, config.current()).kernel
    'triangle_count/csr/cpu'
    >>> plan_triangle_count(A, config.current(), per_vertex=True).kernel
    'triangles/csr/cpu/per_vertex'
    """
    key = (("triangles", "csr", A.device, "per_vertex") if per_vertex
           else ("triangle_count", "csr", A.device, ""))
    limit = HOST_TRIANGLES_PER_VERTEX_MAX_ENTRIES if per_vertex else HOST_TRIANGLES_MAX_ENTRIES
    return _compiled_or_loop(
        A, settings, key[0], key, "one pass",
        "compiled: rows of A and A' merged, edges oriented by degree, stamped "
        "intersections" + (", each triangle credited to its three vertices" if per_vertex
                           else ""), "operations",
        "loop of operations: masked plus_pair SpGEMM" + (", row reduce" if per_vertex
                                                        else " of the oriented graph"),
        host=f"the loop's SpGEMM and setup cost more than the copy and the passes up to "
             f"{limit:,} entries",
        host_max_entries=limit)


def plan_core_number(A, settings: Settings) -> Plan:
    """The Plan of ``gblas.algorithms.core_number``: Batagelj-Zaversnik's bucket peeling
    compiled (O(m), one vertex at a time) where the device has it, on a host copy of a GPU
    Matrix (the GPU has none), else the level-at-a-time peeling of products (a masked
    product per level).

    Examples
    --------
    >>> import gblas as gb
    >>> from gblas.config import config
    >>> A = gb.Matrix.from_coo([0, 1], [1, 0], shape=(2, 2))
    >>> plan_core_number(A, config.current()).kernel
    'core_number/csr/cpu'
    """
    return _compiled_or_loop(
        A, settings, "core_number", ("core_number", "csr", A.device, ""), "one pass",
        "compiled bucket peeling (Batagelj-Zaversnik), O(m)",
        "per level", "level-at-a-time peeling by products",
        host="its loop runs a masked product and several element-wise steps per level")


#: Compiled-kernel plans by their arguments (a registered kernel stays registered): a
#: small graph's search is a few microseconds, of which building the Plan took 2.
_COMPILED: dict = {}


def _on_host(key: tuple | None) -> tuple | None:
    """``key`` with the CPU as its device (None stays None)."""
    return None if key is None else key[:2] + ("cpu",) + key[3:]


def _compiled_or_loop(A, settings: Settings, op: str, key: tuple, how: str, reason: str,
                      loop_how: str, loop_reason: str, *, also: tuple | None = None,
                      details: dict | None = None, host: str | None = None,
                      host_max_entries: int | None = None) -> Plan:
    """The plan of a whole algorithm: its compiled kernel ``key`` (and ``also``) where the
    device registers it and no format or direction is pinned, else its loop of products
    (``kernel`` empty).  ``host``: why the loop is the worse choice on a GPU without the
    kernel (for matrices of at most ``host_max_entries`` entries when given); then the
    CPU's kernel runs on a host copy instead (the Plan's device is "cpu",
    ``details["copied_from"]`` the GPU)."""
    dev = A.device
    why = _pinned(settings)
    if host is not None and host_max_entries is not None and dev == "gpu" \
            and A.nvals > host_max_entries:
        host = None  # the GPU's loop is the faster there
    if why is None:
        try:
            memo = (op, key, how, reason, also, dev, tuple(sorted((details or {}).items())),
                    host)
            plan = _COMPILED.get(memo)
        except TypeError:  # unhashable details: not memoized
            memo = plan = None
        if plan is not None:
            return plan
        if has_kernel(*key) and (also is None or has_kernel(*also)):
            plan = Plan(op, "csr", how, dev, KernelKey(*key), reason=reason,
                        details=details or {},
                        steps=() if also is None else (KernelKey(*also),))
        elif host is not None and dev == "gpu" and has_kernel(*_on_host(key)) and (
                also is None or has_kernel(*_on_host(also))):
            plan = Plan(op, "csr", how, "cpu", KernelKey(*_on_host(key)),
                        reason=f"{reason}, on a host copy: no GPU kernel, and {host}",
                        details={**(details or {}), "copied_from": dev},
                        steps=() if also is None else (KernelKey(*_on_host(also)),))
        if plan is not None:
            if memo is not None:
                _COMPILED[memo] = plan
            return plan
    why = why or f"no compiled kernel for {dev}"
    return Plan(op, "csr", loop_how, dev, None, reason=f"{loop_reason} ({why})",
                details=details or {})
