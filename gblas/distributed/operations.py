"""The operations on distributed operands: ``gb.mxv``, ``vxm``, ``ewise_add``,
``ewise_mult``, ``apply``, ``select``, ``reduce``, ``assign``, ``transpose`` and
``explain``, with masks, accumulators and ``replace``.

``gb.<name>`` hands a call with a distributed operand to :func:`dispatch` (through the
operands' ``__gblas_dispatch__``).  Each call is first checked on the client against
one-entry local stand-ins of its operands (the local operation's own checks, so errors
are the same and come at once, before any task is sent), then sent as tasks:

* a product (CombBLAS / cuGraph 2D): one task per block ``A_ij (+.*) x_j`` on the block's
  worker (Dask brings ``x_j`` there: the gather along the grid column), then one task per
  output segment that reduces the grid row's partials with the semiring's add monoid and
  writes ``out<mask, replace> (+)= T`` of that segment;
* an elementwise call: one task per segment (vectors) or block (matrices);
* a reduction to a scalar: one task per segment or block, combined on the client.

Local operands given with distributed ones are cut and sent to match; vectors cut
otherwise are re-cut by one task per segment.  Nothing waits for a result unless it is
asked for (``nvals``, ``gather``, a scalar ``reduce``): a chain of calls queues its tasks.

Examples
--------
>>> from gblas.distributed.operations import OPERATIONS
>>> sorted(OPERATIONS)[:4]
['apply', 'assign', 'ewise_add', 'ewise_mult']
"""

from __future__ import annotations

import numpy as np

from ..core.mask import Mask
from ..core.matrix import Matrix, TransposedMatrix
from ..core.vector import Vector
from ..exceptions import DimensionMismatch, InvalidObject, InvalidValue, NoKernel, bad_arg
from . import exchange
from .checkpoint import WorkerLost, is_fault, lost
from .grid import Grid, check_same_grid, same_bounds
from .matrix import DistMatrix, DistTransposed, distribute
from .vector import DistMask, DistVector, scatter_vector

__all__ = ["dispatch", "wait", "OPERATIONS", "align"]

_DIST = (DistVector, DistMatrix, DistTransposed, DistMask)


# ----------------------------------------------------------------------- plumbing

def wait(client, futures: list, call: str, timeout: float | None):
    """The results of ``futures``; a lost worker or a wait past ``timeout`` seconds
    becomes a :class:`~gblas.distributed.checkpoint.WorkerLost`."""
    from distributed import wait as dwait

    try:
        dwait(futures, timeout=timeout)
        return client.gather(futures)
    except Exception as e:  # noqa: BLE001 - sorted into faults and the task's own errors
        if is_fault(e) and not isinstance(e, WorkerLost):
            raise lost(call, e, timeout) from e
        raise


def _first_dist(objs):
    for o in objs:
        if isinstance(o, _DIST):
            return o
    return None


def _client_timeout(objs):
    d = _first_dist(objs)
    while isinstance(d, (DistMask, DistTransposed)):
        d = d.parent
    return d.client, d.timeout


def local_proxy(o):
    """A one-entry local stand-in of ``o`` (same kind and dtype) for the checks."""
    if isinstance(o, (DistVector, Vector)):
        return Vector.empty(1, o.dtype)
    if isinstance(o, (DistMatrix, Matrix)):
        return Matrix.from_coo(np.zeros(0, np.int64), np.zeros(0, np.int64),
                               np.zeros(0, o.dtype), shape=(1, 1))
    if isinstance(o, (DistTransposed, TransposedMatrix)):
        return local_proxy(o.parent).T
    if isinstance(o, (DistMask, Mask)):
        return Mask(local_proxy(o.parent), o.structural, o.complement)
    return o


def _check_with_proxies(name: str, args: tuple, kwargs: dict):
    """Run the local operation on stand-ins: its checks, and the result's kind and dtype."""
    import gblas

    return getattr(gblas, name)(*[local_proxy(a) for a in args],
                                **{k: local_proxy(v) for k, v in kwargs.items()})


def _check_size(call: str, arg: str, obj, shape: tuple) -> None:
    if obj is not None and tuple(obj.shape) != tuple(shape):
        raise bad_arg(DimensionMismatch, call, arg, f"shape {tuple(shape)}",
                      f"shape {tuple(obj.shape)}")


