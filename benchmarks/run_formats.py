"""Cache-aware CPU formats: PageRank-style pull SpMV per format vs CSR, SuiteSparse, SciPy.

``y = M x`` with float32 ``plus_times``, ``M`` the pull matrix of a graph (row i lists
the in-neighbours of i: ``A^T`` for a directed graph, ``A`` for an undirected one),
pattern values (iso ones), ``x`` dense float32: one PageRank iteration's product.  In one
run, on the same matrix and vector:

- **gblas planner**: ``gb.mxv(M, x)`` with nothing pinned, timed once the planner's choice
  is stable (it builds a cache-aware format only after the calls so far would have paid
  for it: the number of calls it took is reported);
- **gblas** with each format pinned (``csr``, ``segmented``, ``heavy_light``,
  ``shards``), the build time of the format beside (measured alone, after JIT warm-up)
  and the calls it takes to amortize it against CSR;
- **SuiteSparse:GraphBLAS** through python-graphblas (iso matrix, same threads);
- **SciPy** ``S @ x`` (single-threaded).

Graphs: Graph500 Kronecker (A=0.57, B=C=0.19, edge factor 16, symmetric, duplicates and
self-loops removed) at the scales asked, and the real graphs of ``shared/data`` (skipped
when the folder is missing).  Times: median of 5 calls after a warm-up call.  Bytes per
edge follow Cagra's DRAM traffic model ``E + 2qV + V`` with the format's measured
expansion factor ``q``, in bytes: see :func:`model_bytes`.  With ``--wait-load`` the run
waits (up to ``--wait-max`` s per graph) for the 1-minute load average to drop below a
threshold before timing, so that other work on the machine distorts less.

Run: ``python -m benchmarks.run_formats --scales 22 23``; writes
``benchmarks/results/formats_cpu.md``.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks.harness import (
    Timing,
    describe_machine,
    fmt_time,
    markdown_table,
    time_call,
    write_results,
)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
FORMATS = ("csr", "segmented", "heavy_light", "shards")
SS = "SuiteSparse:GraphBLAS"
#: Sub-millisecond products are timed until this many seconds were spent (median of all).
MIN_TIME = 0.25


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _load() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0


def wait_for_load(threshold: float | None, max_wait: float) -> float:
    """Wait until the 1-minute load average is below ``threshold`` (at most ``max_wait``
    seconds); returns the load average when timing starts."""
    t0 = time.time()
    while threshold is not None and _load() >= threshold and time.time() - t0 < max_wait:
        time.sleep(5)
    return _load()


def model_bytes(fmt: str, F, n: int, nnz: int, idx_b: int, ptr_b: int, x_b: int = 4,
                y_b: int = 5) -> tuple[float, float]:
    """Cagra's DRAM traffic ``E + 2qV + V`` in bytes, and ``q``.

    * ``E``: the entries once (column index; values are iso);
    * ``V``: x read once (sequentially, when the format confines the gathers to the cache)
      and y written once (value + presence byte), plus one row pointer per row;
    * ``2qV``: per local row of a grouped format, its partial (value + presence) written in
      the first phase and read in the merge, with its local row pointer and row map entry.

    CSR and shards have ``q = 0`` (their gathers of x miss the cache once x exceeds it:
    those misses come on top of the model, and are what the formats remove).
    """
    base = nnz * idx_b + n * (ptr_b + x_b + y_b)
    if fmt in ("segmented", "heavy_light"):
        q = F.q
        local = F.nlocal * (2 * y_b + F.lptr.itemsize + F.rowmap.itemsize)
        return base + local, q
    return base, 0.0


def graph_sources(scales: list[int], real: bool, seed: int = 0):
    """(name, builder) pairs; a builder returns the pull Matrix (iso float32)."""
    import gblas as gb

    out: list[tuple[str, Callable]] = []
    for s in scales:
        out.append((f"kron{s}", lambda s=s: gb.io.kronecker(s, 16, seed=seed, dtype="float32",
                                                              symmetric=True)))
    if real and DATA.is_dir():
        for path in sorted(DATA.glob("*.mtx.gz")):
            def build(path=path):
                A = gb.io.read_mm(path)
                r, c, _ = A.to_coo()
                # the pull matrix: row i gathers from the in-neighbours of i
                return gb.Matrix.from_coo(c, r, np.float32(1), shape=A.shape[::-1],
                                          dup_op="any")
            out.append((path.name.replace(".mtx.gz", ""), build))
    elif real:
        _log(f"{DATA} not found: the real graphs are skipped")
    return out


def _warm_up() -> None:
    """Compile every kernel and build pass (sequential and parallel) on a small graph so
    that build and call times exclude Numba's compilation."""
    import gblas as gb
    from gblas import hardware

    W = gb.io.kronecker(14, 16, seed=1, dtype="float32")
    x = gb.Vector.from_dense(np.ones(W.ncols, np.float32))
    with hardware.assume(l1d=4096, l2=16384, l3=65536, line=64):
        for f in FORMATS:
            for reorder in (None, "frequency"):
                B = W.dup()
                with gb.config(format=f):
                    gb.mxv(B, x)
                cls = type(B.get_format(f))
                if f in ("segmented", "heavy_light"):
                    cls.from_csr(B.csr(), reorder=reorder)


