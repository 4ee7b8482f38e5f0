"""CPU kernels (Numba): importing this package registers them with the kernel registry.

Shared machinery: :mod:`.operands` (arrays as the kernels read them), :mod:`.blocks` (work
split between threads), :mod:`.folds` (the semiring folds of every format's kernels).
Modules, one per operation family: :mod:`.mxv` (pull SpMV, push SpMSpV), :mod:`.mxm`
(Gustavson saxpy and masked dot SpGEMM), :mod:`.elementwise` (unary / binary maps), and
the cache-aware formats: :mod:`.segmented` (grouped rows:
segmented CSR), :mod:`.heavy_light` (heavy/light 2D tiles) and :mod:`.shards`
(replicated shards, edge-balanced parts); :mod:`.merge` (linear-time union and
intersection of sorted patterns), :mod:`.paths` (heap Dijkstra per source), and whole
algorithms in compiled code: :mod:`.traversal` (BFS levels, push or pull per level),
:mod:`.components` (union-find, Tarjan), :mod:`.communities` and :mod:`.lpa_prec_max`
(label propagation; the latter NetworkX's) and :mod:`.triangles` (triangle count over
degree-oriented edges).  A
new kernel module joins the import line and the list of names below.
"""

from . import (
    arrays,
    blocks,
    communities,
    components,
    elementwise,
    folds,
    heavy_light,
    lpa_prec_max,
    merge,
    mxm,
    mxv,
    operands,
    pagerank_loop,
    paths,
    segmented,
    shards,
    traversal,
    triangles,
    vector_kernels,
)

__all__ = ["arrays", "blocks", "communities", "components", "elementwise", "folds",
           "heavy_light", "lpa_prec_max", "merge", "mxm", "mxv", "operands",
           "pagerank_loop", "paths", "segmented", "shards", "traversal", "triangles",
           "vector_kernels"]
