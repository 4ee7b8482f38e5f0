"""Predicted main-memory traffic of a CPU pull SpMV, from the cache simulator.

A spatially sampled LRU simulation of the matrix itself
(:func:`gblas.planner.sampled.sampled_pull_misses`: a few windows of rows, a hashed share of
their lines, a cache scaled to match), computed once per CSR and kept with it, predicts
the share of a CSR pull's gathers of ``x`` that miss the L3, shown in the Plan:
``details["predicted"]`` and a clause of the reason that ``gb.explain`` prints.  The
estimate of bytes moved (``Plan.est_bytes``) of a CSR or shards pull is the prediction.
The estimated *times* (:mod:`gblas.formats.costing`) use the same sampled replay through
the L2 and through the quarter of the L3 that x keeps in practice
(``benchmarks/fit_cpu_costs.py`` fits them to measured times).

Examples
--------
>>> import numpy as np, gblas as gb
>>> A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], shape=(3, 3))
>>> p = gb.explain(gb.mxv, A, gb.Vector.from_dense(np.ones(3)))
>>> "predicted" in p.details and "miss" in p.reason
True
"""

from __future__ import annotations

from typing import Any

from .. import hardware
from . import cost

__all__ = ["annotate", "predicted_misses"]


def predicted_misses(csr: Any, x_bytes: int, y_bytes: int, hw: Any = None) -> dict:
    """The sampled simulation's prediction for a pull over ``csr`` on this machine's last
    level (cached with the CSR).

    Examples
    --------
    >>> import numpy as np
    >>> from gblas.formats import CSR
    >>> A = CSR.from_coo(np.array([0, 1]), np.array([1, 0]), None, (2, 2), iso_value=True)
    >>> p = predicted_misses(A, 8, 9)
    >>> p["simulated"], p["x_miss"]
    (False, 0.5)
    """
    hw = hw or hardware.detect()
    key = ("locality", hw.l3, hw.line, int(x_bytes), int(y_bytes))
    memo = cost.summary(csr)
    got = memo.get(key)
    if got is None:
        from .sampled import sampled_pull_misses

        got = memo[key] = sampled_pull_misses(csr, hw.l3, int(x_bytes), int(y_bytes),
                                              line=hw.line)
    return got


def annotate(A: Any, transposed: bool, fmt: str, x_bytes: int, y_bytes: int, reason: str,
             details: dict, est: int) -> tuple[str, int]:
    """Add the predicted misses of an unmasked CPU pull to a plan's reason and details;
    returns ``(reason, est_bytes)`` (the prediction for a CSR or shards pull)."""
    csr = A.cached_format("csr", transposed=transposed)
    if csr is None or csr.device != "cpu" or csr.nnz == 0:
        return reason, est
    hw = hardware.detect()
    p = predicted_misses(csr, x_bytes, y_bytes, hw)
    how = "sampled LRU simulation" if p["simulated"] else "x and y fit: first touches only"
    details["predicted"] = {"x_miss": round(p["x_miss"], 4),
                            "csr_bytes_per_edge": round(p["bytes_per_edge"], 3),
                            "simulated": p["simulated"]}
    reason += (f"; predicted: {100 * p['x_miss']:.3g}% of x gathers miss the "
               f"{hw.l3 >> 20} MiB L3 ({how}), csr ~{p['bytes_per_edge']:.3g} B/edge")
    if fmt in ("csr", "shards"):
        est = int(p["bytes"])
    return reason, est