def align(v, bounds, owners, client, call: str, arg: str, timeout=None):
    """``v`` (a DistVector or local Vector) cut at ``bounds``: itself when it already is,
    else one re-cut task per segment (or the local Vector cut and sent)."""
    if v is None:
        return None
    if isinstance(v, Vector):
        return scatter_vector(client, v, bounds, owners, timeout)
    if not isinstance(v, DistVector):
        raise bad_arg(InvalidObject, call, arg, "a gb.Vector or DistVector", type(v).__name__)
    if same_bounds(v.bounds, bounds):
        return v
    parts = []
    for k in range(len(bounds) - 1):
        lo, hi = int(bounds[k]), int(bounds[k + 1])
        src = [q for q in range(len(v.parts))
               if lo < hi and v.bounds[q] < hi and v.bounds[q + 1] > lo]
        parts.append(client.submit(exchange.realign, [v.parts[q] for q in src],
                                   [int(v.bounds[q]) for q in src], lo, hi, v.dtype,
                                   workers=[owners[k]], pure=False))
    return DistVector(client, bounds, parts, owners, v.dtype, v.device, v.timeout)


def _vector_mask_specs(mask, bounds, owners, client, call, timeout):
    if mask is None:
        return [None] * (len(bounds) - 1)
    if not isinstance(mask, (DistMask, Mask)):
        raise bad_arg(InvalidObject, call, "mask", "a mask view (m.S, m.V, ~m.S or ~m.V)",
                      type(mask).__name__)
    parent = align(mask.parent, bounds, owners, client, call, "mask", timeout)
    return [("__mask__", p, mask.structural, mask.complement) for p in parent.parts]


def _write_local_out(out, result):
    """A local ``out`` given with distributed operands: the result gathered into it."""
    local = result.gather()
    if isinstance(out, Vector):
        out._replace_data(local._data, local.dtype)
    else:
        out._replace_csr(local.csr())
    return out


def _deliver_vector(out, result):
    """A vector operation's answer: ``result`` when no ``out`` was given, else written
    into ``out`` (gathered into a local Vector; a DistVector takes the segments)."""
    if out is None:
        return result
    if isinstance(out, Vector):
        return _write_local_out(out, result)
    out._replace(result)
    return out


# ----------------------------------------------------------------------- products

def _as_dist_matrix(A, client, call: str, arg: str):
    if isinstance(A, (DistMatrix, DistTransposed)):
        return A
    if isinstance(A, Matrix):
        return distribute(A, client)
    if isinstance(A, TransposedMatrix):
        return distribute(A.parent, client).T
    raise bad_arg(InvalidObject, call, arg, "a gb.Matrix or a DistMatrix (or its .T)",
                  type(A).__name__)


def product_layout(A, left: bool):
    """``(parent, transposed_block, mt, out_bounds, out_owners, in_bounds, in_owners)`` of
    ``mxv(A, x)`` (``left`` False) or ``vxm(x, A)``: the output runs over the parent's
    rows unless the effective matrix is the parent's transpose (``mt``)."""
    t = isinstance(A, DistTransposed)
    parent = A.parent if t else A
    mt = t != left
    rows, cols = parent.row_vector_layout(), parent.col_vector_layout()
    out_l, in_l = (cols, rows) if mt else (rows, cols)
    return parent, t, mt, out_l[0], out_l[1], in_l[0], in_l[1]


