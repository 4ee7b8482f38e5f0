"""Numba kernels compiled once per machine: an on-disk cache keyed by each kernel's definition.

Every CPU kernel is made with :func:`jit`.  Numba's own ``cache=True`` cannot serve the
kernels built per semiring (closures over compiled operators, which pickle with a random
per-process id), so the key of a kernel is derived from what defines it: its code and
options; the key of every value it closes over, recursively (an operator's function by
its code, closure and the scalar globals it reads; a dtype, Numba type or scalar by its
value); a stamp of the package sources that can be compiled into a kernel
(``backends/cpu``, ``semirings``), of NumPy's version and of the machine.  A closure over
anything else is compiled in memory only.  Entries carry a SHA-256 of their bytes; an
unreadable, corrupt or stale entry is rewritten, never trusted.  The cache lives in
``$GBLAS_CACHE_DIR``, else ``$XDG_CACHE_HOME/gblas``, else ``~/.cache/gblas``;
``GBLAS_CACHE_DIR=off`` (or an unwritable place) keeps every kernel in memory.

Examples
--------
>>> import numpy as np
>>> @jit()
... def total(a):
...     s = 0.0
...     for v in a:
...         s += v
...     return s
>>> float(total(np.arange(4.0)))
6.0
>>> cache_dir() is None or cache_dir().name == "numba"
True
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import sys
import time
import types as pytypes
import weakref
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import numba
import numpy as np
from numba.core import caching

try:  # (the module and the names _rebuild_env uses, as Numba 0.68 has them)
    from numba.core import environment as nbenv
except ImportError:  # pragma: no cover - older Numba: its own unpickling
    nbenv = None
from numba.core import types as nbtypes
from numba.core.runtime import rtsys

from ..._cache import cache_root  # (re-exported: the folder of everything cached)

__all__ = ["JIT_OPTS", "jit", "cache_dir", "cache_root", "cache_stats", "clear_cache",
           "definition_key", "compile_stats", "prune_cache", "stale_files", "Unkeyable"]

#: Options of every compiled kernel: no bounds checks, NumPy's division semantics, the GIL
#: released.  No ``fastmath``: it would reorder float sums and break min/max NaN semantics.
JIT_OPTS = {"boundscheck": False, "error_model": "numpy", "nogil": True}

_PACKAGE = Path(__file__).resolve().parents[2]  # the gblas package folder
#: Folders (relative to the package) whose code may be compiled into a kernel.
_STAMPED = ("backends/cpu", "semirings")


class Unkeyable(Exception):
    """A value a kernel closes over has no stable description (the kernel is not cached)."""


# ------------------------------------------------------------------------ the cache's place


_WRITABLE: dict[Path, bool] = {}


def cache_dir() -> Path | None:
    """The folder of the compiled CPU kernels, created on demand; None when caching is off
    or the folder cannot be written."""
    root = cache_root()
    if root is None:
        return None
    path = root / "numba"
    ok = _WRITABLE.get(path)
    if ok is None:
        try:
            path.mkdir(parents=True, exist_ok=True)
            probe = path / f".probe-{os.getpid()}"
            probe.write_bytes(b"")
            probe.unlink()
            ok = True
        except OSError:
            ok = False
        _WRITABLE[path] = ok
    return path if ok else None


def cache_stats() -> dict[str, Any]:
    """``{"path", "files", "bytes", "enabled"}`` of the kernel cache.

    Examples
    --------
    >>> sorted(cache_stats())
    ['bytes', 'enabled', 'files', 'path']
    """
    root = cache_root()
    path = None if root is None else root / "numba"
    files = size = 0
    if path is not None and path.is_dir():
        for f in path.iterdir():
            if f.is_file():
                files += 1
                size += f.stat().st_size
    return {"path": None if path is None else str(path), "files": files, "bytes": size,
            "enabled": cache_dir() is not None}


def clear_cache() -> int:
    """Delete every cached kernel; returns the number of files removed."""
    root = cache_root()
    path = None if root is None else root / "numba"
    n = 0
    if path is not None and path.is_dir():
        for f in path.iterdir():
            if f.is_file():
                f.unlink(missing_ok=True)
                n += 1
    return n


#: A write's temporary file (``<name>.tmp.<id>``) older than this many seconds is left
#: over from a process that stopped mid-write.
_TMP_AGE_S = 3600.0


def stale_files() -> list[Path]:
    """This interpreter's files in the kernel cache that it can never load again: the
    indexes of other package sources or Numba versions (an upgrade, an edited checkout)
    with their data, data files no current index names (a kernel that moved to another
    line or was renamed), and writes left unfinished over an hour ago.  Files of other
    Python versions are left alone: they may be another installation's.

    Examples
    --------
    >>> all(p.suffix in (".nbi", ".nbc") or ".tmp." in p.name for p in stale_files())
    True
    """
    path = cache_dir()
    if path is None:
        return []
    tag = f".py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"
    names = {p.name: p for p in path.iterdir() if p.is_file()}
    live: set[str] = set()  # data files a current index names
    bases: set[str] = set()  # bases of current indexes
    stale = []
    for name, p in names.items():
        if not name.endswith(tag + ".nbi"):
            continue
        overloads = _current_index(p)
        if overloads is None:
            stale.append(p)
            continue
        bases.add(name[:-len(".nbi")])
        live.update(str(v) for v in overloads.values())
    now = time.time()
    for name, p in names.items():
        if ".tmp." in name:
            if tag in name and now - p.stat().st_mtime > _TMP_AGE_S:
                stale.append(p)
        elif name.endswith(".nbc") and name not in live:
            base = name.rsplit(".", 2)[0]  # <base>.<number>.nbc
            if base.endswith(tag) and (base in bases or base + ".nbi" not in names
                                       or names[base + ".nbi"] in stale):
                stale.append(p)
    return sorted(stale)


def _current_index(p: Path) -> dict | None:
    """The overloads of the index file ``p`` (Numba's format: its version, then the
    source stamp and the overloads), or None when it is unreadable or of other sources
    or another Numba."""
    try:
        with open(p, "rb") as f:
            version = pickle.load(f)
            if version != numba.__version__:
                return None
            stamp, overloads = pickle.loads(f.read())
    except Exception:  # unreadable, truncated, or written by something else
        return None
    return overloads if stamp == source_stamp() and isinstance(overloads, dict) else None


def prune_cache() -> dict[str, int]:
    """Delete :func:`stale_files`; returns ``{"files", "bytes"}`` removed.  A process
    writing a kernel at the same time at worst compiles it again later: a data file
    that an index names but is gone counts as a miss.

    Examples
    --------
    >>> import os, tempfile
    >>> saved = os.environ.get("GBLAS_CACHE_DIR")
    >>> os.environ["GBLAS_CACHE_DIR"] = tempfile.mkdtemp()  # an empty cache of its own
    >>> prune_cache()
    {'files': 0, 'bytes': 0}
    >>> if saved is None:
    ...     del os.environ["GBLAS_CACHE_DIR"]
    ... else:
    ...     os.environ["GBLAS_CACHE_DIR"] = saved
    """
    files = size = 0
    for p in stale_files():
        try:
            n = p.stat().st_size
            p.unlink()
        except OSError:  # removed by another process meanwhile
            continue
        files += 1
        size += n
    return {"files": files, "bytes": size}


_STAMP: list[str] = []


def source_stamp() -> str:
    """Hash of the sources that can end up in a kernel, NumPy's version and the machine."""
    if not _STAMP:
        h = hashlib.sha256()
        h.update(f"{numba.__version__}|{np.__version__}|{sys.version_info[:2]}".encode())
        h.update(sys.platform.encode())
        for folder in _STAMPED:
            for f in sorted((_PACKAGE / folder).glob("*.py")):
                h.update(f.name.encode())
                h.update(f.read_bytes())
        _STAMP.append(h.hexdigest()[:24])
    return _STAMP[0]


