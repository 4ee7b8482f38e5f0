"""Host time of whole GPU calls, measured in this process as they run.

A GPU call's kernels are queued and return at once, so on a small graph the call is host
time: Python, the planner, the launches and the write-back.  Each GPU pull format's
estimate carries a constant for it (``gpu_fixed_s``), fitted on one machine; another host
runs the same calls 10-45% slower or faster, and the semiring moves it too (a ``min``
monoid's write-back keeps presence flags), so on small graphs the constants alone missed
by up to 43% (``benchmarks/results/gpu_estimates.md``).

The operation layer reports the wall time of every planned GPU pull call (no
synchronization: what the host spent); the planner then estimates a format's host time
as the median of the last :data:`WINDOW` such calls over the same matrix and semiring
(kept with the matrix's CSR: a graph's own calls can differ from others' by 2x), else of
that format's calls over any matrix with the same semiring, else with any semiring, else
as its constant scaled by how the formats measured so far compare with theirs.  A call
that built a format, or over a matrix of more than :data:`MAX_ENTRIES` entries (where a
synchronization inside the call would count the device's work as the host's), is not
recorded.  ``gb.explain`` shows the host time used
and where it came from (``details["host_us"]``).

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

import contextlib
import statistics
from collections import deque

__all__ = ["MAX_ENTRIES", "MIN_CALLS", "WINDOW", "clear", "generation", "host_seconds",
           "record", "set_aside"]

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

_calls: dict[tuple[str, str], deque] = {}
#: Bumped whenever a record first holds :data:`MIN_CALLS` calls (an estimate's source
#: changes): the planner's memoized GPU plans are keyed by it.
_generation = [0]


def generation() -> int:
    """How many times an estimate's source changed (for memoized plans)."""
    return _generation[0]


def clear() -> None:
    """Forget every recorded call (tests; a new host)."""
    _calls.clear()


@contextlib.contextmanager
def set_aside():
    """Within the block the record is empty (the estimates take the constants); the
    calls recorded before come back after it, those recorded inside are dropped.

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
    kept = dict(_calls)
    _calls.clear()
    try:
        yield
    finally:
        _calls.clear()
        _calls.update(kept)


def record(fmt: str, semiring: str, seconds: float, own: dict | None = None) -> None:
    """Record the host seconds of one GPU pull call in ``fmt`` over ``semiring``; ``own``:
    the matrix's memo (its CSR's summary), which keeps the matrix's own calls too."""
    for where, key in ((_calls, (fmt, semiring)), (own, ("host_s", fmt, semiring))):
        if where is None:
            continue
        q = where.get(key)
        if q is None:
            q = where[key] = deque(maxlen=WINDOW)
        q.append(float(seconds))
        if len(q) == MIN_CALLS:
            _generation[0] += 1


def _median(fmt: str, semiring: str, own: dict | None) -> tuple[float, int] | None:
    """The median host seconds of ``fmt``'s recorded calls (over the matrix with memo
    ``own`` and ``semiring``, else any matrix and ``semiring``, else any semiring) and how
    many calls it holds; None below :data:`MIN_CALLS`."""
    for q in (None if own is None else own.get(("host_s", fmt, semiring)),
              _calls.get((fmt, semiring))):
        if q is not None and len(q) >= MIN_CALLS:
            return statistics.median(q), len(q)
    pooled = [t for (f, _), q in _calls.items() if f == fmt for t in q]
    if len(pooled) >= MIN_CALLS:
        return statistics.median(pooled[-WINDOW:]), len(pooled[-WINDOW:])
    return None


def host_seconds(defaults: dict[str, float], semiring: str,
                 own: dict | None = None) -> tuple[dict[str, float], str]:
    """Each format's host seconds per call, and where they come from.

    Parameters
    ----------
    defaults : dict
        Format name -> its constant (``gpu_fixed_s``).
    semiring : str
        The semiring's name.
    own : dict, optional
        The matrix's memo (its CSR's summary), holding its own calls.

    Returns
    -------
    (dict, str)
        Format -> seconds: measured where the format has :data:`MIN_CALLS` calls, else its
        constant times the median ratio of measured to constant over the formats that
        have; and a few words on the source.
    """
    if not _calls:
        return dict(defaults), "constants"
    measured = {f: m for f in defaults if (m := _median(f, semiring, own)) is not None}
    if not measured:
        return dict(defaults), "constants"
    lo, hi = SCALE_BOUNDS
    ratios = [measured[f][0] / defaults[f] for f in measured if defaults[f] > 0]
    scale = min(max(statistics.median(ratios), lo), hi) if ratios else 1.0
    out = {f: measured[f][0] if f in measured else defaults[f] * scale for f in defaults}
    words = ", ".join(f"{f} over {measured[f][1]} calls" for f in measured)
    rest = "" if len(measured) == len(defaults) else f"; others scaled {scale:.2g}x"
    return out, f"measured: {words}{rest}"
