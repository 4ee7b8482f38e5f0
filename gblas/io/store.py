"""Save a Matrix with the formats it has built, and load it back: a service pays the
preprocessing (transpose, segmented or light-panel layouts) once.

The file is one NumPy ``.npz`` archive, read without pickle:

* ``__manifest__`` -- a UTF-8 JSON document stored as a ``uint8`` array::

      {"gblas_store": 1, "device": "cpu", "matrix": NODE, "symmetric": false,
       "formats": [{"key": [name, transposed, [[param, NODE], ...]], "node": NODE}, ...]}

  (``symmetric``: the Matrix was :attr:`~gblas.Matrix.known_symmetric`; absent in older
  files, read as false)

* every array of the Matrix and its formats, under the name its node gives.

A ``NODE`` describes one value: ``{"array": "a7"}``; ``{"class": "module:Name",
"fields": {field: NODE}}`` for a format's dataclass (only classes of ``gblas.formats`` and
the Matrix's statistics are rebuilt, so loading runs no code the file names);
``{"tuple": [NODE, ...]}``, ``{"list": [...]}``, ``{"dict": [[NODE, NODE], ...]}``;
``{"scalar": "1.5", "dtype": "float32"}`` for a NumPy scalar; ``{"dtype": "int64"}``;
``{"value": v}`` for JSON's own values (``None``, bool, int, float, str).

Examples
--------
>>> import os, tempfile
>>> import gblas as gb
>>> A = gb.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, 2.0, 3.0], shape=(3, 3))
>>> _ = A.csr(transposed=True)  # a derived format, saved with the matrix
>>> path = os.path.join(tempfile.mkdtemp(), "graph.npz")
>>> save(path, A)
>>> B = load(path)
>>> B.isequal(A), B.has_format("csr", transposed=True)
(True, True)
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
from typing import Any

import numpy as np

from .._device import device_of, is_cupy_array, to_device, to_numpy
from ..exceptions import InvalidObject, InvalidValue, bad_arg

__all__ = ["save", "load"]

_VERSION = 1
_MANIFEST = "__manifest__"
#: Modules whose classes a file may ask to rebuild.
_ALLOWED = ("gblas.formats.", "gblas.core.matrix")


class _Unsaveable(Exception):
    pass


class _Writer:
    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}

    def node(self, v: Any) -> Any:
        if v is None or isinstance(v, (bool, str)) or type(v) in (int, float):
            return {"value": v}
        if isinstance(v, np.generic):
            return {"scalar": repr(v.item()), "dtype": v.dtype.str}
        if isinstance(v, np.dtype):
            return {"dtype": v.str}
        if isinstance(v, np.ndarray) or is_cupy_array(v):
            name = f"a{len(self.arrays)}"
            self.arrays[name] = to_numpy(v)
            return {"array": name}
        if isinstance(v, tuple) and not hasattr(v, "_fields"):
            return {"tuple": [self.node(x) for x in v]}
        if isinstance(v, list):
            return {"list": [self.node(x) for x in v]}
        if isinstance(v, dict):
            return {"dict": [[self.node(k), self.node(x)] for k, x in v.items()]}
        cls = type(v)
        if cls.__module__.startswith(_ALLOWED):
            if dataclasses.is_dataclass(v):
                names = [f.name for f in dataclasses.fields(v) if not _runtime(f)]
            elif hasattr(v, "_fields"):  # a NamedTuple
                names = list(v._fields)
            elif hasattr(cls, "__slots__"):
                names = [n for n in cls.__slots__ if not n.startswith("__")]
            else:
                raise _Unsaveable(f"{cls.__qualname__} is neither a dataclass nor a tuple")
            return {"class": f"{cls.__module__}:{cls.__qualname__}",
                    "fields": {n: self.node(getattr(v, n)) for n in names}}
        raise _Unsaveable(f"a {cls.__module__}.{cls.__qualname__} value")


class _Reader:
    def __init__(self, archive, device: str) -> None:
        self.archive = archive
        self.device = device

    def value(self, node: dict) -> Any:  # noqa: C901 - one branch per node kind
        if "value" in node:
            return node["value"]
        if "array" in node:
            return to_device(np.asarray(self.archive[node["array"]]), self.device)
        if "scalar" in node:
            dt = np.dtype(node["dtype"])
            text = node["scalar"]
            if dt.kind == "b":
                return dt.type(text == "True")
            return dt.type(float(text) if dt.kind == "f" else
                           complex(text) if dt.kind == "c" else int(text))
        if "dtype" in node:
            return np.dtype(node["dtype"])
        if "tuple" in node:
            return tuple(self.value(x) for x in node["tuple"])
        if "list" in node:
            return [self.value(x) for x in node["list"]]
        if "dict" in node:
            return {_hashable(self.value(k)): self.value(x) for k, x in node["dict"]}
        if "class" in node:
            cls = _allowed_class(node["class"])
            fields = {k: self.value(x) for k, x in node["fields"].items()}
            if isinstance(fields.get("device"), str):
                fields["device"] = self.device  # its arrays were placed there
            if hasattr(cls, "_fields"):
                return cls(**fields)
            obj = object.__new__(cls)  # the stored state, not a new build
            if dataclasses.is_dataclass(cls):
                for f in dataclasses.fields(cls):
                    if _runtime(f):  # run-time state starts empty, as after a build
                        object.__setattr__(obj, f.name, f.default_factory())
            for k, x in fields.items():
                object.__setattr__(obj, k, x)
            return obj
        raise ValueError(f"unknown node {sorted(node)}")


def _runtime(f: dataclasses.Field) -> bool:
    """A format's run-time state (buffers, locks: ``compare=False, repr=False`` with a
    factory), which is not saved."""
    return (not f.compare and not f.repr
            and f.default_factory is not dataclasses.MISSING)


def _hashable(v):
    return tuple(_hashable(x) for x in v) if isinstance(v, list) else v


def _allowed_class(path: str) -> type:
    mod, _, name = path.partition(":")
    if not mod.startswith(_ALLOWED):
        raise ValueError(f"class {path!r} is not a gblas format")
    obj: Any = importlib.import_module(mod)
    for part in name.split("."):
        obj = getattr(obj, part)
    if not isinstance(obj, type):
        raise ValueError(f"{path!r} is not a class")
    return obj


def save(path: str | os.PathLike, A, *, formats: bool = True) -> None:
    """Write ``A`` and (by default) every format it has built to ``path`` (``.npz``).

    Parameters
    ----------
    path : str or path-like
        The file; NumPy adds ``.npz`` when the name has no such suffix.
    A : gblas.Matrix
        The matrix (on either device; GPU arrays are copied to the host).
    formats : bool, default True
        Also save the derived formats (the transpose, segmented, light panels, ...) and the
        degree statistics, so that :func:`load` gives a Matrix that needs no preprocessing.

    Raises
    ------
    InvalidObject
        ``A`` is not a gblas Matrix.
    """
    from ..core.matrix import Matrix

    if not isinstance(A, Matrix):
        raise bad_arg(InvalidObject, "io.save", "A", "a gb.Matrix", type(A).__name__,
                      "Use A.materialize() for a .T view.")
    w = _Writer()
    manifest: dict[str, Any] = {"gblas_store": _VERSION, "device": A.device,
                                "matrix": w.node(A._csr), "formats": [],
                                "symmetric": bool(A.known_symmetric)}
    skipped = []
    if formats:
        for key, fmt in A._cache.items():
            name, transposed, params = key
            try:
                node = w.node(fmt)
                pnodes = [[k, w.node(v)] for k, v in params]
            except _Unsaveable as exc:
                skipped.append(f"{name}: {exc}")
                continue
            manifest["formats"].append({"key": [name, transposed, pnodes], "node": node})
    manifest["skipped"] = skipped
    blob = np.frombuffer(json.dumps(manifest).encode(), dtype=np.uint8)
    np.savez(path, **{_MANIFEST: blob}, **w.arrays)


def load(path: str | os.PathLike, *, device: str | None = None):
    """Read a Matrix written by :func:`save`, with its formats.

    Parameters
    ----------
    path : str or path-like
        The ``.npz`` file.
    device : {"cpu", "gpu"}, optional
        Where to put it (default: where it was saved from).  Formats of the other device
        are left out.

    Returns
    -------
    gblas.Matrix

    Raises
    ------
    InvalidValue
        The file is not a gblas store, is of a newer version, or is damaged.
    """
    from .._device import check_device
    from ..core.matrix import Matrix

    call = "io.load"
    try:
        archive = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise bad_arg(InvalidValue, call, "path", "a file written by gblas.io.save",
                      f"{os.fspath(path)!r} ({exc})") from None
    with archive:
        if _MANIFEST not in archive.files:
            raise bad_arg(InvalidValue, call, "path", "a file written by gblas.io.save",
                          f"an .npz without a {_MANIFEST} entry")
        try:
            manifest = json.loads(bytes(archive[_MANIFEST]).decode())
        except (ValueError, UnicodeDecodeError) as exc:
            raise bad_arg(InvalidValue, call, "path", "a readable manifest",
                          f"a damaged one ({exc})") from None
        version = manifest.get("gblas_store")
        if version != _VERSION:
            raise bad_arg(InvalidValue, call, "path", f"store version {_VERSION}",
                          f"version {version!r}", "Upgrade gblas to read this file.")
        dev = device if device is not None else manifest["device"]
        check_device(dev, call)
        r = _Reader(archive, dev)
        try:
            csr = r.value(manifest["matrix"])
            A = Matrix(csr)
            if manifest.get("symmetric") is True:
                A._mark_symmetric()
            for entry in manifest["formats"]:
                name, transposed, pnodes = entry["key"]
                saved_on = entry["node"].get("fields", {}).get("device", {}).get("value")
                if name != "csr" and saved_on not in (None, dev):
                    continue  # a layout of the other device's kernels
                params = tuple((k, _hashable(r.value(v))) for k, v in pnodes)
                A._cache[(name, bool(transposed), params)] = r.value(entry["node"])
        except (KeyError, ValueError, AttributeError, TypeError) as exc:
            raise bad_arg(InvalidValue, call, "path", "an intact gblas store",
                          f"a damaged one ({type(exc).__name__}: {exc})") from None
    if A._csr.device != dev or device_of(A._csr.indptr) != dev:
        raise bad_arg(InvalidValue, call, "device", f"arrays on {dev!r}", "a mismatch")
    return A
