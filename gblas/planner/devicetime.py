"""Large GPU pull calls timed by the device as they run, for the planner's estimates.

A GPU format's estimate is a model: its device time (bytes over a bandwidth fitted per
format, ``gblas.planner.cost``) plus a host constant (:mod:`~gblas.planner.hosttime`).  On
large graphs the device's part decides, and the fitted bandwidths miss on another card
(gpu_heavy_light ran 16-31% slower on an H100 than its H200 fit at Kronecker 20-22).

So the operation layer brackets every planned GPU pull call over more than
:data:`~gblas.planner.hosttime.MAX_ENTRIES` entries (where the device's part dominates)
with two CUDA events, without waiting for them; a later call reads the pairs that have
completed (``cudaEventQuery``: no synchronization) and records the elapsed time next to
the model's estimate of the whole call.  The span is the call's: the device idles while
the host prepares the launches, so it holds them too (on an H100 it came within 10% of
the synchronized wall time).  The planner then estimates a call, per format, as

1. the median span of the matrix's own measured calls (kept with its CSR), else
2. the model scaled by the median ratio measured / modelled over the format's calls on any
   matrix with the same semiring, else any semiring (bounded: :data:`SCALE_BOUNDS`), else
3. the model,

on matrices of more than ``MAX_ENTRIES`` entries only (below, the host's time decides and
is measured as such).  ``gb.explain`` shows the source in ``details["device_from"]``.

The ratios outlive the process: they are saved at exit with the host times
(:mod:`~gblas.planner.hosttime`, the same file and machine key), and a new process on
the same machine scales the model by the earlier processes' ratios until it has
measured its own: a card the model was not fitted on is known from the first large call.
A matrix's own calls are not saved (a new process holds a new Matrix).

CPU calls run to their end before returning: the operation layer times the large ones
with the clock and records them with their matrix (no ratio), and the CPU pull rule takes
a format's measured median in place of its model.

Examples
--------
>>> clear()
>>> model = {"csr": 1e-3, "gpu_heavy_light": 4e-4}
>>> call_seconds(model, "plus_times", nnz=1 << 24)[1]
'model'
>>> for _ in range(3):
...     record("gpu_heavy_light", "plus_times", 5e-4, 4e-4)
>>> secs, source = call_seconds(model, "plus_times", nnz=1 << 24)
>>> round(secs["gpu_heavy_light"] * 1e6), round(secs["csr"] * 1e6), source
(500, 1000, 'gpu_heavy_light x1.25 over 3 calls')
>>> call_seconds(model, "plus_times", nnz=1000)[1]   # a small graph: the host decides
'model'
>>> clear()
"""

from __future__ import annotations

import contextlib
import statistics
from collections import deque
from typing import Any

from . import hosttime

__all__ = ["SCALE_BOUNDS", "begin", "call_seconds", "clear", "end", "record", "set_aside"]

#: The measured / modelled ratio applied to a format's model stays within these bounds.
SCALE_BOUNDS = (0.5, 2.0)
#: Event pairs waiting to complete, at most (the oldest are dropped).
MAX_PENDING = 64

#: (format, semiring) -> measured / modelled ratios of recent calls over any matrix.
_ratios: dict[tuple[str, str], deque] = {}
#: The same, of earlier processes on this machine (read from the file once).
_prior: dict[tuple[str, str], tuple[float, ...]] = {}
#: A saved ratio outside this open range is not trusted (a stall, a corrupt file).
VALID_RATIOS = (1e-3, 1e3)
hosttime.keep_saved("ratios", _ratios, _prior, VALID_RATIOS)
#: Event pairs not yet read: (start, end, format, semiring, modelled s, matrix memo).
_pending: deque = deque(maxlen=MAX_PENDING)


def clear() -> None:
    """Forget every measured call, this process's and earlier ones', and every pending
    event (tests)."""
    _ratios.clear()
    _prior.clear()
    _pending.clear()


