"""Whole algorithms on a GPU Matrix where the GPU has no compiled kernel: the loop of
products on the GPU against the CPU's kernel on a host copy (the Matrix copied to the
host, the result copied back, both inside the timed call).

For each algorithm and Kronecker scale: gblas's own plan for a GPU Matrix (``gb.explain``
says where it runs), the loop of products pinned to the GPU (``gb.config(format="csr")``
keeps the loop), and the host route spelled out (``alg(A.to("cpu"))``, a Vector result
moved back).  A new GPU Matrix per call, built outside the timed region; median of
``--repeat`` calls after one warm-up call, synchronized.  A route estimated over
``--budget`` seconds (from its warm-up call) is timed once.

Usage (on a GPU machine)::

    PYTHONPATH=. python benchmarks/run_host_route_gpu.py --scales 12 14 16 --out table.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks.harness import emit_lines, median_fresh

ALGORITHMS = ("label_propagation", "core_number", "triangle_count", "connected_components")


def _sync() -> None:
    import cupy as cp

    cp.cuda.Device().synchronize()


def _host(result):
    """A result as host data (a Vector's dense values, else the scalar)."""
    if hasattr(result, "to_dense"):
        import numpy as np

        d = result.to("cpu").to_dense()
        return np.asarray(d)
    return result


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scales", type=int, nargs="+", default=[12, 14, 16])
    p.add_argument("--algorithms", nargs="+", default=list(ALGORITHMS))
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--budget", type=float, default=20.0,
                   help="seconds a route may spend on its timed calls")
    p.add_argument("--loop-max-scale", type=int, default=14,
                   help="label_propagation's loop on the GPU only up to this scale")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    import cupy as cp
    import numpy as np

    import gblas as gb

    name = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"]
    name = name.decode() if isinstance(name, bytes) else str(name)
    lines = [f"{name}; Kronecker graphs (symmetric, edge factor 16, seed 1); median of "
             f"{args.repeat} calls after a warm-up, a new GPU Matrix per call; a route "
             f"whose warm-up took over {args.budget / args.repeat:.1f} s timed once.", "",
             "| scale | entries | algorithm | gblas's plan runs on | gblas | loop on the GPU | "
             "host copy + CPU kernel | same answer |", "|---:|---:|---|---|---:|---:|---:|---|"]
    slow = args.budget / args.repeat  # a warm-up past it: one timed call

    def timed(run, make):
        return median_fresh(run, make, _sync, args.repeat, slow)

    for scale in args.scales:
        S = gb.io.kronecker(scale, 16, seed=1, symmetric=True).to_scipy()
        host = gb.Matrix.from_scipy(S)

        def make(host=host):
            return host.to("gpu")

        for alg in args.algorithms:
            f = getattr(gb.algorithms, alg)
            where = gb.explain(f, make()).device
            t_plan, r_plan = timed(f, make)

            def loop(A, f=f):
                with gb.config(format="csr"):
                    return f(A)

            t_loop = r_loop = None
            if alg != "label_propagation" or scale <= args.loop_max_scale:
                t_loop, r_loop = timed(loop, make)

            def on_host(A, f=f):
                r = f(A.to("cpu"))
                return r.to("gpu") if hasattr(r, "to") else r

            t_host, r_host = timed(on_host, make)
            same = all(np.array_equal(_host(r), _host(r_host))
                       for r in (r_plan, r_loop) if r is not None)
            loop_ms = "-" if t_loop is None else f"{t_loop * 1e3:,.1f} ms"
            row = (f"| {scale} | {S.nnz:,} | {alg} | {where} | {t_plan * 1e3:,.1f} ms | "
                   f"{loop_ms} | {t_host * 1e3:,.1f} ms | {same} |")
            lines.append(row)
            print(row, file=sys.stderr, flush=True)
    emit_lines(lines, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
