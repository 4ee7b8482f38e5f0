"""CUDA sources of the GPU kernels: the kernel files, their specialization, the compiled
modules.

The kernels are CUDA C++ files in ``cuda/`` (package data): ``*.cu`` holds the kernels
of one family, ``*.cuh`` the device functions several share (operators with Python's
semantics, value-type helpers, monoid folds, atomic folds, mask tests).  A kernel's
source is specialized per (semiring, dtypes, variant) by :func:`source`, the one place
where generated text meets the files: ``typedef`` lines for the value and index types,
the semiring's ``gb_mul`` / ``gb_add``, the monoid's early exit and ``#define`` lines,
then the kernel file, every ``#include "..."`` of a ``cuda/`` file replaced by its text
(once per source), so the text given to CuPy (NVRTC) is self-contained.  Sources
compile once into a :class:`cupy.RawModule`, cached here by their text (CuPy also
caches the compiled code on disk).  Generating a source needs no GPU (nor CuPy).

Operator expressions come from :meth:`BinaryOp.cuda_expr` / :meth:`UnaryOp.cuda_expr`:
C expressions in ``a`` and ``b`` (or ``x``) that may call ``gb_min``, ``gb_max``,
``gb_abs``, ``gb_floordiv``, ``gb_mod`` and use ``CUDART_INF`` / ``CUDART_NAN``, all
defined by ``cuda/gb_ops.cuh`` with Python's semantics.
"""

from __future__ import annotations

import functools
import math
import re
from importlib import resources
from typing import Any

import numpy as np

from ...exceptions import InvalidValue

__all__ = ["CTYPES", "c_literal", "ctype", "cuda_file", "defines", "dtypes", "expand",
           "get_function", "index_ctype", "preamble", "semiring_snippet", "source",
           "terminal_snippet", "typedefs"]

#: C type of every supported dtype (bool is one byte, as in NumPy and CuPy).
CTYPES: dict[np.dtype, str] = {
    np.dtype("bool"): "bool",
    np.dtype("int8"): "signed char",
    np.dtype("uint8"): "unsigned char",
    np.dtype("int16"): "short",
    np.dtype("uint16"): "unsigned short",
    np.dtype("int32"): "int",
    np.dtype("uint32"): "unsigned int",
    np.dtype("int64"): "long long",
    np.dtype("uint64"): "unsigned long long",
    np.dtype("float32"): "float",
    np.dtype("float64"): "double",
}

def ctype(dt: Any) -> str:
    """The C type of a NumPy dtype.

    Examples
    --------
    >>> ctype(np.dtype("uint16"))
    'unsigned short'
    """
    try:
        return CTYPES[np.dtype(dt)]
    except KeyError:
        raise TypeError(f"GPU kernels: dtype {np.dtype(dt).name} is not supported") from None


def c_literal(value: Any, dt: Any) -> str:
    """A C expression of type ``ctype(dt)`` holding ``value`` exactly.

    Examples
    --------
    >>> c_literal(np.int64(np.iinfo(np.int64).min), np.int64)
    '((long long)(-9223372036854775807LL - 1))'
    >>> c_literal(float("inf"), np.float32)
    '((float)(CUDART_INF))'
    >>> c_literal(-np.float64("nan"), np.float64)
    '(__longlong_as_double((long long)0xfff8000000000000ULL))'
    """
    dt = np.dtype(dt)
    v = np.asarray(value).astype(dt)[()]
    ct = ctype(dt)
    if dt.kind == "b":
        return "true" if bool(v) else "false"
    if dt.kind == "f":
        f = float(v)
        if math.isnan(f):   # its exact bits: the sign matters to the float atomics
            return (f"(__int_as_float((int)0x{v.view(np.uint32):08x}U))" if dt.itemsize == 4 else
                    f"(__longlong_as_double((long long)0x{v.view(np.uint64):016x}ULL))")
        if math.isinf(f):
            body = "CUDART_INF" if f > 0 else "(-CUDART_INF)"
        else:
            body = repr(f)
        return f"(({ct})({body}))"
    i = int(v)
    if dt.kind == "u":
        return f"(({ct}){i}ULL)"
    if i == -(2**63):
        return f"(({ct})(-9223372036854775807LL - 1))"
    return f"(({ct})({i}LL))"


