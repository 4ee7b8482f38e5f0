"""The end-to-end benchmark's second set of algorithms: the spectral centralities
(eigenvector, Katz, HITS), the clustering coefficients and Louvain, each against
NetworkX's own call on the same graph.

:mod:`benchmarks.run_end_to_end` runs them like its first set (fresh, prepared, cold;
the answers checked before a time is reported); this module holds what differs per
algorithm: the gblas call, NetworkX's call, the answer's canonical form and the check.

Settings shared by both sides:

* eigenvector centrality: NetworkX's defaults (``max_iter=100``, ``tol=1e-6`` under its
  rule ``L1 < n * tol``), given to gblas as ``tol = n * 1e-6``, so both run the same
  iterates over ``A + I``;
* Katz centrality: ``alpha = KATZ_SHARE / lambda_max`` (the undirected graph's largest
  eigenvalue, from SciPy's ``eigsh``, outside the timing: NetworkX's default 0.1
  diverges on most of these graphs), ``beta = 1``, NetworkX's rule as above;
* HITS: NetworkX's call (a sparse SVD through SciPy's ARPACK, ``tol=1e-8``) against
  gblas's power iteration at its default ``tol=1e-10``; both normalized to sum 1, the
  check allows ``HITS_DIFF``;
* clustering and transitivity: exact; Louvain: ``seed=1``, the partitions compared.

With ``--gpu`` the three centralities run on a GPU Matrix against loops of cuSPARSE
products through ``cupyx.scipy.sparse`` (:func:`cupy_anchor`), to the same rule and
tolerance (HITS: gblas's power iteration on both sides).

Examples
--------
>>> from benchmarks.end_to_end_spectral import ALGORITHMS, FORM
>>> all(FORM[a] in "DUW" for a in ALGORITHMS)
True
"""

from __future__ import annotations

import numpy as np

#: The algorithms of this set, in the order they run on a graph.
ALGORITHMS = ("hits", "eigenvector_centrality", "katz_centrality", "clustering",
              "transitivity", "louvain")
#: The graph form each runs on (see ``run_end_to_end.FORM``): HITS on the weighted
#: directed graph (NetworkX's ``hits`` reads the weights), the others undirected.
FORM = {"hits": "W", "eigenvector_centrality": "U", "katz_centrality": "U",
        "clustering": "U", "transitivity": "U", "louvain": "U"}
#: Prior NetworkX cost, seconds per stored entry (replaced by measured rates).
NX_PRIOR = {"hits": 3e-6, "eigenvector_centrality": 2e-5, "katz_centrality": 4e-5,
            "clustering": 4e-6, "transitivity": 4e-6, "louvain": 6e-6}
#: Katz's alpha as a share of ``1 / lambda_max``.
KATZ_SHARE = 0.5
#: NetworkX's tolerance of the eigenvector and Katz iterations (its rule: ``n * tol``).
NX_TOL = 1e-6
#: Largest difference allowed between the HITS answers (sum-1 scores): NetworkX stops
#: its SVD at a relative accuracy of 1e-8, gblas its power iteration at an L1 change
#: of 1e-10.
HITS_DIFF = 1e-6
#: Louvain's seed (both sides).
SEED = 1


def katz_alpha(U) -> float:
    """``KATZ_SHARE / lambda_max(U)`` for a symmetric SciPy matrix ``U``: an alpha under
    which Katz's iteration converges."""
    import scipy.sparse.linalg as sla

    if U.shape[0] < 3:
        lam = float(np.abs(U.toarray()).sum(axis=1).max(initial=0.0))
    else:
        lam = float(sla.eigsh(U.astype(np.float64), k=1, which="LA",
                              return_eigenvectors=False)[0])
    return KATZ_SHARE / (lam or 1.0)


def add_params(alg: str, g, p: dict) -> None:
    """Add to ``p`` (the run's parameters of graph ``g``) what ``alg`` needs: Katz's
    alpha (computed once per graph, outside the timing)."""
    if alg == "katz_centrality" and "katz_alpha" not in p:
        p["katz_alpha"] = katz_alpha(g.U)


