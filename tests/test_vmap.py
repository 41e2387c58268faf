"""vmap: for every placement of the mapped axis, vmap(f)(xs) equals stacking
f over the examples; compositions with jit and grad; collectives."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax

from helpers import check_close

B = 3
EXAMPLE = (2, 4)

FUNCTIONS = {
    "sin": jnp.sin,
    "add_scalar": lambda x: x + 1.5,
    "mul_self": lambda x: x * x,
    "sum_axis1": lambda x: jnp.sum(x, axis=1),
    "max_keepdims": lambda x: jnp.max(x, axis=0, keepdims=True),
    "argmax": lambda x: jnp.argmax(x, axis=1),
    "transpose": lambda x: x.T,
    "reshape": lambda x: x.reshape(8),
    "slice": lambda x: x[:, 1:3],
    "rev": lambda x: x[::-1],
    "gram": lambda x: x @ x.T,
    "softmax": jax.nn.softmax,
    "concat": lambda x: jnp.concatenate([x, x * 2], axis=1),
    "broadcast": lambda x: jnp.broadcast_to(x[0], (3, 4)),
    "where": lambda x: jnp.where(x > 0.5, x, -x),
    "squeeze": lambda x: jnp.squeeze(x[:1], 0),
    "expand": lambda x: jnp.expand_dims(x, 1),
    "cast": lambda x: x.astype(jnp.int32),
    "tanh_grad": jax.grad(lambda x: jnp.sum(jnp.tanh(x))),
    "jit": jax.jit(lambda x: jnp.cos(x) * 2.0),
    "pad": lambda x: lax.pad(x, 0.0, ((1, 0, 0), (0, 2, 1))),
}

rng = np.random.default_rng(0)
XS = rng.standard_normal((B,) + EXAMPLE).astype(np.float32)


def stacked(f, xs, axis):
    return np.stack([np.asarray(f(jnp.asarray(x))) for x in np.moveaxis(xs, 0, 0)], axis=axis)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(FUNCTIONS)), st.integers(0, 2), st.integers(0, 1))
def test_vmap_equals_stacking_for_every_axis_placement(name, in_axis, out_axis):
    f = FUNCTIONS[name]
    example_out = np.asarray(f(jnp.asarray(XS[0])))
    out_axis = min(out_axis, example_out.ndim)
    xs = np.moveaxis(XS, 0, in_axis)
    got = jax.vmap(f, in_axes=in_axis, out_axes=out_axis)(xs)
    want = stacked(f, XS, out_axis)
    check_close(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (1, 0), (0, 1)])
def test_binary_in_axes(in_axes):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    y = rng.standard_normal((4, 3)).astype(np.float32) if in_axes in [(1, 0), (0, 1)] else rng.standard_normal((3, 4)).astype(np.float32)

    def f(a, b):
        return jnp.maximum(a * 2.0, b) + a @ jnp.ones((a.shape[0],)) if a.ndim == 1 else a

    got = jax.vmap(f, in_axes=in_axes)(x, y)
    ax, ay = in_axes
    size = x.shape[ax] if ax is not None else y.shape[ay]
    want = np.stack([np.asarray(f(jnp.asarray(np.take(x, i, ax) if ax is not None else x),
                                  jnp.asarray(np.take(y, i, ay) if ay is not None else y))) for i in range(size)])
    check_close(got, want, rtol=1e-5, atol=1e-5)


def test_compositions_with_jit_and_grad():
    w = jnp.asarray(rng.standard_normal((3, 2)).astype(np.float32))
    xs = jnp.asarray(rng.standard_normal((5, 3)).astype(np.float32))
    loss = lambda w, x: jnp.sum(jnp.tanh(x @ w))  # noqa: E731
    per_example = jax.jit(jax.vmap(jax.grad(loss), in_axes=(None, 0)))(w, xs)
    want = np.stack([np.asarray(jax.grad(loss)(w, x)) for x in xs])
    check_close(per_example, want, rtol=1e-5, atol=1e-6)
    total = jax.grad(lambda w: jnp.sum(jax.vmap(loss, in_axes=(None, 0))(w, xs)))(w)
    check_close(total, want.sum(0), rtol=1e-5, atol=1e-5)


def test_nested_vmap_and_pytrees():
    out = jax.vmap(jax.vmap(lambda a, b: a * b, in_axes=(None, 0)), in_axes=(0, None))(jnp.arange(3.0), jnp.arange(4.0))
    check_close(out, np.outer(np.arange(3.0), np.arange(4.0)).astype(np.float32))
    tree = jax.vmap(lambda p: {"s": p["a"] + p["b"], "t": (p["a"],)}, in_axes=({"a": 0, "b": None},))({"a": jnp.ones((2, 3)), "b": jnp.ones(3)})
    assert tree["s"].shape == (2, 3) and tree["t"][0].shape == (2, 3)


def test_collectives():
    x = jnp.arange(4.0)
    check_close(jax.vmap(lambda v: v / lax.psum(v, "i"), axis_name="i")(x), np.arange(4.0, dtype=np.float32) / 6)
    check_close(jax.vmap(lambda v: v - lax.pmean(v, "i"), axis_name="i")(x), np.arange(4.0, dtype=np.float32) - 1.5)
    check_close(jax.vmap(lambda v: lax.pmax(v, "i"), axis_name="i")(x), np.full(4, 3.0, np.float32))
    check_close(jax.vmap(lambda v: lax.axis_index("i"), axis_name="i")(x), np.arange(4, dtype=np.int32))
    check_close(jax.vmap(lambda v: lax.all_gather(v, "i"), axis_name="i")(x), np.tile(np.arange(4.0, dtype=np.float32), (4, 1)))
    assert jax.vmap(lambda v: lax.axis_size("i"), axis_name="i")(x).tolist() == [4, 4, 4, 4]


def test_errors():
    with pytest.raises(ValueError, match="vmap got inconsistent sizes for array axes to be mapped"):
        jax.vmap(lambda a, b: a + b)(jnp.ones(3), jnp.ones(4))
    with pytest.raises(ValueError, match="at vmap out_axes, got axis spec None but output was batched on axis 0"):
        jax.vmap(lambda a: a, out_axes=None)(jnp.ones(3))
    with pytest.raises(NameError, match="unbound axis name: i"):
        lax.psum(jnp.ones(3), "i")
    # A primitive without a batching rule (as in JAX 0.11) names itself.
    with pytest.raises(NotImplementedError, match="Batching rule for 'cholesky_update' not implemented"):
        jax.vmap(lax.linalg.cholesky_update, in_axes=(0, None))(jnp.ones((2, 3, 3)), jnp.ones(3))
