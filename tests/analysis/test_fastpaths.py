"""The cache simulator's fast paths against its plain path.

The buffered replay (level by level over a buffer, with prefetch), the one-access path
(:func:`cachesim.access`, with the repeat shortcut and per-level clocks) and the plain
path (:func:`cachesim.access_plain`: one clock, resident flags, every access through
every level) must give identical counts on any access stream; and the walkers of
:func:`gblas.analysis.simulate` must replay exactly the accesses (and streamed lines) of
a pure-Python walk of the same format.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from gblas.analysis import CacheConfig, simulate
from gblas.analysis.simulate import _build_format, _levels, _lines, pull_csr
from gblas.backends.cpu import cachesim

NL = 300

# streams with runs of repeats (the repeat shortcut) and a few hot lines
runs = st.lists(st.tuples(st.integers(0, NL - 1), st.integers(1, 4), st.integers(0, 2)),
                min_size=1, max_size=300)
# levels: (sets, ways); ways > LIST_WAYS on one set makes a linked-list level
level = st.one_of(st.tuples(st.sampled_from([1, 2, 3, 4, 8]), st.integers(1, 6)),
                  st.tuples(st.just(1), st.integers(cachesim.LIST_WAYS + 1, 90)))
hierarchies = st.lists(level, min_size=1, max_size=3)


def _expand(runs_):
    lines = np.array([ln for ln, r, _ in runs_ for _ in range(r)], dtype=np.int64)
    classes = np.array([c for _, r, c in runs_ for _ in range(r)], dtype=np.int64)
    return lines, classes


def _state(levels, hashed):
    return cachesim.new_state(NL, [s for s, _ in levels], [w for _, w in levels], hashed)


@settings(max_examples=80, deadline=None)
@given(runs_=runs, levels=hierarchies, hashed=st.booleans(), cuts=st.lists(
    st.integers(0, 1200), max_size=6))
def test_fast_paths_count_as_the_plain_path(runs_, levels, hashed, cuts):
    lines, classes = _expand(runs_)
    plain = _state(levels, hashed)
    cachesim.replay(plain, lines, classes, 2)
    one = _state(levels, hashed)
    cachesim.replay(one, lines, classes, 1)
    buffered = _state(levels, hashed)
    cachesim.replay(buffered, lines, classes, 0)
    assert np.array_equal(one[8], plain[8])
    assert np.array_equal(buffered[8], plain[8])
    assert plain[8].sum() == lines.size
    # the buffer replayed in pieces of any size (a walker flushes when full)
    pieces = _state(levels, hashed)
    a = lines * 4 + classes
    bounds = sorted({0, lines.size, *(c for c in cuts if c < lines.size)})
    for lo, hi in zip(bounds, bounds[1:]):
        buf = a[lo:hi].copy()
        assert cachesim.flush(pieces, buf, np.empty_like(buf), hi - lo) == 0
    assert np.array_equal(pieces[8], plain[8])


@settings(max_examples=30, deadline=None)
@given(runs_=runs, levels=hierarchies, hashed=st.booleans())
def test_residency_probe_agrees_with_the_plain_flags(runs_, levels, hashed):
    lines, classes = _expand(runs_)
    plain = _state(levels, hashed)
    cachesim.replay(plain, lines, classes, 2)
    fast = _state(levels, hashed)
    cachesim.replay(fast, lines, classes, 1)
    for lv in range(len(levels)):
        got = [bool(cachesim.resident(fast, ln, lv)) for ln in range(NL)]
        assert got == [bool(plain[0][ln, lv]) for ln in range(NL)]


# ----------------------------------------------------------------- walkers vs Python


def _stream(streams, a, k, nbytes, line):
    ln = (k * nbytes) // line
    if ln != streams[a][0]:
        streams[a][0] = ln
        streams[a][1] += 1


def _python_rows(csr, xb, yb, line, order):
    m, n = csr.shape
    nx = _lines(n, xb, line)
    ib, pb = csr.indices.dtype.itemsize, csr.indptr.dtype.itemsize
    vb = 0 if csr.values is None else csr.values.dtype.itemsize
    streams = [[-1, 0] for _ in range(cachesim.NSTREAM)]
    trace, cls = [], []
    for i in order:
        _stream(streams, 0, i, pb, line)
        _stream(streams, 0, i + 1, pb, line)
        for k in range(csr.indptr[i], csr.indptr[i + 1]):
            _stream(streams, 1, k, ib, line)
            if vb:
                _stream(streams, 2, k, vb, line)
            trace.append(int(csr.indices[k]) * xb // line)
            cls.append(0)
        trace.append(nx + i * yb // line)
        cls.append(1)
    return trace, cls, [s[1] for s in streams], nx + _lines(m, yb, line)


def _python_grouped(F, m, n, xb, yb, line):
    nx = _lines(n, xb, line)
    has_perm = F.col_perm is not None and F.col_perm.size > 0
    xs, ybase = (nx if has_perm else 0), nx + (nx if has_perm else 0)
    ib, pb, rb = F.indices.dtype.itemsize, F.lptr.dtype.itemsize, F.rowmap.dtype.itemsize
    vb = 0 if F.values is None else F.values.dtype.itemsize
    streams = [[-1, 0] for _ in range(cachesim.NSTREAM)]
    trace, cls = [], []
    if has_perm:
        for j, c in enumerate(F.col_perm):
            trace.append(int(c) * xb // line)
            cls.append(2)
            _stream(streams, 6, j, xb, line)
    for r in range(F.rowmap.size):
        _stream(streams, 0, r + 1, pb, line)
        for k in range(F.lptr[r], F.lptr[r + 1]):
            _stream(streams, 1, k, ib, line)
            if vb:
                _stream(streams, 2, k, vb, line)
            trace.append(xs + int(F.indices[k]) * xb // line)
            cls.append(0)
        _stream(streams, 4, r, yb, line)
    for b in range(F.block_ptr.size - 1):
        for g in range(b * F.block_size, min((b + 1) * F.block_size, m)):
            trace.append(ybase + g * yb // line)
            cls.append(1)
        for q in range(F.block_ptr[b], F.block_ptr[b + 1]):
            for r in range(F.block_lo[q], F.block_hi[q]):
                _stream(streams, 5, r, yb, line)
                _stream(streams, 3, r, rb, line)
                trace.append(ybase + int(F.rowmap[r]) * yb // line)
                cls.append(1)
    return trace, cls, [s[1] for s in streams], ybase + _lines(m, yb, line)


def _plain_counts(trace, cls, nlines, cache):
    sets, ways, hashed = _levels(cache)
    state = cachesim.new_state(nlines, sets, ways, hashed)
    cachesim.replay(state, np.array(trace, dtype=np.int64), np.array(cls, dtype=np.int64), 2)
    return state[8]


@settings(max_examples=12, deadline=None)
@given(n=st.integers(20, 400), density=st.floats(0.005, 0.1), seed=st.integers(0, 99),
       xb=st.sampled_from([4, 8, 12]), yb=st.sampled_from([4, 5, 8]),
       fmt=st.sampled_from(["csr", "segmented", "heavy_light"]), valued=st.booleans(),
       llc=st.sampled_from([1024, 2048, 3000]))
def test_walkers_replay_the_python_walk(n, density, seed, xb, yb, fmt, valued, llc):
    S = sp.random(n, n + 7, density=density, format="csr", random_state=seed)
    if not valued:
        S.data[:] = 1.0
    A = pull_csr(S) if not valued else _valued(S)
    cache = CacheConfig.scaled(llc)
    r = simulate(A, format=fmt, cache=cache, x_bytes=xb, y_bytes=yb,
                 options={"reorder": "frequency"} if fmt != "csr" and seed % 2 else None)
    m = A.shape[0]
    if fmt == "csr":
        trace, cls, streams, nlines = _python_rows(A, xb, yb, cache.line, range(m))
    else:
        opts = {"reorder": "frequency"} if seed % 2 else {}
        F = _build_format(A, fmt, cache, opts)
        trace, cls, streams, nlines = _python_grouped(F, m, A.shape[1], xb, yb, cache.line)
    assert r.stream_lines.tolist() == streams
    assert np.array_equal(r.served, _plain_counts(trace, cls, nlines, cache))


def _valued(S):
    from gblas.formats.csr import CSR

    S = S.tocsr()
    return CSR(S.shape, S.indptr.astype(np.int32), S.indices.astype(np.int32),
               S.data.astype(np.float64), np.dtype(np.float64), None, "cpu")


def test_walk_rows_in_any_order_streams_as_python():
    S = sp.random(300, 300, density=0.03, format="csr", random_state=4)
    A = pull_csr(S)
    order = np.random.default_rng(0).permutation(300).astype(np.int64)
    cache = CacheConfig.scaled(2048)
    sets, ways, hashed = _levels(cache)
    nx = _lines(300, 8, 64)
    state = cachesim.new_state(nx + nx, sets, ways, hashed)
    streams = np.zeros((cachesim.NSTREAM, 2), dtype=np.int64)
    streams[:, 0] = -1
    none = np.zeros(1, dtype=np.int64)
    cachesim.walk_rows(state, streams, order, A.indptr.astype(np.int64),
                       A.indices.astype(np.int64), none, False, none, False, 0, nx, 8, 8,
                       A.indices.dtype.itemsize, 0, A.indptr.dtype.itemsize, 64)
    trace, cls, want, nlines = _python_rows(A, 8, 8, 64, order)
    assert streams[:, 1].tolist() == want
    assert np.array_equal(state[8], _plain_counts(trace, cls, nlines, cache))
