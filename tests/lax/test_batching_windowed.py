"""vmap of the windowed reductions (reduce_window_sum/max/min, the general
reduce_window), of select_and_gather_add and select_and_scatter_add (what
max/min pooling differentiates to), of the general reduce and of the
cumulative reductions: vmap(f) equals running f on each example and
stacking, at several placements of the batch axis and with batched and
unbatched operands mixed. Without the rules vmap raises "Batching rule for
'<primitive>' not implemented"."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import windowed

from vmap_oracle import check_vmap

B = 3
rng = np.random.default_rng(1)


def _distinct(shape):
    # distinct values: max/min have no ties, so gathers pick one element
    size = int(np.prod(shape))
    return (rng.permutation(size).reshape(shape) / size).astype(np.float32)


def _batched(shape, axis):
    return np.moveaxis(_distinct((B,) + shape), 0, axis)


WINDOWS = [
    # example shape, window, strides, padding, base dilation, window dilation
    ((7,), (3,), (2,), ((1, 0),), (1,), (1,)),
    ((4, 5), (2, 3), (1, 2), "SAME", (1, 1), (1, 1)),
    ((5, 6), (2, 2), (2, 1), ((1, 1), (0, 1)), (2, 1), (1, 2)),
]


@pytest.mark.parametrize("window", WINDOWS, ids=["1d", "2d_same", "2d_dilated"])
@pytest.mark.parametrize("monoid", ["sum", "max", "min"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_monoid_reduce_window(window, monoid, axis):
    # x: (B at axis, example...) -> reduce_window_<monoid> per example
    shape, dims, strides, padding, base, wdil = window
    init, op = {"sum": (0.0, lax.add), "max": (-np.inf, lax.max), "min": (np.inf, lax.min)}[monoid]
    f = lambda x: lax.reduce_window(x, init, op, dims, strides, padding, base, wdil)
    check_vmap(f, (_batched(shape, axis),), axis)


@pytest.mark.parametrize("in_axes", [(0, 0), (1, None), (None, 1), (2, 0)])
def test_general_reduce_window_variadic(in_axes):
    # (x, y): (4, 5) each -> windows of (sum x, product y); a mixture of
    # batched and unbatched operands.
    def f(x, y):
        return lax.reduce_window((x, y), (0.0, 1.0), lambda a, b: (a[0] + b[0], a[1] * b[1]), (2, 2), (1, 2),
                                 ((0, 1), (1, 0)))

    x_axis, y_axis = in_axes
    x = _batched((4, 5), x_axis) if x_axis is not None else _distinct((4, 5))
    y = _batched((4, 5), y_axis) + 0.5 if y_axis is not None else _distinct((4, 5)) + 0.5
    check_vmap(f, (x, y), in_axes)


def test_general_reduce_window_batched_init_is_refused():
    # JAX has no rule for per-example initial values either.
    f = lambda x, init: lax.reduce_window(x, init, lax.mul, (2,), (1,), "VALID")
    with pytest.raises(NotImplementedError, match="initial values"):
        jax.vmap(f)(jnp.ones((3, 4)), jnp.ones(3))


GATHER_GEOMETRY = {"window_dimensions": (2, 2), "window_strides": (1, 2), "padding": ((1, 0), (0, 1)),
                   "base_dilation": (1, 1), "window_dilation": (1, 1)}


@pytest.mark.parametrize("select_prim", [ew.ge_p, ew.le_p], ids=["max", "min"])
@pytest.mark.parametrize("in_axes", [(0, 0), (1, None), (None, 2), (2, 1)])
def test_select_and_gather_add(select_prim, in_axes):
    # tangents, operand: (4, 5) -> in each window, the tangent at the
    # operand's max (ge) or min (le).
    f = lambda t, x: windowed.select_and_gather_add_p.bind(t, x, select_prim=select_prim, **GATHER_GEOMETRY)
    t_axis, x_axis = in_axes
    t = _batched((4, 5), t_axis) if t_axis is not None else _distinct((4, 5))
    x = _batched((4, 5), x_axis) if x_axis is not None else _distinct((4, 5))
    check_vmap(f, (t, x), in_axes)


@pytest.mark.parametrize("select_prim", [ew.ge_p, ew.le_p], ids=["max", "min"])
@pytest.mark.parametrize("in_axes", [(0, 0), (1, None), (None, 2), (2, 1)])
def test_select_and_scatter_add(select_prim, in_axes):
    # source: windows (5, 3), operand: (4, 5) -> each window's source added
    # at the operand's chosen element.
    def f(s, x):
        return windowed.select_and_scatter_add_p.bind(
            s, x, select_prim=select_prim, window_dimensions=(2, 2), window_strides=(1, 2),
            padding=((1, 0), (0, 1)))

    s_axis, x_axis = in_axes
    s = _batched((4, 3), s_axis) if s_axis is not None else _distinct((4, 3))
    x = _batched((4, 5), x_axis) if x_axis is not None else _distinct((4, 5))
    check_vmap(f, (s, x), in_axes)


@pytest.mark.parametrize("axis", [0, 2])
def test_per_example_max_pool_gradients(axis):
    # grad of a max pool stages select_and_gather_add/select_and_scatter_add.
    f = jax.grad(lambda x: (lax.reduce_window(x, -np.inf, lax.max, (2, 2), (2, 1), "SAME") ** 2).sum())
    check_vmap(f, (_batched((4, 5), axis),), axis)


@pytest.mark.parametrize("in_axes", [(0, None), (1, 0), (None, 1), (2, 2)])
def test_reduce_variadic_argmax(in_axes):
    # (values, positions): (4, 3) -> the max of each column and where it is
    def pick(a, b):
        take = a[0] >= b[0]
        return lax.select(take, a[0], b[0]), lax.select(take, a[1], b[1])

    f = lambda x, i: lax.reduce((x, i), (-np.inf, np.int32(0)), pick, (0,))
    x_axis, i_axis = in_axes
    x = _batched((4, 3), x_axis) if x_axis is not None else _distinct((4, 3))
    i = (np.moveaxis(rng.integers(0, 9, (B, 4, 3)), 0, i_axis) if i_axis is not None
         else rng.integers(0, 9, (4, 3))).astype(np.int32)
    check_vmap(f, (x, i), in_axes)


@pytest.mark.parametrize("axis", [0, 1, 3])
def test_reduce_two_dimensions(axis):
    # x: (3, 2, 4) -> reduced over dims (0, 2) with a non-monoid computation
    f = lambda x: lax.reduce(x, 0.0, lambda a, b: a * 0.5 + b, (0, 2))
    check_vmap(f, (_batched((3, 2, 4), axis),), axis)


def test_reduce_batched_init_is_refused():
    f = lambda x, init: lax.reduce(x, init, lambda a, b: a * b + 1.0, (0,))
    # JAX has no rule for per-example initial values; the refusal says so.
    with pytest.raises(NotImplementedError, match=r"'reduce' not implemented \(batched initial values\)"):
        jax.vmap(f)(jnp.ones((3, 4)), jnp.ones(3))


CUMULATIVE = [lax.cumsum, lax.cumprod, lax.cummax, lax.cummin, lax.cumlogsumexp]


@pytest.mark.parametrize("cumulative", CUMULATIVE, ids=lambda f: f.__name__)
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis, batch_axis", [(0, 0), (0, 1), (1, 0), (1, 1), (1, 2)])
def test_cumulative(cumulative, reverse, axis, batch_axis):
    # x: (3, 4) per example, scanned along `axis`; the batch axis before,
    # at or after it.
    f = lambda x: cumulative(x, axis=axis, reverse=reverse)
    check_vmap(f, (_batched((3, 4), batch_axis) + 0.5,), batch_axis)


@pytest.mark.parametrize("out_axes", [1, -1])
def test_cumsum_out_axes(out_axes):
    check_vmap(lambda x: lax.cumsum(x, axis=1), (_batched((2, 5), 1),), 1, out_axes)
