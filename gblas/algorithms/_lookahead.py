"""Whether a GPU power iteration queues iteration ``k + 1`` before it reads ``k``'s change.

On a GPU the loops of PageRank and the spectral centralities queue the next iteration
before they wait for the last one's L1 change, so that the device never idles while the
host launches.  The iteration after the one that converges is then wasted: a whole
product and vector pass (about 5% of a 19-iteration PageRank).  :func:`likely_last`
predicts the converging iteration from the contraction the last two changes show; there
the loop waits instead of queueing ahead.  A wrong "last" costs the device one host
launch of idle time, a missed one the wasted iteration as before; no result changes.

Examples
--------
>>> likely_last([1e-3, 1e-4], 1e-6)     # next change about 1e-5: not yet
False
>>> likely_last([1e-4, 2e-5], 1e-6)     # next change about 4e-6: not yet
False
>>> likely_last([1e-4, 9e-6], 1e-6)     # next change about 8.1e-7
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["likely_last"]


def likely_last(errs: Sequence[float], limit: float) -> bool:
    """Whether the iteration after the changes ``errs`` is predicted to stop: the last
    change times the last ratio of two changes below ``limit``.

    Parameters
    ----------
    errs : sequence of float
        The L1 changes of the iterations read so far, in order.
    limit : float
        The loop stops at the first change below it.

    Returns
    -------
    bool
        False with fewer than two changes, a zero or non-finite one, or a ratio of 1 or
        more (nothing to extrapolate from).

    Examples
    --------
    >>> likely_last([0.5], 1e-6), likely_last([0.0, 0.0], 1e-6)
    (False, False)
    """
    if len(errs) < 2:
        return False
    before, last = float(errs[-2]), float(errs[-1])
    if not (before > 0 and math.isfinite(before) and math.isfinite(last)):
        return False
    rate = last / before
    return rate < 1.0 and last * rate < limit
