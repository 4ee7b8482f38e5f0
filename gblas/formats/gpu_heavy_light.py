"""``gpu_heavy_light``: MultiGraph's heavy/light 2D tiles (MultiGraphD) for GPU pull SpMV.

MultiGraph (section 4, "MultiGraphD") cuts the edge matrix into 2D tiles: **column
panels** (a range of sources, whose slice of ``x`` a thread block brings into shared
memory once) by **row panels** (a range of destinations).  A tile with many entries is
*heavy*: thread blocks process it with its ``x`` slice staged in shared memory and combine
the products of every destination locally, writing one partial result per destination
into a stream buffer; a second phase reduces the partials per destination.

This format adapts it as follows:

* columns are first relabelled by decreasing in-degree (``reorder="degree"``, the
  frequency clustering of Cagra), so that the hub columns fill the first column panels
  and their tiles become heavy; the kernel gathers ``x`` at the heavy panels' columns
  into a compact buffer once per call;
* a heavy tile's entries, sorted by (row, column), are cut into **units** of at most
  ``unit_entries`` entries, one thread block each; in a unit every thread takes
  ``per`` consecutive entries, stored *transposed* (thread ``t``'s ``k``-th entry at
  ``start + k * block_threads + t``) so that the loads of a warp are coalesced, as in
  MultiGraph's heavy edge-block layout (and CSR5); the last entries of a unit are padded
  to a whole number per thread with a row offset of :data:`PAD`.  Row and column offsets
  within the tile are 16-bit;
* a unit writes one partial result (with a presence flag) per row of its row span
  ``[lo, lo + span)`` into its own slice of the partial buffer (``u_off``): rows are
  folded in registers, then across threads by a segmented scan, so that every row is
  written once and any monoid works without atomics;
* the *light* entries (those of tiles below ``heavy_threshold``) are kept as a CSR over
  the original column ids and, by default (``light="panels"``), also laid out as the
  paper's light column panels (:class:`~gblas.formats.light_panels.LightPanels`): the
  light entries of a column panel are streamed by thread blocks holding the panel's
  ``x`` in shared memory, which write one partial result per run of a row into a stream
  buffer, reduced per row panel in shared memory.  With ``light="csr"`` the CSR pull
  kernels compute them instead (``x`` gathered from global memory through the L2);
* phase 2 folds, for every row of a row panel with heavy units, the light result and the
  partials of the panel's units (``hrp``, ``rp_uptr``, ``rp_units``, in column-panel
  order): coalesced, and again without atomics.

Layout:

* ``light`` -- CSR ``(m, n)`` of the light entries (original column ids; the matrix's own
  CSR, shared, when no tile can reach ``heavy_threshold``);
* ``hrow``, ``hcol``, ``hval`` -- heavy entries in the transposed unit layout: row offset
  in the row panel (uint16, :data:`PAD` for padding), column offset in the column panel
  of the *relabelled* columns (uint16), value (None when iso);
* ``units`` -- int64 ``(nunits, 6)``: ``start, per, cp, rp, lo, span`` (first stored
  entry, entries per thread, column panel, row panel, first row offset, rows spanned);
  units are in (column panel, row panel) order;
* ``u_off`` -- int64 ``(nunits + 1,)``: each unit's slice of the partial buffer;
* ``hrp``, ``rp_uptr``, ``rp_units`` -- the row panels with heavy units, and the units of
  each (ids into ``units``, in column-panel order);
* ``col_perm`` -- relabelled column -> original column (None: no relabelling);
  ``n_heavy_cols`` -- the relabelled columns the heavy panels cover (the compact ``x``).

Built with NumPy or CuPy on the device the CSR is on; the kernels are in
:mod:`gblas.backends.gpu.heavy_light`.

Timings against cuSPARSE and ``gpu_segmented``, and why no tile is heavy by default:
``benchmarks/results/history_gpu.md``.

Examples
--------
>>> import numpy as np
>>> A = CSR.from_coo(np.array([0, 0, 0, 1, 1, 2, 3]), np.array([0, 1, 2, 0, 1, 3, 0]),
...                  np.arange(1.0, 8.0), (4, 4))
>>> H = GPUHeavyLight.from_csr(A, tile_rows=2, tile_cols=2, heavy_threshold=3,
...                            reorder=None, block_threads=32)
>>> H.heavy_tiles.tolist()      # (column panel, row panel, entries)
[[0, 0, 4]]
>>> H.light.indices.tolist(), H.nunits
([2, 3, 0], 1)
>>> H.check_invariants()
>>> B = H.to_csr()
>>> B.indices.tolist(), B.values.tolist()
([0, 1, 2, 0, 1, 3, 0], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .. import dtypes
from .._device import to_device, xp_for
from .base import FormatBase, OperandLayout, register_format
from .csr import CSR
from .light_panels import LightPanels, exclusive_cumsum, panel_params

__all__ = ["GPUHeavyLight", "PAD"]

#: Rows per row panel.  Only the classification of tiles and the partial buffer depend on
#: it (no shared memory does).  On symmetric Kronecker scale 22 (columns by degree,
#: 8192-column panels) 8192-row panels put 55% of the entries in tiles of at least 8192
#: entries; 16384-row panels 71% (55% from 16384 entries).
DEFAULT_TILE_ROWS = 8192
#: Columns per column panel: a unit stages this many ``x`` values (and flags) in shared
#: memory (32 KB of float32).
DEFAULT_TILE_COLS = 8192
#: A tile is heavy from this many entries (None: with the light entries in column panels,
#: no tile is heavy; with a light CSR, ``max(tile_rows, tile_cols)``: every staged value
#: of ``x`` is used, and every row of the unit's partial buffer filled, once on average).
#: On an H100 (Kronecker, float32 plus_times) light panels alone ran in 0.47 ms at scale
#: 22 and 4.3 ms at scale 25; with 8192x8192 heavy tiles from 8192 entries (45% / 24% of
#: the entries) in 0.84 and 5.6 ms: the heavy units' dense partial rows and the merge
#: cost more than the panels' runs.  Earlier, with a light CSR, on an H100 (symmetric
#: Kronecker scale 22, float32, pattern) 16384-row panels ran 1.59 ms with a threshold
#: of 8192 (0.58 partials per heavy entry) and 1.26 ms with 16384 (0.28); 8192-row
#: panels from 8192 entries 1.21 ms.
DEFAULT_HEAVY_THRESHOLD: int | None = None
#: Most entries of a unit (one thread block).  Units of 32768 entries over 512 threads ran
#: 2-12% faster than these defaults on an H100 (Kronecker scale 22 and 24, pattern and
#: valued: 1.04 against 1.18 ms at scale 22, pattern), but only the defaults ran the test
#: suite on a GPU so far.
DEFAULT_UNIT_ENTRIES = 16384
#: Threads per unit block (a multiple of 32, at most 1024).
DEFAULT_BLOCK_THREADS = 256
#: Heavy threshold that no tile reaches.
NO_HEAVY = 1 << 62
#: Row offset marking a padding entry of a unit.
PAD = 0xFFFF
#: Columns of the ``units`` table.
UNIT_FIELDS = ("start", "per", "cp", "rp", "lo", "span")
_START, _PER, _CP, _RP, _LO, _SPAN = range(6)


@register_format
@dataclass(eq=False)
class GPUHeavyLight(FormatBase):
    """Heavy 2D tiles in thread-block units plus a light CSR (see the module documentation).

    Build it with :meth:`from_csr`.

    Examples
    --------
    >>> import numpy as np
    >>> A = CSR.from_coo(np.array([0, 1]), np.array([1, 0]), None, (2, 2), iso_value=True)
    >>> H = GPUHeavyLight.from_csr(A, tile_rows=1, tile_cols=1, heavy_threshold=1,
    ...                            block_threads=32)
    >>> H.nunits, H.light.nnz, H.n_heavy
    (2, 0, 2)
    """

    name: ClassVar[str] = "gpu_heavy_light"
    devices: ClassVar[tuple[str, ...]] = ("gpu",)
    pull_rank: ClassVar[int | None] = 5
    #: light panels: bandwidth of their traffic (GB/s), a fixed time per call (two kernels),
    #: seconds per run by how phase 2 folds the monoid (between an H200's and an H100's,
    #: ``benchmarks/results/gpu_estimates.md``), and the build's ns per entry and fixed
    #: time: the build by the dedicated kernels took 12.3 / 54.4 ms for 65M / 263M
    #: entries on an H200 (``light_panel_build_gpu.md``; the array-at-a-time build 27.9 /
    #: 120.8 ms in the same run)
    gpu_gbs: ClassVar[float] = 2640.0
    gpu_fixed_s: ClassVar[float] = 1.15e-4
    fold_s: ClassVar[dict] = {"native": 0.0, "float_add": 0.8e-12, "exchange": 5.8e-12}
    build_ns_entry: ClassVar[float] = 0.22
    build_overhead_s: ClassVar[float] = 0.002

    @classmethod
    def gpu_pull_estimate(cls, ctx):
        """MultiGraph's light panels: one partial per run, x gathered into the panels'
        column order first when relabelled; None without the runs per entry."""
        from .costing import Estimate
        from .light_panels import GATHER_BYTES

        if ctx.runs_per_entry is None:
            return None
        m, n = ctx.shape
        runs = ctx.runs_per_entry * ctx.nnz  # every entry computed: the mask applies at y
        r = max(ctx.y_bytes - 1, 1)
        nbytes = (ctx.nnz * (2 + ctx.a_val) + runs * (2 * r + 2) + n * ctx.x_bytes
                  + m * ctx.y_bytes)
        gather = ctx.gathered * GATHER_BYTES  # weighted: random reads
        t = ((nbytes + gather) / (cls.gpu_gbs * 1e9) + ctx.host(cls)
             + cls.fold_s[ctx.fold] * runs)
        build = cls.build_ns_entry * 1e-9 * ctx.nnz + cls.build_overhead_s
        return Estimate(cls.name, t, build, int(nbytes + gather // 2),
                        f"light panels, {ctx.runs_per_entry:.2f} runs per entry")

    shape: tuple[int, int]
    dtype: np.dtype
    iso_value: Any
    light: CSR
    hrow: Any
    hcol: Any
    hval: Any
    units: Any
    u_off: Any
    hrp: Any
    rp_uptr: Any
    rp_units: Any
    col_perm: Any
    n_heavy_cols: int
    heavy_tiles: np.ndarray
    n_heavy: int
    tile_rows: int
    tile_cols: int
    heavy_threshold: int
    unit_entries: int
    block_threads: int
    total_span: int
    reorder: str | None = None
    device: str = "cpu"
    light_panels: LightPanels | None = None
    #: ``light`` is the CSR the format was built from (not counted in :attr:`nbytes`).
    light_shared: bool = False

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_csr(cls, csr: CSR, *, tile_rows: int | None = None, tile_cols: int | None = None,
                 heavy_threshold: int | None = None, unit_entries: int | None = None,
                 block_threads: int | None = None,
                 reorder: str | None = "degree", light: str = "panels",
                 light_cols: int | None = None, light_rows: int | None = None,
                 light_unit: int | None = None, light_relabel: bool | None = None
                 ) -> GPUHeavyLight:
        """Tile ``csr`` (on its own device).

        Parameters
        ----------
        csr : CSR
            The matrix (rows are destinations).
        tile_rows : int, optional
            Rows per row panel, at most 32768 (default :data:`DEFAULT_TILE_ROWS`).
        tile_cols : int, optional
            Columns per column panel, at most 65536 (default :data:`DEFAULT_TILE_COLS`);
            a unit holds this many values of ``x`` (and flags) in shared memory.
        heavy_threshold : int, optional
            Entries from which a tile is heavy (default: :data:`DEFAULT_HEAVY_THRESHOLD`).
        unit_entries : int, optional
            Most entries per unit (default :data:`DEFAULT_UNIT_ENTRIES`).
        block_threads : int, optional
            Threads per unit, a multiple of 32 up to 1024 (default
            :data:`DEFAULT_BLOCK_THREADS`); the stored layout depends on it.
        reorder : {"degree", None}
            Relabel the columns by decreasing in-degree before tiling, or keep them (no
            relabelling when no tile can reach ``heavy_threshold``: it serves the heavy
            tiles only).
        light : {"panels", "csr"}
            Lay the light entries out in column panels as well
            (:class:`~gblas.formats.light_panels.LightPanels`, MultiGraph's stream
            buffer; the kernel then uses them), or keep only their CSR.
        light_cols, light_rows, light_unit : int, optional
            ``panel_cols``, ``panel_rows`` and ``unit_entries`` of the light panels.
        light_relabel : bool, optional
            ``relabel`` of the light panels: their columns renumbered by in-degree within
            spans (True), not (False), or where it pays (None, the default).

        Returns
        -------
        GPUHeavyLight

        Raises
        ------
        ValueError
            On a parameter out of range.
        """
        TR = int(tile_rows) if tile_rows is not None else DEFAULT_TILE_ROWS
        TC = int(tile_cols) if tile_cols is not None else DEFAULT_TILE_COLS
        thr = heavy_threshold if heavy_threshold is not None else DEFAULT_HEAVY_THRESHOLD
        thr = int(thr) if thr is not None else max(TR, TC) if light == "csr" else NO_HEAVY
        U = int(unit_entries) if unit_entries is not None else DEFAULT_UNIT_ENTRIES
        NT = int(block_threads) if block_threads is not None else DEFAULT_BLOCK_THREADS
        if not 1 <= TR <= 32768:
            raise ValueError(f"gpu_heavy_light: tile_rows must be in [1, 32768], got {TR}")
        if not 1 <= TC <= 65536:
            raise ValueError(f"gpu_heavy_light: tile_cols must be in [1, 65536], got {TC}")
        if thr < 1 or U < 1:
            raise ValueError(f"gpu_heavy_light: heavy_threshold and unit_entries must be >= 1, "
                             f"got {thr} and {U}")
        if NT % 32 or not 32 <= NT <= 1024:
            raise ValueError("gpu_heavy_light: block_threads must be a multiple of 32 in "
                             f"[32, 1024], got {NT}")
        if reorder not in ("degree", None):
            raise ValueError(f"gpu_heavy_light: reorder must be 'degree' or None, got "
                             f"{reorder!r}")
        if light not in ("panels", "csr"):
            raise ValueError(f"gpu_heavy_light: light must be 'panels' or 'csr', got "
                             f"{light!r}")
        lp = panel_params(light_cols, light_rows, light_unit, "gpu_heavy_light",
                          ("light_cols", "light_rows", "light_unit"))
        H = _build(csr, TR, TC, thr, U, NT, reorder)
        if light == "panels" and H.light.nnz:
            H.light_panels = LightPanels.from_csr(
                H.light, panel_cols=None if light_cols is None else lp[0], panel_rows=lp[1],
                unit_entries=lp[2], relabel=light_relabel)
        return H

    def to_csr(self) -> CSR:
        """The CSR this format was built from (entries sorted by row, then column)."""
        xp = xp_for(self.device)
        m, n = self.shape
        rows, cols, vals = self._heavy_coo()
        lr = self.light.row_indices()
        rows = xp.concatenate([lr, rows])
        cols = xp.concatenate([self.light.indices.astype(np.int64), cols])
        order = xp.argsort(rows * max(n, 1) + cols)
        rows, cols = rows[order], cols[order]
        nnz = int(rows.size)
        indptr = xp.zeros(m + 1, dtype=dtypes.index_dtype(nnz))
        if nnz:
            xp.cumsum(xp.bincount(rows, minlength=m), out=indptr[1:])
        values = None
        if self.iso_value is None:
            values = xp.concatenate([self.light.values, vals])[order]
        return CSR((m, n), indptr, cols.astype(dtypes.index_dtype(n)), values, self.dtype,
                   self.iso_value, self.device)

    def _heavy_coo(self) -> tuple[Any, Any, Any]:
        """Rows, original columns and values (None when iso) of the heavy entries, in
        stored order."""
        xp = xp_for(self.device)
        if self.nunits == 0:
            e = xp.zeros(0, dtype=np.int64)
            return e, e, None if self.hval is None else self.hval[:0]
        units = self.units
        pos = xp.arange(int(self.hrow.size), dtype=np.int64)
        unit = xp.searchsorted(xp.ascontiguousarray(units[:, _START]), pos, side="right") - 1
        real = self.hrow != PAD
        pos, unit = pos[real], unit[real]
        rows = units[unit, _RP] * self.tile_rows + self.hrow[pos].astype(np.int64)
        cols = units[unit, _CP] * self.tile_cols + self.hcol[pos].astype(np.int64)
        if self.col_perm is not None:
            cols = self.col_perm[cols].astype(np.int64)
        vals = None if self.hval is None else self.hval[pos]
        return rows, cols, vals

    # -------------------------------------------------------------------- properties
    @property
    def nnz(self) -> int:
        return int(self.light.nnz + self.n_heavy)

    @property
    def nunits(self) -> int:
        return int(self.units.shape[0])

    def operand_layout(self) -> OperandLayout | None:
        """The relabelled column order of the light panels, when every entry is in them
        (no heavy tile: heavy units read ``x`` in column order), else None.

        Examples
        --------
        >>> A = CSR.from_coo(np.repeat(np.arange(4), 2), np.tile([1, 3], 4), None, (4, 4),
        ...                  iso_value=1.0)
        >>> H = GPUHeavyLight.from_csr(A, light_cols=2, light_relabel=True)
        >>> lay = H.operand_layout()
        >>> lay.positions.tolist(), lay.size      # columns 1 and 3 read first, 0 and 2 never
        ([-1, 0, -1, 1], 2)
        >>> GPUHeavyLight.from_csr(A, light_cols=2, light_relabel=False).operand_layout()
        """
        lp = self.light_panels
        if self.nunits or lp is None or lp.col_order is None:
            return None
        got = self.__dict__.get("_operand_layout")
        if got is None:
            xp = xp_for(self.device)
            order = lp.col_order
            positions = xp.full(self.shape[1], -1, dtype=np.int32)
            new = xp.nonzero(order >= 0)[0]
            positions[order[new]] = new.astype(np.int32)
            got = self.__dict__["_operand_layout"] = OperandLayout(positions, int(order.size))
        return got

    @property
    def heavy_share(self) -> float:
        """Fraction of the entries in heavy tiles."""
        return self.n_heavy / self.nnz if self.nnz else 0.0

    @property
    def nbytes(self) -> int:
        arrays = (self.hrow, self.hcol, self.hval, self.units, self.u_off, self.hrp,
                  self.rp_uptr, self.rp_units, self.col_perm)
        lp = 0 if self.light_panels is None else self.light_panels.nbytes
        light = 0 if self.light_shared else self.light.nbytes
        return int(light + lp + sum(0 if a is None else a.nbytes for a in arrays))

    def stats(self) -> dict:
        """Sizes for reports: tiles, units, heavy share, padding, partials, bytes per entry."""
        nnz = max(self.nnz, 1)
        stored = int(self.hrow.size)
        lp = {} if self.light_panels is None else self.light_panels.stats()
        return lp | {"heavy_tiles": int(self.heavy_tiles.shape[0]), "units": self.nunits,
                "heavy_share": self.n_heavy / nnz,
                "padding": (stored - self.n_heavy) / max(stored, 1),
                "partials_per_heavy_entry": self.total_span / max(self.n_heavy, 1),
                "heavy_row_panels": int(self.hrp.size), "heavy_cols": self.n_heavy_cols,
                "bytes_per_nnz": self.nbytes / nnz, "tile_rows": self.tile_rows,
                "tile_cols": self.tile_cols, "heavy_threshold": self.heavy_threshold}

    def describe(self) -> str:
        """A short description for plans and benchmark tables.

        Examples
        --------
        >>> import numpy as np
        >>> A = CSR.from_coo(np.array([0, 1]), np.array([1, 0]), None, (2, 2), iso_value=True)
        >>> GPUHeavyLight.from_csr(A, tile_rows=1, tile_cols=2, heavy_threshold=1,
        ...                        block_threads=32).describe()
        '1x2 tiles: 2 heavy (100% of entries) in 2 units, degree ordering'
        """
        order = f", {self.reorder} ordering" if self.reorder else ""
        lp = self.light_panels
        panels = "" if lp is None else \
            f", light in {lp.panel_cols:,}-column panels ({lp.npart / max(lp.nnz, 1):.2f} " \
            "partials per entry" + (f", columns by in-degree in spans of {lp.relabel_span:,}"
                                    if lp.relabel_span else "") + ")"
        return (f"{self.tile_rows:,}x{self.tile_cols:,} tiles: {self.heavy_tiles.shape[0]} "
                f"heavy ({100 * self.heavy_share:.0f}% of entries) in {self.nunits} "
                f"units{order}{panels}")

    # ------------------------------------------------------------------- conversions
    def to_device(self, device: str) -> GPUHeavyLight:
        if device == self.device:
            return self
        mv = lambda a: to_device(a, device)  # noqa: E731
        return GPUHeavyLight(self.shape, self.dtype, self.iso_value, self.light.to_device(device),
                             mv(self.hrow), mv(self.hcol), mv(self.hval), mv(self.units),
                             mv(self.u_off), mv(self.hrp), mv(self.rp_uptr), mv(self.rp_units),
                             mv(self.col_perm), self.n_heavy_cols, self.heavy_tiles,
                             self.n_heavy, self.tile_rows, self.tile_cols,
                             self.heavy_threshold, self.unit_entries, self.block_threads,
                             self.total_span, self.reorder, device,
                             None if self.light_panels is None
                             else self.light_panels.to_device(device))

    def check_invariants(self) -> None:
        """Raise AssertionError when the structure is inconsistent (checked on the host)."""
        c = self.to_device("cpu")
        m, n = self.shape
        TR, TC, NT = self.tile_rows, self.tile_cols, self.block_threads
        c.light.check_invariants()
        assert c.light.shape == (m, n) and c.light.dtype == self.dtype
        if c.light_panels is not None:
            lp = c.light_panels
            lp.check_invariants()
            assert lp.shape == (m, n) and lp.nnz == c.light.nnz
            r, k, v = lp.to_coo()
            o = np.lexsort((k, r))
            assert np.array_equal(r[o], c.light.row_indices())
            assert np.array_equal(k[o], c.light.indices)
            if v is not None:
                assert np.array_equal(v[o], c.light.values, equal_nan=v.dtype.kind == "f")
        assert (c.hval is None) == (self.iso_value is not None) == (c.light.values is None)
        units = np.asarray(c.units, dtype=np.int64).reshape(-1, 6)
        nu = units.shape[0]
        pad = units[:, _PER] * NT
        assert np.all(units[:, _PER] >= 1), "a unit has entries"
        assert np.array_equal(units[:, _START], np.concatenate([[0], np.cumsum(pad)[:-1]])
                              if nu else units[:, _START])
        assert c.hrow.shape == c.hcol.shape == (int(pad.sum()),)
        assert c.hrow.dtype == c.hcol.dtype == np.uint16
        if c.hval is not None:
            assert c.hval.shape == c.hrow.shape and c.hval.dtype == self.dtype
        span = units[:, _SPAN]
        assert np.all(span >= 1) and np.all(units[:, _LO] >= 0)
        assert np.all(units[:, _LO] + span <= TR)
        assert np.array_equal(c.u_off, np.concatenate([[0], np.cumsum(span)]))
        assert self.total_span == int(span.sum())
        key = units[:, _CP] * (-(-m // TR) + 1) + units[:, _RP]
        assert np.all(np.diff(key) >= 0), "units in (column panel, row panel) order"
        ncols_c = n if c.col_perm is None else int(c.col_perm.size)
        if c.col_perm is not None:
            assert np.array_equal(np.sort(c.col_perm), np.arange(n)), "a permutation"
        # every unit: sorted (row, column) entries, then padding, within its tile
        tile_count: dict = {}
        last: dict = {}
        real_total = 0
        for u in range(nu):
            s, per, cp_, rp_, lo, sp = (int(v) for v in units[u])
            sl = slice(s, s + per * NT)
            r = np.asarray(c.hrow[sl]).reshape(per, NT).T.ravel().astype(np.int64)
            col = np.asarray(c.hcol[sl]).reshape(per, NT).T.ravel().astype(np.int64)
            real = r != PAD
            k = int(real.sum())
            assert k >= 1 and np.all(real[:k]) and not np.any(real[k:]), "padding at the end"
            assert k > (per - 1) * NT, "fewer than block_threads padding entries"
            r, col = r[:k], col[:k]
            ek = r * TC + col
            assert np.all(np.diff(ek) > 0), "entries sorted by (row, column), unique"
            assert r[0] == lo and r[-1] == lo + sp - 1, "row span"
            assert np.all(r < TR) and np.all(rp_ * TR + r < m)
            assert np.all(col < TC) and np.all(cp_ * TC + col < ncols_c)
            tkey = (cp_, rp_)
            if tkey in last:
                assert last[tkey] < int(ek[0]), "units of a tile follow each other"
            last[tkey] = int(ek[-1])
            tile_count[tkey] = tile_count.get(tkey, 0) + k
            real_total += k
        assert real_total == self.n_heavy
        ht = np.asarray(self.heavy_tiles, dtype=np.int64).reshape(-1, 3)
        assert {(int(a), int(b)): int(k) for a, b, k in ht} == tile_count
        assert np.all(ht[:, 2] >= self.heavy_threshold), "heavy tiles reach the threshold"
        if c.col_perm is not None and self.n_heavy:
            assert self.n_heavy_cols >= int(ht[:, 0].max()) * TC + 1
        # light entries: in tiles below the threshold, none in a heavy tile
        if c.light.nnz:
            rank = np.arange(n, dtype=np.int64)
            if c.col_perm is not None:
                rank[np.asarray(c.col_perm, dtype=np.int64)] = np.arange(n)
            lt = (rank[c.light.indices.astype(np.int64)] // TC, c.light.row_indices() // TR)
            keys, counts = np.unique(lt[0] * (m + 1) + lt[1], return_counts=True)
            assert np.all(counts < self.heavy_threshold), "light tiles are below the threshold"
            heavy_keys = set((ht[:, 0] * (m + 1) + ht[:, 1]).tolist())
            assert not heavy_keys.intersection(keys.tolist()), "no light entry in a heavy tile"
        # phase 2 tables: every unit once, grouped by row panel, in column-panel order
        hrp = np.asarray(c.hrp, dtype=np.int64)
        ptr = np.asarray(c.rp_uptr, dtype=np.int64)
        ru = np.asarray(c.rp_units, dtype=np.int64)
        assert ptr.shape == (hrp.size + 1,) and ptr[0] == 0 and ptr[-1] == nu
        assert np.array_equal(np.sort(ru), np.arange(nu))
        assert np.all(np.diff(hrp) > 0)
        for b in range(hrp.size):
            us = ru[ptr[b]:ptr[b + 1]]
            assert us.size and np.all(units[us, _RP] == hrp[b])
            assert np.all(np.diff(units[us, _CP]) >= 0)


def _all_light(csr: CSR, TR: int, TC: int, thr: int, U: int, NT: int) -> GPUHeavyLight:
    """No tile can reach ``thr`` entries: every entry is light and the light part is
    ``csr`` itself (no copy, no column relabelling, no sort; on an H100 the build with
    light panels took 25 instead of 59 ms at Kronecker scale 22, 214 instead of 495 ms
    at 25)."""
    xp = xp_for(csr.device)
    dev = csr.device
    m, n = (int(s) for s in csr.shape)
    hval = None if csr.values is None else xp.zeros(0, dtype=csr.dtype)
    empty = lambda shape, dt: to_device(np.zeros(shape, dtype=dt), dev)  # noqa: E731
    return GPUHeavyLight(
        (m, n), np.dtype(csr.dtype), csr.iso_value, csr, xp.zeros(0, dtype=np.uint16),
        xp.zeros(0, dtype=np.uint16), hval, empty((0, 6), np.int64), empty(1, np.int64),
        empty(0, np.int64), empty(1, np.int64), empty(0, np.int32), None, 0,
        np.zeros((0, 3), dtype=np.int64), 0, TR, TC, thr, U, NT, 0, None, dev,
        light_shared=True)


def _build(csr: CSR, TR: int, TC: int, thr: int, U: int, NT: int,
           reorder: str | None) -> GPUHeavyLight:
    xp = xp_for(csr.device)
    m, n = (int(s) for s in csr.shape)
    nnz = csr.nnz
    if thr > min(nnz, TR * TC):
        return _all_light(csr, TR, TC, thr, U, NT)
    iso = csr.values is None
    nrp = -(-m // TR) if m else 0
    ncp = -(-n // TC) if n else 0
    if ncp * max(m, 1) * TC >= 2 ** 63:
        raise ValueError(f"gpu_heavy_light: a {m}x{n} matrix is too large for 64-bit tile keys")
    rows = csr.row_indices()
    cols = csr.indices.astype(np.int64)

    # --- relabel the columns by decreasing in-degree (ties by column id)
    perm = None
    if reorder == "degree" and nnz:
        indeg = xp.bincount(cols, minlength=n)
        u = xp.unique(indeg)
        drank = (u.size - 1) - xp.searchsorted(u, indeg)
        perm = xp.argsort(drank * n + xp.arange(n, dtype=np.int64))
        del indeg, u, drank
        rank = xp.empty(n, dtype=np.int64)
        rank[perm] = xp.arange(n, dtype=np.int64)
        ccols = rank[cols]
        del rank
    else:
        ccols = cols

    # --- entries by (column panel, row, column): tiles are runs, (cp, rp) ascending
    cpn = ccols // TC
    order = xp.argsort((cpn * m + rows) * TC + (ccols - cpn * TC))
    tile = cpn[order] * nrp + rows[order] // TR
    del cpn
    if nnz:
        brk = xp.empty(nnz, dtype=bool)
        brk[0] = True
        xp.not_equal(tile[1:], tile[:-1], out=brk[1:])
        tstart = xp.flatnonzero(brk)
        tcount = xp.diff(xp.concatenate([tstart, xp.asarray([nnz], dtype=tstart.dtype)]))
        heavy_t = tcount >= thr
        heavy_sorted = heavy_t[xp.cumsum(brk) - 1]
        del brk
        ht_ids = np.asarray(to_device(tile[tstart[heavy_t]], "cpu"), dtype=np.int64)
        ht_cnt = np.asarray(to_device(tcount[heavy_t], "cpu"), dtype=np.int64)
        del tstart, tcount, heavy_t
    else:
        heavy_sorted = xp.zeros(0, dtype=bool)
        ht_ids = ht_cnt = np.zeros(0, dtype=np.int64)
    del tile

    # --- the light CSR (original order and column ids)
    is_heavy = xp.zeros(nnz, dtype=bool)
    hs = order[heavy_sorted]  # heavy entries, in tile order
    is_heavy[hs] = True
    del order, heavy_sorted
    keep = ~is_heavy
    del is_heavy
    lrows = rows[keep]
    nl = int(lrows.size)
    lptr = xp.zeros(m + 1, dtype=dtypes.index_dtype(nl))
    if nl:
        xp.cumsum(xp.bincount(lrows, minlength=m), out=lptr[1:])
    del lrows
    light = CSR((m, n), lptr, csr.indices[keep].astype(dtypes.index_dtype(n)),
                None if iso else csr.values[keep], np.dtype(csr.dtype), csr.iso_value,
                csr.device)
    del keep

    # --- heavy tiles cut into units (host side: one row per unit)
    nht = int(ht_ids.size)
    hcp, hrpn = ht_ids // max(nrp, 1), ht_ids % max(nrp, 1)
    hstart = exclusive_cumsum(np, ht_cnt)
    nu_t = -(-ht_cnt // U)
    sz_t = -(-ht_cnt // np.maximum(nu_t, 1))
    ubase = exclusive_cumsum(np, nu_t)
    nu = int(nu_t.sum())
    tu = np.repeat(np.arange(nht, dtype=np.int64), nu_t)
    ui = np.arange(nu, dtype=np.int64) - ubase[tu]
    usz = np.minimum(sz_t[tu], ht_cnt[tu] - ui * sz_t[tu])
    uper = -(-usz // NT)
    ustart = exclusive_cumsum(np, uper * NT)
    total = int((uper * NT).sum())
    ufirst = hstart[tu] + ui * sz_t[tu]
    n_heavy = int(ht_cnt.sum())

    hrow = xp.full(total, PAD, dtype=np.uint16)
    hcol = xp.zeros(total, dtype=np.uint16)
    hval = None if iso else xp.zeros(total, dtype=csr.dtype)
    lo = span = np.zeros(0, dtype=np.int64)
    if nu:
        hrows_s = rows[hs]
        d = lambda a: xp.asarray(a)  # noqa: E731
        # row offsets of the first and last entry of every unit
        rp_u = hrpn[tu]
        first_r = np.asarray(to_device(hrows_s[d(ufirst)], "cpu"), dtype=np.int64)
        last_r = np.asarray(to_device(hrows_s[d(ufirst + usz - 1)], "cpu"), dtype=np.int64)
        lo = first_r - rp_u * TR
        span = last_r - first_r + 1
        # where every heavy entry goes: unit, thread, slot
        j = xp.arange(n_heavy, dtype=np.int64)
        t_of = xp.searchsorted(d(hstart), j, side="right") - 1
        jt = j - d(hstart)[t_of]
        del j
        sz_e = d(sz_t)[t_of]
        uu = jt // sz_e
        q = jt - uu * sz_e
        del jt, sz_e
        unit = d(ubase)[t_of] + uu
        del uu
        per_e = d(uper)[unit]
        th = q // per_e
        dest = d(ustart)[unit] + (q - th * per_e) * NT + th
        del q, per_e, th, unit
        hrow[dest] = (hrows_s - d(hrpn)[t_of] * TR).astype(np.uint16)
        del hrows_s
        hcol[dest] = (ccols[hs] - d(hcp)[t_of] * TC).astype(np.uint16)
        if not iso:
            hval[dest] = csr.values[hs]
        del dest, t_of
    del hs, rows, cols, ccols

    units = np.stack([ustart, uper, hcp[tu], hrpn[tu], lo, span], axis=1).astype(np.int64)
    u_off = np.concatenate([[0], np.cumsum(span)]).astype(np.int64)
    # phase 2: units by (row panel, column panel); units are in (cp, rp) order already
    by_rp = np.argsort(units[:, _RP], kind="stable")
    hrp, first = np.unique(units[by_rp, _RP], return_index=True)
    rp_uptr = np.concatenate([first, [nu]]).astype(np.int64)
    n_heavy_cols = min(n, (int(hcp.max()) + 1) * TC) if nht else 0
    col_perm = None if perm is None else perm.astype(dtypes.index_dtype(max(n - 1, 0)))
    heavy_tiles = np.stack([hcp, hrpn, ht_cnt], axis=1).astype(np.int64).reshape(-1, 3)
    dev = csr.device
    return GPUHeavyLight(
        (m, n), np.dtype(csr.dtype), csr.iso_value, light, hrow, hcol, hval,
        to_device(units, dev), to_device(u_off, dev), to_device(hrp.astype(np.int64), dev),
        to_device(rp_uptr, dev), to_device(by_rp.astype(np.int32), dev), col_perm,
        n_heavy_cols, heavy_tiles, n_heavy, TR, TC, thr, U, NT, int(span.sum()),
        reorder if perm is not None else None, dev)
