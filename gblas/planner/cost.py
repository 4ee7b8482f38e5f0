"""Statistics and the cost model the planner reads (it never runs kernels).

Thresholds come from the papers: push (SpMSpV) pays when the active edges are a small part
of all edges (Garaph's ``f = sum(deg(active)) / |E|``; Beamer's direction switch), pull
with a mask pays when few rows are allowed; a cache-aware format pays when the vertex
data exceeds the last-level cache (Cagra) or a row-granular split is unbalanced (Garaph,
MultiGraph), and when the matrix is used often enough to amortize its build.  Hardware
facts come from :mod:`.hardware`.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import numpy as np

from ..formats import FORMATS, pull_formats
from ..formats.costing import (  # noqa: F401  (the statistics the planner reads)
    NS_EDGE_CACHED,
    NS_EDGE_L2,
    NS_EDGE_MISS,
    NS_LOCAL_ROW,
    NS_ROW,
    X_CACHE_SHARE,
    Estimate,
    GpuPullContext,
    PullContext,
    expansion_factor,
    index_bytes,
    row_imbalance,
    summary,
)

# on a one-off call, build the transposed CSR for push only when the frontier is this sparse
ONE_OFF_PUSH_F = 0.01
# a push step touches each active edge about this many times more expensively than pull
PUSH_EDGE_COST = 2.0


@functools.lru_cache(maxsize=1)
def cpu_threads() -> int:
    try:
        import numba

        return int(numba.config.NUMBA_NUM_THREADS)
    except Exception:  # pragma: no cover
        return os.cpu_count() or 1


def pull_bytes(nnz: int, nrows: int, ncols: int, a_val: int, x_val: int, y_val: int,
               allowed_frac: float = 1.0) -> int:
    """DRAM bytes of a pull SpMV: indices and values once, indptr, x gathered, y written."""
    e = nnz * allowed_frac
    return int(e * (index_bytes(ncols) + a_val) + 8 * nrows + x_val * ncols + (y_val + 1) * nrows)


def push_bytes(active_edges: int, nactive: int, nrows: int, a_val: int, y_val: int) -> int:
    """DRAM bytes of a push SpMSpV: the active columns' edges plus scattered updates."""
    return int(active_edges * (8 + a_val + y_val) + nactive * 16 + (y_val + 1) * nrows)


# --------------------------------------------------------- cache-aware pull formats
#
# The planner compares the vertex data of a pull SpMV (x gathered, y written) with the
# last-level cache (Cagra, section II: random reads that miss the LLC stall the cores),
# the balance of a row-granular split with the ideal one (Garaph, section 4.1: power-law
# degrees unbalance vertex-parallel loops), and the cost of building a format with how
# often the matrix has been used.  Times are estimates in seconds from per-thread costs
# measured on the 2-core AMD EPYC development machine (Numba 0.68, float32 PageRank-style
# products on Kronecker graphs of scale 20 to 23); they only rank the candidates, and the
# Plan shows them.

#: x + y count as cache-resident below this fraction of the L3 (the rest holds the
#: streamed matrix and the other cores' lines).
CACHE_FIT_FRACTION = 0.5
#: A row-granular split this much slower than the ideal counts as skewed.
SKEW_IMBALANCE = 1.2


def vertex_data(shape: tuple[int, int], x_bytes: int, y_bytes: int, l3: int
                ) -> tuple[int, float, bool]:
    """A CPU pull's vertex data (``x`` read, ``y`` with its flag written), the cache share
    it may hold (:data:`CACHE_FIT_FRACTION` of the L3), and whether it fits.

    Examples
    --------
    >>> vertex_data((1000, 1000), 8, 9, 32 << 20)
    (17000, 16777216.0, True)
    """
    m, n = shape
    vertex = n * x_bytes + m * y_bytes
    cache = l3 * CACHE_FIT_FRACTION
    return vertex, cache, vertex <= cache
