"""Validation of the arguments every operation shares: out, mask, accum, devices."""

from __future__ import annotations

from ..exceptions import DimensionMismatch, InvalidObject, InvalidValue, bad_arg
from ..semirings import binary_op
from .mask import Mask
from .matrix import Matrix, TransposedMatrix
from .vector import Vector


def check_out(out, kind: type, shape: tuple, call: str):
    if out is None:
        return None
    if not isinstance(out, kind):
        raise bad_arg(InvalidObject, call, "out", f"a gb.{kind.__name__} or None",
                      type(out).__name__)
    if tuple(out.shape) != tuple(shape):
        raise bad_arg(DimensionMismatch, call, "out", f"shape {tuple(shape)}",
                      f"shape {tuple(out.shape)}")
    return out


def check_mask(mask, shape: tuple, call: str):
    if mask is None:
        return None
    if isinstance(mask, (Vector, Matrix, TransposedMatrix)):
        raise bad_arg(InvalidObject, call, "mask", "a mask view (m.S, m.V, ~m.S or ~m.V)",
                      f"a bare {type(mask).__name__}",
                      "Say which kind: mask=m.S (structure) or mask=m.V (values).")
    if not isinstance(mask, Mask):
        raise bad_arg(InvalidObject, call, "mask", "a mask view (m.S, m.V, ~m.S or ~m.V)",
                      type(mask).__name__)
    if tuple(mask.shape) != tuple(shape):
        raise bad_arg(DimensionMismatch, call, "mask", f"shape {tuple(shape)} (the output's)",
                      f"shape {tuple(mask.shape)}")
    return mask


def check_accum(accum, call: str):
    if accum is None:
        return None
    return binary_op(accum, call, "accum")


def check_replace(replace, call: str) -> bool:
    if not isinstance(replace, bool):
        raise bad_arg(InvalidValue, call, "replace", "True or False", repr(replace))
    return replace


def common_device(call: str, **objs) -> str:
    """The one device of all given objects (masks included); a clear error on a mix."""
    seen = {}
    for name, o in objs.items():
        if o is None:
            continue
        seen.setdefault(o.device, name)
    if len(seen) > 1:
        (d1, n1), (d2, n2) = list(seen.items())[:2]
        raise bad_arg(InvalidValue, call, n2, f"an object on {d1!r} like `{n1}`", f"one on {d2!r}",
                      f"Move it first with {n2}.to({d1!r}).")
    return next(iter(seen), "cpu")


def check_common(call: str, out_kind: type, out_shape: tuple, *, mask, accum, out, replace,
                 **objs):
    """Validate out/mask/accum/replace/devices together; returns (mask, accum, out, device)."""
    if mask is None and accum is None and out is None and replace is False:
        return None, None, None, common_device(call, **objs)   # the plain call: devices only
    out = check_out(out, out_kind, out_shape, call)
    mask = check_mask(mask, out_shape, call)
    accum = check_accum(accum, call)
    check_replace(replace, call)
    device = common_device(call, **objs, mask=mask, out=out)
    if accum is not None and out is not None:
        accum.check_dtype(out.dtype, call, "accum")
    return mask, accum, out, device
