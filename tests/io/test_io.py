"""Generators and Matrix Market I/O."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from locations import DATA  # noqa: E402

import gblas as gb
from gblas.io import (
    grid,
    grid_coo,
    kronecker,
    kronecker_coo,
    read_mm,
    read_mm_coo,
    uniform,
    uniform_coo,
    write_mm,
)

# ------------------------------------------------------------------------ generators


@pytest.mark.parametrize("scale,ef", [(0, 4), (5, 1), (10, 16), (12, 3)])
def test_kronecker_coo_sizes_and_range(scale, ef):
    rows, cols = kronecker_coo(scale, ef, seed=3)
    n = 1 << scale
    assert rows.dtype == np.int64 and cols.dtype == np.int64
    assert rows.shape == cols.shape == (ef * n,)
    assert rows.min() >= 0 and cols.min() >= 0
    assert rows.max() < n and cols.max() < n


def test_kronecker_coo_deterministic_by_seed():
    a = kronecker_coo(12, 8, seed=7)
    b = kronecker_coo(12, 8, seed=7)
    c = kronecker_coo(12, 8, seed=8)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])


def test_kronecker_coo_is_skewed_like_rmat():
    rows, cols = kronecker_coo(14, 16, seed=0)
    deg = np.bincount(rows, minlength=1 << 14)
    # R-MAT with a=0.57: a heavy head and many isolated vertices
    assert deg.max() > 50 * deg.mean()
    assert (deg == 0).mean() > 0.2
    # the expected share of self-loops: sum over levels of P(same bit) = (a + d)^scale
    loops = np.mean(rows == cols)
    assert abs(loops - (0.57 + 0.05) ** 14) < 5e-4


def test_kronecker_coo_bad_args():
    with pytest.raises(gb.InvalidValue, match="kronecker_coo.*scale"):
        kronecker_coo(-1)
    with pytest.raises(gb.InvalidValue, match="a \\+ b \\+ c"):
        kronecker_coo(4, a=0.6, b=0.3, c=0.3)


def test_kronecker_matrix():
    A = kronecker(10, 8, seed=1)
    S = A.to_scipy()
    assert A.shape == (1024, 1024) and A.dtype == np.float32
    assert S.diagonal().sum() == 0  # no self-loops
    assert np.all(S.data == 1)  # duplicates collapsed
    r, c = kronecker_coo(10, 8, seed=1)
    keep = r != c
    expected = np.unique(r[keep] * 1024 + c[keep]).size
    assert A.nvals == expected
    Ssym = kronecker(10, 8, seed=1, symmetric=True, dtype=None).to_scipy()
    assert Ssym.dtype == np.bool_
    assert (Ssym != Ssym.T).nnz == 0


def test_kronecker_weighted_symmetric():
    A = kronecker(9, 4, seed=2, symmetric=True, weights="uniform", dtype="float64")
    S = A.to_scipy()
    assert A.dtype == np.float64
    assert abs(S - S.T).max() == 0
    assert S.data.min() > 0 and S.data.max() <= 1


def test_uniform_and_grid():
    r, c = uniform_coo(50, 300, seed=1)
    assert r.max() < 50 and c.max() < 50 and len(r) == 300
    A = uniform(50, 300, seed=1, self_loops=True, dtype=None)
    assert A.nvals == np.unique(r * 50 + c).size
    r, c = grid_coo(3, 4)
    assert len(r) == 2 * (3 * 3 + 2 * 4)
    G = grid(3, 4).to_scipy()
    deg = np.diff(G.indptr)
    assert deg.min() == 2 and deg.max() == 4
    assert (G != G.T).nnz == 0


# --------------------------------------------------------------------- Matrix Market


def _write(path: Path, text: str) -> Path:
    if path.suffix == ".gz":
        with gzip.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize("name", ["a.mtx", "a.mtx.gz"])
def test_read_symmetric_pattern(tmp_path, name):
    text = ("%%MatrixMarket matrix coordinate pattern symmetric\n% a comment\n%\n"
            "4 4 4\n2 1\n3 1\n3 3\n4 2\n")
    A = read_mm(_write(tmp_path / name, text))
    assert A.shape == (4, 4) and A.dtype == np.bool_ and A.nvals == 7
    D = A.to_scipy().toarray()
    assert D[0, 1] and D[1, 0] and D[2, 2] and D[3, 1] and D[1, 3]
    assert (D == D.T).all()


def test_read_real_integer_skew(tmp_path):
    real = _write(tmp_path / "r.mtx", "%%MatrixMarket matrix coordinate real general\n"
                  "2 3 3\n1 1 1.5e0\n2 3 -2\n1 2 1e-3\n")
    A = read_mm(real)
    assert A.dtype == np.float64 and A.shape == (2, 3)
    assert np.allclose(A.to_scipy().toarray(), [[1.5, 1e-3, 0], [0, 0, -2]])
    ints = _write(tmp_path / "i.mtx", "%%MatrixMarket matrix coordinate integer general\n"
                  "2 2 3\n1 1 4\n1 1 5\n2 1 7\n")
    B = read_mm(ints)
    assert B.dtype == np.int64
    assert B.to_scipy().toarray().tolist() == [[9, 0], [7, 0]]  # duplicates summed
    skew = _write(tmp_path / "s.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n"
                  "2 2 1\n2 1 3.0\n")
    assert read_mm(skew).to_scipy().toarray().tolist() == [[0, -3], [3, 0]]


def test_read_errors(tmp_path):
    with pytest.raises(gb.InvalidValue, match="read_mm"):
        read_mm(_write(tmp_path / "x.mtx", "hello\n1 1 1\n"))
    with pytest.raises(gb.InvalidValue, match="3 entries"):
        read_mm_coo(_write(tmp_path / "y.mtx",
                           "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 1\n"))
    with pytest.raises(gb.InvalidValue, match="within 3 x 3"):
        read_mm_coo(_write(tmp_path / "z.mtx",
                           "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n4 1\n"))
    with pytest.raises(gb.InvalidValue, match="array"):
        read_mm_coo(_write(tmp_path / "w.mtx", "%%MatrixMarket matrix array real general\n"
                           "1 1\n1.0\n"))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, None])
@pytest.mark.parametrize("suffix", [".mtx", ".mtx.gz"])
def test_round_trip(tmp_path, dtype, suffix):
    S = sp.random(30, 20, density=0.2, random_state=4, format="coo")
    if dtype is None:
        A = gb.Matrix.from_coo(S.row, S.col, None, shape=S.shape)
    else:
        vals = (S.data * 100).astype(dtype) if np.dtype(dtype).kind == "i" else S.data
        A = gb.Matrix.from_coo(S.row, S.col, vals.astype(dtype), shape=S.shape)
    path = tmp_path / f"m{suffix}"
    write_mm(path, A, comment="round trip\nsecond line")
    B = read_mm(path, dtype=A.dtype)
    assert B.shape == A.shape and B.nvals == A.nvals
    a, b = A.to_scipy(), B.to_scipy()
    assert (a != b).nnz == 0
    d = read_mm_coo(path)
    assert d.comments[:2] == ["round trip", "second line"]


@pytest.mark.skipif(not (DATA / "facebook-combined.mtx.gz").exists(),
                    reason="shared data folder not present")
def test_read_facebook():
    A = read_mm(DATA / "facebook-combined.mtx.gz")
    assert A.shape == (4039, 4039)
    assert A.nvals == 2 * 88234  # undirected, no self-loops: both triangles
    S = A.to_scipy()
    assert (S != S.T).nnz == 0
