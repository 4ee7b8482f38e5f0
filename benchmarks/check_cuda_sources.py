"""Compile every CUDA source the GPU backend generates with ``nvcc`` (no GPU needed).

The GPU kernels are CUDA C++ files (``gblas/backends/gpu/cuda/``) specialized per
semiring, dtypes and variant and compiled by CuPy (NVRTC) on first use.  This script
assembles the sources of a spread of specializations -- every kernel family, the built-in
monoids with and without native atomics, a user-defined semiring, 1- to 8-byte integer,
float and bool dtypes, iso and valued matrices, with and without ``x`` flags and a row
mask -- and compiles each to PTX for one architecture, checking that the kernels the
Python side launches are defined.  Where CuPy is missing a stand-in module lets the kernel
modules import (only their source generators run; nothing is launched).

Usage, from the repository root::

    python benchmarks/check_cuda_sources.py             # compile all, 2 at a time
    python benchmarks/check_cuda_sources.py --list      # the specializations only
    python benchmarks/check_cuda_sources.py --no-compile   # assemble only (no nvcc)
    python benchmarks/check_cuda_sources.py --ptx-dir out  # keep the PTX of each

Exit status 0 when every source compiles and defines its kernels.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import types
from collections.abc import Iterator

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class _Stand:
    """Anything: every attribute and every call gives another one."""

    def __init__(self, *args, **kwargs) -> None:
        pass

    def __call__(self, *args, **kwargs) -> _Stand:
        return _Stand()

    def __getattr__(self, name: str) -> _Stand:
        return _Stand()


def _stand_in_cupy() -> None:
    """Put a stand-in ``cupy`` in ``sys.modules`` when the real one is not installed."""
    if "cupy" in sys.modules or importlib.util.find_spec("cupy") is not None:
        return
    mod = types.ModuleType("cupy")
    mod.__getattr__ = lambda name: _Stand()  # type: ignore[attr-defined]
    sys.modules["cupy"] = mod


#: (semiring, dtype) pairs: every scatter path (native atomics on 1-, 4- and 8-byte
#: results, compare-and-swap and exchange loops, ANY, the boolean monoids), terminal
#: values, a user-defined operator.
CASES = [
    ("plus_times", "float32"), ("plus_times", "float64"), ("min_plus", "float32"),
    ("min_plus", "int64"), ("max_min", "uint8"), ("any_pair", "int8"), ("lor_land", "bool"),
    ("plus_pair", "int32"), ("times_plus", "float64"), ("times_times", "int16"),
    ("lxor_pair", "bool"), ("max_first", "uint64"), ("times_times", "float32"),
    ("max_clip", "float32"), ("min_plus", "int8"), ("plus_times", "int8"),
    ("land_lor", "bool"), ("max_times", "int32"), ("min_second", "uint32"),
    ("any_second", "float64"), ("umax_times", "int64"), ("plus_absdiff", "float32"),
]


def _semiring(name: str):
    from gblas.semirings import builtin
    from gblas.semirings.ops import BinaryOp, Semiring

    if name == "max_clip":
        clip = BinaryOp("clip", lambda a, b: min(a * b, 1.0))
        return Semiring("max_clip", builtin.MONOIDS["max"], clip)
    if name in builtin.SEMIRINGS:
        return builtin.SEMIRINGS[name]
    from gblas.testing.strategies import USER_SEMIRINGS

    return USER_SEMIRINGS[name]


def instantiations() -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """``(label, source, kernels)`` of every specialization checked."""
    _stand_in_cupy()
    from gblas.backends.gpu import (
        codegen,
        elementwise,
        frontier,
        heavy_light,
        light_panels,
        mxm,
        mxv,
        pagerank_loop,
        paths_fused,
        power_fused,
        reductions,
        segmented,
        shards,
        traversal,
        vector_kernels,
    )
    from gblas.semirings import builtin
    from gblas.semirings.ops import UnaryOp

    i32, i64, u16 = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.uint16)
    for k, (name, dt) in enumerate(CASES):
        sr = _semiring(name)
        d = np.dtype(dt)
        tys = tuple(np.dtype(t) for t in sr.types(d, d))
        r = tys[2]
        flag = [bool(k & 1), bool(k & 2), bool(k & 4)]      # iso, x flags, row mask
        ix = i64 if k % 3 == 0 else i32
        tag = f"{k:02d}-{name}-{dt}"
        for mode, (g, smax, cap, nx, warps) in {"vector": (4, 32, 32, 0, None),
                                                 "stream": (32, 64, 320, 4096, 16)}.items():
            yield (f"mxv-pull-{mode}-{tag}",
                   mxv.pull_source(sr, tys, ip=ix, ix=ix, av=d, xv=d, iso=flag[0],
                                   xpres=flag[1], allow=flag[2], group=g, smax=smax,
                                   chunk=1024, cap=cap, nx=nx if k % 2 else 0, warps=warps),
                   ("gb_pull_short", "gb_pull_stream", "gb_pull_long", "gb_pull_combine"))
        for listed in (False, True):
            yield (f"mxv-push-{int(listed)}-{tag}",
                   mxv.push_source(sr, tys, ip=ix, ix=ix, av=d, fi=i64, xv=d, iso=flag[0],
                                   allow=flag[2], listed=listed, li=i32 if k % 2 else i64)[0],
                   ("gb_push",))
        yield (f"push-lb-{tag}",
               frontier.push_lb_source(sr, tys, ip=ix, ix=ix, av=d, fi=i64, xv=d,
                                       iso=flag[0], allow=flag[2], epb=1024)[0],
               ("gb_push_lb",))
        yield (f"seg-rows-{tag}",
               segmented.rows_source(sr, tys, ip=ix, ix=u16 if k % 2 else ix, av=d, xv=d,
                                     iso=flag[0], xpres=flag[1], allow=flag[2], smax=32,
                                     iters=8),
               ("gb_seg_stream", "gb_seg_long", "gb_seg_combine"))
        yield (f"seg-merge-{tag}",
               segmented.merge_source(sr, tys, rm=ix, range_rows=4096 if r.itemsize < 8
                                      else 2048),
               ("gb_seg_merge",))
        yield (f"hl-heavy-{tag}",
               heavy_light.heavy_source(sr, tys, av=d, xv=d, iso=flag[0], xpres=flag[1],
                                        allow=flag[2], tile_rows=8192, tile_cols=8192,
                                        threads=256, stage=bool(k % 2)),
               ("gb_hl_heavy",))
        yield (f"hl-merge-{tag}",
               heavy_light.merge_source(sr, tys, allow=flag[2], tile_rows=8192),
               ("gb_hl_merge",))
        for group, pf, sub, cb in ((128, False, 1, 0), (256, True, 2, 2048)):
            yield (f"panels-{group}-{tag}",
                   light_panels.panels_source(sr, tys, av=d, xv=d, iso=flag[0],
                                              xpres=flag[1], allow=flag[2], panel_cols=16384,
                                              panel_rows=32768, sub=sub, group=group,
                                              prefetch=pf, chunk_batch=cb,
                                              chunk_at=65536 if cb else 0)[0],
                   ("gb_lp_stream", "gb_lp_reduce"))
        yield (f"shards-{tag}",
               shards.shard_source(sr, tys, ix=ix, av=d, xv=d, iso=flag[0], xpres=flag[1],
                                   allow=flag[2], slots=8192)[0],
               ("gb_shard_pull", "gb_shard_combine"))
        mask = {"mp_t": ix, "mix_t": ix, "mv_t": np.dtype(np.float32)}
        mflags = {"GB_MASK": k % 3 != 2, "GB_MVALUE": bool(k & 1), "GB_MCOMP": bool(k & 2)}
        yield (f"mxm-saxpy-{tag}",
               mxm.saxpy_source(sr, tys, {"aix_t": ix, "av_t": d, "bp_t": ix, "bix_t": ix,
                                          "bv_t": d, **mask},
                                {"GB_ISO_A": flag[0], "GB_ISO_B": flag[1], **mflags}),
               ("gb_expand", "gb_segreduce"))
        mflags["GB_MASK"], mflags["GB_MCOMP"] = True, False
        yield (f"mxm-dot-{tag}",
               mxm.dot_source(sr, tys, {"ap_t": ix, "aix_t": ix, "av_t": d, "bp_t": ix,
                                        "bix_t": ix, "bv_t": d, **mask},
                              {"GB_ISO_A": flag[0], "GB_ISO_B": flag[1], **mflags}),
               ("gb_dot",))
    for p, q in ((i32, i32), (i64, i32), (i64, i64)):
        yield (f"bfs-{p.name}-{q.name}", traversal.bfs_source(p, q),
               ("gb_bfs_push", "gb_bfs_push_big", "gb_bfs_pull", "gb_bfs_mark",
                "gb_bfs_parents", "gb_bfs_start", "gb_bfs_local", "gb_bfs_small"))
    yield "pagerank", vector_kernels.pagerank_source(), ("gb_pagerank_step",)
    f8 = np.dtype(np.float64)
    for name, iso in (("plus_second", True), ("plus_times", False)):
        sr = _semiring(name)
        yield (f"panels pagerank step {name}",
               light_panels.panels_source(sr, tuple(np.dtype(t) for t in sr.types(f8, f8)),
                                          av=f8, xv=f8, iso=iso, xpres=False, allow=False,
                                          panel_cols=8192, panel_rows=16384, group=256,
                                          prefetch=not iso, chunk_batch=2048,
                                          chunk_at=131072, pagerank=True)[0],
               ("gb_lp_stream", "gb_lp_reduce"))
    for ip in (np.int32, np.int64):
        yield (f"pagerank start {np.dtype(ip).name}",
               vector_kernels.pagerank_start_source(np.dtype(ip)), ("gb_pagerank_start",))
    yield "power", vector_kernels.power_source(), ("gb_power_combine", "gb_power_update")
    for word in (np.uint8, np.uint16, np.uint32, np.uint64):
        yield (f"panel build {np.dtype(word).name}",
               codegen.source("panel_build.cu", names={"V_t": word}),
               ("pb_count", "pb_scatter", "pb_heads", "pb_pair_list", "pb_pair_len",
                "pb_bank_order", "pb_pair_delta", "pb_move", "pb_group_runs", "pb_partials"))
    for ip, ix, group in ((np.int32, np.int32, 2), (np.int64, np.int32, 8),
                          (np.int64, np.int64, 32)):
        yield (f"pagerank fused {np.dtype(ip).name} {np.dtype(ix).name} g{group}",
               pagerank_loop.pagerank_fused_source(np.dtype(ip), np.dtype(ix), group,
                                                   max(32, 4 * group)),
               ("gb_pagerank_fused",))
        yield (f"power fused {np.dtype(ip).name} {np.dtype(ix).name} g{group}",
               power_fused.power_fused_source(np.dtype(ip), np.dtype(ix), group,
                                              max(32, 4 * group)),
               ("gb_eigen_fused", "gb_hits_fused", "gb_gram_fused"))
    for ip in (np.int32, np.int64):
        yield (f"row schedule {np.dtype(ip).name}", mxv.row_schedule_source(np.dtype(ip)),
               ("gb_row_schedule",))
    for ip, ix, group in ((np.int32, np.int32, 2), (np.int64, np.int64, 16)):
        yield (f"sssp fused {np.dtype(ip).name} {np.dtype(ix).name} g{group}",
               paths_fused.sssp_fused_source(np.dtype(ip), np.dtype(ix), group),
               ("gb_sssp_fused",))
    for dt in ("bool", "int8", "uint16", "int32", "uint64", "float32", "float64"):
        for op in ("sum", "min", "max"):
            yield (f"reductions {dt} {op}", reductions.reductions_source(dt, op),
                   ("gb_red_count", "gb_red_popcount", "gb_red_isum", "gb_red_partials",
                    "gb_red_bincount"))
    # the element-wise maps: every built-in operator's expression over the preamble
    for dt in ("float32", "int8", "uint64", "bool"):
        d = np.dtype(dt)
        ct = elementwise.ctype(d)
        body = []
        for _, op in sorted(builtin.UNARY.items()) + sorted(builtin.BINARY.items()):
            if op.float_only and d.kind != "f":
                continue
            args = "x = pa[i]" if isinstance(op, UnaryOp) else "a = pa[i], b = pb[i]"
            body.append(f"{{ {ct} {args}; o[{len(body)}] = "
                        f"({elementwise.ctype(op.output_dtype(d))})({op.cuda_expr()}); }}")
        yield (f"map-{dt}", elementwise.map_preamble() +
               f'extern "C" __global__ void gb_map_check(const {ct}* pa, const {ct}* pb, '
               "double* o) {\n  const int i = threadIdx.x;\n  " + "\n  ".join(body) + "\n}\n",
               ("gb_map_check",))


def compile_ptx(source: str, arch: str, nvcc: str) -> tuple[bool, str]:
    """Compile ``source`` to PTX: ``(ok, ptx or the compiler's messages)``."""
    with tempfile.TemporaryDirectory() as tmp:
        cu = os.path.join(tmp, "k.cu")
        ptx = os.path.join(tmp, "k.ptx")
        with open(cu, "w") as f:
            f.write(source)
        # NVRTC gets no host headers: neither does this compile (-nostdinc is not in
        # nvcc, but no source may include anything but its own resolved headers)
        run = subprocess.run([nvcc, "--ptx", f"-arch={arch}", "-std=c++17", "-o", ptx, cu],
                             capture_output=True, text=True)
        if run.returncode:
            return False, run.stderr + run.stdout
        with open(ptx) as f:
            return True, f.read()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--nvcc", default=shutil.which("nvcc") or "nvcc")
    ap.add_argument("--list", action="store_true", help="print the specializations")
    ap.add_argument("--no-compile", action="store_true", help="assemble the sources only")
    ap.add_argument("--ptx-dir", help="write each specialization's PTX here")
    ap.add_argument("--only", help="a regular expression the labels must match")
    args = ap.parse_args(argv)
    todo = [t for t in instantiations() if not args.only or re.search(args.only, t[0])]
    for label, src, _ in todo:
        if "#include" in src:
            print(f"{label}: an #include was left unresolved")
            return 1
    if args.list or args.no_compile:
        for label, src, kernels in todo:
            print(f"{label}: {len(src)} characters, kernels {', '.join(kernels)}")
        print(f"{len(todo)} sources assembled")
        return 0
    if args.ptx_dir:
        os.makedirs(args.ptx_dir, exist_ok=True)
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        jobs = {pool.submit(compile_ptx, src, args.arch, args.nvcc): (label, kernels)
                for label, src, kernels in todo}
        for fut in concurrent.futures.as_completed(jobs):
            label, kernels = jobs[fut]
            ok, out = fut.result()
            missing = [k for k in kernels if ok and not re.search(rf"\.entry {k}\(", out)]
            if not ok or missing:
                failed += 1
                print(f"FAIL {label}: " + (f"kernels missing: {missing}" if ok else out[:3000]))
            elif args.ptx_dir:
                with open(os.path.join(args.ptx_dir, label + ".ptx"), "w") as f:
                    f.write(out)
    print(f"{len(todo) - failed} of {len(todo)} sources compiled for {args.arch}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
