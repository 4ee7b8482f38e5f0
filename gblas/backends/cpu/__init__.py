"""CPU kernels (Numba): importing this package registers them with the kernel registry.

Modules, one per operation family: :mod:`.mxv` (pull SpMV, push SpMSpV), :mod:`.mxm`
(Gustavson saxpy and masked dot SpGEMM), :mod:`.elementwise` (unary / binary maps), and
the cache-aware formats built on :mod:`.mxv`'s helpers: :mod:`.segmented` (grouped rows:
segmented CSR), :mod:`.heavy_light` (heavy/light 2D tiles) and :mod:`.shards`
(replicated shards, edge-balanced parts); :mod:`.merge` (linear-time union and
intersection of sorted patterns), :mod:`.paths` (heap Dijkstra per source),
:mod:`.traversal` (BFS levels in compiled code, push or pull per level) and
:mod:`.components` (union-find and Tarjan's components).  A new kernel module joins the
import line and ``__all__`` below.
"""

from . import (
    arrays,
    components,
    elementwise,
    heavy_light,
    merge,
    mxm,
    mxv,
    paths,
    segmented,
    shards,
    traversal,
    vector_kernels,
)

__all__ = ["arrays", "components", "elementwise", "heavy_light", "merge", "mxm", "mxv",
           "paths", "segmented", "shards", "traversal", "vector_kernels"]
