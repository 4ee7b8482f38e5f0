"""GraphBLAS-style exceptions.

Every error raised for bad input names the call, the argument, what was expected, what
came, and how to fix it.  Use :func:`bad_arg` to build such a message so that all calls
phrase their errors the same way.
"""

from __future__ import annotations


class GraphBLASError(Exception):
    """Base class of every error gblas raises on purpose."""


class DimensionMismatch(GraphBLASError, ValueError):
    """Shapes of the operands (or mask, or output) do not agree."""


class DomainMismatch(GraphBLASError, TypeError):
    """A dtype is not accepted by the operator or call."""


class IndexOutOfBound(GraphBLASError, IndexError):
    """An index is outside the object's shape."""


class InvalidValue(GraphBLASError, ValueError):
    """A value is not allowed (NaN weights, negative source, unknown name...)."""


class BadWeight(InvalidValue):
    """A label-setting search met a negative or NaN weight (it needs weights ``>= 0``):
    raised by a kernel asked to check the weights it reads, so that its caller can take
    a route that handles them."""


class InvalidObject(GraphBLASError, TypeError):
    """An argument is not of a type the call accepts."""


class OutOfMemory(GraphBLASError, MemoryError):
    """A format or result would not fit in the memory available.

    ``nbytes`` (the bytes asked, when known), ``device`` ("cpu" or "gpu") and ``call``
    are kept as attributes; :func:`~gblas.exceptions.out_of_memory` builds the message.
    ``retry`` marks an error after which the same call can succeed with another plan (a
    derived format's build ran out: the planner keeps CSR from then on).
    """

    def __init__(self, message: str = "", *, nbytes: int | None = None,
                 device: str | None = None, call: str | None = None,
                 retry: bool = False) -> None:
        super().__init__(message)
        self.nbytes = nbytes
        self.device = device
        self.call = call
        self.retry = retry


class NoKernel(GraphBLASError, NotImplementedError):
    """No kernel is registered for this (operation, format, device)."""


class CompileError(NoKernel):
    """A user operator's function cannot be compiled for the CPU (Numba) for a dtype.

    Raised at the operator's first use with that dtype; the message names the call, the
    operator and Numba's reason.  When the function raises on every path, the error is
    chained from the exception the function raised.
    """


class NoGPU(GraphBLASError, RuntimeError):
    """The GPU was asked for but CuPy or a CUDA device is not available."""


def bad_arg(
    exc: type[GraphBLASError],
    call: str,
    arg: str,
    expected: str,
    got: str,
    fix: str | None = None,
) -> GraphBLASError:
    """Build an exception whose message follows the project's pattern.

    Examples
    --------
    >>> err = bad_arg(DimensionMismatch, "mxv", "x", "a Vector of size 3", "size 4")
    >>> str(err)
    'mxv: argument `x` expected a Vector of size 3, got size 4.'
    """
    msg = f"{call}: argument `{arg}` expected {expected}, got {got}."
    if fix:
        msg += f" {fix}"
    return exc(msg)


# ------------------------------------------------------------------ out of memory
_FIX = {
    "cpu": "Free memory (drop objects no longer needed; A.clear_cache() drops a Matrix's "
           "derived formats; gb.config(memory_budget=...) keeps formats within a budget), "
           "or work on a smaller problem (extract the rows or entries you need first).",
    "gpu": "Free device memory (A.clear_cache(), del GPU objects no longer needed, "
           "cupy.get_default_memory_pool().free_all_blocks()), or run on the host: "
           "A.to('cpu').",
}


def _human(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} PiB"  # pragma: no cover