# -------------------------------------------------------------------- definition keys


def _code_key(code: pytypes.CodeType) -> tuple:
    consts = tuple(_code_key(c) if isinstance(c, pytypes.CodeType) else (type(c).__name__,
                   repr(c)) for c in code.co_consts)
    return (code.co_name, hashlib.sha256(code.co_code).hexdigest(), consts, code.co_names,
            code.co_varnames[:code.co_argcount])


def _function_key(func: pytypes.FunctionType, seen: set) -> tuple:
    mod = getattr(func, "__module__", "") or ""
    parts: list[Any] = [mod, func.__qualname__, _code_key(func.__code__)]
    if func.__defaults__:
        parts.append(tuple(definition_key(d, seen) for d in func.__defaults__))
    if func.__closure__:
        try:
            cells = tuple(c.cell_contents for c in func.__closure__)
        except ValueError:  # an empty cell
            raise Unkeyable(f"{func.__qualname__} has an unfilled closure cell") from None
        parts.append(tuple(definition_key(c, seen) for c in cells))
    if not (mod == "gblas" or mod.startswith("gblas.")):
        # a user's function: the globals it reads are part of its definition (the package's
        # own are covered by the source stamp)
        g = func.__globals__
        names = _global_names(func.__code__)
        parts.append(tuple((n, definition_key(g[n], seen)) for n in sorted(names) if n in g))
    return tuple(parts)


