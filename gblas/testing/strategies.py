"""Hypothesis strategies for gblas objects, operators and masks.

Every strategy that builds a Vector, Matrix or mask takes ``reference=True`` to build the
oracle's object instead (:mod:`gblas.backends.reference`), which needs no core; by default
it builds a ``gb.Vector`` / ``gb.Matrix`` (on ``device``).

Values are *exact* by default: floats are small dyadic rationals (multiples of 1/4 in
[-16, 16]), so that float sums and products of a few terms are exact in any order and
results can be compared without tolerance.  Pass ``exact=False`` for arbitrary floats
(then compare with a tolerance, see :func:`gblas.testing.assert_equal`).

User-defined operators are module-level singletons: Numba compiles each (operator, dtype)
once per process, so strategies must not create fresh operators per example.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from .. import dtypes as _dtypes
from ..semirings.builtin import BINARY, MONOIDS, SEMIRINGS, UNARY
from ..semirings.ops import BinaryOp, Monoid, Semiring

__all__ = [
    "ACCUMS",
    "MASK_KINDS",
    "SEMIRING_FAMILIES",
    "USER_MONOIDS",
    "USER_SEMIRINGS",
    "accums",
    "binary_ops",
    "dtypes",
    "graphs",
    "make_mask",
    "masks",
    "matrices",
    "monoids",
    "scalars",
    "semirings",
    "shapes",
    "unary_ops",
    "user_semirings",
    "vectors",
]

MASK_KINDS = (None, "S", "V", "~S", "~V")
"""Every mask kind: none, structural, value, and both complements."""

ACCUMS = (None, "plus", "min", "second")
"""The accumulators the operation tests sweep."""

# ------------------------------------------------------------------ user operators

_clip_times = BinaryOp("clip_times", lambda a, b: min(a * b, 1.0))
_absdiff = BinaryOp("absdiff", lambda a, b: a - b if a > b else b - a, commutative=True)
_bor = BinaryOp("bor", lambda a, b: a | b, commutative=True)
_umax = BinaryOp("umax", lambda a, b: a if a >= b else b, commutative=True)

USER_MONOIDS: dict[str, Monoid] = {
    "bor": Monoid(_bor, identity=0, name="bor"),  # integer and bool dtypes only
    "umax": Monoid(_umax, identity=_dtypes.min_value, name="umax"),  # no NaN
}
"""User-defined monoids built from lambdas (``bor`` for integer/bool dtypes only)."""

USER_SEMIRINGS: dict[str, Semiring] = {
    "max_clip": Semiring("max_clip", add=MONOIDS["max"], multiply=_clip_times),
    "plus_absdiff": Semiring("plus_absdiff", add=MONOIDS["plus"], multiply=_absdiff),
    "umax_times": Semiring("umax_times", add=USER_MONOIDS["umax"], multiply=BINARY["times"]),
}
"""User-defined semirings built from lambdas (as in DESIGN §2)."""

SEMIRING_FAMILIES: dict[str, tuple] = {
    "plus_times": ("plus_times",),
    "min_plus": ("min_plus",),
    "max_min": ("max_min", "max_times"),
    "any": ("any_pair", "any_second"),
    "lor_land": ("lor_land",),
    "plus_pair": ("plus_pair",),
    "user": tuple(USER_SEMIRINGS.values()),
}
"""Semiring families swept by the operation tests: names or user Semiring objects."""


# ---------------------------------------------------------------------------- dtypes


def dtypes(kinds: str = "biuf", *, exclude=()) -> st.SearchStrategy[np.dtype]:
    """Supported dtypes whose ``kind`` is in ``kinds``.

    Parameters
    ----------
    kinds : str
        NumPy kind letters: ``b`` bool, ``i`` signed, ``u`` unsigned, ``f`` float.
    exclude : iterable of dtype-like
        Dtypes to leave out.

    Examples
    --------
    >>> from hypothesis import find
    >>> find(dtypes("f"), lambda dt: True)
    dtype('float32')
    """
    ex = {np.dtype(d) for d in exclude}
    choices = [d for d in _dtypes.SUPPORTED if d.kind in kinds and d not in ex]
    return st.sampled_from(choices)


def scalars(dtype, *, exact: bool = True, allow_nan: bool = False,
            allow_infinity: bool = False, small: bool = False) -> st.SearchStrategy:
    """Scalars of ``dtype`` (as NumPy scalars).

    Parameters
    ----------
    dtype : dtype-like
    exact : bool
        Floats are multiples of 1/4 in [-16, 16] (sums and products are exact).
    allow_nan, allow_infinity : bool
        Floats only: also draw NaN / +-inf (exact or not).
    small : bool
        Integers in [-16, 16] (clipped to the dtype's range) instead of the full range.

    Examples
    --------
    >>> from hypothesis import find
    >>> find(scalars("int8"), lambda v: v < -100)
    np.int8(-101)
    >>> find(scalars("float32", allow_nan=True), lambda v: v != v)
    np.float32(nan)
    """
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return st.booleans().map(np.bool_)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = (max(-16, int(info.min)), 16) if small else (int(info.min), int(info.max))
        return st.integers(lo, hi).map(dt.type)
    if exact:
        finite = st.integers(-64, 64).map(lambda k: dt.type(k / 4))
    else:
        width = 32 if dt == np.float32 else 64
        finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False,
                           width=width).map(dt.type)
    specials = _specials(allow_nan, allow_infinity)
    return finite | st.sampled_from(specials).map(dt.type) if specials else finite


def _specials(nan: bool, inf: bool) -> list:
    return ([float("nan")] if nan else []) + ([float("inf"), float("-inf")] if inf else [])


def shapes(max_dim: int = 8, *, min_dim: int = 0, square: bool = False):
    """Matrix shapes ``(m, n)`` with ``min_dim <= m, n <= max_dim`` (0-size included).

    Examples
    --------
    >>> from hypothesis import find
    >>> find(shapes(5, square=True), lambda s: s[0] > 2)
    (3, 3)
    """
    d = st.integers(min_dim, max_dim)
    return d.map(lambda n: (n, n)) if square else st.tuples(d, d)


_DENSITIES = (0.0, 0.15, 0.4, 0.75, 1.0)


def _positions(draw, total: int, density):
    p = draw(st.sampled_from(_DENSITIES)) if density is None else float(density)
    k = int(round(p * total))
    if k == 0:
        return []
    perm = draw(st.permutations(range(total))) if k < total else range(total)
    return sorted(perm[:k])


def _values(draw, dt, k, exact, allow_nan, small, elements=None):
    if k == 0:
        return np.zeros(0, dtype=dt)
    if elements is None:
        elements = scalars(dt, exact=exact, allow_nan=allow_nan, small=small)
    vals = draw(st.lists(elements, min_size=k, max_size=k))
    return np.array(vals, dtype=dt)


def _pick_dtype(draw, dtype):
    return draw(dtypes()) if dtype is None else _dtypes.lookup(dtype)


@st.composite
def vectors(draw, size=None, dtype=None, *, density=None, max_size: int = 10,
            exact: bool = True, allow_nan: bool = False, small: bool = False,
            elements=None, storage=None, device: str = "cpu", reference: bool = False):
    """Sparse vectors.

    Parameters
    ----------
    size : int, optional
        Drawn from ``[0, max_size]`` when omitted.
    dtype : dtype-like, optional
        Drawn from every supported dtype when omitted.
    density : float, optional
        Fraction of positions present; drawn from {0, .15, .4, .75, 1} when omitted.
    exact, allow_nan, small : bool
        Passed to :func:`scalars`.
    elements : SearchStrategy, optional
        Draw the values from this strategy instead (e.g. ``scalars(dt, allow_nan=True,
        allow_infinity=True)``).
    storage : {"sparse", "dense"}, optional
        How the vector is built: ``Vector.from_coo`` (sparse storage) or
        ``Vector.from_dense`` (dense storage: with presence flags where entries are
        missing, the form a pull product's result takes); drawn when omitted.
    device : {"cpu", "gpu"}
    reference : bool
        Build a :class:`~gblas.backends.reference.RefVector` instead of a ``gb.Vector``.

    Examples
    --------
    >>> from hypothesis import find
    >>> v = find(vectors(4, "int64", reference=True), lambda v: v.nvals == 4)
    >>> v.size, v.nvals
    (4, 4)
    """
    n = draw(st.integers(0, max_size)) if size is None else int(size)
    dt = _pick_dtype(draw, dtype)
    idx = np.array(_positions(draw, n, density), dtype=np.int64)
    vals = _values(draw, dt, len(idx), exact, allow_nan, small, elements)
    if reference:
        from ..backends.reference import RefVector

        return RefVector.from_coo(idx, vals, n, dt)
    import gblas as gb

    if storage is None:
        storage = draw(st.sampled_from(["sparse", "dense"]))
    if storage == "dense" and len(idx) == n:
        v = gb.Vector.from_dense(vals, dtype=dt)
    elif storage == "dense":
        values, present = np.zeros(n, dtype=dt), np.zeros(n, dtype=bool)
        values[idx], present[idx] = vals, True
        v = gb.Vector.from_dense(values, dtype=dt, present=present)
    else:
        v = gb.Vector.from_coo(idx, vals, n, dtype=dt)
    return v if device == "cpu" else v.to(device)


@st.composite
def matrices(draw, shape=None, dtype=None, *, density=None, max_dim: int = 8,
             exact: bool = True, allow_nan: bool = False, small: bool = False,
             elements=None, iso=False, device: str = "cpu", reference: bool = False):
    """Sparse matrices.

    Parameters
    ----------
    shape : (int, int), optional
        Drawn with :func:`shapes` (each dimension in ``[0, max_dim]``) when omitted; either
        dimension may be None to draw it alone.
    dtype, density, exact, allow_nan, small, elements, device, reference
        As for :func:`vectors`.
    iso : bool or None
        Every entry has the same value, passed to ``Matrix.from_coo`` as a scalar (an iso
        matrix that stores no values; a bool one is a pattern built with ``values=None``).
        None draws it.

    Examples
    --------
    >>> from hypothesis import find
    >>> A = find(matrices((3, 2), "bool", density=1.0, reference=True), lambda A: True)
    >>> A.shape, A.nvals
    ((3, 2), 6)
    """
    if shape is None:
        shape = (None, None)
    m, n = (draw(st.integers(0, max_dim)) if d is None else int(d) for d in shape)
    dt = _pick_dtype(draw, dtype)
    pos = _positions(draw, m * n, density)
    rows = np.array([p // n for p in pos], dtype=np.int64)
    cols = np.array([p % n for p in pos], dtype=np.int64)
    if iso is None:
        iso = draw(st.sampled_from([False, False, True]))
    if iso:
        value = draw(elements if elements is not None else
                     scalars(dt, exact=exact, allow_nan=allow_nan, small=small))
        if dt.kind == "b":
            value = np.True_
        vals = np.full(len(pos), value, dtype=dt)
    else:
        vals = _values(draw, dt, len(pos), exact, allow_nan, small, elements)
    if reference:
        from ..backends.reference import RefMatrix

        return RefMatrix.from_coo(rows, cols, vals, (m, n), dt)
    import gblas as gb

    if iso and dt.kind == "b":
        A = gb.Matrix.from_coo(rows, cols, None, shape=(m, n))
    elif iso:
        A = gb.Matrix.from_coo(rows, cols, value, shape=(m, n), dtype=dt)
    else:
        A = gb.Matrix.from_coo(rows, cols, vals, shape=(m, n), dtype=dt)
    return A if device == "cpu" else A.to(device)


@st.composite
def masks(draw, shape, kinds=MASK_KINDS, *, density=None, device: str = "cpu",
          reference: bool = False):
    """A mask of the given output shape (an int for a vector), of a kind from ``kinds``.

    Returns None (no mask), ``obj.S``, ``obj.V``, ``~obj.S`` or ``~obj.V`` for a freshly
    drawn object whose values include zeros (so value and structural masks differ); its
    dtype is bool, int8 or float64 (with NaN, which is truthy).  With ``reference=True`` a
    :class:`~gblas.backends.reference.RefMask` is returned instead.

    Examples
    --------
    >>> from hypothesis import find
    >>> m = find(masks(4, kinds=["~V"], reference=True), lambda m: True)
    >>> m.kind, m.shape
    ('~V', (4,))
    """
    kind = draw(st.sampled_from(list(kinds)))
    if kind is None:
        return None
    dt = np.dtype(draw(st.sampled_from(["bool", "int8", "float64"])))
    # zeros are frequent so that value masks differ from structural ones; NaN is truthy
    choices = [False, True] if dt.kind == "b" else [0, 0, 1, -3] + (
        [float("nan")] if dt.kind == "f" else [])
    elements = st.sampled_from(choices).map(dt.type)
    if isinstance(shape, (int, np.integer)):
        obj = draw(vectors(int(shape), dt, density=density, elements=elements, device=device,
                           reference=reference))
    else:
        obj = draw(matrices(tuple(shape), dt, density=density, elements=elements, iso=None,
                            device=device, reference=reference))
    return make_mask(obj, kind)


def make_mask(obj, kind):
    """The mask view of ``obj`` (gb object or reference object) for ``kind`` ("S", "~V"...).

    Examples
    --------
    >>> from gblas.backends.reference import RefVector
    >>> make_mask(RefVector.from_dict(2, {0: 1}, "int8"), "~S").kind
    '~S'
    """
    if kind is None:
        return None
    from ..backends.reference import RefMask, RefMatrix, RefVector

    structural = kind.endswith("S")
    complement = kind.startswith("~")
    if isinstance(obj, (RefVector, RefMatrix)):
        return RefMask(obj, structural, complement)
    m = obj.S if structural else obj.V
    return ~m if complement else m


# ------------------------------------------------------------------------- operators


def semirings(families=None) -> st.SearchStrategy:
    """Semirings (names, or user Semiring objects) of the given families.

    Parameters
    ----------
    families : iterable of str, optional
        Keys of :data:`SEMIRING_FAMILIES`; ``"builtin"`` means every built-in semiring.
        Default: every family.

    Examples
    --------
    >>> from hypothesis import find
    >>> find(semirings(["min_plus"]), lambda s: True)
    'min_plus'
    """
    if families is None:
        families = list(SEMIRING_FAMILIES)
    choices: list = []
    for f in families:
        choices.extend(sorted(SEMIRINGS) if f == "builtin" else SEMIRING_FAMILIES[f])
    return st.sampled_from(choices)


def user_semirings() -> st.SearchStrategy[Semiring]:
    """The user-defined semirings of :data:`USER_SEMIRINGS`.

    Examples
    --------
    >>> from hypothesis import find
    >>> find(user_semirings(), lambda s: True).name
    'max_clip'
    """
    return st.sampled_from(list(USER_SEMIRINGS.values()))


def monoids(*, user: bool = False) -> st.SearchStrategy:
    """Built-in monoid names (and the user monoids with ``user=True``).

    Examples
    --------
    >>> from hypothesis import find
    >>> find(monoids(), lambda m: m == "max")
    'max'
    """
    names: list = sorted(MONOIDS)
    return st.sampled_from(names + (list(USER_MONOIDS.values()) if user else []))


def binary_ops(*, exclude=("div",)) -> st.SearchStrategy[str]:
    """Built-in binary operator names (``div`` is float-only and left out by default).

    Examples
    --------
    >>> from hypothesis import find
    >>> find(binary_ops(), lambda op: op.startswith("pl"))
    'plus'
    """
    return st.sampled_from([n for n in BINARY if n not in exclude])


def unary_ops(*, float_only: bool = False) -> st.SearchStrategy[str]:
    """Built-in unary operator names; those for floats only with ``float_only=True``.

    Examples
    --------
    >>> from hypothesis import find
    >>> find(unary_ops(), lambda op: True)
    'identity'
    """
    return st.sampled_from([n for n, op in UNARY.items() if float_only or not op.float_only])


def accums(choices=ACCUMS) -> st.SearchStrategy:
    """Accumulators: None or a binary operator name (default :data:`ACCUMS`).

    Examples
    --------
    >>> from hypothesis import find
    >>> find(accums(), lambda a: a is not None)
    'plus'
    """
    return st.sampled_from(list(choices))


@st.composite
def graphs(draw, n=None, *, max_n: int = 12, directed: bool = True, weighted: bool = False,
           self_loops: bool = False, dtype="float64", device: str = "cpu",
           reference: bool = False):
    """Adjacency matrices of random graphs (square, bool pattern unless ``weighted``).

    Weights are positive dyadic values (exact in float arithmetic); an undirected graph is
    symmetric.

    Examples
    --------
    >>> from hypothesis import find
    >>> A = find(graphs(5, directed=False, reference=True), lambda A: A.nvals > 2)
    >>> all((j, i) in A.data for (i, j) in A.data)
    True
    """
    n = draw(st.integers(0, max_n)) if n is None else int(n)
    pairs = [(i, j) for i in range(n) for j in range(n)
             if (self_loops or i != j) and (directed or i <= j)]
    chosen = [p for p, keep in zip(pairs, draw(st.lists(st.booleans(), min_size=len(pairs),
                                                        max_size=len(pairs)))) if keep]
    dt = np.dtype(dtype) if weighted else _dtypes.BOOL
    w = (draw(st.lists(st.integers(1, 32), min_size=len(chosen), max_size=len(chosen)))
         if weighted else [1] * len(chosen))
    edges = {}
    for (i, j), wij in zip(chosen, w):
        edges[(i, j)] = wij / 4 if weighted and dt.kind == "f" else wij
        if not directed:
            edges[(j, i)] = edges[(i, j)]
    rows = np.array([k[0] for k in edges], dtype=np.int64)
    cols = np.array([k[1] for k in edges], dtype=np.int64)
    vals = np.array(list(edges.values()), dtype=dt) if edges else np.zeros(0, dt)
    if reference:
        from ..backends.reference import RefMatrix

        return RefMatrix.from_coo(rows, cols, vals, (n, n), dt)
    import gblas as gb

    A = gb.Matrix.from_coo(rows, cols, vals, shape=(n, n), dtype=dt)
    return A if device == "cpu" else A.to(device)
