"""The ``gblas`` command line."""

from __future__ import annotations

from gblas.cli import cpu_description, main


def test_info(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "threads (numba)" in out and "numpy" in out and "gpu" in out


def test_info_shows_the_saved_gpu_host_times(capsys, tmp_path, monkeypatch):
    from gblas.planner import devicetime, hosttime

    monkeypatch.setenv("GBLAS_CACHE_DIR", str(tmp_path))
    assert main(["info"]) == 0
    assert "none saved yet" in capsys.readouterr().out
    hosttime.persist(True)
    try:
        for _ in range(3):
            hosttime.record("csr", "plus_times", 1e-4)
            devicetime.record("csr", "plus_times", 2e-3, 1e-3)
            devicetime.record("gpu_heavy_light", "plus_times", 2e-3, 1e-3)
        assert hosttime.save() is not None
    finally:
        hosttime.persist(False)
    assert main(["info"]) == 0
    assert ("1 format-semiring records of host time and 2 of device time over 1 machine(s)"
            in capsys.readouterr().out)


def test_cpu_description():
    d = cpu_description()
    assert d["cpu"] and d["cores"]


def test_demo_small(capsys):
    assert main(["demo", "--scale", "10", "--edge-factor", "8"]) == 0
    out = capsys.readouterr().out
    assert "levels equal SciPy's: True" in out
    assert "parent tree valid: True" in out
    assert "OK" in out
    assert "->" in out  # the plans
