"""Fit the constants of the planner's CPU pull cost model to measured ``gb.mxv`` times.

Two steps, one script:

1. **Measure** (``--measure``): on the real graphs of ``shared/data`` and Kronecker graphs
   (``--scales``, 14-20 by default), ``gb.mxv`` (float32 ``plus_times``, iso pull matrix,
   as ``run_formats`` builds them) is timed with each CPU format pinned: the formats are
   timed one after the other, as an iterative algorithm runs one (9 rounds after 3
   warm-up calls; a round of a sub-millisecond product repeats it until 20 ms were spent
   and keeps the mean), the median of the rounds is kept.  Before each graph the run
   waits (up to ``--wait-max`` s) for the 1-minute load average to fall below
   ``--wait-load`` and records it, with the share of the machine's CPU time other
   processes took during the graph's timing.  Beside every
   time: the model's features (entries, rows, local rows, row imbalance, the sampled
   simulation's x miss rate).  Saved to ``benchmarks/results/cpu_costs.json``.
2. **Fit** (always): the per-call overhead and the ns constants of
   :mod:`gblas.formats.costing` minimizing the squared *relative* error over every
   (graph, format) time (non-negative least squares), printed with the per-graph error of
   the current constants and of the fitted ones, for every format and for the format the
   planner chooses.  Written to ``benchmarks/results/cpu_costs.md``.

Run: ``python -m benchmarks.fit_cpu_costs --measure`` (about 10 minutes on the 2-core
machine), then ``python -m benchmarks.fit_cpu_costs`` to refit from the saved times.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.harness import describe_machine, markdown_table, write_results
from benchmarks.run_formats import graph_sources, wait_for_load

RESULTS = Path(__file__).resolve().parent / "results"
FORMATS = ("csr", "shards", "segmented", "heavy_light")
#: The model's unknowns, in the order of the design matrix's columns.
PARAMS = ("CALL_S", "GROUPED_CALL_S", "NS_ROW_PARTIAL", "NS_EDGE_CACHED", "NS_EDGE_L2_MISS",
          "NS_EDGE_MISS", "NS_ROW", "NS_LOCAL_ROW", "NS_EDGE_L2", "NS_SEG_L2_MISS")


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _cpu_busy() -> tuple[float, float]:
    """(total, idle) jiffies of the machine (/proc/stat), for the share others used."""
    try:
        with open("/proc/stat") as f:
            v = [float(x) for x in f.readline().split()[1:]]
        return sum(v), v[3] + v[4]
    except OSError:
        return 0.0, 0.0


def _own_cpu() -> float:
    """CPU seconds of this process, all its threads."""
    import resource

    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def _features(M) -> dict:
    """What the cost model reads (the planner's own statistics, cached with the CSR)."""
    from gblas import hardware
    from gblas.formats.costing import PullContext, expansion_factor

    hw = hardware.detect()
    csr = M.csr()
    sizes = _sizes(hw)
    ctx = PullContext.of(csr, hw, 4, 5, 0, 1.0, sizes)
    m, n = csr.shape
    q = {}
    for f, key in (("segmented", "segment_size"), ("heavy_light", "tile_cols")):
        q[f] = expansion_factor(csr, max(1, -(-n // max(1, sizes[key]))))
    return {"entries": float(ctx.entries), "rows": m, "cols": n, "threads": ctx.threads,
            "imbalance": ctx.imbalance, "miss": ctx.miss, "miss_l2": ctx.miss_l2,
            "partial": bool(ctx.partial),
            "q": q, "x_data": ctx.x_data}


def _sizes(hw) -> dict:
    from gblas.formats import heavy_light, segmented

    return {"segment_size": segmented.default_segment_size(hw),
            "tile_cols": heavy_light.default_tile_sizes(hw)[1]}


def package_estimates(M) -> tuple[dict, str]:
    """The planner's estimates with the constants now in gblas, and the format it settles
    on once builds are paid (its preferred format where estimated below CSR)."""
    import gblas as gb
    from gblas import hardware
    from gblas.planner import cost

    hw = hardware.detect()
    est = cost.pull_estimates(M.csr(), hw, 4, 5, 0, 1.0, _sizes(hw), FORMATS)
    x = gb.Vector.from_dense(np.ones(M.shape[1], np.float32))
    pref = gb.explain(gb.mxv, M, x).details.get("preferred", "csr")
    chosen = pref if pref in est and est[pref].seconds < est["csr"].seconds else "csr"
    return {f: e.seconds for f, e in est.items()}, chosen


def measure_graph(name: str, M, rounds: int, warm: int) -> dict:
    import gblas as gb

    x = gb.Vector.from_dense(np.ones(M.shape[1], np.float32))
    mats = {}
    for f in FORMATS:
        B = M.dup()
        with gb.config(format=f):
            for _ in range(warm):
                gb.mxv(B, x)
        mats[f] = B
    # calls per round: enough for 20 ms (sub-millisecond products are noisy one by one)
    reps = {}
    for f in FORMATS:
        with gb.config(format=f):
            t0 = time.perf_counter()
            gb.mxv(mats[f], x)
            dt = time.perf_counter() - t0
        reps[f] = max(1, min(200, int(0.02 / max(dt, 1e-6))))
    times: dict[str, list] = {f: [] for f in FORMATS}
    c0, r0 = _cpu_busy(), _own_cpu()
    w0 = time.perf_counter()
    for f in FORMATS:  # one format at a time, as an iterative algorithm runs it
        B = mats[f]
        with gb.config(format=f):
            for _ in range(warm):
                gb.mxv(B, x)
            for _ in range(rounds):
                t0 = time.perf_counter()
                for _ in range(reps[f]):
                    gb.mxv(B, x)
                times[f].append((time.perf_counter() - t0) / reps[f])
    wall = time.perf_counter() - w0
    c1, r1 = _cpu_busy(), _own_cpu()
    # CPU time of the whole machine (both cores) less this process's: the others' share
    ticks = os.sysconf("SC_CLK_TCK")
    total = (c1[0] - c0[0]) / ticks
    busy = ((c1[0] - c0[0]) - (c1[1] - c0[1])) / ticks
    others = max(0.0, busy - (r1 - r0)) / max(total, 1e-9)
    est, chosen = package_estimates(M)
    out = {"graph": name, "n": M.shape[0], "nnz": M.nvals, "chosen": chosen,
           "estimate": est, "reps": reps, "others": others, "wall": wall,
           "median": {f: float(np.median(times[f])) for f in FORMATS},
           "spread": {f: float((max(times[f]) - min(times[f])) / np.median(times[f]))
                      for f in FORMATS},
           "features": _features(M)}
    return out


def measure(args) -> list[dict]:
    rows = []
    for name, build in graph_sources(args.scales, True, seed=0):
        load = wait_for_load(args.wait_load, args.wait_max)
        M = build()
        r = measure_graph(name, M, args.rounds, 3)
        r["load"] = load
        rows.append(r)
        _log(f"{name}: load {load:.2f}, others' CPU share {r['others']:.2f}, "
             + ", ".join(f"{f} {1e3 * r['median'][f]:.3f} ms" for f in FORMATS))
        del M
    return rows


# ------------------------------------------------------------------------------ model


def design(feat: dict, fmt: str) -> np.ndarray:
    """The row of the design matrix: time = row . (seconds, ns constants) for ``fmt``
    (the model of ``gblas.formats.costing`` and the formats' ``pull_estimate``)."""
    E, m, P = feat["entries"], feat["rows"], feat["threads"]
    row = np.zeros(len(PARAMS))
    col = {p: k for k, p in enumerate(PARAMS)}
    row[col["CALL_S"]] = 1.0
    ns = 1e-9
    if feat["partial"]:
        row[col["NS_ROW_PARTIAL"]] = m * ns
    if fmt in ("csr", "shards"):
        s = ns * (feat["imbalance"] / P if fmt == "csr" else (1.0 + (P - 1) / max(m, 1)) / P)
        row[col["NS_EDGE_CACHED"]] = E * s
        row[col["NS_EDGE_L2_MISS"]] = E * feat["miss_l2"] * s
        row[col["NS_EDGE_MISS"]] = E * feat["miss"] * s
        row[col["NS_ROW"]] = m * s
        return row
    s = ns * (feat["imbalance"] if fmt == "segmented" else 1.0) / P
    row[col["GROUPED_CALL_S"]] = 1.0
    row[col["NS_ROW"]] = m * s
    row[col["NS_LOCAL_ROW"]] = feat["q"][fmt] * m * s
    if fmt == "segmented":
        row[col["NS_EDGE_CACHED"]] = E * s
        row[col["NS_SEG_L2_MISS"]] = E * feat["miss_l2"] * s
    else:
        row[col["NS_EDGE_L2"]] = E * s
    return row


def fit(rows: list[dict]) -> np.ndarray:
    """Non-negative least squares of the relative errors over every (graph, format)."""
    from scipy.optimize import nnls

    X, y = [], []
    for r in rows:
        for f in FORMATS:
            t = r["median"][f]
            X.append(design(r["features"], f) / t)
            y.append(1.0)
    theta, _ = nnls(np.array(X), np.array(y))
    return theta


def predict(theta: np.ndarray, feat: dict, fmt: str) -> float:
    return float(design(feat, fmt) @ theta)


def _pct(est: float, t: float) -> str:
    return f"{100 * (est - t) / t:+.0f}%"


def report(rows: list[dict], theta: np.ndarray) -> str:
    named = ", ".join(f"{p} = {theta[k] * 1e6:.1f} us" if p.endswith("_S")
                      else f"{p} = {theta[k]:.3g} ns" for k, p in enumerate(PARAMS))
    head = ["graph", "entries", "1-min load", "others' CPU", "planner settles on",
            "measured ms", "gblas est. ms", "gblas error", "refit ms", "refit error"]
    head += [f"{f} ms (gblas err)" for f in FORMATS]
    body = []
    worst = 0.0
    for r in rows:
        f = r["chosen"]
        t = r["median"][f]
        fitted = predict(theta, r["features"], f)
        worst = max(worst, abs(r["estimate"][f] - t) / t)
        line = [r["graph"], r["nnz"], f"{r['load']:.2f}", f"{r['others']:.2f}", f,
                f"{t * 1e3:.3f}", f"{r['estimate'][f] * 1e3:.3f}", _pct(r["estimate"][f], t),
                f"{fitted * 1e3:.3f}", _pct(fitted, t)]
        line += [f"{r['median'][g] * 1e3:.3f} ({_pct(r['estimate'][g], r['median'][g])})"
                 for g in FORMATS]
        body.append(line)
    return (f"Constants refitted to these times (the refit columns): {named}.\n\n"
            f"Largest error of the planner's estimate for the format it "
            f"settles on: {100 * worst:.0f}% (target 25%).\n\n" + markdown_table(head, body))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--measure", action="store_true", help="time the graphs (else: refit)")
    p.add_argument("--reestimate", action="store_true",
                   help="rebuild the graphs and take the estimates of the constants now in "
                        "gblas (the times stay)")
    p.add_argument("--scales", type=int, nargs="*", default=[14, 16, 18, 20])
    p.add_argument("--write", action="store_true",
                   help="write the results page from the saved times and estimates")
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--data", default="cpu_costs",
                   help="name of the times' JSON and of the results page (benchmarks/results)")
    p.add_argument("--wait-load", type=float, default=1.5)
    p.add_argument("--wait-max", type=float, default=120.0)
    args = p.parse_args(argv)
    data_file = RESULTS / f"{args.data}.json"
    if args.measure:
        machine = describe_machine(bandwidth=False)
        rows = measure(args)
        data_file.write_text(json.dumps({"machine": machine, "rows": rows}, indent=1))
    data = json.loads(data_file.read_text())
    rows = data["rows"]
    if args.reestimate:
        by_name = {r["graph"]: r for r in rows}
        for name, build in graph_sources(args.scales, True, seed=0):
            if name in by_name:
                M = build()
                r = by_name[name]
                r["estimate"], r["chosen"] = package_estimates(M)
                r["features"] = _features(M)
                del M
        data_file.write_text(json.dumps(data, indent=1))
    theta = fit(rows)
    text = report(rows, theta)
    print(text)
    if args.measure or args.reestimate or args.write:
        write_results(args.data, "The planner's CPU pull estimates against measured time",
                      [("Estimates and measured times (float32 plus_times, iso pull matrix)",
                        text)], data["machine"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
