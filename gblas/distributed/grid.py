"""The 2D block grid of a distributed Matrix and the checks of distributions.

A ``pr x pc`` grid cuts the rows of an ``m x n`` matrix into ``pr`` contiguous parts and
its columns into ``pc`` (CombBLAS / cuGraph 2D).  Parts differ by at most one row or
column when ``m`` or ``n`` is not a multiple of the grid (ragged edges).  Block ``(i, j)``
lives on one worker; blocks are dealt to the workers row by row, so that with
``pr * pc`` workers every worker holds one block.

Examples
--------
>>> g = Grid.make(5, 4, (2, 2), ["w0", "w1", "w2", "w3"])
>>> g.row_bounds.tolist(), g.col_bounds.tolist()
([0, 2, 5], [0, 2, 4])
>>> g.owner(1, 0)
'w2'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..exceptions import DimensionMismatch, InvalidValue, bad_arg

__all__ = ["Grid", "split_bounds", "default_grid", "check_grid", "same_bounds"]


def split_bounds(n: int, parts: int) -> np.ndarray:
    """``parts + 1`` boundaries cutting ``range(n)`` into near-equal contiguous parts.

    Examples
    --------
    >>> split_bounds(7, 3).tolist()
    [0, 2, 4, 7]
    """
    return np.array([(k * n) // parts for k in range(parts + 1)], dtype=np.int64)


def default_grid(nworkers: int, device: str = "cpu") -> tuple[int, int]:
    """The grid a Matrix on ``device`` is cut into by default: on the CPU the most
    square ``pr x pc`` grid with ``pr * pc == nworkers`` (``pr <= pc``: the fewest words
    per product through Dask); on the GPU a row grid ``(nworkers, 1)``, the NCCL tier's
    fastest (its products read only their own share, nothing is all-gathered, BFS levels
    stay on the workers: ``benchmarks/results/distributed_gpu.md``).

    Examples
    --------
    >>> default_grid(4), default_grid(6), default_grid(3)
    ((2, 2), (2, 3), (1, 3))
    >>> default_grid(4, "gpu")
    (4, 1)
    """
    nworkers = max(1, int(nworkers))
    if device == "gpu":
        return nworkers, 1
    pr = int(math.isqrt(nworkers))
    while nworkers % pr:
        pr -= 1
    return pr, nworkers // pr


def check_grid(grid, shape: tuple[int, int], call: str) -> tuple[int, int]:
    """``(pr, pc)`` validated against the matrix shape; a clear error otherwise.

    Examples
    --------
    >>> check_grid((2, 1), (4, 4), "distribute")
    (2, 1)
    """
    if (not isinstance(grid, (tuple, list)) or len(grid) != 2
            or any(isinstance(g, bool) or not isinstance(g, (int, np.integer)) for g in grid)):
        raise bad_arg(InvalidValue, call, "grid", "a pair of positive integers (pr, pc)",
                      repr(grid), "For 4 workers pass grid=(2, 2).")
    pr, pc = int(grid[0]), int(grid[1])
    if pr < 1 or pc < 1:
        raise bad_arg(InvalidValue, call, "grid", "a pair of positive integers (pr, pc)",
                      repr(tuple(grid)), "For 4 workers pass grid=(2, 2).")
    m, n = int(shape[0]), int(shape[1])
    if pr > max(m, 1) or pc > max(n, 1):
        raise bad_arg(InvalidValue, call, "grid", f"at most {max(m, 1)} row parts and "
                      f"{max(n, 1)} column parts (the matrix is {m} x {n})",
                      f"grid=({pr}, {pc})", "Use a smaller grid for a matrix this small.")
    return pr, pc


@dataclass(frozen=True, eq=False)
class Grid:
    """A ``pr x pc`` block grid over an ``nrows x ncols`` matrix, with each block's worker.

    Attributes
    ----------
    pr, pc : int
        Row parts and column parts.
    row_bounds, col_bounds : numpy.ndarray of int64
        ``pr + 1`` and ``pc + 1`` boundaries.
    workers : tuple of str
        The worker address of block ``(i, j)`` at ``i * pc + j``.
    """

    pr: int
    pc: int
    row_bounds: np.ndarray
    col_bounds: np.ndarray
    workers: tuple

    @classmethod
    def make(cls, nrows: int, ncols: int, grid, workers, call: str = "distribute") -> Grid:
        """Validate ``grid`` and deal its blocks to ``workers`` (a list of addresses)."""
        pr, pc = check_grid(grid, (nrows, ncols), call)
        workers = list(workers)
        if not workers:
            raise bad_arg(InvalidValue, call, "client", "a client of a cluster with at least "
                          "one worker", "no workers", "Start workers (LocalCluster(n_workers="
                          "4)) or wait for them: client.wait_for_workers(4).")
        owners = tuple(workers[(i * pc + j) % len(workers)] for i in range(pr)
                       for j in range(pc))
        return cls(pr, pc, split_bounds(nrows, pr), split_bounds(ncols, pc), owners)

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.row_bounds[-1]), int(self.col_bounds[-1])

    def owner(self, i: int, j: int) -> str:
        """The worker of block ``(i, j)``."""
        return self.workers[i * self.pc + j]

    def row_owner(self, i: int) -> str:
        """The worker of row segment ``i`` of a vector over the rows: a worker of grid
        row ``i`` (its block on the diagonal of the worker layout)."""
        return self.owner(i, i % self.pc)

    def col_owner(self, j: int) -> str:
        """The worker of column segment ``j`` of a vector over the columns."""
        return self.owner(j % self.pr, j)

    def with_workers(self, workers) -> Grid:
        """The same grid dealt to another list of workers (after a worker was lost)."""
        workers = list(workers)
        owners = tuple(workers[(i * self.pc + j) % len(workers)] for i in range(self.pr)
                       for j in range(self.pc))
        return Grid(self.pr, self.pc, self.row_bounds, self.col_bounds, owners)

    def describe(self) -> str:
        """One line: the grid and its parts."""
        m, n = self.shape
        nw = len(set(self.workers))
        rows = np.diff(self.row_bounds)
        cols = np.diff(self.col_bounds)
        return (f"{self.pr} x {self.pc} grid over {m} x {n} on {nw} worker(s); row parts "
                f"{int(rows.min())}-{int(rows.max())}, column parts "
                f"{int(cols.min())}-{int(cols.max())}")


def same_bounds(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two boundary arrays cut the same way."""
    return a.shape == b.shape and bool(np.array_equal(a, b))


def check_same_grid(a: Grid, b: Grid, call: str, arg: str) -> None:
    """Two distributed matrices combined block by block must share the grid's cuts."""
    if (a.pr, a.pc) != (b.pr, b.pc) or not same_bounds(a.row_bounds, b.row_bounds) \
            or not same_bounds(a.col_bounds, b.col_bounds):
        raise bad_arg(DimensionMismatch, call, arg, f"a matrix distributed on the same "
                      f"{a.pr} x {a.pc} grid", f"a {b.pr} x {b.pc} grid with other cuts",
                      "Distribute both with the same grid=(pr, pc).")
