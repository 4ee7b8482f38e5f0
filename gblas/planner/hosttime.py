"""Host time of whole GPU calls, measured in this process as they run.

A GPU call's kernels are queued and return at once, so on a small graph the call is host
time: Python, the planner, the launches and the write-back.  Each GPU pull format's
estimate carries a constant for it (``gpu_fixed_s``), fitted on one machine; another host
runs the same calls 10-45% slower or faster, and the semiring moves it too (a ``min``
monoid's write-back keeps presence flags), so on small graphs the constants alone missed
by up to 43% (``benchmarks/results/gpu_estimates.md``).

The operation layer reports the wall time of every steady GPU pull call (no
synchronization: what the host spent; steady: its plan memoized, where a matrix's first
call may compile kernels or measure statistics, hundreds of times a steady call's host
time); the planner then estimates a format's host time
as the median of the last :data:`WINDOW` such calls over the same matrix and semiring
(kept with the matrix's CSR: a graph's own calls can differ from others' by 2x), else of
that format's calls over any matrix with the same semiring, else with any semiring, else
as its constant scaled by how the formats measured so far compare with theirs.  A call
that built a format, or over a matrix of more than :data:`MAX_ENTRIES` entries (where a
synchronization inside the call would count the device's work as the host's), is not
recorded.  ``gb.explain`` shows the host time used
and where it came from (``details["host_us"]``).

The record outlives the process: at exit, a process that ran GPU calls merges its last
calls into ``gpu_host_times.json`` in the gblas cache folder (``gblas info`` shows it;
``GBLAS_CACHE_DIR=off`` keeps everything in memory), under a key of the machine (CPU and
GPU models, Python, NumPy, CuPy and gblas versions).  A new process on the same machine
reads them before its first estimate and uses them after its own calls, so its first
plans take this machine's host time instead of the constants.  The file holds the GPU's
measured / modelled device-time ratios of large calls too
(:mod:`~gblas.planner.devicetime`, through :func:`keep_saved`).  An unreadable or
malformed file is ignored (and replaced at the next save).

Examples
--------
>>> clear()
>>> host_seconds({"csr": 5e-5, "gpu_segmented": 1e-4}, "plus_times")[0]
{'csr': 5e-05, 'gpu_segmented': 0.0001}
>>> for t in (8e-5, 9e-5, 1e-4):
...     record("csr", "plus_times", t)
>>> secs, source = host_seconds({"csr": 5e-5, "gpu_segmented": 1e-4}, "plus_times")
>>> round(secs["csr"] * 1e6), round(secs["gpu_segmented"] * 1e6), source
(90, 180, 'measured: csr over 3 calls; others scaled 1.8x')
>>> clear()
"""

from __future__ import annotations

import atexit
import contextlib
import json
import math
import os
import platform
import statistics
import sys
import time
from collections import deque
from pathlib import Path

__all__ = ["MAX_ENTRIES", "MIN_CALLS", "WINDOW", "clear", "generation", "host_seconds",
           "keep_saved", "load", "machine_key", "mark_unsaved", "persist", "push", "recent",
           "record", "records_aside", "record_path", "save", "set_aside"]

#: Calls kept per (format, semiring).
WINDOW = 15
#: Calls a median needs before it replaces the constants.
MIN_CALLS = 3
#: Calls over matrices of more entries are not recorded.  A pull call returns without
#: waiting for the device (on an H100 at Kronecker 22, 128M entries: 0.23 ms unsynchronized
#: against 1.27 ms synchronized), but its kernels overlap its last host steps, which an
#: estimate adding the two counts twice: recording up to 2^24 entries put ego-Twitter and
#: uk-2007-05-100k (2.7M, 3.1M) at +18% to +27%, against -15% to -1% below 2^21.
MAX_ENTRIES = 1 << 21
#: The scale applied to unmeasured formats' constants stays within these bounds.
SCALE_BOUNDS = (0.25, 4.0)