def gblas_calls(p: dict) -> dict:
    """The public gblas calls of this set as functions of their graph argument (``p``:
    the run's parameters, after :func:`add_params`)."""
    import gblas as gb

    a = gb.algorithms

    def eig(A):
        return a.eigenvector_centrality(A, tol=A.shape[0] * NX_TOL, max_iter=100)

    def katz(A):
        return a.katz_centrality(A, alpha=p["katz_alpha"], beta=1.0,
                                 tol=A.shape[0] * NX_TOL, max_iter=1000)

    return {"hits": lambda A: a.hits(A, tol=HITS_TOL), "eigenvector_centrality": eig,
            "katz_centrality": katz, "clustering": lambda A: a.clustering(A),
            "transitivity": lambda A: a.transitivity(A),
            "louvain": lambda A: a.louvain(A, seed=SEED)}


def _dense(v) -> np.ndarray:
    x = v.to_dense(fill=0)
    return x.get() if hasattr(x, "get") else np.asarray(x, dtype=np.float64)


def canon_gblas(alg: str, r):
    """gblas's answer in the compared form."""
    if alg == "hits":
        return np.stack([_dense(r[0]), _dense(r[1])])
    if alg == "transitivity":
        return float(r)
    if alg == "louvain":
        x = r.to_dense(fill=-1) if hasattr(r, "to_dense") else r
        return np.asarray(x.get() if hasattr(x, "get") else x)
    return _dense(r)


def _of_dict(d: dict, n: int) -> np.ndarray:
    out = np.zeros(n)
    if d:
        k = np.fromiter(d.keys(), dtype=np.int64, count=len(d))
        out[k] = np.fromiter(d.values(), dtype=np.float64, count=len(d))
    return out


def _labels(comms, n: int) -> np.ndarray:
    lab = np.full(n, -1, dtype=np.int64)
    for k, c in enumerate(comms):
        lab[np.fromiter(c, dtype=np.int64, count=len(c))] = k
    return lab


def networkx_anchors(alg: str, g, p: dict) -> list[tuple]:
    """NetworkX's call of ``alg`` on graph ``g`` (``run_end_to_end.Graph``; ``p`` its
    parameters): a list of ``(name, run(G), canon(result), work)``, ``work`` the entries
    its cost grows with."""
    import networkx as nx

    n = g.n
    U = g.U
    if alg == "hits":
        return [("networkx.hits (SciPy's sparse SVD)", lambda G: nx.hits(G),
                 lambda r: np.stack([_of_dict(r[0], n), _of_dict(r[1], n)]), g.W.nnz)]
    if alg == "eigenvector_centrality":
        return [("networkx.eigenvector_centrality",
                 lambda G: nx.eigenvector_centrality(G, max_iter=100, tol=NX_TOL),
                 lambda r: _of_dict(r, n), U.nnz)]
    if alg == "katz_centrality":
        alpha = p["katz_alpha"]
        return [(f"networkx.katz_centrality (alpha = {KATZ_SHARE} / lambda_max)",
                 lambda G: nx.katz_centrality(G, alpha=alpha, beta=1.0, tol=NX_TOL,
                                              max_iter=1000),
                 lambda r: _of_dict(r, n), U.nnz)]
    if alg == "clustering":
        return [("networkx.clustering", lambda G: nx.clustering(G),
                 lambda r: _of_dict(r, n), U.nnz)]
    if alg == "transitivity":
        return [("networkx.transitivity", lambda G: nx.transitivity(G), float, U.nnz)]
    if alg == "louvain":
        return [("networkx louvain_communities (seed=1)",
                 lambda G: nx.community.louvain_communities(G, seed=SEED),
                 lambda r: _labels(r, n), U.nnz)]
    raise ValueError(alg)


