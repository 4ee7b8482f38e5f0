"""The ``gblas`` command line."""

from __future__ import annotations

from gblas.cli import cpu_description, main


def test_info(capsys):
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "threads (numba)" in out and "numpy" in out and "gpu" in out


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