#: The file of earlier processes' calls, in the gblas cache folder.
FILE_NAME = "gpu_host_times.json"
#: Its layout's version: a file of another is ignored.  (2: files written before only
#: steady calls were recorded may hold first calls' compile times.)
FILE_VERSION = 2
#: Machines kept in the file (the most recently saved).
MAX_MACHINES = 8
#: (format, semiring) records kept per machine: this process's first, then the file's.
MAX_RECORDS = 256

#: This process's calls, per (format, semiring).
_calls: dict[tuple[str, str], deque] = {}
#: Earlier processes' calls on this machine, per (format, semiring), read once.
_prior: dict[tuple[str, str], tuple[float, ...]] = {}
#: The records the file holds per machine: name -> (this process's, earlier processes',
#: the open range of a valid value).  :func:`keep_saved` adds one.
_tables: dict[str, tuple[dict, dict, tuple[float, float]]] = {"calls": (_calls, _prior, (0.0, 1.0))}
_state = {"loaded": False, "persist": True, "dirty": False, "hooked": False}
#: Bumped whenever a record first holds :data:`MIN_CALLS` calls (an estimate's source
#: changes): the planner's memoized GPU plans are keyed by it.
_generation = [0]


def generation() -> int:
    """How many times an estimate's source changed (for memoized plans)."""
    return _generation[0]


def clear() -> None:
    """Forget every recorded call, this process's and earlier ones' (which are then not
    read from the file: tests; a new host)."""
    _calls.clear()
    _prior.clear()
    _state["loaded"] = True
    _state["dirty"] = False


def persist(on: bool) -> None:
    """Save this process's calls at exit (``True``, the default) or not (the test suite,
    whose calls are over toy matrices)."""
    _state["persist"] = bool(on)


def machine_key() -> str:
    """What the host time depends on: CPU and GPU models, Python, NumPy, CuPy and gblas
    versions (the GPU's where CuPy is imported).

    Examples
    --------
    >>> "python " in machine_key()
    True
    """
    import numpy as np

    from .. import __version__, hardware

    parts = [hardware.cpu_model(), f"python {platform.python_version()}",
             f"numpy {np.__version__}", f"gblas {__version__}"]
    cp = sys.modules.get("cupy")
    if cp is not None:
        try:
            dev = cp.cuda.Device()
            name = cp.cuda.runtime.getDeviceProperties(dev.id)["name"]
            parts += [f"cupy {cp.__version__}",
                      name.decode() if isinstance(name, bytes) else str(name)]
        except Exception:  # noqa: BLE001 - no device: a CPU-only key
            pass
    return " | ".join(parts)


def record_path() -> Path | None:
    """The file of earlier processes' calls (None when the cache is off)."""
    from .._cache import cache_root  # no compiler imported: this also runs at exit

    root = cache_root()
    return None if root is None else root / FILE_NAME


def _read_file(path: Path) -> dict:
    """The file's machines, or none where it is missing, unreadable or malformed."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != FILE_VERSION \
            or not isinstance(data.get("machines"), dict):
        return {}
    return data["machines"]


def _valid(entry: object, name: str, bounds: tuple[float, float]
           ) -> dict[tuple[str, str], tuple[float, ...]]:
    """A machine's record ``name`` from the file: each window's finite values within the
    open range ``bounds`` (for host times, below a second: not a compile), windows left
    empty dropped."""
    out = {}
    rec = entry.get(name) if isinstance(entry, dict) else None
    if not isinstance(rec, dict):
        return out
    lo, hi = bounds
    for key, ts in rec.items():
        fmt, _, sr = str(key).partition("|")
        if not sr or not isinstance(ts, list):
            continue
        ok = [float(t) for t in ts if isinstance(t, (int, float)) and not isinstance(t, bool)
              and math.isfinite(t) and lo < t < hi]
        if ok:
            out[(fmt, sr)] = tuple(ok[-WINDOW:])
    return out


def keep_saved(name: str, live: dict, prior: dict, bounds: tuple[float, float]) -> None:
    """Save the windows of ``live`` (by (format, semiring)) in the file under ``name``
    with this process's host times, and read earlier processes' into ``prior`` with
    them; values outside the open range ``bounds`` are not trusted."""
    _tables[name] = (live, prior, bounds)


def load() -> None:
    """Read earlier processes' records on this machine, once (before the first estimate)."""
    if _state["loaded"]:
        return
    _state["loaded"] = True
    path = record_path()
    if path is None or not _state["persist"]:
        return
    entry = _read_file(path).get(machine_key())
    for name, (_, prior, bounds) in _tables.items():
        prior.clear()
        prior.update(_valid(entry, name, bounds))


