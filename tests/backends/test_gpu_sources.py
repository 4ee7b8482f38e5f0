"""The CUDA kernel files of the GPU backend assemble into self-contained sources (no GPU
or CuPy needed): every ``#include`` resolves to a file shipped in ``gblas/backends/gpu/
cuda``, for every specialization ``benchmarks/check_cuda_sources.py`` enumerates.  That
script also compiles them with ``nvcc`` where one is installed (not run here: minutes)."""

from __future__ import annotations

import re
import subprocess
import sys

from locations import REPO

ROOT = REPO
CUDA = ROOT / "gblas" / "backends" / "gpu" / "cuda"


def test_every_specialization_assembles():
    run = subprocess.run([sys.executable, "benchmarks/check_cuda_sources.py", "--no-compile"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    m = re.search(r"(\d+) sources assembled", run.stdout)
    assert m and int(m.group(1)) > 100, run.stdout[-2000:]
    # every kernel file is used by some specialization
    used = set(re.findall(r"^(\w+)", run.stdout, re.M))
    assert {"mxv", "seg", "hl", "panels", "shards", "push", "mxm", "bfs", "pagerank",
            "reductions"} <= used


def test_headers_are_guarded_and_included():
    texts = {p.name: p.read_text() for p in CUDA.iterdir()}
    included = set()
    for text in texts.values():
        included.update(re.findall(r'^\s*#include\s+"([^"]+)"', text, re.M))
    assert included <= set(texts), included - set(texts)
    for py in CUDA.parent.glob("*.py"):  # headers the generated snippets include
        included.update(re.findall(r'#include "([\w.]+)"', py.read_text()))
    for name, text in texts.items():
        if name.endswith(".cuh") and name != "gb_preamble.cuh":
            guard = name.upper().replace(".", "_")
            assert f"#ifndef {guard}" in text, name
            assert name in included, f"{name} is included by no kernel file"
        # NVRTC has no host headers: only the package's own files are included
        assert "<" not in "".join(re.findall(r"#include\s+(\S)", text)), name