def index_ctype(arr: Any) -> str:
    """C type of an index array (int32 / int64, signed or unsigned)."""
    return ctype(arr.dtype)


#: ``(T, M, R)`` as given -> as numpy dtypes (a few entries: one per kind of call).
_DTYPES: dict = {}


def dtypes(types: Any) -> tuple:
    """``types`` (``(T, M, R)``) as numpy dtypes, remembered (every kernel call asks).

    Examples
    --------
    >>> dtypes(("float32", "float32", "bool"))[2]
    dtype('bool')
    """
    if type(types) is not tuple:
        types = tuple(types)
    got = _DTYPES.get(types)
    if got is None:
        got = tuple(map(np.dtype, types))
        if len(_DTYPES) > 256:
            _DTYPES.clear()
        _DTYPES[types] = got
    return got


def semiring_snippet(semiring: Any, types: tuple[Any, Any, Any]) -> str:
    """Typedefs ``T_t``, ``M_t``, ``R_t`` and the device functions ``gb_mul(T, T) -> M``
    and ``gb_add(R, R) -> R`` of a semiring for the dtypes ``types = (T, M, R)``."""
    t, m, r = (np.dtype(d) for d in types)
    mul = semiring.multiply.cuda_expr()
    add = semiring.add.op.cuda_expr()
    return (
        f"typedef {ctype(t)} T_t;\ntypedef {ctype(m)} M_t;\ntypedef {ctype(r)} R_t;\n"
        "__device__ __forceinline__ M_t gb_mul(T_t a, T_t b) {\n"
        f"    return (M_t)({mul});\n}}\n"
        "__device__ __forceinline__ R_t gb_add(R_t a, R_t b) {\n"
        f"    return (R_t)({add});\n}}\n"
    )


def terminal_snippet(monoid: Any, r: Any) -> str:
    """``#define``s of the monoid's early exit: ``GB_TERM_KIND`` 0 (none), 1 (a terminal
    value ``GB_TERM``) or 2 (ANY: stop at the first value)."""
    if monoid.any_value:
        return "#define GB_TERM_KIND 2\n#define GB_TERM ((R_t)0)\n"
    term = monoid.terminal_for(np.dtype(r))
    if term is None:
        return "#define GB_TERM_KIND 0\n#define GB_TERM ((R_t)0)\n"
    return f"#define GB_TERM_KIND 1\n#define GB_TERM {c_literal(term, r)}\n"


def defines(**flags: Any) -> str:
    """``#define NAME value`` lines (booleans become 0 / 1)."""
    out = []
    for k, v in flags.items():
        out.append(f"#define {k} {int(v) if isinstance(v, bool) else v}")
    return "\n".join(out) + "\n"


def typedefs(**names: Any) -> str:
    """``typedef <ctype> name;`` lines from dtypes."""
    return "".join(f"typedef {ctype(dt)} {name};\n" for name, dt in names.items())


# ------------------------------------------------------------------------ kernel files

_INCLUDE = re.compile(r'^[ \t]*#include[ \t]+"([^"]+)"[ \t]*$', re.M)


@functools.cache
def cuda_file(name: str) -> str:
    """The text of the kernel file ``name`` of ``cuda/`` (read once).

    Examples
    --------
    >>> "gb_fold(" in cuda_file("gb_fold.cuh")
    True
    """
    try:
        return (resources.files(__package__) / "cuda" / name).read_text()
    except (FileNotFoundError, IsADirectoryError):
        raise InvalidValue(f"GPU kernels: no kernel file {name!r} in gblas/backends/gpu/cuda; "
                           "reinstall gblas (the .cu/.cuh files are package data)") from None


