"""CuPy kernels: importing this package imports CuPy and registers the GPU kernels.

The registry imports it lazily, the first time a kernel of device ``"gpu"`` is asked for,
so ``import gblas`` never imports CuPy.

* :mod:`.mxv` -- masked pull SpMV and push SpMSpV over a semiring;
* :mod:`.mxm` -- masked SpGEMM (expand-sort-compress saxpy, and masked dot products);
* :mod:`.elementwise` -- unary and binary maps;
* :mod:`.traversal` -- BFS levels, one fused kernel per level (push or pull);
* :mod:`.vector_kernels` -- fused dense-vector steps (PageRank's update);
* :mod:`._cuda` -- the shared preamble, C types and compiled-module cache.
"""

import cupy  # noqa: F401  (fail here, clearly, when CuPy is missing)

from . import elementwise, mxm, mxv, traversal, vector_kernels  # noqa: F401  (register the kernels)

__all__ = ["elementwise", "mxm", "mxv", "traversal", "vector_kernels"]
from . import frontier, heavy_light, segmented, shards  # noqa: E402,F401  (GPU cache-aware formats)
