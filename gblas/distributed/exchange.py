"""What runs on the workers: a block's partial product, the reduce along a grid row, the
re-cut of vector segments, and a local gblas call on segments or blocks.

These functions take gblas objects (the blocks and segments the futures hold) and plain
values; they never mutate an input (worker data may be shared by several distributed
objects), so a result is always a new object.  Operators travel as names when built in,
and user-defined ones as cloudpickle payloads (their Python functions by value), unpacked
once per worker process (so Numba compiles them once per process).

Examples
--------
>>> import gblas as gb
>>> A = gb.Matrix.from_coo([0, 1], [1, 0], [2.0, 3.0], shape=(2, 2))
>>> x = gb.Vector.from_dense([1.0, 10.0])
>>> block_product(A, x, "plus_times", False).to_dense().tolist()
[20.0, 3.0]
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys

import numpy as np

__all__ = ["ship", "unship", "block_product", "reduce_row", "cut", "realign", "local_call",
           "MaskSpec", "Offset", "nvals", "words"]


# ------------------------------------------------------------------------ operators

class Shipped:
    """A user-defined operator in transit: cloudpickle bytes and their digest."""

    __slots__ = ("payload", "digest", "name")

    def __init__(self, payload: bytes, name: str) -> None:
        self.payload = payload
        self.digest = hashlib.sha1(payload).hexdigest()
        self.name = name

    def __reduce__(self):
        return (Shipped, (self.payload, self.name))

    def __repr__(self) -> str:
        return f"Shipped({self.name!r})"


_UNSHIPPED: dict = {}


def _strip(obj):
    """A copy of an operator without its per-process caches (compiled functions)."""
    from ..semirings.ops import BinaryOp, Monoid, Semiring, UnaryOp

    if isinstance(obj, Semiring):
        return Semiring(obj.name, _strip(obj.add), _strip(obj.multiply))
    if isinstance(obj, Monoid):
        return dataclasses.replace(obj, op=_strip(obj.op))
    if isinstance(obj, (BinaryOp, UnaryOp)):
        orig = getattr(obj, "_orig", None)
        if orig is not None:  # a flipped operator: ship the original, flip on arrival
            return ("flipped", _strip(orig))
        return dataclasses.replace(obj, _cache={})
    return obj


def _builtin_name(obj):
    from ..semirings.builtin import BINARY, MONOIDS, SEMIRINGS, UNARY
    from ..semirings.ops import BinaryOp, Monoid, Semiring, UnaryOp

    for cls, table in ((Semiring, SEMIRINGS), (Monoid, MONOIDS), (BinaryOp, BINARY),
                       (UnaryOp, UNARY)):
        if isinstance(obj, cls):
            name = getattr(obj, "name", None)
            return name if name is not None and table.get(name) is obj else None
    return None


def ship(obj):
    """An operator ready to send: its name when built in, else a :class:`Shipped` payload
    (cloudpickle, the user's functions pickled by value so that workers need not import
    the module that defined them).  Anything else (strings, numbers, None) is unchanged.

    Examples
    --------
    >>> import gblas as gb
    >>> ship(gb.semirings.min_plus), ship("plus"), ship(None)
    ('min_plus', 'plus', None)
    >>> op = gb.BinaryOp("half", lambda a, b: (a + b) / 2)
    >>> unship(ship(op)).func(1.0, 2.0)
    1.5
    """
    from ..semirings.ops import BinaryOp, Monoid, Semiring, UnaryOp

    if isinstance(obj, (Semiring, Monoid, BinaryOp, UnaryOp)):
        name = _builtin_name(obj)
        if name is not None:
            return name
        return Shipped(_pickle_by_value(obj, _strip(obj)), getattr(obj, "name", "op"))
    if callable(obj) and not isinstance(obj, type):
        return Shipped(_pickle_by_value(obj, obj), getattr(obj, "__name__", "function"))
    return obj


def _pickle_by_value(obj, payload) -> bytes:
    """``payload`` pickled by cloudpickle with the user modules that ``obj``'s functions
    come from pickled by value (registered for this call only)."""
    import cloudpickle

    mods = _user_modules(obj)
    for m in mods:
        cloudpickle.register_pickle_by_value(m)
    try:
        return cloudpickle.dumps(payload)
    finally:
        for m in mods:
            cloudpickle.unregister_pickle_by_value(m)


def _user_modules(obj) -> list:
    """The modules (outside gblas, NumPy and the standard library) whose functions
    ``obj`` holds: they are pickled by value."""
    funcs = []

    def visit(o):
        for attr in ("func", "op", "add", "multiply", "_orig"):
            v = getattr(o, attr, None)
            if v is not None and v is not o:
                visit(v)
        if callable(o) and hasattr(o, "__module__"):
            funcs.append(o)

    visit(obj)
    mods = []
    for f in funcs:
        name = getattr(f, "__module__", None) or ""
        root = name.split(".")[0]
        if root in ("gblas", "numpy", "numba", "builtins", "__main__", "") \
                or root in sys.stdlib_module_names:
            continue
        mod = sys.modules.get(name)
        if mod is not None and mod not in mods:
            mods.append(mod)
    return mods


def unship(obj):
    """The operator a :func:`ship` result stands for (unpacked once per process)."""
    if not isinstance(obj, Shipped):
        return obj
    got = _UNSHIPPED.get(obj.digest)
    if got is None:
        import cloudpickle

        got = cloudpickle.loads(obj.payload)
        got = _unflip(got)
        _UNSHIPPED[obj.digest] = got
    return got


def _unflip(obj):
    from ..semirings.ops import Monoid, Semiring

    if isinstance(obj, tuple) and len(obj) == 2 and obj[0] == "flipped":
        return _unflip(obj[1]).flipped()
    if isinstance(obj, Semiring):
        return Semiring(obj.name, _unflip(obj.add), _unflip(obj.multiply))
    if isinstance(obj, Monoid):
        return dataclasses.replace(obj, op=_unflip(obj.op))
    return obj


# ---------------------------------------------------------------------------- masks

class MaskSpec(tuple):
    """A mask in a task's arguments: ``(parent, structural, complement)``; the parent is
    a future that Dask resolves (it looks inside tuples) before the task runs."""

    __slots__ = ()

    def __new__(cls, parent, structural: bool, complement: bool):
        return tuple.__new__(cls, (parent, structural, complement))

    def __reduce__(self):
        return (MaskSpec, tuple(self))


def _mask(spec):
    if spec is None:
        return None
    from ..core.mask import Mask

    parent, structural, complement = spec
    return Mask(parent, bool(structural), bool(complement))


def _unpack(value):
    """Task argument -> local object: masks rebuilt, operators unshipped."""
    if isinstance(value, tuple) and len(value) == 4 and value[0] == "__mask__":
        return _mask(value[1:])
    return unship(value)


def _on(device: str, obj):
    """``obj`` (a Vector, Matrix or Mask) on ``device``: a segment sent from the client
    lives on the CPU, a block of a GPU worker on its GPU."""
    from ..core.mask import Mask

    if isinstance(obj, Mask):
        return obj if obj.parent.device == device else Mask(obj.parent.to(device),
                                                            obj.structural, obj.complement)
    if hasattr(obj, "device") and hasattr(obj, "to") and obj.device != device:
        return obj.to(device)
    return obj


def _device_of_args(args) -> str:
    for a in args:
        d = getattr(a, "device", None)
        if d is not None and hasattr(a, "shape"):
            return d
    return "cpu"


# --------------------------------------------------------------------------- tasks

def block_product(block, x, semiring, transposed: bool, left: bool = False):
    """One block's partial product: ``A_ij (+.*) x_j`` (``mxv``), or ``x_i (+.*) A_ij``
    (``vxm``, ``left``), over the block or its transpose."""
    from ..core.operations import mxv, vxm

    A = block.T if transposed else block
    if hasattr(x, "as_vector"):  # an algorithm's per-segment state
        x = x.as_vector()
    x = _on(block.device, x)
    s = unship(semiring)
    return vxm(x, A, s) if left else mxv(A, x, s)


def reduce_row(partials: list, add, mask, accum, out, replace: bool, dtype, size: int):
    """The reduce along a grid row with the semiring's add monoid, then the write-back
    ``out<mask, replace> (+)= T`` of this row segment (``out`` copied first)."""
    from ..core.elementwise import apply, ewise_add
    from ..core.vector import Vector
    from ..semirings import monoid

    op = monoid(unship(add), "reduce_row").op
    # the block on this worker (if any) comes as its arguments: its partial is computed
    # here, one task fewer per grid row
    partials = [block_product(*p[1:]) if isinstance(p, tuple) and p and p[0] == "__home__"
                else p for p in partials]
    T = partials[0] if partials else Vector.empty(size, dtype)
    for p in partials[1:]:
        T = ewise_add(T, _on(T.device, p), op)
    mask = _on(T.device, _unpack(mask))
    accum = unship(accum)
    if mask is None and accum is None and out is None:
        return T
    out = Vector.empty(size, T.dtype, T.device) if out is None else _on(T.device, out.dup())
    return apply(T, "identity", mask=mask, accum=accum, out=out, replace=replace)


def cut(vec, lo: int, hi: int):
    """``vec[lo:hi]`` as a new Vector (a local Vector split into segments)."""
    from ..core.structure import extract

    return extract(vec, np.arange(lo, hi, dtype=np.int64))


def realign(parts: list, starts: list, lo: int, hi: int, dtype):
    """The segment ``[lo, hi)`` from the overlapping source segments ``parts`` (starting
    at ``starts``)."""
    from ..core.vector import Vector

    idx, vals = [], []
    for p, s in zip(parts, starts):
        i, v = p.to("cpu").to_coo()
        i = i.astype(np.int64) + int(s)
        keep = (i >= lo) & (i < hi)
        idx.append(i[keep] - lo)
        vals.append(v[keep])
    i = np.concatenate(idx) if idx else np.zeros(0, np.int64)
    v = np.concatenate(vals) if vals else np.zeros(0, dtype)
    return Vector.from_coo(i, v.astype(dtype, copy=False), hi - lo, dtype=dtype)


class Offset:
    """A user's select predicate seen from a block: indices shifted to global ones."""

    __slots__ = ("pred", "r0", "c0")

    def __init__(self, pred, r0: int, c0: int) -> None:
        self.pred, self.r0, self.c0 = pred, int(r0), int(c0)

    def __call__(self, rows, cols, values, thunk):
        return unship(self.pred)(rows + self.r0, cols + self.c0, values, thunk)

    def __reduce__(self):
        return (Offset, (self.pred, self.r0, self.c0))


def local_call(name: str, args: tuple, kwargs: dict):
    """``gb.<name>(*args, **kwargs)`` on local segments or blocks (``out`` copied first)."""
    import gblas

    args = tuple(_unpack(a) for a in args)
    kwargs = {k: _unpack(v) for k, v in kwargs.items()}
    dev = _device_of_args(args)
    args = tuple(_on(dev, a) for a in args)
    kwargs = {k: _on(dev, v) for k, v in kwargs.items()}
    if kwargs.get("out") is not None:
        kwargs["out"] = kwargs["out"].dup()
    if name == "assign" and args:
        args = (args[0].dup(),) + args[1:]
    return getattr(gblas, name)(*args, **kwargs)


def nvals(obj) -> int:
    """The number of entries of a block or segment."""
    return int(obj.nvals)


def words(obj) -> int:
    """Bytes a segment or block takes on the wire (its arrays)."""
    from ..core.matrix import Matrix

    if isinstance(obj, Matrix):
        c = obj.csr()
        return int(c.indptr.nbytes + c.indices.nbytes
                   + (0 if c.values is None else c.values.nbytes))
    d = obj._data
    total = 0
    for a in (d.indices, d.values, d.present):
        total += 0 if a is None else int(a.nbytes)
    return total
