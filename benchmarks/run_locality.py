"""Locality: the cache-guided-scheduling comparison, and simulated bytes against measured
time across the CPU formats.

Three sections, one run:

1. **The paper's comparison** (Mukkara, Beckmann, Sanchez, "Cache-Guided Scheduling",
   figure 7): simulated main-memory accesses of one pull SpMV (PageRank's product) relative
   to CSR in its stored (natural) order, for a random relabelling (the paper's
   locality-agnostic input), degree sort, frequency clustering, every gblas CPU format,
   and the idealized CGS-V and CGS-E schedules.  The graphs here are 100-1000x smaller than
   the paper's, so the simulated hierarchy is the paper's (table 2: L1 1/256 of the last
   level, 16-way hashed last level, 64 B lines) shrunk until the vertex data (``x`` and
   ``y``, 8 bytes each) is ``--ratio`` times the last level (16 by default; the paper's
   graphs are 2.2-236x its 8 MB).
2. **Simulator speed**: seconds and accesses per second of one replay of Kronecker 22's
   pull (``--speed-scale``; 132.5M accesses) with the machine's caches and with one fully
   associative level of the L3's size, median of 3 with the load average of each.
3. **Simulated bytes vs measured time**: ``gb.mxv`` (float32 ``plus_times``, iso matrix)
   timed with each CPU format pinned as ``fit_cpu_costs.py`` times them (one format at a
   time, median of 9 rounds after 3 warm-up calls, a round of a sub-millisecond product
   averaging 20 ms of calls), next to the simulated bytes per edge with the machine's
   caches (float32 values), Spearman's rank correlation per graph; the planner's choice,
   its estimated time (``planner/cost.py``) against the measured one, and the sampled
   simulation's predicted CSR bytes per edge.

Run: ``python -m benchmarks.run_locality --scales 14 16``; writes
``benchmarks/results/locality_cpu.md``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.harness import describe_machine, markdown_table, write_results
from benchmarks.run_formats import graph_sources

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
CPU_FORMATS = ("csr", "shards", "segmented", "heavy_light")
#: the paper's PageRank figures (section 4.2): CGS-V 2.4x, CGS-E 4.6x fewer accesses than
#: Ligra (gmean over hol, wik, liv, ind, uk, web); both schemes over PageRank and CF:
#: 2.1x and 5.8x.  Preprocessing (GOrder) is close to CGS-E (figure 8).
PAPER = {"cgs_vertex": 1 / 2.4, "cgs_edge": 1 / 4.6}


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def graphs(scales: list[int], real: bool):
    """(name, pull Matrix builder): Kronecker (symmetric) and the real graphs, as
    ``run_formats`` builds them."""
    return graph_sources(scales, real, seed=0)


def gmean(v) -> float:
    v = [x for x in v if x > 0]
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")


VARIANTS = [("random", "csr", "random", "vertex"), ("degree", "csr", "degree", "vertex"),
            ("frequency", "csr", "frequency", "vertex"),
            ("segmented", "segmented", "natural", "vertex"),
            ("heavy_light", "heavy_light", "natural", "vertex"),
            ("shards", "shards", "natural", "vertex"),
            ("CGS-V", "csr", "natural", "cgs_vertex"), ("CGS-E", "csr", "natural", "cgs_edge")]


def reproduce(name, M, ratio: float, cgs: bool) -> dict:
    from gblas.analysis import CacheConfig, pull_csr, simulate

    csr = pull_csr(M)
    m, n = csr.shape
    llc = max(1024, int((m + n) * 8 / ratio))
    cfg = CacheConfig.scaled(llc)
    base = simulate(csr, cache=cfg)
    row = {"graph": name, "n": n, "nnz": csr.nnz, "llc": llc, "base": base}
    for label, f, o, s in VARIANTS:
        if s != "vertex" and not cgs:
            continue
        t0 = time.perf_counter()
        row[label] = simulate(csr, f, o, cfg, schedule=s)
        _log(f"  {name} {label}: {row[label].memory_accesses / base.memory_accesses:.3f} "
             f"({time.perf_counter() - t0:.1f} s)")
    return row


def _vertex(r) -> int:
    b = r.breakdown()
    return b["x"] + b["y"] + b["gather"]


def section_reproduce(rows, cgs: bool) -> str:
    labels = [v[0] for v in VARIANTS if cgs or v[3] == "vertex"]
    head = ["graph", "vertices", "entries", "last level", "csr B/edge"] + labels
    if cgs:
        head += ["CGS-V vertex data", "CGS-E vertex data"]
    body = []
    for r in rows:
        b = r["base"]
        line = [r["graph"], r["n"], r["nnz"], f"{r['llc'] / 1024:.0f} KiB",
                f"{b.bytes_per_edge:.2f}"]
        line += [f"{r[k].memory_accesses / b.memory_accesses:.2f}" for k in labels]
        if cgs:
            line += [f"{_vertex(r[k]) / _vertex(b):.2f}" for k in ("CGS-V", "CGS-E")]
        body.append(line)
    for title, pick in (("gmean, real graphs", lambda r: not r["graph"].startswith("kron")),
                        ("gmean, all", lambda r: True)):
        sel = [r for r in rows if pick(r)]
        if not sel:
            continue
        line = [title, "", "", "", ""]
        line += [f"{gmean([r[k].memory_accesses / r['base'].memory_accesses for r in sel]):.2f}"
                 for k in labels]
        if cgs:
            line += [f"{gmean([_vertex(r[k]) / _vertex(r['base']) for r in sel]):.2f}"
                     for k in ("CGS-V", "CGS-E")]
        body.append(line)
    if cgs:
        paper = ["paper, PageRank (fig. 7)", "1.1M-118M", "45M-1.0G", "8 MiB", ""]
        paper += ["1.00" if k == "random" else (f"{PAPER['cgs_vertex']:.2f}" if k == "CGS-V"
                                               else f"{PAPER['cgs_edge']:.2f}" if k == "CGS-E"
                                               else "") for k in labels]
        body.append(paper + ["", ""])
    return markdown_table(head, body)


def section_speed(M, name, repeat: int = 3) -> str:
    """Seconds and accesses per second of one replay (median of ``repeat`` after a
    warm-up on a small graph), with the load average at the start of each."""
    import os

    import gblas as gb
    from gblas.analysis import CacheConfig, pull_csr, simulate

    csr = pull_csr(M)
    small = pull_csr(gb.io.kronecker(8, 16, seed=0, symmetric=True))
    out = []
    for cfg in (CacheConfig.machine(), CacheConfig.single(CacheConfig.machine().llc)):
        simulate(small, cache=cfg)  # compiled / loaded from the kernel cache
        runs = []
        for _ in range(repeat):
            load = os.getloadavg()[0]
            r = simulate(csr, cache=cfg)
            runs.append((r.seconds, load))
            _log(f"  speed {name} {cfg.describe()}: {r.seconds:.2f} s (load {load:.2f})")
        runs.sort()
        secs, load = runs[len(runs) // 2]
        rate = r.accesses / secs
        out.append([name, cfg.describe(), r.accesses, f"{secs:.2f}",
                    f"{min(t for t, _ in runs):.2f}-{max(t for t, _ in runs):.2f}",
                    f"{rate / 1e6:.1f}", f"{load:.2f}"])
    return markdown_table(["graph", "hierarchy", "accesses", "seconds (median)",
                           f"range of {repeat}", "M accesses/s", "1-min load"], out)


def measure(name, M) -> dict:
    import os

    import gblas as gb
    from benchmarks.fit_cpu_costs import measure_graph
    from gblas import hardware
    from gblas.analysis import CacheConfig, simulate
    from gblas.formats import heavy_light, segmented
    from gblas.planner import cost
    from gblas.planner.locality import predicted_misses

    x = gb.Vector.from_dense(np.ones(M.shape[1], np.float32))
    load = os.getloadavg()[0]
    # timed as fit_cpu_costs times them: one format at a time, 9 rounds after 3 warm-ups
    times = measure_graph(name, M, 9, 3)["median"]
    sim = {}
    cfg = CacheConfig.machine()
    for f in CPU_FORMATS:
        B = M.dup()
        with gb.config(format=f):
            gb.mxv(B, x)  # builds the format the simulation replays
        sim[f] = simulate(B, f, cache=cfg, x_bytes=4, y_bytes=5).bytes_per_edge
    from scipy.stats import spearmanr

    rho = spearmanr([sim[f] for f in CPU_FORMATS], [times[f] for f in CPU_FORMATS])[0]
    B = M.dup()
    plan = gb.explain(gb.mxv, B, x)
    hw = hardware.detect()
    csr = B.csr()
    sizes = {"segment_size": segmented.default_segment_size(hw),
             "tile_cols": heavy_light.default_tile_sizes(hw)[1]}
    est = cost.pull_estimates(csr, hw, 4, 5, 0, 1.0, sizes, [plan.format])
    est_s = est[plan.format].seconds if plan.format in est else float("nan")
    pred = predicted_misses(csr, 4, 5, hw)
    return {"graph": name, "times": times, "sim": sim, "rho": rho, "chosen": plan.format,
            "est": est_s, "pred": pred, "load": load}


def section_measure(rows) -> str:
    head = ["graph"] + [f"{f} ms" for f in CPU_FORMATS] + [f"{f} sim B/edge"
                                                             for f in CPU_FORMATS]
    head += ["Spearman rho", "planner picks", "est ms", "measured ms", "est error",
             "predicted csr B/edge", "1-min load"]
    body = []
    for r in rows:
        line = [r["graph"]] + [f"{r['times'][f] * 1e3:.3f}" for f in CPU_FORMATS]
        line += [f"{r['sim'][f]:.2f}" for f in CPU_FORMATS]
        meas = r["times"][r["chosen"]]
        err = (r["est"] - meas) / meas
        line += [f"{r['rho']:.2f}" if not math.isnan(r["rho"]) else "n/a", r["chosen"],
                 f"{r['est'] * 1e3:.3f}", f"{meas * 1e3:.3f}", f"{100 * err:+.0f}%",
                 f"{r['pred']['bytes_per_edge']:.2f}", f"{r['load']:.2f}"]
        body.append(line)
    return markdown_table(head, body)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="*", default=[14, 16])
    p.add_argument("--ratio", type=float, default=16.0,
                   help="vertex data / simulated last level (16)")
    p.add_argument("--no-real", dest="real", action="store_false")
    p.add_argument("--no-cgs", dest="cgs", action="store_false")
    p.add_argument("--no-time", dest="timed", action="store_false")
    p.add_argument("--speed-scale", type=int, default=22,
                   help="Kronecker scale of the simulator-speed section (0: the run's "
                        "largest graph)")
    p.add_argument("--out", default="locality_cpu")
    args = p.parse_args(argv)
    machine = describe_machine(bandwidth=False)
    rep, meas = [], []
    largest = None
    t_all = time.perf_counter()
    for name, build in graphs(args.scales, args.real):
        M = build()
        _log(f"{name}: {M.shape[0]:,} vertices, {M.nvals:,} entries")
        if args.timed:  # timed first, before the simulations' memory comes and goes
            meas.append(measure(name, M))
        rep.append(reproduce(name, M, args.ratio, args.cgs))
        if largest is None or M.nvals > largest[1].nvals:
            largest = (name, M)
    sections = [(f"Simulated main-memory accesses relative to CSR in natural order "
                 f"(vertex data {args.ratio:g}x the last level)", section_reproduce(rep, args.cgs))]
    if args.speed_scale > 0:
        import gblas as gb

        name = f"kron{args.speed_scale}"
        _log(f"{name}: building for the simulator's speed")
        K = gb.io.kronecker(args.speed_scale, 16, seed=0, dtype="float32", symmetric=True)
        sections.append(("Simulator speed", section_speed(K, name)))
        del K
    elif largest is not None:
        sections.append(("Simulator speed", section_speed(largest[1], largest[0])))
    if meas:
        sections.append(("Simulated bytes per edge (machine caches) vs measured mxv time",
                         section_measure(meas)))
    sections.append(("Run", f"{time.perf_counter() - t_all:.0f} s in all; scales "
                            f"{args.scales}; ratio {args.ratio:g}"))
    path = write_results(args.out, "Locality: cache simulation of the pull SpMV (CPU)",
                         sections, machine)
    print(path.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
