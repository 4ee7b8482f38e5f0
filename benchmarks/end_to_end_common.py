"""Shared pieces of the end-to-end benchmark (:mod:`benchmarks.run_end_to_end`): its
constants (algorithms, graph forms, scales, PageRank's settings, NetworkX's prior costs),
the log and time formatting, the graph and result-row dataclasses, and the timing of one
call (:func:`measure`).  It imports nothing from the benchmark package but
:mod:`benchmarks.end_to_end_spectral` (which imports none of it at load time), so the
driver, the peers and the report can all import from here.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import end_to_end_spectral as spectral

REPO = Path(__file__).resolve().parents[1]
#: The shared data folder, next to the repository.
DEFAULT_DATA = REPO.parent / "shared" / "data"

#: Algorithms, in the order they run on a graph (directed forms first, so that the
#: directed NetworkX graph can be dropped before the undirected one is built).
ALGORITHMS = ("pagerank", "bfs", "sssp", "csgraph.dijkstra", "csgraph.breadth_first_order",
              "csgraph.connected_components", "connected_components", "triangle_count",
              "core_number", "betweenness_centrality", "label_propagation"
              ) + spectral.ALGORITHMS
#: The graph each algorithm runs on: "D" directed pattern, "W" directed with weights,
#: "U" undirected pattern (symmetric, no self loops).
FORM = {"pagerank": "D", "bfs": "D", "sssp": "W", "csgraph.dijkstra": "W",
        "csgraph.breadth_first_order": "D", "csgraph.connected_components": "D",
        "connected_components": "U", "triangle_count": "U", "core_number": "U",
        "betweenness_centrality": "U", "label_propagation": "U", **spectral.FORM}
GPU_ALGORITHMS = ("pagerank", "bfs", "sssp")

SCALES = (10, 14, 18)
LARGE_SCALES = (20, 22)
EDGE_FACTOR = 16
SEED = 1
#: Scale of the graph of the first-ever (empty kernel cache) table.
FIRST_EVER_SCALE = 14
#: Sources of dijkstra in the csgraph row.
DIJKSTRA_SOURCES = 4
#: PageRank's settings (gblas's defaults): stop when the L1 change is below TOL.
DAMPING, TOL = 0.85, 1e-6
#: Betweenness takes 256 sources on graphs of at most this many stored entries, else 64.
BC_SMALL = 100_000
#: A call slower than this (seconds) is measured once, its first call counting.
SLOW = 5.0

#: Prior cost of the NetworkX calls (seconds per unit of work: stored entries, times the
#: sources for betweenness), used to skip calls over the limit before any measurement;
#: replaced by the rate measured on the graphs already run.
NX_PRIOR = {"pagerank": 1.5e-6, "bfs": 8e-7, "sssp": 2e-6, "connected_components": 8e-7,
            "triangle_count": 4e-6, "core_number": 3e-6, "betweenness_centrality": 2e-6,
            "label_propagation": 4e-6, **spectral.NX_PRIOR}


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _fmt(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} µs"


# ---------------------------------------------------------------------------- graphs


@dataclass
class GraphCase:
    """A graph to run: a Kronecker scale or a Matrix Market file."""

    name: str
    scale: int | None = None
    path: Path | None = None

    def size_hint(self) -> float:
        """Rough stored entries (for ordering the graphs, smallest first)."""
        if self.scale is not None:
            return 16.0 * 2 ** self.scale
        return float(self.path.stat().st_size) * 2.0


@dataclass
class Graph:
    """The forms of one graph as SciPy CSR arrays of float64 (sorted indices)."""

    name: str
    D: object  # directed pattern
    U: object  # undirected pattern, no self loops
    W: object  # D with weights in (0, 1]
    kind: str

    @property
    def n(self) -> int:
        return self.D.shape[0]

    def form(self, key: str):
        return {"D": self.D, "U": self.U, "W": self.W}[key]


# ---------------------------------------------------------------------------- timing


@dataclass
class Measure:
    """Times (seconds) of one call measured ``len(times)`` times; ``result`` the first
    call's answer; ``error`` the exception text when the call failed."""

    times: list = field(default_factory=list)
    result: object = None
    first: float | None = None
    error: str | None = None

    @property
    def median(self) -> float | None:
        return statistics.median(self.times) if self.times else None


def measure(prepare: Callable[[], object], run: Callable[[object], object], *, repeat: int,
            warmup: bool = True, budget: float = 60.0, min_total: float = 0.2,
            max_calls: int = 30) -> Measure:
    """Time ``run(prepare())``, ``prepare`` outside the timed region.

    Parameters
    ----------
    prepare : callable
        Builds the call's input (once per call).
    run : callable
        The timed call.
    repeat : int
        Timed calls, fewer when they would spend more than ``budget`` seconds, more
        (up to ``max_calls``) while they spent less than ``min_total``.
    warmup : bool, default True
        The first call is a warm-up, not counted (then a call slower than ``SLOW``
        seconds is timed once more only); without warm-up the first call counts, and a
        first call slower than ``SLOW`` is the only one.

    Returns
    -------
    Measure
        ``first`` is the first call's time, ``result`` its answer.
    """
    m = Measure()
    # one collection before, none inside: a full collection right before a call evicts
    # the caches, and a call that runs more Python (gblas's planner, Vectors) pays for it
    # far more than one C call does (Kronecker 10 BFS: 28 us after other calls, 330 us
    # after a collection); with the collector off, no pause lands inside a timed call
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _timed_calls(m, prepare, run, repeat, warmup, budget, min_total, max_calls)
    finally:
        if was_enabled:
            gc.enable()


def _timed_calls(m: Measure, prepare, run, repeat: int, warmup: bool, budget: float,
                 min_total: float, max_calls: int) -> Measure:
    """The calls of :func:`measure` (the collector is off)."""
    try:
        arg = prepare()
        t0 = time.perf_counter()
        m.result = run(arg)
        m.first = time.perf_counter() - t0
        del arg
    except Exception as e:  # noqa: BLE001 - a failure is reported in the table
        m.error = f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
        return m
    if not warmup:
        m.times.append(m.first)
    n_more = repeat - len(m.times)
    if m.first > SLOW:
        n_more = 1 if warmup else 0
    elif m.first > 0 and m.first * n_more > budget:
        n_more = max(0 if m.times else 1, int(budget / m.first))
    spent = 0.0
    k = 0
    while k < n_more or (spent < min_total and len(m.times) < max_calls):
        arg = prepare()
        t0 = time.perf_counter()
        run(arg)
        dt = time.perf_counter() - t0
        del arg
        m.times.append(dt)
        spent += dt
        k += 1
    return m


# ------------------------------------------------------------------------------ rows


@dataclass
class Row:
    graph: str
    n: int
    nnz: int
    alg: str
    fresh: float | None
    prepared: float | None
    cold: float | None
    anchor: str
    anchor_time: float | None
    check: str
    ok: bool | None
    note: str = ""
    runs: tuple[int, int] = (0, 0)

    @property
    def ratio(self) -> float | None:
        if self.anchor_time is None or not self.fresh:
            return None
        return self.anchor_time / self.fresh
