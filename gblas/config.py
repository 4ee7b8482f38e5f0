"""Context-variable settings: planner overrides, memory budget, threads.

Examples
--------
>>> import gblas as gb
>>> with gb.config(direction="pull"):
...     gb.config.current().direction
'pull'
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass, fields, replace

import numpy as np

from .exceptions import InvalidValue, bad_arg

_DIRECTIONS = (None, "pull", "push")
_MXM_METHODS = (None, "saxpy", "dot")


@dataclass(frozen=True)
class Settings:
    """The settings in force.  ``None`` means "let the planner choose"."""

    format: str | None = None
    direction: str | None = None
    mxm_method: str | None = None
    memory_budget: int | None = None  # bytes for cached derived formats per matrix
    threads: int | None = None
    expected_uses: int | None = None  # products the caller expects: weighs format builds


_DEFAULT = Settings()
_current: contextvars.ContextVar[Settings] = contextvars.ContextVar("gblas_settings")


def _validate(kw: dict) -> None:
    names = {f.name for f in fields(Settings)}
    if "device" in kw:
        raise bad_arg(InvalidValue, "config", "device", "a setting of the planner ("
                      + ", ".join(sorted(names)) + ")", repr(kw["device"])
                      + "; a Matrix or Vector runs where it lives: move it with A.to('gpu')")
    for k in kw:
        if k not in names:
            raise bad_arg(InvalidValue, "config", k, "one of " + ", ".join(sorted(names)),
                          repr(k))
    if kw.get("direction") not in _DIRECTIONS:
        raise bad_arg(InvalidValue, "config", "direction", "'pull', 'push' or None",
                      repr(kw["direction"]))
    if kw.get("mxm_method") not in _MXM_METHODS:
        raise bad_arg(InvalidValue, "config", "mxm_method", "'saxpy', 'dot' or None",
                      repr(kw["mxm_method"]))
    if "format" in kw and kw["format"] is not None:
        from .formats import FORMATS

        if kw["format"] not in FORMATS:
            raise bad_arg(InvalidValue, "config", "format",
                          "one of " + ", ".join(map(repr, sorted(FORMATS))), repr(kw["format"]))
    uses = kw.get("expected_uses")
    if uses is not None and (isinstance(uses, bool) or not isinstance(uses, int) or uses < 1):
        raise bad_arg(InvalidValue, "config", "expected_uses", "an integer >= 1 or None",
                      repr(uses))
    threads = kw.get("threads")
    if threads is not None:
        import numba

        most = int(numba.config.NUMBA_NUM_THREADS)
        if isinstance(threads, (bool, np.bool_)) or not isinstance(threads, (int, np.integer)) \
                or not 1 <= threads <= most:
            raise bad_arg(InvalidValue, "config", "threads", f"an integer in [1, {most}] or None",
                          repr(threads), f"Numba's thread pool has {most} threads "
                          "(NUMBA_NUM_THREADS, set before the process starts).")
    budget = kw.get("memory_budget")
    if budget is not None and (not isinstance(budget, int) or budget < 0):
        raise bad_arg(InvalidValue, "config", "memory_budget", "a number of bytes >= 0",
                      repr(budget))


class _Config:
    """``gb.config(...)``: a context manager pinning planner choices.

    Parameters
    ----------
    format : str, optional
        Matrix format to use (``"csr"``; more with the cache-aware formats).
    direction : {"pull", "push"}, optional
        mxv/vxm direction.
    mxm_method : {"saxpy", "dot"}, optional
        Masked SpGEMM method.
    memory_budget : int, optional
        Bytes allowed for cached derived formats per matrix.
    threads : int, optional
        Numba threads for CPU kernels, from 1 to Numba's pool size
        (``NUMBA_NUM_THREADS``, by default the machine's cores).
    expected_uses : int, optional
        How many products the code inside will run with the same matrix (an iterative
        algorithm's iterations).  The planner builds a faster format when that many calls
        pay for its build, instead of waiting until the calls so far have (ski rental);
        ``gb.explain`` shows it in the plan's ``details["expected_uses"]``.

    There is no device setting: an operation runs where its operands live (``A.to("gpu")``
    moves a Matrix).

    Examples
    --------
    >>> import gblas as gb
    >>> with gb.config(format="csr", direction="pull"):
    ...     gb.config.current().format
    'csr'
    """

    def __call__(self, **kw) -> contextlib.AbstractContextManager:
        _validate(kw)
        return self._ctx(kw)

    @contextlib.contextmanager
    def _ctx(self, kw):
        token = _current.set(replace(_current.get(_DEFAULT), **kw))
        prev_threads = None
        if kw.get("threads") is not None:
            import numba

            prev_threads = numba.get_num_threads()
            numba.set_num_threads(int(kw["threads"]))
        try:
            yield _current.get(_DEFAULT)
        finally:
            _current.reset(token)
            if prev_threads is not None:
                import numba

                numba.set_num_threads(prev_threads)

    @staticmethod
    def current() -> Settings:
        """The settings in force now."""
        return _current.get(_DEFAULT)


config = _Config()
