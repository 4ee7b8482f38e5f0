"""Suite-wide pytest configuration: a replayable random seed, hypothesis profiles, devices.

Seed
    Every run derives one seed (printed in the header).  Replay a run with
    ``GBLAS_TEST_SEED=<seed> make test``.  It seeds the ``rng`` fixture (per test, mixed
    with the test's id) and every hypothesis test (unless ``--hypothesis-seed`` is given).

Hypothesis profiles
    ``ci`` (default): few examples, no deadline (Numba compiles on first calls);
    ``dev``: more examples; ``thorough``: many.  Pick one with
    ``GBLAS_HYPOTHESIS_PROFILE=dev`` or ``--hypothesis-profile=dev``.

Devices
    The ``device`` fixture runs a test on "cpu" and "gpu"; gpu cases carry the ``gpu``
    marker and are skipped, with the reason, where no GPU is found.
"""

from __future__ import annotations

import os
import secrets
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, is_hypothesis_test, settings
from hypothesis import seed as hypothesis_seed

_ENV_SEED = "GBLAS_TEST_SEED"
_ENV_PROFILE = "GBLAS_HYPOTHESIS_PROFILE"


def _session_seed() -> int:
    raw = os.environ.get(_ENV_SEED, "").strip()
    if raw:
        return int(raw, 0)
    return secrets.randbits(32)


SEED = _session_seed()

_relaxed = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
            HealthCheck.function_scoped_fixture]
settings.register_profile("ci", max_examples=8, deadline=None, print_blob=True,
                          suppress_health_check=_relaxed)
settings.register_profile("dev", max_examples=40, deadline=None, print_blob=True,
                          suppress_health_check=_relaxed)
settings.register_profile("thorough", max_examples=400, deadline=None, print_blob=True,
                          suppress_health_check=_relaxed)
settings.load_profile(os.environ.get(_ENV_PROFILE, "ci"))


def _gpu_available() -> bool:
    from gblas._device import gpu_available

    return gpu_available()


def pytest_report_header(config):
    return [
        f"gblas test seed: {SEED} (replay with {_ENV_SEED}={SEED})",
        f"hypothesis profile: {settings.get_current_profile_name()!r} "
        f"(max_examples={settings.default.max_examples})",
    ]


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    # the header is hidden by -q (as in `make test`): repeat the seed at the end
    terminalreporter.write_line(f"gblas test seed: {SEED} (replay with {_ENV_SEED}={SEED})")


def pytest_collection_modifyitems(config, items):
    forced = config.getoption("hypothesis_seed", default=None) is not None
    gpu_ok = None
    for item in items:
        fn = getattr(item, "obj", None)
        if not forced and fn is not None and is_hypothesis_test(fn):
            hypothesis_seed(SEED)(fn)
        if item.get_closest_marker("gpu") is not None:
            if gpu_ok is None:
                gpu_ok = _gpu_available()
            if not gpu_ok:
                item.add_marker(pytest.mark.skip(
                    reason="no GPU: CuPy with a CUDA device was not found"))


@pytest.fixture
def rng(request) -> np.random.Generator:
    """A NumPy generator seeded from the session seed and the test's id (replayable)."""
    return np.random.default_rng([SEED, zlib.crc32(request.node.nodeid.encode())])


@pytest.fixture(params=["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def device(request) -> str:
    """The device a test runs on: "cpu", and "gpu" where one is found."""
    if request.param == "gpu" and not _gpu_available():
        pytest.skip("no GPU: CuPy with a CUDA device was not found")
    return request.param


@pytest.fixture(autouse=True)
def _no_recorded_host_time():
    """Every test starts with no GPU host time recorded, and none read from earlier
    processes or saved at exit: the planner's GPU estimates would otherwise depend on the
    tests, or processes, that ran before (:mod:`gblas.planner.hosttime`)."""
    from gblas.planner import devicetime, hosttime

    hosttime.persist(False)
    hosttime.clear()
    devicetime.clear()
    yield
