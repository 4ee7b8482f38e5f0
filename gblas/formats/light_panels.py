"""Light column panels: MultiGraphD's stream buffer for the entries of the light tiles.

MultiGraph (section 4, "MultiGraphD") processes the light tiles of a **column panel**
together: one thread block holds the panel's slice of ``x`` in shared memory, streams the
panel's entries and writes their products to a stream buffer; a second phase reduces the
stream buffer per **row panel** in shared memory.  This module holds that layout for the
light entries of :class:`~gblas.formats.gpu_heavy_light.GPUHeavyLight` (any CSR, in fact);
the kernels are in :mod:`gblas.backends.gpu.light_panels`.  On the GPU the layout is
built by the dedicated kernels of :mod:`gblas.formats.light_panels_gpu` (a counting sort
into the padded slots; the same arrays as this module's array-at-a-time build, which
stays the definition and the fallback).

Layout (entries grouped by column panel, then by row panel; column panels over the
column ids, so that staging a panel's ``x`` is one contiguous copy):

* the columns may be **relabelled by decreasing in-degree within spans** of
  ``relabel_span`` columns (``col_order``: new id -> original id; the kernel gathers ``x``
  into that order once per call).  Kronecker-like graphs send most entries of a row to a
  few hub columns: with the hubs of a span in its first panels, a row's entries fall in
  fewer panels, so phase 1 writes fewer partials and phase 2 folds fewer (at Kronecker
  scale 25, 0.42 instead of 0.73 per entry; float32 ``plus_times`` took 2.65 instead of
  3.17 ms on an H100, with the gather).  By default the build relabels when the partials
  saved outweigh the gather (:data:`PARTIAL_BYTES`, :data:`GATHER_BYTES`), which a graph
  whose columns already cluster (a mesh, a road network) does not.  The columns without
  entries get no new id: each span's columns with entries start a panel and fill as
  many as they need (the ids left in its last panel map to ``-1``), so the gather and
  the panels cover only those (at Kronecker scale 22, 48% of the columns have entries;
  padded, the gather covers 50%);

* within a (column panel, row panel), every row's entries are together and in column
  order, and the rows are **interleaved by shared-memory bank** (:func:`_bank_interleave`):
  consecutive rows fold into different banks of phase 2's accumulators.  On an H100 this
  took float32 ``plus_times``'s phase 2 from 1.59 to 1.41 ms at Kronecker scale 25 (0.142
  to 0.118 ms at 22); ``bank_order=False`` keeps the rows in increasing order;

* ``ent`` -- uint16 per entry: the column offset in its panel (15 bits) and
  :data:`HEAD` when the entry starts a row of its panel;
* ``val`` -- the values in the same order (None when iso);
* every panel's entries are padded to a whole number of groups of ``group`` entries
  (one warp step: 32 lanes of 8 consecutive entries each, :data:`GROUP_WIDE`, the
  default; 4 on request, :data:`GROUP`); a group also starts a new run at its first
  entry, so that the runs of a group never continue in the next;
* a **run** is a row's consecutive entries within one group: phase 1 writes one partial
  result per run (``gbase[g]`` is the first partial of group ``g``; runs are numbered in
  entry order), and ``prow`` holds the row offset (within its row panel) of every partial;
* the partials of one (column panel, row panel) pair form a **chunk** (cut into pieces
  of at most :data:`CHUNK_PARTIALS`); ``chunks`` holds ``(first, end)`` of every chunk
  grouped by row panel (``cptr``), which is what phase 2 reads (a row of many entries
  has a run in every group it touches, so phase 2 folds with atomic updates of its
  shared-memory accumulators);
* ``units`` -- int64 ``(nunits, 3)``: ``panel, first entry, end`` (entries of one panel,
  the first a multiple of ``group``, at most ``unit_entries``): one thread block each,
  the largest first (the blocks start in that order, so the small units left over where a
  panel splits fill the last wave: on an H100 the call took 0.355 instead of 0.385 ms at
  Kronecker scale 22, 1.460 instead of 1.514 at 24, 3.180 instead of 3.240 at 25);
* ``row_hit`` -- bool per row: the row has an entry.  When every ``x`` value exists, these
  are the rows of ``y`` with a value, so phase 2 keeps no presence flags (with them,
  float32 plus_times's phase 2 took 1.56 instead of 1.47 ms in one probe on an H100 at
  Kronecker scale 25, the same in another).

Examples
--------
>>> import numpy as np
>>> A = CSR.from_coo(np.array([0, 0, 1, 2]), np.array([0, 3, 1, 3]), np.arange(4.0), (3, 4))
>>> L = LightPanels.from_csr(A, panel_cols=2, panel_rows=2)
>>> L.nunits, L.npart                 # panel 0: rows 0, 1; panel 1: rows 0, 2
(2, 4)
>>> L.prow.tolist(), L.chunks.tolist()   # row panel 0 (rows 0-1), then row panel 1
([0, 1, 0, 0], [[0, 2], [2, 3], [3, 4]])
>>> L.check_invariants()
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._device import array_sum, bincount, count_nonzero, extreme, to_device, unique, xp_for
from .csr import CSR, known_column_counts

__all__ = ["GROUP", "GROUP_WIDE", "HEAD", "LightPanels", "chunk_table", "default_panel_cols",
           "exclusive_cumsum", "panel_pairs", "panel_params", "relabel_pays",
           "relabelled_pairs_estimate", "span_degree_order", "stable_argsort", "unit_table",
           "x_itemsize"]

#: Entries of one warp step (32 lanes x 4 consecutive entries), on request.
GROUP = 128
#: Entries of one warp step (32 lanes x 8), the default: a lane reads its 8 column
#: offsets in one 16-byte load, and the scans of a step serve twice the entries.  On an
#: H100 (Kronecker, float32) the pattern-only call took 0.308 instead of 0.347 ms at scale
#: 22 and 2.434 instead of 2.495 ms at 25.  With values, and with the prefetch of a warp's
#: next group that this size allows, the ``plus_times`` kernels took 0.313 instead of
#: 0.364 ms at 22 and 2.421 instead of 2.558 ms at 25 (without the prefetch, groups of 256
#: had been slower at 25: 2.728 against 2.644 ms).
GROUP_WIDE = 256
#: Bit of ``ent`` marking the first entry of a row in its panel.
HEAD = 0x8000
#: Columns per column panel: one thread block stages this many ``x`` values (64 KiB of
#: float32).  On an H100 (Kronecker scale 25, a prototype of these kernels) 16384-column
#: panels ran phase 1 in 2.7 ms and 32768-column panels (one block per SM) in 4.4 ms.
DEFAULT_PANEL_COLS = 16384
#: Columns per column panel of a GPU layout whose products read float64 ``x`` (a
#: pattern's or a matrix of 8-byte values: PageRank's, the power iterations') of more
#: than twice the L2 (:func:`default_panel_cols`).  On an H200 at Kronecker scale 24
#: (``x`` 128 MB) the float64 product took 1.245 instead of 1.415 ms and a prepared
#: PageRank 27.3-27.6 instead of 30.4-30.5 ms (the stream of partials 605 instead of 916
#: us, their fold 566 instead of 419); at 25 the product 2.90 instead of 3.09 ms.  A
#: float32 product is slower with them (0.958 / 0.823 ms at 24, 2.29 / 1.86 at 25), and
#: at 22-23 float64 too (``benchmarks/results/light_panels_f64_gpu.md``).
WIDE_X_PANEL_COLS = 8192
#: Rows per row panel of phase 2: the 8-byte accumulators of one panel fit one block's
#: shared memory (a 32768-row panel was split between two blocks, each reading all of its
#: partials).  float64 products gain 6-7%, float32 ones lose 4-11%
#: (``benchmarks/results/light_panels_f64_gpu.md``).
DEFAULT_PANEL_ROWS = 16384
#: Most entries of a unit (a thread block of phase 1).
DEFAULT_UNIT_ENTRIES = 1 << 18
#: Rows of a (column panel, row panel) interleaved by shared-memory bank (see
#: :func:`_bank_interleave`).
DEFAULT_BANK_ORDER = True
#: Columns of a relabelling span: columns are renumbered by decreasing in-degree within
#: each span of this many (see :func:`span_degree_order`).  On an H100 (Kronecker scale
#: 25, float32 plus_times) spans of 2^16 / 2^18 / 2^20 columns left 0.56 / 0.42 / 0.36
#: partials per entry (0.73 without) and the call took 2.91 / 2.65 / 2.61 ms (3.17).  With
#: the columns without entries left out of the gather, spans of 2^18 / 2^19 / 2^20 took
#: 2.618 / 2.595 / 2.590 ms (pattern-only: 2.268 / 2.203 / 2.200), and at scale 22 0.345 /
#: 0.328 / 0.333 ms (pattern-only: 0.274 / 0.270 / 0.270).
DEFAULT_RELABEL_SPAN = 1 << 19
#: Bytes a partial result costs (written by phase 1, read back with its 16-bit row) and
#: bytes per column of the per-call gather of ``x`` into relabelled order (its index,
#: read, write), with its weight: random reads within a span run at about half the copy
#: bandwidth (0.2 ms for 32M float32 columns on an H100).  Relabelling is chosen when the
#: partials it saves outweigh the gather (``relabel=None``).
PARTIAL_BYTES = 10
GATHER_BYTES = 24
#: The build keeps rows, columns, panels and slots of the entries in 32 bits below this
#: (on an H200 at Kronecker 22, 65M entries, the default build took 36 ms in 64 bits).
INT32_LIMIT = int(np.iinfo(np.int32).max)
#: Most partials of a chunk (one warp of phase 2 folds a chunk): relabelled columns make
#: some (column panel, row panel) pairs large, and a block waits for its slowest warp (at
#: Kronecker scale 22 on an H100, phase 2 took 0.066 ms with chunks cut at 512 partials,
#: 0.173 ms uncut; 0.107 ms without relabelling, where chunks are short anyway).
CHUNK_PARTIALS = 512


@dataclass(eq=False)
class LightPanels:
    """The stream-buffer layout of a CSR's entries by column panel (see the module
    documentation).  Build it with :meth:`from_csr`."""

    shape: tuple[int, int]
    dtype: np.dtype
    iso_value: Any
    ent: Any
    val: Any
    units: Any
    gbase: Any
    prow: Any
    cptr: Any
    chunks: Any
    row_hit: Any
    nnz: int
    npart: int
    panel_cols: int
    panel_rows: int
    unit_entries: int
    device: str = "cpu"
    #: New column id -> original column id (None: the columns keep their ids).
    col_order: Any = None
    #: Columns of a relabelling span (0: not relabelled).
    relabel_span: int = 0
    #: Most partials of a chunk.
    chunk_partials: int = CHUNK_PARTIALS
    #: Entries of a group (a warp step): :data:`GROUP` or :data:`GROUP_WIDE`.
    group: int = GROUP

    @classmethod
    def from_csr(cls, csr: CSR, *, panel_cols: int | None = None,
                 panel_rows: int | None = None, unit_entries: int | None = None,
                 bank_order: bool | None = None, relabel: bool | None = None,
                 relabel_span: int | None = None, chunk_partials: int | None = None,
                 group: int | None = None) -> LightPanels:
        """Lay out the entries of ``csr`` (on its own device) by column panel.

        Parameters
        ----------
        csr : CSR
            The matrix.
        panel_cols : int, optional
            Columns per column panel, in [1, 32768] (default :func:`default_panel_cols`).
        panel_rows : int, optional
            Rows per row panel, in [1, 65536] (default :data:`DEFAULT_PANEL_ROWS`).
        unit_entries : int, optional
            Most entries per unit, rounded up to a multiple of ``group`` (default
            :data:`DEFAULT_UNIT_ENTRIES`).
        bank_order : bool, optional
            Within each (column panel, row panel), order the rows so that consecutive
            partials fold into different shared-memory banks of phase 2 (see
            :func:`_bank_interleave`; default :data:`DEFAULT_BANK_ORDER`), or by
            increasing row (False).
        relabel : bool, optional
            Renumber the columns by decreasing in-degree within spans of ``relabel_span``
            columns (True), keep their ids (False), or relabel when the partial results
            saved outweigh the gather of ``x`` it costs per call (None, the default).
        relabel_span : int, optional
            Columns per relabelling span, rounded up to a multiple of ``panel_cols``
            (default :data:`DEFAULT_RELABEL_SPAN`).
        chunk_partials : int, optional
            Most partials of a chunk (default :data:`CHUNK_PARTIALS`).
        group : {128, 256}, optional
            Entries per group (default :data:`GROUP_WIDE`).

        Returns
        -------
        LightPanels

        Raises
        ------
        ValueError
            On a parameter out of range.

        Examples
        --------
        Every row has entries on columns 1 and 3, in two panels of 2 columns; renumbered
        by in-degree, the two share the first panel (``col_order``: new id -> original;
        the columns without entries are left out):

        >>> A = CSR.from_coo(np.repeat(np.arange(4), 2), np.tile([1, 3], 4), None, (4, 4),
        ...                  iso_value=1.0)
        >>> plain = LightPanels.from_csr(A, panel_cols=2, relabel=False)
        >>> moved = LightPanels.from_csr(A, panel_cols=2, relabel=True)
        >>> plain.npart, moved.npart, moved.col_order.tolist(), moved.group
        (8, 4, [1, 3], 256)
        >>> LightPanels.from_csr(A, panel_cols=2).col_order is None   # pays not: 4 columns
        True
        """
        W, RR, U = panel_params(default_panel_cols(csr) if panel_cols is None else panel_cols,
                                panel_rows, unit_entries)
        S = DEFAULT_RELABEL_SPAN if relabel_span is None else int(relabel_span)
        C = CHUNK_PARTIALS if chunk_partials is None else int(chunk_partials)
        if S < 1 or C < 1:
            raise ValueError(f"light panels: relabel_span and chunk_partials must be >= 1, "
                             f"got {S} and {C}")
        if relabel not in (None, True, False):
            raise ValueError(f"light panels: relabel must be True, False or None (decide by "
                             f"cost), got {relabel!r}")
        G = GROUP_WIDE if group is None else group
        if G not in (GROUP, GROUP_WIDE):
            raise ValueError(f"light panels: group must be {GROUP} or {GROUP_WIDE}, got {G!r}")
        return _build(csr, W, RR, -(-U // G) * G, G,
                      bank_order=DEFAULT_BANK_ORDER if bank_order is None
                      else bool(bank_order), relabel=relabel, span=-(-S // W) * W,
                      chunk_partials=C)

    # -------------------------------------------------------------------- properties
    @property
    def nunits(self) -> int:
        return int(self.units.shape[0])

    @property
    def n_row_panels(self) -> int:
        return int(self.cptr.size) - 1

    @property
    def nbytes(self) -> int:
        arrays = (self.ent, self.val, self.units, self.gbase, self.prow, self.cptr,
                  self.chunks, self.row_hit, self.col_order)
        return int(sum(0 if a is None else a.nbytes for a in arrays))

    def stats(self) -> dict:
        """Sizes for reports: partials per entry, padding, units, chunks."""
        nnz = max(self.nnz, 1)
        return {"light_partials_per_entry": self.npart / nnz,
                "light_padding": (int(self.ent.size) - self.nnz) / max(int(self.ent.size), 1),
                "light_units": self.nunits, "light_chunks": int(self.chunks.shape[0]),
                "panel_cols": self.panel_cols, "panel_rows": self.panel_rows,
                "light_relabel_span": self.relabel_span,
                "light_gathered": 0 if self.col_order is None else int(self.col_order.size)}

    def to_device(self, device: str) -> LightPanels:
        if device == self.device:
            return self
        mv = lambda a: to_device(a, device)  # noqa: E731
        return LightPanels(self.shape, self.dtype, self.iso_value, mv(self.ent), mv(self.val),
                           mv(self.units), mv(self.gbase), mv(self.prow), mv(self.cptr),
                           mv(self.chunks), mv(self.row_hit), self.nnz, self.npart,
                           self.panel_cols, self.panel_rows, self.unit_entries, device,
                           None if self.col_order is None else mv(self.col_order),
                           self.relabel_span, self.chunk_partials, self.group)

    def to_coo(self) -> tuple[np.ndarray, np.ndarray, Any]:
        """Rows, (original) columns and values (None when iso) of the entries, decoded on
        the host from the layout alone (panel order)."""
        rows, cols, vals = self._layout_coo()
        if self.col_order is not None:
            cols = np.asarray(to_device(self.col_order, "cpu"), dtype=np.int64)[cols]
        return rows, cols, vals

    def _layout_coo(self) -> tuple[np.ndarray, np.ndarray, Any]:
        """:meth:`to_coo` with the layout's column ids (relabelled ones, if any)."""
        c = self.to_device("cpu")
        W, RR, G = self.panel_cols, self.panel_rows, self.group
        units = np.asarray(c.units, dtype=np.int64).reshape(-1, 3)
        rows, cols, pos = [], [], []
        gbase = np.asarray(c.gbase, dtype=np.int64)
        prow = np.asarray(c.prow, dtype=np.int64)
        # the row panel of every partial, from the chunk table
        pq = np.full(self.npart, -1, dtype=np.int64)
        ch = np.asarray(c.chunks, dtype=np.int64).reshape(-1, 2)
        cptr = np.asarray(c.cptr, dtype=np.int64)
        for q in range(cptr.size - 1):
            for a, b in ch[cptr[q]:cptr[q + 1]]:
                pq[a:b] = q
        for p, s, e in units[np.argsort(units[:, 1])]:    # in entry order
            k = np.arange(s, e)
            ent = np.asarray(c.ent[s:e], dtype=np.int64)
            starts = ((ent & HEAD) != 0) | (k % G == 0)
            g = k // G
            run = np.cumsum(starts) - 1
            # partial index of each entry: its group's base + its run's rank in the group
            first_run = np.zeros_like(run)
            newg = np.ones(k.size, bool)
            newg[1:] = g[1:] != g[:-1]
            first_run[newg] = run[newg]
            first_run = np.maximum.accumulate(np.where(newg, first_run, 0))
            part = gbase[g] + run - first_run
            rows.append(pq[part] * RR + prow[part])
            cols.append(p * W + (ent & (HEAD - 1)))
            pos.append(k)
        if not rows:
            e = np.zeros(0, dtype=np.int64)
            return e, e, None if c.val is None else np.asarray(c.val[:0])
        pos_a = np.concatenate(pos)
        vals = None if c.val is None else np.asarray(c.val)[pos_a]
        return np.concatenate(rows), np.concatenate(cols), vals

    def check_invariants(self) -> None:
        """Raise AssertionError when the structure is inconsistent (checked on the host)."""
        c = self.to_device("cpu")
        m, n = self.shape
        W, RR = self.panel_cols, self.panel_rows
        units = np.asarray(c.units, dtype=np.int64).reshape(-1, 3)
        assert c.ent.dtype == np.uint16 and c.prow.dtype == np.uint16
        G = self.group
        assert G in (GROUP, GROUP_WIDE) and c.ent.size % G == 0
        assert (c.val is None) == (self.iso_value is not None)
        if c.val is not None:
            assert c.val.shape == c.ent.shape and c.val.dtype == self.dtype
        assert np.all(units[:, 1] % G == 0) and np.all(units[:, 2] > units[:, 1])
        assert np.all(units[:, 2] - units[:, 1] <= self.unit_entries)
        assert np.all(np.diff(units[:, 1] - units[:, 2]) >= 0), "units largest first"
        span = units[np.argsort(units[:, 1]), 1:]
        assert np.all(span[1:, 0] >= span[:-1, 1]), "units do not overlap"
        assert self.nnz == int((units[:, 2] - units[:, 1]).sum())
        gb = np.asarray(c.gbase, dtype=np.int64)
        assert gb.size == c.ent.size // G and np.all(np.diff(gb) >= 0)
        assert int(np.asarray(c.prow).size) == self.npart
        assert np.all(np.asarray(c.prow, dtype=np.int64) < RR)
        nq = -(-m // RR) if m else 0
        cptr = np.asarray(c.cptr, dtype=np.int64)
        ch = np.asarray(c.chunks, dtype=np.int64).reshape(-1, 2)
        assert cptr.shape == (nq + 1,) and cptr[0] == 0 and cptr[-1] == ch.shape[0]
        covered = np.zeros(self.npart, dtype=np.int64)
        for a, b in ch:
            assert 0 <= a < b <= self.npart and b - a <= self.chunk_partials
            covered[a:b] += 1
        assert np.all(covered == 1), "every partial in exactly one chunk"
        rows, cols, _ = c._layout_coo()
        orig = cols
        if c.col_order is not None:
            S = self.relabel_span
            full = np.asarray(c.col_order, dtype=np.int64)
            assert S > 0 and S % W == 0 and full.ndim == 1 and full.size % W == 0
            assert np.all((cols >= 0) & (cols < full.size))
            orig = full[cols]
            assert np.all(orig >= 0), "entries only on mapped ids"
            at = np.flatnonzero(full >= 0)
            order = full[at]
            deg_all = np.bincount(orig, minlength=n)
            assert np.array_equal(np.sort(order), np.flatnonzero(deg_all)), \
                "col_order: every column with entries, once"
            deg = deg_all[order]                                   # in-degree by new id
            sp = order // S
            assert np.all(np.diff(sp) >= 0), "the spans in order"
            new_span = np.flatnonzero(np.diff(sp, prepend=-1) != 0)
            assert np.all(at[new_span] % W == 0), "each span starts a panel"
            assert np.all((np.diff(at) == 1) | (np.diff(sp) > 0)), "a span's ids consecutive"
            inspan = np.diff(sp) == 0
            assert np.all((np.diff(deg) < 0) | ((np.diff(deg) == 0) & (np.diff(order) > 0))
                          | ~inspan), "by decreasing in-degree, then column, within a span"
        else:
            assert self.relabel_span == 0
        assert np.all((rows >= 0) & (rows < m)) and np.all((cols >= 0) & (cols < n))
        hit = np.asarray(c.row_hit)
        assert hit.dtype == np.bool_ and hit.shape == (m,)
        assert np.array_equal(hit, np.bincount(rows, minlength=m) > 0), "row_hit"
        # grouped by (panel, row panel); a (panel, row) pair's entries together, by column
        assert np.all(np.diff((cols // W) * max(nq, 1) + rows // RR) >= 0), "panel order"
        pair = (cols // W) * max(m, 1) + rows
        same = np.diff(pair) == 0
        assert int(np.count_nonzero(~same)) + int(pair.size > 0) == np.unique(pair).size, \
            "every (panel, row) pair's entries together"
        assert np.all(np.diff(orig)[same] > 0), "columns increasing within a pair, unique"


def x_itemsize(dtype: Any) -> int:
    """Bytes per value of the ``x`` a product by a matrix of ``dtype`` usually reads: 8 for
    a pattern (its algorithms run in float64), else the values' own size.

    Examples
    --------
    >>> x_itemsize(np.bool_), x_itemsize(np.float32), x_itemsize(np.int64)
    (8, 4, 8)
    """
    dt = np.dtype(dtype)
    return 8 if dt == np.bool_ else int(dt.itemsize)


def default_panel_cols(csr: CSR) -> int:
    """Columns per column panel of a layout of ``csr`` built without ``panel_cols``:
    :data:`WIDE_X_PANEL_COLS` on the GPU where ``x`` (:func:`x_itemsize` of the matrix's
    dtype) is float64-sized and more than twice the L2, else :data:`DEFAULT_PANEL_COLS`.

    Examples
    --------
    >>> A = CSR.from_coo(np.array([0]), np.array([1]), None, (2, 2), iso_value=True)
    >>> default_panel_cols(A)     # on the CPU, and a small x anywhere
    16384
    """
    size = x_itemsize(csr.dtype)
    if csr.device != "gpu" or size < 8:
        return DEFAULT_PANEL_COLS
    from ..hardware import gpu_l2_bytes

    return WIDE_X_PANEL_COLS if csr.shape[1] * size > 2 * gpu_l2_bytes() \
        else DEFAULT_PANEL_COLS


def panel_params(panel_cols: int | None, panel_rows: int | None, unit_entries: int | None,
                 who: str = "light panels",
                 names: tuple[str, str, str] = ("panel_cols", "panel_rows", "unit_entries")
                 ) -> tuple[int, int, int]:
    """The checked ``(panel_cols, panel_rows, unit_entries)`` with defaults filled in,
    ``unit_entries`` rounded up to a multiple of :data:`GROUP`.

    Examples
    --------
    >>> panel_params(None, 100, 200)
    (16384, 100, 256)
    >>> panel_params(0, None, None)
    Traceback (most recent call last):
    ...
    ValueError: light panels: panel_cols must be in [1, 32768], got 0
    """
    W = int(panel_cols) if panel_cols is not None else DEFAULT_PANEL_COLS
    RR = int(panel_rows) if panel_rows is not None else DEFAULT_PANEL_ROWS
    U = int(unit_entries) if unit_entries is not None else DEFAULT_UNIT_ENTRIES
    if not 1 <= W <= HEAD:
        raise ValueError(f"{who}: {names[0]} must be in [1, {HEAD}], got {W}")
    if not 1 <= RR <= 65536:
        raise ValueError(f"{who}: {names[1]} must be in [1, 65536], got {RR}")
    if U < 1:
        raise ValueError(f"{who}: {names[2]} must be >= 1, got {U}")
    return W, RR, -(-U // GROUP) * GROUP


def exclusive_cumsum(xp: Any, a: Any) -> Any:
    """Exclusive prefix sums of ``a`` as int64 (NumPy or CuPy, by ``xp``)."""
    out = xp.zeros(a.size, dtype=np.int64)
    if a.size > 1:
        xp.cumsum(a[:-1], out=out[1:])
    return out


def _panel_order(xp: Any, panel: Any, npn: int) -> Any:
    """The entries in (panel, row, column) order: a stable sort of the CSR's order (rows,
    and columns within a row, increasing) by panel alone, on the narrowest key type that
    holds it (on an H100 at Kronecker scale 22 / 25: 1.9 / 16.2 ms, against 10.3 / 83.7
    ms for a 64-bit (panel, row, column) key)."""
    return stable_argsort(xp, panel, npn - 1)


#: Shared-memory banks of 4 bytes: phase 2's accumulator of row offset ``r`` is in bank
#: ``r % BANKS`` (4-byte results).
BANKS = 32


def _pair_starts(xp: Any, ps: Any, rs: Any) -> Any:
    """True at the first entry of every (panel, row) pair of entries grouped by pair."""
    head = xp.ones(ps.size, dtype=bool)
    if ps.size > 1:
        head[1:] = (rs[1:] != rs[:-1]) | (ps[1:] != ps[:-1])
    return head


def stable_argsort(xp: Any, key: Any, top: int | None = None) -> Any:
    """A stable argsort of ``key`` (>= 0, at most ``top``: its maximum when not given) on
    the narrowest unsigned type that holds it (a radix sort takes a pass per byte)."""
    if top is None:
        top = int(extreme(key, "max")) if key.size else 0
    kt = next((t for t in (np.uint8, np.uint16, np.uint32) if top <= np.iinfo(t).max),
              np.int64)
    key = key.astype(kt)
    return np.argsort(key, kind="stable") if xp is np else xp.argsort(key)


def _bank_interleave(xp: Any, ps: Any, rs: Any, nq: int, RR: int, head: Any = None) -> Any:
    """A permutation of entries in (panel, row, column) order that keeps every (panel,
    row) pair's entries together and in order, and orders the pairs of each (panel, row
    panel) by ``(t, bank)``: ``bank`` the row offset's shared-memory bank, ``t`` the rank
    of the row among the rows of its (panel, row panel) in the same bank.  So consecutive
    pairs cycle through the banks: phase 2, which folds 32 consecutive partials of a chunk
    per atomic instruction, meets fewer bank conflicts.  Rows in increasing order fall in random
    banks: on Kronecker graphs at scales 22 and 25 (default panels), 3.46 and 3.34 lanes
    on average in the busiest bank of such 32 partials, against 1.75 and 2.26 with this
    order (not 1: the ranks of a chunk's last rows fill fewer banks, and a row's second
    run, where a group boundary splits it, shifts the cycle).  ``head``: the pairs'
    first entries (:func:`_pair_starts`) where the caller has them."""
    nnz = int(ps.size)
    if head is None:
        head = _pair_starts(xp, ps, rs)
    hp = xp.flatnonzero(head)
    npair = int(hp.size)
    if npair < 2:
        return xp.arange(nnz, dtype=np.int64)
    prow = rs[hp] % RR
    seg = ps[hp] * max(nq, 1) + rs[hp] // RR          # nondecreasing
    # rank of each pair among its segment's pairs in the same bank (stable: row order)
    o1 = stable_argsort(xp, seg * BANKS + prow % BANKS)
    k1 = (seg * BANKS + prow % BANKS)[o1]
    newg = xp.ones(npair, dtype=bool)
    newg[1:] = k1[1:] != k1[:-1]
    gid = xp.cumsum(newg.astype(np.int64)) - 1
    rank = xp.arange(npair, dtype=np.int64) - xp.flatnonzero(newg)[gid]   # in o1's order
    # the pairs by (segment, rank, bank): o1 is by (segment, bank, rank), so a stable sort
    # by (segment, rank) keeps the banks in order within a rank
    o2 = o1[stable_argsort(xp, seg[o1] * (-(-RR // BANKS)) + rank)]
    plen = xp.diff(xp.concatenate([hp, xp.full(1, nnz, dtype=hp.dtype)])).astype(np.int64)
    start = xp.empty(npair, dtype=np.int64)
    start[o2] = exclusive_cumsum(xp, plen[o2])
    # per entry in the build's index type (32 bits where it fits): the pair's move
    dt = np.result_type(ps.dtype, rs.dtype)
    pid = xp.cumsum(head, dtype=dt) - 1
    newpos = xp.arange(nnz, dtype=dt) + (start - hp).astype(dt)[pid]
    perm = xp.empty(nnz, dtype=dt)
    perm[newpos] = xp.arange(nnz, dtype=dt)
    return perm


def span_degree_order(xp: Any, indices: Any, n: int, S: int, W: int,
                       deg: Any = None) -> tuple[Any, Any]:
    """New column id -> original column id, and its inverse (the new id of every column;
    ``-1`` for those without entries).  ``deg``: the in-degrees when known (else counted).

    Within each span of ``S`` columns, the columns with entries by decreasing in-degree
    (ties by column id); the spans one after another, each starting a panel of ``W``
    columns (so a span's hubs share its first panel); the ids left over at the end of a
    span's last panel map to ``-1``.

    Examples
    --------
    >>> order, rank = span_degree_order(np, np.array([1, 1, 3, 2, 3, 3]), 5, 2, 2)
    >>> order.tolist(), rank.tolist()    # column 0 (span 0) and 4 (span 2) have none
    ([1, -1, 3, 2], [-1, 0, 3, 2, -1])
    """
    if deg is None:
        deg = bincount(indices, n)
    top = int(extreme(deg, "max")) if n else 0
    key = (xp.arange(n, dtype=np.int64) // S) * (top + 1) + (top - deg)
    order = stable_argsort(xp, key)
    order = order[deg[order] > 0]
    span = order // S
    per = bincount(span, -(-n // S))                    # columns with entries per span
    ids = -(-per // W) * W                              # ids of each span: whole panels
    first = exclusive_cumsum(xp, per)                   # of each span, in ``order``
    start = exclusive_cumsum(xp, ids)                   # new id of each span's first
    new = start[span] + xp.arange(order.size, dtype=np.int64) - first[span]
    col_order = xp.full(array_sum(ids), -1, dtype=np.int64)
    col_order[new] = order
    rank = xp.full(n, -1, dtype=np.int64)
    rank[order] = new
    return col_order, rank


def panel_pairs(csr: CSR, W: int) -> int:
    """(row, column panel) pairs of ``csr`` with its own column ids: the partial results
    of light panels of ``W`` columns, but for the splits at group boundaries (one pass;
    in CSR order a row's panels are nondecreasing).

    Examples
    --------
    >>> A = CSR.from_coo(np.array([0, 0, 0, 1]), np.array([0, 1, 5, 5]), None, (2, 6),
    ...                  iso_value=1.0)
    >>> panel_pairs(A, 2)    # row 0: panels 0 and 2; row 1: panel 2
    3
    """
    xp = xp_for(csr.device)
    nnz = csr.nnz
    if nnz == 0:
        return 0
    p = csr.indices // W
    new = xp.empty(nnz, dtype=bool)
    new[0] = True
    xp.not_equal(p[1:], p[:-1], out=new[1:])
    starts = csr.indptr[:-1]
    new[starts[starts < nnz]] = True
    return count_nonzero(new)


def relabel_pays(saved_pairs: float, n: int) -> bool:
    """Whether relabelling saves more than the gather of ``x`` it costs per call:
    ``saved_pairs`` partial results fewer against ``n`` columns gathered."""
    return saved_pairs * PARTIAL_BYTES > GATHER_BYTES * n


def relabelled_pairs_estimate(csr: CSR, W: int, span: int = DEFAULT_RELABEL_SPAN,
                              sample: int = 1 << 22) -> tuple[float, int]:
    """(row, column panel) pairs per entry with the columns relabelled as
    :meth:`LightPanels.from_csr` would (exact in-degrees; pairs counted on evenly spaced
    rows holding about ``sample`` entries), and the ids each call gathers ``x`` into (the
    columns with entries, each span's padded to whole panels).

    Examples
    --------
    >>> A = CSR.from_coo(np.array([0, 0, 1, 1]), np.array([0, 3, 0, 3]), None, (2, 5),
    ...                  iso_value=1.0)
    >>> relabelled_pairs_estimate(A, 2, span=4)   # columns 0 and 3 share a panel now
    (0.5, 2)
    """
    xp = xp_for(csr.device)
    m, n = (int(s) for s in csr.shape)
    nnz = csr.nnz
    if nnz == 0:
        return 0.0, 0
    col_order, rank = span_degree_order(xp, csr.indices, n, span, W,
                                             known_column_counts(csr))
    gathered = int(col_order.size)
    rows = xp.arange(0, m, max(1, -(-nnz // sample)), dtype=np.int64)
    ip = csr.indptr.astype(np.int64)
    lens = ip[rows + 1] - ip[rows]
    ends = xp.cumsum(lens)
    tot = int(ends[-1])
    if tot == 0:
        return 0.0, gathered
    k = xp.arange(tot, dtype=np.int64)
    seg = xp.searchsorted(ends, k, side="right")
    ent = ip[rows][seg] + k - (ends[seg] - lens[seg])
    npn = -(-gathered // W)
    key = unique(seg * npn + rank[csr.indices[ent].astype(np.int64)] // W)
    return float(key.size) / tot, gathered


def _build(csr: CSR, W: int, RR: int, U: int, G: int = GROUP, *, bank_order: bool = False,
           relabel: bool | None = False, span: int = DEFAULT_RELABEL_SPAN,
           chunk_partials: int = CHUNK_PARTIALS, kernels: bool = True) -> LightPanels:
    """The layout (see :meth:`LightPanels.from_csr`); on the GPU by the dedicated
    kernels of :mod:`.light_panels_gpu` where they take ``csr`` (unless ``kernels`` is
    False: array-at-a-time, the definition they are tested against)."""
    xp = xp_for(csr.device)
    m, n = (int(s) for s in csr.shape)
    nnz = csr.nnz
    npn = -(-n // W) if n else 0
    nq = -(-m // RR) if m else 0
    iso = csr.values is None
    # the per-entry rows, columns, panels and positions in 32 bits where every value fits
    # (the relabelled ids: at most a panel per span more; the positions: a group per
    # panel more), half the bytes of most of the build's passes
    it = (np.int32 if max(m, n + W * (-(-n // max(span, 1)) + 1), nnz + G * (npn + 2))
          < INT32_LIMIT else np.int64)
    if kernels and it is np.int32 and nnz and csr.device == "gpu":
        from .light_panels_gpu import build_on_gpu

        fields = build_on_gpu(csr, W, RR, U, G, bank_order=bank_order, relabel=relabel,
                              span=span, chunk_partials=chunk_partials)
        if fields is not None:
            return LightPanels(**fields)
    rows = csr.row_indices(it)
    cols = csr.indices.astype(it, copy=False)
    col_order = order = None
    if relabel is not False and npn > 1 and nnz:
        # columns by decreasing in-degree within spans, those without entries left out;
        # the layout then holds the new ids
        col_order, rank = span_degree_order(xp, csr.indices, n, span, W,
                                             known_column_counts(csr))
        ncols = rank.astype(it)[cols]
        del rank
        npanel = ncols // W
        order = _panel_order(xp, npanel, -(-int(col_order.size) // W))
        # the entries' panels, rows and pair starts in that order: the layout's, and
        # (the pairs counted) what the relabelling saves
        ps, rs = npanel[order], rows[order]
        head = _pair_starts(xp, ps, rs)
        del npanel
        if relabel is None and not relabel_pays(
                panel_pairs(csr, W) - count_nonzero(head), int(col_order.size)):
            col_order = order = None    # not worth the gather: keep the column ids
        if col_order is not None:
            cols, npn = ncols, -(-int(col_order.size) // W)
        del ncols
    if order is None:
        panel = cols // W
        order = _panel_order(xp, panel, npn)
        ps, rs = panel[order], rows[order]
        head = _pair_starts(xp, ps, rs)
        del panel
    cs = cols[order]
    del rows, cols
    if bank_order:
        # pairs move whole: a pair's first entry still starts it
        perm = _bank_interleave(xp, ps, rs, nq, RR, head)
        order, ps, rs, cs, head = order[perm], ps[perm], rs[perm], cs[perm], head[perm]
        del perm
    pc = bincount(ps, npn)
    padded = -(-pc // G) * G
    p0 = exclusive_cumsum(xp, padded)
    tot = array_sum(padded) if npn else 0
    # each entry's slot: its index, moved by its panel's padding before it
    pos = xp.arange(nnz, dtype=it) + (p0 - exclusive_cumsum(xp, pc)).astype(it)[ps]
    ent = xp.zeros(tot, dtype=np.uint16)
    ent[pos] = (cs - ps * W).astype(np.uint16) | (head.astype(np.uint16) << 15)
    val = None
    if not iso:
        val = xp.zeros(tot, dtype=csr.values.dtype)
        val[pos] = csr.values[order]
    del order, cs
    # partials: one per run (a row's entries within a group)
    run = head | (pos % G == 0)
    ngroups = tot // G
    hidx = xp.flatnonzero(run)
    gcount = bincount(pos[hidx] // G, ngroups)
    gbase = exclusive_cumsum(xp, gcount)
    npart = int(hidx.size)
    prow_g = rs[hidx]
    prow = (prow_g % RR).astype(np.uint16)
    pkey = ps[hidx] * max(nq, 1) + prow_g // RR
    chunks, cptr = chunk_table(xp, pkey, npart, nq, npn, chunk_partials)
    units = unit_table(pc, p0, npn, U, csr.device)
    row_hit = xp.diff(csr.indptr) > 0
    if col_order is not None:
        col_order = col_order.astype(np.int32 if n <= np.iinfo(np.int32).max else np.int64)
    return LightPanels((m, n), np.dtype(csr.dtype), csr.iso_value, ent, val, units, gbase,
                       prow, cptr, chunks, row_hit, nnz, npart, W, RR, U, csr.device,
                       col_order, span if col_order is not None else 0, chunk_partials, G)


def chunk_table(xp: Any, pkey: Any, npart: int, nq: int, npn: int, C: int) -> tuple[Any, Any]:
    """``(chunks, cptr)``: the runs of equal (panel, row panel) key (``pkey``: panel
    times ``nq`` plus row panel, nondecreasing) among the ``npart`` partials, cut into
    pieces of at most ``C`` (one warp each) and grouped by row panel.

    Examples
    --------
    >>> ch, cptr = chunk_table(np, np.array([0, 0, 0, 1, 2]), 5, 2, 2, 2)  # 2 row panels
    >>> ch.tolist(), cptr.tolist()      # row panel 0: partials 0-2 (cut), then 4; 1: 3
    ([[0, 2], [2, 3], [4, 5], [3, 4]], [0, 3, 4])
    """
    if not npart:
        return xp.zeros((0, 2), dtype=np.int64), xp.zeros(nq + 1, dtype=np.int64)
    brk = xp.flatnonzero(pkey[1:] != pkey[:-1]) + 1
    starts = xp.concatenate([xp.zeros(1, dtype=np.int64), brk.astype(np.int64)])
    ends = xp.concatenate([brk.astype(np.int64), xp.full(1, npart, dtype=np.int64)])
    pieces = -(-(ends - starts) // C)
    pend = xp.cumsum(pieces)
    pid = xp.searchsorted(pend, xp.arange(int(pend[-1]), dtype=np.int64), side="right")
    starts = starts[pid] + (xp.arange(pid.size, dtype=np.int64) - pend[pid] + pieces[pid]) * C
    ends = xp.minimum(starts + C, ends[pid])
    ckey = pkey[starts]
    cq = ckey % nq
    corder = stable_argsort(xp, cq * max(npn, 1) + ckey // nq)
    chunks = xp.stack([starts[corder], ends[corder]], axis=1)
    cptr = xp.searchsorted(cq[corder], xp.arange(nq + 1, dtype=np.int64)).astype(np.int64)
    return chunks, cptr


def unit_table(pc: Any, p0: Any, npn: int, U: int, device: str) -> Any:
    """Pieces of at most ``U`` entries of every panel (``pc`` entries from slot ``p0``),
    the largest first: one thread block each (built on the host), rows of ``(panel,
    first slot, end)``.

    Examples
    --------
    >>> unit_table(np.array([5, 2]), np.array([0, 8]), 2, 4, "cpu").tolist()
    [[0, 0, 4], [1, 8, 10], [0, 4, 5]]
    """
    pc_h = np.asarray(to_device(pc, "cpu"), dtype=np.int64)
    p0_h = np.asarray(to_device(p0, "cpu"), dtype=np.int64)
    nu = -(-pc_h // U)
    up = np.repeat(np.arange(npn, dtype=np.int64), nu)
    k = np.arange(up.size, dtype=np.int64) - np.repeat(exclusive_cumsum(np, nu), nu)
    first = p0_h[up] + k * U
    end = np.minimum(first + U, p0_h[up] + pc_h[up])
    big = np.argsort(first - end, kind="stable")
    return to_device(np.stack([up, first, end], axis=1)[big].reshape(-1, 3), device)
