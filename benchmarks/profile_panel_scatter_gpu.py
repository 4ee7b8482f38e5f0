"""One scatter of the light panels' GPU build inside the CUDA profiler's range, for Nsight
Compute.

Builds the pattern CSR of a Kronecker graph on the device, the relabelling of its columns
as the planner's build does, and runs :func:`gblas.backends.gpu.panel_build.scatter`
(the count pass, the scatter pass, the pass marking the pairs) a few times, then once
between ``cudaProfilerStart`` and ``cudaProfilerStop``.  Run as::

    PYTHONPATH=. ncu --clock-control none --profile-from-start off --set full \\
        -o scatter python3 benchmarks/profile_panel_scatter_gpu.py --scale 24
    ncu --import scatter.ncu-rep --page details
"""

from __future__ import annotations

import argparse

import numpy as np


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=int, default=24)
    p.add_argument("--plain", action="store_true", help="the columns' own ids")
    args = p.parse_args(argv)
    import cupy as cp

    from benchmarks.bench_gpu_mxv import build_graph
    from gblas.backends.gpu import panel_build as pb
    from gblas.formats.csr import CSR
    from gblas.formats.light_panels import default_panel_cols, span_degree_order

    F, _, _ = build_graph(args.scale, 16, 1)
    n = F.shape[0]
    csr = CSR((n, n), F.indptr, F.indices, None, np.dtype(np.float64), 1.0, "gpu")
    W = default_panel_cols(csr)
    rows = csr.row_indices(np.int32)
    ind = cp.ascontiguousarray(csr.indices, dtype=np.int32)
    if args.plain:
        rank, npn = None, -(-n // W)
    else:
        col_order, rank = span_degree_order(cp, csr.indices, n, 1 << 19, W)
        rank, npn = rank.astype(np.int32), -(-int(col_order.size) // W)
    print(f"Kronecker {args.scale}: {csr.nnz:,} entries, {npn} panels of {W} columns, "
          f"tiles of {pb._tile(int(ind.size), npn)}", flush=True)
    for _ in range(3):
        pb.scatter(ind, rows, None, rank, W, npn, 256, False)
    cp.cuda.Device().synchronize()
    cp.cuda.runtime.profilerStart()
    pb.scatter(ind, rows, None, rank, W, npn, 256, False)
    cp.cuda.Device().synchronize()
    cp.cuda.runtime.profilerStop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
