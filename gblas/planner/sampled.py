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
    nx = -(-n * x_bytes // line)
    ny = -(-m * y_bytes // line)
    stream = nnz * (ib + vb) + (m + 1) * indptr.dtype.itemsize
    cap = max(1, cache_bytes // line)
    out = {"simulated": False, "entries": 0}
    if nnz == 0 or nx + ny <= cap:
        x_miss = min(1.0, nx / nnz) if nnz else 0.0
    else:
        whole = nnz <= min_entries
        r = 1.0 if whole else float(rate)
        keep = int(round(4096 * r))
        scap = max(1, int(cap * keep / 4096))
        st = k.new_state(nx + ny, [1], [scap])
        ip = np.ascontiguousarray(indptr, dtype=np.int64)
        idx = csr.indices
        if whole:
            spans = [(0, m, 0)]
        else:
            per = max(1, int(nnz * sample) // windows)
            spans = []
            for w in range(windows):
                start = int(np.searchsorted(ip, (2 * w + 1) * nnz // (2 * windows)))
                start = min(start, m - 1)
                end = int(np.searchsorted(ip, min(nnz, int(ip[start]) + per)))
                end = max(end, start + 1)
                mid = int(np.searchsorted(ip, (int(ip[start]) + int(ip[end])) // 2))
                spans.append((start, end, mid))
        seen = np.zeros(nx + ny, dtype=np.int8)
        xa = xm = xc = 0
        walked = 0
        for a, b, warm in spans:
            sub = np.ascontiguousarray(idx[ip[a]:ip[b]], dtype=np.int64)
            local = ip[a:b + 1] - ip[a]
            got = k.sampled_rows(st, seen, local, sub, 0, b - a, warm - a, x_bytes, y_bytes, nx,
                                 line, keep)
            xa += got[0]
            xm += got[1]
            xc += got[2]
            walked += int(ip[b] - ip[a])
        # first touches in the sample have no reuse distance to judge by: the rate of the
        # other accesses stands for them; the first touches of the whole product are
        # counted once (below the compulsory rate is the sample's luck)
        x_miss = (xm - xc) / (xa - xc) if xa > xc else 1.0
        x_miss = max(x_miss, min(1.0, nx / nnz))
        out.update(simulated=True, entries=walked)
    nbytes = stream + x_miss * nnz * line + ny * line
    out.update(x_miss=float(x_miss), bytes=int(nbytes), bytes_per_edge=nbytes / max(nnz, 1),
               seconds=time.perf_counter() - t0)
    return out
