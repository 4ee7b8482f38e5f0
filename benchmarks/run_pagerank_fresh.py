"""PageRank on a fresh Matrix (CPU): the first run pays every build, against two anchors.

A user's first ``gblas.algorithms.pagerank(gb.Matrix.from_scipy(S))`` pays the conversion,
the transpose (the pull reads ``A^T``) and any format the planner builds, on top of the
iterations.  Each timed run here starts from the same SciPy matrix ``S`` and makes a
fresh Matrix; the anchors run in the same process on the same ``S``:

* python-graphblas (SuiteSparse:GraphBLAS): ``from_scipy_sparse`` then the same power
  iteration (``s = r .* w``, ``y = s A``, the dangling rank, L1 change) as a loop of
  python-graphblas calls;
* SciPy: the same loop over ``S`` (``s @ S``), no conversion.

Both stop by gblas's default rule (L1 change of the ranks below ``tol``); the iteration
counts are reported.  Where gblas's time goes is measured by timing its build steps
(``Matrix.from_scipy``, ``CSR.transpose``, the segmented build) within the runs.

Usage::

    python -m benchmarks.run_pagerank_fresh --scale 22 --repeat 3
    python -m benchmarks.run_pagerank_fresh --scale 20 --save-json out.json
    python -m benchmarks.run_pagerank_fresh --scale 22 --before before.json

``--save-json`` keeps the raw figures (to compare another version of gblas, run with
its sources first on ``PYTHONPATH``); ``--before`` adds such a file's figures to the
results as the "before" column.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from pathlib import Path

import numpy as np

from benchmarks.harness import describe_machine, markdown_table, write_results


def _graph(scale: int, seed: int, dtype: str):
    import gblas as gb

    A = gb.io.kronecker(scale, 16, seed=seed, dtype=None, symmetric=True)
    S = A.to_scipy().astype(dtype)
    return S


class _Steps:
    """Wall time spent in gblas's build steps, accumulated per run."""

    def __init__(self) -> None:
        import gblas as gb
        from gblas.formats.csr import CSR
        from gblas.formats.segmented import SegmentedCSR

        self.spent: dict[str, float] = {}
        self._patch(CSR, "transpose", "transpose")
        self._patch(SegmentedCSR, "from_csr", "segmented build", classmethod_=True)
        self._patch(gb.Matrix, "from_scipy", "from_scipy", classmethod_=True)

    def _patch(self, cls, name: str, label: str, classmethod_: bool = False) -> None:
        orig = getattr(cls, name)
        spent = self.spent

        def timed(*args, **kwargs):
            t = time.perf_counter()
            try:
                return orig(*args, **kwargs)
            finally:
                spent[label] = spent.get(label, 0.0) + time.perf_counter() - t

        if classmethod_:
            func = orig.__func__

            def timed_cm(cls_, *args, **kwargs):
                t = time.perf_counter()
                try:
                    return func(cls_, *args, **kwargs)
                finally:
                    spent[label] = spent.get(label, 0.0) + time.perf_counter() - t

            setattr(cls, name, classmethod(timed_cm))
        else:
            setattr(cls, name, timed)

    def take(self) -> dict[str, float]:
        out = dict(self.spent)
        self.spent.clear()
        return out


def gblas_fresh(S, steps: _Steps):
    """A fresh Matrix from ``S``, then pagerank: ``(seconds, ranks, steps)``."""
    import gblas as gb
    from gblas.algorithms import pagerank

    steps.take()
    t = time.perf_counter()
    A = gb.Matrix.from_scipy(S)
    r = pagerank(A)
    secs = time.perf_counter() - t
    warm_t = time.perf_counter()
    pagerank(A)
    warm = time.perf_counter() - warm_t
    return secs, r.to_dense(), {**steps.take(), "warm": warm}, A


