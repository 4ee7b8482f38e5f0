"""Fuzzing the Matrix Market readers: mutated valid files (bit flips, truncations, line
duplications and deletions, inserted bytes and digits, huge size lines, damaged gzip
streams) may only raise :class:`gblas.GraphBLASError` subclasses.  Where a mutated file is
still read, NumPy's tokenizer and the line-by-line parser must agree on its contents.

(SciPy's reader is not used as an oracle here: scipy 1.17's ``mmread`` crashes the
process on some mutated files, e.g. one whose last line ends in a vertical tab.)"""

from __future__ import annotations

import gzip
import warnings
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gblas as gb
from gblas.io import matrix_market as mm
from gblas.io import read_mm, read_mm_coo, read_mm_vector

SEEDS = [
    b"%%MatrixMarket matrix coordinate real general\n% comment\n3 4 4\n"
    b"1 1 1.5\n2 4 -2e3\n3 2 Infinity\n1 3 0.25\n",
    b"%%MatrixMarket matrix coordinate integer general\n%%GraphBLAS type int8_t\n"
    b"4 4 3\n1 2 127\n4 4 -128\n2 1 5\n",
    b"%%MatrixMarket matrix coordinate pattern symmetric\n5 5 4\n2 1\n3 3\n5 2\n4 1\n",
    b"%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3.5\n3 2 -1\n",
    b"%%MatrixMarket matrix coordinate unsigned-integer general\n"
    b"%%GraphBLAS type uint64_t\n2 2 2\n1 1 18446744073709551615\n2 1 7\n",
    b"%%MatrixMarket matrix coordinate integer general\n%%GraphBLAS type bool\n"
    b"3 1 2\n1 1 1\n3 1 0\n",
    b"%%MatrixMarket matrix array real general\n% a dense column\n3 1\n1.0\nNaN\n-0.5\n",
    b"\xef\xbb\xbf%%MatrixMarket matrix coordinate real symmetric\r\n2 2 2\r\n1 1 4\r\n"
    b"2 1 -1\r\n",
]

HUGE_SIZE_LINES = [
    b"1000000000000000 1000000000000000 3",
    b"99999999999999999999999999 1 1",
    b"9223372036854775807 9223372036854775807 2",
    b"4611686018427387904 2 1",
    b"3 3 -1",
    b"3 3 1000000000000000000",
    b"0 0 0",
    b"3",
]


@st.composite
def _mutated(draw) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "truncate", "dup", "delete", "insert", "byte",
                                   "digits", "size"]))
        lines = bytes(data).split(b"\n")
        if op == "flip" and data:
            pos = draw(st.integers(0, len(data) - 1))
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif op == "truncate":
            del data[draw(st.integers(0, len(data))):]
        elif op in ("dup", "delete") and lines:
            i = draw(st.integers(0, len(lines) - 1))
            lines[i:i + 1] = [lines[i], lines[i]] if op == "dup" else []
            data = bytearray(b"\n".join(lines))
        elif op in ("insert", "digits", "byte"):
            pos = draw(st.integers(0, len(data)))
            if op == "insert":
                blob = draw(st.binary(min_size=1, max_size=16))
            elif op == "digits":
                blob = draw(st.from_regex(rb"\A[+-]?[0-9]{1,24}\Z"))
            else:
                blob = bytes([draw(st.integers(0, 255))])
                pos = min(pos, max(len(data) - 1, 0))
                del data[pos:pos + 1]
            data[pos:pos] = blob
        elif op == "size":
            for i, line in enumerate(lines):
                if line.strip() and not line.lstrip(b"\xef\xbb\xbf").startswith(b"%"):
                    lines[i] = draw(st.sampled_from(HUGE_SIZE_LINES))
                    break
            data = bytearray(b"\n".join(lines))
    out = bytes(data)
    if draw(st.booleans()):  # a gzip stream, perhaps cut or damaged itself
        out = gzip.compress(out)
        cut = draw(st.sampled_from([None, "truncate", "flip"]))
        if cut == "truncate":
            out = out[: draw(st.integers(0, len(out) - 1))]
        elif cut == "flip":
            pos = draw(st.integers(0, len(out) - 1))
            out = out[:pos] + bytes([out[pos] ^ 0xA5]) + out[pos + 1:]
    return out


def _contents(obj):
    """Comparable contents of what a reader returned: shape, dtype, coordinates, value
    bits (NaN as one pattern)."""
    if isinstance(obj, gb.Vector):
        idx, vals = obj.to_coo()
        coords, shape = (idx,), (obj.size,)
    elif isinstance(obj, mm.MMData):
        coords, vals, shape = (obj.rows, obj.cols), obj.values, obj.shape
    else:
        r, c, vals = obj.to_coo()
        coords, shape = (r, c), obj.shape
    if vals is not None and vals.dtype.kind == "f":
        vals = np.where(np.isnan(vals), np.nan, vals)
    dt = None if vals is None else vals.dtype
    bits = None if vals is None else vals.tobytes()
    return shape, dt, [c.tolist() for c in coords], bits


def _outcome(reader, path):
    """``("ok", contents)`` or ``("error", class)``; any non-gblas exception fails."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return "ok", _contents(reader(path))
        except gb.GraphBLASError as exc:
            assert str(exc).startswith(reader.__name__), str(exc)
            return "error", type(exc)
        except BaseException as exc:
            pytest.fail(f"{reader.__name__} raised {type(exc).__name__}: {exc}\n"
                        f"on {path.read_bytes()!r}")


@settings(max_examples=1000, deadline=None, derandomize=False,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.filter_too_much])
@given(data=_mutated(), reader=st.sampled_from([read_mm, read_mm_coo, read_mm_vector]),
       gz_name=st.booleans())
def test_mutated_files_raise_only_gblas_errors(tmp_path_factory, data, reader, gz_name):
    path = tmp_path_factory.getbasetemp() / ("fuzz.mtx.gz" if gz_name else "fuzz.mtx")
    path.write_bytes(data)
    # a small memory figure: a mutated row count of millions is refused, not allocated
    with mock.patch.object(mm, "_available_bytes", lambda: 1 << 26):
        fast = _outcome(reader, path)
        # the line-by-line parser (used to locate errors) must read the same file the
        # same way as NumPy's tokenizer
        with mock.patch.object(mm, "_load_fast", lambda body, kinds: None):
            slow = _outcome(reader, path)
    assert fast[0] == slow[0], (fast, slow, data)
    if fast[0] == "ok":
        assert fast == slow, data


@pytest.mark.parametrize("line", HUGE_SIZE_LINES)
def test_huge_size_lines_fail_fast(tmp_path, line):
    path = tmp_path / "h.mtx"
    path.write_bytes(b"%%MatrixMarket matrix coordinate real general\n" + line +
                     b"\n1 1 1\n2 2 2\n3 3 3\n")
    for reader in (read_mm, read_mm_coo, read_mm_vector):
        if reader is not read_mm_vector and line.startswith(b"1000000000000000 "):
            # coordinates, or a hypersparse Matrix: O(entries), nothing per row
            assert reader(path).shape == (10**15, 10**15)
            continue
        with pytest.raises(gb.GraphBLASError, match=reader.__name__):
            reader(path)
