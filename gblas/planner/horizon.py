"""What a build is weighed against: the calls a matrix has served and those expected.

The planner builds a format when the calls it weighs would pay for the build (a ski
rental): the calls so far plus this one, or the calls the caller expects
(``gb.config(expected_uses=...)``) when more.
"""

from __future__ import annotations

from ..formats import FORMATS

__all__ = ["horizon", "megabytes", "total_uses"]


def total_uses(A, transposed: bool) -> int:
    """Calls that have used ``A`` (or ``A^T``) in any format so far.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0], [1], [1.0], shape=(2, 2))
    >>> _ = gb.mxv(A, gb.Vector.from_dense([1.0, 2.0])); total_uses(A, False)
    1
    """
    return sum(A.uses(name, transposed=transposed) for name in FORMATS)


def horizon(uses: int, expected_uses: int | None, details: dict) -> tuple[int, str, str]:
    """The calls a build is weighed against: this one and those so far, or the calls
    the caller expects (``gb.config(expected_uses=...)``) when more; with the words of
    the two reasons (``details`` gets ``expected_uses`` when given).

    Examples
    --------
    >>> horizon(4, None, {})
    (5, '5 uses', '4 so far')
    >>> horizon(4, 20, {})[0]
    20
    """
    if not expected_uses:
        return uses + 1, f"{uses + 1} uses", f"{uses} so far"
    details["expected_uses"] = expected_uses
    calls = max(uses + 1, expected_uses)
    return (calls, f"{calls} uses ({uses} so far, {expected_uses} expected)",
            f"{uses} so far, {expected_uses} expected")


def megabytes(nbytes: float) -> str:
    """``nbytes`` in MB for a plan's words.

    Examples
    --------
    >>> megabytes(3 << 20)
    '3 MB'
    """
    return f"{nbytes / 2**20:.3g} MB"
