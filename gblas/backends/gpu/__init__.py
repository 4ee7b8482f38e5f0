"""CuPy kernels: importing this package imports CuPy and registers the GPU kernels.

The registry imports it lazily, the first time a kernel of device ``"gpu"`` is asked for,
so ``import gblas`` never imports CuPy.

* :mod:`.mxv` -- masked pull SpMV and push SpMSpV over a semiring;
* :mod:`.mxm` -- masked SpGEMM (expand-sort-compress saxpy, and masked dot products);
* :mod:`.elementwise` -- unary and binary maps;
* :mod:`.traversal` -- BFS levels, one fused kernel per level (push or pull);
* :mod:`.vector_kernels` -- fused dense-vector steps (PageRank's update);
* :mod:`.pagerank_loop`, :mod:`.power_fused`, :mod:`.paths_fused` -- a small graph's
  whole PageRank, eigenvector centrality, HITS and single-source shortest paths, in one
  launch;
* :mod:`.segmented`, :mod:`.shards`, :mod:`.relabelled`, :mod:`.heavy_light`, :mod:`.light_panels`,
  :mod:`.frontier` -- the kernels of the GPU formats and the load-balanced push;
* :mod:`.codegen` -- the CUDA kernel files (``cuda/``), their specialization and the
  compiled-module cache; :mod:`.folds` -- atomic monoid folds; :mod:`.launch` -- grid
  sizes, device attributes and the vector conversions of every entry point.
"""

import cupy  # noqa: F401  (fail here, clearly, when CuPy is missing)

# importing the modules registers their kernels
from . import (  # noqa: F401
    elementwise,
    frontier,
    heavy_light,
    mxm,
    mxv,
    pagerank_loop,
    paths_fused,
    power_fused,
    relabelled,
    segmented,
    shards,
    traversal,
    vector_kernels,
)

__all__ = ["elementwise", "frontier", "heavy_light", "mxm", "mxv", "pagerank_loop",
           "paths_fused", "power_fused", "relabelled", "segmented", "shards", "traversal",
           "vector_kernels"]
