"""Argument types shared by the command-line commands.

Examples
--------
>>> ranged(int, 1, 31)("18")
18
"""

from __future__ import annotations

import argparse

import numpy as np

__all__ = ["ranged"]


def ranged(kind, low=None, high=None, *, low_open: bool = False, what: str = ""):
    """An argparse type: ``kind`` (int or float) within ``[low, high]`` (``(low, ...`` when
    ``low_open``), finite; the message names the range and the value given."""
    if low is not None and high is not None:
        rng = f"from {low} to {high}"
    elif low is not None:
        rng = f"> {low}" if low_open else f">= {low}"
    else:
        rng = ""
    expected = f"{what or ('an integer' if kind is int else 'a finite number')} {rng}".strip()

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
        bad = (kind is float and not np.isfinite(value)) \
            or (low is not None and (value <= low if low_open else value < low)) \
            or (high is not None and value > high)
        if bad:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in some messages
    return parse
