"""Products: ``mxv``, ``vxm``, ``mxm``, and ``explain``.

Each call runs: validation -> planner (the Plan) -> format from the Matrix's cache ->
kernel from the registry -> write-back through mask/accum/replace.
"""

from __future__ import annotations

import time

from ..backends.registry import VecData, epilogues
from ..config import config
from ..exceptions import DimensionMismatch, InvalidObject, bad_arg
from ..formats import CSR
from ..formats.costing import summary
from ..planner import devicetime, hosttime, plan_mxm, plan_mxv
from ..semirings import semiring as resolve_semiring
from ..semirings.ops import Semiring
from . import executor, hyper
from ._args import check_common
from .arrays import compress
from .dispatch import dispatchable
from .matrix import Matrix, canonical
from .vector import Vector
from .writeback import writeback_matrix, writeback_vector

# ------------------------------------------------------------------------------ mxv


def _flipped(s: Semiring) -> Semiring:
    """The semiring with multiply's operands swapped (vxm runs as mxv on A^T)."""
    if s.multiply.commutative:
        return s
    f = getattr(s, "_flipped", None)
    if f is None:
        f = Semiring(s.name, s.add, s.multiply.flipped())
        s._flipped = f
    return f


def _checked_mxv(A, x, semiring, mask, accum, out, replace, _call, _flip):
    """The checked arguments of a product (the semiring resolved, flipped for vxm)."""
    base, transposed = canonical(A, _call, "A")
    if not isinstance(x, Vector):
        raise bad_arg(InvalidObject, _call, "x" if _call == "mxv" else "u", "a gb.Vector",
                      type(x).__name__, "Build one with gb.Vector.from_dense(arr).")
    s = resolve_semiring(semiring, _call)
    nrows, ncols = A.shape
    if ncols != x.size:
        what = (f"a Vector of size {ncols} (A has {ncols} columns)" if _call == "mxv"
                else f"a Vector of size {ncols} (A has {ncols} rows)")
        raise bad_arg(DimensionMismatch, _call, "x" if _call == "mxv" else "u", what,
                      f"size {x.size}")
    T, _, R = s.types(base.dtype, x.dtype)
    s.check_dtype(T, _call)
    mask, accum, out, device = check_common(_call, Vector, (nrows,), mask=mask, accum=accum,
                                            out=out, replace=replace, A=base, x=x)
    if _flip:
        s = _flipped(s)
    return base, transposed, s, mask, accum, out, device, R


def prepare_mxv(A, x, semiring="plus_times", *, mask=None, accum=None, out=None,
                 replace=False, _call="mxv", _flip=False):
    base, transposed, s, mask, accum, out, device, R = _checked_mxv(
        A, x, semiring, mask, accum, out, replace, _call, _flip)
    nrows = A.shape[0]
    if hyper.involved(base) and not hyper.runs_as_csr(base, device):
        # rows or columns far above the entries: the compact product
        return hyper.prepare_mxv(base, transposed, x, s, mask, accum, out, replace, device,
                                 _call, prepare_mxv, writeback_vector)
    plan = plan_mxv(base, transposed, x, mask, s, config.current(), _call)

    def run():
        kernel = executor.kernel(plan)
        csr = executor.operand(plan, base)
        if plan.direction == "pull":
            allow = None if mask is None else mask.allow()
            T_ = kernel(csr, x.dense_data(), allow, s, s.types(base.dtype, x.dtype))
        elif mask is not None and device == "cpu":
            # the CPU push tests the mask at the rows it reached (O(those rows)), not
            # through an allow array of every row (a pass over the vector per call: a
            # BFS with thousands of small levels)
            T_ = _masked_at_rows(kernel(csr, x.sparse_data(), None, s,
                                        s.types(base.dtype, x.dtype), nrows), mask, device)
        else:
            allow = None if mask is None else mask.allow()
            T_ = kernel(csr, x.sparse_data(), allow, s, s.types(base.dtype, x.dtype), nrows)
        # the kernel honoured the mask's rows: T_ has no entry the mask disallows
        return writeback_vector(out, T_, R, mask, accum, replace, device, premasked=True)

    return plan, run


