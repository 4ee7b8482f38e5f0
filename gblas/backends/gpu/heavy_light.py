"""GPU pull SpMV over heavy/light tiles (:mod:`gblas.formats.gpu_heavy_light`, MultiGraphD).

A call runs three kernels:

1. **light** -- the light column panels (:mod:`.light_panels`, the paper's stream
   buffer; the default when the format holds them) or the CSR pull kernels of
   :mod:`.mxv` over the light entries write ``y`` and its presence flags (rows the mask
   disallows get none);
2. **heavy** (``gb_hl_heavy``) -- one thread block per unit of a heavy tile.  The block
   copies its column panel's slice of ``x`` (and presence flags) into shared memory
   (``stage_x=False`` gathers it from global memory instead), then every thread folds its
   consecutive entries (stored transposed, so that the loads of a warp are coalesced) in
   registers, row by row, :data:`BATCH` entries at a time (all their loads first, then
   their ``x`` gathers, then the folds).  A row whose entries lie within one thread is
   written at once; the first and
   last rows of every thread may continue into the neighbours, and are combined by a
   segmented inclusive scan (warp shuffles, then a carry across the warps), so that each
   row of the unit is written exactly once, with its presence flag, into the unit's slice
   of the partial buffer.  No atomics: any monoid works, user-defined ones included;
3. **merge** (``gb_hl_merge``) -- one thread per row of every row panel that has heavy
   units: the light result, then the partials of the panel's units in column-panel order,
   folded as ``(present, value)`` pairs (no identity needed), written back to ``y``.

Differences from the paper: the light panels write one stream-buffer entry per run of
a row within 128 entries (not per edge), and the accumulation of a heavy tile's partials
uses a segmented scan instead of shared-memory atomics.

A row mask (``allow``) is applied in all three kernels: disallowed rows fold no product.

Timings of the phases and of the variants tried: ``benchmarks/results/history_gpu.md``.
"""

from __future__ import annotations

import functools
from typing import Any

import cupy as cp
import numpy as np

from ..registry import PageRankStep, VecData, register
from . import codegen
from .launch import allow_dynamic_smem, bool_or_none, dense_x, max_block_smem, or_dummy
from .light_panels import light_panels_pull
from .mxv import mxv_pull

__all__ = ["heavy_partials", "heavy_source", "merge_heavy", "merge_source",
           "mxv_pull_heavy_light"]

#: Threads per merge block.
MERGE_THREADS = 256


#: Entries a thread loads before folding them (memory-level parallelism).
BATCH = 4


@functools.lru_cache(maxsize=512)
def heavy_source(semiring: Any, types: tuple, *, av: Any, xv: Any, iso: bool, xpres: bool,
                 allow: bool, tile_rows: int, tile_cols: int, threads: int,
                 stage: bool = True, batch: int = BATCH) -> str:
    """CUDA source of ``gb_hl_heavy`` for one specialization.

    Parameters
    ----------
    semiring : Semiring
        The semiring (its ``cuda_expr()`` snippets are inlined).
    types : tuple of numpy.dtype
        ``(T, M, R)`` of :meth:`Semiring.types`.
    av, xv : numpy.dtype
        dtypes of the heavy values and of ``x``.
    iso, xpres, allow : bool
        Iso values (``hval[0]``); ``x`` has presence flags; a row mask is given.
    tile_rows, tile_cols, threads : int
        The format's tile sizes and threads per unit.
    stage : bool
        Copy the column panel's slice of ``x`` into shared memory (else gather it from
        global memory).
    batch : int
        Entries a thread loads before folding them.

    Returns
    -------
    str
    """
    return codegen.source(
        "hl_heavy.cu", semiring=semiring, types=types, names=dict(av_t=av, xv_t=xv),
        flags=dict(GB_ISO=iso, GB_XPRES=xpres, GB_ALLOW=allow, GB_TR=int(tile_rows),
                   GB_TC=int(tile_cols), GB_NT=int(threads), GB_STAGE=bool(stage),
                   GB_BATCH=int(batch)))


@functools.lru_cache(maxsize=512)
def merge_source(semiring: Any, types: tuple, *, allow: bool, tile_rows: int) -> str:
    """CUDA source of ``gb_hl_merge`` (phase 2) for one semiring and result type.

    Parameters
    ----------
    semiring : Semiring
        Its ``add`` monoid folds the partial results.
    types : tuple of numpy.dtype
        ``(T, M, R)``; the partial results and ``y`` have dtype ``R``.
    allow : bool
        A row mask is given.
    tile_rows : int
        Rows per row panel.

    Returns
    -------
    str
    """
    return codegen.source("hl_merge.cu", semiring=semiring, types=types,
                          flags=dict(GB_ALLOW=allow, GB_TR=int(tile_rows)))


