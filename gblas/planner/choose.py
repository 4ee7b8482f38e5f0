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
from ..backends.registry import KernelKey, has_kernel
from ..config import Settings
from ..exceptions import NoKernel
from ..formats import FORMATS, pull_formats
from ..formats.gpu_relabelled import HUB_COLUMNS
from ..formats.gpu_segmented import DEFAULT_HOT
from . import cost, devicetime, hosttime
from .plan import Plan


def plan_mxv(A, transposed: bool, x, mask, semiring, settings: Settings) -> Plan:
    """Plan ``y = op(A) x``, with ``op(A) = A^T`` when ``transposed``.

    Pull reads the CSR of op(A) and a dense x; push reads the CSR of op(A)^T (the CSC of
    op(A)) and a sparse x.  Push is chosen when its edge work — the degrees of x's active
    entries (Garaph's ``f = sum(deg(active))/|E|``) — is below the pull's (the edges of
    the rows the mask allows), and the transposed CSR exists or the matrix is reused.

    The plan of an unmasked product with a full ``x`` (an iterative algorithm's step) is
    kept with the CSR while it holds: its formats are built, or the pending build is taken
    at a known use count (``details["pays_after"]``; the reason keeps the count of uses
    when it was planned), and no choice was made on the free memory.  It is reused while the
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
        key = ("plan_mxv", transposed, x.dtype, id(semiring), settings, hw, host)
        hit = memo.get(key)
        if (hit is not None and hit[0] is semiring and hit[1] == A.cache_state()
                and (hit[3] is None or total_uses(A, transposed) + 1 < hit[3])):
            return hit[2]
    plan = _plan_mxv(A, transposed, x, mask, semiring, settings)
    if memo is not None and not plan.conversions and "free_bytes" not in plan.details:
        # a pending build is chosen at a known use count: the plan holds until then
        until = plan.details.get("pays_after") if "pending" in plan.details else None
        if until is not None or "pending" not in plan.details:
            kept = {k: v for k, v in plan.details.items() if k != "uses"}
            memo[key] = (semiring, A.cache_state(),
                         dataclasses.replace(plan, details={**kept, "memoized": True}), until)
    return plan


def _plan_mxv(A, transposed: bool, x, mask, semiring, settings: Settings) -> Plan:
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
        active = int(deg[idx].sum())
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
    return Plan("mxv", fmt, direction, device, KernelKey("mxv", fmt, device, variant),
                tuple(conversions), est, reason, details, transposed=(csr_t,))


_TYPE_NAMES: dict = {}


def _type_names(*dts) -> tuple[str, ...]:
    """The dtypes' names (NumPy builds ``dtype.name`` anew on every access)."""
    got = _TYPE_NAMES.get(dts)
    if got is None:
        got = _TYPE_NAMES[dts] = tuple(np.dtype(d).name for d in dts)
    return got


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


def _mb(nbytes: float) -> str:
    return f"{nbytes / 2**20:.3g} MB"


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
        where = (f"vertex data {_mb(vertex)} {'fits' if fits else 'exceeds'} {_mb(cache)} "
                 f"({cost.CACHE_FIT_FRACTION:g} of the {_mb(hw.l3)} L3)")
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
    calls, paid_by, so_far = _horizon(uses, expected_uses, details)
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


def _gpu_hot_share(A, csr, transposed: bool) -> tuple[float, float]:
    """Share of the entries in the ``DEFAULT_HOT`` columns of highest degree (the hot
    segment gpu_segmented would build), and in the busiest 1% of the columns (what
    gpu_relabelled's renumbering gathers together); cached with the CSR."""
    memo = cost.summary(csr)
    got = memo.get("gpu_hot_share")
    if got is None:
        st = A.stats()
        # a degree is at most nnz: 32 bits where it fits, half the sort's passes
        dt = np.int32 if csr.nnz <= np.iinfo(np.int32).max else np.int64
        deg = (st.out_degree if transposed else st.in_degree).astype(dt)
        xp = np if isinstance(deg, np.ndarray) else __import__("cupy")
        k = min(int(deg.size), DEFAULT_HOT)
        srt = xp.sort(deg)
        top = srt[srt.size - k:]
        total = max(csr.nnz, 1)
        share = float(top[top >= 2].sum(dtype=np.int64)) / total
        hub_k = max(1, int(np.ceil(deg.size * HUB_COLUMNS)))
        hubs = float(srt[srt.size - hub_k:].sum(dtype=np.int64)) / total if deg.size else 0.0
        got = memo["gpu_hot_share"] = (share, hubs)
    return got


