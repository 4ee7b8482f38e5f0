"""Storage formats behind the Format contract (CSR is the hub); importing the package
registers every format (their kernels load on first use)."""

from . import (  # noqa: E402,F401,I001  (registers each format)
    gpu_heavy_light,
    gpu_relabelled,
    gpu_segmented,
    gpu_shards,
    heavy_light,
    hypersparse,
    segmented,
    shards,
)
from .base import (FORMATS, Format, FormatBase, OperandLayout, get_format_class, pull_formats,
                   register_format)
from .csr import CSR

__all__ = ["CSR", "FORMATS", "Format", "FormatBase", "OperandLayout", "get_format_class",
           "pull_formats", "register_format"]
