"""Elementwise ops over short rows that NumPy walks a row at a time.

A CNN's batch norm multiplies, subtracts and adds per-feature vectors
(shape (1, 1, 1, C)) to NHWC activations whose rows hold 8 to 64 features.
NumPy's iterator calls the ufunc's inner loop once per row for that, a few
features at a time: (8, 28, 28, 8) * (1, 1, 1, 8) takes 2.3x the time of a
product of two whole arrays. Viewed as rows of k whole feature rows
(`wide`, ~1024 elements) against the vector repeated k times, the same
product makes 1/k as many inner-loop calls over the same elements in the
same order.

Two operands broadcast along different leading axes (`x[:, None, :] -
x[None, :, :]` over 3 coordinates, as shapes (n, 1, 3) and (1, n, 3) or as
full-shape views with zero strides) cannot be merged into long rows at
all: NumPy calls the inner loop on every 3-element row. Computed one lane
(last-axis position) at a time instead, each call walks a whole plane.

Only ufuncs that are one IEEE operation (or an exact comparison, or
integer/bit arithmetic) per element are taken: their bits cannot depend on
how NumPy walks the operands.
"""

from __future__ import annotations

import functools
import math

import numpy as np

__all__ = ["column_spread", "column_ufunc"]

_EXACT = frozenset(np.__dict__[name] for name in (
    "add", "subtract", "multiply", "divide", "true_divide", "maximum", "minimum", "fmax", "fmin",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "copysign",
))
# Rows shorter than this many elements are widened, to rows of about `_WIDE`.
MAX_ROW = 128
_WIDE = 1024
# Smaller arrays: the reshapes and the repeated vector cost more than they save.
MIN_ELEMENTS = 4096
# Lane by lane only for rows this short and arrays this large.
MAX_LANES = 4
MIN_LANE_ELEMENTS = 1 << 14
MIN_LANE_ROWS = 8  # (a lane's inner loop runs along the next-to-last axis)


def column_spread(eqn) -> bool:
    """Whether `eqn` broadcasts one row ((L,) or (1, ..., 1, L): batch norm's
    per-feature vector) along the leading axes of its result: an op reading
    the result may read the row itself instead, by wide rows."""
    if eqn.primitive.name != "broadcast_in_dim":
        return False
    shape, out = tuple(eqn.invars[0].aval.shape), tuple(eqn.outvars[0].aval.shape)
    return (len(out) >= 2 and len(shape) in (1, len(out)) and shape[-1:] == out[-1:]
            and all(d == 1 for d in shape[:-1]) and eqn.params["broadcast_dimensions"][-1] == len(out) - 1)


@functools.lru_cache(maxsize=1024)
def column_ufunc(ufunc, in_shapes: list, out_shape: tuple):
    """A callable `(x, y[, out])` computing `ufunc(x, y[, out])` for an array
    of `out_shape` and a row (1, ..., 1, L) or (L,) broadcast along it, by
    wide rows; for two operands broadcast to `out_shape` along its leading
    axes, with rows of at most `MAX_LANES`, lane by lane (columns.py's
    second case); else None."""
    if ufunc not in _EXACT or len(in_shapes) != 2 or len(out_shape) < 2:
        return None
    length = out_shape[-1]
    size = math.prod(out_shape)
    if not 0 < length < MAX_ROW or size < MIN_ELEMENTS:
        return None
    row = {(length,), (1,) * (len(out_shape) - 1) + (length,)}
    shapes = [tuple(s) for s in in_shapes]
    if shapes[0] == tuple(out_shape) and shapes[1] in row:
        full = 0
    elif shapes[1] == tuple(out_shape) and shapes[0] in row:
        full = 1
    elif (length <= MAX_LANES and size >= MIN_LANE_ELEMENTS and out_shape[-2] >= MIN_LANE_ROWS
          and all(_lanes_of(s, out_shape) for s in shapes)):
        if any(s[-2] == 1 for s in shapes):
            return _lane_call(ufunc, length, always=True)
        return _lane_call(ufunc, length, always=False) if shapes[0] == shapes[1] else None
    else:
        return None
    rows = size // length
    k = max((d for d in range(1, _WIDE // length + 1) if rows % d == 0), default=1)
    if k < 4:
        return None
    return _wide_call(ufunc, full, k, length, size // (k * length), tuple(out_shape))


def _wide_call(ufunc, full: int, k: int, length: int, wide_rows: int, out_shape: tuple):
    wide = k * length

    def call(x, y, *out):
        a, v = (x, y) if full == 0 else (y, x)
        if type(a) is not np.ndarray or not a.flags.c_contiguous or (out and not out[0].flags.c_contiguous):
            return ufunc(x, y, out=out[0] if out else None)
        v = np.asarray(v).reshape(1, length).repeat(k, axis=0).reshape(wide)
        a = a.reshape(wide_rows, wide)
        target = out[0].reshape(wide_rows, wide) if out else None
        result = ufunc(a, v, out=target) if full == 0 else ufunc(v, a, out=target)
        return result.reshape(out_shape)

    call.__name__ = f"wide_{ufunc.__name__}"
    return call


def _lanes_of(shape: tuple, out_shape: tuple) -> bool:
    """Whether `shape` broadcasts to `out_shape` along its leading axes only."""
    return (len(shape) == len(out_shape) and shape[-1] == out_shape[-1]
            and all(d in (1, o) for d, o in zip(shape, out_shape)))


def _broadcast_view(a) -> bool:
    """An array repeated along its next-to-last axis (a zero stride there):
    NumPy cannot merge its rows into longer ones."""
    return type(a) is np.ndarray and a.strides[-2] == 0 and a.size > 0


def _lane_call(ufunc, length: int, always: bool):
    """Lane by lane: `always` where an operand's shape repeats it along the
    next-to-last axis, else only when an operand is such a view. (Operands
    whose rows are whole, as (1, n, 3) against (m, n, 3), keep NumPy's call:
    it merges their rows.)"""
    lanes = tuple(range(length))

    def call(x, y, *out):
        if not (always or _broadcast_view(x) or _broadcast_view(y)):
            return ufunc(x, y, *out)
        target = out[0] if out else np.empty(np.broadcast_shapes(x.shape, y.shape),
                                             ufunc.resolve_dtypes((x.dtype, y.dtype, None))[-1])
        for k in lanes:
            ufunc(x[..., k], y[..., k], out=target[..., k])
        return target

    call.__name__ = f"lanes_{ufunc.__name__}"
    return call
