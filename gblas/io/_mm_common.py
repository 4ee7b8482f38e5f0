"""Shared pieces of the Matrix Market reader and writer: errors that name the file and
line, file access, and the ``%%GraphBLAS type`` names."""

from __future__ import annotations

import os

import numpy as np

from ..exceptions import GraphBLASError, InvalidObject, InvalidValue, bad_arg

INT64_MAX = (1 << 63) - 1

# The value type line that LAGraph and fast_matrix_market write after the banner:
# ``%%GraphBLAS type <C type>``.
CTYPES = {
    "bool": np.dtype(np.bool_),
    "int8_t": np.dtype(np.int8),
    "int16_t": np.dtype(np.int16),
    "int32_t": np.dtype(np.int32),
    "int64_t": np.dtype(np.int64),
    "uint8_t": np.dtype(np.uint8),
    "uint16_t": np.dtype(np.uint16),
    "uint32_t": np.dtype(np.uint32),
    "uint64_t": np.dtype(np.uint64),
    "float": np.dtype(np.float32),
    "double": np.dtype(np.float64),
}
CTYPE_OF = {dt: name for name, dt in CTYPES.items()}


class FileUnusable(InvalidValue, OSError):
    """The Matrix Market file cannot be opened, read or written (also an :class:`OSError`,
    with its ``errno`` and ``filename``)."""

    def __str__(self) -> str:
        return str(self.args[0])


class FileNotFound(FileUnusable, FileNotFoundError):
    """The Matrix Market file does not exist (also a :class:`FileNotFoundError`)."""


class Where:
    """The call and file that error messages name."""

    def __init__(self, call: str, path) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise bad_arg(InvalidObject, call, "path", "a file path (str or os.PathLike)",
                          type(path).__name__)
        self.call = call
        self.path = path
        self.name = os.fspath(path)
        if isinstance(self.name, bytes):
            self.name = os.fsdecode(self.name)

    def error(self, line: int | None, expected: str, got: str,
              exc: type[GraphBLASError] = InvalidValue, fix: str | None = None):
        """``call: file 'x.mtx', line 5: expected ..., got ....`` as a gblas exception."""
        where = f"file {self.name!r}" + (f", line {line}" if line else "")
        msg = f"{self.call}: {where}: expected {expected}, got {got}."
        if fix:
            msg += f" {fix}"
        return exc(msg)

    def os_error(self, exc: OSError, doing: str):
        cls = FileNotFound if isinstance(exc, FileNotFoundError) else FileUnusable
        err = cls(f"{self.call}: cannot {doing} file {self.name!r}: "
                  f"{exc.strerror or exc}.")
        err.errno, err.filename = exc.errno, self.name
        return err


def show(text: bytes, limit: int = 60) -> str:
    """A short printable form of file bytes for error messages."""
    s = text[:limit].decode("utf-8", "backslashreplace")
    return repr(s + ("..." if len(text) > limit else ""))
