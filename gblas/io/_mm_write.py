"""Writing Matrix Market files: :func:`write_mm` (re-exported by
:mod:`gblas.io.matrix_market`, whose readers give every written dtype back exactly)."""

from __future__ import annotations

import gzip
import os

import numpy as np

from .. import dtypes
from ..exceptions import InvalidObject, bad_arg
from ._mm_common import CTYPE_OF, INT64_MAX, Where

__all__ = ["write_mm"]


def _coo_of(call: str, A):
    """``(rows, cols, values, shape)`` on the CPU of a Matrix, Vector or SciPy matrix."""
    from ..core.vector import Vector

    if isinstance(A, Vector):
        if A.device != "cpu":
            A = A.to("cpu")
        idx, vals = A.to_coo()
        idx = np.asarray(idx, dtype=np.int64)
        return idx, np.zeros(idx.size, np.int64), np.asarray(vals), (A.size, 1)
    if hasattr(A, "to_coo") and len(getattr(A, "shape", ())) == 2:
        if getattr(A, "device", "cpu") != "cpu":
            A = A.to("cpu")
        rows, cols, vals = A.to_coo()
        return np.asarray(rows), np.asarray(cols), np.asarray(vals), tuple(A.shape)
    if hasattr(A, "tocoo"):
        coo = A.tocoo()
        return coo.row, coo.col, np.asarray(coo.data), tuple(coo.shape)
    raise bad_arg(InvalidObject, call, "A",
                  "a gblas.Matrix, gblas.Vector or scipy.sparse matrix", type(A).__name__)


def _body_chunks(fmt: str, columns: list[np.ndarray], specials: bool, chunk: int = 1 << 16):
    """The body text in chunks, with Python's %-formatting over whole chunks.

    ``tolist`` gives Python ints and floats, so integers of every width (uint64 beyond
    int64 included) print exactly and ``%r`` prints the shortest round-trip float.
    """
    n = len(columns[0])
    width = len(columns)
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        flat = np.empty((hi - lo) * width, dtype=object)
        for k, col in enumerate(columns):
            flat[k::width] = col[lo:hi].tolist()
        text = (fmt * (hi - lo)) % tuple(flat)
        if specials:  # the spelling SciPy writes and reads: Infinity, -Infinity, NaN
            text = text.replace("inf", "Infinity").replace("nan", "NaN")
        yield text


def write_mm(path: str | os.PathLike, A, *, comment: str | None = None) -> None:
    """Write a Matrix or Vector as a coordinate Matrix Market file (symmetry general).

    Every value is written exactly, and a ``%%GraphBLAS type`` line after the banner
    records the dtype, so that :func:`read_mm` (or :func:`read_mm_vector`) gives back
    the same dtype and values bit for bit:

    - bool: ``pattern`` when every entry is true, else ``integer`` 0 / 1;
    - int8 to int64 and uint8 to uint32: ``integer``;
    - uint64: ``integer``, or ``unsigned-integer`` (the field SciPy writes and reads)
      when a value exceeds the int64 range, where ``integer`` readers would overflow;
    - float32: ``real`` with 9 significant digits, float64: ``real`` with the shortest
      text that reads back the same double; infinities and NaN as ``Infinity``,
      ``-Infinity`` and ``NaN`` (NaN sign and payload bits are not kept).

    A Vector of size ``n`` is written as an ``n x 1`` coordinate file of its entries.
    A path ending in ``.gz`` is gzip-compressed.

    Parameters
    ----------
    path : str or path-like
        Output file.
    A : gblas.Matrix, gblas.Vector or scipy.sparse matrix
        What to write (on the GPU it is copied to the host first).
    comment : str, optional
        Text for ``%`` comment lines after the banner.

    Raises
    ------
    gblas.InvalidObject
        ``A`` is none of the accepted kinds.
    gblas.DomainMismatch
        A dtype gblas does not support (complex, object, ...).
    gblas.InvalidValue
        The file cannot be written (also an :class:`OSError`).

    Examples
    --------
    >>> import tempfile, os, gblas as gb, numpy as np
    >>> A = gb.Matrix.from_coo([0, 1], [1, 0], np.array([2**64 - 1, 7], dtype=np.uint64),
    ...                        shape=(2, 2))
    >>> path = os.path.join(tempfile.mkdtemp(), "a.mtx.gz")
    >>> gb.io.write_mm(path, A)
    >>> B = gb.io.read_mm(path)
    >>> B.dtype, B.to_coo()[2].tolist()
    (dtype('uint64'), [18446744073709551615, 7])
    """
    call = "write_mm"
    where = Where(call, path)
    rows, cols, values, (m, n) = _coo_of(call, A)
    dt = dtypes.lookup(values.dtype, call, "A")
    index = [np.asarray(rows, dtype=np.int64) + 1, np.asarray(cols, dtype=np.int64) + 1]
    specials = False
    if dt.kind == "b" and bool(values.all()):
        field, columns, fmt = "pattern", index, "%d %d\n"
    elif dt.kind == "b":
        field, columns, fmt = "integer", [*index, values.view(np.uint8)], "%d %d %d\n"
    elif dt.kind in "iu":
        big = dt == np.uint64 and values.size and int(values.max()) > INT64_MAX
        field = "unsigned-integer" if big else "integer"
        columns, fmt = [*index, values], "%d %d %d\n"
    else:
        specials = not bool(np.isfinite(values).all())
        field, columns = "real", [*index, values]
        fmt = "%d %d %.9g\n" if dt == np.float32 else "%d %d %r\n"
    head = [f"%%MatrixMarket matrix coordinate {field} general",
            f"%%GraphBLAS type {CTYPE_OF[dt]}"]
    head += [f"% {line}" for line in (comment or "").splitlines()]
    head.append(f"{m} {n} {len(index[0])}")
    try:
        with (gzip.open(path, "wb", compresslevel=6) if where.name.endswith(".gz")
              else open(path, "wb")) as f:
            f.write(("\n".join(head) + "\n").encode("utf-8"))
            for text in _body_chunks(fmt, columns, specials):
                f.write(text.encode("ascii"))
    except OSError as exc:
        raise where.os_error(exc, "write") from None