def save() -> Path | None:
    """Merge this process's records into the file (atomically), after the file's on this
    machine; the path written, or None (nothing recorded, the cache off, or the folder
    not writable).  Runs at exit once a GPU call was recorded."""
    path = record_path()
    if path is None or not any(live for live, _, _ in _tables.values()):
        return None
    key = machine_key()
    machines = _read_file(path)
    entry = {"saved": time.time()}
    for name, (live, _, bounds) in _tables.items():
        entry[name] = _merged(_valid(machines.get(key), name, bounds), live)
    machines[key] = entry
    newest = sorted(machines, key=lambda k: -float(machines[k].get("saved", 0)
                                                   if isinstance(machines[k], dict) else 0))
    machines = {k: machines[k] for k in newest[:MAX_MACHINES]}
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps({"version": FILE_VERSION, "machines": machines}, indent=0))
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        return None
    _state["dirty"] = False
    return path


def _merged(saved: dict, live: dict) -> dict[str, list[float]]:
    """The file's windows with this process's values appended (the last :data:`WINDOW`
    kept), at most :data:`MAX_RECORDS` windows: this process's first."""
    out = {f"{f}|{sr}": list(ts) for (f, sr), ts in saved.items()}
    for (f, sr), q in live.items():
        out[f"{f}|{sr}"] = (out.get(f"{f}|{sr}", []) + list(q))[-WINDOW:]
    if len(out) > MAX_RECORDS:  # many user-defined semirings: keep the recent ones
        mine = [f"{f}|{sr}" for f, sr in live]
        ours = set(mine)
        keep = mine[-MAX_RECORDS:] + [k for k in out if k not in ours]
        out = {k: out[k] for k in keep[:MAX_RECORDS]}
    return out


def _save_at_exit() -> None:
    if _state["dirty"] and _state["persist"]:
        save()


@contextlib.contextmanager
def set_aside(*, prior: bool = False):
    """Within the block the record is empty (the estimates take the constants; with
    ``prior=True``, earlier processes' calls alone, as a new process's first estimate);
    the calls recorded before come back after it, those recorded inside are dropped.

    Examples
    --------
    >>> clear(); [record("csr", "plus_times", 1e-4) for _ in range(3)] and None
    >>> with set_aside():
    ...     host_seconds({"csr": 5e-5}, "plus_times")[1]
    'constants'
    >>> host_seconds({"csr": 5e-5}, "plus_times")[1]
    'measured: csr over 3 calls'
    >>> clear()
    """
    with records_aside(_calls, _prior, prior=prior):
        yield


@contextlib.contextmanager
def records_aside(live: dict, earlier: dict, *, prior: bool = False):
    """Within the block ``live`` is empty (and ``earlier`` too unless ``prior``), the
    file read first; both come back as they were after it (what :func:`set_aside` does
    for the host times, and :mod:`~gblas.planner.devicetime` for its ratios)."""
    load()
    kept, kept_earlier = dict(live), dict(earlier)
    live.clear()
    if not prior:
        earlier.clear()
    try:
        yield
    finally:
        live.clear()
        live.update(kept)
        earlier.clear()
        earlier.update(kept_earlier)


def push(where: dict, key: tuple, value: float) -> None:
    """Append ``value`` to the window of the last :data:`WINDOW` values kept under ``key``;
    a window that reaches :data:`MIN_CALLS` values is a new source of estimates
    (:func:`generation` moves)."""
    q = where.get(key)
    if q is None:
        q = where[key] = deque(maxlen=WINDOW)
    q.append(float(value))
    if len(q) == MIN_CALLS:
        _generation[0] += 1


