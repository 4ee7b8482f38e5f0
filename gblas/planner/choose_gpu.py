"""The GPU pull rule: which format a pull SpMV on the GPU runs in (CSR, or a format built
for it once the calls weighed pay for its build).

The formats' estimates come from :func:`~gblas.planner.cost.gpu_pull_estimates` (each
format's ``gpu_pull_estimate``), scaled by the host and device times measured as calls
run (:mod:`~gblas.planner.hosttime`, :mod:`~gblas.planner.devicetime`).  The statistics
they read (the hot share, the hubs' share, the light panels' runs) are measured only
when some format could pay at its best.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .. import hardware
from .._device import array_sum
from ..formats import FORMATS, pull_formats
from ..formats.gpu_relabelled import HUB_COLUMNS
from ..formats.gpu_segmented import DEFAULT_HOT
from . import cost, devicetime, hosttime
from .horizon import horizon, megabytes, total_uses

__all__ = ["choose_gpu_pull_format"]


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
        share = array_sum(top[top >= 2]) / total
        hub_k = max(1, int(np.ceil(deg.size * HUB_COLUMNS)))
        hubs = array_sum(srt[srt.size - hub_k:]) / total if deg.size else 0.0
        got = memo["gpu_hot_share"] = (share, hubs)
    return got


def _gpu_panel_runs(csr) -> tuple[float, int]:
    """Runs per entry of the light panels gpu_heavy_light would build (a row's entries
    in one column panel of the build's default width), and the columns of ``x`` a
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
            cols = lpf.default_panel_cols(csr)
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


def _best_case(csr, sizes: tuple[int, int, int], l2: int, allowed_frac: float, fold: str,
               host_s: dict, semiring: str) -> tuple[dict, dict, str]:
    """Every format's estimate at its best (every entry in the hot segment and in the
    hubs, one panel run per entry), scaled as the device measured the calls: the
    Estimates, the model's whole-call seconds and where the scale came from."""
    m, n = csr.shape
    a_val, x_bytes, y_bytes = sizes
    model = cost.gpu_pull_estimates((m, n), csr.nnz, a_val, x_bytes, y_bytes, l2, 1.0,
                                    allowed_frac, 0.0, fold, host_s=dict.fromkeys(host_s, 0.0),
                                    hub_share=1.0)
    model_s = {f: e.seconds + host_s.get(f, 0.0) for f, e in model.items()}
    call_s, dev_from = devicetime.call_seconds(model_s, semiring, cost.summary(csr), csr.nnz)
    return ({f: dataclasses.replace(e, seconds=call_s[f]) for f, e in model.items()},
            model_s, dev_from)


def _light_panels_due(best: dict, run_s: float) -> int | None:
    """The calls from which the light panels could pay at their best against calls of
    ``run_s`` seconds (None: never), when their runs are not measured yet: the plan is
    made again then, and the runs measured."""
    e = best.get("gpu_heavy_light")
    if e is None or run_s <= e.seconds:
        return None
    return int(np.ceil(e.build_seconds / (run_s - e.seconds)))


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
    best, model_s, dev_from = _best_case(csr, sizes, l2, allowed_frac, fold, host_s, semiring)
    others = [f for f in best if f != "csr"]
    built = [f for f in others if A.has_format(f, transposed=transposed)]
    if not others or (built and base_s is None):
        return None, set(others)
    uses = total_uses(A, transposed)
    if built:  # which of the others could pay against the calls as they run now
        calls = horizon(uses, expected_uses, {})[0]
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
    calls, _, so_far = horizon(uses, expected_uses, details)
    at_best = (f"at best {fastest} {best[fastest].seconds * 1e3:.3g} ms against csr "
               f"{base.seconds * 1e3:.3g} ms per call")
    faster = [f for f in others if saving[f] > 0]
    if not faster:
        # at any use count: the plan holds whatever calls the caller expects
        details["any_uses"] = True
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
        where = (f"vertex data {megabytes(n * x_bytes + m * y_bytes)} vs {megabytes(l2)} L2, "
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
    def done(choice: str, why: str, e):
        # with the light panels' runs not measured, the use count from which they could
        # pay at their best against the calls as they will run: the plan is made again
        # then (plan_mxv keeps it until that count)
        if facts["panel_runs"] is None and "gpu_heavy_light" in FORMATS \
                and not A.has_format("gpu_heavy_light", transposed=transposed):
            best = _best_case(csr, (a_val, x_bytes, y_bytes), l2, allowed_frac, fold, host_s,
                              semiring)[0]
            due = _light_panels_due(best, e.seconds)
            if due is not None:
                details["measure_at"] = due
        return choice, why, details, e

    calls, paid_by, so_far = horizon(uses, expected_uses, details)
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
            return done(now, f"{now} (already built): {where}; {ests}", base)
        return done("csr", f"csr: {where}; {ests}", base)
    fmt = min(todo, key=lambda f: calls * est[f].seconds + est[f].build_seconds)
    e = est[fmt]
    saving = base.seconds - e.seconds
    need_mem = int(cost.GPU_BUILD_BYTES_PER_ENTRY * csr.nnz
                   + cost.GPU_BUILD_BYTES_PER_VERTEX * (m + n))
    if memory_budget is not None and csr.nbytes > memory_budget:
        return done(now, f"{now}: {fmt} would not fit the memory budget "
                    f"({memory_budget:,} bytes); {ests}", base)
    free = hardware.gpu_free_bytes()
    if need_mem > free:
        details["free_bytes"] = free  # the choice may change as memory frees
        return done(now, f"{now}: building {fmt} needs ~{megabytes(need_mem)} of device "
                    f"memory, {megabytes(free)} free; {ests}", base)
    if calls * saving >= e.build_seconds:
        return done(fmt, f"{fmt}: {where}; {ests}, build ~{e.build_seconds:.3g} s paid by "
                    f"{paid_by}", e)
    need = int(np.ceil(e.build_seconds / saving))
    details["pending"], details["pays_after"] = fmt, need
    return done(now, f"{now} for now: {where}; {ests}; the {fmt} build "
                f"(~{e.build_seconds:.3g} s) pays after {need} uses ({paid_by} weighed)", base)
