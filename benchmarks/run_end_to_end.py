"""End-to-end benchmark: every public gblas algorithm against its peers, as users call them.

For each graph and algorithm the public gblas call is timed three ways:

``fresh``
    a new :class:`gblas.Matrix` per call, built from the SciPy matrix outside the timed
    region, so nothing a Matrix caches (derived formats, statistics) carries over from
    one call to the next: what a user's one call on a new graph costs;
``prepared``
    the same Matrix for every call (its cached formats reused): what a user pays when
    calling again on a graph already used;
``cold``
    the first call in a new Python process (``import gblas`` and graph loading not
    counted), with the on-disk kernel cache warm (the in-process calls just made fill
    it).  A separate table gives the ``first-ever`` call, with an empty kernel cache, on
    the 16K-vertex Kronecker graph.

For ``gblas.csgraph`` (the SciPy drop-in), ``fresh`` passes the SciPy matrix itself, as a
SciPy user does (gblas converts it in the call), and ``prepared`` a gblas Matrix.

The peers are called through their own public API in the same run, on the same graph:
NetworkX, SciPy (``scipy.sparse.csgraph``), graphblas-algorithms (python-graphblas on
SuiteSparse:GraphBLAS), and a SciPy loop where no library call exists (PageRank's power
iteration, the masked triangle count).  Their inputs are built outside the timed region
too (a fresh python-graphblas Matrix and Graph per call; the NetworkX graph once).
Each answer is checked against gblas's before its time is reported; a wrong answer or a
failing call is marked in the table.  Times are medians after a warm-up call; a peer
whose call would take more than ``--limit`` seconds (estimated from its time on the
smaller graphs) is skipped, and the table says so.

Graphs: Graph500 Kronecker graphs of scales 10, 14 and 18 (``--large``: also 20 and 22),
edge factor 16, seed 1 (directed for PageRank, BFS, SSSP and the csgraph functions;
symmetrized for the undirected algorithms), and every ``*.mtx.gz`` file of the data folder
(``--data``; skipped when missing).  SSSP and ``dijkstra`` weigh every edge with a seeded
uniform draw in (0, 1].

``--gpu`` times ``pagerank``, ``bfs`` and ``sssp`` on a GPU Matrix (``A.to("gpu")``),
fresh, prepared and cold, against loops of cuSPARSE products through
``cupyx.scipy.sparse`` (SSSP: SciPy's ``dijkstra`` on the host) instead; named with
``--algorithms``, the spectral centralities too (:mod:`benchmarks.end_to_end_spectral`).
The shared constants, dataclasses and timing are in
:mod:`benchmarks.end_to_end_common`, the peers and the answer checks in
:mod:`benchmarks.end_to_end_peers`, the tables in :mod:`benchmarks.end_to_end_report`;
this module loads the graphs, makes the gblas calls, runs them and has the command line.


Run from the repository root::

    python -m benchmarks.run_end_to_end                 # writes results/end_to_end_cpu.md
    python -m benchmarks.run_end_to_end --quick         # smoke test: small graphs, 1 run
    python -m benchmarks.run_end_to_end --gpu           # writes results/end_to_end_gpu.md
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks import end_to_end_spectral as spectral
from benchmarks.end_to_end_common import (
    ALGORITHMS,
    BC_SMALL,
    DEFAULT_DATA,
    DIJKSTRA_SOURCES,
    EDGE_FACTOR,
    FIRST_EVER_SCALE,
    FORM,
    LARGE_SCALES,
    NX_PRIOR,
    REPO,
    SCALES,
    SEED,
    Graph,
    GraphCase,
    Measure,
    Row,
    _fmt,
    _log,
    measure,
)
from benchmarks.end_to_end_common import DAMPING as DAMPING
from benchmarks.end_to_end_common import GPU_ALGORITHMS as GPU_ALGORITHMS
from benchmarks.end_to_end_common import TOL as TOL
from benchmarks.end_to_end_peers import Anchor, Peers, check
from benchmarks.end_to_end_peers import _same_partition as _same_partition
from benchmarks.end_to_end_report import _ratio_text as _ratio_text
from benchmarks.end_to_end_report import write_cpu

# The "X as X" imports above are re-exports: benchmarks.end_to_end_gpu and
# end_to_end_spectral import those names from this module.

# ---------------------------------------------------------------------------- graphs


def _csr64(S):
    import scipy.sparse as sp

    S = sp.csr_array(S, dtype=np.float64)
    S.sum_duplicates()
    S.sort_indices()
    return S


def _undirected(D):
    import scipy.sparse as sp

    U = sp.csr_array(((D + D.T) != 0).astype(np.float64))
    U.setdiag(0)
    U.eliminate_zeros()
    return _csr64(U)


def _weighted(D, seed: int = SEED):
    W = D.copy()
    W.data = 1.0 - np.random.default_rng(seed).random(W.nnz)  # uniform in (0, 1]
    return W


def load_graph(case: GraphCase) -> Graph:
    """Build the three forms of ``case``."""
    import gblas as gb

    if case.scale is not None:
        D = _csr64(gb.io.generators.kronecker(case.scale, EDGE_FACTOR, seed=SEED).to_scipy())
        U = _csr64(gb.io.generators.kronecker(case.scale, EDGE_FACTOR, seed=SEED,
                                              symmetric=True).to_scipy())
        U.setdiag(0)
        U.eliminate_zeros()
        kind = f"Graph500 Kronecker, scale {case.scale}, edge factor {EDGE_FACTOR}, seed {SEED}"
    else:
        D = _csr64(gb.io.read_mm(case.path).to_scipy())
        U = _undirected(D)
        sym = (D != D.T).nnz == 0
        kind = "undirected" if sym else "directed"
        kind += ", from the data folder"
    return Graph(case.name, D, U, _weighted(D), kind)


def graph_cases(args) -> list[GraphCase]:
    """The graphs of this run, smallest first."""
    scales = list(SCALES) + (list(LARGE_SCALES) if args.large else [])
    files: list[Path] = []
    data = Path(args.data) if args.data else DEFAULT_DATA
    if data.is_dir():
        files = sorted(data.glob("*.mtx.gz"), key=lambda p: p.stat().st_size)
    elif args.graphs is None or any(not g.startswith("kronecker") for g in args.graphs):
        _log(f"data folder {data.name!r} not found: real graphs skipped")
    if args.quick:
        scales = [10, 14]
        files = files[:3]
    cases = [GraphCase(f"kronecker-{s}", scale=s) for s in scales]
    cases += [GraphCase(p.name[:-len(".mtx.gz")], path=p) for p in files]
    if args.graphs is not None:
        known = {c.name: c for c in cases}
        chosen = []
        for g in args.graphs:
            if g in known:
                chosen.append(known[g])
            elif g.startswith("kronecker-") and g[10:].isdigit():
                chosen.append(GraphCase(g, scale=int(g[10:])))
            else:
                _log(f"graph {g!r} not found (data folder: {data.name!r}): skipped")
        cases = chosen
    return sorted(cases, key=GraphCase.size_hint)


def _source(D) -> int:
    """A vertex of largest out-degree (it reaches the giant component)."""
    return int(np.argmax(np.diff(D.indptr)))


def _bc_sources(n: int, nnz: int, seed: int = SEED) -> list[int]:
    """Betweenness sources: the vertices ``networkx.betweenness_centrality(G, k, seed)``
    samples on a graph whose nodes are ``0 .. n-1`` in order."""
    k = min(n, 256 if nnz <= BC_SMALL else 64)
    return random.Random(seed).sample(range(n), k)


def params_of(g: Graph) -> dict:
    """The fixed arguments of the calls on ``g`` (sources), shared by gblas and peers."""
    src = _source(g.D)
    deg = np.diff(g.W.indptr)
    rng = np.random.default_rng(SEED)
    cand = np.flatnonzero(deg > 0)
    others = [int(v) for v in rng.choice(cand, size=min(cand.size, DIJKSTRA_SOURCES * 2),
                                         replace=False) if v != src]
    return {"source": src, "sources": [src] + others[:DIJKSTRA_SOURCES - 1],
            "bc_sources": _bc_sources(g.n, g.U.nnz)}


# ------------------------------------------------------------------- the gblas calls


def gblas_call(alg: str, p: dict) -> Callable:
    """The public gblas call of ``alg`` as a function of its graph argument."""
    import gblas as gb

    a = gb.algorithms
    calls = {
        "pagerank": lambda A: a.pagerank(A),
        "bfs": lambda A: a.bfs(A, p["source"]),
        "sssp": lambda A: a.sssp(A, p["source"]),
        "connected_components": lambda A: a.connected_components(A),
        "triangle_count": lambda A: a.triangle_count(A),
        "core_number": lambda A: a.core_number(A),
        "betweenness_centrality": lambda A: a.betweenness_centrality(
            A, sources=p["bc_sources"]),
        "label_propagation": lambda A: a.label_propagation(A),
        "csgraph.dijkstra": lambda A: gb.csgraph.dijkstra(A, indices=p["sources"]),
        "csgraph.breadth_first_order": lambda A: gb.csgraph.breadth_first_order(
            A, p["source"]),
        "csgraph.connected_components": lambda A: gb.csgraph.connected_components(A),
    }
    if alg in spectral.ALGORITHMS:
        return spectral.gblas_calls(p)[alg]
    return calls[alg]


def gblas_input(alg: str, S, prepared: bool):
    """The graph argument of the gblas call: a new Matrix from ``S`` (the csgraph
    functions take ``S`` itself unless ``prepared``)."""
    import gblas as gb

    if alg.startswith("csgraph.") and not prepared:
        return S
    return gb.Matrix.from_scipy(S)


def _dense(v, fill=0):
    """A gblas Vector as a NumPy array (from either device)."""
    x = v.to_dense(fill=fill)
    return x.get() if hasattr(x, "get") else np.asarray(x)


def canon_gblas(alg: str, r):
    """gblas's answer in the form the checks compare."""
    if alg in spectral.ALGORITHMS:
        return spectral.canon_gblas(alg, r)
    if alg == "bfs":
        return _dense(r, -1)
    if alg == "sssp":
        return _dense(r, np.inf)
    if alg == "triangle_count":
        return int(r)
    if alg.startswith("csgraph."):
        return r
    return _dense(r)


