"""``gb.explain`` on distributed operands: the grid, the exchange of one product (words
moved per worker against the 2D model's ``O(n / sqrt(p))``), the tier (tasks per block
through Dask, or the NCCL tier on GPU workers) and each block's own local Plan.

Examples
--------
>>> p = DistPlan("mxv", "tasks", "cpu", "2 x 2 grid", {"words_per_worker": 10}, (), "why")
>>> p.format, p.direction
('2d-blocks', 'gather x along grid columns, reduce y along grid rows')
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import exchange
from .matrix import DistMatrix, DistTransposed
from .operations import align, product_layout, wait
from .vector import DistVector

__all__ = ["DistPlan", "explain", "exchange_model"]


@dataclass(frozen=True)
class DistPlan:
    """The plan of a call on distributed operands (``str()`` gives the full text).

    Attributes
    ----------
    op : str
    tier : str
        ``"tasks"`` (a task per block per step through Dask) or ``"nccl"`` (one
        long-lived task per GPU worker, the exchange over NCCL).
    device : str
    grid : str
        The grid in words.
    exchange : dict
        ``words_per_worker`` (the largest), ``model_words`` (``n/pc + n/pr``, i.e.
        ``2 n / sqrt(p)`` on a square grid), ``bytes_per_product``.
    blocks : tuple
        ``(i, j, Plan)`` of every block's local product.
    reason : str
    """

    op: str
    tier: str
    device: str
    grid: str
    exchange: dict
    blocks: tuple
    reason: str
    details: dict = field(default_factory=dict, compare=False)

    format = "2d-blocks"
    direction = "gather x along grid columns, reduce y along grid rows"

    @property
    def kernel(self) -> str:
        return f"distributed/{self.tier}"

    def __str__(self) -> str:
        ex = self.exchange
        lines = [f"{self.op}: distributed, tier {self.tier!r} on {self.device} -- {self.reason}",
                 f"  grid: {self.grid}"]
        if ex:
            lines.append(
                f"  exchange per product: x segments gathered along grid columns, partial y "
                f"reduced along grid rows; at most {ex.get('words_per_worker', 0):,} words "
                f"per worker (2D model n/pc + n/pr = {ex.get('model_words', 0):,}, "
                f"O(n/sqrt(p))), {ex.get('bytes_per_product', 0):,} bytes in all")
        for i, j, p in self.blocks:
            lines.append(f"  block ({i}, {j}): {p}")
        return "\n".join(lines)


def exchange_model(A, left: bool = False, itemsize: int = 8) -> dict:
    """Words moved by one product over ``A`` (``mxv``; ``vxm`` with ``left``): each x
    segment goes to every block of its grid column but the one on its own worker, each
    partial y to its grid row's reducer unless already there.

    Examples
    --------
    >>> exchange_model.__name__
    'exchange_model'
    """
    parent, t, mt, ob, oo, ib, io = product_layout(A, left)
    g = parent.grid
    per_worker: dict = {}
    total = 0
    for o in range(len(ob) - 1):
        for q in range(len(ib) - 1):
            i, j = (q, o) if mt else (o, q)
            w = g.owner(i, j)
            xin = int(ib[q + 1] - ib[q]) if io[q] != w else 0
            yout = int(ob[o + 1] - ob[o]) if oo[o] != w else 0
            per_worker[w] = per_worker.get(w, 0) + xin + yout
            total += xin + yout
    n_out, n_in = int(ob[-1]), int(ib[-1])
    model = n_in // max(len(ib) - 1, 1) + n_out // max(len(ob) - 1, 1)
    return {"words_per_worker": max(per_worker.values(), default=0), "model_words": model,
            "words_total": total, "bytes_per_product": total * itemsize,
            "workers": len(set(g.workers))}


def _block_plans(A, x, semiring, left: bool) -> tuple:
    parent, t, mt, ob, oo, ib, io = product_layout(A, left)
    c, g = parent.client, parent.grid
    xd = align(x, ib, io, c, "explain", "x", parent.timeout) if x is not None else None
    futs, cells = [], []
    sem = exchange.ship(semiring)
    for o in range(len(ob) - 1):
        for q in range(len(ib) - 1):
            i, j = (q, o) if mt else (o, q)
            xs = None if xd is None else xd.parts[q]
            futs.append(c.submit(_explain_block, parent.block(i, j), xs, sem, t, left,
                                 workers=[g.owner(i, j)], pure=False))
            cells.append((i, j))
    plans = wait(c, futs, "explain", parent.timeout)
    return tuple((i, j, p) for (i, j), p in zip(cells, plans))


def _explain_block(block, x, semiring, transposed: bool, left: bool):
    import gblas as gb

    from ..core.vector import Vector

    A = block.T if transposed else block
    if x is None:
        x = Vector.full(A.shape[0] if left else A.shape[1], 1.0, device=block.device)
    elif x.device != block.device:
        x = x.to(block.device)
    s = exchange.unship(semiring)
    return gb.explain(gb.vxm, x, A, s) if left else gb.explain(gb.mxv, A, x, s)


def explain(func, *args, **kwargs) -> DistPlan:
    """The DistPlan of ``func(*args, **kwargs)`` with distributed operands."""
    import gblas as gb

    from .nccl import choose_tier

    name = getattr(func, "__name__", str(func))
    if name in ("mxv", "vxm"):
        left = name == "vxm"
        A, x = (args[1], args[0]) if left else (args[0], args[1])
        s = args[2] if len(args) > 2 else kwargs.get("semiring", "plus_times")
        s = gb.semirings.semiring(s, "explain")
        parent = A.parent if isinstance(A, DistTransposed) else A
        return DistPlan(name, "tasks", parent.device, parent.grid.describe(),
                        exchange_model(A, left, np.dtype(x.dtype).itemsize),
                        _block_plans(A, x, s, left),
                        "a task per block (the partial product on the block's worker), a "
                        "reduce and write-back per output segment")
    from .algorithms import ALGORITHMS

    dist = [a for a in list(args) + list(kwargs.values())
            if isinstance(a, (DistMatrix, DistTransposed, DistVector))]
    A = next((a for a in dist if isinstance(a, (DistMatrix, DistTransposed))), None)
    if name in ALGORITHMS and A is not None:
        parent = A.parent if isinstance(A, DistTransposed) else A
        tier, why = choose_tier(parent)
        return DistPlan(name, tier, parent.device, parent.grid.describe(),
                        exchange_model(parent.T, False, 8),
                        _block_plans(parent.T, None, "plus_times", False),
                        f"loop of distributed products ({why})")
    obj = dist[0] if dist else None
    if isinstance(obj, DistVector):
        where = f"{len(obj.parts)} segments of a vector of size {obj.size}"
    elif obj is not None:
        parent = obj.parent if isinstance(obj, DistTransposed) else obj
        where = parent.grid.describe()
    else:
        where = "distributed masks only"
    return DistPlan(name, "tasks", getattr(obj, "device", "cpu"), where, {}, (),
                    "one task per segment or block on its worker (no exchange)"
                    + ("; scalars combined on the client" if name == "reduce" else ""))
