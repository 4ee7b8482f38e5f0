"""Reference objects: dictionaries of entries with a size/shape and a dtype.

A :class:`RefVector` maps ``i -> value``, a :class:`RefMatrix` maps ``(i, j) -> value``;
values are NumPy scalars of the object's dtype (or :class:`~.scalars.AnyOf` for results
of ANY reductions).  A :class:`RefMask` wraps either with its kind (structural or value,
complemented or not).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .scalars import cast, truthy

__all__ = ["Entries", "RefMask", "RefMatrix", "RefVector"]


class Entries:
    """What :class:`RefVector` and :class:`RefMatrix` share: ``data`` (keys to values), a
    ``shape`` and a ``dtype``; read like a dict.

    Examples
    --------
    >>> v = RefVector.from_dict(3, {2: 1}, "int8")
    >>> isinstance(v, Entries), 2 in v, v.to_dense().tolist()
    (True, True, [0, 0, 1])
    """

    data: dict
    dtype: np.dtype

    @property
    def nvals(self) -> int:
        return len(self.data)

    def keys(self):
        return self.data.keys()

    def __getitem__(self, key):
        return self.data[key]

    def __contains__(self, key) -> bool:
        return key in self.data

    def get(self, key, default=None):
        return self.data.get(key, default)

    def to_dense(self, fill=0) -> np.ndarray:
        """A dense NumPy array (``fill`` where no entry; AnyOf takes its first candidate)."""
        out = np.full(self.shape, fill, dtype=self.dtype)
        for k, v in self.data.items():
            out[k] = getattr(v, "values", (v,))[0]
        return out

    def _dims(self) -> str:
        raise NotImplementedError

    def __repr__(self) -> str:
        items = ", ".join(f"{k}: {v!r}" for k, v in sorted(self.data.items()))
        return f"{type(self).__name__}({self._dims()}, dtype={self.dtype.name}, {{{items}}})"


@dataclass(repr=False)
class RefVector(Entries):
    """A sparse vector as ``{index: value}``.

    Examples
    --------
    >>> v = RefVector.from_dict(4, {1: 2.5, 3: -1.0}, "float32")
    >>> v.nvals, v[1], v.get(0)
    (2, np.float32(2.5), None)
    """

    size: int
    dtype: np.dtype
    data: dict = field(default_factory=dict)

    ndim = 1

    def __post_init__(self) -> None:
        self.size = int(self.size)
        self.dtype = np.dtype(self.dtype)

    @classmethod
    def from_dict(cls, size: int, data: dict, dtype) -> RefVector:
        """Build from ``{i: value}``, casting every value to ``dtype``."""
        dt = np.dtype(dtype)
        return cls(size, dt, {int(i): cast(v, dt) for i, v in data.items()})

    @classmethod
    def from_coo(cls, indices, values, size: int, dtype=None) -> RefVector:
        """Build from parallel index and value sequences (last duplicate wins)."""
        values = np.asarray(values)
        dt = np.dtype(dtype) if dtype is not None else values.dtype
        return cls.from_dict(size, dict(zip(map(int, indices), values.tolist())), dt)

    @classmethod
    def from_dense(cls, arr, dtype=None) -> RefVector:
        """Every entry present."""
        arr = np.asarray(arr)
        return cls.from_coo(range(arr.shape[0]), arr, arr.shape[0], dtype)

    @property
    def shape(self) -> tuple[int]:
        return (self.size,)

    def in_bounds(self, key) -> bool:
        return isinstance(key, (int, np.integer)) and 0 <= key < self.size

    def empty_like(self, dtype=None) -> RefVector:
        return RefVector(self.size, self.dtype if dtype is None else dtype, {})

    def copy(self) -> RefVector:
        return RefVector(self.size, self.dtype, dict(self.data))

    def _dims(self) -> str:
        return f"size={self.size}"


@dataclass(repr=False)
class RefMatrix(Entries):
    """A sparse matrix as ``{(i, j): value}``.

    Examples
    --------
    >>> A = RefMatrix.from_dict((2, 3), {(0, 2): 1, (1, 0): 5}, "int8")
    >>> A.nvals, A[(1, 0)], A.transpose().shape
    (2, np.int8(5), (3, 2))
    """

    shape: tuple[int, int]
    dtype: np.dtype
    data: dict = field(default_factory=dict)

    ndim = 2

    def __post_init__(self) -> None:
        self.shape = (int(self.shape[0]), int(self.shape[1]))
        self.dtype = np.dtype(self.dtype)

    @classmethod
    def from_dict(cls, shape, data: dict, dtype) -> RefMatrix:
        """Build from ``{(i, j): value}``, casting every value to ``dtype``."""
        dt = np.dtype(dtype)
        return cls(shape, dt, {(int(i), int(j)): cast(v, dt) for (i, j), v in data.items()})

    @classmethod
    def from_coo(cls, rows, cols, values, shape, dtype=None) -> RefMatrix:
        """Build from parallel row, column and value sequences (last duplicate wins)."""
        values = np.asarray(values)
        dt = np.dtype(dtype) if dtype is not None else values.dtype
        keys = zip(map(int, rows), map(int, cols))
        return cls.from_dict(shape, dict(zip(keys, values.tolist())), dt)

    @classmethod
    def from_dense(cls, arr, dtype=None) -> RefMatrix:
        """Every entry present."""
        arr = np.asarray(arr)
        m, n = arr.shape
        rows, cols = np.divmod(np.arange(m * n), n) if n else (np.zeros(0), np.zeros(0))
        return cls.from_coo(rows, cols, arr.reshape(-1), (m, n), dtype)

    @property
    def nrows(self) -> int:
        return self.shape[0]

    @property
    def ncols(self) -> int:
        return self.shape[1]

    def in_bounds(self, key) -> bool:
        i, j = key
        return 0 <= i < self.shape[0] and 0 <= j < self.shape[1]

    def empty_like(self, dtype=None) -> RefMatrix:
        return RefMatrix(self.shape, self.dtype if dtype is None else dtype, {})

    def copy(self) -> RefMatrix:
        return RefMatrix(self.shape, self.dtype, dict(self.data))

    def transpose(self) -> RefMatrix:
        return RefMatrix((self.shape[1], self.shape[0]), self.dtype,
                         {(j, i): v for (i, j), v in self.data.items()})

    @property
    def T(self) -> RefMatrix:  # noqa: N802 - matches the Matrix API
        return self.transpose()

    def row(self, i: int) -> dict:
        """``{j: value}`` of row ``i`` in column order."""
        return {j: v for (r, j), v in sorted(self.data.items()) if r == i}

    def col(self, j: int) -> dict:
        """``{i: value}`` of column ``j`` in row order."""
        return {i: v for (i, c), v in sorted(self.data.items()) if c == j}

    def _dims(self) -> str:
        return f"shape={self.shape}"


@dataclass
class RefMask:
    """A mask: ``obj`` read structurally (``structural=True``) or by value, maybe complemented.

    Examples
    --------
    >>> v = RefVector.from_dict(3, {0: 0, 1: 4}, "int64")
    >>> m = RefMask(v, structural=False)
    >>> [m(i) for i in range(3)], [(~m)(i) for i in range(3)]
    ([False, True, False], [True, False, True])
    """

    obj: Any
    structural: bool = True
    complement: bool = False

    @property
    def shape(self):
        return self.obj.shape

    def __call__(self, key) -> bool:
        if key in self.obj.data:
            hit = True if self.structural else truthy(self.obj.data[key])
        else:
            hit = False
        return hit != self.complement

    def __invert__(self) -> RefMask:
        return RefMask(self.obj, self.structural, not self.complement)

    @property
    def kind(self) -> str:
        """``"S"``, ``"V"``, ``"~S"`` or ``"~V"``."""
        return ("~" if self.complement else "") + ("S" if self.structural else "V")
