"""Autodiff of the windowed and cumulative reductions and of the general
reduce: JVPs and VJPs against finite differences (check_grads, to second
order away from ties), reduce_window_sum's and cumsum's transposes as exact
adjoints, the windowed max/min's choice among ties (the first of equal
elements takes the whole tangent, as JAX's select_and_gather_add does)
checked against a loop, select_and_scatter_add as the transpose of
select_and_gather_add, and the refusals (window dilation in reverse mode,
nonzero initial-value tangents, reverse mode of the general reduce_window).
"""

from __future__ import annotations

import functools

import itertools

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.lax import windowed
from pyjax.test_util import check_grads

# float32 finite differences: the tolerance these checks were written for
# (JAX's own default for float32 is 2e-3)
check_grads = functools.partial(check_grads, atol=2e-2, rtol=2e-2)


def _distinct(shape, seed):
    # Values far from ties (spaced by 1 / size): max/min are smooth there.
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape))
    return (rng.permutation(size).reshape(shape) / max(size, 1) * 2 - 1).astype(np.float32)


def _uniform(shape, seed, low=-1.0, high=1.0):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(np.float32)


WINDOWS = [
    # name, shape, window_dimensions, window_strides, padding, base_dilation, window_dilation
    ("1d_valid", (7,), (3,), (1,), "VALID", None, None),
    ("1d_strided_padded", (9,), (3,), (2,), ((1, 0),), None, None),
    ("2d_same", (4, 5), (2, 3), (1, 1), "SAME", None, None),
    ("2d_strided_uneven_padding", (5, 6), (3, 2), (2, 2), ((1, 1), (0, 1)), None, None),
    ("2d_base_dilation", (3, 4), (2, 3), (1, 2), ((0, 1), (1, 1)), (2, 1), None),
    ("nhwc_pool", (2, 4, 6, 3), (1, 2, 2, 1), (1, 2, 2, 1), "VALID", None, None),
]
DILATED_WINDOWS = [
    ("1d_window_dilation", (8,), (2,), (1,), "VALID", None, (3,)),
    ("2d_both_dilations", (4, 5), (2, 3), (1, 2), ((1, 0), (1, 1)), (2, 1), (1, 2)),
]


def _reducer(computation, init, window_dimensions, window_strides, padding, base_dilation, window_dilation):
    return lambda x: lax.reduce_window(x, init, computation, window_dimensions, window_strides, padding,
                                       base_dilation, window_dilation)