def check(alg: str, g, ours, theirs) -> tuple[bool, str]:
    """Compare gblas's answer with NetworkX's: ``(same, description)``."""
    if alg == "louvain":
        same = np.array_equal(ours, theirs)
        k = int(theirs.max(initial=-1)) + 1
        if same:
            return True, f"{k:,} communities, the same partition"
        from benchmarks.run_end_to_end import _same_partition

        ok = _same_partition(ours, theirs)
        return ok, f"{k:,} communities, " + ("the same partition (other labels)" if ok
                                            else "DIFFERENT partition")
    if alg == "transitivity":
        err = abs(ours - theirs)
        return err <= 1e-12 * max(1.0, abs(theirs)), f"{theirs:.6f}, diff {err:.1e}"
    a, b = np.asarray(ours, float), np.asarray(theirs, float)
    err = float(np.abs(a - b).max(initial=0.0))
    scale = max(float(np.abs(b).max(initial=0.0)), 1e-300)
    if alg == "hits":
        return err <= HITS_DIFF * scale, f"max diff {err:.1e}"
    if alg == "clustering":
        return err <= 1e-12, f"max diff {err:.1e}"
    # eigenvector, Katz: the same iterates (an iteration more or less on one side moves
    # a score by less than the tolerance)
    return err <= NX_TOL, f"max diff {err:.1e}"


# ------------------------------------------------------------------------------- GPU

#: The algorithms of this set run with ``--gpu``, against cuSPARSE loops.
GPU_ALGORITHMS = ("hits", "eigenvector_centrality", "katz_centrality")
#: HITS's tolerance on both sides of the GPU table (gblas's default).
HITS_TOL = 1e-10
#: Most iterations of a cupyx loop (it raises past them, so that an unconverged answer is
#: never compared).
CUPY_MAX_ITER = 20_000


def _cupy_power(cp, AT, x, *, add_x=False, scale=1.0, b=None, normalize=False,
                limit=0.0, max_iter=CUPY_MAX_ITER):
    """A power iteration of cuSPARSE products ``AT @ x`` with NumPy-style vector work,
    the 2-norm kept on the device and the L1 change read back once per iteration
    (``RuntimeError`` when ``max_iter`` iterations do not reach ``limit``)."""
    for _ in range(max_iter):
        y = scale * (AT @ x)
        if add_x:
            y = x + y
        if b is not None:
            y = y + b
        if normalize:
            nrm = cp.sqrt((y * y).sum())
            y = y / cp.where(nrm > 0, nrm, 1.0)
        err = float(cp.abs(y - x).sum())
        x = y
        if err < limit:
            return x
    raise RuntimeError(f"no convergence within {max_iter} iterations (L1 change {err:.3g})")


def cupy_anchor(alg: str, cp, cps, S, p: dict):
    """``(name, prepare(), run(M))`` of a cupyx loop computing what gblas's call does on
    the SciPy matrix ``S`` (already moved by ``prepare``), or None."""
    import scipy.sparse as sp

    n = S.shape[0]
    AT = cps.csr_matrix(sp.csr_matrix(S.T, dtype=np.float64))
    name = "cuSPARSE power iteration (cupyx loop)"
    if alg == "eigenvector_centrality":
        return name, lambda: AT, lambda M: _cupy_power(
            cp, M, cp.full(n, 1.0 / n), add_x=True, normalize=True, limit=n * NX_TOL,
            max_iter=100)  # NetworkX's, as gblas's call
    if alg == "katz_centrality":
        def katz(M):
            x = _cupy_power(cp, M, cp.zeros(n), scale=p["katz_alpha"], b=cp.ones(n),
                            limit=n * NX_TOL)
            return x / cp.sqrt((x * x).sum())
        return name, lambda: AT, katz
    if alg == "hits":
        A = cps.csr_matrix(sp.csr_matrix(S, dtype=np.float64))

        def hits(M):
            h, a = cp.full(n, 1.0 / n), cp.zeros(n)
            for _ in range(CUPY_MAX_ITER):
                y = M @ h
                y = y / cp.sqrt((y * y).sum())
                err = float(cp.abs(y - a).sum())
                a = y
                h = A @ a
                if err < HITS_TOL:
                    return cp.stack([h / h.sum(), a / a.sum()])
            raise RuntimeError(f"no convergence within {CUPY_MAX_ITER} iterations")
        return name, lambda: AT, hits
    return None