def _product(call: str, A, x, semiring, mask, accum, out, replace, left: bool):
    from ..semirings import semiring as resolve_semiring

    client, timeout = _client_timeout((A, x, mask, out))
    A = _as_dist_matrix(A, client, call, "A")
    xarg = "u" if left else "x"
    if not isinstance(x, (DistVector, Vector)):
        raise bad_arg(InvalidObject, call, xarg, "a gb.Vector or DistVector",
                      type(x).__name__, "Build one with gb.Vector.from_dense(arr).")
    nin = A.shape[0] if left else A.shape[1]
    nout = A.shape[1] if left else A.shape[0]
    if x.size != nin:
        raise bad_arg(DimensionMismatch, call, xarg, f"a Vector of size {nin}",
                      f"size {x.size}")
    _check_size(call, "mask", mask, (nout,))
    _check_size(call, "out", out, (nout,))
    pa = (local_proxy(x), local_proxy(A)) if left else (local_proxy(A), local_proxy(x))
    res = getattr(__import__("gblas"), call)(
        *pa, semiring, mask=local_proxy(mask), accum=accum, out=local_proxy(out), replace=replace)
    s = resolve_semiring(semiring, call)
    parent, t, mt, ob, oo, ib, io = product_layout(A, left)
    xd = align(x, ib, io, client, call, xarg, timeout)
    sem = exchange.ship(s)
    g = parent.grid
    partials = []
    for o in range(len(ob) - 1):
        row, home = [], False
        for q in range(len(ib) - 1):
            i, j = (q, o) if mt else (o, q)
            if not home and g.owner(i, j) == oo[o]:
                # the block on the reducer's worker runs inside the reduce task
                row.append(("__home__", parent.block(i, j), xd.parts[q], sem, t, left))
                home = True
                continue
            row.append(client.submit(exchange.block_product, parent.block(i, j), xd.parts[q],
                                     sem, t, left, workers=[g.owner(i, j)], pure=False))
        partials.append(row)
    return _reduce_rows(client, timeout, partials, exchange.ship(s.add), res.dtype, ob, oo,
                        mask, accum, out, replace, call, x.device)


def _reduce_rows(client, timeout, partials, add, dtype, ob, oo, mask, accum, out, replace,
                 call, device):
    specs = _vector_mask_specs(mask, ob, oo, client, call, timeout)
    outd = None if out is None else align(out, ob, oo, client, call, "out", timeout)
    acc = exchange.ship(accum)
    parts = [client.submit(exchange.reduce_row, partials[o], add, specs[o], acc,
                           None if outd is None else outd.parts[o], replace, dtype,
                           int(ob[o + 1] - ob[o]), workers=[oo[o]], pure=False)
             for o in range(len(ob) - 1)]
    result = DistVector(client, ob, parts, oo, dtype, device, timeout)
    return _deliver_vector(out, result)


def mxv(A, x, semiring="plus_times", *, mask=None, accum=None, out=None, replace=False):
    """Distributed ``out<mask, replace> (+)= A (+.*) x`` (2D: gather x along grid columns,
    reduce partial y along grid rows)."""
    return _product("mxv", A, x, semiring, mask, accum, out, replace, left=False)


def vxm(u, A, semiring="plus_times", *, mask=None, accum=None, out=None, replace=False):
    """Distributed ``out<mask, replace> (+)= u (+.*) A``."""
    return _product("vxm", A, u, semiring, mask, accum, out, replace, left=True)


# -------------------------------------------------------------- elementwise vectors

_VECTOR_INDEX_OPS = ("rowle", "rowgt", "indexle", "indexgt")
_SHIFT_DIAG = ("tril", "triu", "diag", "offdiag")


def _shifted(name, args, r0: int, c0: int, kind: str):
    """``select``'s index operator seen from a segment or block at ``(r0, c0)``."""
    if name != "select" or len(args) < 2:
        return args
    op = args[1]
    thunk = args[2] if len(args) > 2 else None
    if callable(op) or isinstance(op, exchange.Shipped):
        return (args[0], exchange.Offset(exchange.ship(op), r0, c0)) + tuple(args[2:])
    key = op.lower() if isinstance(op, str) else op
    k = 0 if thunk is None else thunk
    if key in _SHIFT_DIAG:
        k = k + r0 - c0
    elif key in ("rowle", "rowgt", "indexle", "indexgt"):
        k = k - r0
    elif key in ("colle", "colgt"):
        k = k - c0
    else:
        return args
    return (args[0], op, k) + tuple(args[3:])


def _norm_select(args, kwargs):
    """``select(u, op, thunk=...)`` with thunk moved to the positional arguments."""
    if "thunk" in kwargs:
        kwargs = dict(kwargs)
        thunk = kwargs.pop("thunk")
        args = tuple(args[:2]) + (thunk,)
    return args, kwargs


