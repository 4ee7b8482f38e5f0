"""Every algorithm of ``gblas.algorithms`` on a GPU Matrix against the same call on a CPU
Matrix of the same graph: where the GPU route is many times slower than the host's, a
user with a GPU Matrix would do better copying it to the host (the planner's host route
exists for such algorithms: ``planner/algorithms.py``, ``host=``).

Kronecker graphs (symmetric, edge factor 16, seed 1; a bipartite rating matrix from the
same graph's upper triangle for ``collaborative_filtering``); a new Matrix per call, built
outside the timed region; median of ``--repeat`` calls after a warm-up (one call when the
warm-up took longer than ``--slow`` seconds), GPU calls synchronized.  The host has 16
cores on the GPU machines: the CPU column is that host's.

Usage (on a GPU machine)::

    PYTHONPATH=. python benchmarks/survey_gpu_vs_cpu.py --scales 12 14 --out table.md
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from benchmarks.harness import emit_lines, median_fresh

#: name -> the call on a Matrix (keyword arguments kept small so every one finishes)
CALLS = {
    "pagerank": lambda gb, A: gb.algorithms.pagerank(A),
    "bfs": lambda gb, A: gb.algorithms.bfs(A, 0),
    "bfs (parents)": lambda gb, A: gb.algorithms.bfs(A, 0, parents=True),
    "sssp": lambda gb, A: gb.algorithms.sssp(A, 0),
    "connected_components": lambda gb, A: gb.algorithms.connected_components(A),
    "connected_components (strong)":
        lambda gb, A: gb.algorithms.connected_components(A, "strong"),
    "betweenness_centrality (k=16)":
        lambda gb, A: gb.algorithms.betweenness_centrality(A, k=16, seed=1),
    "triangle_count": lambda gb, A: gb.algorithms.triangle_count(A),
    "triangles": lambda gb, A: gb.algorithms.triangles(A),
    "clustering": lambda gb, A: gb.algorithms.clustering(A),
    "transitivity": lambda gb, A: gb.algorithms.transitivity(A),
    "core_number": lambda gb, A: gb.algorithms.core_number(A),
    "label_propagation": lambda gb, A: gb.algorithms.label_propagation(A),
    "louvain": lambda gb, A: gb.algorithms.louvain(A, seed=1),
    "hits": lambda gb, A: gb.algorithms.hits(A, tol=1e-8),
    "katz_centrality": lambda gb, A: gb.algorithms.katz_centrality(A, alpha=0.005),
    "eigenvector_centrality": lambda gb, A: gb.algorithms.eigenvector_centrality(A),
    "collaborative_filtering (20 iterations)":
        lambda gb, R: gb.algorithms.collaborative_filtering(R, max_iter=20),
}


def _sync(device: str) -> None:
    if device == "gpu":
        import cupy as cp

        cp.cuda.Device().synchronize()


def _time(call, make, device: str, repeat: int, slow: float) -> tuple[float | None, str]:
    """Median seconds of ``call(make())`` after a warm-up; None and the error if it
    raised."""
    try:
        return median_fresh(call, make, lambda: _sync(device), repeat, slow)[0], ""
    except Exception as e:  # noqa: BLE001 - reported in the table
        return None, f"{type(e).__name__}: {str(e).splitlines()[0][:80] if str(e) else ''}"


def _fmt(t: float | None) -> str:
    return "-" if t is None else f"{t * 1e3:,.1f} ms"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scales", type=int, nargs="+", default=[12, 14])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--slow", type=float, default=3.0)
    p.add_argument("--only", nargs="+", default=None, help="names of CALLS to run")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    import cupy as cp
    import scipy.sparse as sp

    import gblas as gb

    name = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"]
    name = name.decode() if isinstance(name, bytes) else str(name)
    lines = [f"{name}; median of {args.repeat} calls after a warm-up (one call past "
             f"{args.slow:g} s), a new Matrix per call.", "",
             "| scale | algorithm | GPU Matrix | CPU Matrix | GPU / CPU | plan on a GPU "
             "Matrix |", "|---:|---|---:|---:|---:|---|"]
    for scale in args.scales:
        S = gb.io.kronecker(scale, 16, seed=1, symmetric=True).to_scipy()
        R = sp.csr_array(sp.triu(S, 1))  # ratings: row users, column items
        for alg, call in CALLS.items():
            if args.only and alg not in args.only:
                continue
            src = R if alg.startswith("collaborative") else S
            host = gb.Matrix.from_scipy(src)
            times = {}
            for dev in ("gpu", "cpu"):
                times[dev] = _time(lambda A, call=call: call(gb, A),
                                   lambda dev=dev, host=host: host.to(dev), dev,
                                   args.repeat, args.slow)
            (tg, eg), (tc, ec) = times["gpu"], times["cpu"]
            ratio = "-" if tg is None or tc is None else f"{tg / tc:.2f}"
            plan = ""
            f = getattr(gb.algorithms, alg.split(" ")[0])
            if hasattr(f, "__gblas_plan__") and alg.split(" ")[0] in (
                    "bfs", "sssp", "connected_components", "core_number",
                    "label_propagation", "pagerank", "triangle_count"):
                extra = ((0,) if alg.startswith(("bfs", "sssp"))
                         else ("strong",) if "strong" in alg else ())
                try:
                    pl = gb.explain(f, host.to("gpu"), *extra)
                    plan = f"{pl.kernel or 'loop'} on {pl.device}"
                except Exception as e:  # noqa: BLE001
                    plan = type(e).__name__
            row = (f"| {scale} | {alg} | {_fmt(tg)}{' ' + eg if eg else ''} | "
                   f"{_fmt(tc)}{' ' + ec if ec else ''} | {ratio} | {plan} |")
            lines.append(row)
            print(row, file=sys.stderr, flush=True)
    emit_lines(lines, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