def _masked_at_rows(T: VecData, mask, device: str) -> VecData:
    """``T`` with only the entries ``mask`` allows (a sparse ``T`` at its own rows; a
    dense one through its presence flags)."""
    if T.indices is not None:
        keep = mask.allow_at(T.indices)
        return VecData(T.size, *compress(keep, T.indices, T.values, device=device), None)
    allow = mask.allow()
    return VecData(T.size, None, T.values, allow if T.present is None else T.present & allow)


def _timing_start(A, masked: bool):
    """The start of a call that :func:`_timed_pull` may time (a matrix of more than
    ``hosttime.MAX_ENTRIES`` entries, no mask), taken before planning: on the GPU a CUDA
    event (the device idles while the host plans, so the span holds the planning too),
    on the CPU the clock; else None."""
    if masked or getattr(A, "nvals", 0) <= hosttime.MAX_ENTRIES:
        return None
    return devicetime.begin() if A.device == "gpu" else time.perf_counter()


def _timed_pull(plan, base, side: bool, semiring: str, start, call):
    """``call()``, timed from ``start`` (:func:`_timing_start`) when the plan pulls in a
    format already built and was memoized (a steady call: the first call of a plan may
    compute the matrix's statistics, on an H100 26-86x the model at Kronecker 18-22): on
    the GPU by an event after its kernels (:mod:`gblas.planner.devicetime` reads the
    pair later, without waiting; a plan with the model's estimate,
    ``details["model_ms"]``, gives its ratio too), on the CPU by the clock (kept with the
    matrix alone)."""
    if (start is None or plan.direction != "pull" or not plan.details.get("memoized")
            or not base.has_format(plan.format, transposed=side)):
        return call()
    pull = base.cached_format("csr", transposed=side)
    own = None if pull is None else summary(pull)
    out = call()
    if plan.device != "gpu":
        devicetime.record(plan.format, semiring, time.perf_counter() - start, 0.0, own)
        return out
    model = plan.details.get("model_ms", {}).get(plan.format, 0.0)
    devicetime.end(start, plan.format, semiring, model / 1e3, own)
    return out


def _no_layout():
    return None


def _no_step(then, what: str) -> ValueError:
    """The error of a ``then=`` step that the planned product cannot run."""
    return ValueError(f"repeated_mxv: the planned product ({what}) cannot run "
                      f"then={type(then).__name__}; run it only where run.epilogues "
                      "names the step, else run the product, then the step")


