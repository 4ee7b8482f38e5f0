"""Hardware facts read from the machine: cache sizes, cache line, CPU threads.

The planner (:mod:`gblas.planner.choose`) compares the vertex data of a product with the
last-level cache, and the cache-aware formats size their segments, tiles and merge blocks
from these numbers (Cagra sizes segments from the LLC and merge blocks from the L1;
MultiGraph sizes tiles from on-chip memory).  Caches are read once per process from
``/sys/devices/system/cpu/cpu0/cache`` (Linux), then from ``lscpu``, then conservative
defaults; the thread count is Numba's *current* one, so ``gb.config(threads=...)`` is
seen.

:func:`assume` overrides any fact for a block of code.  Tests use it to make segments and
tiles tiny (so that several are exercised on small matrices); experiments use it to ask
"what would the planner do on a machine with a 4 MB L3?".

Examples
--------
>>> from gblas import hardware
>>> hw = hardware.detect()
>>> hw.l3 >= hw.l2 >= hw.l1d > 0 and hw.threads >= 1
True
>>> with hardware.assume(l3=1 << 20, threads=4):
...     hardware.detect().l3, hardware.detect().threads
(1048576, 4)
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import itertools
import os
import platform
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Hardware", "assume", "cache_sizes", "cpu_model", "detect", "parse_size"]

#: Used where the machine does not say (a small server core).
DEFAULT_CACHES = {"l1d": 32 << 10, "l2": 1 << 20, "l3": 8 << 20, "line": 64}


@dataclass(frozen=True)
class Hardware:
    """What the planner and the formats know about the CPU.

    Attributes
    ----------
    l1d, l2 : int
        Bytes of the per-core L1 data and L2 caches.
    l3 : int
        Bytes of the last-level cache (shared by the cores); the L2 where there is no L3.
    line : int
        Cache line bytes.
    threads : int
        Threads the CPU kernels run on (Numba's current setting).
    source : str
        Where the cache sizes came from: ``"sysfs"``, ``"lscpu"``, ``"default"``, and
        ``"+assumed"`` appended when :func:`assume` overrides something.
    """

    l1d: int
    l2: int
    l3: int
    line: int
    threads: int
    source: str

    def describe(self) -> str:
        """One line for ``gblas info`` and the Plan.

        Examples
        --------
        >>> Hardware(48 << 10, 1 << 20, 32 << 20, 64, 2, "sysfs").describe()
        'L1d 48 KiB, L2 1 MiB (per core), L3 32 MiB, line 64 B, 2 threads (sysfs)'
        """
        return (f"L1d {_kib(self.l1d)}, L2 {_kib(self.l2)} (per core), L3 {_kib(self.l3)}, "
                f"line {self.line} B, {self.threads} threads ({self.source})")


def _kib(n: int) -> str:
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    return f"{n >> 10} KiB" if n % 1024 == 0 else f"{n} B"


_SIZE = re.compile(r"^\s*([\d.]+)\s*([KMG]?)(i?B)?\s*$", re.IGNORECASE)


def parse_size(text: str) -> int | None:
    """Bytes from a cache size as sysfs or lscpu write it (``"48K"``, ``"32 MiB"``).

    Examples
    --------
    >>> parse_size("32768K"), parse_size("1 MiB"), parse_size("64"), parse_size("?")
    (33554432, 1048576, 64, None)
    """
    m = _SIZE.match(text or "")
    if not m:
        return None
    scale = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[m.group(2).upper()]
    return int(float(m.group(1)) * scale)


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _from_sysfs() -> dict[str, int]:
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    out: dict[str, int] = {}
    if not base.is_dir():
        return out
    for idx in sorted(base.glob("index*")):
        level, kind = _read(idx / "level"), _read(idx / "type")
        size = parse_size(_read(idx / "size") or "")
        if not level or not size or kind == "Instruction":
            continue
        key = {"1": "l1d", "2": "l2", "3": "l3"}.get(level)
        if key:
            out[key] = max(out.get(key, 0), size)
        line = _read(idx / "coherency_line_size")
        if line and line.isdigit():
            out["line"] = int(line)
    return out


def _from_lscpu() -> dict[str, int]:
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    out: dict[str, int] = {}
    # "L2 cache:  2 MiB (2 instances)": a total over the instances
    for m in re.finditer(r"^(L1d|L2|L3) cache:\s*([\d.]+\s*\w+)(?:\s*\((\d+) instances?\))?",
                         text, re.MULTILINE):
        size = parse_size(m.group(2))
        if size:
            size //= int(m.group(3) or 1)
            out[m.group(1).lower()] = size
    return out


@functools.lru_cache(maxsize=1)
def cache_sizes() -> tuple[dict[str, int], str]:
    """The machine's cache sizes (bytes) and where they were read, once per process.

    Returns
    -------
    (dict, str)
        ``{"l1d", "l2", "l3", "line"}`` and ``"sysfs"``, ``"lscpu"`` or ``"default"``.

    Examples
    --------
    >>> sizes, source = cache_sizes()
    >>> sorted(sizes), source in ("sysfs", "lscpu", "default")
    (['l1d', 'l2', 'l3', 'line'], True)
    """
    found, source = _from_sysfs(), "sysfs"
    if "l2" not in found and "l3" not in found:
        found, source = _from_lscpu(), "lscpu"
    if not found:
        source = "default"
    sizes = {**DEFAULT_CACHES, **found}
    if "l3" not in found and "l2" in found:  # no L3: the L2 is the last level
        sizes["l3"] = sizes["l2"]
    return sizes, source


_NUMBA: list = []


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo``, else what :mod:`platform` says).

    Examples
    --------
    >>> isinstance(cpu_model(), str) and len(cpu_model()) > 0
    True
    """
    text = _read(Path("/proc/cpuinfo")) or ""
    for key in ("model name", "Hardware", "Processor", "cpu model"):
        m = re.search(rf"^{key}\s*:\s*(.+)$", text, re.MULTILINE)
        if m:
            return m.group(1).strip()
    return platform.processor() or platform.machine() or "unknown"


def _threads() -> int:
    if not _NUMBA:
        try:
            import numba

            _NUMBA.append(numba.get_num_threads)
        except Exception:  # pragma: no cover - numba is a dependency
            _NUMBA.append(lambda: os.cpu_count() or 1)
    return int(_NUMBA[0]())


#: ``(serial, overrides)`` of the innermost :func:`assume` block, or None.
_ASSUMED: contextvars.ContextVar[tuple | None] = contextvars.ContextVar(
    "gblas_assumed_hardware", default=None)
_SERIAL = itertools.count(1)
_DETECTED: dict = {}


def detect() -> Hardware:
    """The hardware in force: the machine's caches and threads, with :func:`assume`'s
    overrides applied (the planner asks on every call: the answer is cached).

    Examples
    --------
    >>> detect().line in (32, 64, 128, 256)
    True
    """
    threads = _threads()
    assumed = _ASSUMED.get()
    key = (threads, assumed[0] if assumed else 0)
    hw = _DETECTED.get(key)
    if hw is None:
        sizes, source = cache_sizes()
        hw = Hardware(sizes["l1d"], sizes["l2"], sizes["l3"], sizes["line"], threads, source)
        if assumed:
            hw = dataclasses.replace(hw, **assumed[1], source=source + "+assumed")
        if len(_DETECTED) > 64:
            _DETECTED.clear()
        _DETECTED[key] = hw
    return hw


@contextlib.contextmanager
def assume(**facts: int) -> Iterator[Hardware]:
    """Override hardware facts (``l1d``, ``l2``, ``l3``, ``line``, ``threads``) in a block.

    Only what the planner and the format builders *read* changes: Numba keeps its own
    thread count (use ``gb.config(threads=...)`` for that).  Formats built inside the
    block keep the sizes they were built with, also after it.

    Parameters
    ----------
    **facts : int
        Positive integers, bytes for the caches.

    Yields
    ------
    Hardware
        The hardware in force inside the block.

    Examples
    --------
    >>> with assume(l3=4096, l2=1024, l1d=256) as hw:
    ...     hw.l3, hw.source.endswith("+assumed")
    (4096, True)
    """
    names = {f.name for f in dataclasses.fields(Hardware)} - {"source"}
    for k, v in facts.items():
        if k not in names:
            raise ValueError(f"assume: unknown hardware fact {k!r}; one of {sorted(names)}")
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise ValueError(f"assume: {k} must be a positive integer, got {v!r}")
    outer = _ASSUMED.get()
    token = _ASSUMED.set((next(_SERIAL), {**(outer[1] if outer else {}), **facts}))
    try:
        yield detect()
    finally:
        _ASSUMED.reset(token)


#: device id -> L2 bytes (read once per device).
_GPU_L2: dict[int, int] = {}


def gpu_l2_bytes() -> int:
    """L2 cache bytes of the current CUDA device (only asked for data already on the GPU,
    so CuPy is imported by then).

    Examples
    --------
    >>> gpu_l2_bytes() > 0  # doctest: +SKIP
    True
    """
    import cupy

    dev = cupy.cuda.Device()
    l2 = _GPU_L2.get(dev.id)
    if l2 is None:
        try:
            l2 = int(dev.attributes["L2CacheSize"])
        except Exception:  # pragma: no cover - attribute missing
            l2 = 50 << 20
        _GPU_L2[dev.id] = l2
    return l2


def gpu_free_bytes() -> int:
    """Device memory a new allocation can get: free on the device plus what CuPy's pool
    holds unused.

    Examples
    --------
    >>> gpu_free_bytes() >= 0  # doctest: +SKIP
    True
    """
    import cupy

    free, _total = cupy.cuda.runtime.memGetInfo()
    return int(free) + int(cupy.get_default_memory_pool().free_bytes())
