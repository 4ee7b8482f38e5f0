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

from ..formats import FORMATS
from ..formats.costing import (  # noqa: F401  (the statistics the planner reads)
    NS_EDGE_CACHED,
    NS_EDGE_L2,
    NS_EDGE_MISS,
    NS_LOCAL_ROW,
    NS_ROW,
    X_CACHE_SHARE,
    Estimate,
    PullContext,
    expansion_factor,
    index_bytes,
    row_imbalance,
    summary,
)
from ..formats.light_panels import GATHER_BYTES

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
# the L2 go to DRAM a 32-byte sector at a time).  Effective bandwidths measured on an
# H100 (50 MB L2, float32 plus_times on Kronecker scale 22 / 24 / 25, see
# benchmarks/results/formats_gpu.md and planner_gpu.md): the CSR pull kernel reached
# 876 / 605 / 461 GB/s of its own traffic, about ``min(1, L2 / vertex) **
# GPU_CSR_MISS_EXP`` times its in-L2 rate; gpu_segmented 942 / 1082 / 1071 GB/s whatever
# the size.  With these constants the estimates are within 10% of the twelve measured
# times (CSR and gpu_segmented, valued and pattern-only, scale 22 / 24 / 25).

#: The kernels are bound by their gathers of x more than by streaming the matrix: dropping
#: the 4-byte values (a pattern-only matrix) saved 9-12% of the time, not 45%.  Value
#: bytes count with this weight, and the bandwidths below are per weighted byte.
GPU_VALUE_WEIGHT = 0.25
#: GB/s (weighted bytes) of the CSR pull kernel when the vertex data fits the L2.
GPU_CSR_GBS = 590.0
#: Exponent of the CSR kernel's slowdown with the vertex data over the L2.
GPU_CSR_MISS_EXP = 0.4
#: GB/s (weighted bytes) of the gpu_segmented kernels (all sizes).
GPU_SEGMENTED_GBS = 690.0
#: Local rows per entry of gpu_segmented (partial written and read, row map, indptr):
#: 0.06 / 0.09 / 0.11 measured at scale 22 / 24 / 25.
GPU_LOCAL_ROWS_PER_ENTRY = 0.1
#: Build: ns per entry (GPU sorts; 0.6 / 0.42 / 0.44 measured) and fixed seconds.
GPU_BUILD_NS_ENTRY = 0.5
GPU_BUILD_OVERHEAD_S = 0.01
#: Device memory a GPU format's build needs at its peak: bytes per entry of the CSR (its
#: 64-bit sort keys, permutations and row and column ids) and per row and column.  Measured
#: on an H100 (directed Kronecker, scales 22 and 24, with CuPy's allocations tracked):
#: gpu_heavy_light 85-94 bytes per entry (valued or iso alike), gpu_segmented 69-75.
GPU_BUILD_BYTES_PER_ENTRY = 96
GPU_BUILD_BYTES_PER_VERTEX = 64
#: gpu_heavy_light with its light entries in column panels (no heavy tile, the default):
#: GB/s of its own traffic (entries, values, the staged x slices, one partial per run
#: written and read back with its 16-bit row, y) and a fixed time per call (two kernels,
#: their tails).  Fitted on an H100 (Kronecker, float32 min_plus, native atomics,
#: 16384-column by 32768-row panels): 0.41 ms for 0.78 GB at scale 22, 2.94 ms for
#: 7.45 GB at scale 25.
GPU_PANELS_GBS = 2640.0
GPU_PANELS_FIXED_S = 1.15e-4
#: Seconds per run by how phase 2 folds the monoid (:func:`gpu_fold`): float ``plus``
#: (the hardware's compare-and-swap spin on shared memory) took 0.004 / 0.30 ms more than
#: min_plus at scale 22 / 25 (34M / 386M runs) with the rows interleaved by bank (0.05 /
#: 0.49 ms in increasing row order); the exchange loop of monoids without a
#: native atomic (float32 times_times's phase 2) 0.12 ms more at scale 22 and 3.6 ms more
#: at 25 (3.6e-12 and 9.3e-12 s per run).  The constant lies between.  Through gb.mxv
#: (H100, float32 times_times), gpu_segmented / the light panels / CSR took 0.62 / 0.56 /
#: 0.95 ms at scale 22 and 4.85 / 6.66 / 10.2 ms at 25: with this constant the planner
#: picks gpu_segmented at both (right at 25, 12% slower than the panels at 22); with the
#: scale-22 fit it would pick the panels at 25 too.
GPU_PANELS_FOLD_S = {"native": 0.0, "float_add": 0.8e-12, "exchange": 5.8e-12}
#: Column panel width the estimate assumes (the format's default).
GPU_PANEL_COLS = 16384
#: Build: ns per entry (the panel sort, the rows interleaved by bank, the layout; no
#: tiling when no tile can be heavy, the default): 0.73 / 0.79 measured on an H100 at
#: scale 22 / 25 (0.41 / 0.40 with the rows in increasing order).
GPU_PANELS_BUILD_NS_ENTRY = 0.8


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
                       gathered: int = 0) -> dict[str, Estimate]:
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
        Runs (a row's entries within one column panel of :data:`GPU_PANEL_COLS`) per
        entry: given, ``gpu_heavy_light`` (light panels) is estimated too.
    fold : {"native", "float_add", "exchange"}
        How the monoid folds (:func:`gpu_fold`).
    gathered : int, default 0
        Columns of ``x`` each call gathers into the panels' order first, when their
        columns are relabelled (``runs_per_entry`` counts after it); 0: not relabelled.

    Returns
    -------
    dict
        ``"csr"``, ``"gpu_segmented"`` (and ``"gpu_heavy_light"``) -> :class:`Estimate`.

    Examples
    --------
    >>> est = gpu_pull_estimates((1 << 25, 1 << 25), 528_693_449, 4, 4, 5, 50 << 20, 0.41)
    >>> round(est["csr"].seconds * 1e3, 1), round(est["gpu_segmented"].seconds * 1e3, 1)
    (10.5, 5.0)
    """
    m, n = shape
    e = nnz * allowed_frac
    idx = index_bytes(n)
    vertex = n * x_bytes + m * y_bytes
    out: dict[str, Estimate] = {}
    wval = GPU_VALUE_WEIGHT * a_val
    other = m * (4 + y_bytes) + n * x_bytes
    csr_bytes = e * (idx + a_val) + other
    gbs = GPU_CSR_GBS * min(1.0, l2 / max(vertex, 1)) ** GPU_CSR_MISS_EXP
    out["csr"] = Estimate("csr", (e * (idx + wval) + other) / (gbs * 1e9), 0.0,
                          int(csr_bytes), f"vertex data {vertex / l2:.2f}x the L2")
    hot_idx = hot_share * 2 + (1 - hot_share) * idx
    local = GPU_LOCAL_ROWS_PER_ENTRY * (8 + 2 * y_bytes)
    other = m * y_bytes + n * x_bytes
    seg_bytes = e * (hot_idx + a_val + local) + other
    build = GPU_BUILD_NS_ENTRY * 1e-9 * nnz + GPU_BUILD_OVERHEAD_S
    out["gpu_segmented"] = Estimate(
        "gpu_segmented", (e * (hot_idx + wval + local) + other) / (GPU_SEGMENTED_GBS * 1e9),
        build, int(seg_bytes), f"hot segment {100 * hot_share:.0f}% of entries")
    if runs_per_entry is not None:
        # the panels compute every entry (the mask applies when y is written)
        runs = runs_per_entry * nnz
        r = max(y_bytes - 1, 1)
        lp_bytes = nnz * (2 + a_val) + runs * (2 * r + 2) + n * x_bytes + m * y_bytes
        gather = gathered * GATHER_BYTES                # weighted: random reads
        t = ((lp_bytes + gather) / (GPU_PANELS_GBS * 1e9) + GPU_PANELS_FIXED_S
             + GPU_PANELS_FOLD_S[fold] * runs)
        lp_bytes += gather // 2
        out["gpu_heavy_light"] = Estimate(
            "gpu_heavy_light", t, GPU_PANELS_BUILD_NS_ENTRY * 1e-9 * nnz
            + GPU_BUILD_OVERHEAD_S, int(lp_bytes),
            f"light panels, {runs_per_entry:.2f} runs per entry")
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
