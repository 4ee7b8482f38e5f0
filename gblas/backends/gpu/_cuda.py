"""Shared CUDA machinery of the GPU kernels: C types, the preamble, operator snippets and
the compiled-module cache.

Every kernel is CUDA C++ source generated per (semiring, dtypes, variant) and compiled once
with :class:`cupy.RawModule`; the modules are cached here by their source text (CuPy keeps
its own on-disk cache of the compiled code as well).  The source-generating functions need
no GPU, so they can be inspected, or compiled with ``nvcc``, on any machine.

Operator expressions come from :meth:`BinaryOp.cuda_expr` / :meth:`UnaryOp.cuda_expr`:
C expressions in ``a`` and ``b`` (or ``x``) that may call ``gb_min``, ``gb_max``,
``gb_abs``, ``gb_floordiv``, ``gb_mod`` and use ``CUDART_INF`` / ``CUDART_NAN``, all
defined by :data:`PREAMBLE` with Python's semantics.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

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

PREAMBLE = r"""
#ifndef GB_PREAMBLE_DEFINED
#define GB_PREAMBLE_DEFINED
#ifndef CUDART_INF
#define CUDART_INF __longlong_as_double(0x7ff0000000000000LL)
#endif
#ifndef CUDART_NAN
#define CUDART_NAN __longlong_as_double(0x7ff8000000000000LL)
#endif

/* Python's min / max: the first argument unless the second is strictly smaller
   (larger); the result has the common type of the two. */
template <typename A, typename B>
__device__ __forceinline__ auto gb_min(A a, B b) -> decltype(a + b) {
    typedef decltype(a + b) C;
    return (b < a) ? (C)b : (C)a;
}
template <typename A, typename B>
__device__ __forceinline__ auto gb_max(A a, B b) -> decltype(a + b) {
    typedef decltype(a + b) C;
    return (b > a) ? (C)b : (C)a;
}

template <typename A>
__device__ __forceinline__ auto gb_abs(A x) -> decltype(+x) { return x < 0 ? -x : +x; }
__device__ __forceinline__ float gb_abs(float x) { return fabsf(x); }
__device__ __forceinline__ double gb_abs(double x) { return fabs(x); }

/* Python's floor division and modulo (the result takes the divisor's sign); an integer
   division by zero gives 0, as NumPy does. */
template <typename C>
__device__ __forceinline__ C gb_floordiv_(C x, C y) {
    if (y == 0) return (C)0;
    C q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) q -= 1;
    return q;
}
__device__ __forceinline__ float gb_floordiv_(float x, float y) { return floorf(x / y); }
__device__ __forceinline__ double gb_floordiv_(double x, double y) { return floor(x / y); }
template <typename A, typename B>
__device__ __forceinline__ auto gb_floordiv(A a, B b) -> decltype(a + b) {
    typedef decltype(a + b) C;
    return gb_floordiv_((C)a, (C)b);
}

template <typename C>
__device__ __forceinline__ C gb_mod_(C x, C y) {
    if (y == 0) return (C)0;
    C r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
}
__device__ __forceinline__ float gb_mod_(float x, float y) {
    float r = fmodf(x, y);
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
}
__device__ __forceinline__ double gb_mod_(double x, double y) {
    double r = fmod(x, y);
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
}
template <typename A, typename B>
__device__ __forceinline__ auto gb_mod(A a, B b) -> decltype(a + b) {
    typedef decltype(a + b) C;
    return gb_mod_((C)a, (C)b);
}

/* Warp shuffles for every value type: 1- and 2-byte types travel as int. */
template <typename T>
__device__ __forceinline__ T gb_shfl_xor(unsigned m, T v, int o) {
    return (T)__shfl_xor_sync(m, (int)v, o);
}
__device__ __forceinline__ int gb_shfl_xor(unsigned m, int v, int o) {
    return __shfl_xor_sync(m, v, o);
}
__device__ __forceinline__ unsigned gb_shfl_xor(unsigned m, unsigned v, int o) {
    return __shfl_xor_sync(m, v, o);
}
__device__ __forceinline__ long long gb_shfl_xor(unsigned m, long long v, int o) {
    return __shfl_xor_sync(m, v, o);
}
__device__ __forceinline__ unsigned long long gb_shfl_xor(unsigned m, unsigned long long v,
                                                          int o) {
    return __shfl_xor_sync(m, v, o);
}
__device__ __forceinline__ float gb_shfl_xor(unsigned m, float v, int o) {
    return __shfl_xor_sync(m, v, o);
}
__device__ __forceinline__ double gb_shfl_xor(unsigned m, double v, int o) {
    return __shfl_xor_sync(m, v, o);
}

