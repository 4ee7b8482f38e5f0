"""Tier 2: one long-lived task per GPU worker per algorithm call, the per-iteration
exchange over NCCL (CuPy's ``cupy.cuda.nccl`` bindings), as cuGraph's multi-GPU layer.

Each worker holds one block ``A_ij`` of the grid on its GPU; an iteration computes
``y = A' x``.

* **Column grid** ``(1, p)``: rank ``j`` holds ``A[:, C_j]``,
  so ``y[C_j] = A[:, C_j]' x`` is complete on the rank, which owns the vertices ``C_j``.
  The only exchange is an ``allGather`` of the next ``x`` shares: ``(p - 1) / p * n`` words
  a rank receives per product.  The block is cut by rows into the ``p`` shares of ``x``:
  the product over the rank's own share runs while the others' shares arrive (the
  gather runs on a side stream), then the other ``p - 1`` parts.
* **Row grid** ``(p, 1)``: rank ``i`` holds ``A[R_i, :]``, so its product reads only
  its own share ``x[R_i]``; its partial ``y`` over all vertices is cut by rows into the
  ``p`` shares, and share ``j`` is reduced to rank ``j`` (an NCCL ``reduce`` on a side
  stream) while share ``j + 1`` is computed.  No all-gather: what a rank receives is its
  next product's input.  ``(p - 1) / p * n`` words a rank sends per product.
* **Other grids**: the block's partial ``A_ij' x_i`` goes into a zeroed buffer of all
  ``n`` vertices, the workers combine the partials with ``reduceScatter`` (each rank gets
  ``y`` over its ``n / p`` share), and ``allGather`` the shares: ``2 (p - 1) / p * n``
  words per rank.

:func:`exchange_words` reports the words next to the 2D model's ``n / pc + n / pr``;
scalars (the L1 change, the dangling rank) go through one small ``allReduce``.

:func:`choose_tier` picks this tier only where every block is on a GPU, CuPy with NCCL
imports on the workers, and each block has a worker with its own GPU (one such worker
too: its long-lived task beats a task per step); else the plan names the reason and the
tasks tier runs.  With no GPU it is never chosen.

Examples
--------
>>> exchange_words(1 << 20, 2, (1, 2))["nccl_words_per_rank"]
524288
"""

from __future__ import annotations

import numpy as np

from .nccl_ranks import bfs_rank, pagerank_rank

__all__ = ["choose_tier", "exchange_words", "run_pagerank", "run_bfs", "bfs_levels",
           "TIER2_ALGORITHMS"]

#: The algorithms the NCCL tier runs (others take the tasks tier).
TIER2_ALGORITHMS = ("pagerank", "bfs")