def _expand(text: str, seen: set) -> str:
    def one(m: re.Match) -> str:
        name = m.group(1)
        if name in seen:
            return ""
        seen.add(name)
        return _expand(cuda_file(name), seen)

    return _INCLUDE.sub(one, text)


@functools.lru_cache(maxsize=1024)
def expand(text: str) -> str:
    """``text`` with every ``#include "name"`` replaced by the kernel file ``name``
    (recursively, each file once: a later include of it is dropped).

    Examples
    --------
    >>> src = expand('#include "gb_preamble.cuh"\n#include "gb_ops.cuh"\n')
    >>> src.count("#define GB_OPS_CUH"), "#include" in src
    (1, False)
    """
    return _expand(text, set())


@functools.cache
def preamble() -> str:
    """The operator and value-type helpers (``cuda/gb_preamble.cuh``) as one text, for
    the preamble of an element-wise kernel."""
    return expand('#include "gb_preamble.cuh"\n')


def source(body: str, *, semiring: Any = None, types: tuple | None = None,
           names: dict | None = None, terminal: bool = False, flags: dict | None = None,
           extra: str = "") -> str:
    """The self-contained CUDA source of kernel file ``body`` for one specialization.

    Parameters
    ----------
    body : str
        A ``.cu`` file of ``cuda/``.
    semiring : Semiring, optional
        Adds the preamble and :func:`semiring_snippet` (``T_t``, ``M_t``, ``R_t``,
        ``gb_mul``, ``gb_add``) for ``types``.
    types : tuple of numpy.dtype, optional
        ``(T, M, R)`` of :meth:`Semiring.types`.
    names : dict, optional
        ``typedef`` lines: type name -> dtype (:func:`typedefs`).
    terminal : bool
        Adds :func:`terminal_snippet` of the semiring's monoid for ``R``.
    flags : dict, optional
        ``#define`` lines (:func:`defines`).
    extra : str
        Text placed before the kernel file (a generated ``gb_scatter``).

    Returns
    -------
    str

    Examples
    --------
    >>> src = source("bfs.cu", names={"P": np.int64, "I": np.int32})
    >>> src.startswith("typedef long long P;"), "gb_bfs_pull" in src
    (True, True)
    """
    # a product's launch asks for its source on every call: the text is built once per
    # specialization (the same str object each time, so its hash is computed once)
    key = (body, id(semiring), None if types is None else tuple(types),
           None if names is None else tuple(names.items()), terminal,
           None if flags is None else tuple(flags.items()), extra)
    hit = _SOURCES.get(key)
    if hit is not None and hit[0] is semiring:
        return hit[1]
    text = _build_source(body, semiring, types, names, terminal, flags, extra)
    _SOURCES[key] = (semiring, text)
    return text


#: (body, semiring id, types, names, terminal, flags, extra) -> (semiring, source)
_SOURCES: dict = {}


def _build_source(body, semiring, types, names, terminal, flags, extra) -> str:
    parts = []
    if semiring is not None:
        parts.append('#include "gb_preamble.cuh"\n')
        parts.append(semiring_snippet(semiring, types))
    if names:
        parts.append(typedefs(**names))
    if terminal:
        parts.append(terminal_snippet(semiring.add, types[2]))
    if flags:
        parts.append(defines(**flags))
    parts.append(extra)
    parts.append(f'#include "{body}"\n')
    return expand("".join(parts))


# ----------------------------------------------------------------------- compiled modules

_MODULES: dict[str, Any] = {}
_FUNCTIONS: dict[tuple[str, str], Any] = {}


def get_function(source: str, name: str) -> Any:
    """The kernel ``name`` of ``source``, compiling and caching the module on first use."""
    fn = _FUNCTIONS.get((source, name))
    if fn is not None:
        return fn
    mod = _MODULES.get(source)
    if mod is None:
        import cupy

        mod = cupy.RawModule(code=source)
        _MODULES[source] = mod
    fn = _FUNCTIONS[(source, name)] = mod.get_function(name)
    return fn
