"""gblas.analysis: the cache simulator against an independent LRU oracle, the replayed
access counts of every format and schedule, the sampled estimate, the planner's Plan and
the ``gblas plot locality`` command."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas.analysis import CacheConfig, CacheLevel, miss_curve, sampled_pull_misses, simulate
from gblas.backends.cpu import cachesim
from gblas.exceptions import InvalidValue


def lru_oracle(trace, levels):
    """Per level: ``(sets, ways)``; returns accesses served per level (+ memory), with
    OrderedDicts (set = line mod sets), misses filled at every level they missed."""
    caches = [[OrderedDict() for _ in range(s)] for s, _ in levels]
    served = [0] * (len(levels) + 1)
    for line in trace:
        for lv, (s, w) in enumerate(levels):
            c = caches[lv][line % s]
            if line in c:
                c.move_to_end(line)
                served[lv] += 1
                break
            if len(c) >= w:
                c.popitem(last=False)
            c[line] = True
        else:
            served[-1] += 1
    return served


traces = st.lists(st.integers(0, 200), min_size=1, max_size=600)


@settings(max_examples=60, deadline=None)
@given(trace=traces, cap=st.integers(1, 150))
def test_fully_associative_matches_oracle(trace, cap):
    # both paths: way arrays (cap <= LIST_WAYS) and the linked list (larger)
    assert cachesim.lru_misses(np.array(trace), cap) == lru_oracle(trace, [(1, cap)])[-1]


@settings(max_examples=40, deadline=None)
@given(trace=traces, l1=st.tuples(st.sampled_from([1, 2, 4]), st.integers(1, 4)),
       l2=st.tuples(st.sampled_from([1, 2, 8]), st.integers(1, 80)))
def test_hierarchy_matches_oracle(trace, l1, l2):
    state = cachesim.new_state(201, [l1[0], l2[0]], [l1[1], l2[1]], hashed=False)
    t = np.array(trace, dtype=np.int64)
    cachesim.replay(state, t, np.zeros(t.size, dtype=np.int64), 0)
    assert state[8][:, 0].tolist() == lru_oracle(trace, [l1, l2])


def _graph(n=600, density=0.02, seed=0):
    return sp.random(n, n, density=density, format="csr", random_state=seed)


def test_counts_of_every_format_and_schedule():
    S = _graph()
    m, nnz = S.shape[0], S.nnz
    cfg = CacheConfig.scaled(2048)
    csr = simulate(S, cache=cfg)
    assert csr.served[:, 0].sum() == nnz and csr.served[:, 1].sum() == m
    sh = simulate(S, format="shards", cache=cfg)
    assert np.array_equal(sh.served, csr.served)
    seg = simulate(S, format="segmented", cache=cfg, options={"reorder": None})
    q = seg.extra["q"]
    assert seg.served[:, 0].sum() == nnz
    # the merge: every block's rows cleared, then one update per local row
    assert seg.served[:, 1].sum() == m + round(q * m)
    v = simulate(S, schedule="cgs_vertex", cache=cfg)
    assert v.served[:, 0].sum() == nnz and v.served[:, 1].sum() == m
    assert sorted(v.extra["row_order"].tolist()) == list(range(m))
    e = simulate(S, schedule="cgs_edge", cache=cfg)
    assert e.served[:, 0].sum() == nnz and e.served[:, 1].sum() == nnz


def test_large_cache_leaves_first_touches_only():
    S = _graph()
    big = CacheConfig.single(1 << 24)
    for kw in ({}, {"order": "random"}, {"order": "degree"}, {"schedule": "cgs_edge"},
               {"schedule": "cgs_vertex"}, {"format": "heavy_light"}):
        r = simulate(S, cache=big, x_bytes=8, **kw)
        touched = len(np.unique(S.indices // 8))  # x lines read
        assert r.breakdown()["x"] == touched, kw
        assert r.hit_rates[0] > 0.5


def test_cgs_reduces_vertex_misses_on_a_clustered_graph():
    # blocks of vertices linked mostly inside: CGS finds the reuse a random order hides
    rng = np.random.default_rng(3)
    n, k = 4096, 64
    rows = rng.integers(0, n, 40000)
    cols = (rows // k) * k + rng.integers(0, k, rows.size)
    perm = rng.permutation(n)
    S = sp.csr_array((np.ones(rows.size), (perm[rows], perm[cols])), shape=(n, n))
    cfg = CacheConfig.scaled(n * 16 // 16)
    base = simulate(S, cache=cfg).breakdown()
    for s in ("cgs_vertex", "cgs_edge"):
        got = simulate(S, schedule=s, cache=cfg).breakdown()
        assert got["x"] + got["y"] < 0.5 * (base["x"] + base["y"]), s


def test_miss_curve_never_rises():
    c = miss_curve(_graph(), sizes=[256, 1024, 4096, 16384, 65536])
    assert all(a >= b for a, b in zip(c.accesses, c.accesses[1:]))
    assert c.bytes_per_edge[-1] < c.bytes_per_edge[0]


def test_sampled_estimate_against_full_simulation():
    S = _graph(4000, 0.01, 1)
    from gblas.analysis.simulate import pull_csr

    csr = pull_csr(S)
    for cap in (4096, 16384):
        full = simulate(csr, cache=CacheConfig.single(cap), x_bytes=8, y_bytes=9)
        x_full = full.served[-1, 0] / full.served[:, 0].sum()
        est = sampled_pull_misses(csr, cap, 8, 9, min_entries=0, rate=1.0, sample=0.5)
        assert est["simulated"] and abs(est["x_miss"] - x_full) < 0.1
    fits = sampled_pull_misses(csr, 1 << 24, 8, 9)
    assert not fits["simulated"] and fits["x_miss"] == pytest.approx(500 / csr.nnz)


def test_bad_arguments_name_the_call():
    S = _graph(50)
    with pytest.raises(InvalidValue, match="simulate: argument `format`"):
        simulate(S, format="coo")
    with pytest.raises(InvalidValue, match="`schedule`"):
        simulate(S, format="segmented", schedule="cgs_edge")
    with pytest.raises(InvalidValue, match="`A`"):
        simulate([[1]])
    with pytest.raises(InvalidValue, match="x_bytes"):
        simulate(S, x_bytes=0)
    assert CacheLevel(4096, 8).geometry(64) == (8, 8)


def test_explain_shows_predicted_misses():
    A = gb.io.kronecker(10, symmetric=True)
    x = gb.Vector.from_dense(np.ones(A.shape[0]))
    p = gb.explain(gb.mxv, A, x)
    assert "predicted" in p.details and "x gathers miss" in p.reason
    assert p.format == "csr" and p.est_bytes > A.nvals * 4
    masked = gb.explain(gb.mxv, A, x, mask=x.S)
    assert "predicted" not in masked.details


def test_plot_locality_command(capsys):
    import argparse

    from gblas.analysis import cli

    p = argparse.ArgumentParser()
    cli.add_parser(p.add_subparsers(dest="picture"))
    args = p.parse_args(["locality", "kron:8", "--ratio", "8", "--no-png", "--cgs"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "| segmented |" in out and "cgs_edge" in out and "miss curve" in out
    with pytest.raises(InvalidValue, match="GRAPH"):
        cli.load_graph("no-such-file.mtx")
