"""Vertex orderings for the cache-aware formats: frequency-based clustering, degree sort.

A pull SpMV ``y = A x`` reads ``x[j]`` once per entry of column ``j``: the columns' entry
counts are the *access frequencies* of the vertex data.  On skewed graphs a few columns
take most reads; when their ids are scattered (Graph500 relabels vertices at random),
every cache line of ``x`` brought in holds one useful value.

* :func:`frequency_clustering` (Cagra, section V): the vertices read more often than
  average first, in their original order, then all the others, in their original order.
  Hot vertices share cache lines (and a segment), and the locality that the original
  numbering already had is kept.
* :func:`degree_sort`: every vertex by decreasing frequency (stable), the classic
  degree-based reordering that Cagra compares against (it loses the original locality).

How a reordered format hides the permutation (the design used by every format here)
    Only the **columns** are relabelled: a format stores ``A P`` (``P`` the permutation
    matrix of ``col_perm``) and its kernel runs ``y = (A P)(P^T x)``, gathering
    ``x' = x[col_perm]`` once per call (``O(ncols)``, a forward sweep for frequency
    clustering, against ``O(nnz)`` random reads saved).  The rows, hence the result, the
    mask and the output, keep their original order: nothing is mapped back and callers
    never see the permutation.  ``to_csr()`` undoes the relabelling exactly.

Examples
--------
>>> import numpy as np
>>> freq = np.array([1, 9, 0, 7, 1])
>>> frequency_clustering(freq).tolist()      # above the mean (3.6): 1 and 3, kept in order
[1, 3, 0, 2, 4]
>>> degree_sort(freq).tolist()
[1, 3, 0, 4, 2]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .csr import CSR, known_column_counts

__all__ = [
    "ORDERINGS",
    "apply_ordering",
    "choose_ordering",
    "clustering_pays",
    "column_frequencies",
    "degree_sort",
    "frequency_clustering",
    "inverse_permutation",
    "relabel_columns",
    "resolve",
    "restore_columns",
]


def column_frequencies(csr: CSR) -> np.ndarray:
    """Entries per column (how often a pull SpMV reads each ``x[j]``), int64.

    Examples
    --------
    >>> A = CSR.from_coo(np.array([0, 1, 1]), np.array([2, 0, 2]), None, (2, 3),
    ...                  iso_value=True)
    >>> column_frequencies(A).tolist()
    [1, 0, 2]
    """
    n = csr.shape[1]
    if csr.nnz == 0:
        return np.zeros(n, dtype=np.int64)
    known = known_column_counts(csr)
    if known is not None:  # recorded by the build of csr (a transpose): no pass
        return known
    if csr.nnz >= 1 << 20:  # big: counted by all threads (NumPy widens the indices first)
        from ..backends.cpu import build

        return build.column_counts(np.asarray(csr.indptr), np.asarray(csr.indices), n)
    return np.bincount(np.asarray(csr.indices), minlength=n).astype(np.int64, copy=False)


def frequency_clustering(freq: np.ndarray) -> np.ndarray:
    """Cagra's frequency-based clustering: the new order as ``perm[new] = old``.

    Vertices whose frequency is above the average come first, then the rest; both groups
    keep their original relative order.

    Parameters
    ----------
    freq : ndarray of int
        Access frequency of every vertex (out-degree of a source, column count of A).

    Returns
    -------
    ndarray of int64
        A permutation of ``range(len(freq))``.

    Examples
    --------
    >>> frequency_clustering(np.array([0, 5, 1, 5])).tolist()
    [1, 3, 0, 2]
    """
    freq = np.asarray(freq)
    if freq.size == 0:
        return np.zeros(0, dtype=np.int64)
    hot = freq * freq.size > freq.sum()  # freq > mean, exactly in integers
    return np.concatenate([np.flatnonzero(hot), np.flatnonzero(~hot)]).astype(np.int64)


def degree_sort(freq: np.ndarray) -> np.ndarray:
    """Every vertex by decreasing frequency, ties in original order (``perm[new] = old``).

    Examples
    --------
    >>> degree_sort(np.array([2, 3, 2, 0])).tolist()
    [1, 0, 2, 3]
    """
    freq = np.asarray(freq)
    return np.argsort(-freq.astype(np.int64), kind="stable").astype(np.int64)


#: The orderings a format accepts as ``reorder=``.
ORDERINGS = {"frequency": frequency_clustering, "degree": degree_sort}


def inverse_permutation(perm: np.ndarray) -> np.ndarray:
    """``inv[old] = new`` for ``perm[new] = old``.

    Examples
    --------
    >>> inverse_permutation(np.array([2, 0, 1])).tolist()
    [1, 2, 0]
    """
    perm = np.asarray(perm)
    inv = np.empty(perm.size, dtype=np.int64)
    inv[perm] = np.arange(perm.size, dtype=np.int64)
    return inv


def clustering_pays(freq: np.ndarray, cache_bytes: int, value_bytes: int = 4,
                    line: int = 64) -> bool:
    """Whether frequency clustering is worth it for a pull over these column frequencies.

    It is when the vertex data does not fit ``cache_bytes`` (otherwise every read hits
    anyway) and the hot vertices are a minority taking most reads but are scattered
    (their cache lines hold few hot values).

    Parameters
    ----------
    freq : ndarray of int
        Column frequencies.
    cache_bytes : int
        The cache the hot vertex data should fit (the planner passes the L2).
    value_bytes : int
        Bytes per vertex value.
    line : int
        Cache line bytes.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> freq = np.where(rng.random(100_000) < 0.05, 200, 1)   # 5 % hubs, scattered
    >>> clustering_pays(freq, cache_bytes=64 << 10)
    True
    >>> clustering_pays(np.sort(freq)[::-1], cache_bytes=64 << 10)   # already clustered
    False
    >>> clustering_pays(np.ones(100_000, int), cache_bytes=64 << 10)  # no skew
    False
    """
    freq = np.asarray(freq)
    n = freq.size
    total = int(freq.sum())
    if n == 0 or total == 0 or n * value_bytes <= cache_bytes:
        return False
    hot = freq * n > total
    nhot = int(hot.sum())
    if nhot == 0 or nhot > 0.5 * n or int(freq[hot].sum()) < 0.5 * total:
        return False
    # cache lines holding at least one hot value, against the fewest they could fill
    per_line = max(1, line // value_bytes)
    hot_lines = np.flatnonzero(hot) // per_line  # ascending: count the distinct ones
    lines_now = 1 + int(np.count_nonzero(hot_lines[1:] != hot_lines[:-1]))
    lines_clustered = -(-nhot // per_line)
    return lines_now >= 2 * lines_clustered


def relabel_columns(csr: CSR, perm: np.ndarray, split: int | None = None) -> CSR:
    """``A P``: column ``perm[new]`` of A becomes column ``new`` (indices sorted per row).

    Index dtypes and iso-ness are kept.

    Parameters
    ----------
    csr : CSR
        On the CPU.
    perm : ndarray of int
        ``perm[new] = old``, a permutation of the columns.
    split : int, optional
        When ``perm[:split]`` and ``perm[split:]`` are both increasing (frequency
        clustering), each row is relabelled by a stable partition in one parallel pass
        instead of a sort.

    Examples
    --------
    >>> A = CSR.from_coo(np.array([0, 0]), np.array([0, 2]), np.array([1.0, 2.0]), (1, 3))
    >>> B = relabel_columns(A, np.array([2, 1, 0]))
    >>> B.indices.tolist(), B.values.tolist()
    ([0, 2], [2.0, 1.0])
    >>> relabel_columns(A, np.array([2, 0, 1]), split=1).indices.tolist()
    [0, 1]
    """
    inv = inverse_permutation(perm)
    if csr.nnz == 0:
        return CSR(csr.shape, csr.indptr.copy(), csr.indices.copy(), None if csr.values is None
                   else csr.values.copy(), csr.dtype, csr.iso_value, "cpu")
    if split is not None:
        from ..backends.cpu import segmented as kernels  # Numba, on first use
        from ..hardware import detect

        indices, take = kernels.relabel_two_runs(np.asarray(csr.indptr), np.asarray(csr.indices),
                                                 inv, int(split), csr.values is not None,
                                                 detect().threads)
        values = None if csr.values is None else csr.values[take]
        return CSR(csr.shape, csr.indptr.copy(), indices, values, csr.dtype, csr.iso_value, "cpu")
    import scipy.sparse as sp

    indices = inv.astype(csr.indices.dtype, copy=False)[np.asarray(csr.indices)]
    # SciPy's per-row sort (C++, pairs of index and value) keeps the index dtypes
    data = np.zeros(indices.size, dtype=np.int8) if csr.values is None else csr.values.copy()
    S = sp.csr_array((data, indices, csr.indptr.copy()), shape=csr.shape, copy=False)
    S.has_sorted_indices = False
    S.sort_indices()
    values = None if csr.values is None else np.ascontiguousarray(S.data)
    return CSR(csr.shape, S.indptr.astype(csr.indptr.dtype, copy=False),
               S.indices.astype(csr.indices.dtype, copy=False), values, csr.dtype,
               csr.iso_value, "cpu")


def restore_columns(csr: CSR, perm: np.ndarray | None) -> CSR:
    """Undo :func:`relabel_columns` (``perm`` None: nothing to undo).

    Examples
    --------
    >>> A = CSR.from_coo(np.array([0, 0]), np.array([0, 2]), np.array([1.0, 2.0]), (1, 3))
    >>> p = np.array([2, 0, 1])
    >>> restore_columns(relabel_columns(A, p), p).indices.tolist()
    [0, 2]
    """
    if perm is None:
        return csr
    return relabel_columns(csr, inverse_permutation(perm))


def apply_ordering(csr: CSR, reorder: str | None,
                   freq: np.ndarray | None = None) -> tuple[CSR, np.ndarray | None]:
    """``(A P, perm)`` for the named ordering, or ``(A, None)`` for ``reorder=None``.

    ``freq`` (the column frequencies, when already computed) saves a pass.

    Examples
    --------
    >>> A = CSR.from_coo(np.array([0, 1, 1]), np.array([1, 1, 0]), None, (2, 2),
    ...                  iso_value=True)
    >>> B, perm = apply_ordering(A, "degree")
    >>> perm.tolist(), B.indices.tolist()
    ([1, 0], [0, 0, 1])
    """
    if reorder is None:
        return csr, None
    if reorder not in ORDERINGS:
        raise ValueError(f"reorder must be one of {sorted(ORDERINGS)} or None, got {reorder!r}")
    freq = column_frequencies(csr) if freq is None else freq
    perm = ORDERINGS[reorder](freq)
    split = int(np.count_nonzero(freq * freq.size > freq.sum())) if reorder == "frequency" \
        else None
    return relabel_columns(csr, perm, split), perm


def choose_ordering(csr: CSR, reorder: str | None, cache_bytes: int, value_bytes: int,
                    line: int) -> tuple[np.ndarray | None, int | None, str | None]:
    """The ordering ``reorder`` asks for, not applied: ``(perm, split, name)``.

    ``reorder="auto"``: frequency clustering when :func:`clustering_pays`, else none.
    ``split`` is the length of the first of the two increasing runs of a frequency
    clustering (None for other orderings; ``perm`` None for none).

    Examples
    --------
    >>> A = CSR.from_coo(np.array([0, 1, 1]), np.array([2, 0, 2]), None, (2, 3),
    ...                  iso_value=True)
    >>> perm, split, name = choose_ordering(A, "frequency", 1 << 20, 4, 64)
    >>> perm.tolist(), split, name
    ([2, 0, 1], 1, 'frequency')
    """
    freq = None
    if reorder == "auto":
        freq = column_frequencies(csr)
        reorder = "frequency" if clustering_pays(freq, cache_bytes, value_bytes, line) else None
    if reorder is None:
        return None, None, None
    if reorder not in ORDERINGS:
        raise ValueError(f"reorder must be one of {sorted(ORDERINGS)} or None, got {reorder!r}")
    freq = column_frequencies(csr) if freq is None else freq
    perm = ORDERINGS[reorder](freq)
    split = int(np.count_nonzero(freq * freq.size > freq.sum())) if reorder == "frequency" \
        else None
    return perm, split, reorder


def resolve(csr: CSR, reorder: str | None, cache_bytes: int, value_bytes: int,
            line: int) -> tuple[CSR, np.ndarray | None, str | None]:
    """Apply ``reorder`` ("auto": frequency clustering when :func:`clustering_pays`);
    returns ``(A P, perm, the ordering applied)``.

    Examples
    --------
    >>> A = CSR.from_coo(np.array([0]), np.array([1]), None, (1, 2), iso_value=True)
    >>> resolve(A, "auto", 1 << 20, 4, 64)[2] is None
    True
    """
    freq = None
    if reorder == "auto":
        freq = column_frequencies(csr)
        reorder = "frequency" if clustering_pays(freq, cache_bytes, value_bytes, line) else None
    work, perm = apply_ordering(csr, reorder, freq)
    return work, perm, reorder


def gather(x: Any, perm: np.ndarray | None) -> Any:
    """``x[perm]`` (``x`` itself when ``perm`` is None): the input of a reordered format.

    Examples
    --------
    >>> gather(np.array([10, 20, 30]), np.array([2, 0, 1])).tolist()
    [30, 10, 20]
    """
    if perm is None:
        return x
    return np.take(x, perm)
