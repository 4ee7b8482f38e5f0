"""Fused dense-vector steps of iterative algorithms (Numba, CPU).

``("pagerank_step", "array", "cpu")`` -- one pass of PageRank's vector work after the
product ``y = A' s``::

    c      = alpha * state_in[1] + (1 - alpha)     # teleport + dangling rank, per unit of p
    r'     = y + c * p                             # y read as 0 where it has no entry
    s'     = r' .* w                               # the next product's operand
    err    = |r' - r|_1
    m'     = sum(r' where w == 0)                  # the rank the dangling vertices hold

``state_out = [err, m']``.  One read of ``y``, ``r``, ``w`` (and ``p`` when it is not
uniform), one write of ``r'`` and ``s'``, both sums folded on the way: the unfused form
makes five passes and four temporaries.

``("pagerank_start", "array", "cpu")`` -- the iteration's first vectors from the
out-degrees ``d`` (read from the row pointers of a pattern, or given)::

    w      = alpha ./ d  where d != 0 (and present), else 0   # 0: a dangling vertex
    s      = w * (1 / n);   r = 1 / n
    state  = [0, (the vertices where w == 0) / n]

``("power_step", "array", "cpu")`` -- the vector work of one power iteration (eigenvector,
Katz and HITS centralities) after a product ``y``, the next scores written to ``out``
(which may be ``x``)::

    z      = [x +] scale * y [+ b]                  # y read as 0 where it has no entry
    out    = z / |z|_2   (normalize; 1 for a zero norm)   or   out = z
    state  = [|out - x|_1, |z|_2^2]

two passes (the norm must be known before the division) instead of the six operations
and two read-backs of the unfused form.  The GPU module of the same name has the same
contracts.
"""

from __future__ import annotations

import numba
import numpy as np

from ..registry import register
from ..vector_checks import check_lengths
from .jitcache import jit

__all__ = ["pagerank_start", "pagerank_step", "power_step", "read_async"]

_EMPTY_BOOL = np.zeros(0, dtype=np.bool_)
_EMPTY_F64 = np.zeros(0, dtype=np.float64)


#: Vectors shorter than this take the sequential step (a parallel region's start costs more).
PARALLEL_SIZE = 1 << 16


def _step_body(y, ypres, has_ypres, p, has_p, p_uniform, r, w, c, r_new, s_new):
    n = r.shape[0]
    err = 0.0
    dangling = 0.0
    for i in numba.prange(n):
        yi = y[i]
        if has_ypres and not ypres[i]:
            yi = 0.0
        pi = p[i] if has_p else p_uniform
        rn = yi + c * pi
        wi = w[i]
        r_new[i] = rn
        s_new[i] = rn * wi
        err += abs(rn - r[i])
        if wi == 0.0:
            dangling += rn
    return err, dangling


# one definition, compiled twice: prange runs as range in the sequential one
_step_parallel = jit(parallel=True)(_step_body)
_step_sequential = jit()(_step_body)


@register("pagerank_start", "array", "cpu")
def pagerank_start(degrees, present, from_indptr: bool, scale: float, alpha: float):
    """PageRank's first vectors: ``w``, ``s``, ``r`` and ``state`` (see the module).

    Parameters
    ----------
    degrees : numpy.ndarray
        The row pointers of a pattern CSR (``from_indptr``), or the out-degrees.
    present : numpy.ndarray of bool or None
        Which out-degrees exist (None: all; not read with ``from_indptr``).
    from_indptr : bool
        ``degrees`` holds row pointers: ``d_i = (indptr[i + 1] - indptr[i]) * scale``.
    scale : float
        The value of every entry of the pattern (1 for a bool matrix).
    alpha : float
        The damping factor.

    Returns
    -------
    (w, s, r, state) : tuple of numpy.ndarray
        float64; ``state = [0, m]``, ``m`` the rank the dangling vertices hold.

    Examples
    --------
    >>> w, s, r, st = pagerank_start(np.array([0, 2, 2]), None, True, 1.0, 0.85)
    >>> w.tolist(), s.tolist(), st.tolist()
    ([0.425, 0.0], [0.2125, 0.0], [0.0, 0.5])
    """
    if from_indptr:
        d = np.diff(degrees).astype(np.float64)
        if scale != 1.0:
            d *= scale
        ok = d != 0
    else:
        d = np.asarray(degrees, dtype=np.float64)
        ok = d != 0 if present is None else present & (d != 0)
    n = d.shape[0]
    w = np.where(ok, alpha / np.where(ok, d, 1.0), 0.0)
    r = np.full(n, 1.0 / n) if n else np.empty(0)
    s = w * (1.0 / n) if n else np.empty(0)
    state = np.array([0.0, np.count_nonzero(w == 0) / n if n else 0.0])
    return w, s, r, state


