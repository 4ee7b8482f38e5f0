"""Matrix Market (``.mtx`` and ``.mtx.gz``) reading and writing.

Reading accepts coordinate files with fields ``pattern``, ``integer``,
``unsigned-integer`` and ``real`` (``double`` as an alias) and symmetries ``general``,
``symmetric`` and ``skew-symmetric`` (the stored triangle is mirrored);
:func:`read_mm_vector` also reads dense ``array`` files of one column or row.  A
``%%GraphBLAS type <C type>`` line after the banner (the convention of LAGraph and
fast_matrix_market) sets the value type, so that ``read_mm(write_mm(A))`` gives back
``A``'s dtype and values bit for bit.

Files are checked against the format: the entry count of the size line, 1-based indices
within the shape, one token per column, numbers of the field's kind, one triangle in
symmetric files and no diagonal in skew-symmetric ones.  Every problem raises
:class:`gblas.InvalidValue` naming the call, the file, the line, what was expected and
what came; a damaged gzip stream too.  The body is parsed by NumPy's C tokenizer
(:func:`numpy.loadtxt`) in one call; a line-by-line pass runs only to find the line of an
error (or for numbers the tokenizer does not take, such as integers beyond int64).

The writer is in :mod:`gblas.io._mm_write`.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import warnings
import zlib
from typing import NamedTuple

import numpy as np

from .. import dtypes
from ..exceptions import OutOfMemory
from ._mm_common import CTYPES, INT64_MAX, Where, show
from ._mm_write import write_mm

__all__ = ["MMData", "read_mm", "read_mm_coo", "read_mm_vector", "write_mm"]

_FIELDS = {"pattern": "pattern", "integer": "integer", "unsigned-integer": "unsigned-integer",
           "real": "real", "double": "real"}
_SYMMETRIES = ("general", "symmetric", "skew-symmetric")
_GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"
_INT = re.compile(rb"[+-]?[0-9]+")
_REAL = re.compile(rb"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                   rb"|inf(?:inity)?|nan)", re.IGNORECASE)
_PARSE = {"row": np.int64, "column": np.int64, "int64": np.int64, "uint64": np.uint64,
          "float64": np.float64}
# bytes NumPy's tokenizer and the line parser treat alike; others (non-ASCII bytes, which
# the tokenizer decodes as Latin-1 and may take for spaces) go to the line parser
_PLAIN = bytes(b for b in range(256) if b in b"\t\n\r\x0b\x0c" or 0x20 <= b < 0x7F)
_FIELD_DTYPE = {"integer": np.dtype(np.int64), "unsigned-integer": np.dtype(np.uint64),
                "real": np.dtype(np.float64), "pattern": np.dtype(np.bool_)}


class MMData(NamedTuple):
    """The contents of a Matrix Market file as 0-based coordinates (see :func:`read_mm_coo`).

    Symmetric files are already expanded (both triangles present).  ``dtype`` is the value
    type :func:`read_mm` gives by default: the ``%%GraphBLAS type`` line's, else bool for
    ``pattern``, int64 for ``integer``, uint64 for ``unsigned-integer``, float64 for
    ``real``.  ``format`` is ``"coordinate"`` or ``"array"``.
    """

    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray | None
    shape: tuple[int, int]
    field: str
    symmetry: str
    comments: list[str]
    dtype: np.dtype = np.dtype(np.bool_)
    format: str = "coordinate"


class _Header(NamedTuple):
    fmt: str
    field: str
    symmetry: str
    comments: list[str]
    gtype: np.dtype | None  # from a %%GraphBLAS type line
    type_line: int
    shape: tuple[int, int]
    count: int  # entries the body must hold
    size_line: int
    body: int  # offset of the body in the text
    first_line: int  # line number of the body's first line


# ----------------------------------------------------------------------------- bytes


def _read_bytes(where: Where) -> bytes:
    """The file's text: gunzipped when it starts with the gzip magic, without a BOM."""
    try:
        with open(where.path, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise where.os_error(exc, "read") from None
    except MemoryError:
        raise where.error(None, "a file that fits in memory", "a larger one",
                          OutOfMemory) from None
    if raw[:2] == _GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (EOFError, OSError, zlib.error) as exc:
            raise where.error(None, "a complete gzip stream",
                              f"a damaged or truncated one ({type(exc).__name__}: {exc})",
                              fix="The download or copy was probably cut short.") from None
        except MemoryError:
            raise where.error(None, "a decompressed file that fits in memory",
                              "a larger one", OutOfMemory) from None
    elif where.name.endswith(".gz"):
        raise where.error(None, "a gzip-compressed file (the name ends in '.gz')",
                          f"bytes {show(raw, 12)}" if raw else "an empty file")
    if raw.startswith(_BOM):
        raw = raw[len(_BOM):]
    return raw


def _int_token(tok: bytes) -> int:
    """The int of a token matched by ``_INT`` (huge ones as a value beyond every dtype)."""
    digits = tok.lstrip(b"+-").lstrip(b"0")
    if len(digits) > 21:
        return (-1 if tok.startswith(b"-") else 1) << 80
    return int(tok)


# ---------------------------------------------------------------------------- header


def _parse_header(where: Where, raw: bytes, allow_array: bool) -> _Header:
    end = raw.find(b"\n")
    banner = raw[: end if end >= 0 else len(raw)].strip()
    words = banner.split()
    shape_hint = "'%%MatrixMarket matrix coordinate <field> <symmetry>'"
    if not words or words[0].lower() != b"%%matrixmarket":
        got = show(banner) if banner else ("an empty file" if not raw.strip()
                                           else "an empty first line")
        raise where.error(1, f"a Matrix Market banner {shape_hint}", got)
    if len(words) != 5:
        raise where.error(1, f"5 words in the banner {shape_hint}",
                          f"{len(words)}: {show(banner)}")
    obj, fmt, field, symmetry = (w.decode("ascii", "replace").lower() for w in words[1:])
    if obj != "matrix":
        raise where.error(1, "the object 'matrix'", repr(obj))
    if fmt == "array" and not allow_array:
        raise where.error(1, "a 'coordinate' Matrix Market file", "format 'array'",
                          fix="Dense 'array' files are read by read_mm_vector when they "
                          "hold one column or row; matrices must be 'coordinate'.")
    if fmt not in ("coordinate", "array"):
        raise where.error(1, "the format 'coordinate' or 'array'", repr(fmt))
    if field not in _FIELDS:
        raise where.error(1, "the field 'pattern', 'integer', 'unsigned-integer' or 'real'",
                          repr(field), fix="Complex values are not supported."
                          if field == "complex" else None)
    field = _FIELDS[field]
    if symmetry not in _SYMMETRIES:
        raise where.error(1, "the symmetry 'general', 'symmetric' or 'skew-symmetric'",
                          repr(symmetry), fix="'hermitian' is for complex matrices only."
                          if symmetry == "hermitian" else None)
    if field == "pattern" and symmetry == "skew-symmetric":
        raise where.error(1, "a field with values for 'skew-symmetric'", "'pattern'",
                          fix="The format does not allow pattern skew-symmetric files.")
    if field == "pattern" and fmt == "array":
        raise where.error(1, "a field with values for format 'array'", "'pattern'")
    if fmt == "array" and symmetry != "general":
        raise where.error(1, "symmetry 'general' in an 'array' file", repr(symmetry))
    if field == "unsigned-integer" and symmetry == "skew-symmetric":
        raise where.error(1, "a signed field for 'skew-symmetric'", "'unsigned-integer'")

    comments: list[str] = []
    gtype, type_line = None, 0
    pos, lineno = (end + 1 if end >= 0 else len(raw)), 1
    while True:
        if pos >= len(raw):
            raise where.error(lineno + 1, "a size line", "the end of the file")
        nxt = raw.find(b"\n", pos)
        stop = nxt if nxt >= 0 else len(raw)
        line = raw[pos:stop].strip()
        pos, lineno = stop + 1, lineno + 1
        if line.startswith(b"%"):
            toks = line.split()
            if toks[0].lower() == b"%%graphblas" and len(toks) > 1 and toks[1] == b"type":
                gtype, type_line = _type_line(where, lineno, toks, field, symmetry), lineno
            else:
                comments.append(line[1:].decode("utf-8", "replace").strip())
        elif line:
            break
    ntok = 3 if fmt == "coordinate" else 2
    what = "'rows columns entries'" if ntok == 3 else "'rows columns'"
    toks = line.split()
    if len(toks) != ntok or not all(_INT.fullmatch(t) for t in toks):
        raise where.error(lineno, f"a size line {what} of {ntok} integers", show(line))
    sizes = [_int_token(t) for t in toks]
    if any(s < 0 or s > INT64_MAX for s in sizes):
        raise where.error(lineno, f"a size line {what} of integers in [0, 2**63)", show(line))
    m, n = sizes[0], sizes[1]
    if symmetry != "general" and m != n:
        raise where.error(lineno, f"a square matrix for {symmetry!r}", f"{m} x {n}")
    count = sizes[2] if ntok == 3 else m * n
    return _Header(fmt, field, symmetry, comments, gtype, type_line, (m, n), count, lineno,
                   min(pos, len(raw)), lineno + 1)


def _type_line(where, lineno, toks, field, symmetry) -> np.dtype:
    name = b" ".join(toks[2:]).decode("utf-8", "replace")
    dt = CTYPES.get(name)
    if dt is None:
        raise where.error(lineno, "a '%%GraphBLAS type' of " + ", ".join(CTYPES),
                          repr(name))
    ok = ("pattern", "integer", "unsigned-integer") if dt.kind in "biu" else \
        ("pattern", "integer", "real")
    if field not in ok:
        raise where.error(lineno, f"the field of a {name} matrix (" + " or ".join(ok) + ")",
                          f"{field!r} in the banner")
    if symmetry == "skew-symmetric" and dt.kind in "bu":
        raise where.error(lineno, "a signed type for 'skew-symmetric'", repr(name))
    return dt


# ------------------------------------------------------------------------------ body


def _data_lines(body: bytes, first_line: int):
    """``(line number, tokens)`` of the body's data lines (no blank or comment lines)."""
    lineno = first_line - 1
    for line in body.split(b"\n"):
        lineno += 1
        cut = line.find(b"%")
        toks = (line if cut < 0 else line[:cut]).split()
        if toks:
            yield lineno, toks


def _entry_line(body: bytes, first_line: int, k: int) -> int:
    """The line number of the body's k-th data line (0-based)."""
    for i, (lineno, _) in enumerate(_data_lines(body, first_line)):
        if i == k:
            return lineno
    return first_line  # pragma: no cover - callers pass k below the entry count


def _end_line(body: bytes, first_line: int) -> int:
    return first_line + body.count(b"\n") - (1 if body.endswith(b"\n") else 0)


def _load_fast(body: bytes, kinds: list[str]):
    """The body's columns via NumPy's tokenizer, or None where it refuses the text."""
    if not body.strip():
        return [np.empty(0, _PARSE[k]) for k in kinds]
    if body.translate(None, _PLAIN):
        return None
    sdt = np.dtype([(f"c{i}", _PARSE[k]) for i, k in enumerate(kinds)])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tab = np.loadtxt(io.BytesIO(body), dtype=sdt, comments="%", ndmin=1)
    except MemoryError:
        raise
    except Exception:
        return None
    return [np.ascontiguousarray(tab[f"c{i}"]) for i in range(len(kinds))]


def _describe(kinds: list[str]) -> str:
    names = {"row": "row", "column": "column", "int64": "value", "uint64": "value",
             "float64": "value"}
    return f"{len(kinds)} numbers per line (" + " ".join(names[k] for k in kinds) + ")"


def _load_slow(where: Where, body: bytes, hdr: _Header, kinds: list[str]):
    """The body's columns, line by line: the first bad line raises its error."""
    m, n = hdr.shape
    out: list[list] = [[] for _ in kinds]
    count = 0
    for lineno, toks in _data_lines(body, hdr.first_line):
        if count == hdr.count:
            raise _count_error(where, hdr, lineno, None)
        if len(toks) != len(kinds):
            raise where.error(lineno, _describe(kinds), f"{len(toks)} tokens: "
                              f"{show(b' '.join(toks))}")
        for tok, kind, col in zip(toks, kinds, out):
            if kind == "float64":
                if not _REAL.fullmatch(tok):
                    raise where.error(lineno, "a real number", show(tok))
                col.append(float(tok))
                continue
            if not _INT.fullmatch(tok):
                label = "value" if kind in ("int64", "uint64") else f"{kind} index"
                raise where.error(lineno, f"an integer {label}", show(tok))
            v = _int_token(tok)
            if kind in ("row", "column"):
                _check_index(where, lineno, kind, v, m, n)
            else:
                info = np.iinfo(_PARSE[kind])
                if not info.min <= v <= info.max:
                    raise where.error(lineno, f"an integer value within {info.dtype} "
                                      f"[{info.min}, {info.max}]", str(v))
            col.append(v)
        count += 1
    if count != hdr.count:
        raise _count_error(where, hdr, _end_line(body, hdr.first_line), count)
    return [np.array(c, dtype=_PARSE[k]) for c, k in zip(out, kinds)]


def _count_error(where: Where, hdr: _Header, lineno: int, found: int | None):
    expected = (f"{hdr.count} entries (the size line, line {hdr.size_line})"
                if hdr.fmt == "coordinate" else
                f"{hdr.count} values ({hdr.shape[0]} x {hdr.shape[1]}, the size line, "
                f"line {hdr.size_line})")
    if found is None:
        return where.error(lineno, expected, f"entry {hdr.count + 1} on this line")
    what = "entries" if hdr.fmt == "coordinate" else "values"
    return where.error(lineno, expected, f"{found} {what} before the end of the file")


def _check_index(where: Where, lineno: int, kind: str, v: int, m: int, n: int) -> None:
    bound = m if kind == "row" else n
    if 1 <= v <= bound:
        return
    fix = ("Matrix Market indices start at 1; this file looks 0-based." if v == 0 else None)
    raise where.error(lineno, f"1-based indices within {m} x {n}",
                      f"{kind} index {v}", fix=fix)


def _to_dtype(where, body, hdr, values, dt) -> np.ndarray:
    """Values parsed as int64 / uint64 / float64 in the file's value type, exactly."""
    if values.dtype == dt:
        return values
    if dt.kind == "b":
        bad = (values != 0) & (values != 1)
        what = "a bool value 0 or 1"
    elif dt.kind in "iu" and values.dtype.kind in "iu":
        info = np.iinfo(dt)
        bad = (values < info.min) | (values > info.max)
        what = f"an integer value within {dt} [{info.min}, {info.max}]"
    elif dt.kind == "f" and values.dtype.kind == "f":
        with np.errstate(over="ignore"):
            bad = np.isfinite(values) & ~np.isfinite(values.astype(dt))
        what = f"a value within the {dt} range"
    else:  # integers into floats
        bad = np.zeros(values.shape, bool)
        what = ""
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        src = f" (the type line, line {hdr.type_line})" if hdr.type_line else ""
        raise where.error(_entry_line(body, hdr.first_line, k), what + src,
                          str(values[k].item()))
    return values.astype(dt)


def _read(where: Where, *, allow_array: bool = False) -> MMData:
    raw = _read_bytes(where)
    hdr = _parse_header(where, raw, allow_array)
    body = raw[hdr.body:]
    del raw
    m, n = hdr.shape
    field = hdr.field
    if field == "real":
        vkind = "float64"
    elif field == "unsigned-integer" or hdr.gtype == np.dtype(np.uint64):
        vkind = "uint64"
    else:
        vkind = "int64"
    coordinate = hdr.fmt == "coordinate"
    kinds = (["row", "column"] if coordinate else []) + ([] if field == "pattern" else [vkind])
    try:
        cols_ = _load_fast(body, kinds)
        if cols_ is not None and len(cols_[0]) != hdr.count:
            found = len(cols_[0])
            if found > hdr.count:
                raise _count_error(where, hdr, _entry_line(body, hdr.first_line, hdr.count),
                                   None)
            raise _count_error(where, hdr, _end_line(body, hdr.first_line), found)
        if cols_ is None:
            cols_ = _load_slow(where, body, hdr, kinds)
    except MemoryError:
        raise where.error(None, "a body that fits in memory", "a larger one",
                          OutOfMemory) from None
    values = None if field == "pattern" else cols_[-1]
    dt = hdr.gtype if hdr.gtype is not None else _FIELD_DTYPE[field]
    if values is not None:
        values = _to_dtype(where, body, hdr, values, dt)
    if not coordinate:  # column-major dense values
        pos = np.arange(hdr.count, dtype=np.int64)
        rows, cols = pos % max(m, 1), pos // max(m, 1)
        return MMData(rows, cols, values, (m, n), field, hdr.symmetry, hdr.comments, dt,
                      "array")
    rows, cols = cols_[0], cols_[1]
    for arr, kind in ((rows, "row"), (cols, "column")):
        bad = (arr < 1) | (arr > (m if kind == "row" else n))
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            _check_index(where, _entry_line(body, hdr.first_line, k), kind, int(arr[k]), m, n)
    rows -= 1
    cols -= 1
    if hdr.symmetry != "general":
        rows, cols, values = _mirror(where, body, hdr, rows, cols, values)
    return MMData(rows, cols, values, (m, n), field, hdr.symmetry, hdr.comments, dt)


def _mirror(where, body, hdr, rows, cols, values):
    """Check that a symmetric file stores one triangle, and add the other one."""
    sym = hdr.symmetry
    lower, upper = rows > cols, rows < cols
    off = lower | upper
    if lower.any() and upper.any():
        first = int(np.flatnonzero(off)[0])
        side = lower if lower[first] else upper
        k = int(np.flatnonzero(off & ~side)[0])
        line0 = _entry_line(body, hdr.first_line, first)
        raise where.error(
            _entry_line(body, hdr.first_line, k),
            f"entries of one triangle only (a {sym} file stores each off-diagonal pair "
            f"once; line {line0} holds ({rows[first] + 1}, {cols[first] + 1}))",
            f"({rows[k] + 1}, {cols[k] + 1}) from the other triangle",
            fix="Declare the file 'general' if it stores both triangles.")
    if sym == "skew-symmetric":
        diag = ~off
        if diag.any():
            k = int(np.flatnonzero(diag)[0])
            raise where.error(_entry_line(body, hdr.first_line, k),
                              "no diagonal entries (a skew-symmetric matrix is zero there)",
                              f"the entry ({rows[k] + 1}, {cols[k] + 1})")
    mirrored = None
    if values is not None:
        mirrored = values[off]
        if sym == "skew-symmetric":
            if mirrored.dtype.kind == "i":
                low = mirrored == np.iinfo(mirrored.dtype).min
                if low.any():
                    k = int(np.flatnonzero(off)[np.flatnonzero(low)[0]])
                    raise where.error(_entry_line(body, hdr.first_line, k),
                                      f"a value whose negation fits {mirrored.dtype}",
                                      str(values[k]))
            mirrored = -mirrored
        values = np.concatenate([values, mirrored])
    return (np.concatenate([rows, cols[off]]), np.concatenate([cols, rows[off]]), values)


# ---------------------------------------------------------------------------- public


def read_mm_coo(path: str | os.PathLike) -> MMData:
    """Read a coordinate Matrix Market file into 0-based NumPy coordinate arrays.

    Parameters
    ----------
    path : str or path-like
        A ``.mtx`` file, or a gzip-compressed one (recognised by its first bytes).

    Returns
    -------
    MMData
        ``rows, cols`` (int64, 0-based), ``values`` (None for pattern; else in the
        ``%%GraphBLAS type`` line's dtype, or int64 for ``integer``, uint64 for
        ``unsigned-integer``, float64 for ``real``), ``shape``, ``field``, ``symmetry``,
        ``comments``, ``dtype``.  For symmetric files the mirrored off-diagonal entries are
        appended (negated for skew-symmetric).

    Raises
    ------
    gblas.InvalidValue
        The file breaks the format; the message names the line.  A missing file raises a
        subclass that is also a :class:`FileNotFoundError`.

    Examples
    --------
    >>> import tempfile, os
    >>> from gblas.io import read_mm_coo
    >>> path = os.path.join(tempfile.mkdtemp(), "t.mtx")
    >>> _ = open(path, "w").write(
    ...     "%%MatrixMarket matrix coordinate pattern symmetric\\n3 3 2\\n2 1\\n3 3\\n")
    >>> d = read_mm_coo(path)
    >>> d.rows.tolist(), d.cols.tolist(), d.shape
    ([1, 2, 0], [0, 2, 1], (3, 3))
    """
    return _read(Where("read_mm_coo", path))


def _available_bytes() -> int:
    """Memory the system can still give (MemAvailable on Linux), or a huge number."""
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not Linux
        return 1 << 62


def _result_values(d: MMData, dtype, call: str):
    """The values (None for a pattern) and dtype that ``dtype`` asks for."""
    if dtype is None:
        if d.values is None and d.dtype != np.bool_:
            return np.ones(len(d.rows), d.dtype), d.dtype
        return d.values, d.dtype
    dt = dtypes.lookup(dtype, call, "dtype")
    if d.values is None:
        return (None, dt) if dt == np.bool_ else (np.ones(len(d.rows), dt), dt)
    return d.values.astype(dt, copy=False), dt


def read_mm(path: str | os.PathLike, *, dtype=None):
    """Read a coordinate Matrix Market file (``.mtx`` or ``.mtx.gz``) into a
    :class:`gblas.Matrix`.

    Parameters
    ----------
    path : str or path-like
        Coordinate Matrix Market file, optionally gzip-compressed.
    dtype : dtype, optional
        Value type of the result (values are cast).  Default: the file's
        ``%%GraphBLAS type`` line, else bool (pattern) for ``pattern`` files, int64 for
        ``integer``, uint64 for ``unsigned-integer``, float64 for ``real``.  A pattern
        file read with a numeric dtype gets ones.

    Returns
    -------
    gblas.Matrix
        Symmetric files are expanded to both triangles (the Matrix is then
        :attr:`~gblas.Matrix.known_symmetric`); duplicate entries are summed.
        An ``n x 1`` file gives an ``n x 1`` Matrix (:func:`read_mm_vector` gives a
        Vector).

    Raises
    ------
    gblas.InvalidValue
        The file breaks the format (the message names the file and line), or its shape
        has ``rows * columns >= 2**63``.
    gblas.OutOfMemory
        The declared row count needs more memory for the row pointers than is
        available; raised before anything is allocated.

    Examples
    --------
    >>> import tempfile, os, gblas as gb
    >>> path = os.path.join(tempfile.mkdtemp(), "t.mtx")
    >>> _ = open(path, "w").write(
    ...     "%%MatrixMarket matrix coordinate real general\\n2 3 2\\n1 3 0.5\\n2 1 -2\\n")
    >>> A = gb.io.read_mm(path)
    >>> A.shape, A.nvals, A.dtype
    ((2, 3), 2, dtype('float64'))
    """
    from ..core import Matrix
    from ..planner.choose import choose_storage

    call = "read_mm"
    where = Where(call, path)
    d = _read(where)
    values, dt = _result_values(d, dtype, call)
    m, n = d.shape
    # hypersparse storage (the planner's rule) costs O(entries) whatever the shape
    hyper = choose_storage((m, n), len(d.rows))[0] == "hypersparse"
    if m * max(n, 1) > INT64_MAX and not hyper:
        raise where.error(None, "rows x columns below 2**63 (a Matrix addresses an entry "
                          "by row * columns + column)", f"the shape {m} x {n}")
    need, avail = 8 * (m + 1), _available_bytes() // 2
    if need > avail and not hyper:
        raise where.error(None, f"a row count whose row pointers (8 bytes a row) fit in "
                          f"the {avail} bytes of memory at hand",
                          f"{m} rows ({need} bytes)", OutOfMemory)
    try:
        A = Matrix.from_coo(d.rows, d.cols, values, shape=d.shape, dup_op="plus",
                            dtype=None if values is None else dt)
    except MemoryError:
        raise where.error(None, "a matrix that fits in memory", f"the shape {m} x {n} with "
                          f"{len(d.rows)} entries", OutOfMemory) from None
    # a symmetric file's mirror image: A' = A, its transpose never built
    return A._mark_symmetric() if d.symmetry == "symmetric" else A


def read_mm_vector(path: str | os.PathLike, *, dtype=None):
    """Read a Matrix Market file of one column (or one row) into a :class:`gblas.Vector`.

    Reads what :func:`write_mm` writes for a Vector (a coordinate ``n x 1`` file whose
    entries are the Vector's entries) and dense ``array`` files of one column or row
    (every entry present).

    Parameters
    ----------
    path : str or path-like
        ``.mtx`` file, optionally gzip-compressed, of shape ``n x 1`` or ``1 x n``.
    dtype : dtype, optional
        Value type, as in :func:`read_mm`.

    Returns
    -------
    gblas.Vector
        Of size ``n``; duplicate entries are summed.

    Raises
    ------
    gblas.InvalidValue
        The file breaks the format, or has more than one column and more than one row.

    Examples
    --------
    >>> import tempfile, os, gblas as gb
    >>> path = os.path.join(tempfile.mkdtemp(), "x.mtx")
    >>> gb.io.write_mm(path, gb.Vector.from_coo([0, 3], [2, -5], size=4))
    >>> x = gb.io.read_mm_vector(path)
    >>> x.size, x.dtype, x.to_coo()[1].tolist()
    (4, dtype('int64'), [2, -5])
    """
    from ..core import Vector

    call = "read_mm_vector"
    where = Where(call, path)
    d = _read(where, allow_array=True)
    m, n = d.shape
    if m != 1 and n != 1:
        raise where.error(None, "one column or one row (n x 1 or 1 x n)",
                          f"the shape {m} x {n}", fix="Use read_mm for matrices.")
    values, dt = _result_values(d, dtype, call)
    indices, size = (d.rows, m) if n == 1 else (d.cols, n)
    return Vector.from_coo(indices, values, size=size, dup_op="plus",
                           dtype=None if values is None else dt)
