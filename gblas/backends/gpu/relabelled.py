"""The pull SpMV of ``gpu_relabelled``: ``x`` gathered into the columns' new order, then
the CSR pull kernels of :mod:`.mxv` over the renumbered CSR."""

from __future__ import annotations

from typing import Any

from ..registry import VecData, register
from .launch import dense_x
from .mxv import mxv_pull


@register("mxv", "gpu_relabelled", "gpu", "pull")
def mxv_pull_relabelled(R: Any, x: VecData, allow: Any, semiring: Any, types: tuple,
                        **knobs: Any) -> VecData:
    """Masked pull SpMV ``y[i] = add_k mul(A[i, k], x[k])`` over a
    :class:`~gblas.formats.gpu_relabelled.GPURelabelled`.

    Parameters
    ----------
    R : GPURelabelled
        The matrix, on the GPU.
    x : VecData
        Vector of length ``R.shape[1]`` (a sparse one is densified first).
    allow : cupy.ndarray of bool or None
        Rows where it is False get no entry.
    semiring : Semiring
        Any semiring (the multiply never sees a column id).
    types : tuple of numpy.dtype
        ``(T, M, R)`` of :meth:`Semiring.types`.
    **knobs
        Passed to :func:`.mxv.mxv_pull`.

    Returns
    -------
    VecData
        Dense, dtype R, with ``present`` flags.
    """
    x = dense_x(x, R.shape[1])
    order = R.col_order
    xr = VecData(int(order.size), None, x.values[order],
                 None if x.present is None else x.present[order])
    return mxv_pull(R.inner, xr, allow, semiring, types, **knobs)