def _graphblas(S, threads: int):
    try:
        import graphblas as grb
    except ImportError:
        _log("python-graphblas not installed: the SuiteSparse anchor is skipped")
        return None
    grb.ss.config["nthreads"] = threads
    n, m = S.shape
    M = grb.Matrix.ss.import_csr(nrows=n, ncols=m, indptr=S.indptr.astype(np.uint64),
                                 col_indices=S.indices.astype(np.uint64),
                                 values=np.ones(1, dtype=np.float32), is_iso=True,
                                 sorted_cols=True, take_ownership=True)
    return M, grb


def bench_graph(name: str, M, repeat: int, threads: int, seed: int, max_ramp: int):
    """Time every implementation on the pull matrix ``M``; returns rows, plans, checks."""
    import gblas as gb

    csr = M.csr()
    n, nnz = M.nrows, M.nvals
    idx_b, ptr_b = csr.indices.itemsize, csr.indptr.itemsize
    x_np = np.random.default_rng(seed).random(M.ncols, dtype=np.float32)
    x = gb.Vector.from_dense(x_np)
    S = M.to_scipy().astype(np.float32)
    ref = np.asarray(S @ x_np, dtype=np.float64)
    results: dict[str, dict] = {}
    checks: list[str] = []

    def check(label: str, y: np.ndarray) -> None:
        err = float(np.abs(y - ref).max() / max(np.abs(ref).max(), 1e-30)) if n else 0.0
        checks.append(f"- {name} {label} vs SciPy: {'equal' if err < 1e-4 else 'DIFFERENT'}"
                      f" (max relative diff {err:.2g})")

    # ----- gblas formats: built on M (build time alone), kept for the timing
    built: dict[str, object] = {}
    for f in FORMATS:
        t0 = time.perf_counter()
        built[f] = M.get_format(f)
        results[f"gblas {f}"] = {"build": time.perf_counter() - t0 if f != "csr" else 0.0}
    # ----- the planner: a fresh Matrix (no use counted yet), called until its choice settles
    P = type(M)(csr)
    plan0 = gb.explain(gb.mxv, P, x)
    ramp = 0
    t0 = time.perf_counter()
    while ramp < max_ramp:
        gb.mxv(P, x)
        ramp += 1
        p = gb.explain(gb.mxv, P, x)
        # settled: no format waits for more uses to pay for its build, the choice is built
        if "pending" not in p.details and P.has_format(p.format):
            break
    t_ramp = time.perf_counter() - t0
    plan = gb.explain(gb.mxv, P, x)
    # ----- every implementation, one block of calls each
    fns: dict[str, Callable] = {"SciPy": lambda: S @ x_np}
    grb_pair = _graphblas(S, threads)
    if grb_pair is not None:
        G, grb = grb_pair
        xv = grb.Vector.from_dense(x_np)
        fns[SS] = lambda: G.mxv(xv, grb.semiring.plus_times).new()
        check(SS, fns[SS]().to_dense(fill_value=0))

    def pinned(f: str) -> Callable:
        def call():
            with gb.config(format=f):
                return gb.mxv(M, x)
        return call

    def planner():
        with gb.config():  # the same context-manager overhead as the pinned calls
            return gb.mxv(P, x)

    for f in FORMATS:
        fns[f"gblas {f}"] = pinned(f)
        check(f"gblas {f}", fns[f"gblas {f}"]().to_dense(fill=0))
    fns["gblas planner"] = planner
    check("gblas planner", planner().to_dense(fill=0))
    for label, t in time_all(fns, repeat, MIN_TIME).items():
        results.setdefault(label, {})["t"] = t
    results["SciPy"]["note"] = "single-threaded"
    if SS in results:
        results[SS]["note"] = f"{threads} threads, iso"
    for f in FORMATS:
        F = built[f] if f != "csr" else None
        nbytes, q = model_bytes(f, F, n, nnz, idx_b, ptr_b)
        results[f"gblas {f}"].update(bytes=nbytes, q=q, note=F.describe() if F is not None
                                     else "row-parallel CSR")
    F = P.get_format(plan.format) if plan.format != "csr" else None
    nbytes, q = model_bytes(plan.format, F, n, nnz, idx_b, ptr_b)
    results["gblas planner"].update(
        bytes=nbytes, q=q, choice=plan.format,
        note=f"chose {plan.format} after {ramp} calls ({t_ramp:.2f} s incl. builds)")
    plans = [f"- {name}, first call: {plan0}", f"- {name}, after {ramp} calls: {plan}"]
    M.clear_cache()
    P.clear_cache()
    fns.clear()
    gc.collect()
    return results, plans, checks


