"""The light panels' counting-sort scatter alone, by tile size.

The scatter (:func:`gblas.backends.gpu.panel_build.scatter`: the count pass, the
scatter pass and the pass marking the pairs) is the largest part of the GPU build.
Each warp walks its share of a tile in order, so the tile size sets the length of those
walks against the size of the (panel, tile) table.  This probe times the scatter of a
Kronecker pattern's entries, with the columns relabelled by in-degree (the planner's
layout) and not, in tiles of several sizes (synchronized calls, the best of three after a
warm-up), and records each pass's kernel time with PyTorch's profiler where it is there.

Usage (on a GPU machine)::

    PYTHONPATH=. python benchmarks/probe_panel_scatter_gpu.py --scales 22 24 --out s.json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="*", default=[22, 24])
    p.add_argument("--tiles", type=int, nargs="*", default=[8192, 32768, 131072, 262144])
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    import cupy as cp

    from benchmarks.bench_gpu_mxv import build_graph
    from benchmarks.probe_pagerank_timeline_gpu import _timeline
    from gblas.backends.gpu import panel_build as pb
    from gblas.formats.csr import CSR
    from gblas.formats.light_panels import default_panel_cols, span_degree_order

    sync = cp.cuda.Device().synchronize
    out = {}
    for scale in args.scales:
        c32, _, _ = build_graph(scale, 16, 1)
        m, n = c32.shape
        csr = CSR((m, n), c32.indptr, c32.indices, None, np.dtype(np.float64), 1.0, "gpu")
        W = default_panel_cols(csr)
        col_order, rank = span_degree_order(cp, csr.indices, n, 1 << 19, W)
        rows = csr.row_indices(np.int32)
        ind = cp.ascontiguousarray(csr.indices, dtype=np.int32)
        ranks = {"relabelled": (rank.astype(np.int32), -(-int(col_order.size) // W)),
                 "plain": (None, -(-n // W))}
        res = {}
        chosen = pb._tile
        try:
            for T in args.tiles:
                pb._tile = lambda nnz, npn, T=T: T
                for name, (rk, npn) in ranks.items():
                    def call(rk=rk, npn=npn, ind=ind, rows=rows, W=W):
                        return pb.scatter(ind, rows, None, rk, W, npn, 256, False)

                    call()
                    times = []
                    for _ in range(3):
                        sync()
                        t0 = time.perf_counter()
                        call()
                        sync()
                        times.append((time.perf_counter() - t0) * 1e3)
                    tl = _timeline(call, sync)
                    passes = None if tl is None or "sequence" not in tl else \
                        [x for x in tl["sequence"] if x[0].startswith("pb_")]
                    res[f"tile {T} {name}"] = {"ms": round(min(times), 2), "passes_us": passes}
                    print(scale, T, name, round(min(times), 2), passes, flush=True)
        finally:
            pb._tile = chosen
        out[scale] = {"nnz": int(csr.nnz), "panel_cols": W, "runs": res,
                      "chosen_tiles": {k: chosen(int(ind.size), v[1]) for k, v in ranks.items()}}
        del csr, c32, rows, ind, rank, ranks
    if args.out:
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
