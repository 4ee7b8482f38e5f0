"""``plan_*``: the ONLY place that chooses format, direction, method and device.

Pure: reads statistics (sizes, degrees, frontier and mask densities, which formats are
already built, how often the matrix was used), the hardware (:mod:`.hardware`) and
settings, and never runs a kernel.

Formats of a pull SpMV (:func:`choose_pull_format`)
    * the vertex data (``x`` gathered + ``y`` written) fits
      :data:`~gblas.planner.cost.CACHE_FIT_FRACTION` of the L3: **csr**, or **shards**
      when the row-granular split of the CSR kernel is unbalanced by more than
      :data:`~gblas.planner.cost.SKEW_IMBALANCE` (Garaph's edge-balanced parts);
    * it does not: **segmented** (Cagra: random reads confined to an LLC-sized segment),
      or **heavy_light** when the split is unbalanced (MultiGraph's tiles cut hub rows);
    * a format not built yet is built only when the calls so far would have paid for it
      (ski rental: ``(uses + 1) * saving >= build``, so a one-off product never builds a
      costly format, and a repeated one costs at most twice the best choice); an already
      built format is used whenever it is estimated faster than CSR;
    * a caller that knows how many products it will run (an iterative algorithm) says so
      with ``gb.config(expected_uses=k)``: the build is then weighed against
      ``max(uses + 1, k)`` calls (``details["expected_uses"]`` in the Plan).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .. import hardware
from .._device import array_sum
from ..backends.registry import KernelKey, has_kernel
from ..config import Settings
from ..exceptions import NoKernel
from ..formats import FORMATS, pull_formats
from . import cost, devicetime, hosttime
from .choose_gpu import choose_gpu_pull_format
from .horizon import horizon, megabytes, total_uses
from .plan import Plan


def plan_mxv(A, transposed: bool, x, mask, semiring, settings: Settings,
             op: str = "mxv") -> Plan:
    """Plan ``y = op(A) x``, with ``op(A) = A^T`` when ``transposed`` (``op``: the
    operation's name in the Plan, ``"vxm"`` for ``u A`` run as ``A^T u``).

    Pull reads the CSR of op(A) and a dense x; push reads the CSR of op(A)^T (the CSC of
    op(A)) and a sparse x.  Push is chosen when its edge work — the degrees of x's active
    entries (Garaph's ``f = sum(deg(active))/|E|``) — is below the pull's (the edges of
    the rows the mask allows), and the transposed CSR exists or the matrix is reused.

    The plan of an unmasked product with a full ``x`` (an iterative algorithm's step) is
    kept with the CSR while it holds: its formats are built, or the pending build is taken
    at a known use count (``details["pays_after"]``; the reason keeps the count of uses
    when it was planned) or a format's statistics are measured at one
    (``details["measure_at"]``), and no choice was made on the free memory.  It is reused while the
    Matrix's cached formats, the settings and the hardware facts stay the same, with
    ``details["memoized"]`` set and no ``uses``.  (On an H100 at Kronecker scale 22 a
    planned float32 plus_times call spent 71 instead of 138 us of CPU.)
    """
    memo = key = None
    if mask is None and x.is_full:
        memo = cost.summary(A.csr())
        # the facts the plan read: a GPU plan reads the device's L2, not the CPU's caches
        hw = hardware.gpu_l2_bytes() if A.device == "gpu" else hardware.detect()
        # (the estimates take the host and call times measured so far: a new source of
        # them plans afresh)
        host = hosttime.generation()
        key = ("plan_mxv", transposed, x.dtype, id(semiring), settings, hw, host, op)
        hit = memo.get(key)
        if hit is None and settings.expected_uses is not None:
            # a plan that holds at any use count (``details["any_uses"]``) is kept under
            # the settings without the expected uses: an algorithm's hint of its calls
            # to come does not plan again
            hit = memo.get(_any_uses_key(key))
            if hit is not None and hit[2].details.get("any_uses"):
                memo[key] = hit
            else:
                hit = None
        if (hit is not None and hit[0] is semiring and hit[1] == A.cache_state()
                and (hit[3] is None or total_uses(A, transposed) + 1 < hit[3])):
            return hit[2]
    plan = _plan_mxv(A, transposed, x, mask, semiring, settings, op)
    if memo is not None and not plan.conversions and "free_bytes" not in plan.details:
        # a pending build is chosen at a known use count, and a format's statistics
        # measured at one (``measure_at``): the plan holds until then
        due = [plan.details.get("pays_after") if "pending" in plan.details else None,
               plan.details.get("measure_at")]
        until = min((u for u in due if u is not None), default=None)
        if until is not None or "pending" not in plan.details:
            kept = {k: v for k, v in plan.details.items() if k != "uses"}
            memo[key] = (semiring, A.cache_state(),
                         dataclasses.replace(plan, details={**kept, "memoized": True}), until)
            if plan.details.get("any_uses") and settings.expected_uses is not None:
                memo[_any_uses_key(key)] = memo[key]
    return plan


def _any_uses_key(key: tuple) -> tuple:
    """A plan memo's key with the settings' expected uses left out."""
    return key[:4] + (dataclasses.replace(key[4], expected_uses=None),) + key[5:]


def _plan_mxv(A, transposed: bool, x, mask, semiring, settings: Settings,
              op: str = "mxv") -> Plan:
    device = A.device
    fmt = settings.format or "csr"
    nrows, ncols = A.shape[::-1] if transposed else A.shape
    nnz = A.nvals
    x_nvals = x.nvals
    allowed = nrows if mask is None else mask.count_allowed()
    allowed_frac = allowed / nrows if nrows else 0.0
    details = {"nnz": nnz, "x_nvals": x_nvals, "allowed_rows": allowed}
    T, M, R = semiring.types(A.dtype, x.dtype)
    pull_csr_transposed = transposed  # pull on A reads CSR(A); on A^T reads CSR(A^T)
    push_csr_transposed = not transposed

    if settings.direction is not None:
        direction = settings.direction
        reason = f"direction pinned by gb.config ({direction})"
    elif x_nvals >= ncols:
        direction, reason = "pull", "x is dense"
    elif x_nvals == 0 or allowed == 0:
        direction, reason = "push", "nothing to compute (empty x or mask)"
    else:
        st = A.stats()
        # degree of column k of op(A): in-degree of A, or out-degree of A when transposed
        deg = st.out_degree if transposed else st.in_degree
        idx = x.sparse_data().indices
        active = array_sum(deg[idx])
        f = active / nnz if nnz else 0.0
        pull_work = nnz * allowed_frac + x_nvals
        push_work = cost.PUSH_EDGE_COST * active + x_nvals
        details.update(active_edges=active, f=round(f, 6), pull_work=int(pull_work),
                       push_work=int(push_work))
        built = A.has_format(fmt, transposed=push_csr_transposed)
        reused = built or total_uses(A, pull_csr_transposed) > 0
        if push_work < pull_work and (reused or f < cost.ONE_OFF_PUSH_F):
            direction = "push"
            reason = (f"sparse frontier: active edges f={f:.3g} of |E|, push work {push_work:.3g} "
                      f"< pull work {pull_work:.3g}")
        else:
            direction = "pull"
            why = ("pull work is smaller" if push_work >= pull_work else "the transposed "
                   "format is not built and the matrix has not been reused")
            reason = f"f={f:.3g}: {why} (push {push_work:.3g} vs pull {pull_work:.3g})"

    if not has_kernel("mxv", fmt, device, direction):
        other = "pull" if direction == "push" else "push"
        if settings.direction is None and has_kernel("mxv", fmt, device, other):
            reason += f"; no {direction} kernel for {fmt} on {device}, using {other}"
            direction = other
        else:
            raise NoKernel(f"mxv: no {direction} kernel for format {fmt!r} on {device}. "
                           "Pin another format or direction with gb.config(...).")
    estimate = None
    if settings.format is not None:
        reason += f"; format pinned by gb.config ({settings.format})"
    elif direction == "pull":
        fmt, why, more, estimate = choose_pull_format(
            A, pull_csr_transposed, device, T.itemsize, R.itemsize + 1, allowed_frac,
            settings.memory_budget, cost.gpu_fold(semiring.add, R), settings.expected_uses,
            semiring.name)
        failed = None if fmt == "csr" else A.build_failure(fmt, transposed=pull_csr_transposed)
        if failed is not None:  # its build ran out of memory before: CSR needs none
            why = f"csr: {fmt} fell back to csr ({failed})"
            fmt, estimate = "csr", None
        reason += "; " + why
        details.update(more)
    variant = direction
    if (direction == "pull" and settings.format is None and mask is None
            and x.is_full
            and semiring.add.code == "plus" and semiring.multiply.code == "pair"
            and has_kernel("mxv", "csr", device, "rowcount")):
        # y = A (+.pair) 1 is each row's entry count: the row pointers hold it
        fmt, variant, estimate = "csr", "rowcount", None
        reason += "; plus_pair over a full x counts each row's entries: read from the row pointers"
    csr_t = pull_csr_transposed if direction == "pull" else push_csr_transposed
    conversions = []
    if not A.has_format(fmt, transposed=csr_t):
        conversions.append(f"build {fmt} of {'A^T' if csr_t else 'A'} (cached)")
    if direction == "pull" and not x.is_dense_storage:
        conversions.append("x sparse->dense")
    if direction == "push" and x.is_dense_storage:
        conversions.append("x dense->sparse")
    a_val = 0 if A.is_iso else np.dtype(A.dtype).itemsize
    if estimate is not None:
        est = estimate.bytes
    elif variant == "rowcount":
        est = (nrows + 1) * 8 + nrows * (R.itemsize + 1)
    elif direction == "pull":
        est = cost.pull_bytes(nnz, nrows, ncols, a_val, T.itemsize, R.itemsize, allowed_frac)
    else:
        est = cost.push_bytes(details.get("active_edges", nnz), x_nvals, nrows, a_val,
                              R.itemsize)
    if direction == "pull" and device == "cpu" and variant == "pull" and mask is None:
        from .locality import annotate  # the cache simulator's prediction (docs/locality.md)
        reason, est = annotate(A, csr_t, fmt, T.itemsize, R.itemsize + 1, reason, details, est)
    details["types"] = _type_names(T, M, R)
    return Plan(op, fmt, direction, device, KernelKey("mxv", fmt, device, variant),
                tuple(conversions), est, reason, details, transposed=(csr_t,))


_TYPE_NAMES: dict = {}


def _type_names(*dts) -> tuple[str, ...]:
    """The dtypes' names (NumPy builds ``dtype.name`` anew on every access)."""
    got = _TYPE_NAMES.get(dts)
    if got is None:
        got = _TYPE_NAMES[dts] = tuple(np.dtype(d).name for d in dts)
    return got


def _cached_csr(A, transposed: bool):
    """The CSR a pull over ``op(A)`` reads, if it exists, without counting a use (the
    planner only looks: ``Matrix.csr(True)`` would build it and count one)."""
    if not transposed:
        return A.csr()
    return A.cached_format("csr", transposed=True)


_CANDIDATES: dict[str, tuple[str, ...]] = {}


def _candidates(device: str) -> tuple[str, ...]:
    """The pull formats with a kernel on ``device`` (asked once per device)."""
    c = _CANDIDATES.get(device)
    if c is None:
        c = _CANDIDATES[device] = tuple(f for f in pull_formats(device)
                                        if has_kernel("mxv", f, device, "pull"))
    return c


def choose_pull_format(A, transposed: bool, device: str, x_bytes: int, y_bytes: int,
                       allowed_frac: float = 1.0, memory_budget: int | None = None,
                       fold: str = "native", expected_uses: int | None = None,
                       semiring: str = ""):
    """The format of a pull SpMV over ``op(A)`` (see the module documentation).

    Parameters
    ----------
    A : Matrix
        The matrix (``transposed``: the product reads ``A^T``).
    transposed : bool
        Whether the pull reads the CSR of ``A^T``.
    device : str
        Only formats with a pull kernel on this device are candidates.
    x_bytes, y_bytes : int
        Bytes per value of x, and of y with its presence flag.
    allowed_frac : float
        Fraction of the rows the mask allows.
    memory_budget : int, optional
        ``gb.config(memory_budget=...)``: a format that would not fit it (about the size
        of the CSR) is not built (the Matrix could not cache it, and would rebuild it on
        every call).
    fold : str
        How the monoid folds on the GPU (:func:`~gblas.planner.cost.gpu_fold`).
    expected_uses : int, optional
        ``gb.config(expected_uses=...)``: the calls the caller expects to run; a build
        is weighed against ``max(uses + 1, expected_uses)`` calls.
    semiring : str
        The semiring's name: the GPU estimates take the host time measured for it
        (:mod:`~gblas.planner.hosttime`).

    Returns
    -------
    (format, reason, details, Estimate or None)

    Examples
    --------
    >>> import numpy as np, gblas as gb
    >>> A = gb.Matrix.from_coo([0, 1], [1, 0], shape=(2, 2))
    >>> choose_pull_format(A, False, "cpu", 8, 9)[0]
    'csr'
    """
    csr = _cached_csr(A, transposed)
    cands = _candidates(device)
    if csr is not None and csr.device == "gpu" and "gpu_segmented" in cands:
        return choose_gpu_pull_format(A, csr, transposed, x_bytes, y_bytes, allowed_frac,
                                      memory_budget, fold, expected_uses, semiring)
    if csr is None and device == "cpu":
        # the transpose this call builds, and its estimated cost
        a_val = 0 if A.is_iso else np.dtype(A.dtype).itemsize
        t = cost.transpose_seconds(A.nvals, a_val, hardware.detect().threads)
        return ("csr", f"csr: the CSR of A^T is built by this call (est. {t:.3g} s, a "
                "parallel transpose); other formats are weighed once it exists",
                {"build_s": {"csr": round(t, 4)}}, None)
    if csr is None or cands == ("csr",) or csr.device != "cpu":
        why = ("csr: the only pull format on " + device if csr is not None else
               "csr: the CSR of A^T is built by this call; other formats are weighed once "
               "it exists")
        return "csr", why, {}, None
    hw = hardware.detect()
    m, n = csr.shape
    # what does not change between the calls of an iterative algorithm is cached with the
    # CSR (its size against the cache, its row balance): the common case costs ~2 us
    key = ("pull", hw.l3, hw.threads, x_bytes, y_bytes)
    memo = cost.summary(csr)
    fixed = memo.get(key)
    if fixed is None:
        vertex, cache, fits = cost.vertex_data((m, n), x_bytes, y_bytes, hw.l3)
        imb = cost.row_imbalance(csr.indptr, hw.threads)
        where = (f"vertex data {megabytes(vertex)} {'fits' if fits else 'exceeds'} "
                 f"{megabytes(cache)} "
                 f"({cost.CACHE_FIT_FRACTION:g} of the {megabytes(hw.l3)} L3)")
        balance = f"row split imbalance {imb:.2f} on {hw.threads} threads"
        skewed = imb > cost.SKEW_IMBALANCE
        preferred = ("shards" if skewed else "csr") if fits else \
            ("heavy_light" if skewed else "segmented")
        base = {"vertex_bytes": vertex, "cache_bytes": int(cache), "imbalance": round(imb, 3),
                "preferred": preferred}
        fixed = memo[key] = (preferred, where, balance, base, f"csr: {where}, {balance}")
    preferred, where, balance, base_details, csr_reason = fixed
    built = [f for f in cands if f != "csr" and A.has_format(f, transposed=transposed)]
    if preferred == "csr" and not built:
        return "csr", csr_reason, base_details, None
    a_val = 0 if csr.values is None else np.dtype(csr.dtype).itemsize
    sizes = {k: v for f in cands for k, v in FORMATS[f].build_params(hw).items()}
    est = cost.pull_estimates(csr, hw, x_bytes, y_bytes, a_val, allowed_frac, sizes, cands)
    if preferred not in est:
        preferred = "csr"
    more = {}
    if allowed_frac == 1.0:  # the formats as measured on this matrix's large calls
        got, source = devicetime.call_seconds({f: e.seconds for f, e in est.items()},
                                              semiring, memo, csr.nnz, scale=False)
        if source != "model":
            more = {"model_ms": {f: round(e.seconds * 1e3, 3) for f, e in est.items()},
                    "device_from": source}
            est = {f: dataclasses.replace(e, seconds=got[f]) for f, e in est.items()}
            where = f"{where}; {source}"
    uses = total_uses(A, transposed)
    details = {**base_details, "uses": uses,
               "estimates_ms": {f: round(e.seconds * 1e3, 3) for f, e in est.items()},
               "build_s": {f: round(e.build_seconds, 4) for f, e in est.items()}, **more}
    calls, paid_by, so_far = horizon(uses, expected_uses, details)
    base = est["csr"].seconds
    # formats already built are free: the fastest one estimated below CSR
    best_built = min(built, key=lambda f: est[f].seconds, default=None)
    if preferred == "csr":
        if best_built is not None and est[best_built].seconds < base:
            t_b = est[best_built].seconds * 1e3
            return (best_built, f"{best_built} (already built, est. {t_b:.3g} ms < csr "
                    f"{base * 1e3:.3g} ms); {where}, {balance}", details, est[best_built])
        return "csr", f"csr: {where}, {balance}", details, est["csr"]
    e = est[preferred]
    label = f"{preferred} ({e.note})"
    if preferred in built and e.seconds <= base:
        return preferred, f"{label}: {where}, {balance}; already built", details, e
    saving = base - e.seconds
    too_big = memory_budget is not None and csr.nbytes > memory_budget
    if too_big:
        saving = 0.0
    if saving > 0 and calls * saving >= e.build_seconds:
        return (preferred, f"{label}: {where}, {balance}; est. {e.seconds * 1e3:.3g} ms vs csr "
                f"{base * 1e3:.3g} ms per call, build ~{e.build_seconds:.3g} s paid by "
                f"{paid_by}", details, e)
    if best_built is not None and est[best_built].seconds < base:
        details["pending"] = preferred  # built once the uses pay for it
        if saving > 0:
            details["pays_after"] = int(np.ceil(e.build_seconds / saving))
        return (best_built, f"{best_built} (already built); {preferred} would be better but is "
                "not amortized yet", details, est[best_built])
    if too_big:
        why = (f"csr: {where}, {balance}; {preferred} would not fit the memory budget "
               f"({memory_budget:,} bytes)")
    elif saving <= 0:
        why = (f"csr: {where}, {balance}; {preferred} is not estimated faster "
               f"({e.seconds * 1e3:.3g} vs {base * 1e3:.3g} ms)")
    else:
        need = int(np.ceil(e.build_seconds / saving))
        why = (f"csr for now: {where}; {label} would save {saving * 1e3:.3g} ms per call but "
               f"costs ~{e.build_seconds:.3g} s to build: it pays after {need} uses "
               f"({so_far})")
        # chosen once the uses pay for its build
        details["pending"], details["pays_after"] = preferred, need
    return "csr", why, details, est["csr"]


def plan_mxm(A, ta: bool, B, tb: bool, mask, semiring, settings: Settings) -> Plan:
    """Plan ``C<M> = op(A) op(B)``: Gustavson (saxpy) or masked dot products.

    Both costs count touched entries.  Saxpy: ``sum_k colcount(A)[k] * rowcount(B)[k]``
    (the flops).  Dot, for a non-complemented mask: every mask entry (i, j) merges row i of
    op(A) with column j of op(B), ``sum_i maskrows[i] * len(A[i, :]) + sum_j maskcols[j] *
    len(B[:, j])``.  A pinned format without mxm kernels falls back to CSR.
    """
    device = A.device
    fmt = settings.format or "csr"
    fallback = ""
    if fmt != "csr" and not (has_kernel("mxm", fmt, device, "saxpy")
                             or has_kernel("mxm", fmt, device, "dot")):
        fallback = f"; no mxm kernel for format {fmt!r}, using csr"
        fmt = "csr"
    flops = None
    if settings.mxm_method is not None:
        method, reason = settings.mxm_method, f"method pinned by gb.config ({settings.mxm_method})"
        if method == "dot" and (mask is None or mask.complement):
            raise NoKernel("mxm: the dot method needs a non-complemented mask; use "
                           "gb.config(mxm_method='saxpy') or give mask=M.S")
    elif mask is None or mask.complement:
        method, reason = "saxpy", "no mask (or complemented): Gustavson over rows"
    else:
        sa, sb = A.stats(), B.stats()
        f64 = np.float64
        a_col = sa.out_degree if ta else sa.in_degree
        a_row = sa.in_degree if ta else sa.out_degree
        b_row = sb.in_degree if tb else sb.out_degree
        b_col = sb.out_degree if tb else sb.in_degree
        flops = float((a_col.astype(f64) * b_row.astype(f64)).sum())
        dot_work = _dot_work(mask.parent.csr(), a_row, b_col)
        merge = cost.GPU_DOT_MERGE_COST if device == "gpu" else cost.DOT_MERGE_COST
        if dot_work * merge < flops:
            method = "dot"
            reason = (f"mask of {mask.parent.nvals} entries: dot work {dot_work:.3g} "
                      f"(x{merge} on {device}) < saxpy flops {flops:.3g}")
        else:
            method = "saxpy"
            reason = (f"saxpy flops {flops:.3g} <= dot work {dot_work:.3g} "
                      f"(x{merge} on {device})")
    reason += fallback
    conversions = []
    if ta:
        conversions.append("CSR of A^T (cached)")
    b_needs_t = (method == "dot") != tb
    if b_needs_t:
        conversions.append("CSR of B^T (cached)")
    return Plan("mxm", fmt, method, device, KernelKey("mxm", fmt, device, method),
                tuple(conversions), 0, reason, {"flops": flops}, transposed=(ta, b_needs_t))


def _dot_work(mask_csr, a_row, b_col) -> float:
    """Entries a masked dot product touches: per mask entry (i, j), a merge of row i of A
    and column j of B, or a binary search of the longer when it is 16x the shorter."""
    xp = np if isinstance(a_row, np.ndarray) else __import__("cupy")
    la = a_row[mask_csr.row_indices()].astype(np.float64)
    lb = b_col[mask_csr.indices.astype(np.int64)].astype(np.float64)
    short, long = xp.minimum(la, lb), xp.maximum(la, lb)
    work = xp.where(long > 16 * short, short * xp.log2(long + 1), la + lb)
    return float(work.sum())


def admit_format(nbytes: int, cached_bytes: int, memory_budget: int | None) -> bool:
    """Whether a Matrix keeps a format of ``nbytes`` beside ``cached_bytes`` already
    cached, under ``gb.config(memory_budget=...)`` (no budget: always).

    Examples
    --------
    >>> admit_format(100, 900, 1000), admit_format(101, 900, 1000), admit_format(1, 0, None)
    (True, False, True)
    """
    return memory_budget is None or cached_bytes + nbytes <= memory_budget


def plan_elementwise(op: str, device: str, what: str = "vectorized array operation") -> Plan:
    """Plan an elementwise/structural operation: array kernels on the operands' device."""
    return Plan(op, "array", "-", device, None, (), 0, what)


_ARRAY_PLANS: dict = {}


def plan_array(name: str, device: str, fmt: str = "array") -> Plan:
    """The plan of the device's kernel ``name`` over plain arrays (``"map_binary"``,
    ``"where"``, ``"compress"`` ...) or sorted patterns (``fmt="keys"`` or ``"csr"``: the
    linear merges ``"merge_union"``, ``"merge_member"`` ...); ``key`` None where the
    device has none (the caller sorts and searches keys instead).  Fixed per device, so
    made once and kept."""
    plan = _ARRAY_PLANS.get((name, device, fmt))
    if plan is None:
        found = has_kernel(name, fmt, device)
        plan = _ARRAY_PLANS[(name, device, fmt)] = Plan(
            name, fmt, "-", device, KernelKey(name, fmt, device) if found else None,
            reason="the device's kernel" if found else
            f"no {name} kernel on {device}: sorted keys and binary searches")
    return plan


# ------------------------------------------------------------------ hypersparse storage

#: A dimension above this many rows (or columns) may be stored hypersparse ...
HYPER_MIN_DIM = 1 << 20
#: ... when it exceeds this many times the entries (plus one).
HYPER_RATIO = 16


def is_huge(dim: int, entries: int) -> bool:
    """Whether a dimension is far above the entries (:data:`HYPER_MIN_DIM`,
    :data:`HYPER_RATIO`): per-row or per-column arrays would cost more than the entries.

    Examples
    --------
    >>> is_huge(2**40, 10**6), is_huge(2**20, 0), is_huge(2**21, 2**17)
    (True, False, False)
    """
    return dim > HYPER_MIN_DIM and dim > HYPER_RATIO * (entries + 1)


def choose_storage(shape: tuple[int, int], nnz: int) -> tuple[str, str]:
    """The canonical storage of a Matrix: ``"hypersparse"`` (DCSR: only the rows with
    entries, :mod:`gblas.formats.hypersparse`) when its rows are far more than its
    entries (:func:`is_huge`) or its positions overflow int64 keys, else ``"csr"``; with
    the reason shown by ``gb.explain``.

    Examples
    --------
    >>> choose_storage((2**40, 2**40), 10**6)[0], choose_storage((8, 2**31), 3)[0]
    ('hypersparse', 'csr')
    >>> choose_storage((8, 2**62), 3)[0]
    'hypersparse'
    """
    m, n = int(shape[0]), int(shape[1])
    if is_huge(m, nnz):
        return "hypersparse", (f"hypersparse storage: {m:,} rows > {HYPER_RATIO} x "
                               f"({nnz:,} entries + 1), only rows with entries are stored")
    if m * max(n, 1) >= 2**63:
        return "hypersparse", (f"hypersparse storage: {m:,} x {n:,} positions overflow "
                               "int64 keys (row * ncols + col); ids are compacted first")
    return "csr", f"csr storage: {m:,} rows for {nnz:,} entries"


def plan_hypersparse(inner: Plan, op: str, storage: str, compact: tuple, built: bool) -> Plan:
    """The Plan of an operation with a hypersparse operand (or a dimension far above the
    entries, :func:`is_huge`): it runs on the compact problem over the rows and columns
    that hold entries, planned as usual (``inner``), and maps the result back.

    Examples
    --------
    >>> p = Plan("mxv", "csr", "push", "cpu", None, (), 0, "sparse frontier")
    >>> q = plan_hypersparse(p, "mxv", "hypersparse storage: ...", (3, 4), False)
    >>> q.format, q.direction, q.details["compact_shape"]
    ('hypersparse', 'push', (3, 4))
    """
    conv = (() if built else (f"compact view: {compact[0]:,} x {compact[1]:,} over the "
                              "rows and columns with entries (cached)",))
    details = {**inner.details, "compact_shape": tuple(compact), "inner_format": inner.format}
    return dataclasses.replace(
        inner, op=op, format="hypersparse", conversions=conv + tuple(inner.conversions),
        reason=f"{storage}; compact {compact[0]:,} x {compact[1]:,} problem: {inner.reason}",
        details=details)
