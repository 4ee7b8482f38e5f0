"""The on-disk kernel cache: a new process loads what an earlier one compiled, keys tell
definitions apart, and a corrupt or stale entry is rebuilt, never trusted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from gblas.backends.cpu import jitcache
from gblas.backends.cpu.jitcache import Unkeyable, definition_key

# one pull and one push over a user semiring (its key comes from its source) and a built-in
_SCRIPT = textwrap.dedent("""
    import json
    import numpy as np
    import gblas as gb
    from gblas.backends.cpu import jitcache

    A = gb.Matrix.from_coo([0, 0, 1, 2, 3], [1, 2, 2, 3, 0], [1.0, 2.0, 3.0, 4.0, 5.0],
                           shape=(4, 4))
    x = gb.Vector.from_dense(np.array([1.0, 2.0, 3.0, 4.0]))
    clip = gb.BinaryOp("clip_times", lambda a, b: min(a * b, 7.0))
    sr = gb.Semiring("plus_clip", add=gb.monoids.plus, multiply=clip)
    y1 = gb.mxv(A, x, sr).to_dense().tolist()
    y2 = gb.mxv(A, x, "min_plus").to_dense().tolist()
    f = gb.Vector.from_coo([1], [2.0], 4)
    y3 = gb.vxm(f, A, "plus_times").to_dense().tolist()
    print(json.dumps({"y": [y1, y2, y3], **jitcache.compile_stats()}))
""")


def _run(cache: Path | str) -> dict:
    env = dict(os.environ, GBLAS_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True,
                         text=True, timeout=600, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


_EXPECTED = [[8.0, 7.0, 7.0, 5.0], [3.0, 6.0, 8.0, 6.0], [0.0, 0.0, 6.0, 0.0]]


def test_second_process_loads_every_kernel(tmp_path):
    first = _run(tmp_path)
    assert first["y"] == _EXPECTED
    assert first["misses"] > 0
    second = _run(tmp_path)
    assert second["y"] == _EXPECTED
    assert second["misses"] == 0, second
    assert second["hits"] == first["misses"] + first["hits"]


def test_corrupt_entries_are_rebuilt(tmp_path):
    first = _run(tmp_path)
    files = sorted((tmp_path / "numba").iterdir())
    assert files
    for i, f in enumerate(files):  # flip bytes, truncate, or fill with garbage
        data = f.read_bytes()
        if i % 3 == 0:
            f.write_bytes(data[: len(data) // 2])
        elif i % 3 == 1:
            f.write_bytes(b"\x80\x04garbage" * 10)
        else:
            b = bytearray(data)
            b[len(b) // 2] ^= 0xFF
            f.write_bytes(bytes(b))
    again = _run(tmp_path)
    assert again["y"] == _EXPECTED
    assert again["misses"] == first["misses"] + first["hits"]  # nothing trusted
    healed = _run(tmp_path)
    assert healed["y"] == _EXPECTED
    assert healed["misses"] == 0  # and every entry was rewritten


def test_cache_off_compiles_in_memory(tmp_path):
    res = _run("off")
    assert res["y"] == _EXPECTED
    assert res["hits"] == 0


def test_keys_tell_definitions_apart():
    k_add = definition_key(lambda a, b: a + b)
    k_mul = definition_key(lambda a, b: a * b)
    assert k_add != k_mul
    assert definition_key(lambda a, b: a + b) == k_add  # the same definition, the same key

    def closing(c):
        return lambda a: a * c

    assert definition_key(closing(2.0)) != definition_key(closing(3.0))
    assert definition_key(closing(2.0)) == definition_key(closing(2.0))
    # np.sqrt and np.exp differ only in the name they read
    assert definition_key(lambda x: np.sqrt(x)) != definition_key(lambda x: np.exp(x))
    assert definition_key(np.float32(1)) != definition_key(np.float64(1))


_SCALE = 2.0


def test_user_function_globals_are_in_its_key():
    global _SCALE
    f = eval("lambda a: a * _SCALE", {"_SCALE": 2.0})
    g = eval("lambda a: a * _SCALE", {"_SCALE": 3.0})
    assert definition_key(f) != definition_key(g)


def test_unkeyable_closure_is_not_cached():
    class Opaque:
        pass

    o = Opaque()
    with pytest.raises(Unkeyable):
        definition_key(lambda a: (a, o))


def test_cache_stats_and_root(monkeypatch, tmp_path):
    monkeypatch.setenv("GBLAS_CACHE_DIR", str(tmp_path / "c"))
    assert jitcache.cache_root() == tmp_path / "c"
    st = jitcache.cache_stats()
    assert st["path"] == str(tmp_path / "c" / "numba")
    monkeypatch.setenv("GBLAS_CACHE_DIR", "off")
    assert jitcache.cache_root() is None
    assert jitcache.cache_dir() is None


def test_prefetch_verdict_is_kept_and_a_bad_one_probed_again(tmp_path):
    _run(tmp_path)
    kept = sorted((tmp_path / "numba").glob("prefetch-*.txt"))
    assert len(kept) == 1 and kept[0].read_bytes() in (b"0", b"1")
    verdict = kept[0].read_bytes()
    kept[0].write_bytes(b"\x80garbage")
    assert _run(tmp_path)["y"] == _EXPECTED
    assert kept[0].read_bytes() == verdict



def _rewrite_stamp(index: Path, stamp: str) -> int:
    """Give the index file another source stamp (as an earlier gblas wrote it); returns
    the number of kernels it names."""
    import pickle

    with open(index, "rb") as f:
        version = pickle.load(f)
        _, overloads = pickle.loads(f.read())
    with open(index, "wb") as f:
        pickle.dump(version, f, protocol=-1)
        f.write(pickle.dumps((stamp, overloads)))
    return len(overloads)


def test_stale_files_are_pruned_and_current_ones_kept(monkeypatch, tmp_path):
    """The files no current kernel can load (an index of other sources with its data, data
    no index names, a write left unfinished) are removed; the current kernels and other
    Python versions' files stay, and a new process loads everything it still can."""
    first = _run(tmp_path)
    monkeypatch.setenv("GBLAS_CACHE_DIR", str(tmp_path))
    d = tmp_path / "numba"
    assert jitcache.stale_files() == []
    tag = f".py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"
    indexes = sorted(d.glob(f"*{tag}.nbi"))
    assert len(indexes) >= 2
    old = indexes[0]
    old_data = sorted(d.glob(old.name[: -len(".nbi")] + ".*.nbc"))
    assert old_data
    recompiled = _rewrite_stamp(old, "an earlier gblas")
    unnamed = d / (indexes[1].name[: -len(".nbi")] + ".99.nbc")  # no index names it
    moved = d / f"module.kernel-deadbeef-7{tag}.1.nbc"  # a kernel on another line now
    abandoned = d / f"module.kernel-deadbeef-7{tag}.nbi.tmp.0123"
    for p in (unnamed, moved, abandoned):
        p.write_bytes(b"x" * 10)
    hour_ago = os.stat(abandoned).st_mtime - 7200
    os.utime(abandoned, (hour_ago, hour_ago))
    kept = [d / "module.kernel-deadbeef-7.py27.nbi", d / "module.kernel-deadbeef-7.py27.1.nbc",
            d / f"module.kernel-deadbeef-8{tag}.nbi.tmp.4567"]  # another Python; a write
    for p in kept:
        p.write_bytes(b"x" * 10)
    stale = {old, *old_data, unnamed, moved, abandoned}
    assert set(jitcache.stale_files()) == stale
    before = {p for p in d.iterdir()}
    gone = jitcache.prune_cache()
    assert gone["files"] == len(stale)
    assert {p for p in d.iterdir()} == before - stale
    assert all(p.exists() for p in kept)
    again = _run(tmp_path)
    assert again["y"] == _EXPECTED
    assert again["misses"] == recompiled  # the rest loaded
    assert again["hits"] == first["misses"] + first["hits"] - recompiled
    assert jitcache.stale_files() == []


