"""DistVector: a Vector cut into contiguous segments, each a gblas Vector held by a worker
(a Dask future), and DistMask, the mask views of distributed objects.

Examples
--------
>>> DistVector.__gblas_dispatch__ is not None
True
"""

from __future__ import annotations

import numpy as np

from ..core.mask import MaskViews
from ..exceptions import DimensionMismatch, InvalidValue, bad_arg
from . import exchange
from .checkpoint import scatter

__all__ = ["DistVector", "DistMask", "scatter_vector"]


def dispatch_hook(name, args, kwargs):
    from .operations import dispatch

    return dispatch(name, args, kwargs)


class DistVector(MaskViews):
    """A Vector of ``size`` entries cut at ``bounds`` into segments held by workers.

    ``parts[k]`` is a future of the gblas Vector of positions ``bounds[k]:bounds[k + 1]``,
    kept on ``owners[k]``.  Operations (``gb.mxv``, ``gb.ewise_add`` ...) take and return
    DistVectors; :meth:`gather` collects the local Vector.
    """

    is_distributed = True
    __gblas_dispatch__ = staticmethod(dispatch_hook)

    def __init__(self, client, bounds: np.ndarray, parts: list, owners: list, dtype,
                 device: str = "cpu", timeout: float | None = None) -> None:
        self.client = client
        self.bounds = np.asarray(bounds, dtype=np.int64)
        self.parts = list(parts)
        self.owners = list(owners)
        self.dtype = np.dtype(dtype)
        self.device = device
        self.timeout = timeout

    # ------------------------------------------------------------------ properties
    @property
    def size(self) -> int:
        return int(self.bounds[-1])

    @property
    def shape(self) -> tuple[int]:
        return (self.size,)

    @property
    def nvals(self) -> int:
        """Entries present (one small task per segment, summed here)."""
        from .operations import wait

        futs = [self.client.submit(exchange.nvals, p, workers=[w], pure=False)
                for p, w in zip(self.parts, self.owners)]
        return int(sum(wait(self.client, futs, "DistVector.nvals", self.timeout)))

    def _replace(self, other: DistVector) -> None:
        """Take ``other``'s segments (an operation's ``out=``)."""
        self.bounds, self.parts, self.owners = other.bounds, other.parts, other.owners
        self.dtype, self.device = other.dtype, other.device

    # ------------------------------------------------------------------ collecting
    def gather(self):
        """The local gblas Vector (every segment brought to the client).

        Examples
        --------
        >>> DistVector.gather.__doc__.split()[1]
        'local'
        """
        from ..core.vector import Vector
        from .operations import wait

        segs = wait(self.client, list(self.parts), "DistVector.gather", self.timeout)
        idx, vals = [], []
        for s, lo in zip(segs, self.bounds[:-1]):
            i, v = s.to("cpu").to_coo()
            idx.append(np.asarray(i, dtype=np.int64) + int(lo))
            vals.append(np.asarray(v))
        i = np.concatenate(idx) if idx else np.zeros(0, np.int64)
        v = np.concatenate(vals) if vals else np.zeros(0, self.dtype)
        return Vector.from_coo(i, v.astype(self.dtype, copy=False), self.size,
                               dtype=self.dtype)

    def to_dense(self, fill=0):
        """``gather().to_dense(fill)``."""
        return self.gather().to_dense(fill)

    def to_coo(self):
        """``gather().to_coo()``."""
        return self.gather().to_coo()

    def dup(self) -> DistVector:
        """A new DistVector sharing the segments (segments are never written in place)."""
        return DistVector(self.client, self.bounds, self.parts, self.owners, self.dtype,
                          self.device, self.timeout)

    def __repr__(self) -> str:
        return (f"DistVector(size={self.size}, segments={len(self.parts)}, "
                f"dtype={self.dtype.name}, device={self.device!r})")


class DistMask:
    """``v.S``, ``v.V``, ``~v.S``, ``~v.V`` of a DistVector (or DistMatrix)."""

    is_distributed = True
    __gblas_dispatch__ = staticmethod(dispatch_hook)

    def __init__(self, parent, structural: bool, complement: bool = False) -> None:
        self.parent = parent
        self.structural = structural
        self.complement = complement

    def __invert__(self) -> DistMask:
        return DistMask(self.parent, self.structural, not self.complement)

    @property
    def shape(self):
        return self.parent.shape

    @property
    def kind(self) -> str:
        return ("~" if self.complement else "") + ("S" if self.structural else "V")

    def spec(self, part):
        """The task argument standing for this mask over one segment or block."""
        return ("__mask__", part, self.structural, self.complement)

    def __repr__(self) -> str:
        return f"DistMask({self.kind}, of {self.parent!r})"


DistVector.mask_type = DistMask  # the mask class is defined after the vector it masks


def scatter_vector(client, vec, bounds: np.ndarray, owners: list,
                   timeout: float | None = None) -> DistVector:
    """A local gblas Vector cut at ``bounds`` and its segments sent to ``owners``.

    Examples
    --------
    >>> scatter_vector.__name__
    'scatter_vector'
    """
    from ..core.vector import Vector

    if not isinstance(vec, Vector):
        raise bad_arg(DimensionMismatch, "distribute", "x", "a gb.Vector", type(vec).__name__)
    if vec.size != int(bounds[-1]):
        raise bad_arg(DimensionMismatch, "distribute", "x", f"a Vector of size "
                      f"{int(bounds[-1])}", f"size {vec.size}")
    if len(owners) != len(bounds) - 1:
        raise bad_arg(InvalidValue, "distribute", "owners", f"one worker per segment "
                      f"({len(bounds) - 1})", f"{len(owners)} workers")
    parts = []
    for k, w in enumerate(owners):
        seg = exchange.cut(vec, int(bounds[k]), int(bounds[k + 1]))
        parts.append(scatter(client, seg, w, "distribute", timeout))
    return DistVector(client, bounds, parts, owners, vec.dtype, vec.device, timeout)