def record(fmt: str, semiring: str, seconds: float, own: dict | None = None) -> None:
    """Record the host seconds of one GPU pull call in ``fmt`` over ``semiring``; ``own``:
    the matrix's memo (its CSR's summary), which keeps the matrix's own calls too."""
    push(_calls, (fmt, semiring), seconds)
    if own is not None:
        push(own, ("host_s", fmt, semiring), seconds)
    mark_unsaved()


def mark_unsaved() -> None:
    """A record changed: save the file at exit."""
    _state["dirty"] = True
    if not _state["hooked"]:
        _state["hooked"] = True
        atexit.register(_save_at_exit)


def recent(fmt: str, semiring: str, sources: tuple
           ) -> tuple[list[float], bool] | None:
    """The values to take for ``fmt`` over ``semiring``: the first window of ``sources``
    (``(record, earlier)`` pairs, in order) holding :data:`MIN_CALLS` of them, else the
    last :data:`WINDOW` of ``fmt``'s over any semiring, record by record; and whether
    they are earlier processes'.  None where no record holds enough."""
    for rec, earlier in sources:
        q = rec.get((fmt, semiring))
        if q is not None and len(q) >= MIN_CALLS:
            return list(q), earlier
    for rec, earlier in sources:
        pooled = [t for (f, _), q in rec.items() if f == fmt for t in q][-WINDOW:]
        if len(pooled) >= MIN_CALLS:
            return pooled, earlier
    return None


def _median(fmt: str, semiring: str, own: dict | None) -> tuple[float, int, bool] | None:
    """The median host seconds of ``fmt``'s recorded calls (over the matrix with memo
    ``own`` and ``semiring``, else any matrix and ``semiring`` in this process, then in
    earlier ones, else any semiring, likewise), how many calls it holds and whether they
    are earlier processes'; None below :data:`MIN_CALLS`."""
    q = None if own is None else own.get(("host_s", fmt, semiring))
    got = ((list(q), False) if q is not None and len(q) >= MIN_CALLS
           else recent(fmt, semiring, ((_calls, False), (_prior, True))))
    return None if got is None else (statistics.median(got[0]), len(got[0]), got[1])


def host_seconds(defaults: dict[str, float], semiring: str,
                 own: dict | None = None, *, nnz: int = 0) -> tuple[dict[str, float], str]:
    """Each format's host seconds per call, and where they come from.

    Parameters
    ----------
    defaults : dict
        Format name -> its constant (``gpu_fixed_s``).
    semiring : str
        The semiring's name.
    own : dict, optional
        The matrix's memo (its CSR's summary), holding its own calls.
    nnz : int, optional
        The matrix's entries: above :data:`MAX_ENTRIES` its calls' host time overlaps
        the device's, and the constants (fitted on such graphs) are used as they are
        (adding a small graph's measured host time put an H100's Kronecker 18-20 and
        uk-2007-05-100k products at +24% to +69%).

    Returns
    -------
    (dict, str)
        Format -> seconds: measured where the format has :data:`MIN_CALLS` calls, else its
        constant times the median ratio of measured to constant over the formats that
        have; and a few words on the source.
    """
    if nnz > MAX_ENTRIES:
        return dict(defaults), f"constants (over {MAX_ENTRIES:,} entries)"
    load()
    if not _calls and not _prior:
        return dict(defaults), "constants"
    measured = {f: m for f in defaults if (m := _median(f, semiring, own)) is not None}
    if not measured:
        return dict(defaults), "constants"
    lo, hi = SCALE_BOUNDS
    ratios = [measured[f][0] / defaults[f] for f in measured if defaults[f] > 0]
    scale = min(max(statistics.median(ratios), lo), hi) if ratios else 1.0
    out = {f: measured[f][0] if f in measured else defaults[f] * scale for f in defaults}
    words = ", ".join(f"{f} over {measured[f][1]} calls"
                      + (" of earlier processes" if measured[f][2] else "") for f in measured)
    rest = "" if len(measured) == len(defaults) else f"; others scaled {scale:.2g}x"
    return out, f"measured: {words}{rest}"
