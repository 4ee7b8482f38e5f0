"""Callbacks and checkpoints of the iterative algorithms: a run stopped by its callback
and resumed from the checkpoint gives the uninterrupted run's result, bitwise on the CPU
(also through a ``.npz`` file); a stopped run returns its current iterate; checkpoints
of another algorithm or other arguments are refused."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas.algorithms.checkpoint import Checkpoint, IterationState
from gblas.algorithms.pagerank import PowerIterationFailedConvergence


@st.composite
def graphs(draw, symmetric: bool = False):
    n = draw(st.integers(2, 40))
    m = draw(st.integers(1, 4 * n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    if symmetric:
        r, c = np.concatenate([r, c]), np.concatenate([c, r])
    w = rng.random(r.size) + 0.1
    return gb.Matrix.from_coo(r, c, w, shape=(n, n), dup_op="max")


class Stopper:
    """A callback that keeps every state's checkpoint and stops after ``at``."""

    def __init__(self, at: int) -> None:
        self.at = at
        self.states: list[IterationState] = []
        self.saved: list[Checkpoint] = []

    def __call__(self, state: IterationState):
        self.states.append(state)
        self.saved.append(state.checkpoint())
        if state.iteration >= self.at:
            return False
        return None  # anything but False goes on


def _through_file(cp: Checkpoint, tmp_path) -> Checkpoint:
    path = tmp_path / "cp.npz"
    cp.save(path)
    return Checkpoint.load(path)


def _same(a: gb.Vector, b: gb.Vector) -> bool:
    return a.isequal(b, check_dtype=True)


# ------------------------------------------------------------------ pagerank
@settings(max_examples=25, deadline=None)
@given(A=graphs(), at=st.integers(1, 30), via_file=st.booleans())
def test_pagerank_stopped_and_resumed_is_bitwise_the_uninterrupted_run(A, at, via_file,
                                                                      tmp_path_factory):
    want = gb.algorithms.pagerank(A.dup(), tol=1e-10, max_iter=200)
    stop = Stopper(at)
    part = gb.algorithms.pagerank(A.dup(), tol=1e-10, max_iter=200, callback=stop)
    last = stop.states[-1]
    assert [s.iteration for s in stop.states] == list(range(1, last.iteration + 1))
    assert last.iteration == at or last.converged
    # the stopped run returns its iterate: the ranks of that iteration
    assert np.array_equal(part.to_dense(), stop.saved[-1].arrays["r"])
    cp = stop.saved[-1]
    if via_file:
        cp = _through_file(cp, tmp_path_factory.mktemp("pr"))
    got = gb.algorithms.pagerank(A.dup(), tol=1e-10, max_iter=200, resume=cp)
    assert _same(got, want)
    # and from an earlier checkpoint of the same run
    got = gb.algorithms.pagerank(A.dup(), tol=1e-10, max_iter=200, resume=stop.saved[0])
    assert _same(got, want)


def test_pagerank_stopped_returns_the_iterate_max_iter_would():
    A = gb.io.kronecker(7, 8, seed=2, dtype="float64")
    with pytest.raises(PowerIterationFailedConvergence) as e:
        gb.algorithms.pagerank(A, tol=1e-14, max_iter=6)
    r = gb.algorithms.pagerank(A, tol=1e-14, max_iter=100, callback=Stopper(6))
    assert np.array_equal(r.to_dense(), e.value.ranks.to_dense())
    assert r.to_dense().sum() == pytest.approx(1.0)


def test_pagerank_resumes_with_personalization_and_networkx_rule():
    A = gb.io.kronecker(8, 8, seed=5, dtype="float64")
    p = np.linspace(1.0, 2.0, A.shape[0])
    kw = dict(personalization=p, criterion="networkx", tol=1e-9)
    want = gb.algorithms.pagerank(A, **kw)
    stop = Stopper(4)
    gb.algorithms.pagerank(A, callback=stop, **kw)
    assert _same(gb.algorithms.pagerank(A, resume=stop.saved[-1], **kw), want)
    # a checkpoint made with another personalization is refused
    with pytest.raises(gb.InvalidValue, match="personalization"):
        gb.algorithms.pagerank(A, resume=stop.saved[-1], **{**kw, "personalization": None})


@pytest.mark.gpu
def test_gpu_pagerank_resumes_with_personalization_from_a_cpu_checkpoint():
    """The personalization's fingerprint is the same on both devices: a CPU run's
    checkpoint resumes on the GPU, to the CPU run's ranks up to the sums' order."""
    from gblas._device import gpu_available

    if not gpu_available():
        pytest.skip("no GPU")
    A = gb.io.kronecker(8, 8, seed=5, dtype="float64")
    p = np.linspace(1.0, 2.0, A.shape[0])
    kw = dict(personalization=p, tol=1e-12)
    want = gb.algorithms.pagerank(A, **kw).to_dense()
    stop = Stopper(4)
    gb.algorithms.pagerank(A, callback=stop, **kw)
    got = gb.algorithms.pagerank(A.to("gpu"), resume=stop.saved[-1], **kw)
    assert got.device == "gpu"
    np.testing.assert_allclose(got.to("cpu").to_dense(), want, rtol=0, atol=1e-12)


