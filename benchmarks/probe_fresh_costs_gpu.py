"""Probe: what a fresh GPU Matrix pays before its first product runs at full speed.

For each graph (Kronecker scales in their undirected pattern form, and Matrix Market
files), a new GPU Matrix per round (``Matrix.from_scipy(S).to("gpu")``, outside the
timing), each step synchronized and timed in turn:

* ``transpose``: ``A.get_format("csr", transposed=True)`` (cuSPARSE's csr2csc and the
  Matrix's bookkeeping), and ``csr2csc`` called alone on the same fresh Matrix;
* ``schedule``: the pull products' row schedule of ``A'`` (one launch, its counts read
  back, the exact-size copies);
* ``plan 1`` / ``plan 2``: ``gb.explain(gb.mxv, A.T, x)``, the first plan (the
  estimates made) and the second (memoized);
* ``mxv 1`` / ``mxv 2``: the first product after those steps and the next one;
* ``idle``: ``csr2csc`` on a Matrix already used, right after the host slept 5 ms (the
  device idle) and without the sleep.

Then, where ``--algorithms`` names them, the fresh and prepared calls of
``eigenvector_centrality``, ``katz_centrality`` and ``hits`` (the forms and parameters of
``run_end_to_end.py``) and the fresh call split into the transpose and the rest.
Medians of ``--repeat`` rounds, microseconds.

Usage (on a GPU machine)::

    PYTHONPATH=. python3 benchmarks/probe_fresh_costs_gpu.py --scales 18 20 --data .data \\
        --graphs luxembourg-osm ego-Twitter --algorithms eigenvector_centrality hits
"""

from __future__ import annotations

import argparse
import gzip
import time
from pathlib import Path

import numpy as np


def _median_us(times: list) -> str:
    return f"{np.median(times) * 1e6:.0f}"


def _steps(gb, cp, S, repeat: int) -> dict:
    """The fixed steps of a fresh Matrix's first product, each timed synchronized."""
    from gblas.backends.gpu import mxv as gpu_mxv
    from gblas.backends.gpu.transpose import csr_transpose

    sync = cp.cuda.Device().synchronize
    x = gb.Vector.full(S.shape[0], 1.0, device="gpu")
    names = ("transpose", "csr2csc alone", "schedule", "plan 1", "plan 2", "mxv 1", "mxv 2",
             "csr2csc after 5 ms idle", "csr2csc busy")
    out: dict = {k: [] for k in names}
    for r in range(repeat + 1):  # the first round warms the kernels
        times = {}
        A = gb.Matrix.from_scipy(S).to("gpu")
        c = A.csr()
        sync()
        t0 = time.perf_counter()
        csr_transpose(c.indptr, c.indices, c.values, A.shape)
        sync()
        times["csr2csc alone"] = time.perf_counter() - t0
        A = gb.Matrix.from_scipy(S).to("gpu")
        sync()
        steps = (("transpose", lambda A=A: A.get_format("csr", transposed=True)),
                 ("schedule", lambda A=A: gpu_mxv.pull_schedule(
                     A.get_format("csr", transposed=True))),
                 ("plan 1", lambda A=A: gb.explain(gb.mxv, A.T, x, "plus_times")),
                 ("plan 2", lambda A=A: gb.explain(gb.mxv, A.T, x, "plus_times")),
                 ("mxv 1", lambda A=A: gb.mxv(A.T, x, "plus_times")),
                 ("mxv 2", lambda A=A: gb.mxv(A.T, x, "plus_times")))
        for name, step in steps:
            t0 = time.perf_counter()
            step()
            sync()
            times[name] = time.perf_counter() - t0
        c = A.csr()
        for name, pause in (("csr2csc after 5 ms idle", 0.005), ("csr2csc busy", 0.0)):
            time.sleep(pause)
            t0 = time.perf_counter()
            csr_transpose(c.indptr, c.indices, c.values, A.shape)
            sync()
            times[name] = time.perf_counter() - t0
        if r:
            for k, v in times.items():
                out[k].append(v)
    return out


def _algorithm(gb, cp, g, alg: str, repeat: int) -> dict:
    """Fresh and prepared calls of a spectral algorithm, and the fresh one split."""
    from benchmarks import end_to_end_spectral as spectral

    sync = cp.cuda.Device().synchronize
    S = g.form(spectral.FORM[alg])
    params = {"katz_alpha": spectral.katz_alpha(g.U)} if alg == "katz_centrality" else {}
    call = spectral.gblas_calls(params)[alg]

    def fresh():
        return gb.Matrix.from_scipy(S).to("gpu")

    call(fresh())
    kept = fresh()
    call(kept)
    out: dict = {k: [] for k in ("fresh", "prepared", "its transpose", "the rest")}
    for _ in range(repeat):
        for name, A, split in (("fresh", fresh(), False), ("prepared", kept, False),
                               ("split", fresh(), True)):
            sync()
            t0 = time.perf_counter()
            if split:
                A.get_format("csr", transposed=True)
                sync()
                t1 = time.perf_counter()
                out["its transpose"].append(t1 - t0)
                t0 = t1
            call(A)
            sync()
            out["the rest" if split else name].append(time.perf_counter() - t0)
    return out


def main(argv=None) -> None:
    import cupy as cp
    import scipy.io
    import scipy.sparse as sp

    import gblas as gb
    from benchmarks.run_end_to_end import GraphCase, load_graph

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="*", default=[18, 20])
    p.add_argument("--data", default=".data")
    p.add_argument("--graphs", nargs="*", default=["luxembourg-osm", "ego-Twitter"])
    p.add_argument("--algorithms", nargs="*", default=[])
    p.add_argument("--repeat", type=int, default=9)
    args = p.parse_args(argv)
    print(f"device: {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    for s in args.scales:
        g = load_graph(GraphCase(f"kronecker-{s}", scale=s))
        got = _steps(gb, cp, g.U, args.repeat)
        print(f"kronecker-{s} (undirected, {g.U.nnz:,} entries): "
              + ", ".join(f"{k} {_median_us(v)}" for k, v in got.items()), flush=True)
        for alg in args.algorithms:
            got = _algorithm(gb, cp, g, alg, args.repeat)
            print(f"kronecker-{s} {alg}: "
                  + ", ".join(f"{k} {_median_us(v)}" for k, v in got.items()), flush=True)
    for name in args.graphs:
        path = Path(args.data) / f"{name}.mtx.gz"
        if not path.exists():
            print(f"{name}: not in {args.data}, skipped")
            continue
        S = sp.csr_array(scipy.io.mmread(gzip.open(path)))
        S.sum_duplicates()
        S.data[:] = 1
        got = _steps(gb, cp, S, args.repeat)
        print(f"{name} ({S.nnz:,} entries): "
              + ", ".join(f"{k} {_median_us(v)}" for k, v in got.items()), flush=True)


if __name__ == "__main__":
    main()