def grb_loop(S, alpha: float = 0.85, tol: float = 1e-6, max_iter: int = 100):
    """python-graphblas: conversion plus the power iteration; ``(ranks, iterations)``."""
    import graphblas as gbx

    A = gbx.io.from_scipy_sparse(S)
    n = A.nrows
    d = A.reduce_rowwise(gbx.monoid.plus).new(dtype=gbx.dtypes.FP64)
    w = d.apply(gbx.binary.truediv, left=alpha).new()       # alpha / d where d has a value
    idx, _ = w.to_coo()
    has = np.zeros(n, dtype=bool)
    has[idx] = True
    dangling = gbx.Vector.from_coo(np.flatnonzero(~has), True, size=n)  # no out-edge
    r = gbx.Vector(float, n)
    r[:] << 1.0 / n
    it = 0
    while it < max_iter:
        it += 1
        s = r.ewise_mult(w, gbx.binary.times).new()
        y = s.vxm(A, gbx.semiring.plus_times).new()
        t = gbx.Vector(float, n)
        t(dangling.S) << r
        dsum = t.reduce(gbx.monoid.plus).value or 0.0
        nxt = gbx.Vector(float, n)
        nxt[:] << (alpha * dsum + 1.0 - alpha) / n
        nxt(gbx.binary.plus) << y
        err = nxt.ewise_add(r, gbx.binary.minus).new().apply(gbx.unary.abs).new().reduce(
            gbx.monoid.plus).value
        r = nxt
        if err < tol:
            break
    return r.to_dense(fill_value=0.0), it


def scipy_loop(S, alpha: float = 0.85, tol: float = 1e-6, max_iter: int = 100):
    """SciPy: the same iteration over ``S`` (``s @ S`` is ``S^T s``)."""
    n = S.shape[0]
    d = np.asarray(S.sum(axis=1)).ravel().astype(np.float64)
    w = np.divide(alpha, d, out=np.zeros(n), where=d != 0)
    dangling = d == 0
    r = np.full(n, 1.0 / n)
    it = 0
    while it < max_iter:
        it += 1
        y = (r * w) @ S
        nxt = y + (alpha * r[dangling].sum() + 1.0 - alpha) / n
        err = np.abs(nxt - r).sum()
        r = nxt
        if err < tol:
            break
    return r, it


def _med(xs):
    return statistics.median(xs) if xs else float("nan")


def run(scale: int, repeat: int, seed: int, dtype: str) -> dict:
    import gblas as gb
    from gblas.algorithms import pagerank

    steps = _Steps()
    t = time.perf_counter()
    S = _graph(scale, seed, dtype)
    print(f"graph: scale {scale}, {S.shape[0]:,} vertices, {S.nnz:,} entries, {S.dtype} "
          f"({time.perf_counter() - t:.1f} s)", flush=True)
    # JIT warm-up (every kernel of the path compiled or loaded from the disk cache): a
    # small graph, then one full-size run (formats built only at size are compiled then)
    pagerank(gb.Matrix.from_scipy(_graph(12, seed, dtype)))
    first, _, _, A = gblas_fresh(S, steps)
    plan = str(gb.explain(gb.mxv, A.T, gb.Vector.full(A.shape[0], 1.0),
                          "plus_second" if A.dtype == np.bool_ else "plus_times"))
    del A
    print(f"warm-up run {first:.2f} s", flush=True)
    out: dict = {"scale": scale, "nnz": int(S.nnz), "n": int(S.shape[0]), "dtype": dtype,
                 "gblas": [], "gblas_warm": [], "steps": [], "grb": [], "scipy": [],
                 "plan_after_first_run": plan}
    ref = None
    for k in range(repeat):
        gc.collect()
        secs, ranks, st, A = gblas_fresh(S, steps)
        del A
        gc.collect()
        out["gblas"].append(secs)
        out["gblas_warm"].append(st.pop("warm"))
        out["steps"].append(st)
        t = time.perf_counter()
        g_ranks, g_it = grb_loop(S)
        out["grb"].append(time.perf_counter() - t)
        gc.collect()
        t = time.perf_counter()
        s_ranks, s_it = scipy_loop(S)
        out["scipy"].append(time.perf_counter() - t)
        out["iterations"] = {"python-graphblas": g_it, "scipy": s_it}
        ref = s_ranks
        out["max_diff"] = float(max(np.abs(ranks - ref).max(), np.abs(g_ranks - ref).max()))
        print(f"run {k}: gblas fresh {secs:.2f} s (warm {out['gblas_warm'][-1]:.2f} s; "
              + ", ".join(f"{a} {b:.2f} s" for a, b in st.items())
              + f"), python-graphblas {out['grb'][-1]:.2f} s ({g_it} it), "
              f"scipy {out['scipy'][-1]:.2f} s ({s_it} it)", flush=True)
    # the Plan of pagerank's product on a fresh Matrix (what it reports it will build)
    import gblas as gbm

    A = gbm.Matrix.from_scipy(S)
    out["plan_fresh"] = str(gbm.explain(gbm.mxv, A.T, gbm.Vector.full(A.shape[0], 1.0),
                                        "plus_times"))
    return out


