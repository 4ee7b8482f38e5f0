"""Fresh and prepared GPU calls of the power iterations (``pagerank``,
``eigenvector_centrality``, ``katz_centrality``, ``hits``) for the gblas on
``PYTHONPATH``, each against its cupyx loop in the same process.

A fresh call takes a new GPU Matrix (``Matrix.from_scipy(S).to("gpu")``, made outside
the timing); a prepared one reuses one Matrix.  Graphs: Kronecker scales and the Matrix
Market files of a data folder, in the forms ``run_end_to_end.py`` gives each algorithm;
the forms (and Katz's alpha) are kept in ``--cache`` so that several processes (two
versions alternated) load them once.  Prints one line per graph and algorithm:

    label | graph | algorithm | fresh ms | prepared ms | anchor ms | anchor / fresh

Usage (on a GPU machine)::

    PYTHONPATH=. python3 benchmarks/probe_fresh_power_gpu.py new --data .data
"""

from __future__ import annotations

import argparse
import pickle
import tempfile
import time
from pathlib import Path

import numpy as np


def main(argv=None) -> None:
    import cupy as cp
    import cupyx.scipy.sparse as cps
    import scipy.sparse as sp

    import gblas as gb
    from benchmarks import end_to_end_spectral as spectral
    from benchmarks.end_to_end_gpu import _cupy_pagerank
    from benchmarks.run_end_to_end import GraphCase, load_graph

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("label")
    p.add_argument("--scales", type=int, nargs="*", default=[14, 16, 18, 20])
    p.add_argument("--data", default=".data")
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--cache", default=str(Path(tempfile.gettempdir()) / "gblas_probe_graphs"))
    args = p.parse_args(argv)
    sync = cp.cuda.Device().synchronize
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    cases = [GraphCase(f"kronecker-{s}", scale=s) for s in args.scales]
    cases += [GraphCase(f.name.split(".")[0], path=f) for f in
              sorted(Path(args.data).glob("*.mtx.gz"), key=lambda f: f.stat().st_size)]

    def median(run, prepare) -> float:
        times = []
        for _ in range(args.repeat):
            x = prepare()
            sync()
            t0 = time.perf_counter()
            run(x)
            sync()
            times.append((time.perf_counter() - t0) * 1e3)
        return float(np.median(times))

    for case in cases:
        kept = cache / f"{case.name}.pkl"
        g = pickle.loads(kept.read_bytes()) if kept.exists() else load_graph(case)
        kept.write_bytes(pickle.dumps(g))
        for alg in ("pagerank", "eigenvector_centrality", "katz_centrality", "hits"):
            S = g.D if alg == "pagerank" else g.form(spectral.FORM[alg])
            n, params = S.shape[0], {}
            if alg == "katz_centrality":
                alpha = cache / f"{case.name}.katz"
                if not alpha.exists():
                    alpha.write_text(repr(spectral.katz_alpha(g.U)))
                params["katz_alpha"] = float(alpha.read_text())
            if alg == "pagerank":
                def call(A):
                    return gb.algorithms.pagerank(A)
                out = np.asarray(S.sum(axis=1)).ravel()
                inv = np.divide(1.0, out, out=np.zeros(n), where=out != 0)
                P = cps.csr_matrix(sp.csr_matrix((sp.diags_array(inv) @ S).T))
                dangling = cp.asarray(out == 0)

                def anchor(P=P, d=dangling, n=n):
                    return _cupy_pagerank(cp, P, d, n)
            else:
                call = spectral.gblas_calls(params)[alg]
                _, prepare, run = spectral.cupy_anchor(alg, cp, cps, S, params)
                M = prepare()

                def anchor(run=run, M=M):
                    return run(M)
            try:
                def fresh_matrix(S=S):
                    return gb.Matrix.from_scipy(S).to("gpu")
                call(fresh_matrix())
                fresh = median(call, fresh_matrix)
                A = fresh_matrix()
                call(A)
                prepared = median(call, lambda A=A: A)
                anchor()
                theirs = median(lambda _: anchor(), lambda: None)
            except Exception as e:  # noqa: BLE001 - reported, the run goes on
                print(f"{args.label} | {case.name} | {alg} | FAILED {type(e).__name__}: {e}",
                      flush=True)
                continue
            print(f"{args.label} | {case.name} | {alg} | {fresh:.3f} | {prepared:.3f} | "
                  f"{theirs:.3f} | {theirs / fresh:.2f}", flush=True)


if __name__ == "__main__":
    main()
