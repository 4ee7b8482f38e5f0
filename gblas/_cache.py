"""Where gblas keeps what it learns across processes: compiled CPU kernels, the planner's
records of host and device time.  A light module (no Numba, no CuPy), so that a process
can find the folder at exit without importing a compiler then."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CACHE_ENV", "cache_root"]

#: The environment variable naming the cache folder ("off" turns caching off).
CACHE_ENV = "GBLAS_CACHE_DIR"


def cache_root() -> Path | None:
    """The gblas cache folder (None when caching is turned off with ``GBLAS_CACHE_DIR=off``).

    Examples
    --------
    >>> isinstance(cache_root(), (Path, type(None)))
    True
    """
    env = os.environ.get(CACHE_ENV)
    if env is not None:
        if env.strip().lower() in ("", "0", "off", "none", "false"):
            return None
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "gblas"
