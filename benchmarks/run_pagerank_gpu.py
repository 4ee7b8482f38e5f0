"""PageRank on the GPU end to end: ``gb.algorithms.pagerank`` against a cupyx loop.

For each Kronecker scale (pattern-only graph, built on the device as in
:mod:`benchmarks.bench_gpu_mxv`):

* the anchor: NetworkX's power iteration written with ``cupyx.scipy.sparse`` (cuSPARSE
  SpMV over the row-normalized, transposed float64 matrix, prebuilt outside the timing;
  the dangling rank as a dot product with a 0/1 vector, so no boolean indexing), with
  the same stopping rule as gblas's default (L1 change below ``tol``), hence the same
  number of iterations;
* ``gb.algorithms.pagerank(A)`` with default arguments: its first call (the transposed
  CSR built, kernels compiled), then warm calls with the planner's choice as it stands,
  then warm calls once the planner has switched the product to its cache-aware format
  (products run until the plan leaves CSR);
* optionally (``--before MODULE``) a previous pagerank implementation, run with
  ``tol=1e-6 / n`` (its ``n * tol`` rule) so that it does the same iterations;
* the floor of one iteration: the product alone (``gb.mxv`` over ``A.T`` as planned)
  plus 41 bytes per vertex of vector traffic at the device-to-device copy bandwidth;
* accuracy: every result against the anchor run to an L1 change of 1e-13.

Usage::

    PYTHONPATH=. python3 benchmarks/run_pagerank_gpu.py --scales 16 20 22 24 --out OUTDIR
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import time
from typing import Any

import numpy as np

from benchmarks.bench_gpu_mxv import build_graph, copy_bandwidth, time_ms

#: Bytes per vertex of PageRank's fused vector step (y + its flags, r, w read; r', s'
#: written), without personalization.
STEP_BYTES = 41


def _sync() -> None:
    import cupy as cp

    cp.cuda.Device().synchronize()


def _wall(fn, repeat: int) -> tuple[float, list[float]]:
    """Median wall milliseconds of ``fn`` (synchronized), and every run."""
    times = []
    for _ in range(repeat):
        _sync()
        t0 = time.perf_counter()
        fn()
        _sync()
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times)), times


def cupyx_pagerank(M: Any, dmask: Any, n: int, alpha: float = 0.85, tol: float = 1e-6,
                   max_iter: int = 1000) -> tuple[Any, int]:
    """NetworkX's iteration with cupyx: ``x = alpha (M x + (x . dangling) / n) + (1 -
    alpha) / n`` with ``M`` the transposed row-normalized matrix; stops when the L1
    change is below ``tol``.  Returns (ranks, iterations)."""
    import cupy as cp

    x = cp.full(n, 1.0 / n)
    for it in range(1, max_iter + 1):
        last = x
        x = alpha * (M @ last + cp.dot(last, dmask) / n) + (1.0 - alpha) / n
        if float(cp.abs(x - last).sum()) < tol:
            return x, it
    return x, max_iter


def run_scale(scale: int, args: argparse.Namespace, bw_gbs: float, before: Any) -> dict:
    import cupy as cp
    import cupyx.scipy.sparse as csp

    import gblas as gb
    from gblas.backends import registry
    from gblas.formats.csr import CSR

    F, _, build_s = build_graph(scale, args.edge_factor, args.seed)
    n, nnz = F.shape[0], F.nnz
    A = gb.Matrix(CSR((n, n), F.indptr, F.indices, None, np.dtype(np.bool_), True, "gpu"))
    outdeg = cp.diff(F.indptr).astype(cp.float64)
    dmask = (outdeg == 0).astype(cp.float64)
    inv = cp.where(outdeg > 0, 1.0 / cp.maximum(outdeg, 1.0), 0.0)
    rows = cp.searchsorted(F.indptr, cp.arange(nnz, dtype=F.indptr.dtype), side="right") - 1
    QA = csp.csr_matrix((inv[rows], F.indices, F.indptr), shape=(n, n))  # row-normalized
    M = QA.T.tocsr()  # (Q A)^T, float64: y = M x pulls along in-edges
    del rows, QA, F
    _sync()
    row: dict = {"scale": scale, "n": n, "nnz": int(nnz), "build_s": round(build_s, 2)}
    print(f"scale {scale}: n={n:,} nnz={nnz:,}", flush=True)

    # the exact ranks, and the anchor at the default tolerance
    exact, _ = cupyx_pagerank(M, dmask, n, tol=1e-13, max_iter=3000)
    ref, iters = cupyx_pagerank(M, dmask, n)
    row["iterations_cupyx"] = iters

    # count gblas's step launches (its iterations, plus the one it queues ahead)
    key = ("pagerank_step", "array", "gpu", "")
    registry.get_kernel(*key[:3])
    step = registry._KERNELS[key]
    count = [0]

    def counting(*a, **k):
        count[0] += 1
        return step(*a, **k)

    registry._KERNELS[key] = counting
    t0 = time.perf_counter()
    r = gb.algorithms.pagerank(A)
    _sync()
    row["gblas_first_ms"] = (time.perf_counter() - t0) * 1e3
    row["iterations_gblas"] = count[0]
    registry._KERNELS[key] = step
    rv = r._data.values
    row["maxerr_gblas"] = float(cp.abs(rv - exact).max())
    row["maxerr_cupyx"] = float(cp.abs(ref - exact).max())
    row["maxdiff_gblas_cupyx"] = float(cp.abs(rv - ref).max())
    nxr = gb.algorithms.pagerank(A, criterion="networkx")
    row["maxerr_networkx_rule"] = float(cp.abs(nxr._data.values - exact).max())
    s = gb.Vector.from_dense(cp.full(n, 1.0 / n))

    def plan():
        return gb.explain(gb.mxv, A.T, s, "plus_second")

    row["format_before"] = plan().format

    def one_iteration():
        try:
            gb.algorithms.pagerank(A, max_iter=1)
        except gb.algorithms.PowerIterationFailedConvergence:
            pass

    # the setup (out-degree, weights, first vectors) plus one iteration
    row["one_iteration_ms"], _ = _wall(one_iteration, args.repeat)
    row["cupyx_ms"], row["cupyx_runs"] = _wall(lambda: cupyx_pagerank(M, dmask, n), args.repeat)
    row["gblas_ms"], row["gblas_runs"] = _wall(lambda: gb.algorithms.pagerank(A), args.repeat)
    row["format_after"] = plan().format
    row["product_ms"] = time_ms(lambda: gb.mxv(A.T, s, "plus_second"), args.repeat)
    row["product_format"] = plan().format
    row["cusparse_ms"] = time_ms(lambda: M @ s._data.values, args.repeat)
    calls = 0
    while plan().format == "csr" and calls < args.max_switch:
        gb.mxv(A.T, s, "plus_second")
        calls += 1
    _sync()
    row["switch_calls"] = calls
    row["format_steady"] = plan().format
    row["gblas_steady_ms"], row["gblas_steady_runs"] = _wall(
        lambda: gb.algorithms.pagerank(A), args.repeat)
    row["product_steady_ms"] = time_ms(lambda: gb.mxv(A.T, s, "plus_second"), args.repeat)
    row["step_floor_ms"] = STEP_BYTES * n / bw_gbs / 1e6
    if before is not None:
        row["before_ms"], _ = _wall(lambda: before.pagerank(A, tol=1e-6 / n),
                                    max(3, args.repeat // 3))
        old = before.pagerank(A, tol=1e-6 / n)
        row["maxdiff_before"] = float(cp.abs(old.to("gpu")._data.values - rv).max())
    print(json.dumps({k: v for k, v in row.items() if not k.endswith("_runs")}), flush=True)
    return row


def _machine(cp) -> str:
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    l2 = dev.attributes.get("L2CacheSize", 0) / 2**20
    return (f"{name}, {props['multiProcessorCount']} SMs, L2 {l2:.0f} MiB; CuPy "
            f"{cp.__version__}, CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}; "
            f"{os.cpu_count()} host cores")


def markdown(rows: list[dict], machine: str, bw: float, repeat: int) -> str:
    lines = [
        "## PageRank on the GPU: gb.algorithms.pagerank(A) vs a cupyx (cuSPARSE) loop",
        "",
        f"{machine}.  Kronecker graphs (A=0.57, B=C=0.19, edge factor 16), pattern only; "
        f"median of {repeat} warm calls (wall time, synchronized).  Device-to-device copy "
        f"{bw:.0f} GB/s.  Both stop when the L1 change is below 1e-6 (gblas's default), so "
        "they run the same iterations; the cupyx matrix is built outside its timing.",
        "",
        "| scale | n | step launches (cupyx iterations) | cupyx ms | gblas first call ms | "
        "gblas warm ms (format) | "
        "ratio cupyx/gblas | gblas after switch ms (format) | ratio | per iteration ms | "
        "floor per iteration ms | max error gblas | max error n*tol rule |",
        "|---:|---:|---:|---:|---:|---|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        it = r["iterations_gblas"]
        floor = r["product_steady_ms"] + r["step_floor_ms"]
        lines.append(
            f"| {r['scale']} | {r['n']:,} | {it} ({r['iterations_cupyx']}) | "
            f"{r['cupyx_ms']:.2f} | {r['gblas_first_ms']:.1f} | {r['gblas_ms']:.2f} "
            f"({r['format_before']} -> {r['format_after']}) | "
            f"{r['cupyx_ms'] / r['gblas_ms']:.2f}x | {r['gblas_steady_ms']:.2f} "
            f"({r['format_steady']}, after {r['switch_calls']} products) | "
            f"{r['cupyx_ms'] / r['gblas_steady_ms']:.2f}x | "
            f"{r['gblas_steady_ms'] / r['iterations_cupyx']:.3f} | "
            f"{floor:.3f} | {r['maxerr_gblas']:.1e} | {r['maxerr_networkx_rule']:.1e} |")
    lines += ["", "| scale | product ms (format) | product after switch ms | cuSPARSE SpMV "
              "float64 ms | step floor ms (41 B/vertex) | gblas setup + 1 iteration ms | "
              "previous pagerank ms |",
              "|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        before = f"{r['before_ms']:.2f}" if "before_ms" in r else "-"
        lines.append(f"| {r['scale']} | {r['product_ms']:.3f} ({r['product_format']}) | "
                     f"{r['product_steady_ms']:.3f} | {r['cusparse_ms']:.3f} | "
                     f"{r['step_floor_ms']:.3f} | {r['one_iteration_ms']:.2f} | {before} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scales", type=int, nargs="+", default=[16, 20, 22, 24])
    p.add_argument("--edge-factor", type=int, default=16)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--max-switch", type=int, default=400)
    p.add_argument("--before", default=None, help="module with a previous pagerank")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    import cupy as cp

    before = importlib.import_module(args.before) if args.before else None
    bw = copy_bandwidth(5)
    rows = [run_scale(s, args, bw, before) for s in args.scales]
    text = markdown(rows, _machine(cp), bw, args.repeat)
    print(text)
    out = args.out or os.path.join(os.path.dirname(__file__), "results")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "pagerank_gpu.md"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "pagerank_gpu.json"), "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
