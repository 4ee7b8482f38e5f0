"""gblas on a Dask cluster: distributed matrices and vectors, the same API and algorithms.

``A.distribute(client, grid=(pr, pc))`` cuts a Matrix into a 2D grid of blocks pinned on
the workers (CombBLAS / cuGraph 2D); ``gb.mxv``, ``vxm``, ``ewise_add``, ``ewise_mult``,
``apply``, ``select``, ``reduce``, ``assign``, ``transpose`` and ``explain``, and
``gblas.algorithms`` (``bfs``, ``pagerank``, ``connected_components``, ``sssp``,
``triangle_count``) accept the result; ``.gather()`` collects a distributed result.
Needs the ``distributed`` extra (``pip install gblas[distributed]``); ``import gblas``
does not import Dask.

Examples
--------
>>> import gblas.distributed as gd
>>> gd.default_grid(4)
(2, 2)
"""

from .checkpoint import Checkpoint, WorkerLost
from .grid import Grid, default_grid, split_bounds
from .matrix import DistMatrix, DistTransposed, distribute
from .vector import DistMask, DistVector, scatter_vector

__all__ = ["Checkpoint", "DistMask", "DistMatrix", "DistTransposed", "DistVector", "Grid",
           "WorkerLost", "default_grid", "distribute", "scatter_vector", "split_bounds"]