# a new process's first label propagation and core numbers, then a kernel compiled in
# the same process that allocates arrays (its Numba environments already rebuilt)
_LOADS = textwrap.dedent("""
    import json, sys
    import numpy as np
    import gblas as gb
    from gblas.backends.cpu import jitcache

    A = gb.io.kronecker(7, 8, seed=3, symmetric=True)
    lab = gb.algorithms.label_propagation(A).to_dense().tolist()
    core = gb.algorithms.core_number(A).to_dense().tolist()
    seen = "numba.np.arrayobj" in sys.modules
    STEP = int(sys.argv[1])  # read by ramp: a new definition (a compile) per value

    @jitcache.jit()
    def ramp(n):
        out = np.empty(n, np.int64)
        for i in range(n):
            out[i] = i * STEP
        return out

    ramp_ok = ramp(4).tolist() == [0, STEP, 2 * STEP, 3 * STEP]
    print(json.dumps({"labels": lab, "core": core, "arrayobj": seen, "ramp": ramp_ok,
                      **jitcache.compile_stats()}))
""")


def test_loaded_kernels_leave_numba_modules_unimported(tmp_path):
    """A kernel loaded from the cache gives the compiled kernel's answer without importing
    the Numba modules its environments name (``numba.np.arrayobj``), and a kernel compiled
    afterwards in that process still runs."""
    env = dict(os.environ, GBLAS_CACHE_DIR=str(tmp_path))

    def run(step: int) -> dict:
        out = subprocess.run([sys.executable, "-c", _LOADS, str(step)], env=env,
                             capture_output=True, text=True, timeout=600, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])

    first, second, third = run(1), run(2), run(2)
    assert second["labels"] == first["labels"] and second["core"] == first["core"]
    assert first["ramp"] and second["ramp"] and third["ramp"]
    assert second["misses"] == 1, second  # ramp compiled after the loads, then saved
    assert third["misses"] == 0, third
    assert not second["arrayobj"]


def test_numba_without_the_environment_names_unpickles_its_own_way(monkeypatch):
    """Where this Numba lacks what the environment stubs use, the cache's unpickler hands
    back Numba's own ``_rebuild_env`` (a load then imports the modules, as Numba does)."""
    import io

    from gblas.backends.cpu import jitcache

    unpickler = jitcache._Unpickler(io.BytesIO(b""))
    if jitcache._ENV_STUBS:  # (Numba 0.68 has them)
        assert unpickler.find_class("numba.core.environment", "_rebuild_env") is \
            jitcache._rebuild_env
    monkeypatch.setattr(jitcache, "_ENV_STUBS", False)
    assert unpickler.find_class("numba.core.environment", "_rebuild_env") is \
        jitcache.nbenv._rebuild_env
