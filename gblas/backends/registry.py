"""Kernel registry: (operation, format, device, variant) -> kernel.

Backend modules register their kernels when imported; the registry imports a device's
backend package lazily, the first time a kernel of that device is asked for (so
``import gblas`` imports neither Numba kernels nor CuPy).

Kernel contracts (all arrays live on the kernel's device; kernels import nothing from
``gblas.core``):

``("mxv", "csr", dev, "pull")``
    ``f(A: CSR, x: VecData, allow, semiring, types) -> VecData`` — ``y[i] = add_k
    mul(A[i,k], x[k])``.  ``x`` is dense (``indices is None``); ``allow`` is a bool array
    of length nrows or None (rows where it is False are skipped: no entry).  ``types`` is
    ``(T, M, R)`` from :meth:`gblas.Semiring.types`; A's and x's values are cast to T inside.
    Returns a dense VecData of dtype R; rows with no product have ``present`` False.
    A pull kernel registered with ``epilogues=("pagerank_step",)`` also takes
    ``then=PageRankStep(...)``: it runs that step on ``y`` (a float64 ``plus`` product
    of a dense ``x``, no mask) instead of returning it, and returns None.
``("mxv", "csr", dev, "push")``
    ``f(AT: CSR, x: VecData, allow, semiring, types, nrows) -> VecData`` — same result,
    with ``AT`` the CSR of the transpose (row k lists the i with A[i,k]) and ``x`` sparse
    (sorted ``indices``).  May return dense or sparse (sorted indices).
``("mxm", "csr", dev, "saxpy")``
    ``f(A: CSR, B: CSR, mask: MatMask | None, semiring, types) -> CSRData`` (Gustavson).
``("mxm", "csr", dev, "dot")``
    ``f(A: CSR, BT: CSR, mask: MatMask, semiring, types) -> CSRData`` — one dot product per
    allowed entry of a non-complemented mask; BT is the CSR of B's transpose.
``("map_unary", "array", dev, "")``
    ``f(op: UnaryOp, values, dtype) -> array`` of ``op.output_dtype(dtype)``.
``("map_binary", "array", dev, "")``
    ``f(op: BinaryOp, a, b, dtype) -> array``: a and b arrays (or one a scalar) cast to
    dtype, result of ``op.output_dtype(dtype)``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, NamedTuple

from ..exceptions import NoKernel


class VecData(NamedTuple):
    """Raw vector data passed to and returned from kernels.

    Dense when ``indices is None``: ``values`` has length ``size`` and ``present`` (bool,
    or None meaning all present) marks the entries.  Sparse otherwise: sorted unique
    ``indices`` with their ``values``.
    """

    size: int
    indices: Any
    values: Any
    present: Any = None

    @property
    def is_dense(self) -> bool:
        return self.indices is None


class PageRankStep(NamedTuple):
    """PageRank's vector step, for a product kernel to run on ``y = A' s`` in place of
    writing ``y`` (the arguments of ``("pagerank_step", "array", device)``, ``y`` aside):
    ``r_new = y + (alpha m + 1 - alpha) p``, ``s_new[s_pos[i]] = r_new[i] w[i]`` where
    ``s_pos[i] >= 0``, and ``state_out = [|r_new - r|_1, sum(r_new where w == 0)]``, ``m``
    read from ``state_in[1]`` on the device.  ``p`` None: every entry ``p_uniform``."""

    p: Any
    p_uniform: float
    r: Any
    w: Any
    alpha: float
    state_in: Any
    r_new: Any
    s_new: Any
    state_out: Any
    s_pos: Any


class CSRData(NamedTuple):
    """A kernel's sparse-matrix result: CSR arrays, columns sorted within rows
    (:meth:`gblas.formats.csr.CSR.from_data` makes it a CSR)."""

    shape: tuple
    indptr: Any
    indices: Any
    values: Any
    dtype: Any


class MatMask(NamedTuple):
    """A matrix mask as CSR arrays (indices sorted within rows): an entry is allowed iff
    (structurally present [and its value truthy unless ``structural``]) xor ``complement``."""

    indptr: Any
    indices: Any
    values: Any  # None: structural (or iso True)
    structural: bool
    complement: bool


class KernelKey(NamedTuple):
    """The registry key of a kernel; ``str(key)`` is ``"op/format/device[/variant]"``.

    Examples
    --------
    >>> str(KernelKey("mxv", "csr", "cpu", "pull"))
    'mxv/csr/cpu/pull'
    """

    op: str
    format: str
    device: str
    variant: str = ""

    def __str__(self) -> str:
        return "/".join(p for p in self if p)


_KERNELS: dict[tuple[str, str, str, str], Callable] = {}
_BACKEND_PACKAGES = {"cpu": "gblas.backends.cpu", "gpu": "gblas.backends.gpu"}
_loaded: set[str] = set()


def register(op: str, fmt: str, device: str, variant: str = "", *,
             epilogues: tuple[str, ...] = ()):
    """Decorator registering a kernel under ``(op, fmt, device, variant)``; ``epilogues``
    names the steps it can run on its result instead of returning it (``"pagerank_step"``:
    its ``then=`` takes a :class:`PageRankStep`)."""

    def deco(f: Callable) -> Callable:
        _KERNELS[(op, fmt, device, variant)] = f
        if epilogues:
            f.epilogues = tuple(epilogues)
        return f

    return deco


def epilogues(kernel: Callable) -> tuple[str, ...]:
    """The steps ``kernel`` can run on its result (see :func:`register`).

    Examples
    --------
    >>> epilogues(lambda: None)
    ()
    """
    return getattr(kernel, "epilogues", ())


def _load(device: str) -> None:
    if device not in _loaded and device in _BACKEND_PACKAGES:
        importlib.import_module(_BACKEND_PACKAGES[device])
        _loaded.add(device)


def get_kernel(op: str, fmt: str, device: str, variant: str = "") -> Callable:
    """The kernel for ``(op, fmt, device, variant)``, importing its backend on demand."""
    _load(device)
    try:
        return _KERNELS[(op, fmt, device, variant)]
    except KeyError:
        have = sorted(k for k in _KERNELS if k[0] == op)
        raise NoKernel(
            f"{op}: no kernel for format={fmt!r}, device={device!r}, variant={variant!r}. "
            f"Registered for {op}: {have or 'none'}. Pin another format or device with "
            "gb.config(...)."
        ) from None


def has_kernel(op: str, fmt: str, device: str, variant: str = "") -> bool:
    """Whether a kernel is registered for ``(op, fmt, device, variant)``."""
    _load(device)
    return (op, fmt, device, variant) in _KERNELS


def registered() -> list[tuple[str, str, str, str]]:
    for d in _BACKEND_PACKAGES:
        try:
            _load(d)
        except Exception:  # a GPU backend without CuPy: list what loads
            pass
    return sorted(_KERNELS)