@contextlib.contextmanager
def set_aside(*, prior: bool = False):
    """Within the block nothing is measured (the estimates take the model; with
    ``prior=True``, earlier processes' ratios alone, as a new process's first estimate);
    the calls measured before come back after it, those inside are dropped."""
    with hosttime.records_aside(_ratios, _prior, prior=prior):
        yield


def record(fmt: str, semiring: str, seconds: float, model_s: float,
           own: dict | None = None) -> None:
    """Record one call's device ``seconds`` in ``fmt`` over ``semiring``, whose model
    estimate was ``model_s`` (0: none, a pinned format's call: kept with the matrix only);
    ``own``: the matrix's memo (its CSR's summary).  Kept in windows by
    :func:`~gblas.planner.hosttime.push` (a new source of estimates redoes memoized
    plans)."""
    if not seconds > 0:
        return
    if model_s > 0:
        hosttime.push(_ratios, (fmt, semiring), seconds / model_s)
        hosttime.mark_unsaved()
    if own is not None:
        hosttime.push(own, ("device_s", fmt, semiring), seconds)


def begin(stream: Any = None) -> Any:
    """A CUDA event recorded now on the current stream (before a call's kernels)."""
    import cupy as cp

    ev = cp.cuda.Event()
    ev.record(stream)
    return ev


def end(start: Any, fmt: str, semiring: str, model_s: float, own: dict | None) -> None:
    """Record an event after the call's kernels; read the pairs that have completed."""
    import cupy as cp

    ev = cp.cuda.Event()
    ev.record()
    _pending.append((start, ev, fmt, semiring, float(model_s), own))
    collect()


def collect() -> None:
    """Record the pending pairs whose end has completed (none is waited for)."""
    import cupy as cp

    while _pending and _pending[0][1].done:
        start, stop, fmt, semiring, model_s, own = _pending.popleft()
        try:
            ms = cp.cuda.get_elapsed_time(start, stop)
        except cp.cuda.runtime.CUDARuntimeError:  # e.g. the current device changed between
            continue
        record(fmt, semiring, 1e-3 * ms, model_s, own)


def call_seconds(model: dict[str, float], semiring: str, own: dict | None = None,
                 nnz: int = 0, *, scale: bool = True) -> tuple[dict[str, float], str]:
    """Each format's seconds per call, and where they come from.

    Parameters
    ----------
    model : dict
        Format name -> the model's estimate of a whole call (device and host).
    semiring : str
        The semiring's name.
    own : dict, optional
        The matrix's memo (its CSR's summary), holding its own measured calls.
    nnz : int, optional
        The matrix's entries: at most ``hosttime.MAX_ENTRIES``, the model as it is.
    scale : bool, default True
        Scale unmeasured formats by the ratios measured on other matrices (the GPU's);
        False: the matrix's own calls only (the CPU's, whose cache behaviour differs
        from graph to graph more than a ratio carries).

    Returns
    -------
    (dict, str)
        Format -> seconds (measured on this matrix, else the model scaled by the
        format's measured / modelled ratio, this process's else earlier ones', else the
        model) and a few words.
    """
    if nnz <= hosttime.MAX_ENTRIES:
        return dict(model), "model"
    if _pending:
        collect()
    hosttime.load()
    if not ((_ratios or _prior) and scale) and not own:
        return dict(model), "model"
    lo, hi = SCALE_BOUNDS
    out, words = {}, []
    for f, m in model.items():
        q = None if own is None else own.get(("device_s", f, semiring))
        if q is not None and len(q) >= hosttime.MIN_CALLS:
            out[f] = statistics.median(q)
            words.append(f"{f} measured here over {len(q)} calls")
            continue
        got = hosttime.recent(f, semiring, ((_ratios, False), (_prior, True))) if scale \
            else None
        if got is None:
            out[f] = m
            continue
        k = min(max(statistics.median(got[0]), lo), hi)
        out[f] = m * k
        words.append(f"{f} x{k:.3g} over {len(got[0])} calls"
                     + (" of earlier processes" if got[1] else ""))
    return out, "; ".join(words) or "model"
