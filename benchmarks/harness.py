"""Benchmark helpers: timing, machine description, markdown results.

Every figure the benchmarks report is a ratio against an anchor measured in the same run,
on the same machine, described at the top of the results file.

Examples
--------
>>> from benchmarks.harness import time_call
>>> t = time_call(lambda: sum(range(1000)), repeat=3, warmup=1)
>>> t.repeat, t.median > 0
(3, True)
"""

from __future__ import annotations

import datetime as _dt
import importlib
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gblas.cli import cpu_description

RESULTS_DIR = Path(__file__).resolve().parent / "results"


@dataclass(frozen=True)
class Timing:
    """Wall-clock times of repeated calls, in seconds.

    ``median`` is the figure to report; ``spread`` is ``(max - min) / median``.
    """

    times: tuple[float, ...]
    warmup: int = 0
    first: float | None = None  # the first (cold) call: compilation, format build...
    extra: dict = field(default_factory=dict)
    #: minor page faults per timed call (first touches of fresh memory); None where the
    #: platform does not count them
    faults: float | None = None

    @property
    def repeat(self) -> int:
        return len(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def best(self) -> float:
        return min(self.times)

    @property
    def spread(self) -> float:
        return (max(self.times) - min(self.times)) / self.median if self.median > 0 else 0.0

    def __str__(self) -> str:
        return f"{fmt_time(self.median)} ±{100 * self.spread:.0f}% (n={self.repeat})"


def fmt_time(seconds: float) -> str:
    """Human-readable duration: ``'12.3 ms'``.

    Examples
    --------
    >>> fmt_time(0.0123)
    '12.3 ms'
    """
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} µs"


def time_call(fn: Callable[[], object], *, repeat: int = 5, warmup: int = 1,
              min_time: float = 0.0) -> Timing:
    """Time ``fn()``: ``warmup`` untimed calls, then ``repeat`` timed ones.

    Parameters
    ----------
    fn : callable
        Called with no argument.
    repeat : int, default 5
        Timed calls (at least 1).
    warmup : int, default 1
        Untimed calls first (JIT compilation, caches, derived formats).  The first warm-up
        call's time is kept as ``Timing.first``.
    min_time : float, default 0
        Keep timing beyond ``repeat`` calls until this many seconds were spent (for very
        short calls).

    Returns
    -------
    Timing

    Examples
    --------
    >>> t = time_call(lambda: None, repeat=4, warmup=0)
    >>> len(t.times)
    4
    """
    first = None
    for k in range(warmup):
        t0 = time.perf_counter()
        fn()
        if k == 0:
            first = time.perf_counter() - t0
    times = []
    spent = 0.0
    f0 = _minor_faults()
    while len(times) < max(1, repeat) or spent < min_time:
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        times.append(dt)
        spent += dt
    f1 = _minor_faults()
    faults = None if f0 is None or f1 is None else (f1 - f0) / len(times)
    return Timing(tuple(times), warmup=warmup, first=first, faults=faults)


def _minor_faults() -> int | None:
    """This process's minor page faults so far (None without ``resource``)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows
        return None
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_minflt)


def _threads() -> int:
    try:
        import numba

        return numba.get_num_threads()
    except Exception:  # pragma: no cover
        return os.cpu_count() or 1


def measure_bandwidth(nbytes: int = 1 << 29, *, threads: int | None = None,
                      repeat: int = 5) -> dict[str, float]:
    """Measure memory bandwidth with large NumPy copies and sums, over ``threads`` threads.

    NumPy releases the GIL in its loops, so each thread copies its own slice.  Returns GB/s
    (1e9 bytes/s) for ``copy`` (bytes read + bytes written) and ``read`` (a sum of int64s,
    read only), best of ``repeat``.

    Examples
    --------
    >>> bw = measure_bandwidth(1 << 22, threads=1, repeat=1)
    >>> sorted(bw)
    ['copy', 'read', 'threads']
    """
    threads = threads or _threads()
    n = nbytes // 8
    src = np.ones(n, dtype=np.int64)
    dst = np.empty_like(src)
    bounds = np.linspace(0, n, threads + 1).astype(np.int64)
    parts = list(zip(bounds[:-1], bounds[1:]))

    def copy(p):
        np.copyto(dst[p[0]:p[1]], src[p[0]:p[1]])

    def read(p):
        return int(src[p[0]:p[1]].sum())

    def best(fn) -> float:
        out = []
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(fn, parts))  # warm-up, page faults
            for _ in range(repeat):
                t0 = time.perf_counter()
                list(pool.map(fn, parts))
                out.append(time.perf_counter() - t0)
        return min(out)

    copy_s = best(copy)
    read_s = best(read)
    return {"copy": 2 * n * 8 / copy_s / 1e9, "read": n * 8 / read_s / 1e9,
            "threads": float(threads)}


def versions(names: Sequence[str] = ("numpy", "scipy", "numba", "graphblas", "gblas",
                                     "networkx", "cupy")) -> dict[str, str]:
    """Versions of the modules that are importable (``cupy`` is only looked up)."""
    out = {"python": platform.python_version()}
    for name in names:
        if name == "cupy":
            if importlib.util.find_spec("cupy") is None:
                continue
        try:
            mod = importlib.import_module(name)
        except Exception:
            continue
        ver = getattr(mod, "__version__", "?")
        if name == "graphblas":
            try:
                ver += f" (SuiteSparse:GraphBLAS {mod.ss.about['library_version']})"
            except Exception:
                pass
        out[name] = str(ver)
    return out


def describe_machine(*, bandwidth: bool = True) -> dict[str, object]:
    """The machine the benchmark runs on: CPU, cores, caches, memory, bandwidth, versions."""
    info: dict[str, object] = dict(cpu_description())
    info["numba threads"] = _threads()
    info["platform"] = platform.platform()
    if hasattr(os, "getloadavg"):
        info["load average at start"] = " / ".join(f"{x:.2f}" for x in os.getloadavg()) + \
            " (1 / 5 / 15 min; other work on the machine inflates times)"
    if bandwidth:
        bw = measure_bandwidth()
        one = measure_bandwidth(threads=1) if bw["threads"] > 1 else bw
        info["copy bandwidth"] = (f"{bw['copy']:.1f} GB/s ({int(bw['threads'])} threads), "
                                  f"{one['copy']:.1f} GB/s (1 thread)")
        info["read bandwidth"] = (f"{bw['read']:.1f} GB/s ({int(bw['threads'])} threads), "
                                  f"{one['read']:.1f} GB/s (1 thread)")
        info["_bw"] = bw
    info["versions"] = ", ".join(f"{k} {v}" for k, v in versions().items())
    return info


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub-flavoured markdown table; numbers right-aligned.

    Examples
    --------
    >>> print(markdown_table(["a", "b"], [[1, "x"]]))
    | a | b |
    |---:|---|
    | 1 | x |
    """
    def num(v) -> bool:
        return isinstance(v, (int, float, np.number)) and not isinstance(v, bool)

    align = ["---:" if rows and num(rows[0][k]) else "---" for k in range(len(headers))]
    lines = ["| " + " | ".join(map(str, headers)) + " |", "|" + "|".join(align) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(str(v) for v in row) + " |")
    return "\n".join(lines)