def _vector_elementwise(name: str, args: tuple, kwargs: dict):
    if name == "select":
        args, kwargs = _norm_select(args, kwargs)
    client, timeout = _client_timeout(list(args) + list(kwargs.values()))
    size = next(a.size for a in list(args) + [kwargs.get("out")]
                if isinstance(a, (DistVector, Vector)))
    for k, a in enumerate(args):
        if isinstance(a, (DistVector, Vector)):
            _check_size(name, "uv"[min(k, 1)], a, (size,))
    _check_size(name, "mask", kwargs.get("mask"), (size,))
    _check_size(name, "out", kwargs.get("out"), (size,))
    res = _check_with_proxies(name, args, kwargs)
    out = kwargs.get("out")
    lay = next((a for a in [out] + list(args) if isinstance(a, DistVector)), None)
    if lay is None:
        lay = kwargs["mask"].parent
    bounds, owners = lay.bounds, lay.owners
    vec_args = [align(a, bounds, owners, client, name, "u", timeout)
                if isinstance(a, (DistVector, Vector)) else exchange.ship(a) for a in args]
    specs = _vector_mask_specs(kwargs.get("mask"), bounds, owners, client, name, timeout)
    outd = None if out is None else align(out, bounds, owners, client, name, "out", timeout)
    rest = {k: exchange.ship(v) for k, v in kwargs.items() if k not in ("mask", "out")}
    parts = []
    for s in range(len(bounds) - 1):
        a = tuple(v.parts[s] if isinstance(v, DistVector) else v for v in vec_args)
        a = _shifted(name, a, int(bounds[s]), int(bounds[s]), "vector")
        kw = dict(rest)
        if specs[s] is not None:
            kw["mask"] = specs[s]
        if outd is not None:
            kw["out"] = outd.parts[s]
        parts.append(client.submit(exchange.local_call, name, a, kw, workers=[owners[s]],
                                   pure=False))
    device = lay.device
    result = DistVector(client, bounds, parts, owners, res.dtype, device, timeout)
    return _deliver_vector(out, result)


# ------------------------------------------------------------- elementwise matrices

def distribute_like(A, D: DistMatrix) -> DistMatrix:
    """A local Matrix cut on the grid of ``D`` (same cuts, same workers)."""
    from .matrix import DEFAULT_TIMEOUT

    new = DistMatrix(D.client, D.grid, [], A.shape, A.dtype, A.device,
                     timeout=getattr(D, "timeout", DEFAULT_TIMEOUT))
    new._source = ("local", A)
    new._place()
    return new


def transpose(A, *, mask=None, accum=None, out=None, replace=False):
    """Distributed transpose: each block transposed where it lives; the grid turns."""
    if isinstance(A, DistTransposed):
        T = A.parent
    elif isinstance(A, DistMatrix):
        g = A.grid
        grid = Grid(g.pc, g.pr, g.col_bounds, g.row_bounds,
                    tuple(g.owner(i, j) for j in range(g.pc) for i in range(g.pr)))
        blocks = [A.client.submit(exchange.local_call, "transpose", (A.block(i, j),), {},
                                  workers=[g.owner(i, j)], pure=False)
                  for j in range(g.pc) for i in range(g.pr)]
        T = DistMatrix(A.client, grid, blocks, A.shape[::-1], A.dtype, A.device,
                       timeout=A.timeout)
    else:
        raise bad_arg(InvalidObject, "transpose", "A", "a DistMatrix", type(A).__name__)
    if mask is None and accum is None and out is None and not replace:
        return T
    return _matrix_elementwise("apply", (T, "identity"),
                               {"mask": mask, "accum": accum, "out": out, "replace": replace})


def materialize(A):
    """A DistMatrix holding ``A`` (a ``D.T`` view: its blocks transposed where they are);
    anything else unchanged."""
    return transpose(A.parent) if isinstance(A, DistTransposed) else A