def requested_bytes(exc: BaseException | None) -> int | None:
    """The bytes a failed allocation asked for, when the error tells (NumPy's
    ``_ArrayMemoryError``, CuPy's ``OutOfMemoryError``, an :class:`OutOfMemory`).

    Examples
    --------
    >>> import numpy as np
    >>> try:
    ...     np.empty(2**55)
    ... except MemoryError as e:
    ...     requested_bytes(e) == 8 * 2**55
    True
    """
    if exc is None:
        return None
    n = getattr(exc, "nbytes", None)
    if n is None:
        n = getattr(exc, "_total_size", None)  # NumPy
    if n is None:
        import re

        m = re.search(r"allocating ([\d,]+) bytes", str(exc))  # CuPy
        n = int(m.group(1).replace(",", "")) if m else None
    return None if n is None else int(n)


def out_of_memory(call: str, cause: BaseException | None = None, *,
                  nbytes: int | None = None, device: str = "cpu", what: str = "arrays",
                  fix: str | None = None) -> OutOfMemory:
    """The :class:`OutOfMemory` of ``call``: the bytes asked, where, and how to fix it.

    ``cause``: the MemoryError of the failed allocation (NumPy's, CuPy's; an
    :class:`OutOfMemory` of an inner step gets the outer call's name in front).

    Examples
    --------
    >>> err = out_of_memory("mxv", nbytes=3 * 2**40, what="a dense vector")
    >>> str(err).split(".")[0]
    'mxv: not enough host memory for a dense vector (3,298,534,883,328 bytes = 3'
    >>> err.nbytes, err.device
    (3298534883328, 'cpu')
    """
    if isinstance(cause, OutOfMemory):
        if cause.call == call or str(cause).startswith(f"{call}:"):
            return cause
        return OutOfMemory(f"{call}: {cause}", nbytes=cause.nbytes, device=cause.device,
                           call=call, retry=cause.retry)
    if cause is not None and type(cause).__module__.startswith("cupy"):
        device = "gpu"
    if nbytes is None:
        nbytes = requested_bytes(cause)
    if nbytes is None:
        asked = " (size not reported)"
    else:
        asked = f" ({nbytes:,} bytes" + (f" = {_human(nbytes)})" if nbytes >= 1024 else ")")
    where = "GPU" if device == "gpu" else "host"
    msg = f"{call}: not enough {where} memory for {what}{asked}."
    if cause is not None and not isinstance(cause, GraphBLASError):
        msg += f" ({type(cause).__name__}: {str(cause).splitlines()[0] if str(cause) else ''})"
    msg += " " + (fix or _FIX.get(device, _FIX["cpu"]))
    return OutOfMemory(msg, nbytes=nbytes, device=device, call=call)


#: Allocations below this size are not checked against the memory left (the check
#: reads /proc/meminfo).
CHECK_ABOVE = 1 << 30


def host_available_bytes() -> int | None:
    """Memory the host can still give: ``MemAvailable`` plus free swap (Linux), or None
    where it cannot be read."""
    try:
        got = {}
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                key, _, rest = line.partition(b":")
                if key in (b"MemAvailable", b"SwapFree"):
                    got[key] = int(rest.split()[0]) * 1024
        return sum(got.values()) if b"MemAvailable" in got else None
    except (OSError, ValueError, IndexError):
        return None


def check_alloc(call: str, nbytes: int, what: str = "arrays", device: str = "cpu",
                fix: str | None = None) -> None:
    """Raise :class:`OutOfMemory` before allocating ``nbytes`` that the host cannot give
    (more than NumPy can address, or than available memory and swap); small sizes and
    the GPU (whose allocator reports a failure itself) pass unchecked.

    Examples
    --------
    >>> check_alloc("Vector.full", 8 * 2**20)
    >>> try:
    ...     check_alloc("Vector.full", 8 * 2**60, "the values")
    ... except OutOfMemory as e:
    ...     print(str(e)[:60])
    Vector.full: not enough host memory for the values (9,223,37
    """
    nbytes = int(nbytes)
    if nbytes < CHECK_ABOVE or device != "cpu":
        return
    avail = host_available_bytes() if nbytes < 2**62 else 0
    if avail is not None and nbytes > avail:
        raise out_of_memory(call, nbytes=nbytes, device=device, what=what, fix=fix)
