"""Fused dense-vector steps of iterative algorithms (CuPy, GPU).

``("pagerank_step", "array", "gpu")`` has the contract of the CPU module of the same name
(:mod:`gblas.backends.cpu.vector_kernels`): after the product ``y = A' s``, one kernel
reads ``y`` (and its present flags), ``r``, ``w`` (and ``p`` unless uniform), writes
``r' = y + (alpha m + 1 - alpha) p`` and ``s' = r' .* w``, and folds ``|r' - r|_1`` and
the dangling rank ``m' = sum(r' where w == 0)`` into ``state_out = [err, m']`` on the
device.  ``m`` is read from ``state_in`` on the device, so an iteration needs no value
from the host; the caller reads ``state_out[0]`` once per iteration (its one
synchronization).

``("pagerank_start", "array", "gpu")``: the iteration's first vectors (``w``, ``s``,
``r``) and state from the out-degrees, in one launch and without reading the dangling
count back (the CPU module's contract).

``("power_step", "array", "gpu")``: the vector work of one power iteration (eigenvector,
Katz, HITS) with the CPU module's contract, in two launches (the norm is needed before
the division) and no synchronization.

The sums are folded per thread, per warp (shuffles) and per block, each block stores
its pair, and the last block to finish (an atomic ticket) adds the blocks' pairs in block
order and resets the ticket (``gb_grid_sum2``): the same sums on every run.
"""

from __future__ import annotations

import functools

import numpy as np

from ..registry import register
from ..vector_checks import check_lengths
from . import codegen
from .launch import blocks, dummy, sm_count

__all__ = ["grid_sum_workspace", "pagerank_source", "pagerank_start", "pagerank_step",
           "power_source", "power_step", "read_async"]

_BLOCK = 256
#: Blocks per multiprocessor of the step (a grid-stride loop covers the rest).
_BLOCKS_PER_SM = 8

def pagerank_source() -> str:
    """CUDA source of ``gb_pagerank_step`` (``cuda/pagerank.cu``)."""
    return codegen.source("pagerank.cu")


@functools.cache
def power_source() -> str:
    """CUDA source of ``gb_power_combine`` and ``gb_power_update`` (``cuda/power.cu``)."""
    return codegen.source("power.cu")


@functools.lru_cache(maxsize=8)
def pagerank_start_source(ip) -> str:
    """CUDA source of ``gb_pagerank_start`` for row pointers of dtype ``ip``."""
    return codegen.source("pagerank_start.cu", names=dict(ip_t=ip))


_WORK: dict = {}


def grid_sum_workspace(nblocks: int):
    """The blocks' partial sums, the ticket (zero between launches: the last block
    resets it) and two doubles of scratch sums of a kernel ending in ``gb_grid_sum2``,
    kept per device, stream and grid size."""
    import cupy as cp

    key = (cp.cuda.Device().id, cp.cuda.get_current_stream().ptr, nblocks)
    ws = _WORK.get(key)
    if ws is None:
        ws = _WORK[key] = (cp.empty(2 * nblocks, dtype=np.float64),
                           cp.zeros(1, dtype=np.uint32), cp.empty(2, dtype=np.float64))
    return ws


def _grid(n: int) -> int:
    """Blocks of a grid-stride step over ``n`` entries."""
    return max(1, min(blocks(n, _BLOCK), sm_count() * _BLOCKS_PER_SM))


