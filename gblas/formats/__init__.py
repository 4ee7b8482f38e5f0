"""Storage formats behind the Format protocol (CSR is the hub)."""

from .base import FORMATS, Format, get_format_class, register_format
from .csr import CSR

__all__ = ["CSR", "FORMATS", "Format", "get_format_class", "register_format"]
from . import gpu_heavy_light, gpu_segmented, gpu_shards  # noqa: E402,F401  (GPU cache-aware formats)
