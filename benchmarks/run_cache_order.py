"""Cheap cache-guided orders of a pull SpMV against the existing reorders.

CGS (Mukkara, Beckmann and Sanchez, "Cache-Guided Scheduling") picks, at run time, the
row whose x lines are in the cache.  Two orders computed once from the graph try to
approximate it, next to gblas's existing vertex orders (``gblas/formats/reorder.py``):

- **minhash rows**: rows sorted by a min-hash of the set of x lines they read (two
  independent hashes, the second breaking ties), so rows that read the same lines run
  one after the other (rows only: x, y and the columns keep their ids; y is written in
  the new row order and put back in place by one pass over y);
- **rcm**: reverse Cuthill-McKee of the symmetrized pattern (SciPy), a BFS order that
  keeps neighbours' ids close (rows and columns relabelled);
- **degree** (degree sort) and **frequency** (Cagra's frequency-based clustering), rows
  and columns relabelled, as ``gblas.analysis.simulate(order=...)`` does;
- **natural**: the stored order.

For each graph and order: the simulated main-memory accesses of one pull (float32 x,
``gblas.analysis.simulate``) with the last level scaled to 1/16 of the vertex data (as
in the CGS comparison of ``run_locality.py``) and with the machine's own caches, relative
to the natural order; and ``gb.mxv`` (float32, CSR pinned, iso) on the relabelled matrix,
the orders timed round-robin (median of 9 rounds after warm-up; a round of a
sub-millisecond product averages 20 ms of calls), relative to the natural order in the
same run; the time to compute the order.
The mapping of x and y to and from the new ids (once per algorithm, not per product) is
not timed.

Run: ``python -m benchmarks.run_cache_order --scales 16 18 20 22``; writes
``benchmarks/results/cache_order_cpu.md``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

from benchmarks.harness import describe_machine, markdown_table, write_results
from benchmarks.run_formats import graph_sources, wait_for_load

ORDERS = ("natural", "degree", "frequency", "rcm", "minhash rows")
_H1 = np.uint64(0x9E3779B97F4A7C15)
_H2 = np.uint64(0xC2B2AE3D27D4EB4F)


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def minhash_rows(S: sp.csr_array, values_per_line: int = 16) -> np.ndarray:
    """Rows by (min-hash, second min-hash) of the x lines they read; empty rows last."""
    m = S.shape[0]
    lines = (S.indices.astype(np.uint64) // np.uint64(values_per_line))
    deg = np.diff(S.indptr)
    keys = []
    for h in (_H1, _H2):
        v = (lines * h) >> np.uint64(32)
        sig = np.full(m, np.iinfo(np.uint64).max, dtype=np.uint64)
        nz = deg > 0
        sig[nz] = np.minimum.reduceat(v, S.indptr[:-1][nz].astype(np.int64))
        keys.append(sig)
    return np.lexsort((keys[1], keys[0])).astype(np.int64)


def rcm(S: sp.csr_array) -> np.ndarray:
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    P = (S + S.T).tocsr() if S.shape[0] == S.shape[1] else S
    return np.asarray(reverse_cuthill_mckee(P, symmetric_mode=True), dtype=np.int64)


def ordered(S: sp.csr_array, name: str) -> tuple[sp.csr_array, float]:
    """The relabelled matrix and the seconds its order took."""
    from gblas.formats.reorder import degree_sort, frequency_clustering

    t0 = time.perf_counter()
    if name == "natural":
        return S, 0.0
    if name == "minhash rows":
        perm = minhash_rows(S)
        secs = time.perf_counter() - t0
        return S[perm], secs
    if name == "rcm":
        perm = rcm(S)
    else:
        freq = np.bincount(S.indices, minlength=S.shape[1]).astype(np.int64)
        perm = degree_sort(freq) if name == "degree" else frequency_clustering(freq)
    secs = time.perf_counter() - t0
    return S[perm][:, perm], secs


def time_mxv(mats: dict, rounds: int = 9) -> dict:
    """Median ms of ``gb.mxv`` (CSR pinned) per matrix, the matrices timed round-robin (a
    round times a block of calls of each in turn, so that the process's state at a moment
    weighs on all alike); a block of a sub-millisecond product averages 20 ms of calls."""
    import gblas as gb

    Ms = {k: gb.Matrix.from_scipy(S.astype(np.float32)) for k, S in mats.items()}
    n = next(iter(mats.values())).shape[1]
    x = gb.Vector.from_dense(np.ones(n, np.float32))
    reps, times = {}, {k: [] for k in Ms}
    with gb.config(format="csr"):
        for k, M in Ms.items():
            for _ in range(3):
                gb.mxv(M, x)
            t0 = time.perf_counter()
            gb.mxv(M, x)
            reps[k] = max(1, min(200, int(0.02 / max(time.perf_counter() - t0, 1e-6))))
        for _ in range(rounds):
            for k, M in Ms.items():
                t0 = time.perf_counter()
                for _ in range(reps[k]):
                    gb.mxv(M, x)
                times[k].append((time.perf_counter() - t0) / reps[k])
    return {k: 1e3 * float(np.median(v)) for k, v in times.items()}


def run_graph(name: str, M, timed: bool) -> dict:
    from gblas.analysis import CacheConfig, simulate

    S = M.to_scipy().tocsr()
    S.sort_indices()
    S.data[:] = 1
    m, n = S.shape
    scaled = CacheConfig.scaled(max(1024, int((m + n) * 4 / 16)))
    out = {"graph": name, "n": n, "nnz": S.nnz, "load": os.getloadavg()[0]}
    mats = {}
    for o in ORDERS:
        T, secs = ordered(S, o)
        T = sp.csr_array(T)
        T.sort_indices()
        r16 = simulate(T, cache=scaled, x_bytes=4, y_bytes=4)
        rm = simulate(T, cache=CacheConfig.machine(), x_bytes=4, y_bytes=4)
        out[o] = {"order_s": secs, "scaled": r16.memory_accesses,
                  "machine": rm.memory_accesses, "x_scaled": r16.breakdown()["x"]}
        mats[o] = T
        _log(f"  {name} {o}: order {secs:.2f} s, scaled {r16.memory_accesses:,}, machine "
             f"{rm.memory_accesses:,}")
    if timed:
        for o, ms in time_mxv(mats).items():
            out[o]["ms"] = ms
        _log(f"  {name}: " + ", ".join(f"{o} {out[o]['ms']:.3f} ms" for o in ORDERS))
    return out


def table(rows: list[dict], key: str, fmt) -> str:
    head = ["graph", "vertices", "entries"] + [f"{o}" for o in ORDERS]
    body = []
    for r in rows:
        base = r["natural"][key]
        body.append([r["graph"], r["n"], r["nnz"]] + [fmt(o, r[o][key], base) for o in ORDERS])
    return markdown_table(head, body)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="*", default=[16, 18, 20, 22])
    p.add_argument("--no-real", dest="real", action="store_false")
    p.add_argument("--no-time", dest="timed", action="store_false")
    p.add_argument("--wait-load", type=float, default=1.5)
    p.add_argument("--wait-max", type=float, default=60.0)
    args = p.parse_args(argv)
    machine = describe_machine(bandwidth=False)
    rows = []
    t_all = time.perf_counter()
    for name, build in graph_sources(args.scales, args.real, seed=0):
        wait_for_load(args.wait_load, args.wait_max)
        M = build()
        _log(f"{name}: {M.shape[0]:,} vertices, {M.nvals:,} entries")
        rows.append(run_graph(name, M, args.timed))
        del M

    def rel(o, v, base):
        return f"{v / base:.2f}" if base else "-"

    sections = [
        ("Simulated main-memory accesses, last level 1/16 of the vertex data (relative to "
         "natural)", table(rows, "scaled", rel)),
        ("Simulated main-memory accesses, the machine's caches (relative to natural)",
         table(rows, "machine", rel)),
        ("Seconds to compute the order", table(rows, "order_s", lambda o, v, b: f"{v:.2f}")),
    ]
    if args.timed:
        sections.append(("Measured gb.mxv (CSR, float32) relative to natural; natural in ms",
                         table(rows, "ms", lambda o, v, b: f"{v:.3f} ms" if o == "natural"
                               else f"{v / b:.2f}")))
        sections.append(("Load", ", ".join(f"{r['graph']} {r['load']:.2f}" for r in rows)))
    sections.append(("Run", f"{time.perf_counter() - t_all:.0f} s in all; scales "
                            f"{args.scales}"))
    path = write_results("cache_order_cpu", "Cheap cache-guided orders vs the existing "
                         "reorders (pull SpMV, CPU)", sections, machine)
    print(path.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
