"""Reading, writing and generating graphs.

- Matrix Market: :func:`read_mm`, :func:`write_mm` (``.mtx`` and ``.mtx.gz``),
  :func:`read_mm_coo` (NumPy coordinates, no gblas object), :func:`read_mm_vector`
  (a one-column file, as :func:`write_mm` writes a Vector, into a Vector).
- Matrices with their built formats: :func:`save`, :func:`load` (``.npz``; the layout
  is documented in :mod:`gblas.io.store`).
- Other libraries (:mod:`gblas.io.interop`): :func:`from_networkx` / :func:`to_networkx`
  (node labels kept; :func:`to_dict` maps a result Vector to them),
  :func:`from_graphblas` / :func:`to_graphblas` (python-graphblas),
  :func:`from_sparse` / :func:`to_sparse` (pydata/sparse); SciPy and CuPy through
  ``Matrix.from_scipy``, ``to_scipy(format=)``, ``to_cupy``.
- Generators: :func:`kronecker` (Graph500 R-MAT), :func:`uniform`, :func:`grid`, and their
  edge-list versions :func:`kronecker_coo`, :func:`uniform_coo`, :func:`grid_coo`.

Examples
--------
>>> from gblas.io import kronecker_coo
>>> rows, cols = kronecker_coo(6, 4)
>>> len(rows)
256
"""

from .generators import grid, grid_coo, kronecker, kronecker_coo, uniform, uniform_coo
from .interop import (
    from_graphblas,
    from_networkx,
    from_sparse,
    to_dict,
    to_graphblas,
    to_networkx,
    to_sparse,
)
from .matrix_market import MMData, read_mm, read_mm_coo, read_mm_vector, write_mm
from .store import load, save

__all__ = [
    "MMData",
    "from_graphblas",
    "from_networkx",
    "from_sparse",
    "grid",
    "grid_coo",
    "kronecker",
    "kronecker_coo",
    "load",
    "read_mm",
    "read_mm_coo",
    "read_mm_vector",
    "save",
    "to_dict",
    "to_graphblas",
    "to_networkx",
    "to_sparse",
    "uniform",
    "uniform_coo",
    "write_mm",
]