def _matrix_elementwise(name: str, args: tuple, kwargs: dict):
    if name == "select":
        args, kwargs = _norm_select(args, kwargs)
    kwargs = {k: v for k, v in kwargs.items() if v is not None and v is not False} | (
        {"replace": True} if kwargs.get("replace") else {})
    client, _ = _client_timeout(list(args) + list(kwargs.values()))
    args = tuple(materialize(a) for a in args)
    out = kwargs.get("out")
    lay = next((a for a in [out] + list(args) if isinstance(a, DistMatrix)), None)
    shape = lay.shape
    for k, a in enumerate(args):
        if isinstance(a, (DistMatrix, Matrix, TransposedMatrix)):
            _check_size(name, "AB"[min(k, 1)], a, shape)
    _check_size(name, "mask", kwargs.get("mask"), shape)
    _check_size(name, "out", out, shape)
    res = _check_with_proxies(name, args, kwargs)

    def dist(a, arg):
        if isinstance(a, TransposedMatrix):
            a = a.materialize()
        if isinstance(a, Matrix):
            return distribute_like(a, lay)
        a = materialize(a)
        check_same_grid(lay.grid, a.grid, name, arg)
        return a

    margs = [dist(a, "B") if isinstance(a, (DistMatrix, Matrix, TransposedMatrix,
                                            DistTransposed)) else exchange.ship(a)
             for a in args]
    mask = kwargs.get("mask")
    mparent = None if mask is None else dist(mask.parent, "mask")
    outd = None if out is None else dist(out, "out")
    rest = {k: exchange.ship(v) for k, v in kwargs.items() if k not in ("mask", "out")}
    g = lay.grid
    blocks = []
    for i in range(g.pr):
        for j in range(g.pc):
            a = tuple(v.block(i, j) if isinstance(v, DistMatrix) else v for v in margs)
            a = _shifted(name, a, int(g.row_bounds[i]), int(g.col_bounds[j]), "matrix")
            kw = dict(rest)
            if mparent is not None:
                kw["mask"] = ("__mask__", mparent.block(i, j), mask.structural,
                              mask.complement)
            if outd is not None:
                kw["out"] = outd.block(i, j)
            blocks.append(client.submit(exchange.local_call, name, a, kw,
                                        workers=[g.owner(i, j)], pure=False))
    result = DistMatrix(client, g, blocks, shape, res.dtype, lay.device, timeout=lay.timeout)
    if out is None:
        return result
    if isinstance(out, Matrix):
        return _write_local_out(out, result)
    out.blocks, out.dtype, out._nvals, out._source = blocks, res.dtype, None, None
    return out


def _elementwise(name):
    def run(*args, **kwargs):
        objs = list(args) + list(kwargs.values())
        if name == "assign":
            return _assign(*args, **kwargs)
        matrix = any(isinstance(o, (DistMatrix, DistTransposed)) or (
            isinstance(o, DistMask) and isinstance(o.parent, DistMatrix)) for o in objs)
        if matrix:
            return _matrix_elementwise(name, args, kwargs)
        return _vector_elementwise(name, args, kwargs)

    run.__name__ = name
    return run


# -------------------------------------------------------------------------- reduce

def reduce(u, monoid="plus", *, axis=None, mask=None, accum=None, out=None, replace=False):
    """Distributed reduce: to a scalar (one task per segment or block, combined here) or,
    for a matrix with ``axis``, to a DistVector (partials reduced as in a product)."""
    import gblas

    from ..semirings import monoid as resolve_monoid

    call = "reduce"
    if isinstance(u, DistTransposed) and axis is not None:
        u = materialize(u)
    res = gblas.reduce(local_proxy(u), monoid, axis=axis, mask=local_proxy(mask), accum=accum,
                       out=local_proxy(out), replace=replace)
    m = resolve_monoid(monoid, call)
    mp = exchange.ship(m)
    client, timeout = _client_timeout((u, mask, out))
    if isinstance(u, DistTransposed):
        u = u.parent  # a scalar reduce does not depend on the orientation
    if axis is None:
        parts = u.parts if isinstance(u, DistVector) else u.blocks
        owners = u.owners if isinstance(u, DistVector) else list(u.grid.workers)
        futs = [client.submit(exchange.local_call, "reduce", (p, mp), {}, workers=[w],
                              pure=False) for p, w in zip(parts, owners)]
        vals = [v.get() if hasattr(v, "get") else v  # a GPU block's 0-d CuPy result
                for v in wait(client, futs, call, timeout)]
        dt = np.asarray(res).dtype
        return gblas.reduce(Vector.from_dense(np.asarray(vals, dtype=dt)), m)
    rows = axis in (1, "rows", "row")
    nout = u.shape[0] if rows else u.shape[1]
    _check_size(call, "mask", mask, (nout,))
    _check_size(call, "out", out, (nout,))
    g = u.grid
    ob, oo = u.row_vector_layout() if rows else u.col_vector_layout()
    partials = []
    for o in range(len(ob) - 1):
        cells = [(o, q) for q in range(g.pc)] if rows else [(q, o) for q in range(g.pr)]
        partials.append([client.submit(exchange.local_call, "reduce", (u.block(i, j), mp),
                                       {"axis": axis}, workers=[g.owner(i, j)], pure=False)
                         for i, j in cells])
    return _reduce_rows(client, timeout, partials, mp, res.dtype, ob, oo, mask, accum, out,
                        replace, call, u.device)


