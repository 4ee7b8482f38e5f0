"""Tier 2: one long-lived task per GPU worker per algorithm call, the per-iteration
exchange over NCCL (CuPy's ``cupy.cuda.nccl`` bindings), as cuGraph's multi-GPU layer.

Each worker holds one block ``A_ij`` of the grid on its GPU.  An iteration of
``y = A' x`` computes the block's partial ``A_ij' x_i`` into a zeroed buffer of all
``n`` vertices (its column segment), and the workers combine the partials with
``reduceScatter`` (each rank gets the reduced ``y`` over its ``n / p`` share), take the
algorithm's vector step on that share, and ``allGather`` the shares so that every rank
holds the whole next ``x``.  The words each rank sends per product are
``2 (p - 1) / p * n`` (reported by :func:`exchange_words` next to the 2D model's
``n / pc + n / pr``); scalars (the L1 change, the dangling rank, the frontier size) go
through one small ``allReduce``.

:func:`choose_tier` picks this tier only where every block is on a GPU, CuPy with NCCL
imports on the workers, and there are at least two workers each with its own GPU; else
the plan names the reason and the tasks tier runs.  With no GPU it is never chosen.

Examples
--------
>>> exchange_words(1 << 20, 2, (1, 2))["nccl_words_per_rank"]
1048576
"""

from __future__ import annotations

import time

import numpy as np

__all__ = ["choose_tier", "exchange_words", "run_pagerank", "run_bfs", "TIER2_ALGORITHMS"]

#: The algorithms the NCCL tier runs (others take the tasks tier).
TIER2_ALGORITHMS = ("pagerank", "bfs")


def exchange_words(n: int, p: int, grid: tuple) -> dict:
    """Words per rank and product: NCCL's reduce-scatter + all-gather of ``n`` words
    against the 2D model ``n / pc + n / pr``.

    Examples
    --------
    >>> exchange_words(1000, 4, (2, 2))["model_words"]
    1000
    """
    pr, pc = grid
    nccl = 0 if p <= 1 else 2 * (p - 1) * n // p
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
    if len(workers) < 2 or len(workers) != len(A.grid.workers):
        return "tasks", "tier 'nccl' needs one block per worker on at least two workers"
    try:
        found = A.client.run(_probe_gpu, workers=workers)
    except Exception as e:  # noqa: BLE001
        return "tasks", f"probing the workers' GPUs failed ({type(e).__name__})"
    ids = [found.get(w) for w in workers]
    if any(i is None for i in ids):
        return "tasks", "a worker has no GPU with CuPy's NCCL bindings"
    if len({i["pci"] for i in ids}) != len(ids):
        return "tasks", "workers share a GPU (set CUDA_VISIBLE_DEVICES per worker)"
    return "nccl", f"{len(ids)} GPU workers, exchange over NCCL"


def _unique_id():
    from cupy.cuda import nccl

    return nccl.get_unique_id()


# ------------------------------------------------------------------- on each worker

