"""gblas.distributed tier 2 (NCCL) on GPU workers: PageRank and BFS on Kronecker graphs on
1 and 2 (or 4) GPUs, each iteration's compute and exchange time, and the bytes exchanged
against the 2D model.

Self-contained for a GPU machine without Dask's CUDA helpers: it starts a Dask cluster by
hand (a scheduler and one worker process per GPU, ``CUDA_VISIBLE_DEVICES`` set per worker),
generates each graph on the workers' GPUs (:mod:`gblas.distributed.generators`, nothing
passes through the client) and runs the NCCL tier (:mod:`gblas.distributed.nccl`) with
one rank per GPU: on 1 GPU the same code with one rank (no exchange) is the anchor.

Usage (from the repository root)::

    PYTHONPATH=$PWD:/path/to/dask-wheels-target python3 benchmarks/bench_gpu_distributed.py \\
        --scales 24 25 26 --gpus 1 2 --out dist.md [--big 28]

Figures: per-iteration median of PageRank's iterations 3..20 (compute = the block's
partial product and the vector step; exchange = the time the host waited on NCCL calls;
on a column grid the all-gather of the next ``x`` runs on its own stream while the
product over the rank's own share runs; on a row grid each share of ``y`` is reduced to
its rank while the next share is computed; the overlapped collectives' own time is
reported beside), BFS's total
and per-level times from vertex 0 (the largest degree of a Kronecker graph without
relabelling), speedups against 1 GPU at the same scale, weak scaling (scale s on 1 GPU
against s+1 on 2 GPUs and s+2 on 4), and the bytes each rank sent per PageRank iteration against the
2D model (``(n/pc + n/pr)`` words of 8 bytes).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np


def _cluster(ngpus: int):
    """A scheduler and ``ngpus`` worker processes, one GPU each."""
    from distributed import Client, Nanny, Scheduler, SpecCluster

    workers = {f"gpu{k}": {"cls": Nanny, "options": {
        "nthreads": 1, "env": {"CUDA_VISIBLE_DEVICES": str(k)}, "memory_limit": 0}}
        for k in range(ngpus)}
    cluster = SpecCluster(scheduler={"cls": Scheduler, "options": {"dashboard_address": None}},
                          workers=workers, silence_logs=40)
    client = Client(cluster)
    client.wait_for_workers(ngpus, timeout=120)
    return cluster, client


def _gpu_name() -> str:
    try:
        import cupy

        p = cupy.cuda.runtime.getDeviceProperties(0)
        name = p["name"].decode() if isinstance(p["name"], bytes) else p["name"]
        return f"{name}, {p['totalGlobalMem'] / 2**30:.0f} GiB"
    except Exception as e:  # noqa: BLE001
        return f"unknown ({type(e).__name__})"


def _graph(client, scale: int, ngpus: int, dtype=None, weights=None, layout="columns"):
    from gblas.distributed.generators import kronecker

    t0 = time.perf_counter()
    grid = (ngpus, 1) if layout == "rows" else (1, ngpus)
    D = kronecker(client, scale, 16, grid=grid, seed=1, dtype=dtype, weights=weights,
                  device="gpu", timeout=1800)
    nvals = D.nvals  # waits for the blocks
    return D, nvals, time.perf_counter() - t0


def _has_nccl() -> bool:
    """Whether CuPy was built with its NCCL bindings (the tier-2 exchange)."""
    try:
        from cupy.cuda import nccl  # noqa: F401
    except (ImportError, AttributeError):
        return False
    return True


def _pagerank_tasks(D, iters: int):
    """PageRank on the tasks tier (each product a Dask task per block, the exchange through
    Dask): per-iteration time only, no compute / exchange split."""
    import gblas as gb
    from gblas.algorithms.pagerank import PowerIterationFailedConvergence

    def run(k):  # tol 1e-30: exactly k iterations, the last iterate in the exception
        try:
            return gb.algorithms.pagerank(D, max_iter=k, tol=1e-30, criterion="l1")
        except PowerIterationFailedConvergence as e:
            return e.ranks

    run(2)
    t0 = time.perf_counter()
    r = run(iters)
    wall = time.perf_counter() - t0
    ranks = r.gather().to_dense() if hasattr(r, "gather") else r.to_dense()
    it = wall / iters
    return ranks, {"compute": float("nan"), "exchange": float("nan"), "iteration": it,
                   "wall": wall, "stats": {"nccl_words_per_rank": 0,
                                            "model_words": _model_words(D)}}


def _model_words(D) -> int:
    pr, pc = D.grid.shape
    n = D.shape[0]
    return n // pc + n // pr


def _bfs_tasks(D):
    import gblas as gb

    gb.algorithms.bfs(D, 0)
    t0 = time.perf_counter()
    lv = gb.algorithms.bfs(D, 0).gather()
    wall = time.perf_counter() - t0
    dense = lv.to_dense(fill=-1)
    return dense, {"wall": wall, "levels": int(dense.max()) + 1,
                                  "compute": float("nan"), "exchange": float("nan"),
                                  "stats": {}}


def _pagerank(D, iters: int):
    if not _has_nccl():
        return _pagerank_tasks(D, iters)
    from gblas.distributed.nccl import run_pagerank

    run_pagerank(D, max_iter=2, tol=1e-30)  # warm-up: transposed blocks, kernels, NCCL
    t0 = time.perf_counter()
    ranks, st = run_pagerank(D, max_iter=iters, tol=1e-30)
    wall = time.perf_counter() - t0
    comp, exch = st["compute_s"][2:], st["exchange_s"][2:]
    return ranks, {"compute": statistics.median(comp), "exchange": statistics.median(exch),
                   "iteration": statistics.median([a + b for a, b in zip(comp, exch)]),
                   "wall": wall, "stats": st}


def _bfs(D):
    """The user's call ``gb.algorithms.bfs(D, 0)`` timed (on a column grid its levels stay
    on the workers), the per-level compute and exchange from the same search run again."""
    if not _has_nccl():
        return _bfs_tasks(D)
    import gblas as gb
    from gblas.distributed.nccl import bfs_levels, run_bfs

    gb.algorithms.bfs(D, 0)
    t0 = time.perf_counter()
    got = gb.algorithms.bfs(D, 0)
    wall = time.perf_counter() - t0
    kept = bfs_levels(D, 0)
    if kept is not None:
        levels, st = got.to_dense(fill=-1), kept[1]
    else:  # every rank holds all levels: they come to the client
        levels, st = run_bfs(D, 0)
    return levels, {"wall": wall, "levels": st["iterations"],
                    "compute": sum(st["compute_s"]), "exchange": sum(st["exchange_s"]),
                    "stats": st}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scales", type=int, nargs="*", default=[24, 25, 26])
    ap.add_argument("--gpus", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--big", type=int, default=0,
                    help="also run PageRank end to end at this scale (float64 weights) on "
                         "the largest GPU count")
    ap.add_argument("--layout", choices=["columns", "rows"], nargs="+", default=["columns"],
                    help="a (1, p) grid (ranks gather x) and/or a (p, 1) grid (ranks "
                         "reduce y share by share); on 1 GPU both are the (1, 1) grid, "
                         "run once")
    ap.add_argument("--row-split", type=int, nargs="+", default=None,
                    help="rows layout: time each of these pieces per share "
                         "(gblas.distributed.nccl_ranks.ROW_SPLIT; default its value)")
    ap.add_argument("--out", default="dist_gpu.md")
    args = ap.parse_args(argv)

    import cupy

    have = cupy.cuda.runtime.getDeviceCount()
    gpus = [g for g in args.gpus if g <= have]
    lines = ["# gblas.distributed tier 2 (NCCL) on GPUs", "",
             f"`{' '.join(['bench_gpu_distributed.py'] + (argv or sys.argv[1:]))}`; "
             f"{time.strftime('%Y-%m-%d %H:%M')}", "",
             f"- GPUs: {have} x {_gpu_name()}", f"- python {sys.version.split()[0]}, "
             f"cupy {cupy.__version__}, " + (f"NCCL {cupy.cuda.nccl.get_version()}"
                                              if _has_nccl() else
                                              "CuPy without NCCL bindings: the tasks tier "
                                              "(exchange through Dask) is timed instead"), ""]
    if args.row_split and "rows" in args.layout:
        i = args.layout.index("rows")
        args.layout[i:i + 1] = [f"rows:{k}" for k in args.row_split]
    pr, bfs, checks = {}, {}, []
    for g in gpus:
        cluster, client = _cluster(g)
        try:
            for lay in args.layout[:1] if g == 1 else args.layout:
                for s in args.scales:
                    key = (lay, g, s)
                    try:
                        if ":" in lay:
                            client.run(_set_split, int(lay.split(":")[1]))
                        D, nnz, gen_s = _graph(client, s, g, layout=lay.split(":")[0])
                        r, pr[key] = _pagerank(D, args.iters)
                        lv, bfs[key] = _bfs(D)
                        pr[key].update(nnz=nnz, gen=gen_s)
                        # each grid shape draws its own graph (block counts per grid, the
                        # balancing relabelling): results are compared with a single
                        # process in the test suite; here only what holds on any draw
                        lvd = np.asarray(lv)
                        checks.append(f"{lay}, scale {s}, {g} GPUs: PageRank mass "
                                      f"{r.sum():.12f}; BFS: source at level {int(lvd[0])}, "
                                      f"{int((lvd >= 0).sum()):,} vertices reached")
                        del D
                    except Exception as e:  # noqa: BLE001 - report and go on
                        pr[key] = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
                        bfs[key] = {"error": pr[key]["error"]}
                    client.run(_free_gpu)
            if args.big and g == gpus[-1]:
                lines += _big(client, args.big, g)
        finally:
            client.close()
            cluster.close()
    for lay in args.layout:
        if len(args.layout) > 1:
            grid = "(1, p)" if lay == "columns" else "(p, 1)"
            split = f", {lay.split(':')[1]} pieces a share" if ":" in lay else ""
            lines += [f"# {lay.split(':')[0]} grid {grid}{split}", ""]
        first = args.layout[0]
        pick = {d: {(g, s): v[(first if g == 1 else lay, g, s)] for (ly, g, s) in v
                    if ly == (first if g == 1 else lay)} for d, v in (("pr", pr), ("bfs", bfs))}
        lines += _tables(pick["pr"], pick["bfs"], gpus, args.scales) + [""]
    lines += ["## Checks", ""] + [f"- {c}" for c in checks]
    text = "\n".join(lines) + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    print(text)


def _set_split(k: int) -> None:
    from gblas.distributed import nccl_ranks

    nccl_ranks.ROW_SPLIT = k


def _free_gpu():
    import gc

    import cupy

    gc.collect()
    cupy.get_default_memory_pool().free_all_blocks()


def _big(client, scale: int, g: int) -> list:
    out = ["", f"## Kronecker {scale}, float64 weights, PageRank end to end on {g} GPUs", ""]
    try:
        t0 = time.perf_counter()
        D, nnz, gen_s = _graph(client, scale, g, dtype="float64", weights="uniform")
        _, res = _pagerank(D, 20)
        out.append(f"- {nnz:,} entries generated on the workers in {gen_s:.1f} s; PageRank "
                   f"{res['stats']['iterations']} iterations, {res['iteration'] * 1e3:.1f} "
                   f"ms per iteration (compute {res['compute'] * 1e3:.1f}, exchange "
                   f"{res['exchange'] * 1e3:.1f}); total {time.perf_counter() - t0:.1f} s")
    except Exception as e:  # noqa: BLE001
        out.append(f"- did not complete: {type(e).__name__}: {str(e)[:300]}")
    return out


def _tables(pr, bfs, gpus, scales) -> list:
    out = ["## PageRank per iteration (median of iterations 3..20)", "",
           "| scale | GPUs | entries | iteration | compute | exchange (waited) | collectives "
           f"overlapped (per iteration) | speedup vs {gpus[0]} GPU | bytes sent per rank and "
           "iteration | 2D model bytes |",
           "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in scales:
        for g in gpus:
            p = pr.get((g, s), {})
            if "error" in p or not p:
                out.append(f"| {s} | {g} | - | {p.get('error', 'not run')} | | | | | | |")
                continue
            st = p["stats"]
            base = pr.get((gpus[0], s), {}).get("iteration")
            sp = f"{base / p['iteration']:.2f}x" if base else "-"
            per_it = 8 * st["nccl_words_per_rank"]
            gath = st.get("overlapped_s", 0.0) / max(st["iterations"], 1)
            out.append(f"| {s} | {g} | {p['nnz']:,} | {p['iteration'] * 1e3:.2f} ms | "
                       f"{p['compute'] * 1e3:.2f} ms | {p['exchange'] * 1e3:.2f} ms | "
                       f"{gath * 1e3:.2f} ms | {sp} | "
                       f"{per_it:,} | {8 * st['model_words']:,} |")
    out += ["", "## Weak scaling (PageRank iteration; within 1.5x of 1 GPU is the target)", "",
            "Scale s on 1 GPU against s + 1 on 2 and s + 2 on 4 (the entries per GPU "
            "held about equal).", "",
            "| 1 GPU | time | more GPUs | time | ratio |", "|---|---:|---|---:|---:|"]
    for s in scales:
        a = pr.get((1, s), {})
        for k, g in ((1, 2), (2, 4)):
            b = pr.get((g, s + k), {})
            if "iteration" in a and "iteration" in b:
                out.append(f"| Kronecker {s} | {a['iteration'] * 1e3:.2f} ms | Kronecker "
                           f"{s + k} on {g} | {b['iteration'] * 1e3:.2f} ms | "
                           f"{b['iteration'] / a['iteration']:.2f} |")
    out += ["", "## BFS from vertex 0 (levels only)", "",
            "| scale | GPUs | levels | total | compute | exchange | speedup |",
            "|---:|---:|---:|---:|---:|---:|---:|"]
    for s in scales:
        for g in gpus:
            q = bfs.get((g, s), {})
            if "wall" not in q:
                out.append(f"| {s} | {g} | {q.get('error', 'not run')} | | | | |")
                continue
            base = bfs.get((gpus[0], s), {}).get("wall")
            sp = f"{base / q['wall']:.2f}x" if base else "-"
            out.append(f"| {s} | {g} | {q['levels']} | {q['wall'] * 1e3:.1f} ms | "
                       f"{q['compute'] * 1e3:.1f} ms | {q['exchange'] * 1e3:.1f} ms | {sp} |")
    return out


if __name__ == "__main__":
    main()