#: The CPU transpose (``backends/cpu/build.py``: bucket counts, a partition pass, a
#: placement within cache-sized buckets): ns per entry and thread, plus per byte of value.
#: Measured at Kronecker 22 (128M entries, 2 threads): 1.2-1.9 s pattern-only and 1.3-1.7 s
#: with float64 values on the machine lightly loaded (2.8-4.2 s at load average ~4).
NS_TRANSPOSE_ENTRY = 18.0
NS_TRANSPOSE_VALUE_BYTE = 1.0


def transpose_seconds(nnz: int, value_bytes: int, threads: int) -> float:
    """Estimated seconds of the CPU transpose of a CSR with ``nnz`` entries.

    Examples
    --------
    >>> round(transpose_seconds(128_000_000, 8, 2), 2)
    1.66
    """
    ns = NS_TRANSPOSE_ENTRY + NS_TRANSPOSE_VALUE_BYTE * value_bytes
    return ns * 1e-9 * nnz / max(1, threads)


def pull_estimates(csr, hw, x_bytes: int, y_bytes: int, a_val: int, allowed_frac: float,
                   sizes: dict, formats) -> dict[str, Estimate]:
    """Estimated time and DRAM bytes of a pull SpMV over ``csr`` in each of ``formats``.

    Parameters
    ----------
    csr : CSR
        The CSR the pull reads (rows are the outputs).
    hw : Hardware
        From :func:`gblas.hardware.detect`.
    x_bytes, y_bytes : int
        Bytes per value of x (type T) and of y (type R, plus its presence byte).
    a_val : int
        Bytes per stored value of A (0 when iso).
    allowed_frac : float
        Fraction of the rows the mask allows.
    sizes : dict
        ``segment_size``, ``tile_cols`` (columns per segment / column panel).
    formats : iterable of str
        Candidates.

    Returns
    -------
    dict
        Format name -> :class:`Estimate`.

    Examples
    --------
    >>> from gblas.formats import CSR
    >>> from gblas.hardware import Hardware
    >>> A = CSR.from_coo(np.array([0, 1]), np.array([1, 0]), None, (2, 2), iso_value=True)
    >>> hw = Hardware(32 << 10, 1 << 20, 8 << 20, 64, 2, "x")
    >>> est = pull_estimates(A, hw, 4, 5, 0, 1.0, {"segment_size": 1, "tile_cols": 1},
    ...                      ["csr", "segmented"])
    >>> sorted(est), est["csr"].build_seconds
    (['csr', 'segmented'], 0.0)
    """
    ctx = PullContext.of(csr, hw, x_bytes, y_bytes, a_val, allowed_frac, sizes)
    out: dict[str, Estimate] = {}
    for f in formats:
        e = FORMATS[f].pull_estimate(ctx) if f in FORMATS else None
        if e is not None:
            out[f] = e
    return out

# ------------------------------------------------------------- GPU pull formats
#
# On the GPU the vertex data is compared with the L2 (GraphCage, TOCAB: gathers that miss
# the L2 go to DRAM a 32-byte sector at a time); each GPU format's bandwidths and build
# costs are declared on its class (``gpu_pull_estimate``), fitted on an H100 (history:
# benchmarks/results/history_gpu.md, "planner/cost.py").

#: Device memory a GPU format's build needs at its peak: bytes per entry of the CSR (its
#: 64-bit sort keys, permutations and row and column ids) and per row and column.
GPU_BUILD_BYTES_PER_ENTRY = 96
GPU_BUILD_BYTES_PER_VERTEX = 64


def gpu_fold(monoid: Any, r: Any) -> str:
    """How the GPU kernels fold ``monoid`` on results of dtype ``r`` into shared memory:
    ``"native"`` (one integer atomic instruction; float min / max on their bits),
    ``"float_add"`` (float ``plus``: the hardware's compare-and-swap spin) or
    ``"exchange"`` (a loop of two atomic exchanges per update, for monoids without a
    native atomic).

    Examples
    --------
    >>> from gblas.semirings import builtin
    >>> [gpu_fold(builtin.MONOIDS[c], np.float32) for c in ("min", "plus", "times")]
    ['native', 'float_add', 'exchange']
    >>> gpu_fold(builtin.MONOIDS["plus"], np.int64)
    'native'
    """
    r = np.dtype(r)
    code = getattr(monoid, "code", None)
    if getattr(monoid, "any_value", False):
        return "native"
    if r.kind == "b":
        native = code in ("plus", "lor", "max", "times", "land", "min", "lxor")
    else:
        native = code in ("plus", "min", "max")
    if native and code == "plus" and r.kind == "f":
        return "float_add"
    return "native" if native else "exchange"