def _gpu_panel_runs(csr) -> tuple[float, int]:
    """Runs per entry of the light panels gpu_heavy_light would build (a row's entries
    in one column panel of the format's ``panel_cols`` columns), and the columns of ``x`` a
    call gathers when the build would relabel them by in-degree (then the runs are those
    after relabelling, estimated on a sample of rows; 0: no relabelling); cached with the
    CSR."""
    memo = cost.summary(csr)
    got = memo.get("gpu_panel_runs")
    if got is None:
        from ..formats import light_panels as lpf

        nnz = csr.nnz
        got = (0.0, 0)
        if nnz:
            cols = FORMATS["gpu_heavy_light"].panel_cols
            plain = lpf.panel_pairs(csr, cols) / nnz
            after, gathered = lpf.relabelled_pairs_estimate(csr, cols)
            if lpf.relabel_pays((plain - after) * nnz, gathered):
                got = (after, gathered)
            else:
                got = (plain, 0)
        memo["gpu_panel_runs"] = got
    return got


def _host_us(host_s: dict, source: str) -> dict:
    """The host time per call each GPU estimate used, for a Plan's details."""
    return {"from": source, **{f: round(v * 1e6, 1) for f, v in host_s.items()}}


def _gpu_formats_cannot_pay(A, csr, transposed: bool, sizes: tuple[int, int, int], l2: int,
                            allowed_frac: float, fold: str, expected_uses: int | None,
                            host_s: dict, semiring: str = "", base_s: float | None = None):
    """The CSR choice without the statistics of the other GPU formats, when no format can
    pay even at its best (every entry in the hot segment, no panel runs beyond the
    entries, no gather of ``x``): their estimated times only grow as the measured
    statistics move from that best case, so measuring them (a sort and several passes
    over the entries) cannot change the choice.  None when some
    format could pay, or one is built already.  While a bound saving exists, the plan
    names the use count at which it would pay for the cheapest build, and the
    statistics are measured then.  Also returns the formats that could pay at their
    best: the light panels' runs, the dearest statistic, are measured only when
    gpu_heavy_light is among them.  Where a format is built, those that could pay
    against ``base_s`` (the seconds of a call as the calls run now; None: all of them)."""
    m, n = csr.shape
    a_val, x_bytes, y_bytes = sizes
    model = cost.gpu_pull_estimates((m, n), csr.nnz, a_val, x_bytes, y_bytes, l2, 1.0,
                                    allowed_frac, 0.0, fold, host_s=dict.fromkeys(host_s, 0.0),
                                    hub_share=1.0)
    model_s = {f: e.seconds + host_s.get(f, 0.0) for f, e in model.items()}
    call_s, dev_from = devicetime.call_seconds(model_s, semiring, cost.summary(csr), csr.nnz)
    best = {f: dataclasses.replace(e, seconds=call_s[f]) for f, e in model.items()}
    others = [f for f in best if f != "csr"]
    built = [f for f in others if A.has_format(f, transposed=transposed)]
    if not others or (built and base_s is None):
        return None, set(others)
    uses = total_uses(A, transposed)
    if built:  # which of the others could pay against the calls as they run now
        calls = _horizon(uses, expected_uses, {})[0]
        return None, {f for f in others if f not in built
                      and calls * (base_s - best[f].seconds) >= best[f].build_seconds}
    base = best["csr"]
    fastest = min(others, key=lambda f: best[f].seconds)
    saving = {f: base.seconds - best[f].seconds for f in others}
    details = {"l2_bytes": l2, "uses": uses,
               "estimates_ms": {"csr": round(base.seconds * 1e3, 3)},
               "bound_ms": {f: round(best[f].seconds * 1e3, 3) for f in others},
               "build_s": {f: round(best[f].build_seconds, 4) for f in others},
               "model_ms": {"csr": round(model_s["csr"] * 1e3, 4)}, "device_from": dev_from}
    calls, _, so_far = _horizon(uses, expected_uses, details)
    at_best = (f"at best {fastest} {best[fastest].seconds * 1e3:.3g} ms against csr "
               f"{base.seconds * 1e3:.3g} ms per call")
    faster = [f for f in others if saving[f] > 0]
    if not faster:
        return ("csr", f"csr: no other format can be faster ({at_best})", details, base), set()
    could = {f for f in faster if calls * saving[f] >= best[f].build_seconds}
    if could:
        return None, could
    # the format whose build would pay first, at its best
    need = {f: int(np.ceil(best[f].build_seconds / saving[f])) for f in faster}
    first = min(faster, key=need.get)
    details["pending"], details["pays_after"] = first, need[first]
    return ("csr", f"csr for now: no other format pays its build before {need[first]} uses "
            f"({first}: ~{best[first].build_seconds:.3g} s; {at_best}; {so_far})", details,
            base), set()


