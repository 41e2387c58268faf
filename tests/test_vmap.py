"""vmap: for every placement of the mapped axis, vmap(f)(xs) equals stacking
f over the examples; compositions with jit and grad; collectives."""

import numpy as np
import pytest
from helpers import check_close
from hypothesis import given, settings
from hypothesis import strategies as st

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax

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
    loss = lambda w, x: jnp.sum(jnp.tanh(x @ w))
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


# ---------------------------------------------------------------------------
# The broadcast batcher (n-ary elementwise primitives): values for every mix
# of batched / unbatched operands, per-example scalars and batch-axis
# placements, and JAX's equation order.

BINARY = {"add": jnp.add, "sub": jnp.subtract, "mul": jnp.multiply, "max": jnp.maximum, "lt": jnp.less,
          "atan2": jnp.arctan2}


def _take(x, axis, i):
    return x if axis is None else np.take(x, i, axis)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(sorted(BINARY)), st.sampled_from([None, 0, 1, 2]), st.sampled_from([None, 0, 1, 2]),
       st.booleans(), st.booleans())
def test_broadcasting_batcher_equals_stacking(name, ax, ay, x_scalar, y_scalar):
    if ax is None and ay is None:
        ax = 0
    op = BINARY[name]
    example = (2, 3)

    def operand(axis, scalar):
        shape = () if scalar else example
        if axis is None:
            return rng.standard_normal(shape).astype(np.float32), None
        axis = min(axis, len(shape))
        full = list(shape)
        full.insert(axis, B)
        return rng.standard_normal(full).astype(np.float32), axis

    (x, ax), (y, ay) = operand(ax, x_scalar), operand(ay, y_scalar)
    got = jax.vmap(op, in_axes=(ax, ay))(x, y)
    want = np.stack([np.asarray(op(jnp.asarray(_take(x, ax, i)), jnp.asarray(_take(y, ay, i)))) for i in range(B)])
    check_close(got, want, rtol=1e-6, atol=1e-6)


def _primitive_names(jaxpr):
    return [eqn.primitive.name for eqn in jaxpr.eqns]


def test_broadcasting_batcher_moves_batched_operands_in_argument_order():
    # JAX's first pass runs in argument order: the batched operand's
    # transpose comes before the unbatched operand's size-1 broadcast.
    jaxpr = jax.make_jaxpr(jax.vmap(lambda a, b: a - b, in_axes=(1, None)))(jnp.ones((3, 4)), jnp.ones(3)).jaxpr
    assert _primitive_names(jaxpr) == ["transpose", "broadcast_in_dim", "sub"]
    jaxpr = jax.make_jaxpr(jax.vmap(lambda a, b: a - b, in_axes=(None, 1)))(jnp.ones(3), jnp.ones((3, 4))).jaxpr
    assert _primitive_names(jaxpr) == ["broadcast_in_dim", "transpose", "sub"]
    # A per-example scalar is expanded (trailing size-1 axes) in the second pass.
    jaxpr = jax.make_jaxpr(jax.vmap(lambda s, m: s * m, in_axes=(0, 2)))(jnp.ones(3), jnp.ones((2, 4, 3))).jaxpr
    assert _primitive_names(jaxpr) == ["transpose", "broadcast_in_dim", "mul"]
    assert jaxpr.eqns[1].outvars[0].aval.shape == (3, 1, 1)


def test_broadcasting_batcher_leaves_agreeing_operands_alone():
    # Same batch axis, same shape, and unbatched rank-0 operands: one equation.
    jaxpr = jax.make_jaxpr(jax.vmap(lambda a, b: a * b + 2.0, in_axes=(1, 1), out_axes=1))(jnp.ones((2, 5)), jnp.ones((2, 5))).jaxpr
    assert _primitive_names(jaxpr) == ["mul", "add"]


def test_jacfwd_of_matvec_matches_finite_differences():
    W = jnp.asarray(rng.standard_normal((3, 4)).astype(np.float32))
    f = lambda x: jnp.tanh(W @ x) * jnp.arange(1.0, 4.0)
    x = rng.standard_normal(4).astype(np.float32)
    eps = 1e-3
    fd = np.stack([(np.asarray(f(jnp.asarray(x + eps * e))) - np.asarray(f(jnp.asarray(x - eps * e)))) / (2 * eps)
                   for e in np.eye(4, dtype=np.float32)], axis=1)
    check_close(jax.jacfwd(f)(jnp.asarray(x)), fd.astype(np.float32), rtol=2e-2, atol=2e-3)


# ---------------------------------------------------------------------------
# The axis environment: a jit traced inside a named vmap sees its axes.


