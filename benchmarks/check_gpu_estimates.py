"""The GPU planner's estimates against measured times, format by format.

For every graph and product, ``gb.explain(gb.mxv, G, x, semiring)`` gives the planner's
estimated time of each GPU pull format (``details["estimates_ms"]``) and of its build
(``details["build_s"]``); each format is then pinned (``gb.config(format=...)``) and its
``gb.mxv`` timed as a user calls it (planner, kernels and write-back; the device
synchronized after each call; median after two warm-up calls), and its build timed as the
first pinned call on a new device Matrix less one warm call.  The error is
``estimate / measured - 1``; the issue's bound is 25% for the format the planner picks.
The raw figures go to a JSON file next to the table, for refitting the constants.
A build is timed twice (on two new Matrices) and the faster kept: the first may compile.
Three estimates are reported: after the calls timed (this process's host times, and the
device times of the calls over 2^21 entries, `gblas.planner.devicetime`), as a new
process's first call (the host times earlier processes saved: run the script twice, the
second run's table is the one to read) and with the constants alone.

Usage (from the repository root, on the GPU machine)::

    PYTHONPATH=$PWD python3 benchmarks/check_gpu_estimates.py --scales 18 20 22 24 \\
        --data ../shared/data --out benchmarks/results/gpu_estimates.md
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.bench_gpu_shards import _log, _sync, graphs, time_ms
from gblas.planner import devicetime, hosttime

FORMATS = ("csr", "gpu_segmented", "gpu_heavy_light")
#: The calls the estimates are told to expect: enough that no format is left unestimated.
EXPECTED = 100_000
#: Planned (unpinned) calls per product after the pinned timings: the calls whose
#: device time gives the pick's measured / modelled ratio.
UNPINNED_CALLS = 5
#: (label, semiring, matrix values, x dtype): a valued float32 product, PageRank's
#: pattern product over float64 ranks, and a tropical one.
CASES = (("plus_times f32", "plus_times", "float32", np.float32),
         ("pagerank pattern f64", "plus_second", None, np.float64),
         ("min_plus f32", "min_plus", "float32", np.float32))


def measure(name: str, A, repeat: int) -> list[dict]:
    import gblas as gb

    out = []
    for label, sr, dtype, xdt in CASES:
        M = A if dtype is not None else gb.Matrix.from_coo(*A.to_coo()[:2], None,
                                                           shape=A.shape)
        n = M.shape[1]
        x = gb.Vector.from_dense(np.ones(n, xdt)).to("gpu")
        G = M.to("gpu")
        # every format estimated (told of many calls, the rule measures the statistics)
        with hosttime.set_aside(), devicetime.set_aside(), \
                gb.config(expected_uses=EXPECTED):
            plan = gb.explain(gb.mxv, G, x, sr)  # the constants alone, as a first process
        est = dict(plan.details.get("estimates_ms", {}))
        # as a new process's first call: the host times and device-time ratios earlier
        # processes saved
        with hosttime.set_aside(prior=True), devicetime.set_aside(prior=True), \
                gb.config(expected_uses=EXPECTED):
            prior = gb.explain(gb.mxv, M.to("gpu"), x, sr)
        est_prior = {**est, **prior.details.get("estimates_ms", {})}
        build_est = dict(plan.details.get("build_s", {}))
        row = {"graph": name, "case": label, "n": int(n), "nnz": int(M.nvals),
               "chosen": plan.format, "est_const_ms": est, "est_prior_ms": est_prior,
               "prior_from": prior.details.get("host_us", {}).get("from"),
               "prior_device_from": prior.details.get("device_from"),
               "est_build_s": build_est,
               "ms": {}, "build_s": {}}
        K = M.to("gpu")  # every format's timed calls on one Matrix, which keeps them
        for f in FORMATS:
            if f not in est:
                continue
            try:
                firsts = []
                for _ in range(2):  # the first may compile kernels: the faster of two
                    H = M.to("gpu")
                    with gb.config(format=f):
                        _sync()
                        t0 = time.perf_counter()
                        gb.mxv(H, x, sr)
                        _sync()
                        firsts.append(time.perf_counter() - t0)
                    del H
                with gb.config(format=f):
                    gb.mxv(K, x, sr)  # builds f on K
                    row["ms"][f] = time_ms(lambda K=K, x=x, sr=sr: gb.mxv(K, x, sr), repeat)
                row["build_s"][f] = max(min(firsts) - row["ms"][f] / 1e3, 0.0)
            except Exception as e:  # noqa: BLE001 - a format without this kernel
                _log(f"{name} {label} {f}: {type(e).__name__}: {e}")
        # the planner's own calls, as a user's process makes them: over 2^21 entries
        # they record the pick's measured / modelled device-time ratio (saved at exit)
        for _ in range(UNPINNED_CALLS):
            gb.mxv(K, x, sr)
        # the estimates once this process has run these calls (and the earlier graphs'):
        # the host time of each format measured (gblas.planner.hosttime) and, over 2^21
        # entries, its device time (gblas.planner.devicetime), both kept with K
        _sync()
        with gb.config(expected_uses=EXPECTED):
            after = gb.explain(gb.mxv, K, x, sr)
        del K
        row["est_ms"] = {**est, **after.details.get("estimates_ms", {})}
        row["host_us"] = after.details.get("host_us", {})
        row["device_from"] = after.details.get("device_from")
        _log(f"{name} {label}: " + ", ".join(
            f"{f} est {est[f]:.3f} -> {row['est_ms'][f]:.3f} / {row['ms'][f]:.3f} ms"
            for f in row["ms"]) + f" (host {row['host_us'].get('from')}; device "
            f"{row['device_from']})")
        out.append(row)
        del G
    return out


def _err(est, meas) -> str:
    return f"{100 * (est / meas - 1):+.0f}%" if meas else "n/a"


def table(rows: list[dict]) -> str:
    head = ["graph", "entries", "product", "planner picks", "pick's error, constants"]
    for f in FORMATS:
        head += [f"{f} est / measured ms", "error"]
    head += ["error of the pick", "build est / measured s (the pick)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        c = r["chosen"]
        cells = [r["graph"], f"{r['nnz']:,}", r["case"], c,
                 _err(r["est_const_ms"][c], r["ms"][c]) if c in r["ms"] else "n/a"]
        for f in FORMATS:
            if f in r["ms"]:
                cells += [f"{r['est_ms'][f]:.3f} / {r['ms'][f]:.3f}",
                          _err(r["est_ms"][f], r["ms"][f])]
            else:
                cells += ["-", "-"]
        cells.append(_err(r["est_ms"][c], r["ms"][c]) if c in r["ms"] else "n/a")
        if c in r["build_s"] and c != "csr":
            cells.append(f"{r['est_build_s'].get(c, float('nan')):.3f} / "
                         f"{r['build_s'][c]:.3f}")
        else:
            cells.append("-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary(rows: list[dict], key: str = "est_ms") -> str:
    errs = {f: [] for f in FORMATS}
    pick = []
    for r in rows:
        for f in r["ms"]:
            errs[f].append(r[key][f] / r["ms"][f] - 1)
        if r["chosen"] in r["ms"]:
            pick.append(r[key][r["chosen"]] / r["ms"][r["chosen"]] - 1)
    lines = []
    for f, e in errs.items():
        if e:
            within = sum(abs(v) <= 0.25 for v in e)
            lines.append(f"- {f}: error {100 * min(e):+.0f}% to {100 * max(e):+.0f}%, "
                         f"within 25% in {within} of {len(e)}")
    if pick:
        within = sum(abs(v) <= 0.25 for v in pick)
        lines.append(f"- the planner's pick: {100 * min(pick):+.0f}% to "
                     f"{100 * max(pick):+.0f}%, within 25% in {within} of {len(pick)}")
    return "\n".join(lines)


def _prior_words(rows: list[dict]) -> str:
    """How many products had earlier processes' host times, and device-time ratios, to
    start from."""
    had = sum("earlier" in (r.get("prior_from") or "") for r in rows)
    dev = sum("earlier" in (r.get("prior_device_from") or "") for r in rows)
    return (f"{had} of {len(rows)} products had host times, {dev} device-time ratios; "
            f"`{hosttime.FILE_NAME}`")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", type=int, nargs="*", default=[18, 20, 22])
    p.add_argument("--data", type=Path, default=None)
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--out", type=Path, default=Path("gpu_estimates.md"))
    args = p.parse_args(argv)
    import cupy as cp

    props = cp.cuda.runtime.getDeviceProperties(0)
    gpu = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    rows = []
    for name, build in graphs(args.scales, args.data):
        A = build()
        _log(f"{name}: {A.shape[0]:,} vertices, {A.nvals:,} entries")
        rows += measure(name, A, args.repeat)
        del A
    text = ["# The GPU planner's estimates against measured times", "",
            f"`check_gpu_estimates.py` on {gpu} (L2 {props['l2CacheSize'] >> 20} MiB), "
            f"CuPy {cp.__version__}, Python {platform.python_version()}; "
            f"median of {args.repeat} calls after two warm-ups, each a whole `gb.mxv` "
            f"(planner, kernels, write-back), the device synchronized.", "",
            "Estimates with the host time measured in this process "
            "(`gblas.planner.hosttime`, after the calls timed):", "", summary(rows), "",
            "A new process's first estimate, with the host times and device-time ratios "
            f"earlier processes on this machine saved ({_prior_words(rows)}):", "",
            summary(rows, "est_prior_ms"), "",
            "With the constants alone (the first process on a machine):", "",
            summary(rows, "est_const_ms"), "", table(rows), ""]
    args.out.write_text("\n".join(text))
    args.out.with_suffix(".json").write_text(json.dumps(rows, indent=1))
    _log(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
