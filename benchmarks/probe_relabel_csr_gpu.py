"""Whether a CSR pull on the GPU gains from columns renumbered by in-degree.

The light panels gain from renumbering the columns by in-degree (the hubs of a span share
a panel).  This probe asks the same of the plain CSR pull: the pattern CSR of a Kronecker
graph with its column ids replaced by their rank by decreasing in-degree, ``x`` gathered
into that order per call, against the CSR as generated (``gb.mxv`` pinned to each format,
float64 ``plus_times``, median of 20 synchronized calls after two warm-ups).
``gpu_relabelled`` is that format: its call includes the gather.  The build is timed on
the CSR (the in-degrees counted) and on a transpose (the in-degrees recorded by it, as
for PageRank's ``A'``); the product alone, without the gather, and the gather alone as
whole synchronized calls.

Usage (on a GPU machine)::

    PYTHONPATH=. python benchmarks/probe_relabel_csr_gpu.py --scales 20 22 24
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks.bench_gpu_shards import time_ms


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="*", default=[20, 22, 24])
    args = p.parse_args(argv)
    import cupy as cp

    import gblas as gb
    from benchmarks.bench_gpu_mxv import build_graph
    from gblas.formats.csr import CSR
    from gblas.formats.gpu_relabelled import GPURelabelled, hub_share

    print("| scale | entries | busiest 1% of columns hold | csr ms | gpu_relabelled ms "
          "(with the gather) | product alone | gather alone | build, counted | "
          "build, from a transpose | max difference |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for scale in args.scales:
        c32, _, _ = build_graph(scale, 16, 1)
        m, n = c32.shape
        csr = CSR((m, n), c32.indptr, c32.indices, None, np.dtype(np.float64), 1.0, "gpu")
        del c32
        x = gb.Vector.from_dense(cp.random.random(n))
        counted = time_ms(lambda csr=csr: GPURelabelled.from_csr(csr), 5)
        T = csr.transpose()      # records its column counts
        from_t = time_ms(lambda T=T: GPURelabelled.from_csr(T), 5)
        del T
        R = GPURelabelled.from_csr(csr)
        G = gb.Matrix(csr)
        G.get_format("gpu_relabelled")
        with gb.config(format="csr"):
            plain = time_ms(lambda G=G, x=x: gb.mxv(G, x, "plus_times"), 20)
            want = gb.mxv(G, x, "plus_times")
        with gb.config(format="gpu_relabelled"):
            relabelled = time_ms(lambda G=G, x=x: gb.mxv(G, x, "plus_times"), 20)
            got = gb.mxv(G, x, "plus_times")
        inner = gb.Matrix(R.inner)
        xr = gb.Vector.from_dense(x.to_dense()[R.col_order])
        with gb.config(format="csr"):
            alone = time_ms(lambda inner=inner, xr=xr: gb.mxv(inner, xr, "plus_times"), 20)
        gather = time_ms(lambda x=x, o=R.col_order: x.to_dense()[o], 20)
        diff = float(cp.abs(want.to_dense() - got.to_dense()).max())
        hubs = hub_share(cp.bincount(csr.indices, minlength=n))
        print(f"| {scale} | {csr.nnz:,} | {100 * hubs:.0f}% | {plain:.3f} | {relabelled:.3f} | "
              f"{alone:.3f} | {gather:.3f} | {counted:.2f} | {from_t:.2f} | {diff:.1e} |",
              flush=True)
        del G, inner, R, csr, want, got, xr
        cp.get_default_memory_pool().free_all_blocks()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