def repeated_mxv(A, x, semiring="plus_times"):
    """A function computing ``A (+.*) x`` again and again, for an iterative algorithm
    whose full dense ``x`` is rewritten in place between calls: the arguments are
    checked once, and each call plans (the memoized plan: the planner still counts the
    uses and switches the format when a build pays, as ``gb.mxv`` would) and returns the
    kernel's result as VecData, without a Vector or a write-back.  Where those steps
    matter (a hypersparse operand, a plan that does not pull), each call is ``gb.mxv``.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0], shape=(2, 2))
    >>> x = gb.Vector.from_dense([10.0, 1.0])
    >>> product = repeated_mxv(A, x)
    >>> product().values.tolist()
    [12.0, 3.0]

    ``product.planned()`` plans the next call and returns ``(layout, run)``: the
    :class:`~gblas.formats.base.OperandLayout` of the format that will run (None: ``x``
    in column order only), and ``run(xl=None, then=None)``, which computes the product
    of ``x``, or of ``xl`` (dense VecData in that layout) where given.  A step named in
    ``run.epilogues`` (``"pagerank_step"``; only where there is a layout) can be passed as
    ``then`` (a :class:`~gblas.backends.registry.PageRankStep`): the kernel runs it on
    the product and returns None, and the call's device time is not recorded for the
    planner.

    >>> layout, run = product.planned()
    >>> layout is None, run().values.tolist()
    (True, [12.0, 3.0])
    """
    base, transposed, s, _, _, _, device, _ = _checked_mxv(A, x, semiring, None, None, None,
                                                            False, "mxv", False)
    types, xd = s.types(base.dtype, x.dtype), x.dense_data()

    def whole(xl=None, then=None):
        if then is not None:
            raise _no_step(then, "gb.mxv (no single pull kernel)")
        return prepare_mxv(A, x, semiring)[1]().dense_data()

    whole.epilogues = ()
    if not x.is_full or (hyper.involved(base) and not hyper.runs_as_csr(base, device)):
        whole.planned = lambda: (None, whole)
        return whole

    def planned():
        start = _timing_start(base, False)
        p = plan_mxv(base, transposed, x, None, s, config.current())
        if p.key is None or p.direction != "pull":  # e.g. a pinned direction: the call
            return None, whole
        kernel = executor.kernel(p)
        # the cached format's layout, counting no use (a format not built yet is built
        # by the call, where it is timed as a build)
        fmt = base.cached_format(p.format, transposed=transposed)
        layout = None if fmt is None else getattr(fmt, "operand_layout", _no_layout)()

        def run(xl=None, then=None):
            args = (xd,) if xl is None else (xl,)
            kw = {} if xl is None else {"x_layout": True}
            if then is not None and "pagerank_step" not in run.epilogues:
                raise _no_step(then, f"kernel {p.key} over {p.format}")
            if then is not None:
                # (not timed: a product that also ran a step is not the product's time,
                # which the planner weighs against the other formats')
                return kernel(executor.operand(p, base), *args, None, s, types, then=then,
                              **kw)
            return _timed_pull(p, base, transposed, s.name, start,
                               lambda: kernel(executor.operand(p, base), *args, None, s,
                                              types, **kw))

        run.epilogues = () if layout is None else epilogues(kernel)
        return layout, run

    def product():
        return planned()[1]()

    product.planned = planned
    return product


@dispatchable
def mxv(A, x, semiring="plus_times", *, mask=None, accum=None, out=None, replace=False):
    """Matrix-vector product over a semiring: ``out<mask, replace> (+)= A (+.*) x``.

    ``y[i] = add_k multiply(A[i, k], x[k])`` over the k where both have entries; ``y[i]``
    has no entry when no pair meets.

    Parameters
    ----------
    A : Matrix or A.T
        The matrix (``A.T`` uses the cached CSR of the transpose).
    x : Vector
        Of size ``A.shape[1]``.
    semiring : str or Semiring
        ``"plus_times"``, ``"min_plus"``, ``"any_pair"`` ... or a user-defined Semiring.
    mask : Mask, optional
        ``m.S``, ``m.V``, ``~m.S`` or ``~m.V`` of a Vector of size ``A.shape[0]``.
    accum : str or BinaryOp, optional
        Combine with the existing entries of ``out``.
    out : Vector, optional
        Written in place (and returned); a new Vector otherwise.
    replace : bool
        Clear ``out``'s entries where the mask is false.

    Returns
    -------
    Vector

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0], shape=(2, 2))
    >>> x = gb.Vector.from_dense([10.0, 1.0])
    >>> gb.mxv(A, x).to_dense().tolist()
    [12.0, 3.0]
    >>> gb.mxv(A, x, "min_plus").to_dense().tolist()
    [3.0, 4.0]
    """
    t0 = time.perf_counter()
    # (a sparse x is pushed or compacted: only a full x's pull is timed)
    start = _timing_start(A, mask is not None or not getattr(x, "is_full", False))
    plan, run = prepare_mxv(A, x, semiring, mask=mask, accum=accum, out=out, replace=replace)
    if plan.direction != "pull" or plan.key is None or (plan.device != "gpu" and start is None):
        return run()
    base, _ = canonical(A, "mxv", "A")
    side = plan.transposed[0] if plan.transposed else False
    name = resolve_semiring(semiring, "mxv").name
    if plan.device != "gpu":  # a large CPU pull: timed by the clock
        return _timed_pull(plan, base, side, name, start, run)
    # a GPU pull returns once its kernels are queued: the call's time is the host's,
    # recorded for the planner's estimates where the device's part is small and the call
    # is a steady one, its plan memoized: a first call may compile its kernels or measure
    # the matrix's statistics (:mod:`gblas.planner.hosttime`)
    keep = (base.nvals <= hosttime.MAX_ENTRIES and plan.details.get("memoized", False)
            and base.has_format(plan.format, transposed=side))
    y = _timed_pull(plan, base, side, name, start, run)
    if keep:  # kept with the matrix's pull CSR too, whose memo the planner reads
        pull = base.cached_format("csr", transposed=side)
        hosttime.record(plan.format, name, time.perf_counter() - t0,
                        None if pull is None else summary(pull))
    return y


