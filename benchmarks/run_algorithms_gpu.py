"""Graph algorithms end to end on the GPU, data kept on the device.

Run on a machine with CuPy and an NVIDIA GPU::

    python -m benchmarks.run_algorithms_gpu --scale 22 --bfs-scale 24

Each algorithm is called on a Matrix moved once with ``.to("gpu")``; every timing
synchronizes the device.  Anchors in the same run: SciPy on the host for the algorithms,
cuSPARSE SpMV (``cupyx.scipy.sparse`` csr @ x) for the full BFS (the issue's yardstick: a
whole BFS in less time than two cuSPARSE SpMVs).  Writes
``benchmarks/results/algorithms_gpu.md`` (or ``--out DIR``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import scipy.sparse.csgraph as csg

import gblas as gb
from benchmarks.harness import fmt_time, markdown_table, time_call, write_results


def _gpu_info(cp) -> str:
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    l2 = dev.attributes.get("L2CacheSize", 0) / 2**20
    return (f"{name}, {props['multiProcessorCount']} SMs, L2 {l2:.0f} MiB; CuPy {cp.__version__}, "
            f"CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=int, default=22)
    p.add_argument("--bfs-scale", type=int, default=24)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    import cupy as cp
    import cupyx.scipy.sparse as cps

    sync = cp.cuda.Device().synchronize

    def timed(f):
        def g():
            r = f()
            sync()
            return r
        return time_call(g, repeat=args.repeat, warmup=1)

    rows = []
    # ---- algorithms at --scale, against SciPy on the host
    A = gb.io.kronecker(args.scale, symmetric=True, dtype=None)          # pattern
    W = gb.io.kronecker(args.scale, symmetric=True, dtype="float32", weights="uniform")
    Ag, Wg = A.to("gpu"), W.to("gpu")
    S, SW = A.to_scipy(), W.to_scipy()
    src = int(np.argmax(np.diff(S.indptr)))
    checks = {}
    cases = [
        ("bfs (levels)", lambda: gb.algorithms.bfs(Ag, src),
         lambda: csg.breadth_first_order(S, src, return_predecessors=False), "scipy BFS order"),
        ("pagerank", lambda: gb.algorithms.pagerank(Ag), None, None),
        ("sssp", lambda: gb.algorithms.sssp(Wg, src),
         lambda: csg.dijkstra(SW, indices=src), "scipy dijkstra"),
        ("connected_components", lambda: gb.algorithms.connected_components(Ag),
         lambda: csg.connected_components(S), "scipy connected_components"),
        ("triangle_count", lambda: gb.algorithms.triangle_count(Ag), None, None),
    ]
    # the planner's saxpy/dot choice for the masked product, against each pinned
    for method in ("dot", "saxpy"):
        def tc(method=method):
            with gb.config(mxm_method=method):
                return gb.algorithms.triangle_count(Ag)
        cases.append((f"triangle_count, mxm {method} pinned", tc, None, None))
    for name, f, anchor, aname in cases:
        t = timed(f)
        res = f()
        dev = getattr(res, "device", "host")
        if anchor is not None:
            ta = time_call(anchor, repeat=args.repeat, warmup=1)
            ratio = f"{t.median / ta.median:.3g}"
            at = fmt_time(ta.median)
        else:
            ratio, at, aname = "–", "–", "–"
        if name == "sssp":
            d = res.to("cpu").to_dense(fill=np.inf)
            checks[name] = bool(np.allclose(d, csg.dijkstra(SW, indices=src), rtol=1e-4))
        rows.append([args.scale, name, fmt_time(t.median), fmt_time(t.first or 0), dev, aname, at,
                     ratio, checks.get(name, "")])
    # ---- a full BFS at --bfs-scale against cuSPARSE SpMV
    B = gb.io.kronecker(args.bfs_scale, symmetric=True, dtype=None)
    Bg = B.to("gpu")
    SB = B.to_scipy()
    src = int(np.argmax(np.diff(SB.indptr)))
    t = timed(lambda: gb.algorithms.bfs(Bg, src))
    M = cps.csr_matrix(SB.astype(np.float32))
    x = cp.ones(SB.shape[0], dtype=cp.float32)
    ts = timed(lambda: M @ x)
    rows.append([args.bfs_scale, "bfs (levels), full", fmt_time(t.median), fmt_time(t.first or 0),
                 "gpu", "cuSPARSE SpMV x2", fmt_time(2 * ts.median),
                 f"{t.median / (2 * ts.median):.3g}", ""])
    body = markdown_table(["scale", "algorithm", "gblas GPU", "first call", "result on",
                           "anchor", "anchor time", "gblas / anchor", "check"], rows)
    note = ("Kronecker graphs (Graph500 parameters), undirected, pattern (SSSP: uniform weights "
            "in (0, 1]); source = the largest-degree vertex. Median of "
            f"{args.repeat} after one warm-up ('first call': JIT, CUDA compilation, formats). "
            "Every gblas call runs on a Matrix moved once with .to('gpu'); anchors: SciPy on "
            "the host CPU, cuSPARSE through CuPy on the device.")
    path = write_results("algorithms_gpu", "Graph algorithms end to end on the GPU",
                         [("GPU", _gpu_info(cp)), ("Results", body), ("Method", note)],
                         directory=args.out)
    print(path.read_text())


if __name__ == "__main__":
    main()