def time_all(fns: dict[str, Callable], repeat: int, min_time: float) -> dict[str, Timing]:
    """Time each function in its own block of calls (:func:`~benchmarks.harness.time_call`:
    one warm-up call, then ``repeat`` calls, more until ``min_time`` s were spent).

    Blocks, not calls interleaved between implementations: SuiteSparse and Numba each run
    their own OpenMP runtime, whose idle threads spin for a while after a parallel region;
    on 2 cores, switching runtimes call by call makes each call wait for the other
    runtime's spinning threads (measured: 4 ms stalls on sub-millisecond products, and
    1.5-2x slower products at scale 22), which an iterative algorithm never sees.
    """
    return {k: time_call(fn, repeat=repeat, warmup=1, min_time=min_time)
            for k, fn in fns.items()}


def _rows(name: str, n: int, nnz: int, results: dict, load: float) -> list[list]:
    ss = results.get(SS, {}).get("t")
    sci = results["SciPy"]["t"]
    csr_t = results["gblas csr"]["t"].median
    rows = []
    order = ["gblas planner", *[f"gblas {f}" for f in FORMATS], SS, "SciPy"]
    for impl in order:
        if impl not in results:
            continue
        r = results[impl]
        t = r["t"]
        build = r.get("build")
        amort = "–"
        if build:
            saving = csr_t - t.median
            amort = f"{build / saving:.1f}" if saving > 0 else "never"
        nb = r.get("bytes")
        rows.append([
            name, f"{n:,}", f"{nnz:,}", impl, fmt_time(t.median), f"{100 * t.spread:.0f}%",
            f"{t.median / ss.median:.2f}" if ss else "–", f"{t.median / sci.median:.2f}",
            f"{t.median / csr_t:.2f}" if impl.startswith("gblas") else "–",
            fmt_time(build) if build else "–", amort,
            f"{r['q']:.2f}" if r.get("q") else "–",
            f"{nb / nnz:.1f}" if nb and nnz else "–",
            f"{nb / t.median / 1e9:.1f}" if nb else "–",
            f"{load:.2f}", r.get("note", ""),
        ])
    return rows


