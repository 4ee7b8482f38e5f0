"""gb.io.save / load: a Matrix and its built formats round-trip exactly; bad files give
clear errors and never run code; Matrix.prepare builds what the planner picks."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp

import gblas as gb
from gblas.exceptions import InvalidObject, InvalidValue
from gblas.io import generators, load, save

CPU_FORMATS = ("csr", "segmented", "shards", "heavy_light")


def _matrix(dtype="float64"):
    S = generators.kronecker(9, 8, seed=2).to_scipy().astype(dtype)
    return gb.Matrix.from_scipy(sp.csr_array(S))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "bool"])
def test_round_trip_with_every_cpu_format(tmp_path, dtype):
    A = _matrix(dtype)
    x = gb.Vector.from_dense((np.arange(A.shape[1]) % 3).astype(dtype))
    want = {}
    for fmt in CPU_FORMATS:
        with gb.config(format=fmt):
            want[fmt] = gb.mxv(A, x, "plus_times").to_dense()
            gb.mxv(A.T, x, "plus_times")
    keys = set(A._cache)
    assert any(k[0] == "segmented" for k in keys)
    path = tmp_path / "g.npz"
    save(path, A)
    B = load(path)
    assert B.isequal(A, check_dtype=True)
    assert {k for k in B._cache if k[0] != "stats"} <= keys
    for fmt in B._cache.values():
        if hasattr(fmt, "check_invariants"):
            fmt.check_invariants()
    for fmt in CPU_FORMATS:
        if fmt != "csr":
            assert B.has_format(fmt) or any(k[0] == fmt for k in B._cache)
        with gb.config(format=fmt):
            np.testing.assert_array_equal(gb.mxv(B, x, "plus_times").to_dense(), want[fmt])


def test_iso_empty_and_without_formats(tmp_path):
    A = gb.Matrix.from_coo([0, 2], [1, 0], shape=(3, 3))  # pattern (iso)
    E = gb.Matrix.from_coo([], [], [], shape=(4, 5))
    for M in (A, E):
        save(tmp_path / "m.npz", M, formats=False)
        B = load(tmp_path / "m.npz")
        assert B.isequal(M, check_dtype=True) and B.shape == M.shape
        assert not B._cache


def test_bad_inputs(tmp_path):
    A = _matrix()
    with pytest.raises(InvalidObject, match="io.save"):
        save(tmp_path / "x.npz", A.T)
    with pytest.raises(InvalidValue, match="io.load"):
        load(tmp_path / "missing.npz")
    np.savez(tmp_path / "plain.npz", a=np.arange(3))
    with pytest.raises(InvalidValue, match="without a __manifest__"):
        load(tmp_path / "plain.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip at all")
    with pytest.raises(InvalidValue):
        load(tmp_path / "junk.npz")


def _with_manifest(tmp_path, edit):
    A = _matrix()
    save(tmp_path / "ok.npz", A)
    with np.load(tmp_path / "ok.npz") as z:
        arrays = {k: z[k] for k in z.files}
    manifest = json.loads(bytes(arrays.pop("__manifest__")).decode())
    edit(manifest)
    blob = np.frombuffer(json.dumps(manifest).encode(), dtype=np.uint8)
    np.savez(tmp_path / "edited.npz", __manifest__=blob, **arrays)
    return tmp_path / "edited.npz"


def test_a_file_cannot_name_other_code(tmp_path):
    def evil(m):
        m["matrix"] = {"class": "os:system", "fields": {}}

    with pytest.raises(InvalidValue, match="damaged"):
        load(_with_manifest(tmp_path, evil))


def test_newer_version_is_refused(tmp_path):
    def newer(m):
        m["gblas_store"] = 99

    with pytest.raises(InvalidValue, match="version"):
        load(_with_manifest(tmp_path, newer))


def test_prepare_builds_ahead():
    A = _matrix()
    plans = A.prepare(1000)
    assert len(plans) == 2 and all(p.op == "mxv" for p in plans)
    assert A.has_format("csr", transposed=True)
    # prepared: the same product plans no build any more
    x = gb.Vector.from_dense(np.ones(A.shape[1]))
    with gb.config(expected_uses=1000):
        assert not gb.explain(gb.mxv, A.T, x, "plus_times").conversions
    with pytest.raises(InvalidValue, match="products"):
        A.prepare(0)
    with pytest.raises(InvalidValue, match="directions"):
        A.prepare(5, directions=("B",))


@pytest.mark.parametrize("pending, products", [(0, 1), (1, 2), (5, 3)])
def test_prepare_runs_the_product_again_while_a_build_is_planned(monkeypatch, pending,
                                                                 products):
    """A first product may only measure what the planner weighs (the GPU light panels'
    runs) and plan the build for the next call: prepare runs it again until the plan
    builds nothing, at most PREPARE_PRODUCTS times per orientation."""
    import dataclasses

    from gblas.core import methods

    A = _matrix()
    calls = {"mxv": 0, "explain": 0}
    real_mxv, real_explain = methods.mxv, methods.explain

    def mxv(*args, **kwargs):
        calls["mxv"] += 1
        return real_mxv(*args, **kwargs)

    def explain(func, *args, **kwargs):
        calls["explain"] += 1
        plan = real_explain(real_mxv, *args, **kwargs)
        if calls["explain"] <= pending:
            plan = dataclasses.replace(plan, conversions=("build gpu_heavy_light of A^T "
                                                          "(cached)",))
        return plan

    monkeypatch.setattr(methods, "mxv", mxv)
    monkeypatch.setattr(methods, "explain", explain)
    assert methods.PREPARE_PRODUCTS == 3
    A.prepare(100, directions=("A.T",))
    assert calls["mxv"] == products
