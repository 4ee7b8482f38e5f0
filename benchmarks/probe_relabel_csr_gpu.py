"""Whether a CSR pull on the GPU gains from columns renumbered by in-degree.

The light panels gain from renumbering the columns by in-degree (the hubs of a span share
a panel).  This probe asks the same of the plain CSR pull: the pattern CSR of a Kronecker
graph with its column ids replaced by their rank by decreasing in-degree, ``x`` gathered
into that order per call, against the CSR as generated (``gb.mxv``, CSR pinned, float64
``plus_times``, median of 20 synchronized calls after two warm-ups).

Usage (on a GPU machine)::

    PYTHONPATH=. python benchmarks/probe_relabel_csr_gpu.py --scales 20 22
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks.bench_gpu_shards import time_ms


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="*", default=[20, 22])
    args = p.parse_args(argv)
    import cupy as cp

    import gblas as gb
    from benchmarks.bench_gpu_mxv import build_graph
    from gblas.formats.csr import CSR

    for scale in args.scales:
        c32, _, _ = build_graph(scale, 16, 1)
        m, n = c32.shape
        csr = CSR((m, n), c32.indptr, c32.indices, None, np.dtype(np.float64), 1.0, "gpu")
        x = gb.Vector.from_dense(cp.random.random(n))
        deg = cp.bincount(csr.indices, minlength=n)
        order = cp.argsort(-deg.astype(cp.int64))          # new id -> original id
        rank = cp.empty(n, dtype=cp.int32)
        rank[order] = cp.arange(n, dtype=cp.int32)
        G = gb.Matrix(csr)
        R = gb.Matrix(CSR((m, n), csr.indptr, rank[csr.indices], None, np.dtype(np.float64),
                          1.0, "gpu"))
        xr = gb.Vector.from_dense(x.to_dense()[order])
        with gb.config(format="csr"):
            plain = time_ms(lambda G=G, x=x: gb.mxv(G, x, "plus_times"), 20)
            relabelled = time_ms(lambda R=R, xr=xr: gb.mxv(R, xr, "plus_times"), 20)
            want, got = gb.mxv(G, x, "plus_times"), gb.mxv(R, xr, "plus_times")
        gather = time_ms(lambda x=x, order=order: x.to_dense()[order], 20)
        diff = float(cp.abs(want.to_dense() - got.to_dense()).max())
        hubs = float(cp.sort(deg)[-max(n // 100, 1):].sum()) / csr.nnz
        print(f"Kronecker {scale} ({csr.nnz:,} entries, the busiest 1% of columns hold "
              f"{100 * hubs:.0f}% of them): csr {plain:.3f} ms, relabelled {relabelled:.3f} ms "
              f"+ gather {gather:.3f} ms (max difference {diff:.1e})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
