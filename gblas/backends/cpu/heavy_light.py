"""CPU (Numba) pull SpMV over heavy/light tiles (MultiGraph, adapted to CPU threads).

Phase 1 runs every task at once, the tasks (heavy tiles, and the light tiles of each
column panel) split between the threads by cost in column-panel order: a thread walks its
column panels one after another, keeping the panel's slice of ``x`` in its L2, and every
local row accumulates its products in a register and writes one partial to the stream
buffer.  Phase 2 reduces the buffer per row panel in parallel, in column-panel order.
Both phases are the grouped-rows kernels of :mod:`.segmented`; only the schedule stored
in the format (one phase for all tiles, merge blocks = row panels) differs.
"""

from __future__ import annotations

from typing import Any

from ..registry import VecData, register
from .segmented import run_grouped

__all__ = ["pull"]


@register("mxv", "heavy_light", "cpu", "pull")
def pull(H: Any, x: VecData, allow: Any, semiring: Any, types: tuple) -> VecData:
    """Pull SpMV over :class:`~gblas.formats.heavy_light.HeavyLight` (same contract as the
    CSR pull kernel of :mod:`.mxv`).

    Parameters
    ----------
    H : HeavyLight
        The matrix; the other arguments and the result are those of
        :func:`gblas.backends.cpu.mxv.pull` (masked-out rows are skipped in every tile;
        the monoid combines the tiles' partials).

    Examples
    --------
    >>> import numpy as np
    >>> from gblas.formats import CSR
    >>> from gblas.formats.heavy_light import HeavyLight
    >>> from gblas.semirings import semiring
    >>> A = CSR.from_coo(np.array([0, 0, 1]), np.array([0, 3, 3]), None, (2, 4),
    ...                  iso_value=True)
    >>> H = HeavyLight.from_csr(A, tile_rows=1, tile_cols=2, heavy_threshold=2)
    >>> s = semiring("plus_second")
    >>> x = VecData(4, None, np.array([1.0, 2.0, 3.0, 4.0]))
    >>> pull(H, x, None, s, s.types(np.dtype(bool), x.values.dtype)).values.tolist()
    [5.0, 4.0]
    """
    return run_grouped(H, x, allow, semiring, types)
