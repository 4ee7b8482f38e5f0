"""The machinery of the formats' cost models: per-entry costs, cached statistics, the
context of one pull SpMV estimate.

Each format estimates its own pull SpMV (``cls.pull_estimate(ctx)``); the planner
compares the estimates.  Times are in seconds from per-thread costs fitted to measured
``gb.mxv`` times on the project's 2-core development machine
(``benchmarks/fit_cpu_costs.py``, ``benchmarks/results/cpu_costs.md``); the shares of x
gathers that miss the L2 and the L3 come from the cache simulator's sampled replay of
the matrix itself (:func:`sampled_miss`).  They rank the candidates, and the Plan shows
them.

Examples
--------
>>> import numpy as np
>>> from gblas.formats import CSR
>>> from gblas.hardware import Hardware
>>> A = CSR.from_coo(np.array([0, 1]), np.array([1, 0]), None, (2, 2), iso_value=True)
>>> ctx = PullContext.of(A, Hardware(32 << 10, 1 << 20, 8 << 20, 64, 2, "x"), 4, 5, 0)
>>> ctx.entries, ctx.miss, ctx.miss_l2
(2.0, 0.0, 0.0)
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

NS = 1e-9

def index_bytes(n: int) -> int:
    return 4 if n <= 2**31 - 1 else 8


#: Share of the L3 that holds x's lines in a plain CSR pull (the streamed matrix, y and
#: the other cores take the rest; the segments are sized to it).  When x outgrows it, the
#: share of gathers that miss is simulated: :func:`sampled_miss` replays a sample of the
#: pull's x accesses through an LRU of this size.
X_CACHE_SHARE = 0.25
#
# The constants below are fitted by ``benchmarks/fit_cpu_costs.py`` (non-negative least
# squares of the relative error of gb.mxv's measured time, float32, on the 10 real graphs
# of shared/data and Kronecker 14-22 with the four CPU formats pinned, on the quiet 2-core
# development machine: ``benchmarks/results/cpu_costs.md``).

#: Seconds per call of any pull (the operation's checks, the planner, the output vector,
#: the threads' start).
CALL_S = 80e-6
#: Further seconds per call of a grouped format (its second, merging phase).
GROUPED_CALL_S = 21e-6
#: ns per row, on one thread, when some rows have no entry: the result is not full and
#: its pattern comes from the presence flags.
NS_ROW_PARTIAL = 2.1
#: ns per entry and thread when x is gathered from the cache (a segment's slice, or a
#: graph whose vertex data fits).
NS_EDGE_CACHED = 0.88
#: ns per entry and thread when x is gathered from a column panel's slice in the L2.
NS_EDGE_L2 = 0.86
#: extra ns per entry and thread for a gather that misses the per-core L2 (scaled by the
#: simulated share of gathers that miss an LRU of the L2's size).
NS_EDGE_L2_MISS = 0.99
#: the same for the gathers of a segmented pull (within a segment's slice of x).
NS_SEG_L2_MISS = 0.52
#: extra ns per entry and thread for a gather that misses the LLC (scaled by the simulated
#: share of gathers that miss ``X_CACHE_SHARE`` of the L3).
NS_EDGE_MISS = 6.3
#: ns per row and thread: row pointer, output value and presence.
NS_ROW = 1.8
#: ns per local row and thread of a grouped format: partial written, read back, merged.
NS_LOCAL_ROW = 2.8


def sampled_miss(csr, cache_bytes: int, x_bytes: int, y_bytes: int, line: int) -> float:
    """Share of the x gathers of a CSR pull over ``csr`` that miss an LRU cache of
    ``cache_bytes`` (the cache simulator's sampled replay, cached with the CSR).

    Examples
    --------
    >>> from gblas.formats import CSR
    >>> A = CSR.from_coo(np.array([0, 1]), np.array([1, 0]), None, (2, 2), iso_value=True)
    >>> sampled_miss(A, 1 << 20, 8, 9, 64)      # fits: the first touch of x's line
    0.5
    """
    key = ("sampled_miss", int(cache_bytes), int(x_bytes), int(y_bytes), int(line))
    memo = summary(csr)
    got = memo.get(key)
    if got is None:
        from ..backends.cpu.cachesim import sampled_x_miss

        got = memo[key] = float(sampled_x_miss(csr.indptr, csr.indices, csr.shape,
                                               int(cache_bytes), int(x_bytes), int(y_bytes),
                                               int(line))[0])
    return got


@dataclass(frozen=True)
class Estimate:
    """A candidate format's estimated time per call, build time and DRAM bytes."""

    format: str
    seconds: float
    build_seconds: float
    bytes: int
    note: str = ""


#: On the GPU the pull kernels are bound by their gathers of x more than by streaming the
#: matrix: value bytes count with this weight against the bandwidths of each format.
GPU_VALUE_WEIGHT = 0.25


class GpuPullContext(NamedTuple):
    """What every format's GPU pull estimate reads: the shape and entries of the matrix
    the pull reads, the value sizes, the GPU's L2 and the statistics the planner samples
    (hot-segment share, panel runs per entry, the monoid's fold)."""

    shape: tuple
    nnz: int
    a_val: int
    x_bytes: int
    y_bytes: int
    l2: int
    hot_share: float
    allowed_frac: float = 1.0
    runs_per_entry: float | None = None
    fold: str = "native"
    gathered: int = 0
    #: Format name -> host seconds of a whole call (None: each format's ``gpu_fixed_s``).
    host_s: dict | None = None
    #: Share of the entries in the busiest 1% of the columns (None: not measured).
    hub_share: float | None = None

    def host(self, fmt) -> float:
        """Host seconds of a whole call in format class ``fmt``."""
        if self.host_s is None:
            return fmt.gpu_fixed_s
        return self.host_s.get(fmt.name, fmt.gpu_fixed_s)

    @property
    def entries(self) -> float:
        return self.nnz * self.allowed_frac

    @property
    def vertex(self) -> int:
        m, n = self.shape
        return n * self.x_bytes + m * self.y_bytes

    @property
    def weighted_value(self) -> float:
        return GPU_VALUE_WEIGHT * self.a_val


class PullContext(NamedTuple):
    """What every format's pull estimate reads: the CSR the pull reads, the machine, the
    value sizes and the shared statistics (computed once per call)."""

    csr: Any
    hw: Any
    threads: int
    entries: float        # entries the pull computes (nnz times the allowed fraction)
    x_bytes: int          # bytes per x value
    y_bytes: int          # bytes per y value with its presence flag
    a_val: int            # bytes per stored value (0 when iso)
    x_data: int           # bytes of x
    miss: float           # fraction of x gathers that miss the LLC in a plain CSR pull
    miss_l2: float        # fraction of x gathers that miss the per-core L2
    partial: bool         # some rows have no entry (the result is not full)
    imbalance: float      # slowest row block over the ideal one
    stream: float         # bytes streamed: indices, values, row pointers, y
    sizes: dict           # build parameters of the candidates (segment_size, tile_cols)

    @classmethod
    def of(cls, csr, hw, x_bytes: int, y_bytes: int, a_val: int, allowed_frac: float = 1.0,
           sizes: dict | None = None) -> PullContext:
        m, n = csr.shape
        P = max(1, hw.threads)
        e = csr.nnz * allowed_frac
        x_data = n * x_bytes
        miss = miss_l2 = 0.0
        if csr.nnz and getattr(csr, "device", "cpu") == "cpu":
            share = int(hw.l3 * X_CACHE_SHARE)
            if x_data > share:  # x outgrows its share of the L3: simulate which gathers miss
                miss = sampled_miss(csr, share, x_bytes, y_bytes, hw.line)
            if x_data > hw.l2 // 2:
                miss_l2 = sampled_miss(csr, hw.l2, x_bytes, y_bytes, hw.line)
        stream = e * (index_bytes(n) + a_val) + m * (8 + y_bytes)
        partial = expansion_factor(csr, 1) < 1.0
        return cls(csr, hw, P, e, x_bytes, y_bytes, a_val, x_data, miss, miss_l2, partial,
                   row_imbalance(csr.indptr, P), stream, dict(sizes or {}))

    @property
    def call_seconds(self) -> float:
        """The per-call cost of any format: :data:`CALL_S`, and the pass over the rows'
        presence when the result is not full."""
        m = self.csr.shape[0]
        return CALL_S + (m * NS_ROW_PARTIAL * NS if self.partial else 0.0)

    @property
    def ns_edge_csr(self) -> float:
        """ns per entry and thread of a CSR-order gather of x (cached, plus the simulated
        misses of the L2 and of x's share of the L3)."""
        return NS_EDGE_CACHED + self.miss_l2 * NS_EDGE_L2_MISS + self.miss * NS_EDGE_MISS

    def build_seconds(self, ns_entry: float, overhead_s: float) -> float:
        """A build of ``ns_entry`` ns per entry and thread plus ``overhead_s``."""
        return ns_entry * NS * self.csr.nnz / self.threads + overhead_s

    def grouped_estimate(self, name: str, groups: int, ns_edge: float, build_s: float,
                         what: str, balanced: bool) -> Estimate:
        """A format that cuts the columns into ``groups`` ranges and merges local rows
        (Cagra's ``E + 2qV + V`` bytes, with ``q`` the expansion factor)."""
        m = self.csr.shape[0]
        q = expansion_factor(self.csr, groups)
        t = (self.entries * ns_edge + q * m * NS_LOCAL_ROW + m * NS_ROW) * NS / self.threads
        if not balanced:
            t *= self.imbalance
        t += self.call_seconds + GROUPED_CALL_S
        nbytes = self.stream + self.x_data + int(q * m * (2 * self.y_bytes + 8))
        return Estimate(name, t, build_s, int(nbytes), f"{groups} {what}, q~{q:.2f}")


#: id(csr) -> (weak reference to csr, dict): a plain dict (a WeakKeyDictionary lookup
#: creates a weak reference per call, and the planner asks on every product)
_SUMMARIES: dict[int, tuple] = {}


def summary(csr) -> dict:
    """A dict cached with ``csr`` (it goes when the CSR goes) for derived statistics.

    Examples
    --------
    >>> from gblas.formats import CSR
    >>> A = CSR.from_coo(np.array([0]), np.array([0]), None, (1, 1), iso_value=True)
    >>> summary(A)["x"] = 1
    >>> summary(A)
    {'x': 1}
    """
    k = id(csr)
    e = _SUMMARIES.get(k)
    if e is not None and e[0]() is csr:
        return e[1]
    d: dict = {}
    _SUMMARIES[k] = (weakref.ref(csr, lambda _, k=k: _SUMMARIES.pop(k, None)), d)
    return d


def row_imbalance(indptr, parts: int) -> float:
    """Slowest block over the ideal one when rows are split into ``parts`` blocks of equal
    cost ``entries + rows`` (the CSR kernel's split; a row is never cut).

    Binary searches over ``indptr`` only: O(parts log rows), no pass over the data.

    Examples
    --------
    >>> import numpy as np
    >>> row_imbalance(np.array([0, 1, 2, 3, 4]), 2)
    1.0
    >>> round(row_imbalance(np.array([0, 100, 101, 102]), 2), 2)   # one hub row
    1.92
    """
    m = len(indptr) - 1
    if parts <= 1 or m <= 0:
        return 1.0
    total = int(indptr[m]) + m
    if total == 0:
        return 1.0
    bounds = [0]
    for p in range(1, parts):
        target = total * p // parts
        lo, hi = 0, m
        while lo < hi:
            mid = (lo + hi) // 2
            if int(indptr[mid]) + mid < target:
                lo = mid + 1
            else:
                hi = mid
        bounds.append(lo)
    bounds.append(m)
    costs = [int(indptr[b]) + b for b in bounds]
    worst = max(costs[k + 1] - costs[k] for k in range(parts))
    return worst / (total / parts)


def expansion_factor(csr, groups: int) -> float:
    """Expected local rows per row when the columns are cut into ``groups`` ranges (the
    expansion factor ``q`` of Cagra, section III-D), assuming a row's entries spread
    evenly: ``mean_i k (1 - (1 - 1/k)^deg_i)``.  Cached per CSR object.

    Examples
    --------
    >>> import numpy as np
    >>> from gblas.formats import CSR
    >>> A = CSR.from_coo(np.array([0, 0, 1]), np.array([0, 1, 0]), None, (2, 2),
    ...                  iso_value=True)
    >>> expansion_factor(A, 1), expansion_factor(A, 2)
    (1.0, 1.25)
    """
    if groups <= 1:
        nonempty = summary(csr).get("nonempty")
        if nonempty is None:
            nonempty = int(np.count_nonzero(np.diff(np.asarray(csr.indptr))))
            summary(csr)["nonempty"] = nonempty
        return nonempty / csr.shape[0] if csr.shape[0] else 0.0
    key = ("q", int(groups))
    s = summary(csr)
    if key not in s:
        deg = np.diff(np.asarray(csr.indptr)).astype(np.float64)
        k = float(groups)
        s[key] = float(np.mean(k * (1.0 - np.power(1.0 - 1.0 / k, deg)))) if deg.size else 0.0
    return s[key]