@pytest.mark.parametrize("case", WINDOWS + DILATED_WINDOWS, ids=lambda c: c[0])
def test_reduce_window_sum_grads(case):
    _, shape, *geometry = case
    f = _reducer(lax.add, 0.0, *geometry)
    check_grads(f, (_uniform(shape, 0),), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("case", WINDOWS + DILATED_WINDOWS, ids=lambda c: c[0])
def test_reduce_window_sum_transpose_is_adjoint(case):
    _, shape, *geometry = case
    f = _reducer(lax.add, 0.0, *geometry)
    x = _uniform(shape, 1)
    out, vjp = jax.vjp(f, x)
    ct = _uniform(np.shape(out), 2)
    (ct_x,) = vjp(ct)
    np.testing.assert_allclose(np.vdot(ct_x, x), np.vdot(ct, out), rtol=1e-5)


@pytest.mark.parametrize("computation, init", [(lax.max, -np.inf), (lax.min, np.inf)], ids=["max", "min"])
@pytest.mark.parametrize("case", WINDOWS, ids=lambda c: c[0])
def test_reduce_window_max_min_grads(case, computation, init):
    _, shape, *geometry = case
    f = _reducer(computation, init, *geometry)
    check_grads(lambda x: f(x) ** 2, (_distinct(shape, 3),), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("computation, init", [(lax.max, -np.inf), (lax.min, np.inf)], ids=["max", "min"])
@pytest.mark.parametrize("case", DILATED_WINDOWS, ids=lambda c: c[0])
def test_reduce_window_max_min_window_dilation_forward_only(case, computation, init):
    _, shape, *geometry = case
    f = _reducer(computation, init, *geometry)
    x = _distinct(shape, 4)
    check_grads(f, (x,), order=2, modes=("fwd",))
    with pytest.raises(NotImplementedError, match="VJP not implemented for select_and_gather \\(MaxPool\\) with "
                                                  "window dilation"):
        jax.grad(lambda x: jnp.sum(f(x)))(x)


def _chosen_tangent_oracle(x, t, window, strides, padding, pick):
    # Loop over windows; the first extreme element in row-major order wins.
    padded_x = np.pad(x, padding, constant_values=np.inf if pick is np.argmin else -np.inf)
    padded_t = np.pad(t, padding)
    out_shape = tuple((p - w) // s + 1 for p, w, s in zip(padded_x.shape, window, strides, strict=True))
    out = np.zeros(out_shape, t.dtype)
    for index in itertools.product(*map(range, out_shape)):
        sl = tuple(slice(i * s, i * s + w) for i, s, w in zip(index, strides, window, strict=True))
        k = pick(padded_x[sl].ravel())
        out[index] = padded_t[sl].ravel()[k]
    return out


@pytest.mark.parametrize("computation, init, pick", [(lax.max, -np.inf, np.argmax), (lax.min, np.inf, np.argmin)],
                         ids=["max", "min"])
def test_windowed_extremum_ties_give_the_tangent_of_the_first(computation, init, pick):
    x = np.array([[1, 3, 3, 0, 2], [3, 3, 1, 5, 5], [4, 4, 0, 5, 0], [1, 1, 1, 1, 1]], np.float32)
    t = np.arange(x.size, dtype=np.float32).reshape(x.shape) + 1
    f = lambda x: lax.reduce_window(x, init, computation, (2, 3), (1, 2), ((1, 0), (1, 1)))
    _, tangent = jax.jvp(f, (x,), (t,))
    np.testing.assert_array_equal(tangent, _chosen_tangent_oracle(x, t, (2, 3), (1, 2), ((1, 0), (1, 1)), pick))
    # The VJP sends each window's cotangent to that same element.
    out, vjp = jax.vjp(f, x)
    ct = np.arange(np.size(out), dtype=np.float32).reshape(np.shape(out)) - 3
    (ct_x,) = vjp(ct)
    np.testing.assert_allclose(np.vdot(ct_x, t), np.vdot(ct, tangent), rtol=1e-6)


def test_max_pool_vjp_under_jit_matches_eager():
    x = _distinct((2, 6, 6, 3), 5)
    loss = lambda x: jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME") ** 2)
    np.testing.assert_allclose(jax.jit(jax.grad(loss))(x), jax.grad(loss)(x), rtol=1e-6)


def test_select_and_scatter_add_transposes_select_and_gather_add():
    x = _distinct((5, 6), 6)
    params = {"select_prim": lax.ge_p, "window_dimensions": (2, 3), "window_strides": (2, 1), "padding": ((1, 0), (1, 1))}
    gather = lambda t: windowed.select_and_gather_add_p.bind(t, x, base_dilation=(1, 1), window_dilation=(1, 1),
                                                            **params)
    scatter = lambda s: windowed.select_and_scatter_add_p.bind(s, x, **params)
    t = _uniform(x.shape, 7)
    s = _uniform(np.shape(gather(t)), 8)
    np.testing.assert_allclose(np.vdot(scatter(s), t), np.vdot(s, gather(t)), rtol=1e-5)
    # Both are linear in their first operand, to every order.
    check_grads(gather, (t,), order=2, modes=("fwd", "rev"))
    check_grads(scatter, (s,), order=2, modes=("fwd", "rev"))


# --- the general reduce_window


def test_general_reduce_window_jvp():
    f = lambda x: lax.reduce_window(x, 1.0, lax.mul, (2, 2), (1, 1), ((0, 1), (1, 0)))
    check_grads(f, (_uniform((3, 4), 9, 0.5, 1.5),), order=2, modes=("fwd",))


def test_general_reduce_window_variadic_jvp():
    def f(x, y):
        return lax.reduce_window((x, y), (0.0, 1.0), lambda a, b: (a[0] + b[0] * b[1], a[1] * b[1]), (3,), (2,),
                                 ((1, 1),))

    check_grads(f, (_uniform((7,), 10), _uniform((7,), 11, 0.5, 1.5)), order=2, modes=("fwd",))


def test_general_reduce_window_refuses_init_tangents_and_reverse_mode():
    x = _uniform((5,), 12, 0.5, 1.5)
    with pytest.raises(TypeError, match="reduce_window jvp does not support non-zero init_value_tangent"):
        jax.jvp(lambda x, i: lax.reduce_window(x, i, lax.mul, (2,), (1,), "VALID"), (x, 1.0), (x, 1.0))
    with pytest.raises((NotImplementedError, ValueError)):
        jax.grad(lambda x: jnp.sum(lax.reduce_window(x, 1.0, lax.mul, (2,), (1,), "VALID")))(x)


# --- the general reduce


def test_reduce_non_lax_monoid_grads():
    # (1 + a)(1 + b) - 1: associative with identity 0, but no lax monoid.
    f = lambda x: lax.reduce(x, 0.0, lambda a, b: a + b + a * b, (0, 2))
    check_grads(f, (_uniform((3, 2, 5), 13, -0.3, 0.3),), order=2, modes=("fwd", "rev"))


def test_reduce_variadic_argmax_grads():
    def f(x):
        def pick(a, b):
            keep = a[0] >= b[0]
            return lax.select(keep, a[0], b[0]), lax.select(keep, a[1], b[1])

        return lax.reduce((x, jnp.cos(x)), (-jnp.inf, 0.0), pick, (1,))

    check_grads(f, (_distinct((3, 6), 15),), order=2, modes=("fwd", "rev"))


def test_reduce_refuses_init_tangents():
    with pytest.raises(NotImplementedError, match="non-zero tangents for initial values"):
        jax.jvp(lambda x, i: lax.reduce(x, i, lambda a, b: a * b + 1.0, (0,)), (jnp.ones(3), 1.0), (jnp.ones(3), 1.0))


# --- cumulative reductions

CUMULATIVE_CASES = [((6,), 0, False), ((7,), 0, True), ((3, 5), 1, False), ((4, 3), 0, True), ((2, 1, 3), 2, True)]


@pytest.mark.parametrize("shape, axis, reverse", CUMULATIVE_CASES)
def test_cumsum_grads_and_adjoint(shape, axis, reverse):
    f = lambda x: lax.cumsum(x, axis, reverse)
    x = _uniform(shape, 16)
    check_grads(f, (x,), order=2, modes=("fwd", "rev"))
    out, vjp = jax.vjp(f, x)
    ct = _uniform(shape, 17)
    np.testing.assert_allclose(np.vdot(vjp(ct)[0], x), np.vdot(ct, out), rtol=1e-5)


@pytest.mark.parametrize("shape, axis, reverse", CUMULATIVE_CASES)
@pytest.mark.parametrize("name", ["cumprod", "cummax", "cummin", "cumlogsumexp"])
def test_cumulative_grads(name, shape, axis, reverse):
    f = lambda x: getattr(lax, name)(x, axis, reverse)
    x = _uniform(shape, 18, 0.5, 1.5) if name == "cumprod" else _distinct(shape, 18)
    check_grads(f, (x,), order=2, modes=("fwd", "rev"))


def test_cumprod_through_a_zero():
    x = np.array([2.0, 0.0, 3.0, 1.5, -1.0], np.float32)
    g = jax.grad(lambda x: jnp.sum(lax.cumprod(x)))(x)
    # d/dx_k sum_j prod_{i<=j} x_i = sum_{j>=k} prod_{i<=j, i!=k} x_i
    expected = [sum(np.prod([x[i] for i in range(j + 1) if i != k]) for j in range(k, 5)) for k in range(5)]
    np.testing.assert_allclose(g, expected, rtol=1e-6)


def test_cummax_ties_split_the_tangent():
    # max's JVP shares a tie between both sides; the scan keeps that.
    x = np.array([1.0, 3.0, 2.0, 3.0], np.float32)
    _, t = jax.jvp(lax.cummax, (x,), (np.array([10.0, 20.0, 30.0, 40.0], np.float32),))
    np.testing.assert_allclose(t, [10.0, 20.0, 20.0, 30.0])


def test_cumlogsumexp_with_an_infinity_has_finite_tangents():
    # exp(x - out) with -inf inputs is 0, not NaN (JAX's values).
    x = np.array([-np.inf, 0.0, 1.0], np.float32)
    _, t = jax.jvp(lax.cumlogsumexp, (x,), (np.ones(3, np.float32),))
    np.testing.assert_allclose(t, [1.0, 1.0, 0.99999994], atol=1e-6)


def test_cumulative_grads_under_jit():
    x = _distinct((4, 5), 19)
    for fn in (lax.cumsum, lax.cumprod, lax.cummax, lax.cumlogsumexp):
        loss = lambda x, fn=fn: jnp.sum(jnp.sin(fn(x, axis=1)))
        np.testing.assert_allclose(jax.jit(jax.grad(loss))(x), jax.grad(loss)(x), rtol=1e-5, atol=1e-6)
