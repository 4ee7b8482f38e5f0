"""One light-panels product inside the CUDA profiler's range, for Nsight Compute.

Builds the pattern CSR of a Kronecker graph on the device and its light panels as the
planner does (:class:`~gblas.formats.light_panels.LightPanels` defaults), runs the
float64 ``plus_times`` product (PageRank's) a few times, then once between
``cudaProfilerStart`` and ``cudaProfilerStop``: the kernels of that one call
(``gb_lp_gather``, ``gb_lp_stream``, ``gb_lp_reduce``) are what ``ncu`` reports with
``--profile-from-start off``.  Run as::

    PYTHONPATH=. ncu --clock-control none --profile-from-start off --set full \\
        -o panels python3 benchmarks/profile_light_panels_gpu.py --scale 22
    ncu --import panels.ncu-rep --page details
"""

from __future__ import annotations

import argparse

import numpy as np


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=int, default=22)
    p.add_argument("--dtype", default="float64")
    p.add_argument("--panel-cols", type=int, default=None,
                   help="column panel width (default: LightPanels.from_csr's)")
    args = p.parse_args(argv)
    import cupy as cp

    from benchmarks.bench_gpu_mxv import build_graph
    from gblas.backends.gpu.light_panels import light_panels_pull
    from gblas.core.vector import VecData
    from gblas.formats.csr import CSR
    from gblas.formats.light_panels import LightPanels
    from gblas.semirings import semiring

    F, _, _ = build_graph(args.scale, 16, 1)
    n = F.shape[0]
    csr = CSR((n, n), F.indptr, F.indices, None, np.dtype(np.float64), 1.0, "gpu")
    L = LightPanels.from_csr(csr, panel_cols=args.panel_cols)
    print(f"Kronecker {args.scale}: {csr.nnz:,} entries, {L.npart:,} partials, "
          f"{L.nunits} units, {L.panel_cols} x {L.panel_rows} panels", flush=True)
    dt = np.dtype(args.dtype)
    x = VecData(n, None, cp.full(n, 1.0 / n, dtype=dt), None)
    sr = semiring("plus_times", "probe")
    types = sr.types(dt, dt)
    for _ in range(5):
        light_panels_pull(L, x, None, sr, types)
    cp.cuda.Device().synchronize()
    cp.cuda.runtime.profilerStart()
    light_panels_pull(L, x, None, sr, types)
    cp.cuda.Device().synchronize()
    cp.cuda.runtime.profilerStop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