def run(scales: list[int], repeat: int, real: bool, seed: int, name: str,
        wait_load: float | None, wait_max: float, max_ramp: int) -> str:
    import numba

    import gblas as gb

    threads = numba.get_num_threads()
    _log("measuring the machine...")
    machine = describe_machine()
    _log("warming up the kernels (JIT)...")
    _warm_up()
    rows, plans, checks, summary = [], [], [], []
    for gname, build in graph_sources(scales, real, seed):
        _log(f"{gname}: building the graph...")
        M = build()
        n, nnz = M.nrows, M.nvals
        load = wait_for_load(wait_load, wait_max)
        _log(f"  {n:,} vertices, {nnz:,} entries; load {load:.2f}")
        results, p, c = bench_graph(gname, M, repeat, threads, seed, max_ramp)
        for impl, r in results.items():
            _log(f"  {impl:28s} {r['t']}")
        rows += _rows(gname, n, nnz, results, load)
        plans += p
        checks += c
        if gname.startswith("kron"):
            pl, csr_t = results["gblas planner"]["t"].median, results["gblas csr"]["t"].median
            ss = results.get(SS, {}).get("t")
            seg = results["gblas segmented"]["t"].median
            summary.append(
                f"- {gname}: planner ({results['gblas planner']['choice']}) "
                f"{fmt_time(pl)}: {ss.median / pl:.2f}x faster than SuiteSparse, "
                f"{results['SciPy']['t'].median / pl:.2f}x faster than SciPy; segmented "
                f"{csr_t / seg:.2f}x faster than gblas CSR" if ss else f"- {gname}: -")
        del M
        gc.collect()
    headers = ["graph", "n", "nnz", "implementation", "median", "spread", "time / SS:GrB",
               "time / SciPy", "time / gblas csr", "build", "calls to amortize", "q",
               "bytes/edge (model)", "GB/s (model)", "load", "notes"]
    table = markdown_table(headers, rows)
    method = "\n".join([
        "- Product: `y = M x`, float32 `plus_times`, M the pull matrix (in-neighbours; "
        "`A` for the undirected Kronecker graphs, `A^T` for the directed real graphs), "
        "pattern values stored iso, x dense float32 uniform in [0, 1).",
        f"- Timing: each implementation in its own block: 1 warm-up call, then {repeat} "
        f"calls (more for sub-millisecond products: until {MIN_TIME} s were spent); the "
        "median is reported (spread = (max - min) / median).  Numba kernels and build "
        "passes are compiled beforehand on a small graph, so 'build' is the format's "
        "preprocessing alone.",
        "- 'gblas planner': nothing pinned; the calls are repeated until the planner's "
        "choice is built and stable (a cache-aware format is built once the calls so far "
        "would have paid for it), then timed.",
        "- 'calls to amortize': build time / (CSR time - format time) per call.",
        "- 'bytes/edge (model)': Cagra's `E + 2qV + V` in bytes (column index per entry; "
        "row pointer, x and y once per vertex; per local row of a grouped format its partial "
        "written and read back, its row pointer and row map), q measured on the built format; "
        "the x gathers that miss the LLC (CSR, shards on big graphs) come on top of the "
        "model: that traffic is what segmenting removes.",
        "- 'load': 1-minute load average when the graph's timing started (2 cores; other "
        "work on the machine inflates the times).",
    ])
    sections = [("Summary (targets: planner >= 2x SuiteSparse and >= 3x SciPy on Kronecker "
                 "22-23; segmented >= 1.8x gblas CSR on scale 23)", "\n".join(summary) or "-"),
                ("Results", table), ("Method", method),
                ("Plans chosen by gblas", "\n".join(plans)), ("Checks", "\n".join(checks))]
    path = write_results(name, "CPU cache-aware formats: PageRank-style pull SpMV", sections,
                         machine)
    _log(f"wrote {path}")
    del gb
    return table


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m benchmarks.run_formats [--scales 22 23] [--no-real]``."""
    p = argparse.ArgumentParser(prog="python -m benchmarks.run_formats", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scales", type=int, nargs="*", default=[22, 23])
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--no-real", dest="real", action="store_false",
                   help="skip the real graphs of shared/data")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--name", default="formats_cpu", help="results file name (without .md)")
    p.add_argument("--wait-load", type=float, default=None,
                   help="wait for the 1-minute load average to drop below this")
    p.add_argument("--wait-max", type=float, default=600.0,
                   help="longest wait per graph (s)")
    p.add_argument("--max-ramp", type=int, default=200,
                   help="most calls given to the planner to settle")
    args = p.parse_args(argv)
    print(run(args.scales, args.repeat, args.real, args.seed, args.name, args.wait_load,
              args.wait_max, args.max_ramp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
