"""``gpu_heavy_light`` (MultiGraphD heavy/light tiles) against cuSPARSE, the gblas CSR pull
and ``gpu_segmented`` on symmetric Graph500 Kronecker graphs.

For each scale, the graph is ``gb.io.kronecker(scale, 16, seed=0, dtype="float32",
symmetric=True)`` (a pattern: every entry 1, stored iso), moved to the GPU, and measured
twice: as built (**pattern**: gblas reads no values, cuSPARSE gets a vector of ones) and
with random float32 values (**valued**: 8 bytes per entry for everyone).  Each variant:

* ``cupyx.scipy.sparse.csr_matrix @ x`` (cuSPARSE SpMV, the anchor);
* the gblas CSR pull kernel;
* ``gpu_segmented`` (defaults);
* ``gpu_heavy_light`` with its defaults and a few other tilings, checked against the CSR
  pull (``plus_times``: relative error; ``min_plus``: equal values and presence), with
  the time of its phases (light CSR pull, heavy units, merge) for the default.

Times are medians of ``--repeat`` float32 ``plus_times`` calls after warm-up (CUDA
events).  "bytes/edge" and "GB/s" count a model of each kernel's traffic: its arrays read
once, ``x`` read once (plus, for gpu_heavy_light, the compact gather of the heavy
panels' columns and every unit's staged slice), partial results written and read back,
``y`` and its flags written (and read back for the row panels with heavy units).

Usage::

    PYTHONPATH=. python3 benchmarks/bench_gpu_heavy_light.py --scales 22
    # writes $OUT/heavy_light_gpu.md when OUT is set
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from benchmarks.bench_gpu_mxv import copy_bandwidth, time_ms

#: gpu_heavy_light configurations: (label, format parameters, kernel knobs).
CONFIGS = [
    ("default", {}, {}),
    ("x gathered from global memory", {}, {"stage_x": False}),
    ("16384-row panels", {"tile_rows": 16384}, {}),
    ("threshold 4096", {"heavy_threshold": 4096}, {}),
    ("units of 32768, 512 threads", {"unit_entries": 32768, "block_threads": 512}, {}),
]


def build_graph(scale: int, edge_factor: int, seed: int) -> tuple[Any, float]:
    """The pattern CSR of the symmetric Kronecker graph on the GPU, and seconds taken."""
    import cupy as cp

    import gblas as gb

    t0 = time.perf_counter()
    A = gb.io.kronecker(scale, edge_factor, seed=seed, dtype="float32", symmetric=True)
    csr = A.csr().to_device("gpu")
    cp.cuda.Device().synchronize()
    return csr, time.perf_counter() - t0


def heavy_light_bytes(H: Any, xsize: int, r: int, staged: bool = True) -> int:
    """Modelled traffic of one gpu_heavy_light pull (see the module documentation).

    The light entries count either as the CSR pull (its arrays, ``x`` read once) or, when
    the format holds light panels, as those: entries, values, run bases, every unit's
    staged ``x`` slice, the partials written, then read with their row offsets and the
    chunk table."""
    m, n = H.shape
    perm = 0 if H.col_perm is None else H.col_perm.nbytes  # only a prefix is read
    gather = 0 if H.col_perm is None else H.n_heavy_cols * (H.col_perm.itemsize + 2 * xsize)
    slices = H.nunits * H.tile_cols * xsize if staged else 0
    merge_rows = int(H.hrp.size) * H.tile_rows
    L = H.light_panels
    if L is None:
        light = H.light.nbytes + n * xsize
    else:
        light = (L.ent.nbytes + (0 if L.val is None else L.val.nbytes) + L.gbase.nbytes
                 + L.nunits * L.panel_cols * xsize + L.npart * (2 * r + 2) + L.chunks.nbytes)
    heavy = H.nbytes - H.light.nbytes - (0 if L is None else L.nbytes) - perm
    return int(heavy + light + gather + slices + 2 * H.total_span * (r + 1) + m * (r + 1)
               + 2 * merge_rows * (r + 1))


def run_variant(A: Any, label: str, args: argparse.Namespace, rows: list[dict],
                notes: list[str]) -> None:
    """Time every kernel on one CSR (pattern or valued)."""
    import cupy as cp
    import cupyx.scipy.sparse as csp

    from gblas.backends.registry import VecData, get_kernel
    from gblas.formats.gpu_heavy_light import GPUHeavyLight
    from gblas.formats.gpu_segmented import GPUSegmented
    from gblas.semirings import builtin

    m, n = A.shape
    nnz = A.nnz
    x = cp.random.RandomState(7).random_sample(n, dtype=cp.float32) + 0.5
    xv = VecData(n, None, x, None)
    pt = builtin.SEMIRINGS["plus_times"]
    mp = builtin.SEMIRINGS["min_plus"]
    types = pt.types(A.dtype, np.float32)
    vals, _ = A.values_or_iso()
    if A.values is None:
        vals = cp.ones(nnz, dtype=cp.float32)
    S = csp.csr_matrix((vals, A.indices, A.indptr), shape=(m, n))
    cus_ms = time_ms(lambda: S @ x, args.repeat)
    csr_bytes = A.nbytes

    def add(kernel: str, ms: float, nbytes: int, check: str, build: float | None = None
            ) -> None:
        rows.append({"scale": args.current_scale, "variant": label, "nnz": nnz,
                     "kernel": kernel, "ms": ms, "ratio": cus_ms / ms, "bpe": nbytes / nnz,
                     "gbs": nbytes / ms / 1e6, "build_s": build, "check": check})
        print(f"  [{label}] {kernel}: {ms:.3f} ms ({cus_ms / ms:.2f}x cuSPARSE, "
              f"{nbytes / ms / 1e6:.0f} GB/s) {check}", flush=True)

    add("cuSPARSE csr @ x", cus_ms, nnz * 8 + (m + 1) * 4 + n * 4 + m * 4, "anchor")
    S = vals = None
    csr_pull = get_kernel("mxv", "csr", "gpu", "pull")
    y_ref = csr_pull(A, xv, None, pt, types)
    y_min = csr_pull(A, xv, None, mp, types)
    nref = float(cp.linalg.norm(y_ref.values))
    add("gblas csr pull", time_ms(lambda: csr_pull(A, xv, None, pt, types), args.repeat),
        csr_bytes + n * 4 + m * 5, "reference")

    def checks(pull: Callable[[Any], Any]) -> str:
        y = pull(pt)
        err = float(cp.linalg.norm(y.values - y_ref.values)) / max(nref, 1e-30)
        same_p = bool(cp.all(y.present == y_ref.present))
        ym = pull(mp)
        same_m = bool(cp.all(ym.present == y_min.present)) and bool(
            cp.all(cp.where(ym.present, ym.values == y_min.values, True)))
        ok = err < 1e-5 and same_p and same_m
        return (f"rel err {err:.1e}, min_plus {'equal' if same_m else 'DIFFERS'}"
                + ("" if ok else " CHECK FAILED"))

    t0 = time.perf_counter()
    F = GPUSegmented.from_csr(A)
    cp.cuda.Device().synchronize()
    bt = time.perf_counter() - t0
    seg = get_kernel("mxv", "gpu_segmented", "gpu", "pull")
    L = F.n_local_rows
    add("gpu_segmented (defaults)", time_ms(lambda: seg(F, xv, None, pt, types), args.repeat),
        F.nbytes + n * 4 + F.n_hot * 8 + 2 * L * 5 + m * 5,
        checks(lambda sr: seg(F, xv, None, sr, types)), bt)
    F = None
    cp.get_default_memory_pool().free_all_blocks()

    hl = get_kernel("mxv", "gpu_heavy_light", "gpu", "pull")
    chosen = [c for c in CONFIGS if not args.only or any(o in c[0] for o in args.only)]
    for i, (clabel, params, knobs) in enumerate(chosen):
        t0 = time.perf_counter()
        H = GPUHeavyLight.from_csr(A, **params)
        cp.cuda.Device().synchronize()
        bt = time.perf_counter() - t0
        if args.check_invariants and i == 0:
            H.check_invariants()
        st = H.stats()
        ms = time_ms(lambda H=H, kn=knobs: hl(H, xv, None, pt, types, **kn), args.repeat)
        staged = knobs.get("stage_x", True)
        add(f"gpu_heavy_light {clabel}: {H.describe()}", ms,
            heavy_light_bytes(H, 4, 4, staged),
            checks(lambda sr, H=H, kn=knobs: hl(H, xv, None, sr, types, **kn)), bt)
        notes.append(f"scale {args.current_scale} [{label}] gpu_heavy_light {clabel}: "
                     + ", ".join(f"{k} {v:.3g}" if isinstance(v, float) else f"{k} {v}"
                                 for k, v in st.items()))
        notes.append(f"scale {args.current_scale} [{label}] gpu_heavy_light {clabel} "
                     "phases (ms; merge includes copying y): "
                     + phases(H, xv, pt, types, args.repeat, staged))
        print("  " + notes[-1], flush=True)
        H = None
        cp.get_default_memory_pool().free_all_blocks()


def phases(H: Any, xv: Any, sr: Any, types: tuple, repeat: int, stage_x: bool) -> str:
    """Times of the three kernels of a gpu_heavy_light pull, apart."""
    from gblas.backends.gpu import heavy_light as ghl
    from gblas.backends.gpu.mxv import mxv_pull

    ph = {"light csr pull": time_ms(lambda: mxv_pull(H.light, xv, None, sr, types), repeat),
          "heavy units": time_ms(lambda: ghl.heavy_partials(H, xv, None, sr, types,
                                                            stage_x=stage_x), repeat)}
    part, ppres = ghl.heavy_partials(H, xv, None, sr, types, stage_x=stage_x)
    yl = mxv_pull(H.light, xv, None, sr, types)
    ph["merge"] = time_ms(lambda: ghl.merge_heavy(H, part, ppres, yl.values.copy(),
                                                  yl.present.copy(), None, sr, types), repeat)
    return ", ".join(f"{k} {v:.3f}" for k, v in ph.items())


def markdown(rows: list[dict], notes: list[str], header: str) -> str:
    """The results as a markdown table followed by the notes."""
    out = [header, "",
           "| scale | variant | nnz | kernel | median ms | vs cuSPARSE | bytes/edge | GB/s "
           "| build s | check |",
           "|---:|---|---:|---|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        b = "" if r["build_s"] is None else f"{r['build_s']:.2f}"
        out.append(f"| {r['scale']} | {r['variant']} | {r['nnz']:,} | {r['kernel']} | "
                   f"{r['ms']:.3f} | {r['ratio']:.2f}x | {r['bpe']:.2f} | {r['gbs']:.0f} | {b} "
                   f"| {r['check']} |")
    out += ["", "Notes:", ""] + [f"* {s}" for s in notes]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="+", default=[22])
    p.add_argument("--edge-factor", type=int, default=16)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--only", nargs="*", default=None,
                   help="gpu_heavy_light configurations whose label contains one of these")
    p.add_argument("--variants", nargs="+", default=["pattern", "valued"],
                   choices=["pattern", "valued"])
    p.add_argument("--check-invariants", action="store_true",
                   help="run check_invariants on the default format (slow: host side)")
    args = p.parse_args(argv)

    import cupy as cp

    from gblas.formats.csr import CSR

    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    copy_gbs = copy_bandwidth(args.repeat)
    header = (f"## gpu_heavy_light vs cuSPARSE, gblas CSR pull and gpu_segmented "
              f"(float32 plus_times, symmetric Kronecker, edge factor {args.edge_factor})\n\n"
              f"{name}, {dev.attributes['MultiProcessorCount']} SMs, L2 "
              f"{dev.attributes['L2CacheSize'] >> 20} MiB; CuPy {cp.__version__}; Python "
              f"{platform.python_version()}; median of {args.repeat} after warm-up (CUDA "
              f"events); device-to-device copy {copy_gbs:.0f} GB/s (read + write).")
    print(header, flush=True)
    rows: list[dict] = []
    notes: list[str] = []
    for scale in args.scales:
        args.current_scale = scale
        A, secs = build_graph(scale, args.edge_factor, args.seed)
        print(f"scale {scale}: n={A.shape[0]:,} nnz={A.nnz:,} generated in {secs:.1f} s",
              flush=True)
        for variant in args.variants:
            if variant == "pattern":
                run_variant(A, "pattern", args, rows, notes)
            else:
                vals = cp.random.RandomState(args.seed + 1).random_sample(
                    A.nnz, dtype=cp.float32) + 0.5
                V = CSR(A.shape, A.indptr, A.indices, vals, np.dtype(np.float32), None, "gpu")
                run_variant(V, "valued", args, rows, notes)
                del V, vals
            cp.get_default_memory_pool().free_all_blocks()
        del A
        cp.get_default_memory_pool().free_all_blocks()
    text = markdown(rows, notes, header)
    print(text)
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, "heavy_light_gpu.md"), "w") as f:
            f.write(text)
    return 1 if any("FAILED" in r["check"] for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
