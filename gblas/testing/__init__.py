"""Public test kit: hypothesis strategies, the reference semantics and assertions.

Use it to test code built on gblas, or gblas itself against its oracle::

    from hypothesis import given
    import gblas as gb
    from gblas import testing as gbt
    from gblas.backends import reference as ref

    @given(gbt.strategies.matrices((5, 4), "float64"), gbt.strategies.vectors(4, "float64"))
    def test_mxv(A, x):
        expected = ref.mxv(gbt.to_reference(A), gbt.to_reference(x), "min_plus")
        gbt.assert_equal(gb.mxv(A, x, "min_plus"), expected)

* :mod:`gblas.testing.strategies` — dtypes, scalars, vectors, matrices (any density,
  empty and 0-size included), masks of every kind, semirings by family, user-defined
  semirings and monoids, accumulators, graphs;
* :func:`to_reference` — gblas / NumPy / SciPy objects to the oracle's dict objects;
* :func:`assert_equal`, :func:`assert_scalar_equal` — NaN-, ANY- and tolerance-aware
  comparisons that print a readable diff;
* :mod:`gblas.backends.reference` — the oracle itself (re-exported here as ``reference``);
* :mod:`gblas.testing.oracle` — random kernel inputs and a per-step oracle of products
  (every row's list of products, for kernel tests on any device).

Examples
--------
>>> from gblas import testing as gbt
>>> r = gbt.reference.RefVector.from_dict(3, {1: 2.0}, "float64")
>>> gbt.assert_equal(r, gbt.reference.RefVector.from_dict(3, {1: 2.0}, "float64"))
"""

from ..backends import reference
from .assertions import DEFAULT_TOLERANCE, assert_equal, assert_scalar_equal, to_reference


def __getattr__(name):
    # strategies need hypothesis (a test dependency): import them on first use only
    if name in ("strategies", "oracle"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_TOLERANCE",
    "assert_equal",
    "assert_scalar_equal",
    "oracle",
    "reference",
    "strategies",
    "to_reference",
]
