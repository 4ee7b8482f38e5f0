"""Software prefetch for the Numba kernels: ``prefetch(arr, i)`` asks the CPU to bring
the cache line of ``arr[i]`` in, without waiting for it.

A push SpMSpV reads and writes ``y[indices[p]]`` at random positions: on a vector larger
than the caches every product waits for memory, and the out-of-order core overlaps only a
few of these waits.  Asking for the line of the product :data:`DISTANCE` entries ahead
(its index is already known: the adjacency list is read in order) keeps more requests in
flight (the measured distances: ``benchmarks/results/history.md``).

The call compiles to LLVM's ``llvm.prefetch`` intrinsic (a hint: it never faults and has
no effect on results).  Where the installed llvmlite cannot emit it, :func:`prefetcher`
gives a no-op instead.
"""

from __future__ import annotations

import os

import llvmlite.binding as llvm_binding
import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .jitcache import jit

__all__ = ["DISTANCE", "available", "prefetcher"]

_LLVM = tuple(llvm_binding.llvm_version_info)

#: How many entries ahead of the current one the scatter kernels prefetch.
DISTANCE = 16


@intrinsic
def _prefetch(typingctx, arr, idx):
    """``llvm.prefetch(&arr[idx], rw=1, locality=3, cache=data)``."""
    if not isinstance(arr, types.Array) or not isinstance(idx, types.Integer):
        return None
    sig = types.void(arr, idx)

    def codegen(context, builder, signature, args):
        from llvmlite import ir

        ary = context.make_array(signature.args[0])(context, builder, args[0])
        i8p = ir.IntType(8).as_pointer()
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), i8p)
        i32 = ir.IntType(32)
        # the intrinsic's name carries the pointer type: "ptr" since LLVM 15
        name = "llvm.prefetch.p0" if _LLVM >= (15,) else "llvm.prefetch.p0i8"
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]), name)
        builder.call(fn, [ptr, ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(inline="always")
def _noop(arr, idx):
    pass


_CHOSEN: list = []


def prefetcher():
    """The ``prefetch(arr, i)`` to call inside a Numba kernel (``i`` any integer, in
    bounds): the intrinsic, or a no-op where it does not compile.  The check compiles a
    probe once per machine (its verdict is kept in the kernel cache, keyed by the Numba
    and LLVM versions), when the first module that uses it is imported, so ``import gblas``
    compiles nothing and a new process reads one small file."""
    if not _CHOSEN:
        ok = _stored_verdict()
        if ok is None:
            ok = _probe()
            _store_verdict(ok)
        _CHOSEN.append(_prefetch if ok else _noop)
    return _CHOSEN[0]


def _verdict_file():
    """The file that keeps the probe's verdict (None when the kernel cache is off)."""
    import numba

    from .jitcache import cache_dir

    folder = cache_dir()
    if folder is None:
        return None
    llvm = ".".join(str(v) for v in _LLVM)
    return folder / f"prefetch-numba{numba.__version__}-llvm{llvm}.txt"


def _stored_verdict() -> bool | None:
    path = _verdict_file()
    try:
        data = path.read_bytes() if path is not None else b""
    except OSError:
        return None
    return {b"1": True, b"0": False}.get(data)  # anything else: probe again


def _store_verdict(ok: bool) -> None:
    path = _verdict_file()
    if path is None:
        return
    try:
        tmp = path.with_name(f"{path.name}.{os.getpid()}")
        tmp.write_bytes(b"1" if ok else b"0")
        os.replace(tmp, path)
    except OSError:  # a read-only cache probes again next time
        pass


def _probe() -> bool:
    """Whether a kernel calling the intrinsic compiles and runs."""

    @jit()
    def probe(a):
        for i in range(a.size):
            _prefetch(a, i)
        return a.sum()

    try:
        return bool(probe(np.ones(4)) == 4.0)
    except Exception:  # noqa: BLE001 - any failure to compile means: no prefetch
        return False


def available() -> bool:
    """Whether :func:`prefetcher` gives the real intrinsic."""
    return prefetcher() is _prefetch
