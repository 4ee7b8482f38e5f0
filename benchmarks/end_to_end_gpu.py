"""The end-to-end benchmark on a GPU Matrix (``python -m benchmarks.run_end_to_end --gpu``):
PageRank, BFS and SSSP, and with ``--algorithms`` the spectral centralities, on
``Matrix.from_scipy(S).to("gpu")`` against loops of cuSPARSE products through
``cupyx.scipy.sparse`` (SSSP: SciPy's ``dijkstra`` on the host).  The graphs, the gblas
calls, the checks and the timing are those of :mod:`benchmarks.run_end_to_end`.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from benchmarks import end_to_end_spectral as spectral
from benchmarks.run_end_to_end import (
    DAMPING,
    FORM,
    GPU_ALGORITHMS,
    TOL,
    _fmt,
    _log,
    _ratio_text,
    _source,
    canon_gblas,
    check,
    cold_call,
    gblas_call,
    graph_cases,
    load_graph,
    machine_info,
    measure,
)

__all__ = ["run_gpu"]


def _cupy_pagerank(cp, P, dangling, n: int, alpha: float = DAMPING, tol: float = TOL,
                   max_iter: int = 100):
    """PageRank with cuSPARSE products (``P`` the transposed, row-normalized matrix),
    gblas's stopping rule, the L1 change read back every iteration."""
    x = cp.full(n, 1.0 / n)
    for _ in range(max_iter):
        last = x
        x = alpha * (P @ x) + (alpha * float(x[dangling].sum()) + 1 - alpha) / n
        if float(cp.abs(x - last).sum()) < tol:
            break
    return x


def _cupy_bfs(cp, AT, source: int, n: int):
    """BFS levels with one cuSPARSE SpMV per level (``AT`` the transposed pattern)."""
    levels = cp.full(n, -1, dtype=cp.int64)
    levels[source] = 0
    f = cp.zeros(n, dtype=cp.float32)
    f[source] = 1
    depth = 0
    while True:
        depth += 1
        y = AT @ f
        new = (y > 0) & (levels < 0)
        if not bool(new.any()):
            return levels
        levels[new] = depth
        f = new.astype(cp.float32)