# -------------------------------------------------------------------------- assign

def _assign(out, value, indices=None, cols=None, *, mask=None, accum=None, replace=False):
    """Distributed assign into a DistVector: each segment takes the indices it holds."""
    import gblas

    from ..core._check import as_index_array

    call = "assign"
    if not isinstance(out, DistVector):
        if isinstance(out, (DistMatrix, DistTransposed)):
            raise bad_arg(NoKernel, call, "out", "a DistVector (assign into a DistMatrix is "
                          "not distributed yet)", "a DistMatrix",
                          "Gather it, assign locally, and distribute the result.")
        # a local out with distributed value/mask: collect them first
        value = value.gather() if isinstance(value, DistVector) else value
        mask = Mask(mask.parent.gather(), mask.structural, mask.complement) \
            if isinstance(mask, DistMask) else mask
        return gblas.assign(out, value, indices, cols, mask=mask, accum=accum,
                            replace=replace)
    if cols is not None:
        raise bad_arg(InvalidValue, call, "cols", "None for a Vector", "an index array")
    client, timeout = _client_timeout((out, value, mask))
    _check_size(call, "mask", mask, out.shape)
    idx = (None if indices is None else as_index_array(indices, call, "indices", out.size))
    region = out.size if idx is None else idx.size
    if isinstance(value, (DistVector, Vector)):
        _check_size(call, "value", value, (region,))
    gblas.assign(local_proxy(out), local_proxy(value), None, mask=local_proxy(mask), accum=accum,
                 replace=replace)
    bounds, owners = out.bounds, out.owners
    specs = _vector_mask_specs(mask, bounds, owners, client, call, timeout)
    acc = exchange.ship(accum)
    if idx is None:
        vals = (align(value, bounds, owners, client, call, "value", timeout)
                if isinstance(value, (DistVector, Vector)) else value)
    else:
        vals = value.gather() if isinstance(value, DistVector) else value
    parts = []
    for s in range(len(bounds) - 1):
        lo, hi = int(bounds[s]), int(bounds[s + 1])
        if idx is None:
            li, v = None, (vals.parts[s] if isinstance(vals, DistVector) else vals)
        else:
            at = np.flatnonzero((idx >= lo) & (idx < hi))
            li = idx[at] - lo
            v = gblas.extract(vals, at) if isinstance(vals, Vector) else vals
        kw = {"accum": acc, "replace": replace}
        if specs[s] is not None:
            kw["mask"] = specs[s]
        parts.append(client.submit(exchange.local_call, "assign", (out.parts[s], v, li), kw,
                                   workers=[owners[s]], pure=False))
    dtype = out.dtype
    out._replace(DistVector(client, bounds, parts, owners, dtype, out.device, timeout))
    return out


# ------------------------------------------------------------------------ dispatch

def _unsupported(name):
    def run(*args, **kwargs):
        raise bad_arg(NoKernel, name, "A" if name != "extract" else "u",
                      f"local operands (gb.{name} has no distributed version)",
                      "a distributed operand", "Collect it first with .gather().")

    return run


def _mxm(*args, **kwargs):
    from .spgemm import mxm as dist_mxm

    return dist_mxm(*args, **kwargs)


def _explain(func, *args, **kwargs):
    from .plan import explain

    return explain(func, *args, **kwargs)


OPERATIONS = {
    "mxv": mxv, "vxm": vxm, "mxm": _mxm,
    "ewise_add": _elementwise("ewise_add"), "ewise_mult": _elementwise("ewise_mult"),
    "apply": _elementwise("apply"), "select": _elementwise("select"),
    "assign": _elementwise("assign"), "reduce": reduce, "transpose": transpose,
    "extract": _unsupported("extract"), "explain": _explain,
}


def dispatch(name: str, args: tuple, kwargs: dict):
    """Run ``gb.<name>(*args, **kwargs)`` with distributed operands (the
    ``__gblas_dispatch__`` of DistMatrix, DistVector and their masks)."""
    impl = OPERATIONS.get(name)
    if impl is None:
        from .algorithms import ALGORITHMS

        impl = ALGORITHMS.get(name)
    if impl is None:
        impl = _unsupported(name)
    return impl(*args, **kwargs)
