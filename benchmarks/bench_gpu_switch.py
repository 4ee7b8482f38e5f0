"""Push/pull switch on the GPU: the planner's work estimate against MultiGraph's sampling.

For every BFS level of a few graphs this script times the level's product both ways,
pinned (push SpMSpV over the frontier, pull SpMV with the mask of unvisited rows), and
asks two estimators which way to go:

* **work** -- the planner's rule (:func:`gblas.planner.choose.plan_mxv`): the frontier's
  out-degree sum ``a`` (one gather and a sum over the frontier), push when
  ``PUSH_EDGE_COST * a + nf < nnz * allowed + nf``;
* **sampling** -- MultiGraph's hybrid switch (Sec. 6 of the MultiGraph paper): push on a
  random ``SAMPLE`` share of the frontier, timed and scaled up, is the sparse estimate ESP;
  the dense estimate EDP is the pull measured once, on the first level; push when
  ``ESP < EDP``.

Each estimator's BFS time is the sum, over levels, of the time of the way it chose plus
what the estimate itself cost; the oracle takes the faster way at every level.  Results
go to ``benchmarks/results/hybrid_switch_gpu.md``.

Run on a machine with a CUDA GPU: ``python -m benchmarks.bench_gpu_switch``.
"""

from __future__ import annotations

import argparse
import math
from typing import Any

import numpy as np

from benchmarks.harness import markdown_table, median_ms, write_results

#: Share of the frontier the sampling estimate pushes (at least one vertex).
SAMPLE = 0.01


def sweep(name: str, A: Any, source: int, repeat: int, rng) -> dict:
    """Every BFS level of ``A`` from ``source``: both directions timed, both estimates."""
    import cupy as cp

    import gblas as gb
    from gblas.planner import cost

    sync = cp.cuda.Device().synchronize
    n = A.shape[0]
    AT = A.T
    deg = cp.diff(A.csr().indptr.astype(cp.int64))  # symmetric: out-degree = in-degree
    nnz = A.nvals
    levels = gb.Vector.from_coo([source], np.array([0], dtype=np.int64), n).to("gpu")
    q = gb.Vector.from_coo([source], None, n).to("gpu")
    rows, edp = [], None
    depth = 0
    while True:
        depth += 1
        mask = ~levels.S

        def step(direction, x=q, mask=mask):
            with gb.config(direction=direction):
                return gb.mxv(AT, x, "any_pair", mask=mask, replace=True)

        t_push = median_ms(lambda: step("push"), sync, repeat)
        t_pull = median_ms(lambda: step("pull"), sync, repeat)
        if edp is None:
            edp = t_pull
        idx = q.sparse_data().indices
        nf = int(idx.shape[0])
        # work estimate: the frontier's degree sum (what the planner computes)
        t_work = median_ms(lambda idx=idx: int(deg[idx].sum()), sync, repeat)
        active = int(deg[idx].sum())
        allowed = n - levels.nvals
        work_push = cost.PUSH_EDGE_COST * active + nf < nnz * allowed / n + nf
        # sampling estimate: push a random share of the frontier, scale its time up
        ns = max(1, math.ceil(SAMPLE * nf))
        pick = np.sort(rng.choice(nf, ns, replace=False))
        qs = gb.Vector.from_coo(cp.asnumpy(idx)[pick], None, n).to("gpu")
        t_sample = median_ms(lambda qs=qs: step("push", qs), sync, repeat)
        esp = t_sample * nf / ns
        sample_push = esp < edp
        plan = gb.explain(gb.mxv, AT, q, "any_pair", mask=mask, replace=True)
        q = gb.mxv(AT, q, "any_pair", mask=mask, replace=True)
        nq = q.nvals
        rows.append({"level": depth, "frontier": nf, "active": active, "push": t_push,
                     "pull": t_pull, "work": "push" if work_push else "pull",
                     "planner": plan.direction, "esp": esp,
                     "sampling": "push" if sample_push else "pull", "t_work": t_work,
                     "t_sample": t_sample})
        if nq == 0:
            break
        gb.apply(q, "second", right=depth, mask=q.S, out=levels)
    return {"name": name, "n": n, "nnz": nnz, "source": source, "edp": edp, "levels": rows}