def _summary_rows(res: dict, label: str) -> list:
    g, gw = _med(res["gblas"]), _med(res["gblas_warm"])
    grb, sci = _med(res["grb"]), _med(res["scipy"])
    return [label, f"{g:.2f} s", f"{gw:.2f} s", f"{grb:.2f} s", f"{sci:.2f} s",
            f"{g / grb:.2f}", f"{g / sci:.2f}", f"{gw / grb:.2f}"]


def _steps_rows(res: dict, label: str) -> list:
    keys = ["from_scipy", "transpose", "segmented build"]
    med = {k: _med([s.get(k, 0.0) for s in res["steps"]]) for k in keys}
    total = _med(res["gblas"])
    rest = total - sum(med.values())
    return [label, *(f"{med[k]:.2f} s" for k in keys), f"{rest:.2f} s", f"{total:.2f} s"]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dtype", default="float64")
    ap.add_argument("--save-json", type=Path)
    ap.add_argument("--before", type=Path, help="figures of another gblas (--save-json)")
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args(argv)
    machine = describe_machine()
    res = run(args.scale, args.repeat, args.seed, args.dtype)
    res["machine_load"] = machine.get("load average at start")
    if args.save_json:
        args.save_json.write_text(json.dumps(res, indent=1))
    if args.no_write:
        return
    before = json.loads(args.before.read_text()) if args.before else None
    rows = ([_summary_rows(before, "before")] if before else []) + [_summary_rows(res, "after")]
    head = ["gblas", "fresh Matrix + pagerank", "pagerank again (built)",
            "python-graphblas (convert + loop)", "SciPy loop", "fresh / python-graphblas",
            "fresh / SciPy", "again / python-graphblas"]
    steps = ([_steps_rows(before, "before")] if before else []) + [_steps_rows(res, "after")]
    sections = [
        ("Graph", f"Graph500 Kronecker scale {res['scale']}, edge factor 16, undirected, seed "
                  f"{args.seed}: {res['n']:,} vertices, {res['nnz']:,} entries, values "
                  f"{res['dtype']} (all 1)."),
        ("Results", markdown_table(head, rows) + "\n\nMedian of the timed runs (after a "
         f"warm-up run at full size), {args.repeat} per column; every run makes a fresh "
         "Matrix from the same SciPy matrix. Iterations: gblas and both anchors stop when "
         f"the L1 change is below 1e-6 ({res['iterations']}); max rank difference "
         f"{res['max_diff']:.1e}."),
        ("Where a fresh run's time goes", markdown_table(
            ["gblas", "from_scipy", "transpose", "segmented build", "iterations (rest)",
             "total"], steps)),
        ("Plans", "Fresh Matrix (before pagerank's first product):\n\n    "
         + res["plan_fresh"] + "\n\nAfter a run:\n\n    " + res["plan_after_first_run"]),
    ]
    path = write_results("pagerank_fresh_cpu", "PageRank on a fresh Matrix (CPU)", sections,
                         machine)
    print(path)


if __name__ == "__main__":
    main()