def run_gpu(args) -> int:
    """``--gpu``: pagerank, bfs and sssp on a GPU Matrix against cuSPARSE loops."""
    try:
        import cupy as cp
        import cupyx.scipy.sparse as cps
    except ImportError:
        _log("--gpu needs CuPy and an NVIDIA GPU")
        return 1
    import scipy.sparse as sp

    import gblas as gb
    from benchmarks.harness import markdown_table, write_results

    sync = cp.cuda.Device().synchronize
    gpu_algs = GPU_ALGORITHMS + spectral.GPU_ALGORITHMS
    algs = [a for a in (args.algorithms or GPU_ALGORITHMS) if a in gpu_algs]

    def timed(prepare, run, repeat):
        def prep():
            x = prepare()
            sync()  # the transfer to the device is not timed
            return x

        def go(x):
            r = run(x)
            sync()
            return r
        return measure(prep, go, repeat=repeat, budget=args.limit)

    from scipy.sparse import csgraph

    rows = []
    work_dir = tempfile.TemporaryDirectory(prefix="e2e-gpu-")
    work = Path(work_dir.name)
    for case in graph_cases(args):
        g = load_graph(case)
        n, src = g.n, _source(g.D)
        _log(f"== {g.name}: {n:,} vertices, {g.D.nnz:,} entries")
        for alg in algs:
            D = g.form(FORM[alg])
            p = {"source": src}
            spectral.add_params(alg, g, p)
            fn = gblas_call(alg, p)
            fresh = timed(lambda D=D: gb.Matrix.from_scipy(D).to("gpu"), fn, args.repeat)
            if fresh.error:
                text, peer = f"**gblas FAILED**: {fresh.error}", "-"
                if (alg in spectral.GPU_ALGORITHMS
                        and fresh.error.startswith("PowerIterationFailedConvergence")):
                    # no convergence within max_iter: does the cupyx loop converge there?
                    peer, prep, run = spectral.cupy_anchor(alg, cp, cps, D, p)
                    m = measure(prep, run, repeat=1, warmup=False, budget=args.limit)
                    if m.error:
                        text = (f"no convergence on either side: gblas {fresh.error}; peer "
                                f"{m.error}")
                    else:
                        text = f"**gblas FAILED** where the peer answered: {fresh.error}"
                rows.append([g.name, f"{n:,}", f"{D.nnz:,}", alg, "-", "-", "-", peer, "-",
                             "-", text])
                continue
            same = [gb.Matrix.from_scipy(D).to("gpu")]
            prepared = timed(lambda same=same: same[0], fn, args.repeat)
            cold = None
            if args.cold:  # a new process, the kernel caches filled by the calls above
                cold, _, err = cold_call(alg, D, p, work, device="gpu")
                if err:
                    _log(f"  {alg}: cold call failed ({err})")
            ours = canon_gblas(alg, fresh.result)
            out = np.asarray(D.sum(axis=1)).ravel()
            if alg == "pagerank":
                inv = np.divide(1.0, out, out=np.zeros(n), where=out != 0)
                P = cps.csr_matrix(sp.csr_matrix((sp.diags_array(inv) @ D).T))
                dangling = cp.asarray(out == 0)
                anchors = [("cuSPARSE power iteration (cupyx loop)", lambda P=P: P,
                            lambda M, d=dangling, n=n: _cupy_pagerank(cp, M, d, n))]
            elif alg in spectral.GPU_ALGORITHMS:
                anchors = [spectral.cupy_anchor(alg, cp, cps, D, p)]
            elif alg == "sssp":  # no GPU peer: SciPy's own call, on the host
                anchors = [("scipy dijkstra (host CPU)", lambda D=D: D,
                            lambda M, s=src: csgraph.dijkstra(M, indices=s))]
            else:
                AT = cps.csr_matrix(sp.csr_matrix(D.T, dtype=np.float32))
                x = cp.ones(n, dtype=cp.float32)
                anchors = [("cuSPARSE BFS (cupyx loop, one SpMV per level)", lambda AT=AT: AT,
                            lambda M, s=src, n=n: _cupy_bfs(cp, M, s, n)),
                           ("two cuSPARSE SpMVs", lambda AT=AT: AT,
                            lambda M, x=x: M @ (M @ x))]
            for name, prep, run in anchors:
                m = timed(prep, run, args.repeat)
                if m.error:
                    text = f"peer failed: {m.error}"
                elif name.startswith("two"):
                    text = "(yardstick, no answer)"
                else:
                    theirs = m.result
                    theirs = cp.asnumpy(theirs) if isinstance(theirs, cp.ndarray) else theirs
                    ok, text = check(alg, g, ours, theirs)
                    text = text if ok else f"**WRONG?** {text}"
                ratio = (m.median / fresh.median) if m.median and fresh.median else None
                rows.append([g.name, f"{n:,}", f"{D.nnz:,}", alg, _fmt(fresh.median),
                             _fmt(prepared.median), _fmt(cold), name, _fmt(m.median),
                             _ratio_text(ratio), text])
                _log(f"  {alg}: gblas {_fmt(fresh.median)} / {_fmt(prepared.median)} / cold "
                     f"{_fmt(cold)}; {name} {_fmt(m.median)}")
            same.clear()
            cp.get_default_memory_pool().free_all_blocks()
    work_dir.cleanup()
    dev = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = dev["name"].decode() if isinstance(dev["name"], bytes) else dev["name"]
    machine = machine_info()
    machine["gpu"] = f"{name}; CuPy {cp.__version__}"
    table = markdown_table(["graph", "n", "nnz", "algorithm", "gblas fresh", "gblas prepared",
                            "gblas cold", "anchor", "anchor time", "anchor / gblas fresh",
                            "check"], rows)
    notes = ("gblas: `gblas.algorithms` on `Matrix.from_scipy(S).to(\"gpu\")` (fresh: a new "
             "GPU Matrix per call, moved outside the timed region; prepared: the same one "
             "reused; cold: the first call in a new process, the Matrix moved before the "
             "timing, with the on-disk kernel caches (Numba's and CuPy's) filled by the "
             "calls before it). Anchors: loops of cuSPARSE products through "
             "`cupyx.scipy.sparse` on the same matrix already on the GPU (PageRank with "
             "gblas's stopping rule, the L1 change read back each iteration; BFS with one "
             "SpMV per level; eigenvector, Katz and HITS centralities with their rule and "
             "tolerance, the 2-norms kept on the device, Katz's alpha 0.5 / lambda_max); "
             "SSSP (weights uniform in (0, 1], seeded) has no GPU peer, "
             "so its anchor is SciPy's `dijkstra` on the host's CPU. Every timing "
             "synchronizes the device; medians after a warm-up call.")
    path = write_results(args.name or "end_to_end_gpu",
                         "End to end on the GPU: gblas against cuSPARSE loops",
                         [("How to read", notes), ("Results", table)], machine,
                         directory=args.out)
    _log(f"wrote {path}")
    return 0