@dispatchable
def vxm(u, A, semiring="plus_times", *, mask=None, accum=None, out=None, replace=False):
    """Vector-matrix product: ``w[j] = add_k multiply(u[k], A[k, j])``.

    Runs as ``mxv`` on ``A.T`` with the multiply's operands swapped, so it shares the
    kernels, the planner and the cached transpose.

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0], shape=(2, 2))
    >>> gb.vxm(gb.Vector.from_dense([1.0, 1.0]), A).to_dense().tolist()
    [1.0, 5.0]
    """
    _, run = prepare_vxm(u, A, semiring, mask=mask, accum=accum, out=out, replace=replace)
    return run()


def prepare_vxm(u, A, semiring="plus_times", **kw):
    base, transposed = canonical(A, "vxm", "A")
    At = base if transposed else base.T
    return prepare_mxv(At, u, semiring, _call="vxm", _flip=True, **kw)


# ------------------------------------------------------------------------------ mxm


def prepare_mxm(A, B, semiring="plus_times", *, mask=None, accum=None, out=None,
                 replace=False):
    call = "mxm"
    a, ta = canonical(A, call, "A")
    b, tb = canonical(B, call, "B")
    s = resolve_semiring(semiring, call)
    if A.shape[1] != B.shape[0]:
        raise bad_arg(DimensionMismatch, call, "B", f"{A.shape[1]} rows (A has {A.shape[1]} "
                      "columns)", f"shape {B.shape}")
    T, _, R = s.types(a.dtype, b.dtype)
    s.check_dtype(T, call)
    shape = (A.shape[0], B.shape[1])
    mask, accum, out, device = check_common(call, Matrix, shape, mask=mask, accum=accum,
                                            out=out, replace=replace, A=a, B=b)
    if hyper.involved(a, b, mask):  # the compact product over rows and columns with entries
        return hyper.prepare_mxm(a, ta, b, tb, s, mask, accum, out, replace, device,
                                 prepare_mxm, writeback_matrix)
    plan = plan_mxm(a, ta, b, tb, mask, s, config.current())

    def run():
        kernel = executor.kernel(plan)
        ca = executor.operand(plan, a, 0)
        cb = executor.operand(plan, b, 1)
        mm = None if mask is None else mask.matmask()
        T_ = CSR.from_data(kernel(ca, cb, mm, s, s.types(a.dtype, b.dtype)), device)
        return writeback_matrix(out, T_, mask, accum, replace, device)

    return plan, run


@dispatchable
def mxm(A, B, semiring="plus_times", *, mask=None, accum=None, out=None, replace=False):
    """Matrix-matrix product over a semiring (masked SpGEMM).

    ``C[i, j] = add_k multiply(A[i, k], B[k, j])``.  With a mask, only allowed entries are
    computed (dot products per mask entry when that is cheaper, Gustavson otherwise).

    Examples
    --------
    >>> import gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1], [1, 0], [2, 3], shape=(2, 2))
    >>> gb.mxm(A, A).to_dense().tolist()
    [[6, 0], [0, 6]]
    >>> gb.mxm(A, A, "plus_pair", mask=A.S).nvals
    0
    """
    _, run = prepare_mxm(A, B, semiring, mask=mask, accum=accum, out=out, replace=replace)
    return run()


__all__ = ["mxm", "mxv", "prepare_mxm", "prepare_mxv", "prepare_vxm", "vxm"]
