"""vmap of gather, every scatter, dynamic_slice, dynamic_update_slice and pad
(with a batched padding value): vmap(f) equals running f on each example and
stacking, for the operand batched alone, the indices (or starts) alone and
both, at several placements, with every gather/scatter mode, and on
dimension numbers that already carry batching dims. Without the rules vmap
raises "Batching rule for '<primitive>' not implemented" (dynamic_slice with
batched starts and dynamic_update_slice had no rule at all)."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax.numpy as jnp
from pyjax import lax

from vmap_oracle import check_vmap

B = 3
rng = np.random.default_rng(2)


def _normal(shape):
    return rng.standard_normal(shape).astype(np.float32)


def _batched(example, axis):
    # B different arrays like `example` (same dtype and range), stacked at axis
    if np.issubdtype(example.dtype, np.integer):
        stack = rng.integers(example.min(), example.max() + 1, (B,) + example.shape)
    else:
        stack = rng.standard_normal((B,) + example.shape)
    return np.moveaxis(stack.astype(example.dtype), 0, axis)


def _args(examples, in_axes):
    return tuple(x if a is None else _batched(x, a) for x, a in zip(examples, in_axes, strict=True))


TAKE = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
GATHER_PLACEMENTS = [(0, None), (2, None), (None, 0), (None, 2), (0, 0), (1, 2), (2, 1)]


@pytest.mark.parametrize("mode", ["promise_in_bounds", "clip", "fill"])
@pytest.mark.parametrize("in_axes", GATHER_PLACEMENTS)
def test_gather_rows(mode, in_axes):
    # operand: (5, 3), indices: (2, 4, 1) -> rows (2, 4, 3); "fill" mode sees
    # out-of-bounds rows (index 5 and -1) per example.
    f = lambda x, i: lax.gather(x, i, TAKE, (1, 3), mode=mode)
    high = 6 if mode == "fill" else 5
    indices = rng.integers(-1 if mode == "fill" else 0, high, (2, 4, 1)).astype(np.int32)
    check_vmap(f, _args((_normal((5, 3)), indices), in_axes), in_axes)


@pytest.mark.parametrize("in_axes", GATHER_PLACEMENTS)
def test_gather_with_batching_dims(in_axes):
    # take_along_axis's gather: operand (2, 5) and indices (2, 4, 1) already
    # share batch dim 0; vmap adds a second pair (or a window / index axis).
    dnums = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,),
                                       operand_batching_dims=(0,), start_indices_batching_dims=(0,))
    f = lambda x, i: lax.gather(x, i, dnums, (1, 1), mode="clip")
    check_vmap(f, _args((_normal((2, 5)), rng.integers(0, 5, (2, 4, 1)).astype(np.int32)), in_axes), in_axes)


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (1, 1)])
def test_gather_windows_of_two_axes(in_axes):
    # operand (4, 6), index vectors of 2 starts reading (2, 3) windows
    dnums = lax.GatherDimensionNumbers(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1))
    f = lambda x, i: lax.gather(x, i, dnums, (2, 3), mode="clip")
    check_vmap(f, _args((_normal((4, 6)), rng.integers(0, 5, (3, 2)).astype(np.int32)), in_axes), in_axes)


def test_fancy_indexing_and_take_along_axis():
    x = _normal((B, 2, 5))
    i = rng.integers(0, 5, (B, 2, 3)).astype(np.int32)
    check_vmap(lambda x, i: x[:, i[0]], (x, i), (0, 0))
    check_vmap(lambda x, i: x[i], (jnp.asarray(_normal((5,))), i), (None, 1))


POINT = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                    scatter_dims_to_operand_dims=(0,))
SCATTERS = [lax.scatter, lax.scatter_add, lax.scatter_sub, lax.scatter_mul, lax.scatter_min, lax.scatter_max]
SCATTER_PLACEMENTS = [(0, None, None), (None, 0, None), (None, None, 0), (1, None, 2), (None, 1, 0),
                      (0, 0, None), (2, 1, 1), (0, 0, 0)]


@pytest.mark.parametrize("scatter", SCATTERS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("in_axes", SCATTER_PLACEMENTS)
def test_scatter_rows(scatter, in_axes):
    # operand (5, 3) <- rows of updates (4, 3) at indices (4, 1), repeats included
    f = lambda x, i, u: scatter(x, i, u, POINT, mode="clip")
    examples = (_normal((5, 3)), rng.integers(0, 5, (4, 1)).astype(np.int32), _normal((4, 3)))
    check_vmap(f, _args(examples, in_axes), in_axes)


@pytest.mark.parametrize("in_axes", SCATTER_PLACEMENTS)
def test_scatter_add_drops_out_of_bounds(in_axes):
    # the default mode drops windows out of bounds (index 5 and -1), per example
    f = lambda x, i, u: lax.scatter_add(x, i, u, POINT)
    examples = (_normal((5, 3)), rng.integers(-1, 6, (4, 1)).astype(np.int32), _normal((4, 3)))
    check_vmap(f, _args(examples, in_axes), in_axes)


@pytest.mark.parametrize("in_axes", SCATTER_PLACEMENTS)
def test_scatter_with_batching_dims(in_axes):
    # put_along_axis's scatter: operand (2, 5), indices (2, 3, 1), updates (2, 3)
    dnums = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(1,),
                                        scatter_dims_to_operand_dims=(1,), operand_batching_dims=(0,),
                                        scatter_indices_batching_dims=(0,))
    f = lambda x, i, u: lax.scatter_add(x, i, u, dnums, mode="clip")
    examples = (_normal((2, 5)), rng.integers(0, 5, (2, 3, 1)).astype(np.int32), _normal((2, 3)))
    check_vmap(f, _args(examples, in_axes), in_axes)


def test_at_updates():
    # jnp's .at[] goes through scatter with batched indices and values
    x, i, v = _normal((B, 5)), rng.integers(0, 5, (B, 2)).astype(np.int32), _normal((B, 2))
    check_vmap(lambda x, i, v: x.at[i].add(v), (x, i, v), (0, 0, 0))
    check_vmap(lambda x, i, v: x.at[i].set(v), (jnp.asarray(x[0]), i, v), (None, 0, 0))
    check_vmap(lambda x, i, v: x.at[i].max(v), (x, i[0], v), (0, None, 0))


# ---- dynamic_slice / dynamic_update_slice: scalar starts per example ----

DS_PLACEMENTS = [(0, None, None), (2, None, None), (None, 0, None), (None, None, 0), (None, 0, 0),
                 (1, 0, None), (0, 0, 0)]


@pytest.mark.parametrize("in_axes", DS_PLACEMENTS)
def test_dynamic_slice(in_axes):
    # x: (4, 6) -> a (2, 3) window at (i, j); starts out of range clamp
    f = lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 3))
    examples = (_normal((4, 6)), np.int32(-5), np.int32(9))
    args = list(_args(examples[:1], in_axes[:1]))
    for start, axis in zip(examples[1:], in_axes[1:], strict=True):
        args.append(start if axis is None else rng.integers(-6, 8, (B,)).astype(np.int32))
    check_vmap(f, tuple(args), in_axes)


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (1, 0)])
def test_dynamic_index_in_dim(in_axes):
    f = lambda x, i: lax.dynamic_index_in_dim(x, i, axis=1, keepdims=False)
    x = _normal((3, 5)) if in_axes[0] is None else _batched(_normal((3, 5)), in_axes[0])
    i = np.int32(2) if in_axes[1] is None else rng.integers(0, 5, (B,)).astype(np.int32)
    check_vmap(f, (x, i), in_axes)


DUS_PLACEMENTS = [(0, None, None), (1, None, None), (None, 0, None), (None, 2, None), (None, None, 0),
                  (0, None, 0), (None, 1, 0), (1, 0, None), (0, 0, 0)]


@pytest.mark.parametrize("in_axes", DUS_PLACEMENTS)
def test_dynamic_update_slice(in_axes):
    # x: (4, 6) <- u: (2, 3) at (i, 1); starts clamp to keep u inside
    f = lambda x, u, i: lax.dynamic_update_slice(x, u, (i, np.int32(1)))
    x_axis, u_axis, i_axis = in_axes
    x = _normal((4, 6)) if x_axis is None else _batched(_normal((4, 6)), x_axis)
    u = _normal((2, 3)) if u_axis is None else _batched(_normal((2, 3)), u_axis)
    i = np.int32(1) if i_axis is None else rng.integers(-2, 6, (B,)).astype(np.int32)
    check_vmap(f, (x, u, i), in_axes)


def test_dynamic_slice_of_a_scalar_operand():
    # no starts at all: the gather reads the whole (empty-shaped) example
    check_vmap(lambda x: lax.dynamic_slice(x, (), ()), (_normal((B,)),), 0)


# ---- pad ----

@pytest.mark.parametrize("in_axes", [(None, 0), (0, 0), (1, 0)])
def test_pad_batched_padding_value(in_axes):
    # x: (3, 4) padded with (low, high, interior) per axis, negative included;
    # each example's padding gets its own value (a select against a mask).
    f = lambda x, v: lax.pad(x, v, ((1, 2, 1), (-1, 1, 0)))
    x = _normal((3, 4)) if in_axes[0] is None else _batched(_normal((3, 4)), in_axes[0])
    v = _normal((B,))
    check_vmap(f, (x, v), in_axes)
