"""Matrix Market I/O: exact round trips of every dtype, agreement with SciPy, and a clear
gblas error (naming the call, file and line) for every kind of bad file."""

from __future__ import annotations

import gzip
import re
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.io as sio
import scipy.sparse as sp

import gblas as gb
from gblas.io import matrix_market as mm
from gblas.io import read_mm, read_mm_coo, read_mm_vector, write_mm

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64"]


def _write(path: Path, text: str | bytes) -> Path:
    data = text.encode() if isinstance(text, str) else text
    if path.name.endswith(".gz"):
        data = gzip.compress(data)
    path.write_bytes(data)
    return path


def _extremes(dt: np.dtype, rng: np.random.Generator, size: int) -> np.ndarray:
    """Random values plus the edge values of ``dt``."""
    if dt.kind == "b":
        return rng.random(size) < 0.7
    if dt.kind in "iu":
        info = np.iinfo(dt)
        edges = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1], dtype=dt)
        rand = rng.integers(info.min, info.max, size=size, dtype=dt, endpoint=True)
        return np.concatenate([edges, rand])
    bits = np.dtype(f"uint{dt.itemsize * 8}")
    rand = rng.integers(0, np.iinfo(bits).max, size=size, dtype=bits).view(dt)
    rand = rand[~np.isnan(rand)]  # NaN (any payload) is checked on its own
    fi = np.finfo(dt)
    edges = np.array([0.0, -0.0, np.inf, -np.inf, fi.max, -fi.max, fi.tiny, fi.smallest_subnormal,
                      -fi.smallest_subnormal, 0.1, 1 / 3, 1e16, 123456789.0], dtype=dt)
    return np.concatenate([edges, rand])


