"""Length checks of the fused vector kernels' operands, shared by both devices: their
compiled passes index every array by one vector's positions without bounds checks, so
a shorter array would be written past its end."""

from __future__ import annotations

from typing import Any

__all__ = ["check_lengths"]


def check_lengths(call: str, n: int, sums: Any = None, **arrays: Any) -> None:
    """Refuse any of ``arrays`` (None: absent) whose shape is not ``(n,)``, and ``sums``
    unless its shape is ``(2,)``.

    Examples
    --------
    >>> import numpy as np
    >>> check_lengths("power_step", 3, x=np.zeros(3), b=None)
    >>> check_lengths("power_step", 3, out=np.zeros(2))
    Traceback (most recent call last):
    ...
    ValueError: power_step: argument `out` expected shape (3,), got (2,)
    """
    for name, arr in arrays.items():
        if arr is not None and tuple(arr.shape) != (n,):
            raise ValueError(f"{call}: argument `{name}` expected shape ({n},), got "
                             f"{tuple(arr.shape)}")
    if sums is not None and tuple(sums.shape) != (2,):
        raise ValueError(f"{call}: argument `state_out` expected shape (2,), got "
                         f"{tuple(sums.shape)}")
