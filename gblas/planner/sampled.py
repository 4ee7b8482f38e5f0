"""The planner's cheap locality estimate: a spatially sampled simulation of a CSR pull.

The x gathers of ``y = A x`` over CSR are replayed through one fully associative LRU
level of the last-level cache's size, on a sample: ``windows`` runs of consecutive rows
spread over the matrix (each warmed up on its first half), and within them only the
lines whose hash falls in a ``rate`` share (SHARDS: Waldspurger et al., "Efficient MRC
construction with SHARDS", FAST'15), through a cache scaled by the same share.  The walk
reads the sampled rows' indices (``sample`` of the entries), the simulator sees
``rate`` of their accesses: the cost is a few percent of one product, paid once per
matrix (the planner caches it with the CSR).  When ``x`` and ``y`` fit the cache
together, nothing is simulated: only their first touches miss.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

__all__ = ["sampled_pull_misses"]

#: Share of the entries whose rows are walked, and of their lines that are simulated.
SAMPLE = 1 / 32
RATE = 1 / 16


def sampled_pull_misses(csr: Any, cache_bytes: int, x_bytes: int = 8, y_bytes: int = 9, *,
                        line: int = 64, windows: int = 8, sample: float = SAMPLE,
                        rate: float = RATE, min_entries: int = 1 << 18) -> dict:
    """Predicted main-memory traffic of a CSR pull SpMV from a sampled simulation.

    Parameters
    ----------
    csr : gblas CSR
        The matrix the pull reads.
    cache_bytes : int
        The last level's size.
    x_bytes, y_bytes : int
        Bytes per value of x and of y (with its presence flag).
    line : int
        Line bytes.
    windows : int
        Runs of consecutive rows sampled.
    sample, rate : float
        Share of the entries walked, share of their lines simulated.
    min_entries : int
        Matrices with fewer entries are walked whole (every line simulated).

    Returns
    -------
    dict
        ``x_miss`` (share of the x gathers that miss), ``bytes`` (predicted main-memory
        bytes of the product: the streamed arrays, the x misses, y), ``bytes_per_edge``,
        ``simulated`` (False when x and y fit the cache), ``entries`` walked,
        ``seconds`` spent.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from gblas.analysis import pull_csr
    >>> A = pull_csr(sp.random(4096, 4096, density=0.0036, format="csr", random_state=0))
    >>> fits = sampled_pull_misses(A, 1 << 20)
    >>> fits["simulated"], fits["x_miss"] == 512 / A.nnz     # first touches of 512 lines
    (False, True)
    >>> small = sampled_pull_misses(A, 8192)
    >>> small["simulated"] and 0.7 < small["x_miss"] <= 1.0
    True
    """
    from ..backends.cpu import cachesim as k

    t0 = time.perf_counter()
    m, n = csr.shape
    nnz = int(csr.nnz)
    indptr = np.asarray(csr.indptr)
    ib = csr.indices.dtype.itemsize
    vb = 0 if csr.values is None else csr.values.dtype.itemsize
    ny = -(-m * y_bytes // line)
    stream = nnz * (ib + vb) + (m + 1) * indptr.dtype.itemsize
    x_miss, simulated, walked = k.sampled_x_miss(indptr, csr.indices, (m, n), cache_bytes,
                                                 x_bytes, y_bytes, line, windows, sample,
                                                 rate, min_entries)
    out = {"simulated": simulated, "entries": walked}
    nbytes = stream + x_miss * nnz * line + ny * line
    out.update(x_miss=float(x_miss), bytes=int(nbytes), bytes_per_edge=nbytes / max(nnz, 1),
               seconds=time.perf_counter() - t0)
    return out
