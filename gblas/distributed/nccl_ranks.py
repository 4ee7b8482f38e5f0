"""What each rank of the NCCL tier runs on its worker: the communicator, the block's
pieces kept for the next call, and PageRank and BFS on a column grid, a row grid or any
other grid (:mod:`gblas.distributed.nccl` describes the grids' exchanges and submits these
functions, one long-lived task per worker).

Examples
--------
>>> _column_grid([0, 4, 8], 1, 0, 8, 4, 8), _row_grid([0, 4, 8], 1, 4, 0, 8, 8)
(True, True)
"""

from __future__ import annotations

import contextlib
import time
import weakref

import numpy as np

__all__ = ["pagerank_rank", "bfs_rank", "ROW_SPLIT"]

#: On a worker: (unique id, rank, ranks) -> NCCL communicator, kept across calls.
_COMMS: dict = {}

#: On a worker: id of a block -> (weak reference to it, tag, the parts cut from it),
#: while the block lives (keyed by identity: gblas objects refuse ``==``).
_PARTS: dict = {}


class _Comm:
    """A rank's NCCL communicator with timed float64 / uint8 collectives."""

    def __init__(self, nranks: int, uid, rank: int) -> None:
        import cupy
        from cupy.cuda import nccl

        self.cp, self.nccl = cupy, nccl
        self.rank, self.p = rank, nranks
        # a communicator is kept for the next call of the same ranks: creating one and
        # its first collective's connections cost ~0.1 s each
        key = (tuple(uid) if isinstance(uid, (tuple, list)) else uid, rank, nranks)
        self.comm = _COMMS.get(key)
        if self.comm is None:
            self.comm = _COMMS[key] = nccl.NcclCommunicator(nranks, uid, rank)
        self.stream = cupy.cuda.Stream.null
        self.side = None  # the stream of the collectives that overlap a product
        self.seconds = 0.0  # exposed: the host waited on a collective
        self.overlapped_s = 0.0  # the overlapped collectives' own time on their stream
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

    def _start(self, launch, nbytes: int):
        """Queue ``launch(stream pointer)`` on the side stream behind the work queued so
        far on the current one, and return at once; :meth:`finish` waits for it."""
        cp = self.cp
        if self.side is None:
            self.side = cp.cuda.Stream(non_blocking=True)
        ready = cp.cuda.Event(disable_timing=True)
        ready.record()
        self.side.wait_event(ready)
        t0, t1 = cp.cuda.Event(), cp.cuda.Event()
        t0.record(self.side)
        launch(self.side.ptr)
        t1.record(self.side)
        return t0, t1, nbytes

    def start_all_gather(self, send, recv):
        """An all-gather that overlaps the work queued after it (see :meth:`_start`)."""
        return self._start(lambda st: self.comm.allGather(
            send.data.ptr, recv.data.ptr, send.size, self._dtype(send), st),
            (self.p - 1) * send.nbytes)

    def start_reduce(self, send, recv, root: int, op="sum"):
        """Reduce ``send`` of every rank into ``recv`` of rank ``root`` (its first
        ``send.size`` entries), overlapping the work queued after it.  A ring reduce has
        each rank but the root send the buffer once: ``(p - 1) / p`` of it on average."""
        red = self.nccl.NCCL_SUM if op == "sum" else self.nccl.NCCL_MAX
        return self._start(lambda st: self.comm.reduce(
            send.data.ptr, recv.data.ptr, send.size, self._dtype(send), red, root, st),
            (self.p - 1) * send.nbytes // self.p)

    def finish(self, pending) -> None:
        """Wait for a collective of :meth:`_start` (the wait counts as exchange)."""
        t0, t1, nbytes = pending
        t = time.perf_counter()
        t1.synchronize()
        self.seconds += time.perf_counter() - t
        self.bytes += nbytes
        self.overlapped_s += self.cp.cuda.get_elapsed_time(t0, t1) / 1e3

    def all_reduce(self, buf, op="sum"):
        red = self.nccl.NCCL_SUM if op == "sum" else self.nccl.NCCL_MAX
        self._timed(lambda: self.comm.allReduce(buf.data.ptr, buf.data.ptr, buf.size,
                                                self._dtype(buf), red, self.stream.ptr),
                    2 * (self.p - 1) * buf.nbytes // max(self.p, 1))


class _Steps:
    """A rank's per-iteration wall time, split into the host's waits on NCCL calls
    (exchange) and the rest (compute)."""

    def __init__(self, comm) -> None:
        self.comm = comm
        self.compute: list = []
        self.exchange: list = []

    @contextlib.contextmanager
    def step(self):
        import cupy

        e0 = self.comm.seconds
        cupy.cuda.Device().synchronize()
        t = time.perf_counter()
        yield
        cupy.cuda.Device().synchronize()
        total = time.perf_counter() - t
        self.exchange.append(self.comm.seconds - e0)
        self.compute.append(total - self.exchange[-1])


def _partial(block, x_seg, semiring: str, transposed: bool):
    """``block' x_seg`` (or ``block x_seg``) of a plus semiring as a dense CuPy array
    (missing = 0).  On the GPU the rows without entries hold 0 already: every pull kernel
    stores ``have ? acc : 0`` (tested per format), so no pass zeroes them (at Kronecker 27
    on 4 GPUs that pass moved 2.2 GB per PageRank iteration)."""
    import cupy

    from ..core.operations import mxv
    from ..core.vector import Vector

    A = block.T if transposed else block
    y = mxv(A, Vector.from_dense(x_seg), semiring).dense_data()
    v = y.values.astype(cupy.float64, copy=False)
    if y.present is None or block.device == "gpu":
        return v
    return cupy.where(y.present, v, 0.0)


def _reached(block, frontier, transposed: bool = True):
    """Rows of ``block'`` (``block`` when not ``transposed``) with a stored entry in a
    column where the 0/1 byte map ``frontier`` is 1, as a bool CuPy array:
    ``block' lor.second frontier``, structural as BFS is.  A byte per vertex of ``x``
    (not the 8 of a float64 product), and CSR pinned: a traversal's few products do not
    pay a format's build (the ski rental, counting uses across calls, built the light
    panels inside a search: 0.38 s for each of the two parts of Kronecker 27 on two
    GPUs, to save 2 ms a level)."""
    from ..config import config
    from ..core.operations import mxv
    from ..core.vector import Vector

    with config(format="csr"):
        y = mxv(block.T if transposed else block, Vector.from_dense(frontier.view(bool)),
                "lor_second").dense_data()
    v = y.values.astype(bool, copy=False)
    return v if y.present is None else v & y.present


def _rows(block, r0: int, r1: int):
    """Rows ``r0:r1`` of a block as a Matrix on the block's device (CSR views, no copy
    of the entries)."""
    from ..core import Matrix
    from ..formats import CSR

    c = block.csr()
    a, b = int(c.indptr[r0]), int(c.indptr[r1])
    vals = None if c.values is None else c.values[a:b]
    return Matrix(CSR((r1 - r0, c.shape[1]), c.indptr[r0:r1 + 1] - c.indptr[r0],
                      c.indices[a:b], vals, c.dtype, c.iso_value, c.device))


def _padded_others(block, bounds: list, rank: int, chunk: int):
    """The block's rows outside the rank's share, row ``v`` of share ``i`` moved to row
    ``i * chunk + v - bounds[i]`` of a ``p * chunk``-row Matrix (the gathered buffer's
    layout; the own share's rows and the padding are empty)."""
    from ..core import Matrix
    from ..formats import CSR

    c = block.csr()
    if isinstance(c.indptr, np.ndarray):
        xp = np
    else:
        import cupy as xp
    ptrs, idx, vals = [], [], []
    base = 0
    for i in range(len(bounds) - 1):
        a, b = bounds[i], bounds[i + 1]
        if i == rank:
            ptrs.append(xp.full(chunk, base, dtype=np.int64))
            continue
        lo, hi = int(c.indptr[a]), int(c.indptr[b])
        ptrs.append(c.indptr[a:b].astype(np.int64) - lo + base)
        ptrs.append(xp.full(chunk - (b - a), base + hi - lo, dtype=np.int64))
        idx.append(c.indices[lo:hi])
        if c.values is not None:
            vals.append(c.values[lo:hi])
        base += hi - lo
    ptrs.append(xp.full(1, base, dtype=np.int64))
    indptr = xp.concatenate(ptrs)
    indptr = indptr.astype(np.int32) if base < 2**31 - 1 else indptr
    indices = xp.concatenate(idx) if idx else xp.zeros(0, dtype=c.indices.dtype)
    values = None if c.values is None else (
        xp.concatenate(vals) if vals else xp.zeros(0, dtype=c.values.dtype))
    return Matrix(CSR(((len(bounds) - 1) * chunk, c.shape[1]), indptr, indices, values,
                      c.dtype, c.iso_value, c.device))


def _column_grid(bounds, rank: int, r0: int, r1: int, c0: int, n: int) -> bool:
    """Whether the rank's block spans every row and its columns are its share."""
    return bounds is not None and r0 == 0 and r1 == n and int(bounds[rank]) == c0


def _row_grid(bounds, rank: int, r0: int, c0: int, c1: int, n: int) -> bool:
    """Whether the rank's block spans every column and its rows are its share."""
    return bounds is not None and c0 == 0 and c1 == n and int(bounds[rank]) == r0


def _kept(block, tag, make):
    """``make()``, kept with ``block`` for the next call under ``tag`` (with the formats
    the planner builds for it) while the block lives; another tag replaces it."""
    got = _PARTS.get(id(block))
    if got is None or got[0]() is not block or got[1] != tag:
        if got is None or got[0]() is not block:
            weakref.finalize(block, _PARTS.pop, id(block), None)
        got = _PARTS[id(block)] = (weakref.ref(block), tag, make())
    return got[2]


def _cut(block, bounds: list) -> list:
    """The block cut by rows at ``bounds``."""
    return [_rows(block, a, b) for a, b in zip(bounds, bounds[1:])]


class _Shares:
    """The ``p`` vertex shares of a column grid, each padded to the widest for NCCL's
    equal-count gathers: the rank's own share, and a gathered buffer's part ``i``."""

    def __init__(self, block, bounds, rank: int) -> None:
        self.bounds = [int(b) for b in bounds]
        self.p = len(self.bounds) - 1
        self.lo, self.hi = self.bounds[rank], self.bounds[rank + 1]
        self.rank = rank
        self.chunk = max(b - a for a, b in zip(self.bounds, self.bounds[1:]))

        def make():
            # the block cut by rows into the shares of x; beyond two ranks the others'
            # rows also form one matrix over the gathered buffer's padded layout: one
            # product instead of p - 1 (its entries are a copy)
            others = _padded_others(block, self.bounds, rank, self.chunk) if self.p > 2 \
                else None
            return _cut(block, self.bounds), others

        self.parts, self.others = _kept(block, ("columns", self.bounds, rank), make)

    def part(self, buf, i: int):
        return buf[i * self.chunk:i * self.chunk + self.bounds[i + 1] - self.bounds[i]]

    def own_product(self, share, semiring: str):
        """``parts[rank]' x_rank`` from the rank's own (padded) share."""
        return _partial(self.parts[self.rank], share[:self.hi - self.lo], semiring, True)

    def others_product(self, buf, semiring: str):
        """``sum_i parts[i]' x_i`` over the other ranks' shares of a gathered buffer
        (None when there are none)."""
        if self.others is not None:
            return _partial(self.others, buf, semiring, True)
        y = None
        for i in range(self.p):
            if i != self.rank:
                t = _partial(self.parts[i], self.part(buf, i), semiring, True)
                y = t if y is None else y + t
        return y


def pagerank_rank(block, rank: int, p: int, uid, r0: int, r1: int, c0: int, c1: int,
                   n: int, alpha: float, limit: float, max_iter: int, pattern: bool,
                   bounds=None):
    """One rank of tier-2 PageRank; returns its share of the ranks and the timings.
    ``bounds``: the grid's column bounds on a column grid, its row bounds on a row grid."""
    from ..config import config

    comm = _Comm(p, uid, rank)
    # the semirings of the out-degree count and of the products (a pattern's values are
    # not read)
    sems = ("plus_pair", "plus_second") if pattern else ("plus_times", "plus_times")
    # the products to come, told to the planner: a format that pays within them is built
    with config(expected_uses=max_iter):
        if _column_grid(bounds, rank, r0, r1, c0, n):
            return _pagerank_gather(block, comm, _Shares(block, bounds, rank), n, alpha,
                                    limit, max_iter, sems)
        if _row_grid(bounds, rank, r0, c0, c1, n):
            return _pagerank_rows(block, comm, [int(b) for b in bounds], n, alpha, limit,
                                  max_iter, sems)
        return _pagerank_scatter(block, comm, r0, r1, c0, c1, n, alpha, limit, max_iter,
                                 sems)


def _start(comm, d, alpha: float, n: int):
    """PageRank's first state on a rank's share, from its out-degrees ``d``: the weights
    ``w = alpha / d`` (0 where dangling), the ranks ``1 / n``, and the dangling mass
    summed over the ranks: ``(w, r, scal, m)`` (``scal`` the buffer of the scalars)."""
    import cupy

    w = cupy.where(d != 0, alpha / cupy.where(d != 0, d, 1.0), 0.0)
    r = cupy.full(d.size, 1.0 / n)
    scal = cupy.zeros(2, dtype=cupy.float64)
    scal[1] = r[w == 0].sum()
    comm.all_reduce(scal)
    return w, r, scal, float(scal[1])


def _update(comm, y, r, w, scal, alpha: float, m: float, n: int):
    """PageRank's update on a rank's share from its product ``y = A' s``:
    ``r' = y + (alpha m + 1 - alpha) / n``, with the L1 change and the next dangling mass
    summed over the ranks (one small all-reduce): ``(r', err, m')``."""
    import cupy

    rn = y + (alpha * m + 1.0 - alpha) / n
    scal[0] = cupy.abs(rn - r).sum()
    scal[1] = rn[w == 0].sum()
    comm.all_reduce(scal)
    return rn, float(scal[0]), float(scal[1])


def _pagerank_gather(block, comm, sh: _Shares, n: int, alpha: float, limit: float,
                     max_iter: int, sems: tuple):
    """Column-grid PageRank: ``y`` over the own share, one all-gather per iteration."""
    import cupy

    lo, hi = sh.lo, sh.hi
    count, mul = sems
    # out-degrees: the block's row sums over its columns, summed over all ranks
    deg = _partial(block, cupy.ones(hi - lo, dtype=cupy.float64), count, False)
    comm.all_reduce(deg)
    w, r, scal, m = _start(comm, deg[lo:hi], alpha, n)
    s_full = cupy.zeros(sh.p * sh.chunk, dtype=cupy.float64)
    s_share = cupy.zeros(sh.chunk, dtype=cupy.float64)
    s_share[:hi - lo] = r * w
    pending = comm.start_all_gather(s_share, s_full)
    steps = _Steps(comm)
    err, it = float("inf"), 0
    for k in range(1, max_iter + 1):
        it = k
        with steps.step():
            # y = A[:, C]' s: the own share's rows while the others' shares arrive
            y = sh.own_product(s_share, mul)
            comm.finish(pending)
            rest = sh.others_product(s_full, mul)
            if rest is not None:
                y += rest
            r, err, m = _update(comm, y, r, w, scal, alpha, m, n)
            s_share[:hi - lo] = r * w
            if err >= limit and k < max_iter:
                pending = comm.start_all_gather(s_share, s_full)
        if err < limit:
            break
    return {"lo": lo, "ranks": cupy.asnumpy(r), "iterations": it, "err": err,
            "compute_s": steps.compute, "exchange_s": steps.exchange, "bytes": comm.bytes,
            "overlapped_s": comm.overlapped_s}


#: Pieces each share of a row grid's partial product is cut into.  The reduce of the last
#: piece overlaps no product, so smaller pieces shorten that tail, but each piece costs a
#: product call and a reduce, which cost more (``benchmarks/results/distributed_gpu.md``).
ROW_SPLIT = 1


def _row_pieces(block, bounds: list, split: int | None = None) -> list:
    """A row grid's block ``A[R_i, :]`` as pieces of ``A[R_i, R_j]'`` (rows of its
    transpose cut at the shares, each share in ``split`` parts), kept with the block:
    ``(root j, offset in rank j's share, piece)``."""
    split = ROW_SPLIT if split is None else split

    def make():
        out = []
        for j, (a, b) in enumerate(zip(bounds, bounds[1:])):
            cuts = [a + (b - a) * t // split for t in range(split + 1)]
            out += [(j, lo - a, P) for lo, P in zip(cuts, _cut(block.T, cuts)) if P.shape[0]]
        return out

    return _kept(block, ("rows", bounds, split), make)


def _reduce_pieces(comm, pieces: list, product, x, recv, op: str = "sum") -> None:
    """``recv`` of rank ``j`` = the sum (or max) over the ranks of the products of its
    pieces, ``product(piece, x)``: each piece is reduced to its rank on the side stream
    while the next one is computed; returns once every reduce is done."""
    pending = []
    for root, at, piece in pieces:
        part = product(piece, x)
        pending.append((part, comm.start_reduce(part, recv[at:at + part.size], root, op)))
    for _, started in pending:  # the parts kept alive until their reduce is done
        comm.finish(started)


def _pagerank_rows(block, comm, bounds: list, n: int, alpha: float, limit: float,
                   max_iter: int, sems: tuple):
    """Row-grid PageRank: ``y`` over the own share arrives by reduces that overlap the
    products; the next product needs nothing else."""
    import cupy

    lo, hi = bounds[comm.rank], bounds[comm.rank + 1]
    pieces = _row_pieces(block, bounds)
    count, mul = sems
    # out-degrees of the own vertices: the block's row sums (it holds all their columns)
    d = _partial(block, cupy.ones(n, dtype=cupy.float64), count, False)
    w, r, scal, m = _start(comm, d, alpha, n)
    s = r * w
    y = cupy.zeros(hi - lo, dtype=cupy.float64)
    steps = _Steps(comm)
    err, it = float("inf"), 0
    for k in range(1, max_iter + 1):
        it = k
        with steps.step():
            # y_j = sum_i A[R_i, R_j]' s_i, reduced to rank j
            _reduce_pieces(comm, pieces, lambda P, x: _partial(P, x, mul, False), s, y)
            r, err, m = _update(comm, y, r, w, scal, alpha, m, n)
            s = r * w
        if err < limit:
            break
    return {"lo": lo, "ranks": cupy.asnumpy(r), "iterations": it, "err": err,
            "compute_s": steps.compute, "exchange_s": steps.exchange, "bytes": comm.bytes,
            "overlapped_s": comm.overlapped_s}


def _pagerank_scatter(block, comm, r0: int, r1: int, c0: int, c1: int, n: int,
                      alpha: float, limit: float, max_iter: int, sems: tuple):
    """PageRank on any grid: partials reduce-scattered, shares all-gathered."""
    import cupy

    rank, p = comm.rank, comm.p
    chunk = -(-n // p)
    npad = chunk * p
    lo, hi = rank * chunk, min((rank + 1) * chunk, n)
    count, mul = sems
    # out-degrees: the block's row sums into a full buffer, summed over all ranks
    ones = cupy.ones(c1 - c0, dtype=cupy.float64)
    deg = cupy.zeros(npad, dtype=cupy.float64)
    deg[r0:r1] = _partial(block, ones, count, False)
    comm.all_reduce(deg)
    w, r, scal, m = _start(comm, deg[lo:hi], alpha, n)
    s_full = cupy.zeros(npad, dtype=cupy.float64)
    s_share = cupy.zeros(chunk, dtype=cupy.float64)
    s_share[:hi - lo] = r * w
    comm.all_gather(s_share, s_full)
    ybuf = cupy.zeros(npad, dtype=cupy.float64)
    yshare = cupy.zeros(chunk, dtype=cupy.float64)
    steps = _Steps(comm)
    err = float("inf")
    it = 0
    for k in range(1, max_iter + 1):
        it = k
        with steps.step():
            ybuf.fill(0.0)
            ybuf[c0:c1] = _partial(block, s_full[r0:r1], mul, True)
            comm.reduce_scatter(ybuf, yshare)
            r, err, m = _update(comm, yshare[:hi - lo], r, w, scal, alpha, m, n)
            s_share[:hi - lo] = r * w
            comm.all_gather(s_share, s_full)
        if err < limit:
            break
    return {"lo": lo, "ranks": cupy.asnumpy(r), "iterations": it, "err": err,
            "compute_s": steps.compute, "exchange_s": steps.exchange, "bytes": comm.bytes}


def bfs_rank(block, rank: int, p: int, uid, r0: int, r1: int, c0: int, c1: int, n: int,
              source: int, keep: bool = False, bounds=None):
    """One rank of tier-2 BFS (levels; the frontier as a byte map).  ``keep``: a column
    or row grid's rank keeps its share of the levels as a gblas Vector on its device
    (``"vector"``) instead of sending them to the client (``"levels"``)."""
    comm = _Comm(p, uid, rank)
    if _column_grid(bounds, rank, r0, r1, c0, n):
        return _bfs_gather(comm, _Shares(block, bounds, rank), source, keep)
    if _row_grid(bounds, rank, r0, c0, c1, n):
        return _bfs_rows(block, comm, [int(b) for b in bounds], source, keep)
    return _bfs_reduce(block, comm, r0, r1, c0, c1, n, source)


def _bfs_gather(comm, sh: _Shares, source: int, keep: bool = False):
    """Column-grid BFS: the next frontier over the own share, gathered as bytes."""
    import cupy

    lo, hi = sh.lo, sh.hi
    levels = cupy.full(hi - lo, -1, dtype=cupy.int64)
    q = cupy.zeros(sh.p * sh.chunk, dtype=cupy.uint8)
    i = next(k for k in range(sh.p) if sh.bounds[k] <= source < sh.bounds[k + 1])
    q[i * sh.chunk + source - sh.bounds[i]] = 1
    if lo <= source < hi:
        levels[source - lo] = 0
    share = cupy.zeros(sh.chunk, dtype=cupy.uint8)
    steps = _Steps(comm)
    depth = 0
    while True:
        depth += 1
        with steps.step():
            reached = None
            for k in range(sh.p):
                part = _reached(sh.parts[k], sh.part(q, k))
                reached = part if reached is None else reached | part
            nxt = reached & (levels < 0)
            levels[nxt] = depth
            share[:hi - lo] = nxt.astype(cupy.uint8)
            comm.all_gather(share, q)
            count = int(q.sum())
        if count == 0:
            break
    return _bfs_share(levels, lo, depth, steps, keep, sh.parts[sh.rank].device)


def _bfs_share(levels, lo: int, depth: int, steps, keep: bool, device: str) -> dict:
    """A rank's share of the levels: kept as a gblas Vector on its device
    (``"vector"``), or sent to the client (``"levels"``)."""
    comm = steps.comm
    out = {"lo": lo, "depth": depth - 1, "compute_s": steps.compute,
           "exchange_s": steps.exchange, "bytes": comm.bytes}
    if keep:
        from ..backends.registry import VecData
        from ..core.vector import Vector

        out["vector"] = Vector(VecData(levels.size, None, levels, levels >= 0),
                               np.dtype(np.int64), device)
    else:
        out["levels"] = _wire_levels(levels, depth)
    return out


def _bfs_rows(block, comm, bounds: list, source: int, keep: bool = False):
    """Row-grid BFS: the next frontier over the own share arrives by max-reduces of
    bytes that overlap the products; the next product needs nothing else."""
    import cupy

    lo, hi = bounds[comm.rank], bounds[comm.rank + 1]
    pieces = _row_pieces(block, bounds)
    levels = cupy.full(hi - lo, -1, dtype=cupy.int64)
    q = cupy.zeros(hi - lo, dtype=cupy.uint8)
    if lo <= source < hi:
        levels[source - lo] = 0
        q[source - lo] = 1
    got = cupy.zeros(hi - lo, dtype=cupy.uint8)
    count = cupy.zeros(1, dtype=cupy.int64)
    steps = _Steps(comm)
    depth = 0
    while True:
        depth += 1
        with steps.step():
            # reached_j = max_i (A[R_i, R_j]' lor.second q_i), reduced to rank j
            _reduce_pieces(comm, pieces, lambda P, x: _reached(P, x, False).view(cupy.uint8),
                           q, got, "max")
            nxt = got.view(bool) & (levels < 0)
            levels[nxt] = depth
            q = nxt.view(cupy.uint8)
            count[0] = nxt.sum()
            comm.all_reduce(count)
            found = int(count[0])
        if found == 0:
            break
    return _bfs_share(levels, lo, depth, steps, keep, block.device)


def _wire_levels(levels, depth: int):
    """The levels on the host in the narrowest signed type that holds ``depth``: they
    travel through Dask to the client, which at Kronecker 26 (64M vertices) took about
    0.45 s of a 0.5 s call as int32 (int8: a quarter of the bytes)."""
    import cupy

    dt = next(t for t in (np.int8, np.int16, np.int32, np.int64) if depth <= np.iinfo(t).max)
    return cupy.asnumpy(levels.astype(dt))


def _bfs_reduce(block, comm, r0: int, r1: int, c0: int, c1: int, n: int, source: int):
    """BFS on any grid: the whole next frontier max-reduced over the ranks."""
    import cupy

    levels = cupy.full(n, -1, dtype=cupy.int64)
    levels[source] = 0
    q = cupy.zeros(n, dtype=cupy.uint8)
    q[source] = 1
    nxt = cupy.zeros(n, dtype=cupy.uint8)
    steps = _Steps(comm)
    depth = 0
    while True:
        depth += 1
        with steps.step():
            nxt.fill(0)
            nxt[c0:c1] = _reached(block, q[r0:r1]).view(cupy.uint8)
            comm.all_reduce(nxt, op="max")
            nxt &= (levels < 0).astype(cupy.uint8)
            count = int(nxt.sum())
            if count:
                levels[nxt.astype(bool)] = depth
            q, nxt = nxt, q
        if count == 0:
            break
    lv = _wire_levels(levels, depth) if comm.rank == 0 else None
    return {"levels": lv, "depth": depth - 1, "compute_s": steps.compute,
            "exchange_s": steps.exchange, "bytes": comm.bytes}
