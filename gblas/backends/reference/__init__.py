"""The reference backend: the test oracle.

Plain Python over dictionaries (``{i: value}`` for vectors, ``{(i, j): value}`` for
matrices), written to be obviously correct, with no speed goals and no dependency on
``gblas.core``.  Each operation computes its result ``T`` entry by entry and writes it
back with the GraphBLAS mask/accumulate/replace rules (DESIGN §2).  See
``gblas.backends.reference.scalars`` for how a scalar operator is evaluated and cast,
and how results of the ANY monoid are represented (:class:`AnyOf`).

Examples
--------
>>> from gblas.backends import reference as ref
>>> A = ref.RefMatrix.from_dict((2, 2), {(0, 1): 2.0, (1, 0): 3.0}, "float64")
>>> x = ref.RefVector.from_dict(2, {0: 1.0, 1: 1.0}, "float64")
>>> ref.mxv(A, x, "min_plus").data
{0: np.float64(3.0), 1: np.float64(4.0)}
"""

from .objects import RefMask, RefMatrix, RefVector
from .operations import (
    SELECT_OPS,
    apply,
    assign,
    ewise_add,
    ewise_mult,
    extract,
    mxm,
    mxv,
    reduce,
    select,
    transpose,
    vxm,
    write_back,
)
from .scalars import (
    AnyOf,
    any_of,
    candidates,
    cast,
    eval_binary,
    eval_unary,
    monoid_fold,
    scalar_dtype,
    scalars_close,
    to_python,
    truthy,
)

__all__ = [
    "SELECT_OPS",
    "AnyOf",
    "RefMask",
    "RefMatrix",
    "RefVector",
    "any_of",
    "apply",
    "assign",
    "candidates",
    "cast",
    "eval_binary",
    "eval_unary",
    "ewise_add",
    "ewise_mult",
    "extract",
    "monoid_fold",
    "mxm",
    "mxv",
    "reduce",
    "scalar_dtype",
    "scalars_close",
    "select",
    "to_python",
    "transpose",
    "truthy",
    "vxm",
    "write_back",
]
