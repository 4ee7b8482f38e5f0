"""Miss curves and side-by-side comparisons built on :func:`~gblas.analysis.simulate`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import InvalidValue, bad_arg
from .simulate import FORMATS, CacheConfig, SimResult, pull_csr, simulate

__all__ = ["MissCurve", "miss_curve", "compare", "default_sizes"]


@dataclass(frozen=True)
class MissCurve:
    """Main-memory accesses of one format and order as the last level grows.

    ``sizes`` in bytes (one fully associative LRU level each), ``accesses`` the
    main-memory accesses, ``bytes_per_edge`` the same in bytes per stored entry.
    """

    format: str
    order: str
    schedule: str
    sizes: tuple[int, ...]
    accesses: tuple[int, ...]
    bytes_per_edge: tuple[float, ...]
    vertex_bytes: int

    def rows(self) -> list[tuple[int, int, float]]:
        return list(zip(self.sizes, self.accesses, self.bytes_per_edge))


def default_sizes(vertex_bytes: int, line: int = 64, points: int = 12) -> tuple[int, ...]:
    """Powers of two from 16 lines to twice the vertex data (at most ``points``).

    Examples
    --------
    >>> default_sizes(1 << 20)[:3], default_sizes(1 << 20)[-1]
    ((1024, 2048, 4096), 2097152)
    """
    top = max(16 * line, 2 * int(vertex_bytes))
    hi = int(np.ceil(np.log2(top)))
    lo = max(int(np.log2(16 * line)), hi - 2 * points)
    step = max(1, -(-(hi - lo) // (points - 1)))
    return tuple(1 << e for e in range(lo, hi + 1, step))


def miss_curve(A: Any, sizes: Sequence[int] | None = None, format: str = "csr",
               order: str = "natural", *, schedule: str = "vertex", x_bytes: int = 8,
               transposed: bool = False, line: int = 64) -> MissCurve:
    """Main-memory accesses of ``y = op(A) x`` against the size of a fully associative
    LRU cache (one simulation per size, O(1) per access).

    Parameters
    ----------
    A : Matrix, CSR or scipy.sparse matrix
        As for :func:`~gblas.analysis.simulate`.
    sizes : sequence of int, optional
        Cache sizes in bytes (default ``default_sizes`` of the vertex data).
    format, order, schedule, x_bytes, transposed
        As for :func:`~gblas.analysis.simulate`.
    line : int
        Line bytes.

    Returns
    -------
    MissCurve

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> S = sp.random(2000, 2000, density=0.005, format="csr", random_state=0)
    >>> c = miss_curve(S, sizes=[1024, 16384, 65536])
    >>> c.accesses[0] >= c.accesses[1] >= c.accesses[2]
    True
    """
    csr = pull_csr(A, transposed)
    m, n = csr.shape
    vb = (m + n) * int(x_bytes)
    if sizes is None:
        sizes = default_sizes(vb, line)
    sizes = tuple(int(s) for s in sizes)
    if not sizes or min(sizes) < line:
        raise bad_arg(InvalidValue, "miss_curve", "sizes", f"cache sizes of at least one "
                      f"line ({line} bytes)", repr(sizes), "Pass sizes=None for the default.")
    acc, bpe = [], []
    for s in sizes:
        r = simulate(csr, format, order, CacheConfig.single(s, line), schedule=schedule,
                     x_bytes=x_bytes)
        acc.append(r.memory_accesses)
        bpe.append(r.bytes_per_edge)
    return MissCurve(format, order, schedule, sizes, tuple(acc), tuple(bpe), vb)


def compare(A: Any, cache: CacheConfig | None = None, *, formats: Iterable[str] = FORMATS,
            orders: Iterable[str] = ("natural",), schedules: Iterable[str] = ("vertex",),
            x_bytes: int = 8, transposed: bool = False) -> list[SimResult]:
    """:func:`~gblas.analysis.simulate` over formats x orders, plus the CGS schedules (over
    CSR in each order).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> S = sp.random(500, 500, density=0.02, format="csr", random_state=0)
    >>> rs = compare(S, CacheConfig.scaled(2048), formats=["csr"],
    ...              schedules=["vertex", "cgs_vertex"])
    >>> [(r.format, r.schedule) for r in rs]
    [('csr', 'vertex'), ('csr', 'cgs_vertex')]
    """
    csr = pull_csr(A, transposed)
    out = []
    for o in orders:
        for f in formats:
            out.append(simulate(csr, f, o, cache, x_bytes=x_bytes))
        for s in schedules:
            if s != "vertex":
                out.append(simulate(csr, "csr", o, cache, schedule=s, x_bytes=x_bytes))
            elif "csr" not in formats:
                out.append(simulate(csr, "csr", o, cache, x_bytes=x_bytes))
    return out
