"""The report of the end-to-end benchmark (:mod:`benchmarks.run_end_to_end`) on the CPU:
the markdown tables of its rows (one per algorithm), the summary of the ratios, the list
of failures and slow cases, and :func:`write_cpu`, which writes the results file.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

from benchmarks import end_to_end_spectral as spectral
from benchmarks.end_to_end_common import (
    ALGORITHMS,
    BC_SMALL,
    DIJKSTRA_SOURCES,
    FIRST_EVER_SCALE,
    Row,
    _fmt,
)

# --------------------------------------------------------------------------- reports


def _ratio_text(r: float | None) -> str:
    if r is None:
        return "-"
    return f"{r:.3g}"


def _row_cells(r: Row) -> list:
    check_text = r.check + (f" ({r.note})" if r.note else "")
    return [r.graph, f"{r.n:,}", f"{r.nnz:,}", r.alg, _fmt(r.fresh), _fmt(r.prepared),
            _fmt(r.cold), r.anchor, _fmt(r.anchor_time) if r.anchor_time else "-",
            _ratio_text(r.ratio), check_text]


HEADERS = ["graph", "n", "nnz", "algorithm", "gblas fresh", "gblas prepared", "gblas cold",
           "anchor", "anchor time", "anchor / gblas fresh", "check"]


def summary(rows: list[Row]) -> str:
    """Geometric mean, min and max of the ratio per algorithm and anchor (checked rows)."""
    from benchmarks.harness import markdown_table

    groups: dict[tuple[str, str], list[Row]] = {}
    for r in rows:
        if r.ratio is not None and r.ok:
            key = (r.alg, r.anchor.split(" (k=")[0])
            groups.setdefault(key, []).append(r)
    def gmean(xs):
        return math.exp(sum(math.log(x) for x in xs) / len(xs))

    out = []
    for (alg, anchor), rs in groups.items():
        gm = gmean([r.ratio for r in rs])
        gm_p = gmean([r.anchor_time / r.prepared for r in rs if r.prepared])
        lo = min(rs, key=lambda r: r.ratio)
        hi = max(rs, key=lambda r: r.ratio)
        big = max(rs, key=lambda r: r.nnz)
        out.append([alg, anchor, len(rs), f"{gm:.3g}", f"{gm_p:.3g}",
                    f"{lo.ratio:.3g} ({lo.graph})", f"{hi.ratio:.3g} ({hi.graph})",
                    f"{big.ratio:.3g} ({big.graph})"])
    return markdown_table(["algorithm", "anchor", "graphs", "anchor / gblas fresh",
                           "anchor / gblas prepared", "lowest (fresh)", "highest (fresh)",
                           "on the largest graph (fresh)"], out)


def problems(rows: list[Row]) -> list[str]:
    out = []
    for r in rows:
        if r.ok is False:
            out.append(f"- {r.graph}, {r.alg} vs {r.anchor}: {r.check}")
        elif r.ratio is not None and r.ok and r.ratio < 1:
            out.append(f"- slower than the peer: {r.graph}, {r.alg}: gblas {_fmt(r.fresh)} "
                       f"against {r.anchor} {_fmt(r.anchor_time)} (ratio {r.ratio:.3g})")
        if r.ok is None and r.check.startswith("no convergence"):
            out.append(f"- {r.graph}, {r.alg}: {r.check}")
        if "cold call failed" in r.note:
            out.append(f"- {r.graph}, {r.alg}: {r.note}")
    return sorted(set(out), key=out.index)


def write_cpu(rows: list[Row], first: list[list] | None, imports: list[float], args,
              machine: dict, final: bool) -> Path:
    from benchmarks.harness import markdown_table, write_results

    sections = []
    sections.append(("How to read", (
        "Times are medians of several calls after one warm-up call (NetworkX: no warm-up, "
        "the first call counts; a call over 5 s is measured once), the garbage collector "
        "run once before a measurement and off during its calls. **gblas fresh**: a new "
        "`gblas.Matrix` per call, built from the SciPy matrix outside the timed region "
        "(for `gblas.csgraph.*`: the SciPy matrix itself, converted inside the call, as a "
        "SciPy user calls it); **prepared**: the same Matrix reused (its cached formats "
        "too); **cold**: the first call in a new process, the on-disk kernel cache warm "
        "(`import gblas` and loading the graph not counted). **anchor / gblas fresh**: "
        "above 1, gblas is faster. Every anchor's answer is compared with gblas's "
        "before its time is reported (**WRONG?** marks a difference, **FAILED** a call "
        "that raised). Peers take the same SciPy float64 matrix (python-graphblas: a new "
        "Matrix and Graph per call, built outside the timed region; NetworkX: its graph "
        "built once). PageRank: damping 0.85, gblas's default rule (stop when the L1 "
        "change is below 1e-6), given to NetworkX and graphblas-algorithms as "
        "`tol=1e-6/n` (their rule is L1 < n * tol), so all run the same iterations; the "
        "SciPy loop includes the matrix normalization. BFS / SSSP / breadth_first_order "
        "start at a vertex of largest out-degree; `csgraph.dijkstra` from it and "
        f"{DIJKSTRA_SOURCES - 1} seeded random vertices; SSSP weights uniform in (0, 1] "
        "(seeded). Betweenness: the sources NetworkX samples for `k` and `seed=1` "
        f"(256; 64 above {BC_SMALL:,} entries), the same for both. label_propagation: "
        "answers are not unique; the check is that gblas's labels are a fixpoint (every "
        "vertex holds one of its most frequent neighbour labels), with both community "
        "counts. "
        "Eigenvector and Katz centrality run NetworkX's iterates on both sides (its "
        "rule `L1 < n * tol`, tol 1e-6, given to gblas as `tol = n * 1e-6`; Katz with "
        f"alpha = {spectral.KATZ_SHARE} / lambda_max); NetworkX's `hits` is a sparse "
        "SVD (ARPACK, tol 1e-8), gblas's a power iteration (tol 1e-10): their sum-1 "
        f"scores may differ by {spectral.HITS_DIFF:g} of the largest; Louvain: seed 1 on "
        "both sides, the partitions compared. "
        f"Peers estimated over {args.limit:.0f} s (from their rate on smaller graphs) "
        "are not run. SciPy and NetworkX run on one core; gblas (Numba) and "
        "SuiteSparse:GraphBLAS on all. The machine is shared: other jobs add noise.")))
    sections.append(("Summary", "Geometric means of the ratio over the graphs where the "
                     "answers agree (above 1: gblas faster).\n\n" + summary(rows)))
    if first:
        imp = f"; `import gblas` in a new process: {_fmt(statistics.median(imports))} " \
              "(median)" if imports else ""
        sections.append((f"First-ever call (empty kernel cache), Kronecker "
                         f"{FIRST_EVER_SCALE}", (
                             "Each algorithm alone in a new process with an empty kernel "
                             "cache folder (`GBLAS_CACHE_DIR` and `NUMBA_CACHE_DIR`): "
                             "compilation included; then the same call in another new "
                             "process with the cache just filled" + imp + ".\n\n"
                             + markdown_table(["algorithm", "nnz", "first-ever call",
                                               "cold (cache warm)", "import gblas"],
                                              first))))
    by_alg: dict[str, list[Row]] = {}
    for r in rows:
        by_alg.setdefault(r.alg, []).append(r)
    for alg in ALGORITHMS:
        if alg in by_alg:
            sections.append((alg, markdown_table(HEADERS,
                                                 [_row_cells(r) for r in by_alg[alg]])))
    probs = problems(rows)
    sections.append(("Failures, differences and slow cases",
                     "\n".join(probs) if probs else "None."))
    if not final:
        sections.append(("Status", "Partial: the run was still going when this was "
                                   "written."))
    name = args.name or "end_to_end_cpu"
    return write_results(name, "End to end on the CPU: gblas against its peers", sections,
                         machine, directory=args.out)