def test_vmap_of_jit_collectives_values():
    x = np.arange(1.0, 5.0, dtype=np.float32)
    check_close(jax.vmap(jax.jit(lambda v: v / lax.psum(v, "i")), axis_name="i")(x), x / x.sum())
    check_close(jax.vmap(jax.jit(lambda v: v - lax.pmean(v, "i")), axis_name="i")(x), x - x.mean())
    check_close(jax.vmap(jax.jit(lambda v: lax.pmin(v, "i") + lax.axis_index("i")), axis_name="i")(x),
                np.float32(1) + np.arange(4, dtype=np.float32))
    check_close(jax.vmap(jax.jit(lambda v: lax.all_gather(v, "i")), axis_name="i")(x), np.tile(x, (4, 1)))
    assert jax.vmap(jax.jit(lambda v: lax.axis_size("i") * v), axis_name="i")(jnp.ones(4)).tolist() == [4.0] * 4
    xs = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    two = jax.vmap(jax.vmap(jax.jit(lambda v: lax.psum(v, ("i", "j"))), axis_name="j"), axis_name="i")(xs)
    check_close(two, np.broadcast_to(xs.sum((0, 1)), xs.shape))
    inner_only = jax.vmap(jax.vmap(jax.jit(lambda v: lax.psum(v, "i")), axis_name="j"), axis_name="i")(xs)
    check_close(inner_only, np.broadcast_to(xs.sum(0), xs.shape))


@pytest.mark.numpy_backend("a psum inside jit: collectives are declared, not lowered, for IREE")
def test_vmap_of_jit_collective_under_grad_and_jit():
    xs = jnp.asarray(rng.standard_normal((3, 2)).astype(np.float32))
    f = jax.jit(lambda v: jnp.sum(jnp.sin(v) * lax.psum(v, "i")))
    got = jax.vmap(jax.grad(f), axis_name="i")(xs)
    # d/dv_k sum_j sin(v_k_j) S_j = cos(v_k) S + sum_l sin(v_l): S = psum(v).
    s = np.asarray(xs).sum(0)
    want = np.cos(np.asarray(xs)) * s + np.sin(np.asarray(xs)).sum(0)
    check_close(got, want.astype(np.float32), rtol=1e-5, atol=1e-5)
    check_close(jax.jit(jax.vmap(jax.jit(lambda v: lax.psum(v, "i")), axis_name="i"))(xs), np.broadcast_to(s, (3, 2)),
                rtol=1e-6, atol=1e-6)


def test_jit_cache_is_keyed_on_the_axis_env():
    traces = []
    g = jax.jit(lambda v: (traces.append(1), v * lax.psum(1, "i"))[1])
    check_close(jax.vmap(g, axis_name="i")(jnp.ones(3)), np.full(3, 3.0, np.float32))
    check_close(jax.vmap(g, axis_name="i")(jnp.ones(3)), np.full(3, 3.0, np.float32))
    assert len(traces) == 1
    check_close(jax.vmap(g, axis_name="i")(jnp.ones(5)), np.full(5, 5.0, np.float32))
    assert len(traces) == 2
    # Outside the vmap the name is unbound again: traced anew, JAX's error.
    with pytest.raises(NameError, match="unbound axis name: i"):
        g(jnp.float32(1.0))
    with pytest.raises(NameError, match="unbound axis name: i"):
        g(jnp.float32(1.0))


def test_unnamed_vmap_does_not_retrace_a_jit():
    traces = []
    g = jax.jit(lambda v: (traces.append(1), jnp.sin(v))[1])
    jax.vmap(g)(jnp.ones(3))
    jax.vmap(g)(jnp.ones(5))
    assert len(traces) == 1


def test_axis_env_is_restored_after_an_error():
    from pyjax._src.interpreters import batching

    with pytest.raises(ZeroDivisionError):
        jax.vmap(lambda v: 1 // 0, axis_name="i")(jnp.ones(3))
    assert batching.axis_env() == ()
    with pytest.raises(NameError, match="Found an unbound axis name: k"):
        jax.vmap(jax.jit(lambda v: lax.psum(v, "k")), axis_name="i")(jnp.ones(3))
    assert batching.axis_env() == ()


def test_batched_jit_keeps_the_body_output_batch_axis():
    # As JAX: the body's output batch axis stays where the body leaves it;
    # vmap moves it once, outside the jit.
    jaxpr = jax.make_jaxpr(jax.vmap(jax.jit(jnp.sin), in_axes=1))(jnp.ones((3, 2))).jaxpr
    assert _primitive_names(jaxpr) == ["jit", "transpose"]
    assert _primitive_names(jaxpr.eqns[0].params["jaxpr"]) == ["sin"]
    check_close(jax.vmap(jax.jit(lambda v: jnp.sum(v, 0)), in_axes=2)(jnp.ones((2, 3, 4))), np.full((4, 3), 2.0, np.float32))


def test_collective_of_unbatched_operand_inside_a_body():
    # No operand of the cond / scan / jit is batched, but their bodies hold a
    # psum over the vmapped name: it must still be resolved (times the size).
    c = jnp.arange(2.0)
    ones = jnp.ones((3, 2))
    via_cond = jax.vmap(lambda x: lax.cond(True, lambda: lax.psum(c, "i"), lambda: c) + x, axis_name="i")(ones)
    check_close(via_cond, np.broadcast_to(np.asarray(c) * 3 + 1, (3, 2)))
    via_scan = jax.vmap(lambda x: lax.scan(lambda a, _: (lax.psum(a, "i"), None), c, None, length=2)[0] * x,
                        axis_name="i")(ones)
    check_close(via_scan, np.broadcast_to(np.asarray(c) * 9, (3, 2)))
    via_jit = jax.vmap(lambda x: jax.jit(lambda y: lax.pmax(y, "i") + lax.psum(y, "i"))(c) - x, axis_name="i")(ones)
    check_close(via_jit, np.broadcast_to(np.asarray(c) * 4 - 1, (3, 2)))
