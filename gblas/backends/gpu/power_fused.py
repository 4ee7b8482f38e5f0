"""``("eigenvector", "csr", "gpu", "fused")`` and ``("hits", "csr", "gpu", "fused")``:
eigenvector centrality's and HITS's power iterations in one kernel launch
(``cuda/power_fused.cu``), and ``("gram", "csr", "gpu", "fused")``, one product of
``A' A`` for HITS's Lanczos continuation, for graphs whose products leave the device
idle between launches, as PageRank's (:mod:`.pagerank_loop`): a loop of planned
products and fused steps costs ~0.1-0.2 ms of host time an iteration against a few
microseconds of device work at 10^5-10^6 entries.

Each call runs iterations ``first + 1 .. last`` in place on the scores (fewer when the
L1 change falls below ``limit``, or when the rate of the changes calls for Lanczos
cycles: HITS's switch, checked in the kernel), with the arithmetic of the loop (the
products' sums, then ``cuda/power.cu``'s step); the sums are folded over the grid in
block order (the same on every run).
"""

from __future__ import annotations

import functools
from typing import Any

import cupy as cp
import numpy as np

from ..registry import register
from ..vector_checks import check_lengths
from . import codegen
from .launch import MAX_BLOCKS_PER_SM, dummy
from .pagerank_loop import fused_grid, fused_schedule

__all__ = ["eigenvector_fused", "gram_fused", "hits_fused", "power_fused_source"]

_BLOCK = 256
#: Entries of a long row summed by one warp (as PageRank's one-launch kernel).
_CHUNK = 256


@functools.lru_cache(maxsize=64)
def power_fused_source(ip: Any, ix: Any, group: int, smax: int) -> str:
    """CUDA source of ``gb_eigen_fused``, ``gb_hits_fused`` and ``gb_gram_fused`` for index
    dtypes ``ip``, ``ix``, ``group`` lanes per short row and rows of more than ``smax``
    entries cut into chunks."""
    return codegen.source("power_fused.cu", names=dict(ip_t=ip, ix_t=ix),
                          flags=dict(GB_G=int(group), GB_SMAX=int(smax), GB_CHUNK=_CHUNK,
                                     GB_MINB=MAX_BLOCKS_PER_SM))


def _operands(csr: tuple, n: int) -> tuple:
    """The kernel's arguments for one CSR ``(indptr, indices, values or None, iso)``: the
    arrays, the value flag and iso value, and its long rows' schedule
    (:class:`~gblas.backends.gpu.pagerank_loop.FusedSchedule`)."""
    indptr, indices, values, iso = csr
    sched = fused_schedule(indptr, n, int(indices.size))
    vals = dummy(np.float64) if values is None else \
        cp.ascontiguousarray(values, dtype=np.float64)
    return (indptr, indices, vals, np.int32(values is not None), np.float64(iso)), sched


def _grid(name: str, csrs: list, n: int) -> tuple:
    """Kernel ``name`` for these CSRs, its grid (every block resident: they wait for each
    other), the CSRs' arguments (``A'`` then ``A`` when two: arrays and flags, then the
    schedule of long rows, whose launch is queued first where none has been) and a chunk
    buffer."""
    ops = [_operands(c, n) for c in csrs]
    first = ops[0][1]
    ip, ix = csrs[0][0].dtype, csrs[0][1].dtype
    fn = codegen.get_function(power_fused_source(ip, ix, first.group, first.smax), name)
    nblocks = fused_grid(fn, n, first.group, max(int(c[1].size) for c in csrs))
    args = tuple(a for arrays, sched in ops for a in arrays + sched.args())
    return fn, nblocks, args, cp.empty(max(s.max_chunks for _, s in ops))