@register("pagerank_step", "array", "gpu")
def pagerank_step(y_values, y_present, p, p_uniform: float, r, w, alpha: float, state_in,
                  r_new, s_new, state_out=None, s_pos=None):
    """One fused PageRank vector step on the GPU (one kernel launch, no synchronization).

    Parameters
    ----------
    y_values, y_present : cupy.ndarray
        The product ``A' s`` (float64) and its present flags (None: every entry).
    p : cupy.ndarray or None
        The teleport distribution; None: uniform, every entry ``p_uniform``.
    p_uniform : float
        The uniform teleport weight (``1 / n``), used when ``p`` is None.
    r, w : cupy.ndarray
        The current ranks and ``alpha / outdegree`` (0 at dangling vertices), float64.
    alpha : float
        The damping factor.
    state_in : cupy.ndarray
        ``[err, m]`` of the current ranks (only ``m`` is read, on the device).
    r_new, s_new : cupy.ndarray
        Written: the next ranks and ``r_new .* w`` (``s_new[s_pos[i]]`` with ``s_pos``).
    state_out : cupy.ndarray, optional
        Written and returned: ``[err, m]`` of ``r_new``; a new array when None.
    s_pos : cupy.ndarray of int32, optional
        Where each ``s`` value goes in ``s_new`` (-1: nowhere), the positions of an
        :class:`~gblas.formats.base.OperandLayout`.

    Returns
    -------
    cupy.ndarray
        ``state_out`` (still being computed: reading it synchronizes).

    Examples
    --------
    >>> import cupy as cp  # doctest: +SKIP
    >>> w = cp.array([0.85, 0.0]); r = cp.array([0.5, 0.5])  # doctest: +SKIP
    >>> rn, sn = cp.empty(2), cp.empty(2)  # doctest: +SKIP
    >>> st = pagerank_step(cp.array([0.0, 0.425]), None, None, 0.5, r, w, 0.85,
    ...                    cp.array([0.0, 0.5]), rn, sn)  # doctest: +SKIP
    >>> cp.round(rn, 4).tolist(), cp.round(st, 4).tolist()  # doctest: +SKIP
    ([0.2875, 0.7125], [0.425, 0.7125])
    """
    import cupy as cp

    n = int(r.shape[0])
    if state_out is None:
        state_out = cp.empty(2, dtype=np.float64)
    nblocks = _grid(n)
    partials, ticket, _ = grid_sum_workspace(nblocks)
    dummy_f = dummy(np.float64)
    fn = codegen.get_function(pagerank_source(), "gb_pagerank_step")
    fn((nblocks,), (_BLOCK,),
       (y_values, dummy() if y_present is None else y_present,
        np.int32(y_present is not None), dummy_f if p is None else p, np.int32(p is not None),
        np.float64(p_uniform), r, w, np.float64(alpha), np.int64(n), state_in, r_new, s_new,
        state_out, partials, ticket, dummy(np.int32) if s_pos is None else s_pos,
        np.int32(s_pos is not None)))
    return state_out


@register("pagerank_start", "array", "gpu")
def pagerank_start(degrees, present, from_indptr: bool, scale: float, alpha: float):
    """PageRank's first vectors on the GPU in one launch, with no synchronization.

    Parameters and returns as :func:`gblas.backends.cpu.vector_kernels.pagerank_start`
    (CuPy arrays in and out).

    Examples
    --------
    >>> import cupy as cp  # doctest: +SKIP
    >>> w, s, r, st = pagerank_start(cp.array([0, 2, 2]), None, True, 1.0,
    ...                              0.85)  # doctest: +SKIP
    >>> w.tolist(), st.tolist()  # doctest: +SKIP
    ([0.425, 0.0], [0.0, 0.5])
    """
    import cupy as cp

    n = int(degrees.shape[0]) - 1 if from_indptr else int(degrees.shape[0])
    w, s, r = cp.empty(n), cp.empty(n), cp.empty(n)
    state = cp.zeros(2, dtype=np.float64)
    if n == 0:
        return w, s, r, state
    nblocks = _grid(n)
    partials, ticket, _ = grid_sum_workspace(nblocks)
    ip = degrees.dtype if from_indptr else np.dtype(np.int64)
    fn = codegen.get_function(pagerank_start_source(ip), "gb_pagerank_start")
    fn((nblocks,), (_BLOCK,),
       (degrees if from_indptr else dummy(np.int64),
        dummy(np.float64) if from_indptr else cp.ascontiguousarray(degrees, dtype=np.float64),
        dummy() if present is None else present, np.int32(bool(from_indptr)),
        np.int32(present is not None), np.float64(scale), np.float64(alpha), np.int64(n),
        w, s, r, state, partials, ticket))
    return w, s, r, state


