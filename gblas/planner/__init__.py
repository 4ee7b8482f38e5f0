"""The planner: the only place that chooses format, direction and device."""

from .choose import admit_format, plan_array, plan_elementwise, plan_mxm, plan_mxv
from .paths import heap_bound_holds, plan_shortest_paths
from .plan import Plan

__all__ = ["Plan", "admit_format", "heap_bound_holds", "plan_array", "plan_elementwise",
           "plan_mxm", "plan_mxv", "plan_shortest_paths"]
