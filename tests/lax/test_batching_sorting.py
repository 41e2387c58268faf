"""vmap of sort (one operand, several, num_keys), top_k and approx_top_k:
vmap(f) equals sorting each example and stacking, at every placement of the
batch axis relative to the sorted one and with batched and unbatched
operands mixed. Without the rules vmap raises "Batching rule for
'<primitive>' not implemented"."""

from __future__ import annotations

import numpy as np
import pytest

from pyjax import lax

from vmap_oracle import check_vmap

B = 3
rng = np.random.default_rng(3)


def _ties(shape):
    # small integers as floats: many ties, so stability and secondary keys matter
    return rng.integers(0, 3, shape).astype(np.float32)


def _batched(make, shape, axis):
    return np.moveaxis(make((B,) + shape), 0, axis)


@pytest.mark.parametrize("dimension", [0, 1])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_sort_one_operand(dimension, axis):
    # x: (4, 5) sorted along `dimension`; the batch axis before, at or after it
    check_vmap(lambda x: lax.sort(x, dimension=dimension), (_batched(_ties, (4, 5), axis),), axis)


@pytest.mark.parametrize("in_axes", [(0, 0), (1, None), (None, 1), (2, 0), (None, 2)])
@pytest.mark.parametrize("num_keys", [1, 2])
def test_sort_two_operands(in_axes, num_keys):
    # (keys, values): (4, 5) each, sorted along dim 1; with one key the values
    # follow the keys stably, with two they break the ties.
    f = lambda k, v: lax.sort((k, v), dimension=1, num_keys=num_keys)
    k_axis, v_axis = in_axes
    k = _batched(_ties, (4, 5), k_axis) if k_axis is not None else _ties((4, 5))
    v = _batched(_ties, (4, 5), v_axis) if v_axis is not None else _ties((4, 5))
    check_vmap(f, (k, v), in_axes)


@pytest.mark.parametrize("in_axes", [(0, None, 1), (None, 0, None), (1, 1, 0)])
def test_sort_three_operands_mixed_dtypes(in_axes):
    # keys float and int, payload int: (5,) each
    f = lambda a, b, c: lax.sort((a, b, c), num_keys=2)
    a = _batched(_ties, (5,), in_axes[0]) if in_axes[0] is not None else _ties((5,))
    b = rng.integers(0, 4, (B, 5) if in_axes[1] is not None else (5,)).astype(np.int32)
    b = np.moveaxis(b, 0, in_axes[1]) if in_axes[1] is not None else b
    c = np.arange(5, dtype=np.int32) if in_axes[2] is None else np.moveaxis(
        np.tile(np.arange(5, dtype=np.int32), (B, 1)), 0, in_axes[2])
    check_vmap(f, (a, b, c), in_axes)


@pytest.mark.parametrize("sort_axis", [0, 1])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_top_k(sort_axis, axis):
    # x: (4, 5) -> top 3 along sort_axis, values and int32 indices (ties: lowest index first)
    f = lambda x: lax.top_k(x, 3, axis=sort_axis)
    check_vmap(f, (_batched(_ties, (4, 5), axis),), axis)


@pytest.mark.parametrize("out_axes", [1, -1])
def test_top_k_out_axes(out_axes):
    check_vmap(lambda x: lax.top_k(x, 2), (_batched(_ties, (6,), 0),), 0, out_axes)


@pytest.mark.parametrize("which", [lax.approx_max_k, lax.approx_min_k], ids=["max", "min"])
@pytest.mark.parametrize("reduction_dimension", [0, -1])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_approx_top_k(which, reduction_dimension, axis):
    # x: (6, 4) distinct values; exact on this backend, so it matches per example
    make = lambda shape: rng.permutation(np.prod(shape)).reshape(shape).astype(np.float32)
    f = lambda x: which(x, 2, reduction_dimension=reduction_dimension)
    check_vmap(f, (_batched(make, (6, 4), axis),), axis)
