"""GPU BFS end to end: ``gblas.algorithms.bfs`` on a GPU Matrix against two cuSPARSE SpMVs.

For each Kronecker scale: the fused level kernels (the planner's GPU choice), the loop of
planned products (kept by pinning the format), and the anchor — two ``cupyx`` CSR SpMVs
(float32) — timed in the same run, median of several calls after a warm-up; the levels are
checked against SciPy's BFS.  ``--out FILE`` writes the markdown table.

Examples
--------
``python -m benchmarks.run_bfs_gpu --scales 16 20 22 --repeat 10 --out results.md``
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from benchmarks.harness import median_ms


def _one(scale: int, repeat: int, source: int) -> dict:
    """The row of one Kronecker scale."""
    import cupy as cp
    import cupyx.scipy.sparse as csp

    import gblas as gb
    from gblas.cli import scipy_bfs_levels
    from gblas.io import generators

    sync = cp.cuda.Device().synchronize
    A = generators.kronecker(scale, 16, seed=1)
    S = A.to_scipy()
    src = int(np.argmax(np.diff(S.indptr))) if source < 0 else source
    G = A.to("gpu")
    t0 = time.perf_counter()
    first = gb.algorithms.bfs(G, src)
    sync()
    t_first = time.perf_counter() - t0
    plan = gb.explain(gb.algorithms.bfs, G, src)
    want = scipy_bfs_levels(S, src)
    ok = bool(np.array_equal(cp.asnumpy(first.to_dense(fill=-1)), want))
    fused = median_ms(lambda: gb.algorithms.bfs(G, src), sync, repeat)
    with gb.config(format="csr"):
        loop = median_ms(lambda: gb.algorithms.bfs(G, src), sync, repeat)
    C = csp.csr_matrix(S.astype(np.float32))
    x = cp.ones(S.shape[0], dtype=np.float32)
    spmv2 = median_ms(lambda: (C @ x, C @ x), sync, repeat)
    return {"scale": scale, "n": S.shape[0], "nnz": S.nnz, "source": src,
            "levels": int(want.max()), "reached": int((want >= 0).sum()), "ok": ok,
            "first_s": t_first, "fused_ms": fused, "loop_ms": loop, "spmv2_ms": spmv2,
            "plan": str(plan)}


def run(scales, repeat: int, source: int = -1) -> list[dict]:
    """Time the three ways per scale; returns one row per scale."""
    import cupy as cp

    rows = []
    for scale in scales:
        rows.append(_one(scale, repeat, source))
        print(rows[-1], file=sys.stderr, flush=True)
        cp.get_default_memory_pool().free_all_blocks()
    return rows


def table(rows: list[dict]) -> str:
    """The markdown table of :func:`run`'s rows."""
    out = ["| scale | vertices | entries | levels (reached) | fused | loop of products | "
           "2 cuSPARSE SpMVs | fused / 2 SpMVs | loop / fused | first call | levels ok |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:-:|"]
    for r in rows:
        out.append(
            f"| {r['scale']} | {r['n']:,} | {r['nnz']:,} | {r['levels']} ({r['reached']:,}) "
            f"| {r['fused_ms']:.3f} ms | {r['loop_ms']:.3f} ms | {r['spmv2_ms']:.3f} ms | "
            f"{r['fused_ms'] / r['spmv2_ms']:.2f} | {r['loop_ms'] / r['fused_ms']:.1f}x | "
            f"{r['first_s']:.2f} s | {'yes' if r['ok'] else 'NO'} |")
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="+", default=[16, 20, 22])
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--source", type=int, default=-1,
                   help="start vertex (-1: the highest out-degree vertex)")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    rows = run(args.scales, args.repeat, args.source)
    text = table(rows)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
