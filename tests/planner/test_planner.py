"""The planner: choices follow the statistics, are visible in the Plan, and can be pinned."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas.exceptions import InvalidValue, NoKernel


def _chain(n, dtype=bool):
    # a path 0 -> 1 -> ... -> n-1 plus a hub 0 -> everything
    rows = np.r_[np.arange(n - 1), np.zeros(n - 1, int)]
    cols = np.r_[np.arange(1, n), np.arange(1, n)]
    return gb.Matrix.from_coo(rows, cols, shape=(n, n), dup_op="any")


def test_dense_x_pulls():
    A = _chain(50)
    x = gb.Vector.from_dense(np.ones(50))
    p = gb.explain(gb.mxv, A, x, "plus_times")
    assert (p.op, p.format, p.direction, p.device) == ("mxv", "csr", "pull", "cpu")
    assert p.kernel == "mxv/csr/cpu/pull"
    assert "dense" in p.reason
    assert "mxv: csr pull on cpu" in str(p)


def test_sparse_frontier_pushes_and_builds_the_transpose_once():
    A = _chain(2000)
    f = gb.Vector.from_coo([5], [True], size=2000)
    p = gb.explain(gb.mxv, A, f, "any_pair")
    # column 5 has two entries: f = 2/|E| << 1 %, so push even on a first use
    assert p.direction == "push", p
    assert p.details["active_edges"] == 2
    assert any("build csr of A^T" in c for c in p.conversions), p.conversions
    gb.mxv(A, f, "any_pair")
    p2 = gb.explain(gb.mxv, A, f, "any_pair")
    assert p2.direction == "push" and not any("build" in c for c in p2.conversions)
    # vxm pushes over the CSR of A itself: nothing to build
    p3 = gb.explain(gb.vxm, f, _chain(2000), "any_pair")
    assert p3.direction == "push" and not any("build" in c for c in p3.conversions)


def test_hub_frontier_pulls():
    A = _chain(2000)
    hub = gb.Vector.from_coo([0], [True], size=2000)
    # vertex 0's out-edges are about half of all edges: pushing them costs more than pull
    p = gb.explain(gb.vxm, hub, A, "any_pair")
    assert p.direction == "pull", p


def test_config_pins_direction_and_result_is_the_same():
    A = _chain(300)
    f = gb.Vector.from_coo([0, 7], [1.0, 2.0], size=300)
    res = {}
    for d in ("pull", "push"):
        with gb.config(direction=d):
            assert gb.explain(gb.vxm, f, A, "plus_times").direction == d
            res[d] = gb.vxm(f, A, "plus_times")
    assert res["pull"].isequal(res["push"])


def test_config_restores_and_validates():
    before = gb.config.current()
    with gb.config(direction="push"):
        assert gb.config.current().direction == "push"
    assert gb.config.current() == before
    with pytest.raises(InvalidValue, match="config: argument `direction`"):
        gb.config(direction="sideways")
    with pytest.raises(InvalidValue, match="format"):
        gb.config(format="nope")


def test_mxm_method_choice():
    A = _chain(400)
    M = gb.Matrix.from_coo([0], [2], shape=(400, 400))
    p = gb.explain(gb.mxm, A, A, "plus_times", mask=M.S)
    assert p.direction == "dot", p
    assert gb.explain(gb.mxm, A, A, "plus_times").direction == "saxpy"
    with gb.config(mxm_method="dot"):
        with pytest.raises(NoKernel, match="non-complemented mask"):
            gb.explain(gb.mxm, A, A, "plus_times", mask=~M.S)


def test_explain_elementwise_and_reduce():
    u = gb.Vector.from_dense([1.0, 2.0])
    p = gb.explain(gb.ewise_add, u, u)
    assert p.op == "ewise_add" and p.device == "cpu"
    A = _chain(10)
    assert gb.explain(gb.reduce, A, "plus", axis="rows").op == "reduce"


def test_explain_rejects_non_operations():
    with pytest.raises(Exception, match="explain: argument `func`"):
        gb.explain(print, 1)


def test_format_cache_is_reused_and_counted():
    A = _chain(100)
    f = gb.Vector.from_coo([3], [1.0], size=100)
    with gb.config(direction="push"):
        gb.vxm(f, A)
        gb.vxm(f, A)
    assert A.has_format("csr", transposed=False)
    # vxm pushes over A^T^T = A: the canonical CSR, nothing built
    assert A.uses("csr") >= 2
    A.clear_cache()


def test_a_final_plan_is_kept_until_the_formats_change():
    A = _chain(300)
    x = gb.Vector.from_dense(np.arange(300.0))
    p0 = gb.explain(gb.mxv, A, x)
    assert "memoized" not in p0.details
    y0 = gb.mxv(A, x)
    p1 = gb.explain(gb.mxv, A, x)
    assert p1.details.get("memoized") is True and "uses" not in p1.details
    assert (p1.format, p1.kernel, p1.reason) == (p0.format, p0.kernel, p0.reason)
    assert gb.mxv(A, x).isequal(y0)
    # other settings, another semiring or dtype: planned on their own
    assert "memoized" not in gb.explain(gb.mxv, A, x, "min_plus").details
    with gb.config(direction="pull"):
        assert "memoized" not in gb.explain(gb.mxv, A, x).details
    xi = gb.Vector.from_dense(np.arange(300))
    assert "memoized" not in gb.explain(gb.mxv, A, xi).details
    # a format built by a pinned call changes the cached formats: planned afresh
    with gb.config(format="segmented"):
        gb.mxv(A, x)
    p2 = gb.explain(gb.mxv, A, x)
    assert "memoized" not in p2.details
    assert gb.explain(gb.mxv, A, x).details.get("memoized") is True
    A.clear_cache()
    assert "memoized" not in gb.explain(gb.mxv, A, x).details
    # masked products and a partial x are planned on every call
    m = gb.Vector.from_coo([1, 2], [True, True], size=300)
    xs = gb.Vector.from_coo([1], [1.0], size=300)
    for _ in range(2):
        gb.mxv(A, x, mask=m.S)
        gb.mxv(A, xs)
        assert "memoized" not in gb.explain(gb.mxv, A, x, mask=m.S).details
        assert "memoized" not in gb.explain(gb.mxv, A, xs).details


def test_memory_budget_zero_keeps_nothing():
    A = _chain(100)
    x = gb.Vector.from_dense(np.ones(100))
    with gb.config(memory_budget=0):
        y1 = gb.mxv(A.T, x)
        assert not A.has_format("csr", transposed=True)
    y2 = gb.mxv(A.T, x)
    assert A.has_format("csr", transposed=True)
    assert y1.isequal(y2)


def test_out_of_memory_while_building_a_format_is_a_clear_error(monkeypatch):
    from gblas.formats import get_format_class

    cls = get_format_class("segmented")

    def boom(*args, **kwargs):
        raise MemoryError("out of memory allocating 123 bytes")

    monkeypatch.setattr(cls, "from_csr", classmethod(boom))
    A = gb.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], shape=(2, 2))
    with pytest.raises(gb.OutOfMemory, match="building format 'segmented' of a 2x2 matrix"):
        A.get_format("segmented")
    assert not A.has_format("segmented")
    with gb.config(format="segmented"), pytest.raises(gb.OutOfMemory, match="format='csr'"):
        gb.mxv(A, gb.Vector.from_dense([1.0, 1.0]), "plus_times")


@pytest.mark.parametrize("dtype", [np.float64, np.int8, np.bool_])
@pytest.mark.parametrize("transposed", [False, True])
def test_plus_pair_over_a_full_x_counts_rows_from_the_row_pointers(dtype, transposed):
    A = _chain(300)
    B = A.T if transposed else A
    x = gb.Vector.from_dense(np.ones(300, dtype=dtype))
    p = gb.explain(gb.mxv, B, x, "plus_pair")
    assert p.kernel == "mxv/csr/cpu/rowcount" and "row pointers" in p.reason
    y = gb.mxv(B, x, "plus_pair")
    S = A.to_scipy()
    counts = np.diff((S.T.tocsr() if transposed else S).indptr)
    want = (counts > 0) if dtype == np.bool_ else counts.astype(dtype)  # int8 wraps
    assert y.dtype == np.dtype(dtype)
    assert np.array_equal(y.to_dense(fill=0), np.where(counts > 0, want, 0).astype(dtype))
    assert y.nvals == int(np.count_nonzero(counts))  # empty rows have no entry


def test_plus_pair_with_a_mask_or_a_partial_x_is_a_real_product():
    A = _chain(300)
    x = gb.Vector.from_dense(np.ones(300))
    m = gb.Vector.from_coo([0, 1], [True, True], size=300)
    assert gb.explain(gb.mxv, A, x, "plus_pair", mask=m.S).kernel == "mxv/csr/cpu/pull"
    xs = gb.Vector.from_coo([0, 1, 2], [1.0, 1.0, 1.0], size=300)
    assert "rowcount" not in gb.explain(gb.mxv, A, xs, "plus_pair").kernel
    # row 0 reaches x[1], x[2]; row 1 reaches x[2]; row 2 only x[3], which is absent
    assert gb.mxv(A, xs, "plus_pair").to_dense().tolist()[:3] == [2.0, 1.0, 0.0]


def test_a_pending_plan_is_kept_until_its_build_pays(monkeypatch):
    from gblas.planner import choose

    calls = []

    def pending(A, transposed, *args, **kwargs):
        uses = choose.total_uses(A, transposed)
        calls.append(uses)
        details = {"uses": uses}
        if uses + 1 < 5:
            details.update(pending="segmented", pays_after=5)
        return "csr", f"csr ({uses} so far)", details, None

    monkeypatch.setattr(choose, "choose_pull_format", pending)
    A = _chain(300)
    x = gb.Vector.from_dense(np.arange(300.0))
    memoized = []
    for _ in range(8):
        plan, run = gb.core.operations.prepare_mxv(A, x)
        memoized.append(plan.details.get("memoized", False))
        run()
    # planned at 0 uses (pending until the 5th call), memoized for uses 1..3, planned
    # again at use 4 (the build would pay: a final plan), memoized after
    assert calls == [0, 4]
    assert memoized == [False, True, True, True, False, True, True, True]


@given(n=st.integers(2, 10**7), deg=st.floats(0.01, 50), sources=st.integers(1, 300),
       threads=st.integers(1, 64), depth=st.integers(0, 5000), frac=st.floats(0, 1))
@settings(max_examples=300, deadline=None)
def test_heap_bound_means_the_probe_would_choose_the_heap(n, deg, sources, threads, depth,
                                                          frac):
    """Where the bound skips the probe, any probe result gives the heap."""
    from gblas.planner import heap_bound_holds, plan_shortest_paths

    nnz = int(n * deg)
    if not heap_bound_holds(n, nnz, sources, threads):
        return
    reached = max(1, int(frac * n))
    plan = plan_shortest_paths(n, nnz, sources, depth=depth, reached=reached,
                               negative=False, device="cpu", threads=threads, batch=64)
    assert plan.direction == "heap", plan.reason
    unprobed = plan_shortest_paths(n, nnz, sources, depth=None, reached=None,
                                   negative=False, device="cpu", threads=threads, batch=64)
    assert unprobed.direction == "heap" and "no probe" in unprobed.reason


def test_gpu_pull_rule_measures_no_statistics_when_no_format_can_pay(monkeypatch):
    """The GPU pull rule (run here on a host matrix, with the device's facts stubbed)
    skips the hot-share and panel-run statistics while no format could pay for its build
    even at its best, names the use count where one could, and measures them once the
    calls expected make a build worth weighing."""
    import scipy.sparse as sp

    from gblas import hardware
    from gblas.formats import FORMATS
    from gblas.planner import choose, cost

    monkeypatch.setattr(hardware, "gpu_l2_bytes", lambda: 50 << 20)
    monkeypatch.setattr(hardware, "gpu_free_bytes", lambda: 1 << 40)
    S = sp.random(2000, 2000, density=0.003, format="csr", random_state=1)

    def fresh():
        A = gb.Matrix.from_scipy(S)
        return A, A.get_format("csr")

    A, csr = fresh()
    fmt, why, details, _ = choose.choose_gpu_pull_format(A, csr, False, 8, 9,
                                                         expected_uses=100)
    assert fmt == "csr" and "no other format can be faster" in why, why
    assert "hot_share" not in details and "pending" not in details
    assert details["any_uses"]  # the verdict holds whatever the calls expected
    assert not {"gpu_hot_share", "gpu_panel_runs"} & set(cost.summary(csr))

    # a slow CSR call: the other formats would save time, but not their build's in one use
    # (gpu_relabelled's build, a millisecond here, made dearer for that)
    monkeypatch.setattr(FORMATS["csr"], "gpu_fixed_s", 1e-3)
    monkeypatch.setattr(FORMATS["gpu_relabelled"], "build_overhead_s", 0.01)
    A, csr = fresh()
    fmt, why, details, _ = choose.choose_gpu_pull_format(A, csr, False, 8, 9)
    assert fmt == "csr" and "no other format pays its build" in why, why
    assert details["pays_after"] >= 2 and details["pending"] in FORMATS
    assert "any_uses" not in details
    assert not {"gpu_hot_share", "gpu_panel_runs"} & set(cost.summary(csr))
    # told of 1000 calls, the rule measures the statistics and weighs the builds
    fmt, why, details, _ = choose.choose_gpu_pull_format(A, csr, False, 8, 9,
                                                         expected_uses=1000)
    assert "hot_share" in details and "panel_runs" in details, why
    assert {"gpu_hot_share", "gpu_panel_runs"} <= set(cost.summary(csr))


def test_plan_memo_keeps_a_plan_for_any_uses_across_the_expected_uses(monkeypatch):
    """A memoized plan whose verdict holds at any use count (``details["any_uses"]``) is
    reused when the caller then tells the calls it expects; any other plan is made
    again under the new settings."""
    import dataclasses

    from gblas.config import config
    from gblas.planner import choose
    from gblas.semirings import builtin

    made = []
    real = choose._plan_mxv

    def counted(*args, any_uses):
        made.append(args[5].expected_uses)  # (A, transposed, x, mask, semiring, settings, op)
        plan = real(*args)
        extra = {"any_uses": True} if any_uses else {}
        return dataclasses.replace(plan, details={**plan.details, **extra})

    sr = builtin.SEMIRINGS["plus_times"]
    for any_uses in (True, False):
        made.clear()
        monkeypatch.setattr(choose, "_plan_mxv",
                            lambda *a, _k=any_uses: counted(*a, any_uses=_k))
        A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], shape=(3, 3))
        x = gb.Vector.full(3, 1.0)
        first = choose.plan_mxv(A, False, x, None, sr, config.current())
        with config(expected_uses=500):
            hinted = choose.plan_mxv(A, False, x, None, sr, config.current())
            again = choose.plan_mxv(A, False, x, None, sr, config.current())
        assert first.format == hinted.format == again.format
        assert made == ([None] if any_uses else [None, 500]), made
        assert again.details["memoized"]


def test_gpu_pull_rule_builds_the_cheapest_over_the_calls_weighed(monkeypatch):
    """Of the GPU formats faster than the calls' current one, the rule builds the one
    cheapest over the calls weighed (their time and its build): gpu_relabelled's cheap
    build for a few hundred calls, and once it is built, a dearer build that saves more
    when many more calls are expected (host times stubbed to 1 us, a 16 KB "L2")."""
    import scipy.sparse as sp

    from gblas import hardware
    from gblas.formats import FORMATS
    from gblas.planner import choose

    monkeypatch.setattr(hardware, "gpu_l2_bytes", lambda: 16 << 10)
    monkeypatch.setattr(hardware, "gpu_free_bytes", lambda: 1 << 40)
    for cls in FORMATS.values():
        if hasattr(cls, "gpu_fixed_s"):
            monkeypatch.setattr(cls, "gpu_fixed_s", 1e-6)
    # the light panels' build at 5 ms fixed (the scenario's cost model, whatever the
    # constants measured on a card)
    monkeypatch.setattr(FORMATS["gpu_heavy_light"], "build_overhead_s", 0.005)
    rng = np.random.default_rng(0)
    n, e = 20000, 400000
    # 60% of the entries in the busiest 1% of the columns
    cols = np.where(rng.random(e) < 0.6, rng.integers(0, n // 100, e), rng.integers(0, n, e))
    S = sp.csr_matrix((np.ones(e), (rng.integers(0, n, e), cols)), shape=(n, n))
    A = gb.Matrix.from_scipy(S)
    csr = A.get_format("csr")
    fmt, why, details, _ = choose.choose_gpu_pull_format(A, csr, False, 8, 9,
                                                         expected_uses=300)
    est, build = details["estimates_ms"], details["build_s"]
    assert fmt == "gpu_relabelled", why
    # the light panels cannot pay within 300 calls even at their best: not measured
    assert details["panel_runs"] is None and "gpu_heavy_light" not in est
    assert details["hub_share"] > 0.5
    # it is not the fastest per call, but the cheapest over 300 calls
    assert min(est, key=est.get) != "gpu_relabelled"
    total = {f: 300 * est[f] / 1e3 + build.get(f, 0.0) for f in est}
    assert min(total, key=total.get) == "gpu_relabelled"
    A.get_format("gpu_relabelled")
    fmt, why, details, _ = choose.choose_gpu_pull_format(A, csr, False, 8, 9,
                                                         expected_uses=300)
    assert fmt == "gpu_relabelled" and why.startswith("gpu_relabelled for now"), why
    assert details["pending"] != "gpu_relabelled" and details["pays_after"] > 300
    # the light panels' runs are still not measured: the plan names the use count from
    # which they could pay at their best, and at that count the rule measures them
    due = details["measure_at"]
    assert details["panel_runs"] is None and due > 300
    fmt, why, details, _ = choose.choose_gpu_pull_format(A, csr, False, 8, 9,
                                                         expected_uses=due)
    assert details["panel_runs"] is not None and "measure_at" not in details, why
    fmt, why, details, _ = choose.choose_gpu_pull_format(A, csr, False, 8, 9,
                                                         expected_uses=100000)
    assert fmt not in ("csr", "gpu_relabelled"), why
    est = details["estimates_ms"]
    assert est[fmt] < est["gpu_relabelled"]
