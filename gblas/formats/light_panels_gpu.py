"""The GPU build of :class:`~gblas.formats.light_panels.LightPanels`: the same layout as
the array-at-a-time build, array for array, in a few passes of dedicated kernels
(:mod:`gblas.backends.gpu.panel_build`) instead of sorts.

The array-at-a-time build sorts the entries by panel, then gathers their rows, columns
and values into that order and finds the pairs, the bank interleave (two sorts of the
pairs) and the partials in some thirty passes of library calls.  Here a counting sort
writes every entry into its slot once; the rest reads and writes the slots a few times
more (figures: ``benchmarks/results/light_panel_build_gpu.md``).
"""

from __future__ import annotations

import numpy as np

from .csr import CSR, known_column_counts
from .light_panels import (
    chunk_table,
    relabel_pays,
    span_degree_order,
    unit_table,
)

__all__ = ["build_on_gpu"]


def build_on_gpu(csr: CSR, W: int, RR: int, U: int, G: int, *, bank_order: bool,
                 relabel: bool | None, span: int, chunk_partials: int) -> dict | None:
    """The fields of the light panels of ``csr`` (on the GPU, 32-bit entry counts), or
    None where the kernels do not take it (too many panels for a block's counters, a
    value type of another size): the caller's build then runs."""
    import cupy as cp

    from ..backends.gpu import panel_build as pb

    m, n = (int(s) for s in csr.shape)
    nnz = csr.nnz
    nq = -(-m // RR) if m else 0
    itemsize = None if csr.values is None else int(csr.values.dtype.itemsize)
    npn = -(-n // W) if n else 0
    if not pb.supported(nnz, npn, G, itemsize):
        return None
    rows = csr.row_indices(np.int32)
    ind = cp.ascontiguousarray(csr.indices, dtype=np.int32)
    sl = col_order = None
    if relabel is not False and npn > 1:
        col_order, rank = span_degree_order(cp, csr.indices, n, span, W,
                                             known_column_counts(csr))
        npr = -(-int(col_order.size) // W)
        if not pb.supported(nnz, npr, G, itemsize):
            return None
        sl = pb.scatter(ind, rows, csr.values, rank.astype(np.int32), W, npr, G, bank_order)
        del rank
        if relabel is None and not relabel_pays(sl.plain_pairs - sl.npair,
                                                int(col_order.size)):
            sl = col_order = None       # not worth the gather: keep the column ids
        else:
            npn = npr
    if sl is None:
        sl = pb.scatter(ind, rows, csr.values, None, W, npn, G, bank_order)
    del rows, ind
    if bank_order:
        sl = pb.interleave_banks(sl, nnz, W, RR, nq)
    gbase, prow, pkey, npart = pb.partials(sl, W, RR, nq, G)
    chunks, cptr = chunk_table(cp, pkey, npart, nq, npn, chunk_partials)
    del pkey
    if col_order is not None:
        col_order = col_order.astype(np.int32)
    val = None if sl.sval is None else sl.sval.view(csr.values.dtype)
    return {"shape": (m, n), "dtype": np.dtype(csr.dtype), "iso_value": csr.iso_value,
            "ent": sl.ent, "val": val, "units": unit_table(sl.pc, sl.p0, npn, U, csr.device),
            "gbase": gbase, "prow": prow, "cptr": cptr, "chunks": chunks,
            "row_hit": cp.diff(csr.indptr) > 0, "nnz": nnz, "npart": npart,
            "panel_cols": W, "panel_rows": RR, "unit_entries": U, "device": csr.device,
            "col_order": col_order, "relabel_span": span if col_order is not None else 0,
            "chunk_partials": chunk_partials, "group": G}