def summary(res: dict) -> list:
    lv = res["levels"]
    oracle = sum(min(r["push"], r["pull"]) for r in lv)

    def total(key, extra):
        return sum(r[r[key]] + r[extra] for r in lv)

    work = total("work", "t_work")
    sampling = total("sampling", "t_sample")
    wrong_w = sum(r[r["work"]] > min(r["push"], r["pull"]) for r in lv)
    wrong_s = sum(r[r["sampling"]] > min(r["push"], r["pull"]) for r in lv)
    return [res["name"], f"{res['n']:,}", f"{res['nnz']:,}", len(lv), f"{oracle:.2f}",
            f"{work:.2f} ({wrong_w} wrong)", f"{sampling:.2f} ({wrong_s} wrong)",
            f"{work / oracle:.3f}", f"{sampling / oracle:.3f}"]


def level_table(res: dict, most: int = 12) -> str:
    lv = res["levels"]
    keep = lv if len(lv) <= most else lv[:most // 2] + lv[-most // 2:]
    rows = [[r["level"], f"{r['frontier']:,}", f"{r['active']:,}", f"{r['push']:.3f}",
             f"{r['pull']:.3f}", r["work"], r["planner"], f"{r['esp']:.3f}", r["sampling"],
             f"{r['t_work']:.3f}", f"{r['t_sample']:.3f}"] for r in keep]
    note = "" if keep is lv else f"\n\n(first and last {most // 2} of {len(lv)} levels)"
    return markdown_table(["level", "frontier", "frontier edges", "push ms", "pull ms",
                           "work says", "planner ran", "ESP ms", "sampling says",
                           "work estimate ms", "sample push ms"], rows) + note


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_gpu_switch",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=int, default=22, help="Kronecker scale")
    p.add_argument("--grid", type=int, default=512, help="side of the grid graph")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--name", default="hybrid_switch_gpu")
    args = p.parse_args(argv)
    import cupy as cp

    import gblas as gb

    rng = np.random.default_rng(0)
    graphs = []
    K = gb.io.kronecker(args.scale, symmetric=True, dtype=None)
    kdeg = np.diff(K.csr().indptr)
    hub = int(np.argmax(kdeg))
    # a vertex of degree 1 or 2 next to the hub: a slower start, a later peak
    low = int(next(v for v in K.csr().indices[K.csr().indptr[hub]:K.csr().indptr[hub + 1]]
                   if kdeg[v] <= 2))
    Kg = K.to("gpu")
    graphs += [(f"kronecker {args.scale}, hub source", Kg, hub),
               (f"kronecker {args.scale}, degree-{kdeg[low]} source", Kg, low)]
    n_u = 1 << args.scale
    U = gb.io.uniform(n_u, 8 * n_u, seed=1, dtype=None, symmetric=True).to("gpu")
    graphs.append((f"uniform 2^{args.scale}, 16 entries per row", U, 0))
    side = args.grid
    Gr = gb.io.grid(side, side, dtype=None).to("gpu")
    graphs.append((f"grid {side}x{side}, centre source", Gr, side * (side // 2) + side // 2))
    results = [sweep(name, A, s, args.repeat, rng) for name, A, s in graphs]
    table = markdown_table(["graph", "vertices", "entries", "levels", "oracle ms",
                            "work estimate ms", "sampling ms", "work / oracle",
                            "sampling / oracle"], [summary(r) for r in results])
    dev = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    sections = [("Summary", table)]
    sections += [(f"Levels: {r['name']}", level_table(r)) for r in results]
    sections.append(("Notes", (
        f"{dev}. Each time is the median of {args.repeat} synchronized calls after one "
        "warm-up. 'oracle': the faster way at every level; an estimator's total adds "
        "what its estimate cost at every level (the degree gather and sum for the work "
        f"estimate; the push over a {SAMPLE:.0%} sample for sampling, whose dense "
        "estimate EDP is the first level's pull). 'planner ran': the direction "
        "gb.mxv's Plan chose (the work rule, plus its reuse condition).")))
    path = write_results(args.name, "Push/pull switch on the GPU: work estimate vs sampling",
                         sections, None)
    print(table)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