def _global_names(code: pytypes.CodeType) -> set:
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, pytypes.CodeType):
            names |= _global_names(c)
    return names


_SCALARS = (bool, int, float, complex, str, bytes, type(None), np.generic)


def definition_key(obj: Any, seen: set | None = None) -> Any:
    """A stable, picklable description of ``obj`` for the cache key, or :class:`Unkeyable`.

    Examples
    --------
    >>> definition_key(np.dtype("float32"))
    ('dtype', 'float32')
    >>> definition_key((1, 2.5))
    ('tuple', (('int', '1'), ('float', '2.5')))
    """
    seen = set() if seen is None else seen
    if isinstance(obj, _SCALARS):
        return (type(obj).__name__, repr(obj))
    if isinstance(obj, np.dtype):
        return ("dtype", obj.str if obj.fields else str(obj))
    if isinstance(obj, nbtypes.Type):
        return ("nbtype", str(obj))
    if isinstance(obj, (tuple, list)):
        return (type(obj).__name__, tuple(definition_key(o, seen) for o in obj))
    if isinstance(obj, pytypes.ModuleType):
        return ("module", obj.__name__)
    if id(obj) in seen:  # a recursive definition: named, not expanded again
        return ("recursive", getattr(obj, "__qualname__", type(obj).__name__))
    seen.add(id(obj))
    if isinstance(obj, numba.core.registry.CPUDispatcher):
        opts = tuple(sorted((k, repr(v)) for k, v in obj.targetoptions.items()))
        return ("dispatcher", opts, _function_key(obj.py_func, seen))
    if isinstance(obj, pytypes.FunctionType):
        return ("function", _function_key(obj, seen))
    if isinstance(obj, pytypes.BuiltinFunctionType) or isinstance(obj, np.ufunc):
        return ("builtin", getattr(obj, "__module__", None), obj.__name__)
    if isinstance(obj, type):
        return ("type", obj.__module__, obj.__qualname__)
    defn = getattr(obj, "_defn", None)  # a numba.extending.intrinsic
    if defn is not None and isinstance(defn, pytypes.FunctionType):
        return ("intrinsic", _function_key(defn, seen))
    raise Unkeyable(f"no stable description of a {type(obj).__name__}")


# ------------------------------------------------------------------ the Numba cache classes


