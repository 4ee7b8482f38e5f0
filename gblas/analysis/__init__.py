"""Locality you can see: a cache simulator for gblas's products.

* :func:`simulate` replays a pull SpMV under a format, a vertex order and a schedule
  (including the two idealized cache-guided schedules, CGS-V and CGS-E) through an LRU
  cache hierarchy and returns main-memory accesses, bytes per edge and hit rates;
* :func:`miss_curve` gives the main-memory accesses as the last level grows;
* :func:`compare` runs a set of formats and orders side by side;
* :func:`sampled_pull_misses` is the planner's cheap estimate (windows of rows, cached
  per matrix).

See ``docs/locality.md``.  Nothing here is imported by ``import gblas``.

Examples
--------
>>> import scipy.sparse as sp
>>> from gblas import analysis
>>> S = sp.random(1000, 1000, density=0.01, format="csr", random_state=0)
>>> r = analysis.simulate(S, cache=analysis.CacheConfig.scaled(4096))
>>> r.bytes_per_edge > 0
True
"""

from ..planner.sampled import sampled_pull_misses
from .curve import MissCurve, compare, miss_curve
from .simulate import (
    FORMATS,
    ORDERS,
    SCHEDULES,
    CacheConfig,
    CacheLevel,
    SimResult,
    pull_csr,
    simulate,
)

__all__ = ["CacheConfig", "CacheLevel", "FORMATS", "MissCurve", "ORDERS", "SCHEDULES",
           "SimResult", "compare", "miss_curve", "pull_csr", "sampled_pull_misses",
           "simulate"]