def test_pagerank_resumed_from_its_converged_checkpoint_returns_it():
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], shape=(3, 3))
    stop = Stopper(1000)
    want = gb.algorithms.pagerank(A, callback=stop)
    assert stop.states[-1].converged and stop.states[-1].delta < 1e-6
    assert _same(gb.algorithms.pagerank(A, resume=stop.saved[-1]), want)


# ------------------------------------------------------------------ label propagation
@settings(max_examples=25, deadline=None)
@given(graphs(symmetric=True), st.integers(1, 4),
       st.sampled_from(["semi-synchronous", "synchronous"]), st.booleans())
def test_label_propagation_stopped_and_resumed(A, at, method, loop):
    def run(**kw):
        if loop:  # a pinned format runs the loop of products instead of the kernel
            with gb.config(format="csr"):
                return gb.algorithms.label_propagation(A, 20, method=method, seed=3, **kw)
        return gb.algorithms.label_propagation(A, 20, method=method, seed=3, **kw)

    want = run()
    stop = Stopper(at)
    part = run(callback=stop)
    assert np.array_equal(part.to_dense(), stop.saved[-1].arrays["labels"])
    assert all(isinstance(s.delta, int) and s.delta >= 0 for s in stop.states)
    assert stop.states[-1].converged == (stop.states[-1].delta == 0)
    assert _same(run(resume=stop.saved[-1]), want)
    assert _same(run(resume=stop.saved[0]), want)


def test_label_propagation_checkpoints_of_the_kernel_and_the_loop_agree():
    A = gb.io.kronecker(7, 4, seed=1, dtype=None, symmetric=True)
    k, s = Stopper(1), Stopper(1)
    gb.algorithms.label_propagation(A, method="synchronous", callback=k)
    with gb.config(format="csr"):
        gb.algorithms.label_propagation(A, method="synchronous", callback=s)
        resumed = gb.algorithms.label_propagation(A, method="synchronous",
                                                  resume=k.saved[-1])
    assert np.array_equal(k.saved[-1].arrays["labels"], s.saved[-1].arrays["labels"])
    assert k.states[-1].delta == s.states[-1].delta
    assert _same(resumed, gb.algorithms.label_propagation(A, method="synchronous"))


# ------------------------------------------------------------------ collaborative filtering
def _ratings(seed: int, m: int = 30, n: int = 20):
    rng = np.random.default_rng(seed)
    truth = rng.random((m, 3)) @ rng.random((3, n))
    r, c = np.nonzero(rng.random(truth.shape) < 0.4)
    return gb.Matrix.from_coo(r, c, truth[r, c], shape=truth.shape)


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 100), st.integers(1, 11), st.sampled_from([0.0, 0.2]),
       st.sampled_from([0.0, 1e-3]))
def test_collaborative_filtering_stopped_and_resumed(seed, at, holdout, tol):
    R = _ratings(seed)
    kw = dict(rank=3, max_iter=12, seed=seed, holdout=holdout, tol=tol)
    want = gb.algorithms.collaborative_filtering(R, **kw)
    stop = Stopper(at)
    part = gb.algorithms.collaborative_filtering(R, callback=stop, **kw)
    assert part.iterations == stop.states[-1].iteration
    assert stop.states[-1].delta == part.train_rmse[-1]
    got = gb.algorithms.collaborative_filtering(R, resume=stop.saved[-1], **kw)
    for a, b in zip(got, want):
        assert np.array_equal(a, b)
    assert np.array_equal(got.rmse, want.rmse)
    assert np.array_equal(got.train_rmse, want.train_rmse)
    assert got.iterations == want.iterations


def test_collaborative_filtering_of_an_empty_matrix_is_a_clear_error():
    R = gb.Matrix.from_coo([], [], [], shape=(3, 3), dtype=float)
    with pytest.raises(gb.InvalidValue, match="at least one rating"):
        gb.algorithms.collaborative_filtering(R)


# ------------------------------------------------------------------ bad input
def test_bad_callbacks_and_checkpoints_are_refused():
    A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], shape=(3, 3))
    with pytest.raises(gb.InvalidObject, match="callback"):
        gb.algorithms.pagerank(A, callback=5)
    with pytest.raises(gb.InvalidObject, match="resume"):
        gb.algorithms.pagerank(A, resume={"r": 1})
    stop = Stopper(2)
    gb.algorithms.pagerank(A, callback=stop)
    with pytest.raises(gb.InvalidValue, match="a checkpoint of label_propagation"):
        gb.algorithms.label_propagation(A, resume=stop.saved[-1])
    with pytest.raises(gb.InvalidValue, match=r"damping=0\.85 \(now 0\.5\)"):
        gb.algorithms.pagerank(A, damping=0.5, resume=stop.saved[-1])
    B = gb.Matrix.from_coo([0, 1, 2, 3], [1, 2, 3, 0], shape=(4, 4))
    with pytest.raises(gb.InvalidValue, match=r"n=3 \(now 4\)"):
        gb.algorithms.pagerank(B, resume=stop.saved[-1])
