"""Cache simulation of a pull SpMV: main-memory accesses, bytes per edge, hit rates.

:func:`simulate` replays the memory accesses of ``y = A x`` (the product every PageRank
step and every dense pull runs) under a gblas format and a vertex order through an LRU
cache hierarchy (:class:`CacheConfig`; the machine's sizes by default), and returns a
:class:`SimResult`.  The vertex data (``x`` gathered, ``y`` written) goes through the
caches; the edge arrays, row pointers and partial buffers are streamed and bypass them
(one main-memory access per line, a jump starting a new line), as in the simulator of
Mukkara, Beckmann and Sanchez, "Cache-Guided Scheduling" (section 4.1, table 2).  The
paper's two idealized schedules are :data:`SCHEDULES` ``"cgs_vertex"`` and
``"cgs_edge"``.

What is modelled: one core running the whole product in the order the format's kernel
runs it (the threads of the real kernel split the same order into ranges, and share only
the last level); line fills from memory (write-backs of dirty lines are not counted, as
the paper counts fills); no prefetching.  The kernels are in
:mod:`gblas.backends.cpu.cachesim` (the CGS schedules in
:mod:`gblas.backends.cpu.cachesim_cgs`).

Examples
--------
>>> import numpy as np, scipy.sparse as sp
>>> S = sp.random(2000, 2000, density=0.005, format="csr", random_state=0)
>>> small = CacheConfig.scaled(4096)                # a 4 KiB last level
>>> r = simulate(S, cache=small)
>>> r.memory_accesses > 0 and 0 <= r.hit_rates[-1] <= 1
True
>>> r.memory_accesses == simulate(S, format="shards", cache=small).memory_accesses
True
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..exceptions import InvalidValue, bad_arg

__all__ = ["CacheLevel", "CacheConfig", "SimResult", "simulate", "FORMATS", "ORDERS",
           "SCHEDULES", "pull_csr"]

#: Formats :func:`simulate` replays (the gblas CPU pull formats).
FORMATS = ("csr", "shards", "segmented", "heavy_light")
#: Vertex orders: relabellings applied before the format is built.
ORDERS = ("natural", "random", "degree", "frequency")
#: Schedules of a CSR product: the vertex-ordered loop and the two idealized CGS schemes.
SCHEDULES = ("vertex", "cgs_vertex", "cgs_edge")


@dataclass(frozen=True)
class CacheLevel:
    """One LRU cache level: ``size`` bytes, ``ways`` per set (0: fully associative),
    ``hashed`` set index (else the line number modulo the sets)."""

    size: int
    ways: int = 0
    hashed: bool = False

    def geometry(self, line: int) -> tuple[int, int]:
        """``(sets, ways)`` in lines.

        Examples
        --------
        >>> CacheLevel(32768, 8).geometry(64), CacheLevel(4096).geometry(64)
        ((64, 8), (1, 64))
        """
        lines = max(1, self.size // line)
        if self.ways <= 0 or self.ways >= lines:
            return 1, lines
        return max(1, lines // self.ways), self.ways


@dataclass(frozen=True)
class CacheConfig:
    """A cache hierarchy, first level first; ``line`` bytes per line.

    Examples
    --------
    >>> CacheConfig.paper().describe()
    'L1 32 KiB 8-way, L2 8192 KiB 16-way hashed, 64 B lines'
    """

    levels: tuple[CacheLevel, ...]
    line: int = 64

    @classmethod
    def machine(cls, hw: Any = None) -> CacheConfig:
        """The machine's L1d, L2 and L3 (``gblas.hardware.detect()``, as
        ``gblas info`` shows them): 8-way L1 and L2, 16-way hashed L3.

        Examples
        --------
        >>> from gblas.hardware import Hardware
        >>> CacheConfig.machine(Hardware(32768, 1 << 20, 32 << 20, 64, 2, "x")).describe()
        'L1 32 KiB 8-way, L2 1024 KiB 8-way, L3 32768 KiB 16-way hashed, 64 B lines'
        """
        if hw is None:
            from .. import hardware

            hw = hardware.detect()
        levels = [CacheLevel(hw.l1d, 8), CacheLevel(hw.l2, 8)]
        if hw.l3 > hw.l2:
            levels.append(CacheLevel(hw.l3, 16, True))
        return cls(tuple(levels), hw.line)

    @classmethod
    def paper(cls) -> CacheConfig:
        """The simulated hierarchy of the cache-guided-scheduling paper (table 2): 32 KB
        8-way L1, 8 MB 16-way hashed L2."""
        return cls((CacheLevel(32 << 10, 8), CacheLevel(8 << 20, 16, True)), 64)

    @classmethod
    def scaled(cls, llc: int, line: int = 64) -> CacheConfig:
        """The paper's hierarchy shrunk to a last level of ``llc`` bytes (the L1 keeps the
        paper's ratio, 1/256 of it, at least 8 lines): for graphs smaller than the paper's.

        Examples
        --------
        >>> CacheConfig.scaled(1 << 20).describe()
        'L1 4 KiB 8-way, L2 1024 KiB 16-way hashed, 64 B lines'
        """
        l1 = max(8 * line, llc // 256)
        return cls((CacheLevel(l1, 8), CacheLevel(int(llc), 16, True)), line)

    @classmethod
    def single(cls, size: int, line: int = 64) -> CacheConfig:
        """One fully associative LRU level of ``size`` bytes."""
        return cls((CacheLevel(int(size)),), line)

    @property
    def llc(self) -> int:
        return self.levels[-1].size

    def describe(self) -> str:
        parts = []
        for k, lv in enumerate(self.levels):
            sets, ways = lv.geometry(self.line)
            assoc = "fully associative" if sets == 1 else f"{ways}-way"
            size = f"{lv.size // 1024} KiB" if lv.size >= 1024 else f"{lv.size} B"
            parts.append(f"L{k + 1} {size} {assoc}"
                         + (" hashed" if lv.hashed and sets > 1 else ""))
        return ", ".join(parts) + f", {self.line} B lines"


@dataclass
class SimResult:
    """What :func:`simulate` measured.

    ``served[l, c]``: accesses of class ``c`` (0 ``x``, 1 ``y``, 2 the gather of a
    relabelled ``x``) served by level ``l`` (the last row: main memory);
    ``stream_lines``: lines of each streamed array read from memory (row pointers,
    indices, values, row map, partials written, partials read, the relabelled ``x``).
    """

    format: str
    order: str
    schedule: str
    cache: CacheConfig
    shape: tuple[int, int]
    nnz: int
    served: np.ndarray
    stream_lines: np.ndarray
    seconds: float = 0.0
    note: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def cached_misses(self) -> int:
        """Main-memory accesses of the vertex data (last-level misses)."""
        return int(self.served[-1].sum())

    @property
    def memory_accesses(self) -> int:
        """Lines read from main memory: vertex-data misses plus streamed lines."""
        return self.cached_misses + int(self.stream_lines.sum())

    @property
    def memory_bytes(self) -> int:
        return self.memory_accesses * self.cache.line

    @property
    def bytes_per_edge(self) -> float:
        return self.memory_bytes / max(self.nnz, 1)

    @property
    def accesses(self) -> int:
        """Accesses to the vertex data (through the caches)."""
        return int(self.served.sum())

    @property
    def hit_rates(self) -> tuple[float, ...]:
        """Per level: hits over the accesses that reached it."""
        out = []
        reach = self.served.sum()
        for lv in range(self.served.shape[0] - 1):
            h = self.served[lv].sum()
            out.append(float(h / reach) if reach else 0.0)
            reach -= h
        return tuple(out)

    def breakdown(self) -> dict[str, int]:
        """Main-memory accesses by data structure.

        Examples
        --------
        >>> import scipy.sparse as sp
        >>> r = simulate(sp.eye(64, format="csr"), cache=CacheConfig.single(1024))
        >>> sorted(r.breakdown())
        ['edges', 'gather', 'partials', 'pointers', 'x', 'y']
        """
        s, m = self.stream_lines, self.served[-1]
        return {"x": int(m[0]), "y": int(m[1]), "gather": int(m[2] + s[6]),
                "edges": int(s[1] + s[2]), "pointers": int(s[0] + s[3]),
                "partials": int(s[4] + s[5])}

    def summary(self) -> dict:
        """A flat dict for tables."""
        return {"format": self.format, "order": self.order, "schedule": self.schedule,
                "memory_accesses": self.memory_accesses,
                "bytes_per_edge": round(self.bytes_per_edge, 3),
                "hit_rates": [round(h, 4) for h in self.hit_rates], **self.breakdown()}

    def __str__(self) -> str:
        hr = ", ".join(f"L{k + 1} {100 * h:.1f}%" for k, h in enumerate(self.hit_rates))
        return (f"{self.format}/{self.order}/{self.schedule}: {self.memory_accesses:,} "
                f"main-memory accesses ({self.bytes_per_edge:.2f} B/edge), hit rates {hr}")


# ------------------------------------------------------------------------ inputs


def pull_csr(A: Any, transposed: bool = False):
    """The gblas CSR a pull ``y = op(A) x`` reads, from a gblas Matrix, a gblas CSR or
    any SciPy sparse matrix.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> pull_csr(sp.eye(3, format="coo")).shape
    (3, 3)
    """
    from ..formats.csr import CSR

    if isinstance(A, CSR):
        csr = A
        if transposed:
            import scipy.sparse as sp

            csr = _from_scipy(sp.csr_array(A.to_scipy().T))
    elif hasattr(A, "csr") and hasattr(A, "nvals"):
        csr = A.csr(transposed)
    elif hasattr(A, "tocsr"):
        S = A.T if transposed else A
        csr = _from_scipy(S)
    else:
        raise bad_arg(InvalidValue, "simulate", "A", "a gblas Matrix, a gblas CSR or a "
                      "scipy.sparse matrix", type(A).__name__,
                      "Build one with gb.Matrix.from_scipy(...) or gblas.io.read_mm(...).")
    if csr.device != "cpu":
        csr = csr.to_device("cpu")
    return csr


def _from_scipy(S):
    from ..formats.csr import CSR

    S = S.tocsr()
    S.sort_indices()
    m, n = S.shape
    idx = S.indices.astype(np.int32 if n < 2**31 else np.int64)
    ptr = S.indptr.astype(np.int32 if S.nnz < 2**31 else np.int64)
    return CSR((m, n), ptr, idx, None, np.dtype(bool), True, "cpu")


def _check(call: str, arg: str, value, allowed) -> None:
    if value not in allowed:
        raise bad_arg(InvalidValue, call, arg, "one of " + ", ".join(map(repr, allowed)),
                      repr(value), f"Pass {arg}={allowed[0]!r} or another of those.")


def _relabel(csr, order: str, seed: int):
    """``(P A P^T, perm)`` for a square matrix (rows and columns relabelled, stored in the
    new order), ``(A P, perm)`` for a rectangular one; ``perm[new] = old``."""
    from ..formats.csr import CSR
    from ..formats.reorder import column_frequencies, degree_sort, frequency_clustering

    m, n = csr.shape
    if order == "natural":
        return csr, None
    if order == "random":
        perm = np.random.default_rng(seed).permutation(n).astype(np.int64)
    else:
        freq = column_frequencies(csr)
        perm = degree_sort(freq) if order == "degree" else frequency_clustering(freq)
    S = csr.to_scipy()
    S = S[perm][:, perm] if m == n else S[:, perm]
    out = _from_scipy(S)
    if csr.values is not None:
        out = CSR(out.shape, out.indptr, out.indices, S.data.astype(csr.dtype), csr.dtype,
                  None, "cpu")
    return out, perm


# ------------------------------------------------------------------------ simulate


def _levels(cache: CacheConfig):
    geo = [lv.geometry(cache.line) for lv in cache.levels]
    return [g[0] for g in geo], [g[1] for g in geo], any(lv.hashed for lv in cache.levels)


def _lines(nvals: int, nbytes: int, line: int) -> int:
    return -(-nvals * nbytes // line)


def _build_format(csr, fmt: str, cache: CacheConfig, options: dict):
    from .. import hardware

    # the machine's (L1d, per-core L2, shared L3); a hierarchy of fewer levels keeps
    # this machine's ratios (L2 = L3 / 32, L1 = L3 / 256)
    lv = cache.levels
    l3 = lv[-1].size
    l1 = lv[0].size if len(lv) >= 2 else max(cache.line, l3 // 256)
    l2 = lv[-2].size if len(lv) >= 3 else max(l1, l3 // 32)
    with hardware.assume(l1d=max(l1, 64), l2=max(l2, 64), l3=max(l3, 64), line=cache.line):
        if fmt == "segmented":
            from ..formats.segmented import SegmentedCSR

            return SegmentedCSR.from_csr(csr, **options)
        from ..formats.heavy_light import HeavyLight

        return HeavyLight.from_csr(csr, **options)


def simulate(A: Any, format: str = "csr", order: str = "natural", cache: Any = None, *,
             schedule: str = "vertex", x_bytes: int = 8, y_bytes: int | None = None,
             transposed: bool = False, options: dict | None = None,
             seed: int = 0) -> SimResult:
    """Replay the accesses of the pull SpMV ``y = op(A) x`` through a cache hierarchy.

    Parameters
    ----------
    A : Matrix, CSR or scipy.sparse matrix
        The matrix; ``op(A) = A^T`` with ``transposed=True`` (PageRank pulls over
        ``A^T``).
    format : {"csr", "shards", "segmented", "heavy_light"}
        The gblas format whose kernel order is replayed.  ``shards`` runs the CSR's rows
        in the same order (its parts only split them between threads); ``segmented`` and
        ``heavy_light`` are built by gblas for the simulated cache sizes (their defaults,
        frequency clustering where it pays, unless ``options`` say otherwise).
    order : {"natural", "random", "degree", "frequency"}
        Vertex relabelling applied first (rows and columns of a square matrix): the
        stored order, a random permutation (the paper's locality-agnostic input),
        degree sort, Cagra's frequency-based clustering.
    cache : CacheConfig, optional
        Default: the machine's caches (:meth:`CacheConfig.machine`).
    schedule : {"vertex", "cgs_vertex", "cgs_edge"}
        The loop over CSR rows, or one of the idealized cache-guided schedules
        (``format="csr"`` only).
    x_bytes, y_bytes : int
        Bytes per value of ``x`` and of ``y`` (default ``x_bytes``).
    options : dict, optional
        Keyword arguments of the format's ``from_csr``.
    seed : int
        Seed of ``order="random"``.

    Returns
    -------
    SimResult

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> S = sp.random(3000, 3000, density=0.003, format="csr", random_state=1)
    >>> cfg = CacheConfig.scaled(8192)
    >>> base = simulate(S, cache=cfg).breakdown()
    >>> cgs = simulate(S, schedule="cgs_edge", cache=cfg).breakdown()
    >>> cgs["x"] < base["x"] / 4, cgs["edges"] > base["edges"]    # x reused, edges jump
    (True, True)
    """
    from ..backends.cpu import cachesim as k
    from ..backends.cpu import cachesim_cgs as cgs

    _check("simulate", "format", format, FORMATS)
    _check("simulate", "order", order, ORDERS)
    _check("simulate", "schedule", schedule, SCHEDULES)
    if schedule != "vertex" and format not in ("csr", "shards"):
        raise bad_arg(InvalidValue, "simulate", "schedule", "'vertex' with format "
                      f"{format!r}", repr(schedule), "The CGS schedules run over CSR rows: "
                      "pass format='csr'.")
    for name, v in (("x_bytes", x_bytes), ("y_bytes", y_bytes)):
        if v is not None and (not isinstance(v, (int, np.integer)) or v < 1):
            raise bad_arg(InvalidValue, "simulate", name, "a positive integer", repr(v),
                          f"Pass {name}=8 for float64 values.")
    if cache is None:
        cache = CacheConfig.machine()
    elif isinstance(cache, (int, np.integer)):
        cache = CacheConfig.single(int(cache))
    if not isinstance(cache, CacheConfig) or not cache.levels:
        raise bad_arg(InvalidValue, "simulate", "cache", "a CacheConfig with levels or a "
                      "size in bytes", repr(cache), "Use CacheConfig.machine() or "
                      "CacheConfig.scaled(bytes).")
    xb = int(x_bytes)
    yb = int(y_bytes) if y_bytes is not None else xb
    csr, _ = _relabel(pull_csr(A, transposed), order, seed)
    m, n = csr.shape
    line = cache.line
    sets, ways, hashed = _levels(cache)
    ib = csr.indices.dtype.itemsize
    pb = csr.indptr.dtype.itemsize
    vb = 0 if csr.values is None else csr.values.dtype.itemsize
    nx = _lines(n, xb, line)
    streams = np.zeros((k.NSTREAM, 2), dtype=np.int64)
    streams[:, 0] = -1
    indptr = np.ascontiguousarray(csr.indptr, dtype=np.int64)
    indices = np.ascontiguousarray(csr.indices, dtype=np.int64)
    none = np.zeros(1, dtype=np.int64)
    note, extra = "", {}
    t0 = time.perf_counter()
    if format in ("csr", "shards"):
        ny = _lines(m, yb, line)
        st = k.new_state(nx + ny, sets, ways, hashed)
        if schedule == "vertex":
            k.walk_rows(st, streams, np.arange(m, dtype=np.int64), indptr, indices, none,
                        False, none, False, 0, nx, xb, yb, ib, vb, pb, line)
        elif schedule == "cgs_vertex":
            xline = (np.arange(n, dtype=np.int64) * xb) // line
            lr_ptr, lr_row, lr_cnt = _line_rows(indptr, indices, xline, m, nx)
            order_rows = cgs.cgs_vertex(st, streams, indptr, indices, xline, nx, lr_ptr,
                                        lr_row, lr_cnt, 0, nx, yb, ib, vb, pb, line, 1024)
            extra["row_order"] = order_rows
        else:
            rows = np.repeat(np.arange(m, dtype=np.int64), np.diff(indptr))
            e_x = (indices * xb) // line
            e_y = nx + (rows * yb) // line
            l_ptr, l_edge = _line_edges(e_x, e_y, nx + ny)
            maxb = int(np.diff(l_ptr).max()) if l_ptr.size > 1 else 1
            cgs.cgs_edge(st, streams, e_x, e_y, rows, l_ptr, l_edge, nx + ny, ib, vb, pb,
                         line, maxb)
        if format == "shards":
            note = "the rows of csr in the same order (parts split them between threads)"
    else:
        F = _build_format(csr, format, cache, dict(options or {}))
        has_perm = F.col_perm is not None and F.col_perm.size > 0
        nx2 = nx if has_perm else 0
        ny = _lines(m, yb, line)
        st = k.new_state(nx + nx2 + ny, sets, ways, hashed)
        perm = np.asarray(F.col_perm, dtype=np.int64) if has_perm else none
        k.walk_grouped(st, streams, np.asarray(F.lptr, dtype=np.int64),
                       np.asarray(F.indices, dtype=np.int64),
                       np.asarray(F.rowmap, dtype=np.int64),
                       np.asarray(F.block_ptr, dtype=np.int64),
                       np.asarray(F.block_lo, dtype=np.int64),
                       np.asarray(F.block_hi, dtype=np.int64), int(F.block_size), m, perm,
                       has_perm, 0, nx, nx + nx2, xb, yb, F.indices.dtype.itemsize,
                       0 if F.values is None else F.values.dtype.itemsize,
                       F.lptr.dtype.itemsize, F.rowmap.dtype.itemsize, line)
        note = F.describe()
        extra["q"] = F.q
    secs = time.perf_counter() - t0
    return SimResult(format, order, schedule, cache, (m, n), int(csr.nnz), st[8].copy(),
                     streams[:, 1].copy(), secs, note, extra)


def _line_rows(indptr, indices, xline, m: int, nx: int):
    """For each x line, the rows that read it and how many times (CSR by line)."""
    import scipy.sparse as sp

    rows = np.repeat(np.arange(m, dtype=np.int64), np.diff(indptr))
    T = sp.csr_array((np.ones(rows.size, dtype=np.int64), (xline[indices], rows)),
                     shape=(nx, m))
    T.sum_duplicates()
    return (T.indptr.astype(np.int64), T.indices.astype(np.int64),
            T.data.astype(np.int64))


def _line_edges(e_x, e_y, nlines: int):
    """For each line (x lines, then y lines), the entries with an endpoint in it."""
    keys = np.concatenate([e_x, e_y])
    edges = np.concatenate([np.arange(e_x.size, dtype=np.int64)] * 2)
    order = np.argsort(keys, kind="stable")
    ptr = np.zeros(nlines + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=nlines), out=ptr[1:])
    return ptr, edges[order]
