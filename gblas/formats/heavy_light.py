"""Heavy/light 2D tiles (MultiGraph's dense-frontier layout, adapted to CPU threads).

MultiGraph (section 4, "MultiGraphD") cuts the edge matrix into 2D blocks: **column
panels** (a range of sources, whose slice of ``x`` is brought on chip once) by **row
panels** (a range of destinations).  A tile with many edges is *heavy* and processed on
its own, accumulating locally; the *light* tiles of a column panel are processed
together; every tile writes one partial per destination into a pre-allocated **stream
buffer** at a fixed place, and a second phase reduces the buffer per row panel.

On the CPU a tile is a task of a thread: heavy tiles (and the light group of each column
panel) are CSRs over only their rows with entries (local rows, with a local-to-global row
map); a local row folds its products in a register (local accumulation) and writes one
partial.  All tasks run concurrently, split between the threads by cost in column-panel
order, so each thread keeps its current column panel's ``x`` slice in its own L2.  The
reduction per row panel is the cache-aware merge of :mod:`.segmented` (the merge blocks
are the row panels), and the kernels are shared with it
(:mod:`gblas.backends.cpu.segmented`).  Splitting rows by column panel makes a hub row
the work of several threads, which keeps them balanced on skewed degrees.

Sizes come from the machine (:mod:`gblas.hardware`): a column panel's ``x``
slice takes half the L2 (at 4 bytes per value); a row panel's partial sums take
``L2 / 16`` rows; a tile is heavy when it has at least as many edges as its ``x`` slice
has cache lines (every line brought in is used more than once on average, as MultiGraph's
18K-edge threshold keeps a GPU block busy).  ``reorder="auto"`` applies frequency-based
clustering as :mod:`.segmented` does, which packs the hot columns into the first (heavy)
panels.

Examples
--------
>>> import numpy as np
>>> from gblas.formats import CSR
>>> A = CSR.from_coo(np.array([0, 0, 0, 1, 2, 3]), np.array([0, 1, 3, 1, 2, 3]), None,
...                  (4, 4), iso_value=True)
>>> H = HeavyLight.from_csr(A, tile_rows=2, tile_cols=2, heavy_threshold=3, reorder=None)
>>> H.tile_nnz.tolist()               # (column panel, row panel)
[[3, 0], [1, 2]]
>>> H.group_heavy.tolist(), H.group_panel.tolist()
([True, False], [0, 1])
>>> H.check_invariants()
>>> H.to_csr().indices.tolist()
[0, 1, 3, 1, 2, 3]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .base import register_format
from .common import grouped_kernels, machine, on_cpu, pow2_floor
from .costing import NS_EDGE_L2
from .csr import CSR
from .reorder import resolve
from .segmented import GroupedRows

__all__ = ["HeavyLight", "default_tile_sizes"]

#: Bytes per vertex value assumed when sizing the column panels.
TILE_VALUE_BYTES = 4


def default_tile_sizes(hw) -> tuple[int, int, int]:
    """``(tile_rows, tile_cols, heavy_threshold)`` for a machine.

    Examples
    --------
    >>> from gblas.hardware import Hardware
    >>> default_tile_sizes(Hardware(48 << 10, 1 << 20, 32 << 20, 64, 2, "sysfs"))
    (65536, 131072, 8192)
    """
    tile_cols = pow2_floor(max(1, hw.l2 // (2 * TILE_VALUE_BYTES)))
    tile_rows = pow2_floor(max(1, hw.l2 // 16))
    threshold = max(1, tile_cols * TILE_VALUE_BYTES // hw.line)
    return tile_rows, tile_cols, threshold


@register_format
@dataclass(eq=False)
class HeavyLight(GroupedRows):
    """MultiGraph's heavy/light tiles (see the module documentation).

    Groups are ordered by column panel; in a panel, its heavy tiles (by row panel), then
    its light group.  ``group_panel`` is each group's column panel, ``group_heavy`` whether
    it is a heavy tile, ``tile_nnz`` the entries of every tile.

    Parameters of :meth:`from_csr`
    ------------------------------
    tile_rows, tile_cols, heavy_threshold : int, optional
        Defaults from the machine (:func:`default_tile_sizes`).
    reorder : {"auto", "frequency", "degree", None}
        Column ordering before tiling.
    threads : int, optional
        Threads the tasks are split for (default: the machine's).

    Examples
    --------
    >>> import numpy as np
    >>> from gblas.formats import CSR
    >>> A = CSR.from_coo(np.array([0, 1]), np.array([1, 0]), None, (2, 2), iso_value=True)
    >>> HeavyLight.from_csr(A, tile_rows=1, tile_cols=1, heavy_threshold=1).ngroups
    2
    """

    name: ClassVar[str] = "heavy_light"
    pull_rank: ClassVar[int | None] = 3
    #: a relabelled copy, then the grouping into tiles; per entry and thread, measured
    #: 13-17 ns (pattern) and from 31 ns (float64 values) at Kronecker 21-22, 2 threads
    build_ns_entry: ClassVar[float] = 30.0
    build_overhead_s: ClassVar[float] = 3e-3

    @classmethod
    def build_params(cls, hw) -> dict:
        return {"tile_cols": default_tile_sizes(hw)[1]}

    @classmethod
    def pull_estimate(cls, ctx):
        """MultiGraph: column panels whose slice of x stays in the L2, tasks balanced
        across threads, local rows merged after."""
        n = ctx.csr.shape[1]
        cols = ctx.sizes.get("tile_cols") or cls.build_params(ctx.hw)["tile_cols"]
        k = max(1, -(-n // max(1, cols)))
        return ctx.grouped_estimate(cls.name, k, NS_EDGE_L2, ctx.build_seconds(
            cls.build_ns_entry, cls.build_overhead_s), "column panels", balanced=True)

    tile_rows: int = 1
    tile_cols: int = 1
    heavy_threshold: int = 1
    group_panel: Any = None
    group_heavy: Any = None
    tile_nnz: Any = None
    reorder: str | None = None

    @classmethod
    def from_csr(cls, csr: CSR, *, tile_rows: int | None = None, tile_cols: int | None = None,
                 heavy_threshold: int | None = None, reorder: str | None = "auto",
                 threads: int | None = None) -> HeavyLight:
        """Build from a CSR (on any device; built on the CPU, returned on its device)."""
        device = csr.device
        csr = on_cpu(csr)
        hw = machine()
        d_rows, d_cols, d_thr = default_tile_sizes(hw)
        TR = int(tile_rows) if tile_rows is not None else d_rows
        TC = int(tile_cols) if tile_cols is not None else d_cols
        thr = int(heavy_threshold) if heavy_threshold is not None else d_thr
        if min(TR, TC, thr) < 1:
            raise ValueError("tile_rows, tile_cols and heavy_threshold must be >= 1")
        P = int(threads) if threads is not None else hw.threads
        src_dtypes = (csr.indptr.dtype, csr.indices.dtype)
        work, perm, reorder = resolve(csr, reorder, hw.l2, TILE_VALUE_BYTES, hw.line)
        m, n = csr.shape
        k = grouped_kernels()
        counts = k.tile_counts(np.asarray(work.indptr), np.asarray(work.indices), n, TR, TC, P)
        ncp, nrp = counts.shape
        heavy = counts >= thr
        # group ids in column-panel order: the panel's heavy tiles, then its light group
        gtab = np.zeros((ncp, nrp), dtype=np.int64)
        panel, is_heavy = [], []
        g = 0
        for cp in range(ncp):
            for rp in np.flatnonzero(heavy[cp]):
                gtab[cp, rp] = g
                panel.append(cp)
                is_heavy.append(True)
                g += 1
            light = ~heavy[cp]
            if counts[cp, light].sum() > 0:
                gtab[cp, light] = g
                panel.append(cp)
                is_heavy.append(False)
                g += 1
        grp = cls._group(work, TR, TC, gtab.ravel(), g, P)
        gr = grp["group_rows"]
        phases = cls._split_rows(grp["lptr"], 0, int(gr[-1]), P)[None, :]
        block_ptr, lo, hi, merge_bounds = cls._merge_plan(gr, grp["rowmap"], grp["lptr"], m,
                                                          TR, P)
        H = cls(csr.shape, csr.dtype, csr.iso_value, grp["lptr"], grp["rowmap"],
                grp["indices"], grp["values"], gr, TR, block_ptr, lo, hi, phases, merge_bounds,
                perm, src_dtypes, "cpu", tile_rows=TR, tile_cols=TC, heavy_threshold=thr,
                group_panel=np.asarray(panel, dtype=np.int64),
                group_heavy=np.asarray(is_heavy, dtype=np.bool_), tile_nnz=counts,
                reorder=reorder)
        return H.to_device(device)

    @property
    def heavy_share(self) -> float:
        """Fraction of the entries in heavy tiles."""
        t = np.asarray(self.tile_nnz)
        total = int(t.sum())
        return float(t[t >= self.heavy_threshold].sum()) / total if total else 0.0

    def describe(self) -> str:
        """A short description for plans and benchmark tables.

        Examples
        --------
        >>> import numpy as np
        >>> from gblas.formats import CSR
        >>> A = CSR.from_coo(np.array([0, 1]), np.array([1, 0]), None, (2, 2), iso_value=True)
        >>> HeavyLight.from_csr(A, tile_rows=1, tile_cols=2, heavy_threshold=1,
        ...                     reorder=None).describe()
        '2x1 tiles of 1x2: 2 heavy (100% of entries), 0 light groups, q=1'
        """
        ncp, nrp = np.asarray(self.tile_nnz).shape
        nheavy = int(np.count_nonzero(self.group_heavy))
        order = f", {self.reorder} ordering" if self.reorder else ""
        return (f"{nrp}x{ncp} tiles of {self.tile_rows:,}x{self.tile_cols:,}: {nheavy} heavy "
                f"({100 * self.heavy_share:.0f}% of entries), {self.ngroups - nheavy} light "
                f"groups, q={self.q:.3g}{order}")

    def check_invariants(self) -> None:
        """Raise AssertionError when the structure is inconsistent."""
        super().check_invariants()
        c = self.to_device("cpu")
        TR, TC = self.tile_rows, self.tile_cols
        lptr = c.lptr.astype(np.int64)
        panels = np.asarray(c.group_panel)
        heavy = np.asarray(c.group_heavy)
        assert panels.shape == heavy.shape == (self.ngroups,)
        assert np.all(np.diff(panels) >= 0), "groups in column-panel order"
        tiles = np.asarray(c.tile_nnz)
        assert int(tiles.sum()) == self.nnz
        for g in range(self.ngroups):
            a, b = int(c.group_rows[g]), int(c.group_rows[g + 1])
            cols = c.indices[lptr[a]:lptr[b]].astype(np.int64)
            assert np.all(cols // TC == panels[g]), "a group stays in its column panel"
            rows = c.rowmap[a:b].astype(np.int64)
            rp = rows // TR
            if heavy[g]:
                assert rp.size and np.all(rp == rp[0]), "a heavy tile is one row panel"
                assert tiles[panels[g], rp[0]] >= self.heavy_threshold
            else:
                assert np.all(tiles[panels[g], rp] < self.heavy_threshold)
        assert self.block_size == TR