def _launch(name: str, csrs: list, n: int, scores: tuple, limit: float, first: int,
            last: int, errs, check_after: int, predicted: float) -> tuple[int, float, bool]:
    fn, nblocks, args, part = _grid(name, csrs, n)
    z, partials, result = cp.empty(n), cp.empty(4 * nblocks), cp.empty(3)
    barrier = cp.zeros(2, dtype=np.uint32)
    tail = (np.float64(limit), np.int32(first), np.int32(last), np.int32(check_after),
            np.float64(predicted))
    work_args = (z, part, partials, barrier, errs, result)
    fn((nblocks,), (_BLOCK,), args + (np.int64(n),) + tail + scores + work_args)
    it, err, slow = (float(v) for v in result.get())
    return int(it), err, bool(slow)


def _check(call: str, n: int, csrs: dict, errs, last: int, **scores) -> None:
    """Refuse scores of another length or kind, CSRs of another number of rows, and too
    short an ``errs``: the kernel indexes them without bounds checks."""
    check_lengths(call, n, **scores)
    check_lengths(call, n + 1, **{f"{name}[0] (indptr)": c[0] for name, c in csrs.items()})
    for arg, a in scores.items():
        if a.dtype != np.float64 or not a.flags.c_contiguous:
            raise ValueError(f"{call}: argument `{arg}` expected a contiguous float64 "
                             f"array, got {a.dtype}")
    if errs is not None and errs.shape[0] < last:
        raise ValueError(f"{call}: argument `errs` expected at least {last} entries (one "
                         f"per iteration), got {errs.shape[0]}")


def _same_index_dtypes(call: str, csr_t: tuple, csr: tuple) -> None:
    """Refuse CSRs of ``A'`` and ``A`` with other index dtypes (one kernel reads both)."""
    if (csr_t[0].dtype, csr_t[1].dtype) != (csr[0].dtype, csr[1].dtype):
        raise ValueError(f"{call}: the CSRs of A' and A must share their index dtypes; "
                         f"got {csr_t[0].dtype}/{csr_t[1].dtype} and "
                         f"{csr[0].dtype}/{csr[1].dtype}")


@register("eigenvector", "csr", "gpu", "fused")
def eigenvector_fused(csr_t: tuple, x, limit: float, first: int, last: int, errs,
                      check_after: int = 0, predicted: float = 0.0) -> tuple[int, float, bool]:
    """Eigenvector centrality's iterations ``first + 1 .. last`` on the GPU in one launch:
    ``x = (x + A' x) / |x + A' x|_2`` in place until ``|x' - x|_1 < limit``.

    Parameters
    ----------
    csr_t : tuple
        ``(indptr, indices, values or None, iso)``: the CSR of ``A'`` (CuPy arrays; an
        absent ``values`` weighs every entry ``iso``).
    x : cupy.ndarray
        The scores (float64, length n), rewritten.
    limit : float
        Stop after the iteration whose L1 change is below it.
    first, last : int
        The iterations run are ``first + 1 .. last``.
    errs : cupy.ndarray
        float64, at least ``last`` long: ``errs[k - 1]`` receives iteration ``k``'s change.
    check_after, predicted : int, float
        From iteration ``check_after`` on (0: never), every tenth iteration stops when
        the last ten changes' mean rate predicts more than ``predicted`` iterations to
        ``limit`` (:func:`gblas.algorithms.centrality._slow`'s rule; the caller
        continues with Lanczos cycles).

    Returns
    -------
    (int, float, bool)
        The last iteration run, its change, and whether the rate stopped it.

    Examples
    --------
    >>> import cupy as cp  # doctest: +SKIP
    >>> ip, ix = cp.array([0, 1, 3, 4]), cp.array([1, 0, 2, 1])  # doctest: +SKIP
    >>> x, errs = cp.full(3, 1 / 3), cp.empty(200)  # doctest: +SKIP
    >>> eigenvector_fused((ip, ix, None, 1.0), x, 1e-12, 0, 200, errs)[1:]  # doctest: +SKIP
    (..., False)
    True
    >>> [round(float(v), 4) for v in x.get()]  # doctest: +SKIP
    [0.5, 0.7071, 0.5]
    """
    n = int(csr_t[0].shape[0]) - 1
    _check("eigenvector_fused", n, {"csr_t": csr_t}, errs, last, x=x)
    return _launch("gb_eigen_fused", [csr_t], n, (x,), limit, first, last, errs,
                   check_after, predicted)