def _heavy_x(H: Any, x: VecData) -> tuple[Any, Any]:
    """``x`` (values, flags or None) at the heavy panels' columns, in relabelled order."""
    xpres = bool_or_none(x.present)
    if H.col_perm is None:
        return x.values, xpres
    idx = H.col_perm[:H.n_heavy_cols]
    return x.values[idx], None if xpres is None else xpres[idx]


def heavy_partials(H: Any, x: VecData, allow: Any, semiring: Any, types: tuple, *,
                   stage_x: bool = True) -> tuple[Any, Any]:
    """Phase 1 of the heavy tiles: every unit's partial results.

    Parameters
    ----------
    H : GPUHeavyLight
        The matrix, on the GPU.
    x : VecData
        Dense vector of length ``H.shape[1]``.
    allow : cupy.ndarray of bool or None
        Rows to compute.
    semiring, types
        As for :func:`mxv_pull_heavy_light` (``types`` as numpy dtypes).
    stage_x : bool, default True
        Stage each unit's slice of ``x`` in shared memory (else gather from global memory).

    Returns
    -------
    (cupy.ndarray, cupy.ndarray)
        Partial values (dtype R) and presence flags, ``H.total_span`` each; unit ``u``'s
        row offset ``lo + i`` is at ``H.u_off[u] + i``.

    Raises
    ------
    ValueError
        When the ``x`` slice does not fit the shared memory of a thread block.
    """
    r = np.dtype(types[2])
    part = cp.empty(H.total_span, dtype=r)
    ppres = cp.empty(H.total_span, dtype=np.bool_)
    if H.nunits == 0:
        return part, ppres
    X, XP = _heavy_x(H, x)
    hval = H.hval if H.hval is not None else cp.full(1, H.iso_value, dtype=H.dtype)
    NT, TC = H.block_threads, H.tile_cols
    dyn = TC * (X.dtype.itemsize + (XP is not None)) if stage_x else 0
    static = NT * (4 + 4 + r.itemsize + 1) + (NT // 32) * 2 * (r.itemsize + 2)
    if dyn + static > max_block_smem():
        raise ValueError(
            f"mxv gpu_heavy_light: a column panel of {TC} values of {X.dtype.name} "
            f"({dyn + static} bytes of shared memory with the scan) does not fit a thread "
            f"block ({max_block_smem()} bytes); build the format with a smaller "
            "tile_cols")
    src = heavy_source(semiring, codegen.dtypes(types), av=hval.dtype,
                       xv=X.dtype, iso=H.hval is None, xpres=XP is not None,
                       allow=allow is not None, tile_rows=H.tile_rows, tile_cols=TC,
                       threads=NT, stage=bool(stage_x))
    fn = codegen.get_function(src, "gb_hl_heavy")
    if dyn + static > 48 << 10:  # over 48 KiB in all, the dynamic part must opt in
        allow_dynamic_smem(fn, max(dyn, (48 << 10) + 1))
    fn((H.nunits,), (NT,),
       (H.units, H.u_off, H.hrow, H.hcol, hval, X, or_dummy(XP), np.int64(X.size),
        or_dummy(allow), part, ppres), shared_mem=dyn)
    return part, ppres


def merge_heavy(H: Any, part: Any, ppres: Any, y: Any, ypres: Any, allow: Any,
                semiring: Any, types: tuple) -> None:
    """Phase 2: fold the units' partials into ``y`` / ``ypres`` (in place), row by row.

    Parameters
    ----------
    H : GPUHeavyLight
        The matrix, on the GPU.
    part, ppres : cupy.ndarray
        From :func:`heavy_partials`.
    y, ypres : cupy.ndarray
        The light result (dtype R and bool, length ``H.shape[0]``), updated in place.
    allow : cupy.ndarray of bool or None
        Rows to compute (the others are left as they are).
    semiring, types
        As for :func:`mxv_pull_heavy_light`.
    """
    nhrp = int(H.hrp.size)
    if nhrp == 0:
        return
    src = merge_source(semiring, codegen.dtypes(types), allow=allow is not None,
                       tile_rows=H.tile_rows)
    bpr = -(-H.tile_rows // MERGE_THREADS)
    codegen.get_function(src, "gb_hl_merge")(
        (nhrp * bpr,), (MERGE_THREADS,),
        (H.hrp, H.rp_uptr, H.rp_units, H.units, H.u_off, part, ppres, or_dummy(allow),
         np.int64(nhrp), np.int64(bpr), np.int64(H.shape[0]), y, ypres))


@register("mxv", "gpu_heavy_light", "gpu", "pull", epilogues=("pagerank_step",))
def mxv_pull_heavy_light(H: Any, x: VecData, allow: Any, semiring: Any, types: tuple, *,
                         stage_x: bool = True, light: str | None = None,
                         x_layout: bool = False, then: PageRankStep | None = None,
                         **knobs: Any) -> VecData | None:
    """Masked pull SpMV ``y[i] = add_k mul(A[i, k], x[k])`` over a :class:`GPUHeavyLight`.

    Parameters
    ----------
    H : GPUHeavyLight
        The matrix, on the GPU.
    x : VecData
        Dense vector of length ``H.shape[1]`` (a sparse one is densified), or with
        ``x_layout`` in the order of :meth:`GPUHeavyLight.operand_layout`.
    allow : cupy.ndarray of bool or None
        Rows where it is False get no entry (and fold no product).
    semiring : Semiring
        Any semiring, user-defined ones included.
    types : tuple of numpy.dtype
        ``(T, M, R)`` of :meth:`Semiring.types`.
    stage_x : bool, default True
        Stage each unit's slice of ``x`` in shared memory (MultiGraph's way), or gather
        ``x`` from global memory through the L1 (no shared memory: more blocks per SM).
    light : {"panels", "csr"}, optional
        Kernels of the light entries: the column panels (:mod:`.light_panels`; the
        default when the format holds them) or the CSR pull kernels.
    x_layout : bool, default False
        ``x`` is dense in the format's :class:`~gblas.formats.base.OperandLayout`
        (its ``size`` values, zeros where no column goes): the light panels read it
        as it is, without their gather.
    then : PageRankStep, optional
        PageRank's vector step, run by the light panels' fold on ``y`` instead of
        returning it (:func:`.light_panels.light_panels_pull`), where the light panels
        hold every entry (no heavy tile).
    **knobs
        Passed to the light kernels: ``threads`` for the panels, the
        :func:`.mxv.pull_schedule` knobs for the CSR.

    Returns
    -------
    VecData or None
        Dense, dtype R, with ``present`` flags; None with ``then``.
    """
    m, n = H.shape
    if then is not None and (H.nunits or H.light_panels is None or light == "csr"):
        raise ValueError("mxv gpu_heavy_light: then= needs the light panels to hold every "
                         "entry (no heavy tile); run the product, then the step")
    if then is not None and not x_layout:
        return light_panels_pull(H.light_panels, dense_x(x, n), bool_or_none(allow),
                                 semiring, types, then=then, **knobs)
    if x_layout:
        lay = H.operand_layout()
        if lay is None or not x.is_dense or x.values.size != lay.size:
            raise ValueError("mxv gpu_heavy_light: x_layout needs a format with an operand "
                             "layout and x dense in it")
        return light_panels_pull(H.light_panels, x, bool_or_none(allow), semiring, types,
                                 x_layout=True, then=then, **knobs)
    x = dense_x(x, n)
    types = codegen.dtypes(types)
    r = types[2]
    if m == 0:
        return VecData(0, None, cp.empty(0, dtype=r), cp.empty(0, dtype=np.bool_))
    allow = bool_or_none(allow)
    part = ppres = None
    if H.nunits:
        part, ppres = heavy_partials(H, x, allow, semiring, types, stage_x=stage_x)
    if light not in (None, "panels", "csr"):
        raise ValueError(f"mxv gpu_heavy_light: light must be 'panels' or 'csr', got {light!r}")
    if light == "panels" and H.light_panels is None and H.light.nnz:
        raise ValueError("mxv gpu_heavy_light: light='panels' needs a format built with "
                         "light='panels'")
    if H.light.nnz:
        if H.light_panels is not None and light != "csr":
            yl = light_panels_pull(H.light_panels, x, allow, semiring, types, **knobs)
        else:
            yl = mxv_pull(H.light, x, allow, semiring, types, **knobs)
        y, ypres = yl.values, yl.present
    else:
        y = cp.zeros(m, dtype=r)
        ypres = cp.zeros(m, dtype=np.bool_)
    if H.nunits:
        merge_heavy(H, part, ppres, y, ypres, allow, semiring, types)
    return VecData(m, None, y, ypres)
