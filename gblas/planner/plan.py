"""The Plan: every choice the planner made for one call, and why; the executor runs it."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..backends.registry import KernelKey


@dataclass(frozen=True)
class Plan:
    """What a call will run: format, direction, device, kernel, conversions and the reason.

    Attributes
    ----------
    op, format, direction, device : str
        The operation, the format its kernel reads, the direction (or method) and device.
    key : KernelKey or None
        The kernel that runs (``gblas.core.executor.kernel``); None for a loop of
        planned operations (an algorithm on a pinned format, say).
    conversions : tuple of str
        What the call builds or converts first (a format not yet cached, a dense ``x``).
    est_bytes : int
        Estimated memory traffic of the kernel.
    reason : str
        Why this plan, in words.
    details : dict
        The figures behind the choice (estimates, sizes, uses).
    transposed : tuple of bool
        Per matrix operand, whether the kernel reads the stored format of its transpose.
    steps : tuple of KernelKey
        Further kernels the plan runs before ``key`` (a coloring before the sweeps, say).

    Examples
    --------
    >>> p = Plan("mxv", "csr", "pull", "cpu", KernelKey("mxv", "csr", "cpu", "pull"),
    ...          reason="dense x")
    >>> str(p)
    'mxv: csr pull on cpu (kernel mxv/csr/cpu/pull) -- dense x'
    >>> p.kernel
    'mxv/csr/cpu/pull'
    """

    op: str
    format: str
    direction: str
    device: str
    key: KernelKey | None = None
    conversions: tuple[str, ...] = ()
    est_bytes: int = 0
    reason: str = ""
    details: dict = field(default_factory=dict, compare=False)
    transposed: tuple[bool, ...] = ()
    steps: tuple[KernelKey, ...] = ()

    @property
    def kernel(self) -> str:
        """The kernel's name ``"op/format/device[/variant]"``; ``""`` when ``key`` is None."""
        return "" if self.key is None else str(self.key)

    def __str__(self) -> str:
        conv = f" after {', '.join(self.conversions)}" if self.conversions else ""
        run = f"kernel {self.kernel}" if self.key is not None else "loop of operations"
        return (f"{self.op}: {self.format} {self.direction} on {self.device} "
                f"({run}){conv} -- {self.reason}")