# ------------------------------------------------------------------------ cold calls


def cold_call(alg: str, S, p: dict, workdir: Path, env: dict | None = None,
              timeout: float = 600.0, device: str = "cpu"
              ) -> tuple[float | None, float | None, str | None]:
    """The gblas call in a new process: ``(first call s, import gblas s, error)``; on
    ``device`` "gpu" the Matrix is moved there outside the timing and the call's time
    includes the device's synchronization."""
    import scipy.sparse as sp

    tag = f"{abs(hash((alg, S.shape, S.nnz, device))) % 10**8}"
    mat = workdir / f"g{tag}.npz"
    if not mat.exists():
        sp.save_npz(mat, sp.csr_matrix(S), compressed=False)
    spec = workdir / f"spec{tag}.json"
    spec.write_text(json.dumps({"alg": alg, "matrix": str(mat), "params": p,
                                "device": device}))
    cmd = [sys.executable, "-m", "benchmarks.run_end_to_end", "--cold-child", str(spec)]
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(REPO) + os.pathsep + full_env.get("PYTHONPATH", "")
    if env:
        full_env.update(env)
    try:
        r = subprocess.run(cmd, cwd=REPO, env=full_env, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None, f"over {timeout:.0f} s"
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    if r.returncode != 0 or not lines:
        tail = (r.stderr.strip().splitlines() or ["?"])[-1][:160]
        return None, None, f"exit {r.returncode}: {tail}"
    out = json.loads(lines[-1])
    return out.get("call"), out.get("import"), out.get("error")


def _no_sync() -> None:
    """A CPU call needs no synchronization."""


def _cold_child(spec_path: str) -> int:
    """Body of the new process of :func:`cold_call`; prints one JSON line."""
    spec = json.loads(Path(spec_path).read_text())
    t0 = time.perf_counter()
    import gblas  # noqa: F401 - timed: the import

    t_import = time.perf_counter() - t0
    import scipy.sparse as sp

    S = sp.csr_array(sp.load_npz(spec["matrix"]))
    alg = spec["alg"]
    A = gblas_input(alg, S, prepared=False)
    fn = gblas_call(alg, spec["params"])
    sync = _no_sync
    if spec.get("device", "cpu") == "gpu":
        import cupy as cp

        A = A.to("gpu")
        sync = cp.cuda.Device().synchronize
        sync()
    out = {"import": t_import}
    try:
        t0 = time.perf_counter()
        fn(A)
        sync()
        out["call"] = time.perf_counter() - t0
    except Exception as e:  # noqa: BLE001
        out["error"] = f"{type(e).__name__}: {e}"[:200]
    print(json.dumps(out), flush=True)
    return 0


# ------------------------------------------------------------------------------ runs


@dataclass
class GblasResult:
    fresh: Measure
    prepared: Measure
    cold: float | None
    cold_error: str | None
    import_time: float | None


def run_gblas(alg: str, S, p: dict, args, workdir: Path) -> GblasResult:
    fn = gblas_call(alg, p)
    fresh = measure(lambda: gblas_input(alg, S, False), fn, repeat=args.repeat,
                    budget=args.limit)
    if fresh.error:
        return GblasResult(fresh, Measure(), None, None, None)
    same = [gblas_input(alg, S, True)]
    prepared = measure(lambda: same[0], fn, repeat=args.repeat, budget=args.limit)
    same.clear()
    cold = t_imp = err = None
    if args.cold:
        # a throw-away process first: whatever the in-process calls did not put in the
        # kernel cache (another process's specializations) is compiled there (skipped for
        # slow calls, where loading the cache matters less)
        if fresh.first is not None and fresh.first < 2.0:
            cold_call(alg, S, p, workdir)
        cold, t_imp, err = cold_call(alg, S, p, workdir)
    return GblasResult(fresh, prepared, cold, err, t_imp)


class NxRates:
    """Seconds per unit of work of every NetworkX call measured so far."""

    def __init__(self) -> None:
        self.rates: dict[str, tuple[float, float]] = {}

    def estimate(self, alg: str, work: float) -> float:
        if alg in self.rates:
            rate, w0 = self.rates[alg]
            return rate * work * max(1.0, work / w0) ** 0.15
        return NX_PRIOR.get(alg, 2e-6) * work

    def record(self, alg: str, seconds: float, work: float) -> None:
        if work > 0:
            self.rates[alg] = (seconds / work, work)


def run_graph(case: GraphCase, algs: list[str], args, workdir: Path, rates: NxRates,
              imports: list[float]) -> list[Row]:
    """Every algorithm of ``algs`` on one graph: gblas, then each peer."""
    t0 = time.perf_counter()
    g = load_graph(case)
    p = params_of(g)
    _log(f"== {g.name}: {g.n:,} vertices, {g.D.nnz:,} directed / {g.U.nnz:,} undirected "
         f"entries ({time.perf_counter() - t0:.1f} s to load)")
    peers = Peers(g, p, args.nx_max_nnz)
    rows: list[Row] = []
    for alg in algs:
        S = g.form(FORM[alg])
        spectral.add_params(alg, g, p)
        _log(f"  {alg} ...")
        gr = run_gblas(alg, S, p, args, workdir)
        if gr.import_time is not None:
            imports.append(gr.import_time)
        base = dict(graph=g.name, n=g.n, nnz=S.nnz, alg=alg, fresh=gr.fresh.median,
                    prepared=gr.prepared.median, cold=gr.cold)
        cold_note = f"cold call failed ({gr.cold_error})" if gr.cold_error else ""
        if gr.fresh.error:
            _log(f"    gblas FAILED: {gr.fresh.error}")
            if gr.fresh.error.startswith("PowerIterationFailedConvergence") and args.peers:
                # no convergence within max_iter: does the peer converge there?
                rows += _unconverged_rows(base, gr.fresh.error, peers.anchors(alg), args)
                continue
            rows.append(Row(**base, anchor="-", anchor_time=None,
                            check=f"**gblas FAILED**: {gr.fresh.error}", ok=False))
            continue
        ours = canon_gblas(alg, gr.fresh.result)
        _log(f"    gblas fresh {_fmt(gr.fresh.median)} prepared {_fmt(gr.prepared.median)} "
             f"cold {_fmt(gr.cold)} (first in-process {_fmt(gr.fresh.first)})")
        anchors = peers.anchors(alg) if args.peers else []
        if not anchors:
            rows.append(Row(**base, anchor="(none)", anchor_time=None, check="-", ok=None,
                            note=cold_note, runs=(len(gr.fresh.times), 0)))
        for a in anchors:
            skip = a.skip
            if skip is None and a.networkx:
                est = rates.estimate(alg, a.work)
                if est > args.limit:
                    skip = f"not run: estimated {_fmt(est)} > {args.limit:.0f} s limit"
            if skip:
                _log(f"    {a.name}: {skip}")
                rows.append(Row(**base, anchor=a.name, anchor_time=None, check="-", ok=None,
                                note="; ".join(x for x in (skip, cold_note) if x),
                                runs=(len(gr.fresh.times), 0)))
                continue
            m = measure(a.prepare, a.run, repeat=args.repeat, warmup=not a.networkx,
                        budget=args.limit)
            if m.error:
                _log(f"    {a.name} FAILED: {m.error}")
                rows.append(Row(**base, anchor=a.name, anchor_time=None,
                                check=f"peer failed: {m.error}", ok=None, note=cold_note))
                continue
            if a.networkx:
                rates.record(alg, m.first, a.work)
            try:
                ok, text = check(alg, g, ours, a.canon(m.result))
            except Exception as e:  # noqa: BLE001
                ok, text = False, f"check failed: {type(e).__name__}: {e}"[:160]
            if not ok:
                text = f"**WRONG?** {text}"
            note = cold_note
            if m.first is not None and m.first > args.limit:
                note = "; ".join(x for x in (f"over the {args.limit:.0f} s limit", note) if x)
            rows.append(Row(**base, anchor=a.name, anchor_time=m.median, check=text, ok=ok,
                            note=note, runs=(len(gr.fresh.times), len(m.times))))
            r = rows[-1].ratio
            _log(f"    {a.name}: {_fmt(m.median)} (ratio {r:.3g}) {text}")
        if FORM[alg] != "U" and all(FORM[b] == "U" for b in algs[algs.index(alg) + 1:]):
            peers.drop()
    peers.drop()
    return rows


def _unconverged_rows(base: dict, error: str, anchors: list[Anchor], args) -> list[Row]:
    """The rows of an iteration gblas stopped at ``max_iter``: each peer run once; one
    that fails too is a shared limit of the method (no verdict), one that answers leaves
    gblas's failure marked."""
    rows = []
    for a in anchors:
        if a.skip:
            rows.append(Row(**base, anchor=a.name, anchor_time=None, ok=False,
                            check=f"**gblas FAILED**: {error} (peer {a.skip})"))
            continue
        m = measure(a.prepare, a.run, repeat=1, warmup=False, budget=args.limit)
        if m.error:
            _log(f"    {a.name} fails too: {m.error}")
            rows.append(Row(**base, anchor=a.name, anchor_time=None, ok=None,
                            check=f"no convergence on either side: gblas {error}; "
                                  f"peer {m.error}"))
        else:
            _log(f"    {a.name} answered in {_fmt(m.median)}")
            rows.append(Row(**base, anchor=a.name, anchor_time=m.median, ok=False,
                            check=f"**gblas FAILED** where the peer answered: {error}"))
    return rows


def first_ever(algs: list[str], args, workdir: Path) -> list[list]:
    """The first call with an empty kernel cache, per algorithm, on Kronecker 14."""
    g = load_graph(GraphCase(f"kronecker-{FIRST_EVER_SCALE}", scale=FIRST_EVER_SCALE))
    p = params_of(g)
    rows = []
    for alg in algs:
        with tempfile.TemporaryDirectory(prefix="e2e-cache-") as empty:
            env = {"GBLAS_CACHE_DIR": empty, "NUMBA_CACHE_DIR": empty}
            _log(f"  first-ever {alg} ...")
            t, t_imp, err = cold_call(alg, g.form(FORM[alg]), p, workdir, env=env,
                                      timeout=900)
        cold, _, err2 = cold_call(alg, g.form(FORM[alg]), p, workdir)
        rows.append([alg, f"{g.form(FORM[alg]).nnz:,}",
                     _fmt(t) if err is None else f"**FAILED** ({err})",
                     _fmt(cold) if err2 is None else f"**FAILED** ({err2})",
                     _fmt(t_imp)])
        _log(f"    first-ever {_fmt(t)}, then cold {_fmt(cold)}")
    return rows


def machine_info() -> dict:
    from benchmarks.harness import describe_machine

    info = describe_machine(bandwidth=False)
    try:
        import graphblas_algorithms as ga

        info["versions"] += f", graphblas-algorithms {ga.__version__}"
    except ImportError:
        pass
    info.pop("platform", None)
    return info


def run_cpu(args) -> int:
    algs = args.algorithms or list(ALGORITHMS)
    bad = [a for a in algs if a not in ALGORITHMS]
    if bad:
        _log(f"unknown algorithm(s) {bad}; choose from {', '.join(ALGORITHMS)}")
        return 2
    algs = [a for a in ALGORITHMS if a in algs]
    cases = graph_cases(args)
    if not cases:
        _log("no graph to run")
        return 1
    machine = machine_info()
    rows: list[Row] = []
    imports: list[float] = []
    rates = NxRates()
    first = None
    with tempfile.TemporaryDirectory(prefix="e2e-") as tmp:
        work = Path(tmp)
        for case in cases:
            rows += run_graph(case, algs, args, work, rates, imports)
            for f in work.glob("*"):
                f.unlink()
            path = write_cpu(rows, first, imports, args, machine, final=False)
        if args.first_ever:
            _log("== first-ever calls (empty kernel cache)")
            first = first_ever(algs, args, work)
    if hasattr(os, "getloadavg"):
        machine["load average at end"] = " / ".join(f"{x:.2f}" for x in os.getloadavg())
    path = write_cpu(rows, first, imports, args, machine, final=True)
    if args.json:
        Path(args.json).write_text(json.dumps(
            {"rows": [r.__dict__ for r in rows], "first_ever": first, "imports": imports},
            default=str, indent=0))
    _log(f"wrote {path}")
    return 0


# ------------------------------------------------------------------------------ main


def _csv(s: str) -> list[str]:
    return [x.strip() for x in s.split(",") if x.strip()]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.run_end_to_end",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default=None,
                   help="folder of *.mtx.gz graphs (default: ../shared/data from the "
                        "repository root)")
    p.add_argument("--algorithms", type=_csv, default=None,
                   help=f"comma-separated subset of: {', '.join(ALGORITHMS)}")
    p.add_argument("--graphs", type=_csv, default=None,
                   help="comma-separated graph names: kronecker-SCALE (any scale) or a "
                        "data file's name without .mtx.gz")
    p.add_argument("--repeat", type=int, default=5, help="timed calls per measurement")
    p.add_argument("--limit", type=float, default=60.0,
                   help="seconds: peers estimated slower are not run; fewer repeats above")
    p.add_argument("--large", action="store_true", help="also Kronecker scales 20 and 22")
    p.add_argument("--quick", action="store_true",
                   help="smoke test: Kronecker 10 and 14, the 3 smallest data graphs, "
                        "1 repeat, no first-ever table")
    p.add_argument("--gpu", action="store_true",
                   help="pagerank, bfs and sssp (with --algorithms also hits, "
                        "eigenvector_centrality, katz_centrality) on a GPU Matrix against "
                        "cuSPARSE loops")
    p.add_argument("--no-cold", dest="cold", action="store_false",
                   help="skip the first call in a new process")
    p.add_argument("--no-first-ever", dest="first_ever", action="store_false",
                   help="skip the empty-kernel-cache table")
    p.add_argument("--no-peers", dest="peers", action="store_false",
                   help="time gblas only")
    p.add_argument("--nx-max-nnz", type=int, default=10_000_000,
                   help="largest graph (stored entries) NetworkX is given")
    p.add_argument("--out", type=Path, default=None,
                   help="results folder (default benchmarks/results)")
    p.add_argument("--name", default=None, help="results file name without .md")
    p.add_argument("--json", default=None, help="also write the rows to this JSON file")
    p.add_argument("--cold-child", default=None, help=argparse.SUPPRESS)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns the exit status.

    Parameters
    ----------
    argv : list of str, optional
        Command-line arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success.
    """
    args = parser().parse_args(argv)
    if args.cold_child:
        return _cold_child(args.cold_child)
    if args.quick:
        args.repeat = 1
        args.first_ever = False
    if args.gpu:
        from benchmarks.end_to_end_gpu import run_gpu

        return run_gpu(args)
    return run_cpu(args)


if __name__ == "__main__":
    sys.exit(main())