def _now_seconds(A, csr, transposed: bool, device_est: dict, host_s: dict,
                 semiring: str) -> float:
    """Seconds of a call in the fastest of CSR and the GPU formats built, from the
    estimates kept with the CSR (scaled as the device measured them)."""
    model_s = {f: e.seconds + host_s.get(f, 0.0) for f, e in device_est.items()}
    call_s, _ = devicetime.call_seconds(model_s, semiring, cost.summary(csr), csr.nnz)
    return min(v for f, v in call_s.items()
               if f == "csr" or A.has_format(f, transposed=transposed))


def choose_gpu_pull_format(A, csr, transposed: bool, x_bytes: int, y_bytes: int,
                           allowed_frac: float = 1.0, memory_budget: int | None = None,
                           fold: str = "native", expected_uses: int | None = None,
                           semiring: str = ""):
    """The format of a pull SpMV on the GPU: ``csr``, ``gpu_segmented``,
    ``gpu_heavy_light`` or ``gpu_relabelled``.

    gpu_segmented (GraphCage's TOCAB with a hot segment), gpu_heavy_light (MultiGraph's
    light column panels) and gpu_relabelled (the CSR with its columns by in-degree) are
    estimated by :func:`~gblas.planner.cost.gpu_pull_estimates` from the vertex data
    against the L2, the share of entries in the hot segment's columns and in the busiest
    1% of them, and the runs per entry of the panels.  The calls run in the fastest of
    CSR and the formats built; of the formats faster than that, the one cheapest over the
    calls weighed (its calls and its build) is built when those calls pay for its build
    (the same ski rental as on the CPU; a cheap build may come first and a dearer one
    that saves more later), it fits the memory budget,
    and the device has room for the build (``GPU_BUILD_BYTES_PER_ENTRY`` per entry and
    ``GPU_BUILD_BYTES_PER_VERTEX`` per row and column, its measured peak).
    ``fold``: how the monoid folds (:func:`~gblas.planner.cost.gpu_fold`);
    ``expected_uses``: the calls the caller expects (``gb.config(expected_uses=...)``),
    a build is weighed against ``max(uses + 1, expected_uses)`` calls.  Each estimate's
    host time is the one measured for its format and ``semiring`` in this process where
    there is one (:mod:`~gblas.planner.hosttime`; ``details["host_us"]``), and on large
    graphs the device's part as measured (:mod:`~gblas.planner.devicetime`;
    ``details["device_from"]``; the model's whole-call estimates are
    ``details["model_ms"]``).

    Returns
    -------
    (format, reason, details, Estimate)
    """

    m, n = csr.shape
    l2 = hardware.gpu_l2_bytes()
    # the estimates and their words do not change between the unmasked calls of an
    # iterative algorithm: they are cached with the CSR, like the CPU planner's (a masked
    # call's fraction of allowed rows changes from call to call: estimated afresh)
    memo = cost.summary(csr) if allowed_frac == 1.0 else {}
    key = ("gpu_pull", transposed, x_bytes, y_bytes, fold, l2)
    fixed = memo.get(key)
    a_val = 0 if csr.values is None else np.dtype(csr.dtype).itemsize
    host_s, host_from = hosttime.host_seconds(
        {f: FORMATS[f].gpu_fixed_s for f in pull_formats("gpu")}, semiring,
        cost.summary(csr), nnz=csr.nnz)
    bound_args = (A, csr, transposed, (a_val, x_bytes, y_bytes), l2, allowed_frac, fold,
                  expected_uses, host_s, semiring)
    if fixed is not None and fixed[1]["panel_runs"] is None and "gpu_heavy_light" in \
            _gpu_formats_cannot_pay(*bound_args, base_s=_now_seconds(A, csr, transposed,
                                                                     fixed[0], host_s,
                                                                     semiring))[1]:
        fixed = None  # the light panels could pay now: measure their runs
    if fixed is None:
        bounded, could = _gpu_formats_cannot_pay(*bound_args)
        if bounded is not None:
            bounded[2]["host_us"] = _host_us(host_s, host_from)
            return bounded
        share, hubs = _gpu_hot_share(A, csr, transposed)
        runs, gathered = (_gpu_panel_runs(csr) if "gpu_heavy_light" in could
                          else (None, 0))
        relabel = gathered > 0
        # the device's part, kept with the CSR; the host's is added per plan below
        est = cost.gpu_pull_estimates((m, n), csr.nnz, a_val, x_bytes, y_bytes, l2, share,
                                      allowed_frac, runs, fold, gathered=gathered,
                                      host_s=dict.fromkeys(host_s, 0.0), hub_share=hubs)
        facts = {"l2_bytes": l2, "hot_share": round(share, 3),
                 "panel_runs": None if runs is None else round(runs, 3),
                 "panel_relabel": relabel, "hub_share": round(hubs, 3),
                 "build_s": {f: round(v.build_seconds, 4) for f, v in est.items()}}
        where = (f"vertex data {_mb(n * x_bytes + m * y_bytes)} vs {_mb(l2)} L2, "
                 f"{100 * share:.0f}% of entries in the {DEFAULT_HOT:,} busiest columns "
                 f"({100 * hubs:.0f}% in the busiest 1%), "
                 + ("panel runs not measured (the light panels cannot pay yet)"
                    if runs is None else f"{runs:.2f} panel runs per entry")
                 + (" (columns relabelled by in-degree)" if relabel else ""))
        fixed = memo[key] = (est, facts, where)
    device_est, facts, where = fixed
    model_s = {f: e.seconds + host_s.get(f, 0.0) for f, e in device_est.items()}
    # on large graphs, the calls as measured by the device's events (devicetime)
    call_s, dev_from = devicetime.call_seconds(model_s, semiring, cost.summary(csr), csr.nnz)
    est = {f: dataclasses.replace(e, seconds=call_s[f]) for f, e in device_est.items()}
    if dev_from != "model":
        where = f"{where}; {dev_from}"
    ests = "est. " + ", ".join(f"{f} {v.seconds * 1e3:.3g} ms" for f, v in est.items()) \
        + " per call"
    base = est["csr"]
    uses = total_uses(A, transposed)
    details = dict(facts, uses=uses, build_s=dict(facts["build_s"]),  # a Plan's own copy
                   estimates_ms={f: round(v.seconds * 1e3, 3) for f, v in est.items()},
                   host_us=_host_us(host_s, host_from),
                   model_ms={f: round(v * 1e3, 4) for f, v in model_s.items()},
                   device_from=dev_from)
    calls, paid_by, so_far = _horizon(uses, expected_uses, details)
    others = [f for f in est if f != "csr"]
    built = [f for f in others if A.has_format(f, transposed=transposed)]
    # the calls run now in the fastest of CSR and the formats built; a build is weighed
    # against that, and the one to build is the cheapest over the calls weighed (a cheap
    # build that saves less can pay before a dear one that saves more, which may pay later)
    now = min(["csr", *built], key=lambda f: est[f].seconds)
    base = est[now]
    todo = [f for f in others if f not in built and est[f].seconds < base.seconds]
    if not todo:
        if now != "csr":
            return now, f"{now} (already built): {where}; {ests}", details, base
        return "csr", f"csr: {where}; {ests}", details, base
    fmt = min(todo, key=lambda f: calls * est[f].seconds + est[f].build_seconds)
    e = est[fmt]
    saving = base.seconds - e.seconds
    need_mem = int(cost.GPU_BUILD_BYTES_PER_ENTRY * csr.nnz
                   + cost.GPU_BUILD_BYTES_PER_VERTEX * (m + n))
    if memory_budget is not None and csr.nbytes > memory_budget:
        return (now, f"{now}: {fmt} would not fit the memory budget "
                f"({memory_budget:,} bytes); {ests}", details, base)
    free = hardware.gpu_free_bytes()
    if need_mem > free:
        details["free_bytes"] = free  # the choice may change as memory frees
        return (now, f"{now}: building {fmt} needs ~{_mb(need_mem)} of device memory, "
                f"{_mb(free)} free; {ests}", details, base)
    if calls * saving >= e.build_seconds:
        return (fmt, f"{fmt}: {where}; {ests}, build ~{e.build_seconds:.3g} s paid by "
                f"{paid_by}", details, e)
    need = int(np.ceil(e.build_seconds / saving))
    details["pending"], details["pays_after"] = fmt, need
    return (now, f"{now} for now: {where}; {ests}; the {fmt} build (~{e.build_seconds:.3g} "
            f"s) pays after {need} uses ({paid_by} weighed)", details, base)


def _horizon(uses: int, expected_uses: int | None, details: dict) -> tuple[int, str, str]:
    """The calls a build is weighed against: this one and those so far, or the calls
    the caller expects (``gb.config(expected_uses=...)``) when more; with the words of
    the two reasons."""
    if not expected_uses:
        return uses + 1, f"{uses + 1} uses", f"{uses} so far"
    details["expected_uses"] = expected_uses
    calls = max(uses + 1, expected_uses)
    return (calls, f"{calls} uses ({uses} so far, {expected_uses} expected)",
            f"{uses} so far, {expected_uses} expected")


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
