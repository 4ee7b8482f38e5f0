"""Where a call's time goes, in a process of its own: Numba compiles by function (the
outermost), CuPy's NVRTC compiles in total, cProfile's top lines, the GPU host times the
planner recorded, then two more calls on new Matrices in the same process.

Run it in a new process with empty caches (``GBLAS_CACHE_DIR``, ``CUPY_CACHE_DIR``) for a
first-ever call, or with warm ones for a first call.

Usage::

    PYTHONPATH=. python benchmarks/probe_first_call_profile.py label_propagation --device gpu
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import pstats
import sys
import time


def _numba_compiles() -> dict:
    """Seconds and count of the outermost Numba compiles by function, as they happen."""
    import numba.core.event as ev

    comp: dict = collections.defaultdict(lambda: [0, 0.0])
    stack: list = []

    class Listener(ev.Listener):
        def on_start(self, event):
            stack.append(time.perf_counter())

        def on_end(self, event):
            t = time.perf_counter() - stack.pop()
            f = getattr(event.data.get("dispatcher"), "py_func", None)
            if not stack:
                name = f"{getattr(f, '__module__', '?')}.{getattr(f, '__qualname__', '?')}"
                comp[name][0] += 1
                comp[name][1] += t

    ev.register("numba:compile", Listener())
    return comp


def _nvrtc_compiles() -> list:
    """[count, seconds] of CuPy's NVRTC compiles, as they happen."""
    from cupy.cuda import compiler

    nv = [0, 0.0]
    name = ("_compile_using_nvrtc_no_warning"
            if hasattr(compiler, "_compile_using_nvrtc_no_warning") else "compile_using_nvrtc")
    inner = getattr(compiler, name)

    def charged(*a, **k):
        t0 = time.perf_counter()
        try:
            return inner(*a, **k)
        finally:
            nv[0] += 1
            nv[1] += time.perf_counter() - t0

    setattr(compiler, name, charged)
    return nv


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("algorithm")
    p.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    p.add_argument("--scale", type=int, default=14)
    p.add_argument("--top", type=int, default=20, help="cProfile lines shown")
    args = p.parse_args(argv)
    comp = _numba_compiles()
    nv = _nvrtc_compiles() if args.device == "gpu" else [0, 0.0]
    import gblas as gb
    from gblas.planner import hosttime

    f = getattr(gb.algorithms, args.algorithm)
    S = gb.io.kronecker(args.scale, 16, seed=1, symmetric=True).to_scipy()

    def call():
        A = gb.Matrix.from_scipy(S).to(args.device)
        pr = cProfile.Profile()
        t0 = time.perf_counter()
        pr.enable()
        f(A, 0) if args.algorithm in ("bfs", "sssp") else f(A)
        if args.device == "gpu":
            import cupy

            cupy.cuda.Device().synchronize()
        pr.disable()
        return time.perf_counter() - t0, pstats.Stats(pr)

    dt, stats = call()
    print(f"{args.algorithm} on {args.device}, Kronecker {args.scale}: first call {dt:.2f} s; "
          f"NVRTC {nv[0]} compiles {nv[1]:.2f} s; Numba {sum(c for c, _ in comp.values())} "
          f"compiles {sum(t for _, t in comp.values()):.2f} s")
    for k, (c, t) in sorted(comp.items(), key=lambda kv: -kv[1][1])[:10]:
        print(f"  {t:6.2f} s {c:3d}  {k}")
    stats.sort_stats("cumulative").print_stats(args.top)
    print("GPU host times recorded (us):",
          {k: [round(v * 1e6) for v in q] for k, q in list(hosttime._calls.items())[:12]})
    for k in (2, 3):
        dt, stats = call()
        print(f"call {k} (a new Matrix): {dt:.2f} s")
    stats.sort_stats("cumulative").print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
