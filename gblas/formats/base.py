"""The format contract and the format registry.

A format is a storage layout of a matrix built from (and convertible back to) CSR.  The
Matrix keeps its canonical CSR and a cache of the derived formats the planner asked for.
A format is a class that fills the :class:`Format` protocol, inherits the declarations
of :class:`FormatBase` it does not override, and is registered with
:func:`register_format`; the planner then weighs it by its declarations (devices, pull
rank, build cost, cost model) without naming it, and the shared format-contract tests run
on it.

Examples
--------
>>> from gblas.formats import FORMATS, pull_formats
>>> pull_formats("cpu")
('csr', 'shards', 'segmented', 'heavy_light')
>>> FORMATS["segmented"].devices
('cpu',)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

FORMATS: dict[str, type] = {}


@runtime_checkable
class Format(Protocol):
    name: ClassVar[str]
    shape: tuple[int, int]
    device: str

    @classmethod
    def from_csr(cls, csr, **params) -> Format: ...

    def to_csr(self): ...

    @property
    def nbytes(self) -> int: ...

    def check_invariants(self) -> None: ...

    def to_device(self, device: str) -> Format: ...


@dataclass(frozen=True, eq=False)
class OperandLayout:
    """The order in which a format's pull kernels read ``x`` (a format that relabels its
    columns gathers ``x`` into that order on every call; an iterative caller that writes
    its next ``x`` straight into that order saves the gather).

    ``positions[j]``: where column ``j``'s value goes (-1: no entry reads it; an int32
    array on the format's device); ``size``: the length of ``x`` in that order (the
    places no column takes must hold zeros).
    """

    positions: Any
    size: int


class FormatBase:
    """The declarations the planner reads from a format class, with their defaults."""

    name: ClassVar[str]
    #: Devices the format is built on (its kernels are looked up per device).
    devices: ClassVar[tuple[str, ...]] = ("cpu",)
    #: Rank among the pull-SpMV candidates, lower first on ties; None: not a candidate.
    pull_rank: ClassVar[int | None] = None
    #: Build cost on the CPU: ns per entry and thread, plus a fixed overhead in seconds.
    build_ns_entry: ClassVar[float] = 0.0
    build_overhead_s: ClassVar[float] = 0.0

    @classmethod
    def build_params(cls, hw: Any) -> dict:
        """The default build parameters on the machine ``hw`` (segment size, tiles...)."""
        return {}

    @classmethod
    def pull_estimate(cls, ctx: Any) -> Any:
        """The :class:`~gblas.formats.costing.Estimate` of a pull SpMV in this format
        (``ctx``: a :class:`~gblas.formats.costing.PullContext`); None: not estimated."""
        return None

    def operand_layout(self) -> OperandLayout | None:
        """The :class:`OperandLayout` in which this format's pull kernels also take ``x``
        (with ``x_layout=True``), or None: ``x`` in column order only."""
        return None


def register_format(cls: type) -> type:
    """Class decorator: make a format available to the planner by its ``name``."""
    FORMATS[cls.name] = cls
    return cls


def pull_formats(device: str | None = None) -> tuple[str, ...]:
    """The registered pull-SpMV candidates (on ``device``), in rank order."""
    cands = [c for c in FORMATS.values() if getattr(c, "pull_rank", None) is not None
             and (device is None or device in getattr(c, "devices", ("cpu",)))]
    return tuple(c.name for c in sorted(cands, key=lambda c: c.pull_rank))


def get_format_class(name: str) -> type:
    """The registered format class ``name``; a clear error naming the known ones."""
    from ..exceptions import InvalidValue, bad_arg

    if name not in FORMATS:
        raise bad_arg(InvalidValue, "config", "format", "one of " + ", ".join(sorted(FORMATS)),
                      repr(name))
    return FORMATS[name]
