"""CPU kernels (Numba): importing this package registers them with the kernel registry.

Modules, one per operation family: :mod:`.mxv` (pull SpMV, push SpMSpV), :mod:`.mxm`
(Gustavson saxpy and masked dot SpGEMM), :mod:`.elementwise` (unary / binary maps), and
the cache-aware formats built on :mod:`.mxv`'s helpers: :mod:`.segmented` (grouped rows:
segmented CSR), :mod:`.heavy_light` (heavy/light 2D tiles) and :mod:`.shards`
(replicated shards, edge-balanced parts); :mod:`.merge` (linear-time union and
intersection of sorted patterns), :mod:`.paths` (heap Dijkstra per source), and whole
algorithms in compiled code: :mod:`.traversal` (BFS levels, push or pull per level),
:mod:`.components` (union-find, Tarjan) and :mod:`.communities` (label propagation).  A
new kernel module joins the import line and the list of names below.
"""

from . import (
    arrays,
    communities,
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
    triangles,
    vector_kernels,
)

__all__ = ["arrays", "communities", "components", "elementwise", "heavy_light", "merge",
           "mxm", "mxv", "paths", "segmented", "shards", "traversal", "triangles", "vector_kernels"]
