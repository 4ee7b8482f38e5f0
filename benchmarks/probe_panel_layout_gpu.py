"""The light panels' layout parameters against the products they serve (GPU).

For each Kronecker scale (pattern CSR built on the device, as in
:mod:`benchmarks.bench_gpu_mxv`) and each layout (column panel width, row panel height,
most entries per unit, phase 1's threads and group), builds
:class:`~gblas.formats.light_panels.LightPanels` and times the ``plus_times`` pull
product ``y = A x`` for float64 (PageRank's) and optionally float32 ``x``: CUDA events
around 30 back-to-back calls after 3 warm-ups (the device's throughput, as a loop of
products sees it).  Each product is checked against the CSR pull kernel's.

Usage (on a GPU machine)::

    PYTHONPATH=. python3 benchmarks/probe_panel_layout_gpu.py --scales 20 22 24 \\
        --dtypes float64 float32 --out layouts.json
"""

from __future__ import annotations

import argparse
import functools
import json
import time

import numpy as np

#: (panel_cols, panel_rows, unit_entries, phase 1 threads or None, group or None)
LAYOUTS = [(16384, 32768, 1 << 18, None, None), (16384, 16384, 1 << 18, None, None),
           (16384, 16384, 1 << 17, None, None), (16384, 16384, 1 << 16, None, None),
           (8192, 16384, 1 << 18, None, None), (8192, 16384, 1 << 17, None, None),
           (8192, 8192, 1 << 17, None, None), (4096, 16384, 1 << 17, None, None),
           (8192, 16384, 1 << 17, 512, 128), (12288, 16384, 1 << 18, None, None)]


def device_ms(fn, reps: int = 30) -> float:
    """Milliseconds per call of ``fn`` over ``reps`` calls queued back to back."""
    import cupy as cp

    for _ in range(3):
        fn()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    cp.cuda.Device().synchronize()
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    end.synchronize()
    return cp.cuda.get_elapsed_time(start, end) / reps


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="+", default=[22, 24])
    p.add_argument("--dtypes", nargs="+", default=["float64"])
    p.add_argument("--default-only", action="store_true",
                   help="only the layout LightPanels.from_csr builds by default")
    p.add_argument("--cols", type=int, nargs="+", default=None,
                   help="only these column panel widths (16384-row panels, units of 2^18)")
    p.add_argument("--label", default="", help="printed before each line")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    import cupy as cp

    from benchmarks.bench_gpu_mxv import build_graph
    from gblas.backends.gpu.light_panels import light_panels_pull
    from gblas.backends.gpu.mxv import mxv_pull
    from gblas.core.vector import VecData
    from gblas.formats.csr import CSR
    from gblas.formats.light_panels import LightPanels
    from gblas.semirings import semiring

    sr = semiring("plus_times", "probe")
    rows = []
    for scale in args.scales:
        F, _, _ = build_graph(scale, 16, 1)
        n = F.shape[0]
        csr = CSR((n, n), F.indptr, F.indices, None, np.dtype(np.float64), 1.0, "gpu")
        del F
        xs = {d: cp.random.RandomState(3).random_sample(n).astype(d) for d in args.dtypes}
        ref = {}
        for d, xv in xs.items():
            types = sr.types(xv.dtype, xv.dtype)
            x = VecData(n, None, xv, None)
            ref[d] = mxv_pull(csr, x, None, sr, types).values
            ms = device_ms(functools.partial(mxv_pull, csr, x, None, sr, types))
            rows.append(dict(scale=scale, layout="csr pull", dtype=d, ms=round(ms, 4)))
            print(args.label, rows[-1], flush=True)
        layouts = [(None,) * 5] if args.default_only else LAYOUTS if args.cols is None \
            else [(c, 16384, 1 << 18, None, None) for c in args.cols]
        for cols, prow, unit, threads, group in layouts:
            t0 = time.perf_counter()
            L = LightPanels.from_csr(csr, panel_cols=cols, panel_rows=prow, unit_entries=unit,
                                     group=group)
            cp.cuda.Device().synchronize()
            build = (time.perf_counter() - t0) * 1e3
            for d, xv in xs.items():
                types = sr.types(xv.dtype, xv.dtype)
                x = VecData(n, None, xv, None)
                y = light_panels_pull(L, x, None, sr, types, threads=threads).values
                err = float(cp.max(cp.abs(y - ref[d]) / cp.maximum(cp.abs(ref[d]), 1e-30)))
                ms = device_ms(functools.partial(light_panels_pull, L, x, None, sr, types,
                                                 threads=threads))
                rows.append(dict(scale=scale, layout=f"{L.panel_cols} x {L.panel_rows}, units of "
                                 f"{L.unit_entries}" + (f", {threads} threads, groups of "
                                                        f"{group}" if threads else ""),
                                 dtype=d, ms=round(ms, 4), units=int(L.nunits),
                                 partials_per_entry=round(L.npart / max(L.nnz, 1), 4),
                                 build_ms=round(build, 1), max_rel_err=err))
                print(args.label, rows[-1], flush=True)
            del L
            cp.get_default_memory_pool().free_all_blocks()
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
