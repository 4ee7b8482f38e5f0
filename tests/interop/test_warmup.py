"""``gblas warmup`` and :mod:`gblas.warmup`: the steps per device, their errors, the CLI."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import gblas as gb
from gblas.cli import main
from gblas.warmup import DEVICES, _formats, gpu_cache_dir, gpu_cache_stats, warmup, warmup_tasks


def test_each_device_has_the_algorithms_and_the_semirings():
    for device in DEVICES:
        names = [t.name for t in warmup_tasks(device)]
        assert names[:3] == ["pagerank", "bfs", "sssp"]
        assert "pagerank on each format" in names and "mxv plus_times" in names
        assert len(names) == len(set(names))


def test_formats_per_device_are_the_planners_pull_formats():
    assert set(_formats("cpu")) == {"segmented", "shards", "heavy_light"}
    assert set(_formats("gpu")) == {"gpu_segmented", "gpu_heavy_light", "gpu_relabelled"}


def test_bad_device_and_unknown_step_are_named():
    with pytest.raises(gb.InvalidValue, match="argument 'device'.*'tpu'"):
        warmup_tasks("tpu")
    with pytest.raises(gb.InvalidValue, match=r"unknown step\(s\) \['nope'\]"):
        warmup(only=["nope"])


def test_gpu_cache_dir_follows_cupys_variable(monkeypatch, tmp_path):
    monkeypatch.setenv("CUPY_CACHE_DIR", str(tmp_path))
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "k.cubin").write_bytes(b"x" * 10)
    assert gpu_cache_dir() == str(tmp_path)
    assert gpu_cache_stats() == {"path": str(tmp_path), "files": 1, "bytes": 10}
    monkeypatch.delenv("CUPY_CACHE_DIR")
    assert gpu_cache_dir().endswith("kernel_cache")


def test_cli_runs_one_step_and_reports_the_cache(capsys):
    assert main(["warmup", "--only", "bfs", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("gblas warmup (cpu): ") and " files, " in out


def test_cli_gpu_without_a_gpu_says_what_is_missing(capsys):
    from gblas._device import gpu_available

    if gpu_available():
        pytest.skip("this machine has a GPU")
    assert main(["warmup", "--device", "gpu", "--no-progress"]) == 1
    assert "needs CuPy and a CUDA device" in capsys.readouterr().err
    with pytest.raises(gb.NoGPU, match="warmup"):
        warmup(device="gpu", only=["bfs"])


@pytest.mark.gpu
def test_gpu_steps_fill_cupys_cache(tmp_path):
    # a new process: this one's kernels are compiled already (in CuPy's memory too)
    env = dict(os.environ, CUPY_CACHE_DIR=str(tmp_path / "cupy"))
    code = ("from gblas.warmup import warmup; "
            "print(sorted(warmup(device='gpu', only=['bfs', 'pagerank'])))")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "['bfs', 'pagerank']"
    assert any(p.is_file() for p in (tmp_path / "cupy").rglob("*"))


def test_power_iterations_step_compiles_their_kernels():
    """The spectral centralities' step runs the algorithms and, on the CPU, compiles the
    fused step above the parallel threshold and the sparse BFS results' kernels."""
    from gblas.backends.cpu import reached, traversal_seq, vector_kernels

    (task,) = [t for t in warmup_tasks("cpu") if t.name == "hits, katz, eigenvector"]
    task.run()
    for fn in (vector_kernels._combine_parallel, vector_kernels._update_parallel,
               reached.sorted_ids, reached.gather_levels, traversal_seq.gather_packed):
        assert fn.signatures, fn


def test_cli_counts_and_removes_stale_kernel_files(monkeypatch, tmp_path, capsys):
    """`gblas info` counts the cached files no current kernel can load; `gblas warmup`
    removes them (the warmup's own steps stubbed out: the pruning is what is tested)."""
    import gblas.warmup as warmup_module

    monkeypatch.setenv("GBLAS_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(warmup_module, "warmup", lambda **kw: None)
    tag = f".py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"
    moved = tmp_path / "numba" / f"module.kernel-deadbeef-7{tag}.1.nbc"
    moved.parent.mkdir(parents=True)
    moved.write_bytes(b"x" * 2048)
    assert main(["info"]) == 0
    assert "of which 1 file (0.0 MiB) stale: 'gblas warmup' removes them" in \
        capsys.readouterr().out
    assert main(["warmup", "--no-progress"]) == 0
    assert "; removed 1 file no kernel can load (0.0 MiB)" in capsys.readouterr().out
    assert not moved.exists()
    assert main(["info"]) == 0
    assert "stale" not in capsys.readouterr().out