def gpu_pull_estimates(shape: tuple[int, int], nnz: int, a_val: int, x_bytes: int,
                       y_bytes: int, l2: int, hot_share: float, allowed_frac: float = 1.0,
                       runs_per_entry: float | None = None, fold: str = "native",
                       gathered: int = 0, host_s: dict | None = None,
                       hub_share: float | None = None) -> dict[str, Estimate]:
    """Estimated time, build time and bytes of a GPU pull SpMV in CSR and gpu_segmented.

    Parameters
    ----------
    shape : (int, int)
        ``(rows, columns)`` of the matrix the pull reads.
    nnz : int
        Its entries.
    a_val, x_bytes, y_bytes : int
        Bytes per stored value (0 when iso), per x value, per y value with its flag.
    l2 : int
        L2 bytes of the GPU.
    hot_share : float
        Share of the entries in the hot segment's columns (those of highest degree, with
        16-bit ids).
    allowed_frac : float
        Fraction of the rows the mask allows.
    runs_per_entry : float, optional
        Runs (a row's entries within one column panel of ``panel_cols``) per
        entry: given, ``gpu_heavy_light`` (light panels) is estimated too.
    fold : {"native", "float_add", "exchange"}
        How the monoid folds (:func:`gpu_fold`).
    gathered : int, default 0
        Columns of ``x`` each call gathers into the panels' order first, when their
        columns are relabelled (``runs_per_entry`` counts after it); 0: not relabelled.
    host_s : dict, optional
        Format -> host seconds of a whole call (default: each format's constant
        ``gpu_fixed_s``; :mod:`gblas.planner.hosttime` measures them as calls run).
    hub_share : float, optional
        Share of the entries in the busiest 1% of the columns: given,
        ``gpu_relabelled`` is estimated too where it is large enough.

    Returns
    -------
    dict
        ``"csr"``, ``"gpu_segmented"`` (and ``"gpu_heavy_light"``, ``"gpu_relabelled"``)
        -> :class:`Estimate`.

    Examples
    --------
    >>> est = gpu_pull_estimates((1 << 25, 1 << 25), 528_693_449, 4, 4, 5, 50 << 20, 0.41)
    >>> round(est["csr"].seconds * 1e3, 1), round(est["gpu_segmented"].seconds * 1e3, 1)
    (10.1, 4.1)
    """
    ctx = GpuPullContext(tuple(shape), nnz, a_val, x_bytes, y_bytes, l2, hot_share,
                         allowed_frac, runs_per_entry, fold, gathered, host_s, hub_share)
    out: dict[str, Estimate] = {}
    for f in pull_formats("gpu"):
        e = FORMATS[f].gpu_pull_estimate(ctx)
        if e is not None:
            out[f] = e
    return out


# a merged entry of a masked dot product costs about this many saxpy flops (measured on
# Kronecker graphs: dot merges are branchy, saxpy scatters stream)
DOT_MERGE_COST = 2.0
# on the GPU the saxpy kernel expands, sorts and compresses every product (a radix sort
# per flop), while a dot is one thread's merge.  Masked triangle counting at Kronecker 20
# on an H100: with L = tril(S) the dot took 0.15 s for 2.2e10 merged entries and the saxpy
# 0.73 s for 1.1e10 flops (a merged entry ~0.1 flop); with L oriented by degree rank the
# dot took 0.238 s for 2.08e10 merged entries and the saxpy 0.436 s for 4.42e9 flops
# (~0.12 flop).  0.25 left that second product on the saxpy, 1.8x slower.
GPU_DOT_MERGE_COST = 0.1