def exchange_words(n: int, p: int, grid: tuple) -> dict:
    """Words per rank and product: NCCL's all-gather (column grid ``(1, p)``), reduces
    (row grid ``(p, 1)``) or reduce-scatter + all-gather of ``n`` words, against the 2D
    model ``n / pc + n / pr``.

    Examples
    --------
    >>> exchange_words(1000, 4, (2, 2))["model_words"]
    1000
    """
    pr, pc = grid
    rounds = 1 if 1 in (pr, pc) else 2  # a column grid gathers only, a row grid reduces
    nccl = 0 if p <= 1 else rounds * (p - 1) * n // p
    return {"nccl_words_per_rank": nccl, "model_words": n // pc + n // pr}


def _probe_gpu():
    """On a worker: its GPU id and whether NCCL imports (None when no GPU)."""
    try:
        import cupy
        from cupy.cuda import nccl  # noqa: F401

        dev = cupy.cuda.Device()
        return {"pci": cupy.cuda.runtime.deviceGetPCIBusId(dev.id), "nccl": True}
    except Exception:  # noqa: BLE001 - any failure means: no usable GPU here
        return None


def choose_tier(A, algorithm: str = "pagerank") -> tuple[str, str]:
    """``("nccl", why)`` where the NCCL tier can run ``algorithm`` on ``A``, else
    ``("tasks", why not)``.

    Examples
    --------
    >>> class CPUMatrix:
    ...     device = "cpu"
    >>> choose_tier(CPUMatrix())[0]
    'tasks'
    """
    if getattr(A, "device", "cpu") != "gpu":
        return "tasks", "tier 'nccl' needs GPU blocks; these are on the cpu"
    if algorithm not in TIER2_ALGORITHMS:
        return "tasks", f"tier 'nccl' runs {', '.join(TIER2_ALGORITHMS)} only"
    workers = sorted(set(A.grid.workers))
    if len(workers) != len(A.grid.workers):
        return "tasks", "tier 'nccl' needs one block per worker"
    try:
        found = A.client.run(_probe_gpu, workers=workers)
    except Exception as e:  # noqa: BLE001
        return "tasks", f"probing the workers' GPUs failed ({type(e).__name__})"
    ids = [found.get(w) for w in workers]
    if any(i is None for i in ids):
        return "tasks", "a worker has no GPU with CuPy's NCCL bindings"
    if len({i["pci"] for i in ids}) != len(ids):
        return "tasks", "workers share a GPU (set CUDA_VISIBLE_DEVICES per worker)"
    g = A.grid
    how = ("shares of x all-gathered" if g.pr == 1 else "shares of y reduced to their ranks"
           if g.pc == 1 else "y reduce-scattered, x all-gathered")
    return "nccl", f"{len(ids)} GPU workers, exchange over NCCL ({how})"


def _unique_id():
    from cupy.cuda import nccl

    return nccl.get_unique_id()

#: On the client: (client, workers of the ranks) -> the unique id their ranks share.
_UIDS: dict = {}

# ---------------------------------------------------------------------- on the client

def _launch(A, func, *args):
    """One task per worker (rank = block index), all started together; their results.
    A column or row grid's ranks get its shares' bounds (:func:`_share_bounds`)."""
    futs, _, key = _submit(A, func, *args)
    return _wait_ranks(A, futs, key, func.__name__)


def _wait_ranks(A, futs: list, key, call: str) -> list:
    """The results of a call's rank tasks (or of tasks after them); a failed call drops
    the communicators' id, so the next call starts new ones."""
    from .operations import wait

    try:
        return wait(A.client, futs, call, A.timeout)
    except BaseException:
        _UIDS.pop(key, None)
        raise


def _share_bounds(A):
    """The vertex shares of a square column grid (its column bounds) or row grid (its
    row bounds): the ranks then exchange shares only; None on other grids."""
    g = A.grid
    if A.shape[0] != A.shape[1] or 1 not in (g.pr, g.pc):
        return None
    return [int(b) for b in (g.col_bounds if g.pr == 1 else g.row_bounds)]


def _submit(A, func, *args):
    """The rank tasks of :func:`_launch`, submitted: ``(futures, owners, key)``, the key
    of the communicators they share."""
    c, g = A.client, A.grid
    bounds = _share_bounds(A)
    p = g.pr * g.pc
    owners = tuple(g.owner(i, j) for i in range(g.pr) for j in range(g.pc))
    # the same ranks on the same workers reuse their communicators (one id per set)
    key = (id(c), owners)
    uid = _UIDS.get(key)
    if uid is None:
        uid = _UIDS[key] = c.submit(_unique_id, workers=[g.workers[0]],
                                    pure=False).result(timeout=A.timeout)
    futs = []
    for i in range(g.pr):
        for j in range(g.pc):
            rank = i * g.pc + j
            futs.append(c.submit(func, A.block(i, j), rank, p, uid, int(g.row_bounds[i]),
                                 int(g.row_bounds[i + 1]), int(g.col_bounds[j]),
                                 int(g.col_bounds[j + 1]), *args, bounds=bounds,
                                 workers=[owners[rank]], pure=False))
    return futs, owners, key


def run_pagerank(A, damping: float = 0.85, tol: float = 1e-6, max_iter: int = 100):
    """Tier-2 PageRank of a DistMatrix of GPU blocks: ``(ranks as numpy, stats)``."""
    n = A.shape[0]
    res = _launch(A, pagerank_rank, n, float(damping), float(tol), int(max_iter),
                  A.dtype == np.bool_)
    ranks = np.zeros(n)
    for r in res:
        ranks[r["lo"]:r["lo"] + r["ranks"].size] = r["ranks"]
    return ranks, _stats(res, n, A.grid)


def run_bfs(A, source: int):
    """Tier-2 BFS levels of a DistMatrix of GPU blocks: ``(levels as numpy, stats)``."""
    n = A.shape[0]
    res = _launch(A, bfs_rank, n, int(source))
    if "lo" not in res[0]:  # every rank holds all levels
        return res[0]["levels"].astype(np.int64), _stats(res, n, A.grid)
    levels = np.empty(n, dtype=np.int64)
    for r in res:
        levels[r["lo"]:r["lo"] + r["levels"].size] = r["levels"]
    return levels, _stats(res, n, A.grid)


def _without(res: dict, key: str) -> dict:
    return {k: v for k, v in res.items() if k != key}


def bfs_levels(A, source: int):
    """Tier-2 BFS levels as a DistVector over the shares of a column or row grid whose
    segments stay on the GPU workers (no trip through the client), with the stats; None
    on other grids (there every rank holds all levels: :func:`run_bfs`)."""
    from operator import itemgetter

    from .vector import DistVector

    g = A.grid
    bounds = _share_bounds(A)
    if bounds is None:
        return None
    c, n = A.client, A.shape[0]
    futs, owners, key = _submit(A, bfs_rank, n, int(source), True)
    meta = _wait_ranks(A, [c.submit(_without, f, "vector", workers=[w], pure=False)
                           for f, w in zip(futs, owners)], key, "bfs")
    parts = [c.submit(itemgetter("vector"), f, workers=[w], pure=False)
             for f, w in zip(futs, owners)]
    vec = DistVector(c, np.asarray(bounds), parts, list(owners), np.int64, A.device,
                     A.timeout)
    return vec, _stats(meta, n, g)


def _stats(res: list, n: int, grid) -> dict:
    p = len(res)
    comp = np.array([r["compute_s"] for r in res])
    exch = np.array([r["exchange_s"] for r in res])
    return {"iterations": comp.shape[1], "err": max(r.get("err", 0.0) for r in res),
            "compute_s": comp.max(axis=0).tolist(),
            "exchange_s": exch.max(axis=0).tolist(),
            "bytes_per_rank": max(r["bytes"] for r in res),
            # collectives on their own stream, overlapping the products
            "overlapped_s": max(r.get("overlapped_s", 0.0) for r in res),
            **exchange_words(n, p, (grid.pr, grid.pc))}
