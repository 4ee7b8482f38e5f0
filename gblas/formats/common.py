"""Helpers shared by the CPU formats' builds: the machine, the build kernels, sizes.

The Numba kernels are imported on a format's first build only, so ``import gblas``
compiles nothing.

Examples
--------
>>> pow2_floor(1000), pow2_floor(1024)
(512, 1024)
"""

from __future__ import annotations

from types import ModuleType

from .. import hardware
from .csr import CSR

__all__ = ["build_kernels", "grouped_kernels", "machine", "on_cpu", "pow2_floor"]


def pow2_floor(n: int) -> int:
    """The largest power of two ``<= n`` (1 for ``n < 2``)."""
    return 1 << max(0, int(n).bit_length() - 1)


def machine() -> hardware.Hardware:
    """The machine's caches and threads (:func:`gblas.hardware.detect`)."""
    return hardware.detect()


def grouped_kernels() -> ModuleType:
    """The kernels of the grouped-rows formats (``backends/cpu/segmented.py``)."""
    from ..backends.cpu import segmented

    return segmented


def build_kernels() -> ModuleType:
    """The parallel build passes (``backends/cpu/build.py``)."""
    from ..backends.cpu import build

    return build


def on_cpu(csr: CSR) -> CSR:
    """``csr`` on the CPU (the CPU formats are built there)."""
    return csr.to_device("cpu") if csr.device != "cpu" else csr