def _matrix(dt: np.dtype, rng: np.random.Generator, size: int = 300) -> gb.Matrix:
    vals = _extremes(dt, rng, size)
    m, n = 40, 57
    pos = rng.choice(m * n, size=vals.size, replace=False)
    return gb.Matrix.from_coo(pos // n, pos % n, vals, shape=(m, n), dtype=dt)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        nan = np.isnan(a)
        if not np.array_equal(nan, np.isnan(b)):
            return False
        a, b = a[~nan], b[~nan]
        u = np.dtype(f"uint{a.dtype.itemsize * 8}")
        return np.array_equal(a.view(u), b.view(u))
    return np.array_equal(a, b)


def _assert_same(A: gb.Matrix, B: gb.Matrix) -> None:
    assert B.shape == A.shape and B.dtype == A.dtype and B.nvals == A.nvals
    ra, ca, va = A.to_coo()
    rb, cb, vb = B.to_coo()
    assert np.array_equal(ra, rb) and np.array_equal(ca, cb)
    assert _same_bits(np.asarray(va), np.asarray(vb))


def _error_text(exc_info) -> str:
    return str(exc_info.value)


# ------------------------------------------------------------------- exact round trips


@pytest.mark.parametrize("suffix", [".mtx", ".mtx.gz"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_bit_exact(tmp_path, dtype, suffix):
    dt = np.dtype(dtype)
    A = _matrix(dt, np.random.default_rng(sum(map(ord, dtype))))
    path = tmp_path / f"a{suffix}"
    write_mm(path, A)
    _assert_same(A, read_mm(path))  # the dtype comes from the %%GraphBLAS type line
    _assert_same(A, read_mm(path, dtype=dt))


def test_uint64_beyond_int64_written_exactly(tmp_path):
    vals = np.array([2**64 - 1, 2**63, 2**63 - 1, 0], dtype=np.uint64)
    A = gb.Matrix.from_coo([0, 0, 1, 1], [0, 1, 0, 1], vals, shape=(2, 2))
    path = tmp_path / "u.mtx"
    write_mm(path, A)
    text = path.read_text()
    assert "18446744073709551615" in text and "-1\n" not in text
    assert text.startswith("%%MatrixMarket matrix coordinate unsigned-integer general\n")
    _assert_same(A, read_mm(path))
    S = sio.mmread(path)  # SciPy reads the same values back
    assert S.dtype == np.uint64
    assert sorted(S.tocoo().data.tolist()) == sorted(vals.tolist())
    # uint64 values within int64 use the portable 'integer' field
    B = gb.Matrix.from_coo([0], [1], np.array([5], np.uint64), shape=(2, 2))
    write_mm(path, B)
    assert " integer general" in path.read_text().splitlines()[0]
    _assert_same(B, read_mm(path))


def test_int64_min_and_float_specials_agree_with_scipy(tmp_path):
    ints = gb.Matrix.from_coo([0, 1], [1, 0], np.array([-2**63, 2**63 - 1]), shape=(2, 2))
    write_mm(tmp_path / "i.mtx", ints)
    S = sio.mmread(tmp_path / "i.mtx").tocoo()
    assert sorted(S.data.tolist()) == [-2**63, 2**63 - 1]
    vals = np.array([np.inf, -np.inf, np.nan, -0.0, 0.1, 5e-324])
    F = gb.Matrix.from_coo(np.arange(6), np.zeros(6, int), vals, shape=(6, 1))
    write_mm(tmp_path / "f.mtx", F)
    body = (tmp_path / "f.mtx").read_text()
    assert "Infinity" in body and "-Infinity" in body and "NaN" in body
    got = sio.mmread(tmp_path / "f.mtx").tocoo()
    assert _same_bits(got.data[np.argsort(got.row)], vals)  # -0.0 kept too
    # and SciPy's own spelling reads back here
    sio.mmwrite(tmp_path / "s.mtx", vals[:, None])  # a dense 'array' file
    x = read_mm_vector(tmp_path / "s.mtx")
    assert x.nvals == 6 and _same_bits(x.to_dense(), vals)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_floats_round_trip_over_many_bit_patterns(tmp_path, dtype):
    dt = np.dtype(dtype)
    u = np.dtype(f"uint{dt.itemsize * 8}")
    rng = np.random.default_rng(11)
    vals = rng.integers(0, np.iinfo(u).max, size=20000, dtype=u).view(dt)
    vals = vals[np.isfinite(vals)]
    x = gb.Vector.from_dense(vals)
    write_mm(tmp_path / "x.mtx", x)
    y = read_mm_vector(tmp_path / "x.mtx")
    assert y.dtype == dt and _same_bits(y.to_dense(), vals)


def test_bool_pattern_and_zero_one(tmp_path):
    P = gb.Matrix.from_coo([0, 2], [1, 0], shape=(3, 3))  # pattern: all true
    write_mm(tmp_path / "p.mtx", P)
    assert " pattern general" in (tmp_path / "p.mtx").read_text().splitlines()[0]
    _assert_same(P, read_mm(tmp_path / "p.mtx"))
    B = gb.Matrix.from_coo([0, 2], [1, 0], np.array([True, False]), shape=(3, 3))
    write_mm(tmp_path / "b.mtx", B)
    lines = (tmp_path / "b.mtx").read_text().splitlines()
    assert " integer general" in lines[0] and lines[-1] == "3 1 0"
    _assert_same(B, read_mm(tmp_path / "b.mtx"))


def test_scipy_reads_our_files_and_we_read_theirs(tmp_path):
    rng = np.random.default_rng(3)
    for dtype in DTYPES:
        A = _matrix(np.dtype(dtype), rng, 50)
        write_mm(tmp_path / "a.mtx", A)
        S = sio.mmread(tmp_path / "a.mtx").tocsr()  # the %%GraphBLAS line is a comment
        S.sort_indices()
        r, c, v = A.to_coo()
        assert np.array_equal(S.indices, c) and np.array_equal(np.diff(S.indptr),
                                                              np.bincount(r, minlength=40))
        assert _same_bits(S.data.astype(dtype), v)
        sio.mmwrite(tmp_path / "s.mtx", A.to_scipy())
        B = read_mm(tmp_path / "s.mtx", dtype=dtype)
        assert B.shape == A.shape and np.array_equal(B.to_coo()[1], c)
        assert _same_bits(B.to_coo()[2], v)


def test_iso_transposed_and_scipy_inputs(tmp_path):
    A = gb.Matrix.from_coo([0, 1], [1, 2], 7, shape=(2, 3))
    write_mm(tmp_path / "a.mtx", A.T)
    B = read_mm(tmp_path / "a.mtx")
    assert B.shape == (3, 2) and B.to_dense().tolist() == [[0, 0], [7, 0], [0, 7]]
    write_mm(tmp_path / "s.mtx", sp.csr_array(np.array([[0, 2.5], [1, 0]], np.float32)))
    assert read_mm(tmp_path / "s.mtx").dtype == np.float32
    with pytest.raises(gb.InvalidObject, match="write_mm"):
        write_mm(tmp_path / "x.mtx", [[1, 2]])
    with pytest.raises(gb.DomainMismatch, match="write_mm"):
        write_mm(tmp_path / "x.mtx", sp.csr_array(np.array([[1j]])))
    with pytest.raises(gb.InvalidValue, match="write_mm.*cannot write") as ei:
        write_mm(tmp_path / "missing" / "x.mtx", A)
    assert isinstance(ei.value, OSError)


# -------------------------------------------------------------------------- vectors


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint64", "float32", "float64"])
def test_vector_round_trip(tmp_path, dtype):
    dt = np.dtype(dtype)
    rng = np.random.default_rng(5)
    vals = _extremes(dt, rng, 40)
    idx = rng.choice(500, size=vals.size, replace=False)
    x = gb.Vector.from_coo(idx, vals, size=500, dtype=dt)
    path = tmp_path / "x.mtx.gz"
    write_mm(path, x)
    y = read_mm_vector(path)
    assert y.size == 500 and y.dtype == dt and y.nvals == x.nvals
    assert np.array_equal(y.to_coo()[0], x.to_coo()[0])
    assert _same_bits(y.to_coo()[1], x.to_coo()[1])
    M = read_mm(path)  # the same file is an n x 1 Matrix for read_mm
    assert M.shape == (500, 1) and M.nvals == x.nvals


def test_vector_from_array_and_row_files(tmp_path):
    col = _write(tmp_path / "c.mtx", "%%MatrixMarket matrix array integer general\n"
                 "% a dense column\n3 1\n4\n-5\n6\n")
    x = read_mm_vector(col)
    assert x.dtype == np.int64 and x.nvals == 3 and x.to_dense().tolist() == [4, -5, 6]
    row = _write(tmp_path / "r.mtx", "%%MatrixMarket matrix coordinate real general\n"
                 "1 4 2\n1 4 2.5\n1 2 -1\n")
    assert read_mm_vector(row).to_dense().tolist() == [0, -1, 0, 2.5]
    with pytest.raises(gb.InvalidValue, match=r"read_mm_vector: .*one column or one row"):
        read_mm_vector(_write(tmp_path / "m.mtx", "%%MatrixMarket matrix coordinate pattern "
                              "general\n2 2 1\n1 1\n"))
    with pytest.raises(gb.InvalidValue, match=r"line 4: expected 3 values.*got 2 values"):
        read_mm_vector(_write(tmp_path / "a.mtx", "%%MatrixMarket matrix array real "
                              "general\n3 1\n1\n2\n"))
    with pytest.raises(gb.InvalidValue, match="array"):  # read_mm stays coordinate-only
        read_mm(col)


# ---------------------------------------------------------------- counts and symmetry

HEAD = "%%MatrixMarket matrix coordinate {} {}\n"


def test_entry_count_must_match_size_line(tmp_path):
    more = _write(tmp_path / "more.mtx", HEAD.format("real", "general") +
                  "3 3 0\n1 1 1.0\n2 2 2.0\n")
    with pytest.raises(gb.InvalidValue) as ei:
        read_mm(more)
    msg = _error_text(ei)
    assert "read_mm" in msg and "more.mtx" in msg and "line 3" in msg and "0 entries" in msg
    fewer = _write(tmp_path / "fewer.mtx", HEAD.format("integer", "general") +
                   "3 3 5\n1 1 1\n2 2 2\n\n")
    with pytest.raises(gb.InvalidValue, match=r"fewer\.mtx.*expected 5 entries.*got 2"):
        read_mm(fewer)
    extra = _write(tmp_path / "extra.mtx", HEAD.format("pattern", "general") +
                   "3 3 2\n1 1\n2 2\n3 3\n")
    with pytest.raises(gb.InvalidValue, match=r"line 5: expected 2 entries.*entry 3"):
        read_mm_coo(extra)


def test_symmetric_file_stores_one_triangle(tmp_path):
    both = _write(tmp_path / "s.mtx", HEAD.format("real", "symmetric") +
                  "3 3 3\n2 1 1.0\n1 2 1.0\n3 3 4.0\n")
    with pytest.raises(gb.InvalidValue, match=r"s\.mtx', line 4: .*one triangle.*\(1, 2\)"):
        read_mm(both)
    lower = _write(tmp_path / "lo.mtx", HEAD.format("real", "symmetric") +
                   "3 3 3\n2 1 1.5\n3 1 -2\n3 3 4.0\n")
    upper = _write(tmp_path / "up.mtx", HEAD.format("real", "symmetric") +
                   "3 3 3\n1 2 1.5\n1 3 -2\n3 3 4.0\n")  # the upper triangle only: accepted
    _assert_same(read_mm(lower), read_mm(upper))
    D = read_mm(lower).to_dense()
    assert np.array_equal(D, D.T) and D[1, 0] == 1.5 and D[2, 2] == 4.0
    assert np.array_equal(D, sio.mmread(lower).toarray())


def test_skew_symmetric_rules(tmp_path):
    diag = _write(tmp_path / "d.mtx", HEAD.format("real", "skew-symmetric") +
                  "2 2 2\n2 1 3.0\n2 2 1.0\n")
    with pytest.raises(gb.InvalidValue, match=r"line 4: .*no diagonal entries.*\(2, 2\)"):
        read_mm(diag)
    pat = _write(tmp_path / "p.mtx", HEAD.format("pattern", "skew-symmetric") + "2 2 1\n2 1\n")
    with pytest.raises(gb.InvalidValue, match=r"line 1: .*pattern"):
        read_mm(pat)
    low = _write(tmp_path / "m.mtx", HEAD.format("integer", "skew-symmetric") +
                 f"2 2 1\n2 1 {-2**63}\n")
    with pytest.raises(gb.InvalidValue, match=r"line 3: .*negation"):
        read_mm(low)
    ok = _write(tmp_path / "ok.mtx", HEAD.format("integer", "skew-symmetric") + "3 3 1\n3 1 7\n")
    assert read_mm(ok).to_dense().tolist() == [[0, 0, -7], [0, 0, 0], [7, 0, 0]]
    uns = _write(tmp_path / "u.mtx", HEAD.format("unsigned-integer", "skew-symmetric") +
                 "2 2 1\n2 1 3\n")
    with pytest.raises(gb.InvalidValue, match="signed"):
        read_mm(uns)


@pytest.mark.parametrize("field,dtype", [("integer", np.int64), ("real", np.float64),
                                         ("pattern", np.bool_),
                                         ("unsigned-integer", np.uint64)])
def test_empty_files_keep_the_field_dtype(tmp_path, field, dtype):
    path = _write(tmp_path / "e.mtx", HEAD.format(field, "general") + "4 5 0\n")
    A = read_mm(path)
    assert A.shape == (4, 5) and A.nvals == 0 and A.dtype == dtype
    d = read_mm_coo(path)
    assert d.rows.dtype == np.int64 and (d.values is None) == (field == "pattern")
    if d.values is not None:
        assert d.values.dtype == dtype


# ------------------------------------------------------------ gzip, BOM, line endings


def test_truncated_and_damaged_gzip(tmp_path):
    text = HEAD.format("real", "general") + "30 30 30\n" + "".join(
        f"{i + 1} {i + 1} {i}.5\n" for i in range(30))
    whole = gzip.compress(text.encode())
    cut = tmp_path / "cut.mtx.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(gb.InvalidValue, match=r"read_mm: file '.*cut\.mtx\.gz'.*gzip") as ei:
        read_mm(cut)
    assert not isinstance(ei.value, EOFError)
    bad = bytearray(whole)
    bad[len(bad) // 2] ^= 0xFF
    (tmp_path / "bad.mtx.gz").write_bytes(bytes(bad))
    with pytest.raises(gb.InvalidValue, match="bad.mtx.gz"):
        read_mm(tmp_path / "bad.mtx.gz")
    (tmp_path / "plain.mtx.gz").write_text(text)  # not compressed although named .gz
    with pytest.raises(gb.InvalidValue, match="gzip-compressed"):
        read_mm(tmp_path / "plain.mtx.gz")


@pytest.mark.parametrize("name", ["bom.mtx", "bom.mtx.gz"])
def test_utf8_bom_and_crlf_accepted(tmp_path, name):
    text = ("\ufeff%%MatrixMarket matrix coordinate integer general\r\n% comment \u00e9\r\n"
            "2 2 2\r\n1 2 3\r\n2 1 -4\r\n\r\n")
    A = read_mm(_write(tmp_path / name, text))
    assert A.to_dense().tolist() == [[0, 3], [-4, 0]]
    assert read_mm_coo(tmp_path / name).comments == ["comment \u00e9"]


def test_missing_file(tmp_path):
    with pytest.raises(gb.InvalidValue, match="read_mm: cannot read file") as ei:
        read_mm(tmp_path / "nope.mtx")
    assert isinstance(ei.value, FileNotFoundError)
    with pytest.raises(gb.InvalidObject, match="read_mm"):
        read_mm(3)


# --------------------------------------------------------------- malformed content

BAD = [
    # (file text, pattern the message must match)
    ("", r"line 1: expected a Matrix Market banner .*got an empty file"),
    ("hello world\n1 1 1\n", r"line 1: expected a Matrix Market banner"),
    ("%%MatrixMarket matrix coordinate real\n1 1 0\n", r"line 1: expected 5 words"),
    ("%%MatrixMarket tensor coordinate real general\n1 1 0\n", r"line 1: .*'matrix'"),
    ("%%MatrixMarket matrix coordinate complex general\n1 1 0\n", r"line 1: .*'complex'"),
    ("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", r"line 1: .*'hermitian'"),
    ("%%MatrixMarket matrix coordinate real general\n% only comments\n",
     r"line 3: expected a size line, got the end of the file"),
    ("%%MatrixMarket matrix coordinate real general\n3 3\n",
     r"line 2: expected a size line 'rows columns entries'"),
    ("%%MatrixMarket matrix coordinate real general\n3 x 1\n1 1 1\n",
     r"line 2: expected a size line"),
    ("%%MatrixMarket matrix coordinate real general\n-3 3 1\n1 1 1\n",
     r"line 2: expected a size line"),
    ("%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n",
     r"line 2: expected a square matrix"),
    ("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n4 1 2\n",
     r"line 4: expected 1-based indices within 3 x 3, got row index 4"),
    ("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n1 9 2\n",
     r"line 4: .*within 3 x 3, got column index 9"),
    ("%%MatrixMarket matrix coordinate real general\n3 3 2\n0 0 1\n1 2 2\n",
     r"line 3: .*got row index 0\. .*0-based"),
    ("%%MatrixMarket matrix coordinate real general\n3 3 1\n-1 2 1\n",
     r"line 3: .*got row index -1"),
    ("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n2 2 abc\n",
     r"line 4: expected a real number, got 'abc'"),
    ("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n",
     r"line 3: expected an integer value, got '1.5'"),
    ("%%MatrixMarket matrix coordinate real general\n3 3 1\n1.0 1 1.5\n",
     r"line 3: expected an integer row index, got '1.0'"),
    ("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 2\n",
     r"line 4: expected 3 numbers per line \(row column value\), got 2 tokens"),
    ("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n",
     r"line 3: expected 2 numbers per line \(row column\), got 3 tokens"),
    ("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 9223372036854775808\n",
     r"line 3: expected an integer value within int64"),
    ("%%MatrixMarket matrix coordinate unsigned-integer general\n3 3 1\n1 1 -1\n",
     r"line 3: expected an integer value within uint64"),
    ("%%MatrixMarket matrix coordinate integer general\n%%GraphBLAS type int8_t\n"
     "3 3 2\n1 1 5\n2 2 300\n", r"line 5: expected an integer value within int8"),
    ("%%MatrixMarket matrix coordinate integer general\n%%GraphBLAS type bool\n"
     "3 3 1\n1 1 2\n", r"line 4: expected a bool value 0 or 1"),
    ("%%MatrixMarket matrix coordinate real general\n%%GraphBLAS type int32_t\n3 3 0\n",
     r"line 2: expected the field of a int32_t matrix"),
    ("%%MatrixMarket matrix coordinate real general\n%%GraphBLAS type quaternion\n3 3 0\n",
     r"line 2: expected a '%%GraphBLAS type' of bool"),
    ("%%MatrixMarket matrix coordinate real general\n%%GraphBLAS type float\n"
     "3 3 1\n1 1 1e300\n", r"line 4: expected a value within the float32 range"),
    ("%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 \xff\n",
     r"line 3: expected a real number"),
]


@pytest.mark.parametrize("text,pattern", BAD)
@pytest.mark.parametrize("reader", [read_mm, read_mm_coo])
def test_bad_files_raise_clear_errors(tmp_path, text, pattern, reader):
    path = tmp_path / "bad.mtx"
    path.write_bytes(text.encode("utf-8", "surrogateescape") if "\xff" not in text
                     else text.encode("latin-1"))
    with pytest.raises(gb.InvalidValue) as ei:
        reader(path)
    msg = _error_text(ei)
    assert msg.startswith(f"{reader.__name__}: file '{path}'"), msg
    assert re.search(pattern, msg), msg


def test_tolerated_variants(tmp_path):
    text = ("%%matrixmarket MATRIX Coordinate Real General\n%\n\n  2 2 2  \n"
            "1 1 +1.5E0\n\n% a comment between entries\n2\t2\t-.5\n")
    assert read_mm(_write(tmp_path / "v.mtx", text)).to_dense().tolist() == [[1.5, 0],
                                                                            [0, -0.5]]
    dup = _write(tmp_path / "d.mtx", HEAD.format("integer", "general") + "2 2 2\n1 1 4\n1 1 5\n")
    assert read_mm(dup).to_dense().tolist() == [[9, 0], [0, 0]]  # summed, as SciPy does
    big = _write(tmp_path / "b.mtx", HEAD.format("integer", "general") +
                 "%%GraphBLAS type uint64_t\n1 1 1\n1 1 18446744073709551615\n")
    assert read_mm(big).to_coo()[2].tolist() == [2**64 - 1]


# ------------------------------------------------------------------- huge sizes


def test_huge_declared_shape_is_not_allocated(tmp_path):
    path = _write(tmp_path / "h.mtx", HEAD.format("real", "general") +
                  f"{10**15} {10**15} 3\n1 1 1\n{10**15} 2 2\n5 {10**15} 3\n")
    t0 = time.perf_counter()
    d = read_mm_coo(path)  # coordinates only: O(entries)
    assert d.shape == (10**15, 10**15) and d.rows.tolist() == [0, 10**15 - 1, 4]
    A = read_mm(path)  # stored hypersparse: O(entries), no row pointers per row
    assert A.is_hypersparse and A.shape == (10**15, 10**15) and A.nvals == 3
    assert A.to_coo()[0].tolist() == [0, 4, 10**15 - 1]
    assert time.perf_counter() - t0 < 5
    rows = _write(tmp_path / "r.mtx", HEAD.format("real", "general") +
                  f"{10**12} 2 1\n1 1 1\n")
    assert read_mm(rows).is_hypersparse
    huge_count = _write(tmp_path / "c.mtx", HEAD.format("real", "general") +
                        "3 3 999999999999999\n1 1 1\n")
    with pytest.raises(gb.InvalidValue, match="999999999999999 entries"):
        read_mm(huge_count)
    over = _write(tmp_path / "o.mtx", HEAD.format("real", "general") +
                  f"{2**63} 1 0\n")
    with pytest.raises(gb.InvalidValue, match=r"line 2: .*2\*\*63"):
        read_mm(over)


def test_row_count_checked_against_available_memory(tmp_path, monkeypatch):
    path = _write(tmp_path / "m.mtx", HEAD.format("pattern", "general") + "100000 2 1\n1 1\n")
    assert read_mm(path).shape == (100000, 2)
    monkeypatch.setattr(mm, "_available_bytes", lambda: 1 << 16)
    with pytest.raises(gb.OutOfMemory, match="100000 rows"):
        read_mm(path)


def test_non_ascii_bytes_are_not_spaces(tmp_path):
    # NumPy's tokenizer reads bytes as Latin-1, where 0xA0 and 0x85 are spaces; the file
    # format is ASCII, so such a byte between numbers is an error on its line
    for blob in (b"\xa0", b"\x85"):
        path = tmp_path / "n.mtx"
        path.write_bytes(b"%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n"
                         b"3" + blob + b"2 -1\n")
        with pytest.raises(gb.InvalidValue, match=r"line 4: expected 3 numbers per line"):
            read_mm(path)
    ok = tmp_path / "c.mtx"  # non-ASCII text in comments is fine
    ok.write_bytes("%%MatrixMarket matrix coordinate real general\n% caf\u00e9\n1 1 1\n"
                   "% \u00e9t\u00e9\n1 1 2\n".encode())
    assert read_mm(ok).to_dense().tolist() == [[2.0]]


def test_huge_vector_is_sparse(tmp_path):
    path = _write(tmp_path / "v.mtx", HEAD.format("integer", "general") +
                  f"{10**15} 1 2\n1 1 5\n{10**15} 1 -6\n")
    x = read_mm_vector(path)
    assert x.size == 10**15 and x.to_coo()[0].tolist() == [0, 10**15 - 1]
