"""vmap of clamp, complex, bitcast_convert_type, reduce_precision, mulhi and
the total-order comparisons eq_to/lt_to/le_to: vmap(f) equals applying f to
each example and stacking, with every mixture of batched, unbatched and
scalar operands and the batch axis in several places. Without the rules vmap
raises "Batching rule for '<primitive>' not implemented"."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pyjax import lax

from vmap_oracle import check_vmap

B = 3
rng = np.random.default_rng(6)


def _normal(shape):
    return rng.standard_normal(shape).astype(np.float32)


def _operand(kind, shape, axis):
    # "scalar": an unbatched scalar; "full": an unbatched array of `shape`;
    # "scalar_b": one scalar per example (B,); "full_b": (shape with B at axis)
    if kind == "scalar":
        return np.float32(rng.standard_normal()), None
    if kind == "full":
        return _normal(shape), None
    if kind == "scalar_b":
        return _normal((B,)), 0
    return np.moveaxis(_normal((B,) + shape), 0, axis), axis


BOUNDS = ["scalar", "full", "scalar_b", "full_b"]
X_KINDS = [("full_b", 0), ("full_b", 1), ("full", None), ("scalar_b", 0)]


def _clamp_cases():
    for lo, hi, (x, x_axis) in itertools.product(BOUNDS, BOUNDS, X_KINDS):
        if x == "full" and not (lo.endswith("_b") or hi.endswith("_b")):
            continue  # nothing batched
        if x == "scalar_b" and "full" in lo + hi:
            continue  # bounds must be scalars or of x's (scalar) shape
        yield lo, hi, x, x_axis


@pytest.mark.parametrize("lo_kind, hi_kind, x_kind, x_axis", list(_clamp_cases()))
def test_clamp(lo_kind, hi_kind, x_kind, x_axis):
    # x: (2, 4) (or a scalar); each bound a scalar or x-shaped, batched or not
    shape = (2, 4)
    x, x_axis = _operand(x_kind, shape, x_axis)
    lo, lo_axis = _operand(lo_kind, shape, 1 if lo_kind == "full_b" else None)
    hi, hi_axis = _operand(hi_kind, shape, 2 if hi_kind == "full_b" else None)
    check_vmap(lax.clamp, (lo - np.float32(0.5), x, hi + np.float32(0.5)), (lo_axis, x_axis, hi_axis))


def test_clamp_same_axis_scalar_bounds():
    # (B,) bounds with x batched on axis 0: spread along x's batch axis
    check_vmap(lax.clamp, (_normal((B,)) - 1, _normal((B, 4)), _normal((B,)) + 1), (0, 0, 0))


@pytest.mark.parametrize("in_axes", [(0, 0), (1, None), (None, 1), (1, 0)])
def test_complex(in_axes):
    # re, im: (2, 3) -> complex64
    re, im = (_normal((2, 3)) if a is None else np.moveaxis(_normal((B, 2, 3)), 0, a) for a in in_axes)
    check_vmap(lax.complex, (re, im), in_axes)


@pytest.mark.parametrize("in_axes", [(0, 0), (1, None), (None, 1)])
def test_mulhi(in_axes):
    # the high 32 bits of uint32 products
    make = lambda shape: rng.integers(0, 2**32, shape, dtype=np.uint64).astype(np.uint32)
    x, y = (make((2, 3)) if a is None else np.moveaxis(make((B, 2, 3)), 0, a) for a in in_axes)
    check_vmap(lax.mulhi, (x, y), in_axes)


@pytest.mark.parametrize("primitive", [lax.eq_to_p, lax.lt_to_p, lax.le_to_p], ids=lambda p: p.name)
@pytest.mark.parametrize("in_axes", [(0, 0), (1, None), (None, 0), (0, 1)])
def test_total_order_comparisons(primitive, in_axes):
    # with NaNs and signed zeros, which the total order ranks
    values = np.array([np.nan, -np.nan, 0.0, -0.0, 1.0, -np.inf], np.float32)
    make = lambda shape: rng.choice(values, shape)
    x, y = (make((2, 3)) if a is None else np.moveaxis(make((B, 2, 3)), 0, a) for a in in_axes)
    check_vmap(primitive.bind, (x, y), in_axes)


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("new_dtype", [np.uint16, np.uint8, np.int32])
def test_bitcast_narrowing_or_same_width(axis, new_dtype):
    # float32 (2, 3) -> new_dtype, a trailing axis added when narrower
    check_vmap(lambda x: lax.bitcast_convert_type(x, new_dtype), (np.moveaxis(_normal((B, 2, 3)), 0, axis),), axis)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_bitcast_widening(axis):
    # uint8 (3, 4) -> uint32 (3,): the example's trailing axis folds, even
    # with the batch axis last (JAX 0.11 would fold the batch axis there).
    x = np.moveaxis(rng.integers(0, 256, (B, 3, 4)).astype(np.uint8), 0, axis)
    check_vmap(lambda x: lax.bitcast_convert_type(x, np.uint32), (x,), axis)


@pytest.mark.parametrize("axis", [0, 1])
def test_reduce_precision(axis):
    # float32 rounded to float16's format (5 exponent, 10 mantissa bits)
    x = np.moveaxis(_normal((B, 4)) * 1000, 0, axis)
    check_vmap(lambda x: lax.reduce_precision(x, 5, 10), (x,), axis)
