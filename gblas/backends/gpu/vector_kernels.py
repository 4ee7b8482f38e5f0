"""Fused dense-vector steps of iterative algorithms (CuPy, GPU).

``("pagerank_step", "array", "gpu")`` has the contract of the CPU module of the same name
(:mod:`gblas.backends.cpu.vector_kernels`): after the product ``y = A' s``, one kernel
reads ``y`` (and its present flags), ``r``, ``w`` (and ``p`` unless uniform), writes
``r' = y + (alpha m + 1 - alpha) p`` and ``s' = r' .* w``, and folds ``|r' - r|_1`` and
the dangling rank ``m' = sum(r' where w == 0)`` into ``state_out = [err, m']`` on the
device.  ``m`` is read from ``state_in`` on the device, so an iteration needs no value
from the host; the caller reads ``state_out[0]`` once per iteration (its one
synchronization).

The two sums are folded per thread, per warp (shuffles) and per block, each block
stores its pair, and the last block to finish (an atomic ticket) adds the blocks' pairs
in block order and resets the ticket: one launch, and the same sums on every run.
"""

from __future__ import annotations

import numpy as np

from ..registry import register
from . import _cuda

__all__ = ["pagerank_step", "read_async"]

_BLOCK = 256
#: Blocks per multiprocessor of the step (a grid-stride loop covers the rest).
_BLOCKS_PER_SM = 8

_SOURCE = r"""
__device__ __forceinline__ double gb_warp_sum(double v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

/* Sums a and b over the block; thread 0 gets the totals. */
__device__ __forceinline__ void gb_block_sum2(double& a, double& b) {
    __shared__ double sa[32], sb[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    a = gb_warp_sum(a);
    b = gb_warp_sum(b);
    if (lane == 0) { sa[warp] = a; sb[warp] = b; }
    __syncthreads();
    int nw = (blockDim.x + 31) >> 5;
    a = (threadIdx.x < nw) ? sa[threadIdx.x] : 0.0;
    b = (threadIdx.x < nw) ? sb[threadIdx.x] : 0.0;
    if (warp == 0) { a = gb_warp_sum(a); b = gb_warp_sum(b); }
    __syncthreads();
}

extern "C" __global__ void gb_pagerank_step(
        const double* __restrict__ y, const bool* __restrict__ ypres, int has_ypres,
        const double* __restrict__ p, int has_p, double p_uniform,
        const double* __restrict__ r, const double* __restrict__ w, double alpha,
        long long n, const double* __restrict__ state_in,
        double* __restrict__ r_new, double* __restrict__ s_new,
        double* __restrict__ state_out, double* partials, unsigned int* ticket) {
    const double c = alpha * state_in[1] + (1.0 - alpha);
    double err = 0.0, dang = 0.0;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        double yi = (has_ypres && !ypres[i]) ? 0.0 : y[i];
        double rn = yi + c * (has_p ? p[i] : p_uniform);
        double wi = w[i];
        r_new[i] = rn;
        s_new[i] = rn * wi;
        err += fabs(rn - r[i]);
        if (wi == 0.0) dang += rn;
    }
    gb_block_sum2(err, dang);
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = err;
        partials[gridDim.x + blockIdx.x] = dang;
        __threadfence();
        last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    double a = 0.0, b = 0.0;
    for (unsigned int k = threadIdx.x; k < gridDim.x; k += blockDim.x) {
        a += ((volatile double*)partials)[k];
        b += ((volatile double*)partials)[gridDim.x + k];
    }
    gb_block_sum2(a, b);
    if (threadIdx.x == 0) {
        state_out[0] = a;
        state_out[1] = b;
        *ticket = 0u;
    }
}
"""

_WORK: dict = {}


def _workspace(nblocks: int):
    """The blocks' partial sums and the ticket (zero between launches: the last block
    resets it), kept per device, stream and grid size."""
    import cupy as cp

    key = (cp.cuda.Device().id, cp.cuda.get_current_stream().ptr, nblocks)
    ws = _WORK.get(key)
    if ws is None:
        ws = _WORK[key] = (cp.empty(2 * nblocks, dtype=np.float64),
                           cp.zeros(1, dtype=np.uint32))
    return ws


@register("pagerank_step", "array", "gpu")
def pagerank_step(y_values, y_present, p, p_uniform: float, r, w, alpha: float, state_in,
                  r_new, s_new, state_out=None):
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
        Written: the next ranks and ``r_new .* w``.
    state_out : cupy.ndarray, optional
        Written and returned: ``[err, m]`` of ``r_new``; a new array when None.

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
    nblocks = max(1, min(_cuda.blocks(n, _BLOCK), _cuda.sm_count() * _BLOCKS_PER_SM))
    partials, ticket = _workspace(nblocks)
    dummy_f = _cuda.dummy(np.float64)
    fn = _cuda.get_function(_SOURCE, "gb_pagerank_step")
    fn((nblocks,), (_BLOCK,),
       (y_values, _cuda.dummy() if y_present is None else y_present,
        np.int32(y_present is not None), dummy_f if p is None else p, np.int32(p is not None),
        np.float64(p_uniform), r, w, np.float64(alpha), np.int64(n), state_in, r_new, s_new,
        state_out, partials, ticket))
    return state_out


class _PendingRead:
    """An asynchronous copy of a small device array into pinned host memory."""

    __slots__ = ("_host", "_mem", "_event")

    def __init__(self, arr) -> None:
        import cupy as cp

        nbytes = arr.nbytes
        self._mem = cp.cuda.alloc_pinned_memory(nbytes)
        self._host = np.frombuffer(self._mem, arr.dtype, arr.size)
        stream = cp.cuda.get_current_stream()
        cp.cuda.runtime.memcpyAsync(self._host.ctypes.data, arr.data.ptr, nbytes,
                                    cp.cuda.runtime.memcpyDeviceToHost, stream.ptr)
        self._event = cp.cuda.Event(block=False, disable_timing=True)
        self._event.record(stream)

    def result(self) -> np.ndarray:
        """The values, once the copy (and the work queued before it) is done."""
        self._event.synchronize()
        return self._host


@register("read_async", "array", "gpu")
def read_async(arr) -> _PendingRead:
    """Start copying a small device array to the host; ``.result()`` waits for it.

    The copy is queued on the current stream behind the work that computes ``arr``, so
    the host can queue more work before it waits (an iteration can be launched while the
    previous one's convergence scalar is on its way).
    """
    return _PendingRead(arr)