/* Warp shuffle down for every value type (1- and 2-byte types travel as int). */
template <typename T>
__device__ __forceinline__ T gb_shfl_down(unsigned m, T v, int o) {
    if (sizeof(T) < 4) return (T)__shfl_down_sync(m, (int)v, o);
    return (T)__shfl_down_sync(m, v, o);
}

/* Reinterpret the bits of one type as another of the same size. */
template <typename To, typename From>
__device__ __forceinline__ To gb_bitcast(From f) {
    union { From f; To t; } u;
    u.f = f;
    return u.t;
}
#endif
"""


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
    """
    dt = np.dtype(dt)
    v = np.asarray(value).astype(dt)[()]
    ct = ctype(dt)
    if dt.kind == "b":
        return "true" if bool(v) else "false"
    if dt.kind == "f":
        f = float(v)
        if math.isnan(f):
            body = "CUDART_NAN"
        elif math.isinf(f):
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
    """``types`` (``(T, M, R)``) as numpy dtypes, remembered: every call of a kernel asks,
    and converting them each time cost 1 us of host time on a desktop CPU (0.08 us now).

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


# ------------------------------------------------------------------------- module cache

_MODULES: dict[str, Any] = {}
_FUNCTIONS: dict[tuple[str, str], Any] = {}
_DUMMIES: dict[np.dtype, Any] = {}


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


def dummy(dtype: Any = np.bool_) -> Any:
    """A one-element device array standing for an absent optional array argument."""
    import cupy

    key = np.dtype(dtype)
    arr = _DUMMIES.get(key)
    if arr is None:
        arr = cupy.zeros(1, dtype=key)
        _DUMMIES[key] = arr
    return arr


def blocks(n_threads: int, block: int = 256) -> int:
    """Number of blocks of ``block`` threads covering ``n_threads`` (at least 1)."""
    return max(1, (int(n_threads) + block - 1) // block)


_ATTRS: dict = {}


def _attribute(name: str, default: int) -> int:
    """A device attribute of the current device, asked once per device and name (CuPy's
    ``Device.attributes`` reads every attribute, tens of microseconds per call)."""
    import cupy

    dev = cupy.cuda.Device()
    v = _ATTRS.get((dev.id, name))
    if v is None:
        v = _ATTRS[(dev.id, name)] = int(dev.attributes.get(name, default))
    return v


def sm_count() -> int:
    """Number of multiprocessors of the current device."""
    return _attribute("MultiProcessorCount", 1)


def max_block_smem() -> int:
    """Shared memory one thread block may use on the current device (opt-in maximum)."""
    return _attribute("MaxSharedMemoryPerBlockOptin", 0) or \
        _attribute("MaxSharedMemoryPerBlock", 48 << 10)


def sm_regs() -> int:
    """32-bit registers of one multiprocessor (shared by its resident blocks)."""
    return _attribute("MaxRegistersPerMultiprocessor", 65536)


def l2_bytes() -> int:
    """L2 cache bytes of the current device."""
    return _attribute("L2CacheSize", 50 << 20)


_DYN_SMEM: dict = {}


def allow_dynamic_smem(fn: Any, nbytes: int) -> None:
    """Let kernel ``fn`` launch with ``nbytes`` of dynamic shared memory (above 48 KiB a
    kernel must opt in).  What was granted is remembered per kernel (the kernels live as
    long as their cached modules), so later calls cost a dictionary lookup."""
    if nbytes <= 48 << 10 or _DYN_SMEM.get(id(fn), 0) >= nbytes:
        return
    import cupy

    if hasattr(fn, "max_dynamic_shared_size_bytes"):
        fn.max_dynamic_shared_size_bytes = nbytes
    else:
        drv = cupy.cuda.driver
        drv.funcSetAttribute(fn.ptr, drv.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             nbytes)
    _DYN_SMEM[id(fn)] = nbytes
