"""The ``gblas`` command: ``gblas run``, ``gblas explain``, ``gblas plot``, ``gblas demo``,
``gblas info`` and ``gblas warmup``.

``gblas run ALGORITHM FILE`` runs an algorithm of :mod:`gblas.algorithms` on a graph file
(Matrix Market, edge list or ``.npz``; :mod:`gblas.commands.run`), ``gblas explain FILE
OPERATION`` prints the planner's plan for it (:mod:`gblas.commands.explain`), ``gblas plot
PICTURE FILE`` draws degree distributions, BFS levels or PageRank values
(:mod:`gblas.commands.plot`, matplotlib).

``gblas demo`` generates a Graph500 Kronecker graph, runs BFS and PageRank through the
gblas API, shows the plans the planner chose, and checks both results and times against
SciPy (``scipy.sparse.csgraph.breadth_first_order`` and a SciPy power iteration).
``gblas info`` describes the machine gblas sees: threads, CPU, caches, GPU, versions, and
the kernel caches.  ``gblas warmup`` compiles the built-in CPU kernels into the kernel
cache (once per machine; later processes load them); ``gblas warmup --device gpu`` the GPU
kernels, into CuPy's kernel cache.  ``gblas --version`` prints the version.
A bad argument gets a one-line message on stderr and exit status 2; a failure (a file
missing or malformed, no GPU) a one-line message and exit status 1 (set
``GBLAS_TRACEBACK=1`` to see the traceback of an unexpected error).

Examples
--------
>>> from gblas.cli import main
>>> main(["info"])  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .commands.args import ranged

__all__ = ["main", "cpu_description", "edges_exist", "scipy_pagerank", "scipy_bfs_levels"]


# ------------------------------------------------------------------------- machine


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _sysfs_caches() -> list[str]:
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    out = []
    if not base.is_dir():
        return out
    for idx in sorted(base.glob("index*")):
        level, ctype, size = (_read(idx / k) for k in ("level", "type", "size"))
        if not (level and size):
            continue
        shared = _read(idx / "shared_cpu_list")
        kind = {"Data": "d", "Instruction": "i"}.get(ctype or "", "")
        out.append(f"L{level}{kind} {size}" + (f" (cpus {shared})" if shared else ""))
    return out


def _lscpu_caches() -> list[str]:
    try:
        text = subprocess.run(["lscpu"], capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [f"{m.group(1)} {m.group(2).strip()}"
            for m in re.finditer(r"^(L\d\w?) cache:\s*(.+)$", text, re.MULTILINE)]


def _memory_total() -> str | None:
    text = _read(Path("/proc/meminfo")) or ""
    m = re.search(r"^MemTotal:\s*(\d+)\s*kB", text, re.MULTILINE)
    return f"{int(m.group(1)) / 2**20:.1f} GiB" if m else None


def cpu_description() -> dict[str, str]:
    """CPU model, cores, caches and memory as read from the machine.

    Reads ``/proc/cpuinfo``, ``/sys/devices/system/cpu/cpu0/cache`` (falling back to
    ``lscpu``) and ``/proc/meminfo``; what cannot be read is left out.

    Examples
    --------
    >>> d = cpu_description()
    >>> "cpu" in d and "cores" in d
    True
    """
    from . import hardware

    cores = os.cpu_count() or 1
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    info = {"cpu": hardware.cpu_model(), "cores": f"{usable} usable of {cores}"}
    caches = _sysfs_caches() or _lscpu_caches()
    if caches:
        info["caches"] = ", ".join(caches)
    mem = _memory_total()
    if mem:
        info["memory"] = mem
    return info


def _versions() -> dict[str, str]:
    import importlib.metadata as md

    out = {"python": platform.python_version()}
    for dist in ("gblas", "numpy", "scipy", "numba", "python-graphblas", "networkx"):
        try:
            out[dist] = md.version(dist)
        except md.PackageNotFoundError:
            continue
    return out


def _planner_info() -> dict[str, str]:
    """What the planner reads from the machine and the thresholds it derives from it."""
    from . import hardware
    from .formats.heavy_light import default_tile_sizes
    from .formats.segmented import default_block_size, default_segment_size
    from .planner import cost

    hw = hardware.detect()
    fit = hw.l3 * cost.CACHE_FIT_FRACTION
    rows, cols, heavy = default_tile_sizes(hw)
    return {
        "caches (planner)": hw.describe(),
        "planner thresholds": (
            f"pull on csr while x + y <= {cost.CACHE_FIT_FRACTION:g} x L3 = "
            f"{fit / 2**20:.3g} MiB, else segmented; shards / heavy_light when the row "
            f"split is unbalanced > {cost.SKEW_IMBALANCE:g}x on {hw.threads} threads; a "
            "format is built once (uses + 1) x saving >= its build time"),
        "format sizes": (
            f"segment {default_segment_size(hw):,} columns, merge block "
            f"{default_block_size(hw):,} rows; tiles {rows:,} x {cols:,}, heavy from "
            f"{heavy:,} entries; shards of {max(1, hw.l1d // 4):,} rows"),
    }


def _info(_args: argparse.Namespace) -> int:
    import numba

    from ._device import cupy_module, gpu_available

    lines = {"threads (numba)": str(numba.get_num_threads()),
             "threading layer": f"{numba.config.THREADING_LAYER}, OMP_WAIT_POLICY="
                                f"{os.environ.get('OMP_WAIT_POLICY', 'unset')} (passive "
                                "unless set before importing gblas)"}
    lines.update(cpu_description())
    lines.update(_planner_info())
    gpu = gpu_available()
    if gpu:
        try:
            cp = cupy_module("info")
            props = cp.cuda.runtime.getDeviceProperties(0)
            name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
            lines["gpu"] = (f"{name}, {props['totalGlobalMem'] / 2**30:.0f} GiB, "
                            f"L2 {props.get('l2CacheSize', 0) / 2**20:.0f} MiB")
        except Exception as exc:  # pragma: no cover - depends on the driver
            lines["gpu"] = f"found (details unavailable: {exc})"
    else:
        lines["gpu"] = "none found (CuPy with a CUDA device is not available)"
    lines.update(_kernel_cache_info())
    lines.update(_versions())
    width = max(map(len, lines))
    print("gblas info")
    for k, v in lines.items():
        print(f"  {k:<{width}}  {v}")
    return 0


def _kernel_cache_info() -> dict[str, str]:
    from .backends.cpu import jitcache
    from .warmup import gpu_cache_stats

    st = jitcache.cache_stats()
    gpu = {}
    if importlib.util.find_spec("cupy") is not None:  # where CuPy keeps the GPU kernels
        g = gpu_cache_stats()
        gpu["GPU kernel cache"] = (f"{g['path']} (CuPy's): {g['files']} files, "
                                   f"{g['bytes'] / 2**20:.1f} MiB")
    if st["path"] is None:
        return {"kernel cache": "off (GBLAS_CACHE_DIR=off): kernels compile in every process",
                **gpu}
    state = "" if st["enabled"] else " (not writable: kernels compile in every process)"
    stale = jitcache.stale_files()
    if stale:
        size = sum(p.stat().st_size for p in stale if p.exists())
        state += (f", of which {_files(len(stale))} ({size / 2**20:.1f} MiB) stale: "
                  "'gblas warmup' removes them")
    return {"kernel cache": f"{st['path']}: {st['files']} files, "
                            f"{st['bytes'] / 2**20:.1f} MiB{state}",
            **gpu, "GPU host times": _host_time_info()}


def _files(n: int) -> str:
    return f"{n} file" if n == 1 else f"{n} files"


def _host_time_info() -> str:
    """Where the GPU calls' host times (and device-time ratios) of earlier processes are
    kept, and how many."""
    import json

    from .planner import hosttime

    path = hosttime.record_path()
    try:
        machines = json.loads(path.read_text()).get("machines", {})
    except (OSError, ValueError, AttributeError):
        return f"{path}: none saved yet (GPU calls save theirs at exit)"
    ms = [m for m in machines.values() if isinstance(m, dict)]
    host = sum(len(m.get("calls", {})) for m in ms)
    ratios = sum(len(m.get("ratios", {})) for m in ms)
    return (f"{path}: {host} format-semiring records of host time and {ratios} of device "
            f"time over {len(machines)} machine(s)")


def _bar(done: int, total: int, name: str, elapsed: float, width: int = 28) -> str:
    """``[#####-----]  3/18  12.3 s  ETA 40 s  mxv plus_times``."""
    fill = int(width * done / max(total, 1))
    eta = elapsed / done * (total - done) if done else 0.0
    return (f"[{'#' * fill}{'-' * (width - fill)}] {done:>3}/{total}  {elapsed:6.1f} s  "
            f"ETA {eta:5.0f} s  {name}")


def _warmup(args: argparse.Namespace) -> int:
    from .backends.cpu import jitcache
    from .warmup import gpu_cache_stats, warmup

    if args.clear:
        n = jitcache.clear_cache()
        print(f"gblas warmup: removed {n} cached files", file=sys.stderr)
    if jitcache.cache_dir() is None:
        print("gblas warmup: the kernel cache is off or not writable "
              f"({jitcache.cache_root()}); set GBLAS_CACHE_DIR to a writable folder",
              file=sys.stderr)
        return 1
    if args.device == "gpu":
        from ._device import gpu_available

        if not gpu_available():
            print("gblas warmup: --device gpu needs CuPy and a CUDA device, and none is "
                  "available here; run it on the GPU machine, or leave --device out for "
                  "the CPU kernels", file=sys.stderr)
            return 1
    tty = sys.stderr.isatty() and args.progress

    def report(done, total, name, elapsed):
        if not args.progress:
            return
        line = _bar(done, total, name, elapsed)
        if tty:
            print("\r" + line.ljust(100), end="" if done < total else "\n", file=sys.stderr,
                  flush=True)
        else:
            print(line, file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    warmup(progress=report, only=args.only or None, device=args.device)
    # the files of earlier sources (an upgrade) are never loaded again: removed
    gone = jitcache.prune_cache()
    st = jitcache.cache_stats()
    line = (f"gblas warmup ({args.device}): {time.perf_counter() - t0:.1f} s; {st['path']}: "
            f"{st['files']} files, {st['bytes'] / 2**20:.1f} MiB")
    if gone["files"]:
        line += (f"; removed {_files(gone['files'])} no kernel can load "
                 f"({gone['bytes'] / 2**20:.1f} MiB)")
    if args.device == "gpu":
        g = gpu_cache_stats()
        line += f"; GPU kernels {g['path']}: {g['files']} files, {g['bytes'] / 2**20:.1f} MiB"
    print(line)
    return 0


# ---------------------------------------------------------------------------- anchors


def scipy_bfs_levels(S, source: int) -> np.ndarray:
    """BFS levels with SciPy (``breadth_first_order``); -1 where unreachable.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> S = sp.csr_array(([1, 1], ([0, 1], [1, 2])), shape=(4, 4))
    >>> scipy_bfs_levels(S, 0).tolist()
    [0, 1, 2, -1]
    """
    from scipy.sparse.csgraph import breadth_first_order

    order, pred = breadth_first_order(S, source, directed=True, return_predecessors=True)
    levels = np.full(S.shape[0], -1, dtype=np.int64)
    levels[source] = 0
    # the order is breadth-first, so a vertex's predecessor is levelled before it; fill
    # level by level (vectorized): the vertices whose predecessor got level k get k + 1
    rest = order[1:]
    while rest.size:
        ready = levels[pred[rest]] >= 0
        levels[rest[ready]] = levels[pred[rest[ready]]] + 1
        rest = rest[~ready]
    return levels


def edges_exist(S, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Whether each edge ``src[k] -> dst[k]`` is stored in the SciPy CSR matrix ``S``.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> S = sp.csr_array(([1, 1], ([0, 1], [1, 2])), shape=(3, 3))
    >>> edges_exist(S, np.array([0, 1, 2]), np.array([1, 0, 2])).tolist()
    [True, False, False]
    """
    S = S.tocsr()
    n = S.shape[1]
    rows = np.repeat(np.arange(S.shape[0], dtype=np.int64), np.diff(S.indptr))
    keys = np.sort(rows * n + S.indices)
    want = np.asarray(src, dtype=np.int64) * n + np.asarray(dst, dtype=np.int64)
    pos = np.minimum(np.searchsorted(keys, want), max(keys.size - 1, 0))
    return keys[pos] == want if keys.size else np.zeros(want.size, dtype=bool)


def scipy_pagerank(S, damping: float = 0.85, tol: float = 1e-4,
                   max_iter: int = 100) -> tuple[np.ndarray, int]:
    """PageRank by a SciPy power iteration (NetworkX's formulation); returns (ranks, iters).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> S = sp.csr_array(([1.0, 1.0], ([0, 1], [1, 0])), shape=(2, 2))
    >>> r, _ = scipy_pagerank(S)
    >>> np.round(r, 3).tolist()
    [0.5, 0.5]
    """
    import scipy.sparse as sp

    n = S.shape[0]
    out = np.asarray(S.sum(axis=1)).ravel().astype(np.float64)
    dangling = out == 0
    inv = np.divide(1.0, out, out=np.zeros_like(out), where=~dangling)
    P = sp.csr_array(S.T, dtype=np.float64)
    r = np.full(n, 1.0 / n)
    for it in range(1, max_iter + 1):
        new = damping * (P @ (r * inv)) + (damping * r[dangling].sum() + 1.0 - damping) / n
        err = np.abs(new - r).sum()
        r = new
        if err < n * tol:
            return r, it
    return r, max_iter


# ------------------------------------------------------------------------------ demo


class _Steps:
    """Time each demo step and print ``label .... 1.234 s`` when it ends.

    With ``progress``, a step that runs long first announces itself and the algorithm's
    own progress lines (stderr) follow before the timing line.
    """

    def __init__(self, progress: bool) -> None:
        self.progress = progress
        self.times: dict[str, float] = {}

    def __call__(self, label: str, fn, *args, **kwargs):
        if self.progress:
            print(f"  {label} ...", flush=True)
        t0 = time.perf_counter()
        result = fn(*args, **kwargs)
        dt = time.perf_counter() - t0
        self.times[label] = dt
        print(f"  {label:<46}{dt:8.3f} s", flush=True)
        return result


def _demo(args: argparse.Namespace) -> int:
    import numba
    import scipy.sparse as sp

    import gblas as gb

    step = _Steps(args.progress)
    quiet = _Steps(False)
    scale, ef = args.scale, args.edge_factor
    print(f"gblas demo: Graph500 Kronecker graph, scale {scale}, edge factor {ef}, "
          f"{numba.get_num_threads()} numba threads")
    print("\n[1] graph")
    A = quiet("generate + build CSR (gb.io.kronecker)", gb.io.kronecker, scale, ef,
              seed=args.seed)
    n = A.nrows
    print(f"  A: {n:,} vertices, {A.nvals:,} directed edges (duplicates and self-loops "
          f"removed), {A.dtype}{' iso' if A.is_iso else ''}")
    S = quiet("A.to_scipy() for the SciPy anchors", A.to_scipy)
    outdeg = np.diff(S.indptr)
    source = int(np.argmax(outdeg))

    print("\n[2] plans the planner chooses (gb.explain, nothing runs)")
    mul = "plus_second" if A.dtype == np.bool_ else "plus_times"
    r = gb.Vector.from_dense(np.full(n, 1.0 / n))
    frontier = gb.Vector.from_coo([source], None, n)
    visited = gb.Vector.from_coo([source], [0], n)
    half = gb.Vector.from_coo(np.arange(0, n, 2), None, n)
    plans = [
        (f"PageRank step:  mxv(A.T, s, {mul})", gb.explain(gb.mxv, A.T, r, mul)),
        ("BFS, 1st level: mxv(A.T, q, any_pair, mask=~v.S)",
         gb.explain(gb.mxv, A.T, frontier, "any_pair", mask=~visited.S, replace=True)),
        ("BFS, q = half the vertices",
         gb.explain(gb.mxv, A.T, half, "any_pair", mask=~visited.S, replace=True)),
    ]
    for label, plan in plans:
        print(f"  {label}\n      -> {plan}")

    print(f"\n[3] BFS from vertex {source} (the largest out-degree, {outdeg[source]:,})")
    step("gblas bfs, first call (JIT + formats)",
         lambda: (gb.algorithms.bfs(A, source, progress=args.progress),
                  gb.algorithms.bfs(A, source, parents=True, progress=args.progress)))
    lv = step("gblas bfs (levels)", gb.algorithms.bfs, A, source, progress=args.progress)
    levels, parents = step("gblas bfs (levels + parents)", gb.algorithms.bfs, A, source,
                           parents=True, progress=args.progress)
    ref = quiet("scipy breadth_first_order (+ levels)", scipy_bfs_levels, S, source)
    got = lv.to_dense(fill=-1)
    same = bool(np.array_equal(got, ref)) and bool(
        np.array_equal(levels.to_dense(fill=-1), ref))
    pidx, pval = parents.to_coo()
    child = pidx != source
    # a parent tree is valid iff every parent edge exists and levels step by one
    tree_ok = bool(np.all(got[pidx[child]] == got[pval[child]] + 1)) and \
        bool(np.all(edges_exist(S, pval[child], pidx[child])))
    ratio = step.times["gblas bfs (levels)"] / quiet.times[
        "scipy breadth_first_order (+ levels)"]
    print(f"  reached {int((ref >= 0).sum()):,} vertices in {int(ref.max())} levels; "
          f"levels equal SciPy's: {same}; parent tree valid: {tree_ok}")
    print(f"  time gblas / SciPy (levels): {ratio:.2f}")

    tol = args.tol if args.tol is not None else 1e-5 / n
    print(f"\n[4] PageRank (damping 0.85, tol {tol:.3g}: stop when the L1 change < "
          f"n * tol = {n * tol:.3g}, NetworkX's criterion)")
    step("gblas pagerank, first call (JIT + formats)", gb.algorithms.pagerank, A, tol=tol,
         criterion="networkx", progress=args.progress)
    pr = step("gblas pagerank", gb.algorithms.pagerank, A, tol=tol, criterion="networkx",
              progress=args.progress)
    ref_pr, iters = quiet("scipy power iteration (same formulation)", scipy_pagerank,
                          sp.csr_array(S), tol=tol)
    diff = float(np.abs(pr.to_dense() - ref_pr).max())
    ratio = step.times["gblas pagerank"] / quiet.times[
        "scipy power iteration (same formulation)"]
    print(f"  {iters} iterations; ranks sum to {pr.to_dense().sum():.6f}; "
          f"max |gblas - SciPy| = {diff:.2e}")
    print(f"  time gblas / SciPy: {ratio:.2f}")
    ok = same and tree_ok and diff < 1e-8
    print("\nOK: gblas agrees with SciPy" if ok
          else "\nMISMATCH: gblas and SciPy disagree (see above)")
    return 0 if ok else 1


# ------------------------------------------------------------------------------ main


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (exit status 2)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _version() -> str:
    import importlib.metadata as md

    try:
        return md.version("gblas")
    except md.PackageNotFoundError:  # running from a source tree that is not installed
        from . import __version__

        return __version__


_DESCRIPTION = """\
GraphBLAS-flavoured sparse linear algebra for graph analytics: run graph algorithms on
files, see the planner's choices, draw pictures of graphs, and check the machine."""

_EPILOG = """\
examples:
  gblas run pagerank web.mtx.gz --out ranks.csv
  gblas run bfs edges.txt --source 3 --out levels.npy
  gblas explain web.mtx.gz mxv
  gblas plot degree web.mtx.gz --out degrees.png
  gblas info

Run 'gblas COMMAND --help' for the options of a command."""


def _parser() -> argparse.ArgumentParser:
    from .commands import add_graph_options
    from .commands import explain as explain_cmd
    from .commands import plot as plot_cmd
    from .commands import run as run_cmd

    p = _Parser(prog="gblas", description=_DESCRIPTION, epilog=_EPILOG,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"gblas {_version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run_cmd.add_parser(sub, common=add_graph_options)
    explain_cmd.add_parser(sub, common=add_graph_options)
    plot_cmd.add_parser(sub, common=add_graph_options)
    d = sub.add_parser("demo", help="BFS and PageRank on a Kronecker graph, checked "
                                    "against SciPy")
    d.add_argument("--scale", type=ranged(int, 1, 31), default=18,
                   help="log2 of the vertices, 1 to 31 (default 18)")
    d.add_argument("--edge-factor", type=ranged(int, 1), default=16,
                   help="edges per vertex, >= 1 (16)")
    d.add_argument("--seed", type=ranged(int, 0), default=0,
                   help="generator seed, >= 0 (0)")
    d.add_argument("--tol", type=ranged(float, 0, low_open=True,
                                         what="a finite number"), default=None,
                   help="PageRank tolerance > 0, NetworkX's criterion L1 change < n * tol "
                        "(default 1e-5 / n)")
    d.add_argument("--no-progress", dest="progress", action="store_false",
                   help="do not report the iterations of long steps on stderr")
    d.set_defaults(func=_demo)
    i = sub.add_parser("info", help="threads, CPU, caches, GPU and versions")
    i.set_defaults(func=_info)
    w = sub.add_parser("warmup", help="compile the built-in kernels into the kernel caches "
                                      "(once per machine)")
    w.add_argument("--device", choices=["cpu", "gpu"], default="cpu",
                   help="the kernels to compile: the CPU's (default) or the GPU's (CUDA, "
                        "kept in CuPy's kernel cache)")
    w.add_argument("--clear", action="store_true", help="empty gblas' kernel cache first "
                   "(without it, only the files no current kernel can load are removed)")
    w.add_argument("--only", action="append", metavar="STEP",
                   help="run only this step (repeatable), e.g. --only pagerank")
    w.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress bar on stderr")
    w.set_defaults(func=_warmup)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``gblas`` console script.

    Parameters
    ----------
    argv : sequence of str, optional
        Arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        Exit status: 0 on success, 1 for a failure (a file missing or malformed, no GPU,
        the demo's check failing), 2 for bad input (a bad argument exits with status 2
        and a one-line message on stderr).

    Examples
    --------
    >>> from gblas.cli import main
    >>> main(["demo", "--scale", "8", "--no-progress"])  # doctest: +SKIP
    """
    from .commands import CommandFailed, UsageError
    from .exceptions import GraphBLASError

    args = _parser().parse_args(list(argv) if argv is not None else None)
    name = " ".join(x for x in ("gblas", args.command, getattr(args, "picture", None)) if x)
    try:
        return int(args.func(args) or 0)
    except GraphBLASError as e:  # bad input found past the argument parser: one line
        print(f"{name}: error: {_one_line(e)}", file=sys.stderr)
        return 2
    except UsageError as e:
        print(f"{name}: error: {_one_line(e)} (see {name} --help)", file=sys.stderr)
        return 2
    except CommandFailed as e:
        print(f"{name}: error: {_one_line(e)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # an unexpected failure: one line unless asked for more
        if os.environ.get("GBLAS_TRACEBACK"):
            raise
        print(f"{name}: failed: {type(e).__name__}: {_one_line(e)} (GBLAS_TRACEBACK=1 "
              "shows the traceback)", file=sys.stderr)
        return 1


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
