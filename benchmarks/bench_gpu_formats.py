"""GPU cache-aware formats against gblas CSR and cuSPARSE on Graph500 Kronecker graphs.

For each scale, in one process and on the same float32 CSR (built as in
:mod:`benchmarks.bench_gpu_mxv`, with :func:`gblas.io.generators.kronecker_coo`):

* ``cupyx.scipy.sparse.csr_matrix @ x`` (cuSPARSE SpMV, the anchor);
* gblas's CSR pull kernel, ``plus_times`` and ``min_plus``;
* ``gpu_segmented`` (TOCAB segments + hot segment) in a few configurations, with the
  time of its three phases for the default one;
* ``gpu_shards`` (Garaph replicated shards);
* ``gpu_heavy_light`` (MultiGraphD) with its light entries in column panels (the stream
  buffer of :mod:`gblas.formats.light_panels`), with and without heavy tiles, against its
  light entries as a CSR pull;
* push SpMSpV on random frontiers: :func:`gblas.backends.gpu.mxv.mxv_push` against the
  block-level load-balanced :func:`gblas.backends.gpu.frontier.mxv_push_lb`;
* a device-to-device copy (the bandwidth ceiling).

Figures are medians of ``--repeat`` runs after warm-up (CUDA events).  "x floor" is the
time over the compulsory traffic of the product in CSR (8 bytes per entry, ``indptr``,
one read of ``x``, one write of ``y``) at the measured copy bandwidth; "bytes/edge" and
"GB/s" count the traffic of the kernel's own layout (its arrays read once, ``x``, the
partial results written and read back, ``y`` and its flags).

Usage::

    PYTHONPATH=. python3 benchmarks/bench_gpu_formats.py --scales 22 24 25 --out OUTDIR
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from functools import partial
from typing import Any

import numpy as np

from benchmarks.bench_gpu_heavy_light import heavy_light_bytes
from benchmarks.bench_gpu_mxv import build_graph, copy_bandwidth, time_ms

#: gpu_segmented configurations: (label, format parameters, kernel knobs).
SEGMENTED = [
    ("default (L2/4 segments, auto hot, CSR row kernels)", {}, {}),
    ("hot 49152 staged in shared memory", {"hot": 49152}, {"hot_smem": True}),
    ("hot 49152 gathered from global memory", {"hot": 49152}, {}),
    ("L2/2 segments", {"l2_fraction": 0.5}, {}),
    ("L2/8 segments", {"l2_fraction": 0.125}, {}),
    ("no hot segment", {"hot": 0}, {}),
    ("hot 16384", {"hot": 1 << 14}, {}),
    ("hot 262144", {"hot": 1 << 18}, {}),
    ("row blocks 512 + 64", {}, {"mode": "stream", "block": 512, "smax": 64}),
    ("MLP-first row kernels", {}, {"kernel": "stream"}),
    ("one cold segment", {"segment_cols": 1 << 40}, {}),
]
#: gpu_shards configurations.
SHARDS = [
    ("default (8192 slots, R<=32)", {}),
]
#: gpu_heavy_light configurations: (label, format parameters, kernel knobs).
HEAVY_LIGHT = [
    ("light panels only (no heavy tile)", {"heavy_threshold": 1 << 40}, {}),
    ("default (8192x8192 tiles, light panels)", {}, {}),
    ("light panels only, 8192 columns", {"heavy_threshold": 1 << 40, "light_cols": 8192},
     {}),
    ("light panels only, 16384-row panels", {"heavy_threshold": 1 << 40,
                                             "light_rows": 16384}, {}),
    ("light panels only, 512 threads", {"heavy_threshold": 1 << 40}, {"threads": 512}),
    ("default tiles, light CSR pull", {"light": "csr"}, {}),
]
#: Frontier sizes (fraction of the vertices) for push.
FRONTIERS = [1e-4, 1e-3, 1e-2, 1e-1]


def _sync() -> None:
    import cupy as cp

    cp.cuda.Device().synchronize()


def run_scale(scale: int, args: argparse.Namespace, copy_gbs: float, log: dict) -> list[dict]:
    """Time every kernel on the Kronecker graph of ``scale``; return the table rows."""
    import cupy as cp
    import cupyx.scipy.sparse as csp

    from gblas.backends.gpu import frontier
    from gblas.backends.gpu import mxv as gmxv
    from gblas.backends.gpu import segmented as gseg
    from gblas.backends.registry import VecData, get_kernel
    from gblas.formats.gpu_heavy_light import GPUHeavyLight
    from gblas.formats.gpu_segmented import GPUSegmented
    from gblas.formats.gpu_shards import GPUShards
    from gblas.semirings import builtin

    A, source, build_s = build_graph(scale, args.edge_factor, args.seed)
    n, nnz = A.shape[0], A.nnz
    print(f"scale {scale}: n={n} nnz={nnz} built in {build_s:.1f} s ({source})", flush=True)
    x = cp.random.RandomState(7).random_sample(n, dtype=cp.float32) + 0.5
    xv = VecData(n, None, x, None)
    pt = builtin.SEMIRINGS["plus_times"]
    mp = builtin.SEMIRINGS["min_plus"]
    types = pt.types(np.float32, np.float32)
    floor_bytes = nnz * 8 + (n + 1) * 4 + n * 4 + n * 4
    floor_ms = floor_bytes / copy_gbs / 1e6
    rows: list[dict] = []

    S = csp.csr_matrix((A.values, A.indices, A.indptr), shape=(n, n))
    y_ref = S @ x
    nref = float(cp.linalg.norm(y_ref))
    cus_ms = time_ms(lambda: S @ x, args.repeat)

    def add(kernel: str, ms: float, nbytes: int, check: str, build: float | None = None
            ) -> None:
        rows.append({"scale": scale, "n": n, "nnz": nnz, "kernel": kernel, "ms": ms,
                     "speedup": cus_ms / ms, "x_floor": ms / floor_ms, "bpe": nbytes / nnz,
                     "gbs": nbytes / ms / 1e6, "pct_copy": 100 * nbytes / ms / 1e6 / copy_gbs,
                     "check": check, "build_s": build})
        print(f"  {kernel}: {ms:.3f} ms ({cus_ms / ms:.2f}x cuSPARSE, {ms / floor_ms:.2f}x "
              f"floor) {check}", flush=True)

    def relerr(y: Any) -> str:
        return f"rel err {float(cp.linalg.norm(y.values - y_ref)) / nref:.1e}"

    add("cuSPARSE csr @ x, plus_times (anchor)", cus_ms, floor_bytes, "-")
    csr_pull = get_kernel("mxv", "csr", "gpu", "pull")
    y = csr_pull(A, xv, None, pt, types)
    add("gblas csr pull, plus_times", time_ms(lambda: csr_pull(A, xv, None, pt, types),
                                              args.repeat), floor_bytes + n, relerr(y))
    y_mp = csr_pull(A, xv, None, mp, types)
    add("gblas csr pull, min_plus", time_ms(lambda: csr_pull(A, xv, None, mp, types),
                                            args.repeat), floor_bytes + n, "reference")

    def same_min(y: Any) -> str:
        ok = bool(cp.all(y.present == y_mp.present)) and bool(
            cp.all(cp.where(y.present, y.values == y_mp.values, True)))
        return "= csr min_plus" if ok else "CHECK FAILED"

    seg_pull = get_kernel("mxv", "gpu_segmented", "gpu", "pull")
    chosen = [c for c in SEGMENTED if not args.only or any(o in c[0] for o in args.only)]
    for i, (label, params, knobs) in enumerate(chosen):
        t0 = time.perf_counter()
        F = GPUSegmented.from_csr(A, **params)
        _sync()
        bt = time.perf_counter() - t0
        st = F.stats()
        log.setdefault(f"scale{scale}", {})[f"segmented {label}"] = st
        L = F.n_local_rows
        nbytes = F.nbytes + n * 4 + F.n_hot * 8 + 2 * L * 5 + n * 5
        desc = (f"gpu_segmented {label}: {st['nseg']} seg, hot {st['hot']} "
                f"({100 * st['hot_share']:.0f}% of entries), {st['local_rows_per_nnz']:.2f} "
                "local rows/entry")

        def call(sr: Any, F: Any = F, knobs: dict = knobs) -> Any:
            return seg_pull(F, xv, None, sr, types, **knobs)

        add(desc + ", plus_times", time_ms(partial(call, pt), args.repeat), nbytes,
            relerr(call(pt)), bt)
        add(f"gpu_segmented {label}, min_plus", time_ms(partial(call, mp), args.repeat),
            nbytes, same_min(call(mp)))
        if i == 0:
            phases(F, xv, pt, types, args, log, scale, gseg)
        F = call = None
        cp.get_default_memory_pool().free_all_blocks()

    sh_pull = get_kernel("mxv", "gpu_shards", "gpu", "pull")
    for label, params in ([] if args.skip_shards else SHARDS):
        t0 = time.perf_counter()
        F = GPUShards.from_csr(A, **params)
        _sync()
        bt = time.perf_counter() - t0
        st = F.stats()
        log.setdefault(f"scale{scale}", {})[f"shards {label}"] = st
        nbytes = F.nbytes + n * 4 + 2 * F.npart * 5 + n * 5

        def scall(sr: Any, F: Any = F) -> Any:
            return sh_pull(F, xv, None, sr, types)

        add(f"gpu_shards {label}: {st['nshards']} shards, {st['nitems']} items, mean R "
            f"{st['mean_rep_per_row']:.1f}, plus_times", time_ms(partial(scall, pt), args.repeat),
            nbytes, relerr(scall(pt)), bt)
        add(f"gpu_shards {label}, min_plus", time_ms(partial(scall, mp), args.repeat), nbytes,
            same_min(scall(mp)))
        F = scall = None
        cp.get_default_memory_pool().free_all_blocks()

    hl_pull = get_kernel("mxv", "gpu_heavy_light", "gpu", "pull")
    for label, params, knobs in ([] if args.skip_heavy_light else HEAVY_LIGHT):
        t0 = time.perf_counter()
        F = GPUHeavyLight.from_csr(A, **params)
        _sync()
        bt = time.perf_counter() - t0
        log.setdefault(f"scale{scale}", {})[f"heavy_light {label}"] = F.stats()

        def hcall(sr: Any, F: Any = F, knobs: dict = knobs) -> Any:
            return hl_pull(F, xv, None, sr, types, **knobs)

        nbytes = heavy_light_bytes(F, 4, 4)
        add(f"gpu_heavy_light {label}: {F.describe()}, plus_times",
            time_ms(partial(hcall, pt), args.repeat), nbytes, relerr(hcall(pt)), bt)
        add(f"gpu_heavy_light {label}, min_plus", time_ms(partial(hcall, mp), args.repeat),
            nbytes, same_min(hcall(mp)))
        F = hcall = None
        cp.get_default_memory_pool().free_all_blocks()

    if scale in args.push_scales:
        push_rows(A, scale, args, log, frontier, gmxv, VecData, mp, types)
    return rows


def phases(F: Any, xv: Any, sr: Any, types: tuple, args: argparse.Namespace, log: dict,
           scale: int, gseg: Any) -> None:
    """Time the phases of a segmented pull (hot gather, hot rows, cold rows, merge) apart."""
    import cupy as cp

    from gblas.backends.gpu import codegen, launch
    from gblas.backends.gpu.mxv import mxv_pull
    from gblas.backends.registry import VecData

    out: dict = {}
    xh = VecData(F.n_hot, None, xv.values[F.hot_cols], None)
    if F.n_hot_rows:
        out["hot gather ms"] = time_ms(lambda: xv.values[F.hot_cols], args.repeat)
        out["hot pull ms"] = time_ms(lambda: mxv_pull(F.hot_csr, xh, None, sr, types),
                                     args.repeat)
        yh = mxv_pull(F.hot_csr, xh, None, sr, types)
    if F.cold_csr.shape[0]:
        out["cold pull ms"] = time_ms(lambda: mxv_pull(F.cold_csr, xv, None, sr, types),
                                      args.repeat)
        yc = mxv_pull(F.cold_csr, xv, None, sr, types)
    r = np.dtype(types[2])
    src = gseg.merge_source(sr, tuple(np.dtype(t) for t in types), rm=F.rowmap.dtype,
                            range_rows=F.range_rows)
    fn = codegen.get_function(src, "gb_seg_merge")
    m = F.shape[0]
    y = cp.empty(m, dtype=r)
    yp = cp.empty(m, dtype=np.bool_)
    hv, hp = (yh.values, yh.present) if F.n_hot_rows else (launch.dummy(r), launch.dummy())
    cv, cpr = (yc.values, yc.present) if F.cold_csr.shape[0] else (launch.dummy(r),
                                                                   launch.dummy())

    def merge() -> None:
        fn((F.nranges,), (gseg.MERGE_THREADS,),
           (hv, hp, cv, cpr, F.rowmap, F.range_ptr, np.int32(F.nseg), np.int64(F.n_hot_rows),
            np.int64(F.nranges), np.int64(m), y, yp))

    out["merge ms"] = time_ms(merge, args.repeat)
    log.setdefault(f"scale{scale}", {})["segmented default phases"] = out
    print("  segmented phases: " + ", ".join(f"{k} {v:.3f}" for k, v in out.items()),
          flush=True)


def push_rows(A: Any, scale: int, args: argparse.Namespace, log: dict, frontier: Any,
              gmxv: Any, VecData: Any, sr: Any, types: tuple) -> None:
    """Existing push against the load-balanced push on random frontiers (min_plus)."""
    import cupy as cp

    AT = A.transpose()
    n = A.shape[0]
    rs = cp.random.RandomState(11)
    x = rs.random_sample(n, dtype=cp.float32) + 0.5
    res = []
    for frac in FRONTIERS:
        idx = cp.flatnonzero(rs.random_sample(n) < frac)
        xs = VecData(n, idx, x[idx])
        a = gmxv.mxv_push(AT, xs, None, sr, types, n)
        b = frontier.mxv_push_lb(AT, xs, None, sr, types, n)
        ok = bool(cp.all(a.present == b.present)) and bool(
            cp.all(cp.where(a.present, a.values == b.values, True)))
        t_a = time_ms(lambda xs=xs: gmxv.mxv_push(AT, xs, None, sr, types, n), args.repeat)
        t_b = time_ms(lambda xs=xs: frontier.mxv_push_lb(AT, xs, None, sr, types, n),
                      args.repeat)
        res.append({"scale": scale, "frontier": frac, "nf": int(idx.size), "push_ms": t_a,
                    "lb_ms": t_b, "speedup": t_a / t_b, "equal": ok})
        print(f"  push frontier {frac:g} ({int(idx.size)}): csr push {t_a:.3f} ms, "
              f"lb {t_b:.3f} ms ({t_a / t_b:.2f}x) {'ok' if ok else 'MISMATCH'}", flush=True)
    log.setdefault("push", []).extend(res)
    cp.get_default_memory_pool().free_all_blocks()


def markdown(rows: list[dict], push: list[dict], copy_gbs: float, header: str) -> str:
    """The results as markdown tables."""
    out = [header, "",
           f"Device-to-device copy in the same run: **{copy_gbs:.0f} GB/s** (read + write).",
           "",
           "| scale | nnz | kernel | median ms | speedup vs cuSPARSE | x floor | bytes/edge "
           "| GB/s | % of copy | build s | check |",
           "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        b = "" if r["build_s"] is None else f"{r['build_s']:.2f}"
        out.append(f"| {r['scale']} | {r['nnz']:,} | {r['kernel']} | {r['ms']:.3f} | "
                   f"{r['speedup']:.2f}x | {r['x_floor']:.2f} | {r['bpe']:.2f} | "
                   f"{r['gbs']:.0f} | {r['pct_copy']:.0f}% | {b} | {r['check']} |")
    if push:
        out += ["", "Push SpMSpV (min_plus, float32) on random frontiers:", "",
                "| scale | frontier | entries | csr push ms | load-balanced ms | speedup | "
                "equal |", "|---:|---:|---:|---:|---:|---:|---|"]
        for p in push:
            out.append(f"| {p['scale']} | {p['frontier']:g} | {p['nf']:,} | "
                       f"{p['push_ms']:.3f} | {p['lb_ms']:.3f} | {p['speedup']:.2f}x | "
                       f"{'yes' if p['equal'] else 'NO'} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the tables and write them (and raw numbers) to ``--out``."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scales", type=int, nargs="+", default=[22, 24, 25])
    p.add_argument("--push-scales", type=int, nargs="*", default=[22])
    p.add_argument("--edge-factor", type=int, default=16)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--out", default=None, help="folder for formats_gpu.md and raw JSON")
    p.add_argument("--only", nargs="*", default=None,
                   help="run the gpu_segmented configurations whose label holds one of these")
    p.add_argument("--skip-shards", action="store_true")
    p.add_argument("--skip-heavy-light", action="store_true")
    args = p.parse_args(argv)

    import cupy as cp

    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    l2 = int(cp.cuda.Device().attributes["L2CacheSize"])
    header = (f"## GPU cache-aware formats vs gblas CSR and cuSPARSE (float32, Kronecker "
              f"A=0.57 B=C=0.19, edge factor {args.edge_factor})\n\n"
              f"{name}, {props['multiProcessorCount']} SMs, L2 {l2 >> 20} MiB "
              f"(L2CacheSize attribute); CuPy {cp.__version__}, CUDA runtime "
              f"{cp.cuda.runtime.runtimeGetVersion()}; Python {platform.python_version()}; "
              f"median of {args.repeat} after warm-up (CUDA events).")
    copy_gbs = copy_bandwidth(args.repeat)
    print(f"device-to-device copy: {copy_gbs:.0f} GB/s", flush=True)
    log: dict = {"copy_gbs": copy_gbs, "l2_bytes": l2}
    rows: list[dict] = []
    for s in args.scales:
        rows += run_scale(s, args, copy_gbs, log)
        cp.get_default_memory_pool().free_all_blocks()
    md = markdown(rows, log.get("push", []), copy_gbs, header)
    print(md)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "formats_gpu.md"), "w") as f:
            f.write(md)
        with open(os.path.join(args.out, "formats_gpu.json"), "w") as f:
            json.dump({"rows": rows, "log": log}, f, indent=1, default=str)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