@register("pagerank_step", "array", "cpu")
def pagerank_step(y_values, y_present, p, p_uniform: float, r, w, alpha: float, state_in,
                  r_new, s_new, state_out=None, s_pos=None):
    """One fused PageRank vector step (see the module docstring).

    Parameters
    ----------
    y_values, y_present : numpy.ndarray
        The product ``A' s`` (float64) and its present flags (None: every entry).
    p : numpy.ndarray or None
        The teleport distribution; None: uniform, every entry ``p_uniform``.
    p_uniform : float
        The uniform teleport weight (``1 / n``), used when ``p`` is None.
    r, w : numpy.ndarray
        The current ranks and ``alpha / outdegree`` (0 at dangling vertices).
    alpha : float
        The damping factor.
    state_in : numpy.ndarray
        ``[err, m]`` of the current ranks (only ``m`` is read).
    r_new, s_new : numpy.ndarray
        Written: the next ranks and ``r_new .* w`` (``s_new[s_pos[i]]`` with ``s_pos``).
    state_out : numpy.ndarray, optional
        Written and returned: ``[err, m]`` of ``r_new``; a new array when None.
    s_pos : numpy.ndarray of int32, optional
        Where each ``s`` value goes in ``s_new`` (-1: nowhere), the positions of an
        :class:`~gblas.formats.base.OperandLayout` (no CPU format has one: a pass more).

    Returns
    -------
    numpy.ndarray
        ``state_out``.

    Examples
    --------
    >>> import numpy as np
    >>> w = np.array([0.85, 0.0]); r = np.array([0.5, 0.5])
    >>> y = np.array([0.0, 0.425]); rn = np.empty(2); sn = np.empty(2)
    >>> st = pagerank_step(y, None, None, 0.5, r, w, 0.85, np.array([0.0, 0.5]), rn, sn)
    >>> np.round(rn, 4).tolist(), np.round(st, 4).tolist()
    ([0.2875, 0.7125], [0.425, 0.7125])
    """
    c = alpha * float(state_in[1]) + (1.0 - alpha)
    step = _step_parallel if r.shape[0] >= PARALLEL_SIZE else _step_sequential
    s_out = s_new if s_pos is None else np.empty(r.shape[0], dtype=np.float64)
    err, m = step(
        y_values, _EMPTY_BOOL if y_present is None else y_present, y_present is not None,
        _EMPTY_F64 if p is None else p, p is not None, float(p_uniform), r, w, c,
        r_new, s_out)
    if s_pos is not None:
        to = s_pos >= 0
        s_new[s_pos[to]] = s_out[to]
    if state_out is None:
        state_out = np.empty(2, dtype=np.float64)
    state_out[0] = err
    state_out[1] = m
    return state_out


def _combine_body(y, ypres, has_ypres, x, add_x, scale, b, has_b, z):
    ss = 0.0
    for i in numba.prange(z.shape[0]):
        yi = y[i]
        if has_ypres and not ypres[i]:
            yi = 0.0
        v = scale * yi
        if add_x:
            v = x[i] + v
        if has_b:
            v = v + b[i]
        z[i] = v
        ss += v * v
    return ss


def _update_body(z, x, out, norm):
    err = 0.0
    for i in numba.prange(z.shape[0]):
        v = z[i] / norm
        err += abs(v - x[i])
        out[i] = v
    return err


_combine_parallel = jit(parallel=True)(_combine_body)
_combine_sequential = jit()(_combine_body)
_update_parallel = jit(parallel=True)(_update_body)
_update_sequential = jit()(_update_body)


@register("power_step", "array", "cpu")
def power_step(y_values, y_present, x, b, scale: float, add_x: bool, normalize: bool,
               z, out, state_out=None):
    """The vector work of one power iteration, the next scores written to ``out`` (see
    the module docstring).

    Parameters
    ----------
    y_values, y_present : numpy.ndarray
        The product (float64) and its present flags (None: every entry).
    x : numpy.ndarray
        The current scores (float64).
    b : numpy.ndarray or None
        Added to every entry (Katz's beta); None: nothing.
    scale : float
        The product's factor (Katz's alpha; 1 otherwise).
    add_x : bool
        Add the current scores (an iteration over ``A + I``).
    normalize : bool
        Divide by the 2-norm (by 1 when it is 0).
    z : numpy.ndarray
        Scratch of ``x``'s length.
    out : numpy.ndarray
        Written: the next scores (``x`` itself updates in place).
    state_out : numpy.ndarray, optional
        Written and returned: ``[|x' - x|_1, |z|_2^2]``; a new array when None.

    Returns
    -------
    numpy.ndarray
        ``state_out``.

    Examples
    --------
    >>> x = np.array([0.6, 0.8])
    >>> st = power_step(np.array([3.0, 4.0]), None, x, None, 1.0, False, True, np.empty(2), x)
    >>> x.tolist(), np.round(st, 12).tolist()
    ([0.6, 0.8], [0.0, 25.0])
    """
    check_lengths("power_step", x.shape[0], state_out, y_values=y_values,
                  y_present=y_present, b=b, z=z, out=out)
    big = x.shape[0] >= PARALLEL_SIZE
    ss = (_combine_parallel if big else _combine_sequential)(
        y_values, _EMPTY_BOOL if y_present is None else y_present, y_present is not None,
        x, bool(add_x), float(scale), _EMPTY_F64 if b is None else b, b is not None, z)
    norm = (ss ** 0.5 or 1.0) if normalize else 1.0
    err = (_update_parallel if big else _update_sequential)(z, x, out, norm)
    if state_out is None:
        state_out = np.empty(2, dtype=np.float64)
    state_out[0] = err
    state_out[1] = ss
    return state_out


class _Done:
    """A value already on the host (the CPU kernels are synchronous)."""

    __slots__ = ("_arr",)

    def __init__(self, arr) -> None:
        self._arr = arr

    def result(self) -> np.ndarray:
        return self._arr


@register("read_async", "array", "cpu")
def read_async(arr) -> _Done:
    """The CPU side of ``("read_async", "array", dev)``: ``.result()`` is ``arr`` itself.

    Examples
    --------
    >>> read_async(np.array([1.0, 2.0])).result().tolist()
    [1.0, 2.0]
    """
    return _Done(arr)
