"""``gb.explain``: the Plan of an operation or algorithm call, without running it."""

from __future__ import annotations

from ..exceptions import InvalidObject, bad_arg
from ..planner import Plan, plan_elementwise
from .dispatch import dispatchable
from .elementwise import apply, ewise_add, ewise_mult, select
from .operations import mxm, mxv, prepare_mxm, prepare_mxv, prepare_vxm, vxm
from .structure import assign, extract, prepare_reduce, reduce, transpose

#: operations whose plan comes from their own preparation step (planner + runner)
_PREPARED = {mxv: prepare_mxv, vxm: prepare_vxm, mxm: prepare_mxm, reduce: prepare_reduce}
#: operations planned by :func:`gblas.planner.plan_elementwise` by name and device
_ELEMENTWISE = {ewise_add: "ewise_add", ewise_mult: "ewise_mult", apply: "apply",
                select: "select", extract: "extract", assign: "assign",
                transpose: "transpose"}


@dispatchable
def explain(func, *args, **kwargs) -> Plan:
    """The Plan of ``func(*args, **kwargs)`` without running it.

    ``func`` is a gblas operation (``gb.mxv``, ``gb.ewise_add``, ...) or an algorithm of
    :mod:`gblas.algorithms`; the arguments are those of the call.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1], [1, 0], shape=(2, 2))
    >>> x = gb.Vector.from_dense([1.0, 2.0])
    >>> gb.explain(gb.mxv, A, x, "plus_times").direction
    'pull'
    """
    prep = _PREPARED.get(func)
    if prep is not None:
        plan, _ = prep(*args, **kwargs)
        return plan
    if hasattr(func, "__gblas_plan__"):  # an algorithm that plans itself
        return func.__gblas_plan__(*args, **kwargs)
    if func in _ELEMENTWISE:
        device = next((a.device for a in args if hasattr(a, "device")), "cpu")
        return plan_elementwise(_ELEMENTWISE[func], device)
    raise bad_arg(InvalidObject, "explain", "func", "a gblas operation such as gb.mxv",
                  repr(func))


__all__ = ["explain"]
