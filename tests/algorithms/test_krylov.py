"""The Lanczos cycles of :mod:`gblas.algorithms._krylov` against NumPy's eigensolver on
random symmetric positive semi-definite matrices."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gblas.algorithms._krylov import dominant_eigenvector


@settings(deadline=None, max_examples=40)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 60), gap=st.floats(1e-3, 0.5),
       steps=st.integers(2, 30))
def test_dominant_eigenvector_matches_eigh(seed, n, gap, steps):
    rng = np.random.default_rng(seed)
    # M = Q diag(lam) Q' with lam_1 = 1 and lam_2 = 1 - gap
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    lam = np.sort(rng.uniform(0, 1 - gap, n))[::-1]
    lam[0] = 1.0
    M = (Q * lam) @ Q.T
    v0 = np.abs(rng.standard_normal(n)) + 0.1 * np.abs(Q[:, 0])
    x, used, err = dominant_eigenvector(lambda v: M @ v, v0, tol=1e-11, budget=2000,
                                        xp=np, steps=steps)
    assert err < 1e-11 and used <= 2000
    want = Q[:, 0] * np.sign(Q[:, 0].sum() or 1.0)
    got = x * np.sign(x @ want or 1.0)
    np.testing.assert_allclose(got, want, atol=1e-8)


def test_budget_stops_and_reports_the_change():
    M = np.diag(np.r_[1.0, 1.0 - 1e-9, np.linspace(0.5, 0.9, 48)])
    x, used, err = dominant_eigenvector(lambda v: M @ v, np.ones(50), tol=1e-15, budget=7,
                                        xp=np, steps=4)
    assert used == 7 and not err < 1e-15 and abs(np.linalg.norm(x) - 1) < 1e-12


def test_invariant_start_stops_at_once():
    M = np.diag([2.0, 1.0, 0.0])
    x, used, err = dominant_eigenvector(lambda v: M @ v, np.array([1.0, 0, 0]), tol=1e-12,
                                        budget=100, xp=np)
    assert err < 1e-12 and used == 2 and x.tolist() == [1.0, 0.0, 0.0]


def test_invariant_space_inside_a_cycle_counts_its_products_only():
    """A start in the span of two eigenvectors: the space is invariant after two products,
    the rest of the cycle runs on zeros (no warnings) and is not counted."""
    import warnings

    M = np.diag([3.0, 1.0, 0.5, 0.25, 0.125])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x, used, err = dominant_eigenvector(lambda v: M @ v, np.array([1.0, 1.0, 0, 0, 0]),
                                            tol=1e-12, budget=100, xp=np, steps=4)
    assert err < 1e-12 and used == 3  # two products in the cycle, one for the check
    np.testing.assert_allclose(x, [1.0, 0, 0, 0, 0], atol=1e-15)
