"""``("pagerank", "csr", "cpu", "fused")``: PageRank's whole power iteration in one compiled
call, for graphs small enough that a loop of planned products is bound by its fixed cost
per iteration (a product, a step and a read back from Python: ~0.1 ms, against ~0.05 ms
of work for 200K entries on two threads).

Each iteration is the planned loop's arithmetic in the same order, on the CSR of ``A'``::

    y_i  = sum_k a_ki s_k                 # row i of A', in CSR order (the pull product)
    r'_i = y_i + (alpha m + 1 - alpha) p_i
    err  = |r' - r|_1,  m' = sum(r' where w == 0),  s' = r' .* w

so the ranks equal the loop's to rounding (the L1 and dangling sums are folded per
thread; the loop's vector step goes parallel by vertex count, this loop by vertices plus
entries, so on graphs with few vertices and many entries the sums may fold in another
order).

Examples
--------
>>> import numpy as np
>>> indptr = np.array([0, 1, 2, 3, 3]); indices = np.array([2, 0, 1])  # the CSR of A'
>>> w = np.array([0.85, 0.85, 0.85, 0.0])
>>> r, it, err = pagerank_loop(indptr, indices, None, 1.0, w, None, 0.85, 1e-10, 100)
>>> [round(float(x), 4) for x in r], err < 1e-10
([0.3175, 0.3175, 0.3175, 0.0476], True)
"""

from __future__ import annotations

import numba
import numpy as np

from ..registry import register
from .jitcache import jit
from .operands import uindex
from .vector_kernels import PARALLEL_SIZE

__all__ = ["pagerank_loop"]

_EMPTY_F64 = np.zeros(0, dtype=np.float64)


def _loop_body(indptr, indices, vals, has_vals, iso, p, has_p, p_uniform, w, alpha, limit,
               max_iter, r, r_new, s, s_new, m):
    # m: the rank the dangling vertices hold (w == 0), given for r; s' goes to its own
    # buffer (the rows still gather s), so an iteration is one parallel pass
    n = r.shape[0]
    it = 0
    err = np.inf
    while it < max_iter:
        it += 1
        c = alpha * m + (1.0 - alpha)
        err = 0.0
        dangling = 0.0
        for i in numba.prange(n):
            acc = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                a = vals[k] if has_vals else iso
                acc += a * s[indices[k]]
            pi = p[i] if has_p else p_uniform
            rn = acc + c * pi
            r_new[i] = rn
            s_new[i] = rn * w[i]
            err += abs(rn - r[i])
            if w[i] == 0.0:
                dangling += rn
        r, r_new = r_new, r
        s, s_new = s_new, s
        m = dangling
        if err < limit:
            break
    return it, err, r


# one definition, compiled twice: prange runs as range in the sequential one
_loop_parallel = jit(parallel=True)(_loop_body)
_loop_sequential = jit()(_loop_body)


@register("pagerank", "csr", "cpu", "fused")
def pagerank_loop(indptr, indices, values, iso: float, w, p, alpha: float, limit: float,
                  max_iter: int, r0=None):
    """Run PageRank's power iteration on the CSR of ``A'`` until ``|r' - r|_1 < limit``.

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        The CSR of ``A'`` (row ``i`` lists the in-neighbours of ``i``).
    values : numpy.ndarray or None
        Its values (cast to float64), or None for every entry ``iso``.
    iso : float
        The one value of an iso (or pattern: 1.0) matrix.
    w : numpy.ndarray of float64
        ``alpha / out-degree`` (0 at dangling vertices).
    p : numpy.ndarray or None
        The teleport distribution; None: uniform ``1 / n``.
    alpha, limit : float
        The damping factor and the L1 bound.
    max_iter : int
        Most iterations.
    r0 : numpy.ndarray, optional
        The starting ranks (default ``1 / n`` everywhere).

    Returns
    -------
    (r, iterations, err)
        The last ranks, the iterations run and the last L1 change (``err >= limit``
        when ``max_iter`` ran out first).
    """
    n = w.shape[0]
    dangling = w == 0.0
    if r0 is None:  # 1/n everywhere: the dangling rank as the loop counts it
        r, m = np.full(n, 1.0 / n), np.count_nonzero(dangling) / n
    else:
        r = np.array(r0, dtype=np.float64)
        m = float(r[dangling].sum())
    s = r * w
    has_vals = values is not None
    vals = np.ascontiguousarray(values, dtype=np.float64) if has_vals else _EMPTY_F64
    has_p = p is not None
    pv = np.ascontiguousarray(p, dtype=np.float64) if has_p else _EMPTY_F64
    # threads where an iteration's work (entries and vertices) outweighs starting them
    loop = _loop_parallel if int(indptr[-1]) + n >= PARALLEL_SIZE else _loop_sequential
    it, err, out = loop(uindex(indptr), uindex(indices), vals, has_vals, float(iso), pv,
                        has_p, 1.0 / n if n else 0.0, w, float(alpha), float(limit),
                        int(max_iter), r, np.empty(n), s, np.empty(n), float(m))
    return out, int(it), float(err)