class _Comm:
    """A rank's NCCL communicator with timed float64 / uint8 collectives."""

    def __init__(self, nranks: int, uid, rank: int) -> None:
        import cupy
        from cupy.cuda import nccl

        self.cp, self.nccl = cupy, nccl
        self.rank, self.p = rank, nranks
        self.comm = nccl.NcclCommunicator(nranks, uid, rank)
        self.stream = cupy.cuda.Stream.null
        self.seconds = 0.0
        self.bytes = 0

    def _dtype(self, a):
        n = self.nccl
        return {np.dtype(np.float64): n.NCCL_FLOAT64, np.dtype(np.uint8): n.NCCL_UINT8,
                np.dtype(np.int64): n.NCCL_INT64}[np.dtype(a.dtype)]

    def _timed(self, fn, nbytes: int):
        self.cp.cuda.Device().synchronize()
        t = time.perf_counter()
        fn()
        self.cp.cuda.Device().synchronize()
        self.seconds += time.perf_counter() - t
        self.bytes += nbytes

    def reduce_scatter(self, send, recv, op="sum"):
        red = self.nccl.NCCL_SUM if op == "sum" else self.nccl.NCCL_MAX
        self._timed(lambda: self.comm.reduceScatter(send.data.ptr, recv.data.ptr, recv.size,
                                                    self._dtype(send), red,
                                                    self.stream.ptr),
                    (self.p - 1) * recv.nbytes)

    def all_gather(self, send, recv):
        self._timed(lambda: self.comm.allGather(send.data.ptr, recv.data.ptr, send.size,
                                                self._dtype(send), self.stream.ptr),
                    (self.p - 1) * send.nbytes)

    def all_reduce(self, buf, op="sum"):
        red = self.nccl.NCCL_SUM if op == "sum" else self.nccl.NCCL_MAX
        self._timed(lambda: self.comm.allReduce(buf.data.ptr, buf.data.ptr, buf.size,
                                                self._dtype(buf), red, self.stream.ptr),
                    2 * (self.p - 1) * buf.nbytes // max(self.p, 1))


def _partial(block, x_seg, semiring: str, transposed: bool):
    """``block' x_seg`` (or ``block x_seg``) as a dense CuPy array (missing = 0)."""
    import cupy

    from ..core.operations import mxv
    from ..core.vector import Vector

    A = block.T if transposed else block
    y = mxv(A, Vector.from_dense(x_seg), semiring).dense_data()
    v = y.values.astype(cupy.float64)
    return v if y.present is None else cupy.where(y.present, v, 0.0)


def _pagerank_rank(block, rank: int, p: int, uid, r0: int, r1: int, c0: int, c1: int,
                   n: int, alpha: float, limit: float, max_iter: int, pattern: bool):
    """One rank of tier-2 PageRank; returns its share of the ranks and the timings."""
    import cupy

    comm = _Comm(p, uid, rank)
    chunk = -(-n // p)
    npad = chunk * p
    lo, hi = rank * chunk, min((rank + 1) * chunk, n)
    # out-degrees: the block's row sums into a full buffer, summed over all ranks
    ones = cupy.ones(c1 - c0, dtype=cupy.float64)
    sem = "plus_pair" if pattern else "plus_times"
    deg = cupy.zeros(npad, dtype=cupy.float64)
    deg[r0:r1] = _partial(block, ones, sem, False)
    comm.all_reduce(deg)
    d = deg[lo:hi]
    w = cupy.where(d != 0, alpha / cupy.where(d != 0, d, 1.0), 0.0)
    r = cupy.full(hi - lo, 1.0 / n)
    s_full = cupy.zeros(npad, dtype=cupy.float64)
    s_share = cupy.zeros(chunk, dtype=cupy.float64)
    s_share[:hi - lo] = r * w
    comm.all_gather(s_share, s_full)
    m = float((r[w == 0]).sum())
    scal = cupy.zeros(2, dtype=cupy.float64)
    scal[1] = m
    comm.all_reduce(scal)
    m = float(scal[1])
    mul = "plus_second" if pattern else "plus_times"
    ybuf = cupy.zeros(npad, dtype=cupy.float64)
    yshare = cupy.zeros(chunk, dtype=cupy.float64)
    compute = []
    exch = []
    err = float("inf")
    it = 0
    for k in range(1, max_iter + 1):
        it = k
        e0 = comm.seconds
        cupy.cuda.Device().synchronize()
        t = time.perf_counter()
        ybuf.fill(0.0)
        ybuf[c0:c1] = _partial(block, s_full[r0:r1], mul, True)
        comm.reduce_scatter(ybuf, yshare)
        rn = yshare[:hi - lo] + (alpha * m + 1.0 - alpha) / n
        scal[0] = cupy.abs(rn - r).sum()
        scal[1] = rn[w == 0].sum()
        r = rn
        s_share[:hi - lo] = r * w
        comm.all_gather(s_share, s_full)
        comm.all_reduce(scal)
        err, m = float(scal[0]), float(scal[1])
        cupy.cuda.Device().synchronize()
        total = time.perf_counter() - t
        exch.append(comm.seconds - e0)
        compute.append(total - exch[-1])
        if err < limit:
            break
    return {"lo": lo, "ranks": cupy.asnumpy(r), "iterations": it, "err": err,
            "compute_s": compute, "exchange_s": exch, "bytes": comm.bytes}


def _bfs_rank(block, rank: int, p: int, uid, r0: int, r1: int, c0: int, c1: int, n: int,
              source: int):
    """One rank of tier-2 BFS (levels; the frontier replicated as a byte map)."""
    import cupy

    comm = _Comm(p, uid, rank)
    levels = cupy.full(n, -1, dtype=cupy.int64)
    levels[source] = 0
    q = cupy.zeros(n, dtype=cupy.uint8)
    q[source] = 1
    nxt = cupy.zeros(n, dtype=cupy.uint8)
    compute, exch = [], []
    depth = 0
    while True:
        depth += 1
        e0 = comm.seconds
        cupy.cuda.Device().synchronize()
        t = time.perf_counter()
        nxt.fill(0)
        part = _partial(block, q[r0:r1].astype(cupy.float64), "plus_times", True)
        nxt[c0:c1] = (part != 0).astype(cupy.uint8)
        comm.all_reduce(nxt, op="max")
        nxt &= (levels < 0).astype(cupy.uint8)
        count = int(nxt.sum())
        if count:
            levels[nxt.astype(bool)] = depth
        q, nxt = nxt, q
        cupy.cuda.Device().synchronize()
        total = time.perf_counter() - t
        exch.append(comm.seconds - e0)
        compute.append(total - exch[-1])
        if count == 0:
            break
    lv = cupy.asnumpy(levels) if rank == 0 else None
    return {"levels": lv, "depth": depth - 1, "compute_s": compute, "exchange_s": exch,
            "bytes": comm.bytes}


# ---------------------------------------------------------------------- on the client

def _launch(A, func, *args):
    """One task per worker (rank = block index), all started together; their results."""
    from .operations import wait

    c, g = A.client, A.grid
    uid = c.submit(_unique_id, workers=[g.workers[0]], pure=False).result(timeout=A.timeout)
    p = g.pr * g.pc
    futs = []
    for i in range(g.pr):
        for j in range(g.pc):
            rank = i * g.pc + j
            futs.append(c.submit(func, A.block(i, j), rank, p, uid, int(g.row_bounds[i]),
                                 int(g.row_bounds[i + 1]), int(g.col_bounds[j]),
                                 int(g.col_bounds[j + 1]), *args, workers=[g.owner(i, j)],
                                 pure=False))
    return wait(c, futs, func.__name__, A.timeout)


def run_pagerank(A, damping: float = 0.85, tol: float = 1e-6, max_iter: int = 100):
    """Tier-2 PageRank of a DistMatrix of GPU blocks: ``(ranks as numpy, stats)``."""
    n = A.shape[0]
    res = _launch(A, _pagerank_rank, n, float(damping), float(tol), int(max_iter),
                  A.dtype == np.bool_)
    ranks = np.zeros(n)
    for r in res:
        ranks[r["lo"]:r["lo"] + r["ranks"].size] = r["ranks"]
    return ranks, _stats(res, n, A.grid)


def run_bfs(A, source: int):
    """Tier-2 BFS levels of a DistMatrix of GPU blocks: ``(levels as numpy, stats)``."""
    res = _launch(A, _bfs_rank, A.shape[0], int(source))
    return res[0]["levels"], _stats(res, A.shape[0], A.grid)


def _stats(res: list, n: int, grid) -> dict:
    p = len(res)
    comp = np.array([r["compute_s"] for r in res])
    exch = np.array([r["exchange_s"] for r in res])
    return {"iterations": comp.shape[1], "err": max(r.get("err", 0.0) for r in res),
            "compute_s": comp.max(axis=0).tolist(),
            "exchange_s": exch.max(axis=0).tolist(),
            "bytes_per_rank": max(r["bytes"] for r in res),
            **exchange_words(n, p, (grid.pr, grid.pc))}
