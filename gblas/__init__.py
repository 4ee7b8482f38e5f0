"""gblas: GraphBLAS-flavoured sparse linear algebra for graph analytics.

Graph algorithms are written as matrix-vector products over semirings with masks::

    import gblas as gb
    A = gb.Matrix.from_scipy(S)
    y = gb.mxv(A, x, "min_plus", mask=~visited.S)

A planner picks format, direction and device for each call (``gb.explain`` shows it);
kernels run with Numba on the CPU or CuPy on an NVIDIA GPU.  ``import gblas`` imports
neither the kernels nor CuPy: they load on first use.
"""

import os as _os

# Numba's OpenMP threads spin while they wait for work by default; on a machine with other
# busy processes the spinning threads take the cores the working thread needs, and a
# parallel region then lasts a scheduler time slice (~12 ms instead of ~0.1 ms, measured on
# a loaded 2-core machine; PageRank on 16K vertices took 151 ms instead of 8.8 ms).  Waiting
# passively costs little when the machine is idle.  A value set by the user is kept.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from . import binary, dtypes, monoids, semirings, unary
from .config import config
from .core.elementwise import apply, ewise_add, ewise_mult, select
from .core.explain import explain
from .core.mask import Mask
from .core.matrix import Matrix, TransposedMatrix
from .core.operations import mxm, mxv, vxm
from .core.structure import assign, extract, reduce, transpose
from .core.vector import Vector
from .exceptions import (
    BadWeight,
    CompileError,
    DimensionMismatch,
    DomainMismatch,
    GraphBLASError,
    IndexOutOfBound,
    InvalidObject,
    InvalidValue,
    NoGPU,
    NoKernel,
    OutOfMemory,
)
from .planner import Plan
from .semirings import BinaryOp, Monoid, Semiring, UnaryOp

__version__ = "0.1.0"


def __getattr__(name):
    # subpackages that import the API themselves load lazily
    if name in ("algorithms", "io", "testing", "csgraph"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'gblas' has no attribute {name!r}")


__all__ = [
    "BadWeight", "CompileError",
    "BinaryOp", "DimensionMismatch", "DomainMismatch", "GraphBLASError", "IndexOutOfBound",
    "InvalidObject", "InvalidValue", "Mask", "Matrix", "Monoid", "NoGPU", "NoKernel",
    "OutOfMemory", "Plan", "Semiring", "TransposedMatrix", "UnaryOp", "Vector", "apply",
    "assign", "binary", "config", "dtypes", "ewise_add", "ewise_mult", "explain", "extract",
    "monoids", "mxm", "mxv", "reduce", "select", "semirings", "transpose", "unary", "vxm",
]