class _Locator(caching._CacheLocator):
    """Every kernel's files in :func:`cache_dir`, named after its module and line."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._path = str(cache_dir())

    def ensure_cache_path(self):
        os.makedirs(self._path, exist_ok=True)

    def get_cache_path(self):
        return self._path

    def get_source_stamp(self):
        return source_stamp()

    def get_disambiguator(self):
        rel = os.path.relpath(self._py_file, _PACKAGE) if self._py_file else "?"
        return f"{hashlib.sha1(rel.encode()).hexdigest()[:8]}-{self._lineno}"

    @classmethod
    def from_function(cls, py_func, py_file):
        return cls(py_func, py_file)


class _Impl(caching.CompileResultCacheImpl):
    _locator_classes = [_Locator]


def _rebuild_env(modname, consts, env_name):
    """Numba's ``environment._rebuild_env``, without importing one of Numba's own modules
    that is not imported yet.

    A cached kernel keeps the Environment (globals and constants) of every function
    compiled into it, and Numba's unpickler imports each one's module for its globals:
    the array allocators' ``numba.np.arrayobj`` (``unicode``, ``charseq`` and
    ``hashing`` with it) took 19 ms of a new process's first label propagation on
    Kronecker 10.  Nopython code reads only ``consts`` at run time (the globals serve
    object mode, which Numba's own overloads never use), so such an Environment gets a
    dictionary holding only the module's name, which is all Numba reads back (its
    ``can_cache``, its pickle).
    """
    env = nbenv.lookup_environment(env_name)
    if env is not None:
        return env
    if modname in sys.modules or not (modname or "").startswith("numba."):
        return nbenv._rebuild_env(modname, consts, env_name)
    env = nbenv.Environment({"__name__": modname})
    env.consts[:] = consts
    env.env_name = env_name
    nbenv.Environment._memo[env_name] = env
    return env


#: Whether this Numba has what :func:`_rebuild_env` uses (else Numba's own runs).
_ENV_STUBS = nbenv is not None and all(
    hasattr(nbenv, a) for a in ("_rebuild_env", "lookup_environment", "Environment")) \
    and isinstance(getattr(nbenv.Environment, "_memo", None), MutableMapping)


class _Unpickler(pickle.Unpickler):
    """Pickle's unpickler, with :func:`_rebuild_env` for Numba's."""

    def find_class(self, module, name):
        if _ENV_STUBS and module == "numba.core.environment" and name == "_rebuild_env":
            return _rebuild_env
        return super().find_class(module, name)


class _CheckedFile(caching.IndexDataCacheFile):
    """Index and data files that carry a SHA-256 of their bytes; a file that fails to read
    or check counts as absent (and is rewritten by the next save)."""

    def _load_index(self):
        try:
            return super()._load_index()
        except Exception:
            return {}

    def _load_data(self, name):
        with open(self._data_path(name), "rb") as f:
            blob = f.read()
        digest, data = blob[:32], blob[32:]
        if hashlib.sha256(data).digest() != digest:
            raise OSError(f"checksum mismatch in {name}")
        return _Unpickler(io.BytesIO(data)).load()

    def _save_data(self, name, data):
        data = self._dump(data)
        with self._open_for_write(self._data_path(name)) as f:
            f.write(hashlib.sha256(data).digest())
            f.write(data)


class _KernelCache(caching.FunctionCache):
    """Numba's function cache with the definition key of :func:`definition_key`."""

    _impl_class = _Impl

    def __init__(self, py_func, key: str):
        self._def_key = key
        super().__init__(py_func)
        self._cache_file = _CheckedFile(cache_path=self._cache_path,
                                        filename_base=self._impl.filename_base,
                                        source_stamp=self._impl.locator.get_source_stamp())

    def _index_key(self, sig, codegen):
        return (sig, codegen.magic_tuple(), self._def_key)

    def load_overload(self, sig, target_context):
        # Numba refreshes the target context before a load: it imports and installs
        # every implementation registry (0.1-0.3 s in a new process, scipy.linalg
        # included).  Machine code loaded from disk needs only the runtime (NRT); a
        # compile after a miss refreshes the context itself.
        try:
            rtsys.initialize(target_context)
            with self._guard_against_spurious_io_errors():
                return self._load_overload(sig, target_context)
        except Exception:  # unreadable or incompatible: compile anew (and overwrite)
            return None

    def save_overload(self, sig, data):
        try:
            super().save_overload(sig, data)
        except Exception:  # a full disk or a read-only cache never fails a call
            pass


def _attach(disp) -> None:
    """Give ``disp`` the disk cache, unless caching is off or its definition has no key."""
    if cache_dir() is None:
        return
    try:
        key = definition_key(disp)
    except Unkeyable:
        return
    digest = hashlib.sha256(pickle.dumps(key, protocol=4)).hexdigest()
    disp._cache = _KernelCache(disp.py_func, digest)


class _LazyCache(caching.NullCache):
    """Placeholder until the first compile: the key is derived then, when the closure's
    cells are certainly filled."""

    def __init__(self, disp):
        self._disp = disp

    def load_overload(self, sig, target_context):
        disp = self._disp
        _attach(disp)
        cache = disp._cache
        if cache is self:
            disp._cache = caching.NullCache()
            return None
        return cache.load_overload(sig, target_context)


_MADE: weakref.WeakSet = weakref.WeakSet()


def compile_stats() -> dict[str, int]:
    """Signatures loaded from the cache (``hits``) and compiled (``misses``) so far in this
    process, over every kernel made with :func:`jit`.

    Examples
    --------
    >>> sorted(compile_stats())
    ['hits', 'misses']
    """
    hits = misses = 0
    for d in list(_MADE):
        hits += sum(d.stats.cache_hits.values())
        misses += sum(d.stats.cache_misses.values())
    return {"hits": hits, "misses": misses}


def jit(parallel: bool = False, **options):
    """``numba.njit`` with :data:`JIT_OPTS` and the on-disk kernel cache.

    Parameters
    ----------
    parallel : bool
        Compile ``prange`` loops for Numba's thread pool.
    **options
        Further ``numba.njit`` options (they override :data:`JIT_OPTS`).

    Returns
    -------
    callable
        A decorator returning a Numba dispatcher.
    """
    opts = {**JIT_OPTS, **options}
    if parallel:
        opts["parallel"] = True

    def deco(func):
        disp = numba.njit(**opts)(func)
        disp._cache = _LazyCache(disp)
        _MADE.add(disp)
        return disp

    return deco