def write_results(name: str, title: str, sections: Sequence[tuple[str, str]],
                  machine: dict[str, object] | None = None,
                  directory: Path | None = None) -> Path:
    """Write ``benchmarks/results/NAME.md``: a title, the machine, then the sections.

    Parameters
    ----------
    name : str
        File name without ``.md``.
    title : str
        First heading.
    sections : sequence of (heading, markdown body)
    machine : dict, optional
        From :func:`describe_machine`; keys starting with ``_`` are left out.
    directory : Path, optional
        Default ``benchmarks/results``.
    """
    directory = Path(directory) if directory else RESULTS_DIR
    directory.mkdir(parents=True, exist_ok=True)
    out = [f"# {title}", "",
           f"Generated by `{' '.join([Path(sys.argv[0]).name] + sys.argv[1:])}` on "
           f"{_dt.datetime.now().strftime('%Y-%m-%d %H:%M')}.", ""]
    if machine:
        out += ["## Machine", ""]
        out += [f"- **{k}**: {v}" for k, v in machine.items() if not k.startswith("_")]
        out.append("")
    for heading, body in sections:
        out += [f"## {heading}", "", body.rstrip(), ""]
    path = directory / f"{name}.md"
    path.write_text("\n".join(out))
    return path


def emit_lines(lines: Sequence[str], out: Path | None = None) -> str:
    """Print a report's lines as one text, and write it to ``out`` when given.

    Examples
    --------
    >>> text = emit_lines(["| a |", "|---|"])
    | a |
    |---|
    <BLANKLINE>
    """
    text = "\n".join(lines) + "\n"
    print(text)
    if out is not None:
        Path(out).write_text(text)
    return text


def median_ms(fn: Callable[[], object], sync: Callable[[], object], repeat: int) -> float:
    """Median wall time of ``fn()`` in milliseconds, ``sync()`` after each call (a GPU's
    synchronize), after one untimed call.

    Examples
    --------
    >>> median_ms(lambda: None, lambda: None, 3) >= 0
    True
    """
    fn()
    sync()
    ts = []
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        fn()
        sync()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts)) * 1e3


def median_fresh(run: Callable[[object], object], make: Callable[[], object],
                 sync: Callable[[], object], repeat: int, slow: float) -> tuple[float, object]:
    """Median wall time in seconds of ``run(make())``, a new argument per call made
    outside the timed region, ``sync()`` before and after each call (a GPU's
    synchronize), after one warm-up call; one timed call when the warm-up took over
    ``slow`` seconds.  Returns the median and the last call's result.

    Examples
    --------
    >>> t, out = median_fresh(lambda x: x + 1, lambda: 1, lambda: None, 3, 10.0)
    >>> t >= 0, out
    (True, 2)
    """
    t0 = time.perf_counter()
    out = run(make())
    sync()
    first = time.perf_counter() - t0
    ts = []
    for _ in range(1 if first > slow else max(1, repeat)):
        arg = make()
        sync()
        t0 = time.perf_counter()
        out = run(arg)
        sync()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), out
