"""DistMatrix: a Matrix cut into a 2D grid of blocks, each a gblas Matrix pinned on a
worker (a Dask future kept across calls, so that each block keeps the formats its own
planner built).

Examples
--------
>>> from gblas.distributed.matrix import DistMatrix
>>> DistMatrix.is_distributed
True
"""

from __future__ import annotations

import numpy as np

from ..core.mask import MaskViews
from ..core.matrix import TransposedView
from ..exceptions import InvalidObject, InvalidValue, bad_arg
from . import exchange
from .checkpoint import scatter
from .grid import Grid, default_grid
from .vector import DistMask, DistVector, dispatch_hook

__all__ = ["DistMatrix", "DistTransposed", "distribute", "live_workers"]

#: Seconds a distributed call waits for a result before it gives up with a clear error.
DEFAULT_TIMEOUT = 120.0


def live_workers(client) -> list:
    """The addresses of the cluster's workers, sorted, asked of the scheduler
    (``Client.nthreads``): ``Client.scheduler_info`` returns the client's cached identity,
    which its periodic refresh (asking for no workers) can overwrite between the fetch
    and the return, and a call then saw no workers in a cluster of three."""
    return sorted(client.nthreads())


def _block(A, r0: int, r1: int, c0: int, c1: int):
    """``A[r0:r1, c0:c1]`` as a new gblas Matrix (pattern and iso kept)."""
    from ..core.structure import extract

    return extract(A, np.arange(r0, r1, dtype=np.int64), np.arange(c0, c1, dtype=np.int64))


def check_client(client, call: str):
    if not (hasattr(client, "submit") and hasattr(client, "scatter")
            and hasattr(client, "nthreads")):
        raise bad_arg(InvalidObject, call, "client", "a dask.distributed Client",
                      type(client).__name__, "from dask.distributed import Client, "
                      "LocalCluster; client = Client(LocalCluster(n_workers=4)).")


def distribute(A, client, grid=None, *, timeout: float | None = None) -> DistMatrix:
    """Cut ``A`` into a ``grid = (pr, pc)`` of blocks and pin each block on a worker.

    Parameters
    ----------
    A : gblas.Matrix
        The local matrix (kept by the returned object, to rebuild blocks lost with a
        worker).
    client : dask.distributed.Client
    grid : (int, int), optional
        Row and column parts; default :func:`default_grid` over the client's workers
        for the Matrix's device (the most square grid on the CPU, a row grid on the GPU).
    timeout : float, optional
        Seconds any wait for a result may take before a clear error (default 120).

    Returns
    -------
    DistMatrix

    Examples
    --------
    >>> distribute.__name__
    'distribute'
    """
    from ..core.matrix import Matrix, TransposedMatrix

    call = "distribute"
    check_client(client, call)
    if isinstance(A, TransposedMatrix):
        A = A.materialize()
    if not isinstance(A, Matrix):
        raise bad_arg(InvalidObject, call, "A", "a gb.Matrix", type(A).__name__)
    workers = live_workers(client)
    if grid is None:
        grid = default_grid(len(workers), A.device)
        grid = (min(grid[0], max(A.shape[0], 1)), min(grid[1], max(A.shape[1], 1)))
    g = Grid.make(A.shape[0], A.shape[1], grid, workers, call)
    D = DistMatrix(client, g, [], A.shape, A.dtype, A.device,
                   timeout=DEFAULT_TIMEOUT if timeout is None else float(timeout))
    D._source = ("local", A)
    D._place()
    D._nvals = A.nvals
    return D