@register("power_step", "array", "gpu")
def power_step(y_values, y_present, x, b, scale: float, add_x: bool, normalize: bool,
               z, out, state_out=None):
    """The vector work of one power iteration on the GPU, the next scores written to
    ``out`` (which may be ``x``) in two launches, with no synchronization::

        z = [x +] scale * y [+ b];   out = x' = z / |z|_2 (normalize) or z;
        state_out = [|x' - x|_1, |z|_2^2]

    Parameters are those of the CPU kernel (:func:`gblas.backends.cpu.vector_kernels.
    power_step`), as CuPy arrays.

    Returns
    -------
    cupy.ndarray
        ``state_out`` (still being computed: reading it synchronizes).

    Examples
    --------
    >>> import cupy as cp  # doctest: +SKIP
    >>> x = cp.array([0.6, 0.8])  # doctest: +SKIP
    >>> st = power_step(cp.array([3.0, 4.0]), None, x, None, 1.0, False, True,
    ...                 cp.empty(2), x)  # doctest: +SKIP
    >>> x.tolist(), cp.round(st, 12).tolist()  # doctest: +SKIP
    ([0.6, 0.8], [0.0, 25.0])
    """
    import cupy as cp

    check_lengths("power_step", x.shape[0], state_out, y_values=y_values,
                  y_present=y_present, b=b, z=z, out=out)
    n = int(x.shape[0])
    if state_out is None:
        state_out = cp.empty(2, dtype=np.float64)
    nblocks = _grid(n)
    partials, ticket, sums = grid_sum_workspace(nblocks)
    src = power_source()
    codegen.get_function(src, "gb_power_combine")(
        (nblocks,), (_BLOCK,),
        (y_values, dummy() if y_present is None else y_present, np.int32(y_present is not None),
         x, np.int32(bool(add_x)), np.float64(scale), dummy(np.float64) if b is None else b,
         np.int32(b is not None), np.int64(n), z, sums, partials, ticket))
    codegen.get_function(src, "gb_power_update")(
        (nblocks,), (_BLOCK,),
        (z, x, out, np.int32(bool(normalize)), np.int64(n), sums, state_out, partials,
         ticket))
    return state_out


_SIDE: dict = {}


def _side_stream():
    """A non-blocking stream per device for the copies of :class:`_PendingRead`."""
    import cupy as cp

    dev = cp.cuda.Device().id
    got = _SIDE.get(dev)
    if got is None:
        got = _SIDE[dev] = cp.cuda.Stream(non_blocking=True)
    return got


class _PendingRead:
    """An asynchronous copy of a small device array into pinned host memory, on a side
    stream: the work queued after it on the current stream does not wait for the copy
    (on an H200 a 16-byte copy held the next kernel back by about 10 us)."""

    __slots__ = ("_host", "_mem", "_event")

    def __init__(self, arr) -> None:
        import cupy as cp

        nbytes = arr.nbytes
        self._mem = cp.cuda.alloc_pinned_memory(nbytes)
        self._host = np.frombuffer(self._mem, arr.dtype, arr.size)
        stream = cp.cuda.get_current_stream()
        ready = cp.cuda.Event(block=False, disable_timing=True)
        ready.record(stream)
        side = _side_stream()
        side.wait_event(ready)
        cp.cuda.runtime.memcpyAsync(self._host.ctypes.data, arr.data.ptr, nbytes,
                                    cp.cuda.runtime.memcpyDeviceToHost, side.ptr)
        self._event = cp.cuda.Event(block=False, disable_timing=True)
        self._event.record(side)

    def result(self) -> np.ndarray:
        """The values, once the copy (and the work queued before it) is done."""
        self._event.synchronize()
        return self._host


@register("read_async", "array", "gpu")
def read_async(arr) -> _PendingRead:
    """Start copying a small device array to the host; ``.result()`` waits for it.

    The copy waits for the work queued so far on the current stream (which computes
    ``arr``) and runs on a side stream, so the host can queue more work before it waits
    and that work does not wait for the copy (an iteration can run while the previous
    one's convergence scalar is on its way).  ``arr`` must not be written again before
    ``.result()`` returns (the power loops double-buffer it).
    """
    return _PendingRead(arr)
