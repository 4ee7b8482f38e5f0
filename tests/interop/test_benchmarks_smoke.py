"""Smoke test of the end-to-end benchmark script: it runs and writes its table.

One tiny generated graph (Kronecker scale 6), one algorithm, ``--quick`` (one timed call,
no first-ever table), and one call in a new process (the "cold" column): seconds in all.
No timing is asserted.
"""

from __future__ import annotations

import sys

import pytest
from locations import REPO  # noqa: E402


@pytest.fixture
def end_to_end():
    pytest.importorskip("networkx")
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from benchmarks import run_end_to_end

    return run_end_to_end


def test_end_to_end_quick_runs(end_to_end, tmp_path):
    code = end_to_end.main(["--quick", "--graphs", "kronecker-6", "--algorithms", "bfs",
                            "--out", str(tmp_path), "--name", "smoke", "--no-cold"])
    assert code == 0
    text = (tmp_path / "smoke.md").read_text()
    assert "## bfs" in text
    rows = [ln for ln in text.splitlines() if ln.startswith("| kronecker-6 |")]
    assert rows, text
    assert not any("FAILED" in r or "WRONG" in r for r in rows), rows
    assert "## Machine" in text


def test_end_to_end_imports_without_gpu(end_to_end):
    # the --gpu mode imports CuPy only when it runs
    assert "cupy" not in end_to_end.__dict__
    args = end_to_end.parser().parse_args(["--gpu", "--quick"])
    assert args.gpu and args.quick


def test_end_to_end_cold_call(end_to_end, tmp_path):
    import numpy as np
    import scipy.sparse as sp

    S = sp.csr_array(sp.random_array((64, 64), density=0.1, random_state=1) != 0,
                     dtype=np.float64)
    seconds, import_s, error = end_to_end.cold_call("bfs", S, {"source": 0}, tmp_path)
    assert error is None
    assert seconds > 0 and import_s > 0