@register("hits", "csr", "gpu", "fused")
def hits_fused(csr_t: tuple, csr: tuple, h, a, limit: float, first: int, last: int, errs,
               check_after: int = 0, predicted: float = 0.0) -> tuple[int, float, bool]:
    """HITS's iterations ``first + 1 .. last`` on the GPU in one launch, in place:
    ``a = A' h / |A' h|_2``, ``h = A a`` until ``|a' - a|_1 < limit``.

    ``csr_t`` and ``csr`` are the CSRs of ``A'`` and ``A`` (``(indptr, indices, values or
    None, iso)``, the same index dtypes); ``h`` and ``a`` the hub and authority scores;
    the rest as :func:`eigenvector_fused`.

    Examples
    --------
    >>> import cupy as cp  # doctest: +SKIP
    >>> A = (cp.array([0, 2, 3, 3]), cp.array([1, 2, 2]), None, 1.0)  # doctest: +SKIP
    >>> AT = (cp.array([0, 0, 1, 3]), cp.array([0, 0, 1]), None, 1.0)  # doctest: +SKIP
    >>> h, a, errs = cp.full(3, 1 / 3), cp.zeros(3), cp.empty(100)  # doctest: +SKIP
    >>> hits_fused(AT, A, h, a, 1e-12, 0, 100, errs)[2]  # doctest: +SKIP
    False
    >>> [round(float(v), 4) for v in (a / a.sum()).get()]  # doctest: +SKIP
    [0.0, 0.382, 0.618]
    """
    n = int(csr_t[0].shape[0]) - 1
    _check("hits_fused", n, {"csr_t": csr_t, "csr": csr}, errs, last, h=h, a=a)
    _same_index_dtypes("hits_fused", csr_t, csr)
    return _launch("gb_hits_fused", [csr_t, csr], n, (h, a), limit, first, last, errs,
                   check_after, predicted)


@register("gram", "csr", "gpu", "fused")
def gram_fused(csr_t: tuple, csr: tuple, v, out=None):
    """One product of ``A' A`` on the GPU in one launch: ``y = A' (A v)`` (HITS's operator:
    the hubs of ``v``, then the authorities of those hubs), no synchronization.

    ``csr_t`` and ``csr`` are the CSRs of ``A'`` and ``A`` as :func:`hits_fused` takes
    them; ``v`` the float64 scores; ``out`` (optional) receives ``y``.

    Examples
    --------
    >>> import cupy as cp  # doctest: +SKIP
    >>> A = (cp.array([0, 2, 3, 3]), cp.array([1, 2, 2]), None, 1.0)  # doctest: +SKIP
    >>> AT = (cp.array([0, 0, 1, 3]), cp.array([0, 0, 1]), None, 1.0)  # doctest: +SKIP
    >>> gram_fused(AT, A, cp.array([1.0, 2.0, 3.0])).tolist()  # doctest: +SKIP
    [0.0, 5.0, 8.0]
    """
    n = int(csr_t[0].shape[0]) - 1
    out = cp.empty(n) if out is None else out
    _check("gram_fused", n, {"csr_t": csr_t, "csr": csr}, None, 0, v=v, out=out)
    _same_index_dtypes("gram_fused", csr_t, csr)
    fn, nblocks, args, part = _grid("gb_gram_fused", [csr_t, csr], n)
    fn((nblocks,), (_BLOCK,), args + (np.int64(n), v, cp.empty(n), out, part,
                                      cp.zeros(2, dtype=np.uint32)))
    return out
