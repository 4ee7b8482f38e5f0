"""Compile the built-in kernels into the on-disk caches ahead of use (``gblas warmup``).

A kernel is compiled the first time a call needs it for its semiring and dtypes; the
compiled code is kept on disk, so each kernel is compiled once per machine: the CPU
kernels in gblas's kernel cache (:mod:`gblas.backends.cpu.jitcache`), the GPU kernels
(CUDA sources compiled by NVRTC) in CuPy's (:func:`gpu_cache_dir`).  :func:`warmup` makes
those first calls up front on one device: the algorithms of :mod:`gblas.algorithms` on a
small and a medium graph (the medium one takes the parallel paths) in float64 and
float32, PageRank with each of the device's formats for its products, and ``mxv`` /
``vxm`` (pull and push) over the common semirings and dtypes.  On the GPU the same calls
also compile the CPU kernels a GPU call uses on the host.

Examples
--------
>>> from gblas.warmup import warmup_tasks
>>> "pagerank" in [t.name for t in warmup_tasks()]
True
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["WarmupTask", "warmup", "warmup_tasks", "gpu_cache_dir", "gpu_cache_stats",
           "COMMON_SEMIRINGS", "COMMON_DTYPES", "DEVICES"]

#: Semirings compiled for every dtype in :data:`COMMON_DTYPES` (those the algorithms and
#: most user code run).
COMMON_SEMIRINGS = ("plus_times", "min_plus", "max_times", "any_pair", "plus_pair")
#: Value types of the warm-up: the algorithms run on both, the semirings on each.
COMMON_DTYPES = ("float64", "float32")

#: The devices a warm-up runs on.
DEVICES = ("cpu", "gpu")


def _formats(device: str) -> tuple[str, ...]:
    """The formats besides CSR the planner may build on ``device`` for pull products
    (PageRank's product is compiled on each)."""
    from .formats import pull_formats

    return tuple(name for name in pull_formats(device) if name != "csr")


@dataclass(frozen=True)
class WarmupTask:
    """One step of :func:`warmup`: ``run()`` makes the calls that compile ``name``."""

    name: str
    run: Callable[[], Any]


_GRAPHS: dict[str, Any] = {}


def _graphs() -> dict[str, Any]:
    """The warm-up graphs as SciPy CSR (float64), generated once."""
    if not _GRAPHS:
        from .io import generators

        # below the parallel thresholds (the sequential kernels), and above them (16K
        # vertices, ~260K entries: the parallel drivers)
        for name, scale, ef in (("small", 8, 8), ("medium", 14, 16)):
            A = generators.kronecker(scale, ef, seed=1, dtype="float64")
            _GRAPHS[name] = A.to_scipy()
    return _GRAPHS


def _matrices(dtype: str = "float64", device: str = "cpu"):
    from . import Matrix

    return [Matrix.from_scipy(S.astype(dtype)).to(device) for S in _graphs().values()]


def _undirected(S, device: str = "cpu"):
    """The pattern of ``S + S'`` without self-loops (what the undirected algorithms take)."""
    import scipy.sparse as sp

    from . import Matrix

    U = sp.csr_array(((S + S.T) != 0).astype(np.float64))
    U.setdiag(0)
    U.eliminate_zeros()
    return Matrix.from_scipy(U).to(device)


def _algorithm_tasks(device: str = "cpu") -> list[WarmupTask]:
    from . import algorithms as alg

    def directed(fn):
        return lambda: [fn(A) for dt in COMMON_DTYPES for A in _matrices(dt, device)]

    def undirected(fn):
        return lambda: [fn(_undirected(S, device)) for S in _graphs().values()]

    # the CPU's push levels on several threads start above the warm-up graphs' sizes
    bfs = ((lambda A: (alg.bfs(A, 0), _parallel_bfs(A))) if device == "cpu" else
           (lambda A: (alg.bfs(A, 0), alg.bfs(A, 0, parents=True))))
    return [
        WarmupTask("pagerank", directed(alg.pagerank)),
        WarmupTask("bfs", directed(bfs)),
        WarmupTask("sssp", directed(lambda A: alg.sssp(A, 0))),
        WarmupTask("connected_components", directed(alg.connected_components)),
        WarmupTask("betweenness_centrality",
                   directed(lambda A: alg.betweenness_centrality(A, sources=[0, 1, 2, 3]))),
        WarmupTask("triangle_count", undirected(alg.triangle_count)),
        WarmupTask("core_number", undirected(alg.core_number)),
        WarmupTask("label_propagation", undirected(alg.label_propagation)),
        WarmupTask("pagerank on each format", lambda: [
            _pinned(fmt, alg.pagerank, A) for fmt in _formats(device)
            for A in _matrices(device=device)]),
        WarmupTask("hits, katz, eigenvector", lambda: _power_iterations(device)),
    ]


def _power_iterations(device: str) -> None:
    """The spectral centralities on the warm-up graphs (a few iterations: their steps
    and products compile whether or not they converge), and on the CPU the fused step's
    and the sparse BFS results' kernels for vectors above the parallel threshold."""
    import functools

    from . import algorithms as alg
    from .algorithms import PowerIterationFailedConvergence

    calls = (functools.partial(alg.hits, max_iter=3),
             functools.partial(alg.katz_centrality, alpha=1e-3, max_iter=3),
             functools.partial(alg.eigenvector_centrality, max_iter=3))
    graphs = _matrices(device=device) + [_undirected(S, device) for S in _graphs().values()]
    for A in graphs:
        for call in calls:
            try:
                call(A)
            except PowerIterationFailedConvergence:
                pass
    if device != "cpu":
        return
    from .backends.cpu.reached import gather_levels, sorted_ids
    from .backends.cpu.traversal_seq import gather_packed
    from .backends.cpu.vector_kernels import PARALLEL_SIZE
    from .backends.registry import get_kernel

    n = PARALLEL_SIZE
    step, x = get_kernel("power_step", "array", "cpu"), np.ones(n)
    for present, b in ((None, None), (np.ones(n, dtype=np.bool_), np.ones(n))):
        step(np.ones(n), present, x, b, 1.0, False, True, np.empty(n), x)
    ids = sorted_ids(np.arange(8, dtype=np.int32), 8, 8)
    gather_levels(np.zeros(8, dtype=np.int32), ids)
    gather_levels(np.zeros(8, dtype=np.int64), ids)
    gather_packed(np.zeros(8, dtype=np.int64), ids)


def _parallel_bfs(A):
    """The CPU BFS's push levels on several threads (taken from hundreds of thousands of
    frontier edges, more than the warm-up graphs have: the threshold lowered here)."""
    from .backends.registry import get_kernel

    return get_kernel("bfs", "csr", "cpu", "levels")(A.csr(), None, 0, False,
                                                      parallel_edges=1)


def _pinned(fmt: str, fn, *args):
    import gblas as gb

    with gb.config(format=fmt):
        return fn(*args)


def _semiring_tasks(device: str = "cpu") -> list[WarmupTask]:
    import gblas as gb

    def run_semiring(name: str):
        def run():
            for dt in COMMON_DTYPES:
                for A in _matrices(dt, device):
                    n = A.shape[0]
                    ids = np.arange(0, n, 97)
                    x = gb.Vector.from_dense(np.ones(n, dtype=dt)).to(device)
                    f = gb.Vector.from_coo(ids, np.ones(ids.size, dtype=dt), n).to(device)
                    _try(gb.mxv, A, x, name)
                    _try(gb.mxv, A, f, name)
                    _try(gb.vxm, f, A, name)
        return run

    return [WarmupTask(f"mxv {s}", run_semiring(s)) for s in COMMON_SEMIRINGS]


def _try(fn, *args) -> None:
    """Call ``fn``; a semiring that does not take a dtype is skipped (compiling is the
    point, and the call's own error says why)."""
    from .exceptions import GraphBLASError

    try:
        fn(*args)
    except GraphBLASError:
        pass


def warmup_tasks(device: str = "cpu") -> list[WarmupTask]:
    """The steps of :func:`warmup` on ``device``, in order (the graphs are generated by the
    first).

    Examples
    --------
    >>> [t.name for t in warmup_tasks("gpu")][:3]
    ['pagerank', 'bfs', 'sssp']
    """
    if device not in DEVICES:
        from .exceptions import InvalidValue

        raise InvalidValue(f"warmup: argument 'device' must be one of {list(DEVICES)}, "
                           f"got {device!r}")
    return _algorithm_tasks(device) + _semiring_tasks(device)


def gpu_cache_dir() -> str:
    """The folder where CuPy keeps the compiled GPU kernels (``CUPY_CACHE_DIR``, default
    ``~/.cupy/kernel_cache``): CuPy keys each by its source text, the compiler's version
    and the GPU's architecture, so a changed kernel compiles again.  Read without
    importing CuPy.

    Examples
    --------
    >>> gpu_cache_dir().endswith("kernel_cache") or "CUPY_CACHE_DIR" in __import__("os").environ
    True
    """
    env = os.environ.get("CUPY_CACHE_DIR")
    return str(Path(env).expanduser() if env else Path.home() / ".cupy" / "kernel_cache")


def gpu_cache_stats() -> dict[str, Any]:
    """``{"path", "files", "bytes"}`` of CuPy's kernel cache (every file under it).

    Examples
    --------
    >>> sorted(gpu_cache_stats())
    ['bytes', 'files', 'path']
    """
    path = Path(gpu_cache_dir())
    files = size = 0
    if path.is_dir():
        for f in path.rglob("*"):
            if f.is_file():
                files += 1
                size += f.stat().st_size
    return {"path": str(path), "files": files, "bytes": size}


def warmup(progress: Callable[[int, int, str, float], None] | None = None,
           only: list[str] | None = None, device: str = "cpu") -> dict[str, float]:
    """Compile the built-in kernels of ``device`` into the kernel caches; returns seconds
    per step.

    Parameters
    ----------
    progress : callable, optional
        Called as ``progress(done, total, name, elapsed)`` after each step.
    only : list of str, optional
        Run only the steps with these names (see :func:`warmup_tasks`).
    device : {"cpu", "gpu"}, default "cpu"
        The kernels to compile: the CPU's (Numba), or the GPU's (CUDA, with the CPU
        kernels a GPU call runs on the host).  ``"gpu"`` needs CuPy and a CUDA device.

    Returns
    -------
    dict
        ``{step name: seconds}``.

    Examples
    --------
    >>> from gblas.warmup import warmup
    >>> secs = warmup(only=["bfs"])  # doctest: +SKIP
    """
    tasks = warmup_tasks(device)
    if device == "gpu":
        from ._device import cupy_module

        cupy_module("warmup")  # a clear NoGPU error before any step runs
    if only is not None:
        unknown = sorted(set(only) - {t.name for t in tasks})
        if unknown:
            from .exceptions import InvalidValue

            raise InvalidValue(
                f"warmup: unknown step(s) {unknown} in argument 'only'; expected names "
                f"from {[t.name for t in tasks]}")
        tasks = [t for t in tasks if t.name in only]
    times: dict[str, float] = {}
    t_all = time.perf_counter()
    for i, t in enumerate(tasks):
        t0 = time.perf_counter()
        t.run()
        times[t.name] = time.perf_counter() - t0
        if progress is not None:
            progress(i + 1, len(tasks), t.name, time.perf_counter() - t_all)
    return times