class DistMatrix(MaskViews):
    """A Matrix held as a ``pr x pc`` grid of gblas Matrix blocks on Dask workers.

    Use it where a gblas Matrix goes: ``gb.mxv(D, x)``, ``gb.algorithms.pagerank(D)``;
    results are :class:`DistVector` / :class:`DistMatrix`, collected with ``.gather()``.
    """

    mask_type = DistMask

    is_distributed = True
    __gblas_dispatch__ = staticmethod(dispatch_hook)

    def __init__(self, client, grid: Grid, blocks: list, shape, dtype, device: str = "cpu",
                 *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.client = client
        self.grid = grid
        self.blocks = list(blocks)
        self._shape = (int(shape[0]), int(shape[1]))
        self.dtype = np.dtype(dtype)
        self.device = device
        self.timeout = timeout
        self._nvals = None
        self._source = None  # how to rebuild the blocks: ("local", Matrix) or a recipe

    # ------------------------------------------------------------------ placement
    def _place(self) -> None:
        """Build the blocks on their workers from the source (first time or rebuild)."""
        kind = self._source[0] if self._source else None
        g = self.grid
        if kind == "local":
            A = self._source[1]
            blocks = []
            for i in range(g.pr):
                for j in range(g.pc):
                    b = _block(A, int(g.row_bounds[i]), int(g.row_bounds[i + 1]),
                               int(g.col_bounds[j]), int(g.col_bounds[j + 1]))
                    if self.device != "cpu":
                        b = b.to(self.device)
                    blocks.append(scatter(self.client, b, g.owner(i, j), "distribute",
                                          self.timeout))
            self.blocks = blocks
        elif kind == "recipe":
            _, func, args = self._source
            self.blocks = [self.client.submit(func, i, j, *args, workers=[g.owner(i, j)],
                                              pure=False)
                           for i in range(g.pr) for j in range(g.pc)]
        else:
            raise bad_arg(InvalidValue, "DistMatrix.rebuild", "self", "a matrix made by "
                          "distribute() or a distributed generator (they can rebuild lost "
                          "blocks)", "a computed result without a source",
                          "Recompute it from the distributed inputs.")

    def rebuild(self) -> None:
        """Deal the blocks again over the workers alive now and rebuild them from the
        source (after a worker was lost)."""
        self.grid = self.grid.with_workers(live_workers(self.client))
        self._place()

    @property
    def can_rebuild(self) -> bool:
        return self._source is not None

    # ------------------------------------------------------------------ properties
    @property
    def shape(self) -> tuple[int, int]:
        return self._shape

    @property
    def nrows(self) -> int:
        return self._shape[0]

    @property
    def ncols(self) -> int:
        return self._shape[1]

    @property
    def nvals(self) -> int:
        if self._nvals is None:
            from .operations import wait

            futs = [self.client.submit(exchange.nvals, b, workers=[self.grid.workers[k]],
                                       pure=False) for k, b in enumerate(self.blocks)]
            self._nvals = int(sum(wait(self.client, futs, "DistMatrix.nvals", self.timeout)))
        return self._nvals

    @property
    def T(self) -> DistTransposed:
        return DistTransposed(self)

    def block(self, i: int, j: int):
        """The future of block ``(i, j)``."""
        return self.blocks[i * self.grid.pc + j]

    def row_vector_layout(self) -> tuple[np.ndarray, list]:
        """Bounds and owners of a vector over the rows (the products' output)."""
        g = self.grid
        return g.row_bounds, [g.row_owner(i) for i in range(g.pr)]

    def col_vector_layout(self) -> tuple[np.ndarray, list]:
        """Bounds and owners of a vector over the columns (the products' input)."""
        g = self.grid
        return g.col_bounds, [g.col_owner(j) for j in range(g.pc)]

    # ------------------------------------------------------------------ collecting
    def gather(self):
        """The local gblas Matrix (every block brought to the client)."""
        from ..core.matrix import Matrix
        from .operations import wait

        g = self.grid
        blocks = wait(self.client, list(self.blocks), "DistMatrix.gather", self.timeout)
        rows, cols, vals = [], [], []
        blocks = [b.to("cpu") for b in blocks]
        pattern = all(b.dtype == np.bool_ and b.csr().values is None for b in blocks)
        for k, b in enumerate(blocks):
            i, j = divmod(k, g.pc)
            r, c, v = b.to_coo()
            rows.append(np.asarray(r, np.int64) + int(g.row_bounds[i]))
            cols.append(np.asarray(c, np.int64) + int(g.col_bounds[j]))
            vals.append(np.asarray(v).astype(self.dtype, copy=False))
        r = np.concatenate(rows) if rows else np.zeros(0, np.int64)
        c = np.concatenate(cols) if cols else np.zeros(0, np.int64)
        v = np.concatenate(vals) if vals else np.zeros(0, self.dtype)
        if pattern:
            return Matrix.from_coo(r, c, None, shape=self.shape, dup_op=None)
        return Matrix.from_coo(r, c, v, shape=self.shape, dup_op=None, dtype=self.dtype)

    def vector(self, x, over: str = "columns") -> DistVector:
        """A local Vector cut and sent to match this matrix (``over`` "columns": the
        products' input; "rows": their output)."""
        from .vector import scatter_vector

        bounds, owners = (self.col_vector_layout() if over == "columns"
                          else self.row_vector_layout())
        return scatter_vector(self.client, x, bounds, owners, self.timeout)

    def __repr__(self) -> str:
        return (f"DistMatrix(shape={self.shape}, grid={self.grid.pr}x{self.grid.pc}, "
                f"dtype={self.dtype.name}, device={self.device!r})")


class DistTransposed(TransposedView):
    """``D.T`` of a DistMatrix: a view; products use each block's cached transpose."""

    is_distributed = True
    __gblas_dispatch__ = staticmethod(dispatch_hook)

    def __init__(self, parent: DistMatrix) -> None:
        self.parent = parent

    client = property(lambda self: self.parent.client)

    def gather(self):
        """The local transpose."""
        return self.parent.gather().T.materialize()

    def __repr__(self) -> str:
        return f"DistTransposed(of {self.parent!r})"
