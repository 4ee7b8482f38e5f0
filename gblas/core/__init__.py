"""User objects (Matrix, Vector, Mask) and the operations on them: the core layer's API.

The packages above the core (algorithms, csgraph, io) import these names from here,
and ``gblas`` re-exports them.
"""

from . import methods  # noqa: F401  (attaches Matrix.prepare, A @ x, u @ A)
from .elementwise import apply, ewise_add, ewise_mult, select
from .explain import explain
from .mask import Mask
from .matrix import Matrix, TransposedMatrix
from .operations import mxm, mxv, vxm
from .structure import assign, extract, reduce, transpose
from .vector import Vector

__all__ = ["Mask", "Matrix", "TransposedMatrix", "Vector", "apply", "assign", "ewise_add",
           "ewise_mult", "explain", "extract", "mxm", "mxv", "reduce", "select", "transpose",
           "vxm"]
