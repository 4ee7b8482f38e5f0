"""The executor: what a Plan names, fetched — its kernel and the formats it reads.

Every kernel an operation or algorithm runs comes from a Plan through this module, so
the Plan shown by ``gb.explain`` is what runs: the kernel is ``plan.key`` (or one of
``plan.steps``), a matrix operand is read in ``plan.format`` in the orientation
``plan.transposed`` gives.

Examples
--------
>>> import gblas as gb
>>> from gblas.core import executor
>>> A = gb.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], shape=(2, 2))
>>> x = gb.Vector.from_dense([1.0, 1.0])
>>> plan = gb.explain(gb.mxv, A, x)
>>> executor.operand(plan, A).shape, executor.kernel(plan) is not None
((2, 2), True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..backends.registry import get_kernel
from ..exceptions import NoKernel
from ..planner import Plan, plan_array

__all__ = ["array_kernel", "kernel", "operand", "optional_kernel"]


def kernel(plan: Plan, step: int | None = None) -> Callable:
    """The kernel ``plan.key`` (or ``plan.steps[step]``)."""
    key = plan.key if step is None else plan.steps[step]
    if key is None:
        raise NoKernel(f"{plan.op}: the plan runs a loop of operations, not one kernel "
                       f"({plan.reason})")
    return get_kernel(*key)


def operand(plan: Plan, A: Any, i: int = 0) -> Any:
    """Matrix operand ``i`` of the call in the plan's format and orientation (built and
    cached by the Matrix on first use)."""
    transposed = plan.transposed[i] if i < len(plan.transposed) else False
    return A.get_format(plan.format, transposed=transposed)


def optional_kernel(name: str, device: str, fmt: str = "array") -> Callable | None:
    """The device's kernel ``name`` over ``fmt`` (see :func:`gblas.planner.plan_array`),
    or None where the planner found none."""
    plan = plan_array(name, device, fmt)
    return None if plan.key is None else get_kernel(*plan.key)


def array_kernel(name: str, device: str) -> Callable:
    """The device's array kernel ``name`` (``"where"``, ``"compress"``, ``"map_binary"``
    ...), through its plan."""
    return kernel(plan_array(name, device))
