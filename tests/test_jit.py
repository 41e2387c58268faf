"""jit: the cache key (treedef, avals, static arguments, config), nested jit
equations, and agreement with eager execution."""

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax

from helpers import check_close, check_jit_matches_eager


def counted(fun):
    count = [0]

    def wrapper(*args, **kwargs):
        count[0] += 1
        return fun(*args, **kwargs)

    wrapper.__name__ = fun.__name__
    return wrapper, count


def test_side_effects_fire_only_while_tracing():
    f, count = counted(lambda x: x * 2.0)
    jf = jax.jit(f)
    for _ in range(3):
        jf(jnp.ones(3))
    assert count[0] == 1


def test_new_shape_or_dtype_or_weak_type_retraces():
    f, count = counted(lambda x: x + 1)
    jf = jax.jit(f)
    jf(jnp.ones(3))
    jf(jnp.ones(3))
    assert count[0] == 1
    jf(jnp.ones(4))
    assert count[0] == 2
    jf(jnp.ones(4, jnp.int32))
    assert count[0] == 3
    jf(1.0)  # a weakly typed Python scalar
    jf(jnp.float32(1.0))  # a strongly typed scalar array: a different aval
    assert count[0] == 5
    assert jf._cache_size() == 5


def test_new_tree_structure_retraces():
    f, count = counted(lambda t: t["a"] + t["b"])
    jf = jax.jit(f)
    jf({"a": 1.0, "b": 2.0})
    jf({"a": 3.0, "b": 4.0})
    assert count[0] == 1
    jf({"a": 1.0, "b": (2.0)})
    assert count[0] == 1
    jf({"a": jnp.ones(2), "b": 2.0})
    assert count[0] == 2


def test_static_argnums_by_value():
    f, count = counted(lambda n, x: x * n)
    jf = jax.jit(f, static_argnums=0)
    assert jf(2, 3.0).item() == 6.0
    assert jf(2, 4.0).item() == 8.0
    assert count[0] == 1
    assert jf(3, 4.0).item() == 12.0
    assert count[0] == 2
    with pytest.raises(ValueError, match="Non-hashable static arguments are not supported"):
        jf([1], 1.0)


def test_static_argnames():
    f, count = counted(lambda x, *, mode: x + (1.0 if mode == "up" else -1.0))
    jf = jax.jit(f, static_argnames="mode")
    assert jf(1.0, mode="up").item() == 2.0
    assert jf(1.0, mode="down").item() == 0.0
    assert jf(5.0, mode="down").item() == 4.0
    assert count[0] == 2


def test_x64_is_part_of_the_cache_key():
    f, count = counted(lambda x: x + 1)
    jf = jax.jit(f)
    jf(1.0)
    with jax.enable_x64(True):
        assert jf(1.0).dtype == np.float64
    assert count[0] == 2


def test_closed_over_global_is_frozen_at_trace_time():
    state = {"scale": 2.0}
    jf = jax.jit(lambda x: x * state["scale"])
    assert jf(1.0).item() == 2.0
    state["scale"] = 10.0
    assert jf(1.0).item() == 2.0


def test_nested_jit_is_one_equation_and_inline_inlines():
    inner = jax.jit(lambda x: jnp.sin(x) * 2.0)
    jaxpr = jax.make_jaxpr(lambda x: inner(x) + 1.0)(1.0)
    assert [e.primitive.name for e in jaxpr.eqns] == ["jit", "add"]
    assert jaxpr.eqns[0].params["name"] == "<lambda>"
    inlined = jax.jit(lambda x: jnp.sin(x) * 2.0, inline=True)
    jaxpr = jax.make_jaxpr(lambda x: inlined(x) + 1.0)(1.0)
    assert [e.primitive.name for e in jaxpr.eqns] == ["sin", "mul", "add"]


def test_tracer_bool_inside_jit_says_for_jit():
    def bad(x):
        if x > 0:
            return x
        return -x

    with pytest.raises(jax.errors.TracerBoolConversionError, match="for jit"):
        jax.jit(bad)(1.0)


def test_disable_jit_runs_python():
    seen = []
    jf = jax.jit(lambda x: seen.append(type(x).__name__) or x)
    with jax.disable_jit():
        jf(jnp.ones(2))
    assert seen == ["ArrayImpl"] or seen == ["Array"]


@pytest.mark.parametrize("fun,args", [
    (lambda x, W, b: jnp.maximum(x @ W + b, 0.0), (jnp.ones((4, 8)), jnp.ones((8, 3)) * 0.1, jnp.zeros(3))),
    (lambda x: jax.nn.softmax(x @ x.T), (jnp.arange(12.0).reshape(3, 4) / 10,)),
    (lambda x: (x.sum(), x.mean(axis=0), x.max(axis=1, keepdims=True)), (jnp.arange(6.0).reshape(2, 3),)),
    (lambda i: (i * 2.5, i // 2, i % 2, -i), (jnp.arange(5),)),
    (lambda x: jnp.where(x > 1, x, -jnp.inf), (jnp.arange(4.0),)),
    (lambda x: lax.dot_general(x, x, (((1,), (1,)), ((0,), (0,)))), (jnp.ones((2, 3, 4)),)),
    (lambda x: x[1:, ::-1].reshape(-1), (jnp.arange(12.0).reshape(3, 4),)),
])
def test_jit_matches_eager(fun, args):
    check_jit_matches_eager(fun, *args)


def test_python_scalar_arguments_are_weak():
    out = jax.jit(lambda x, y: x * y + 1)(jnp.arange(4), 3)
    check_close(out, np.array([1, 4, 7, 10], np.int32))
    assert not jax.typeof(out).weak_type
    assert jax.typeof(jax.jit(lambda y: y + 1)(3)).weak_type


def test_eval_shape():
    out = jax.jit(lambda x: {"y": x @ x.T}).eval_shape(jnp.ones((3, 2)))
    assert out["y"].shape == (3, 3) and out["y"].dtype == np.float32
    assert jax.eval_shape(lambda x: x.sum(), jnp.ones(4)).shape == ()


def test_jit_of_a_wrapper_around_a_jitted_function_keeps_its_own_cache():
    # vmap(g) copies g's attributes with functools.wraps; jit of it must still
    # trace the vmapped function, not reuse g's cache.
    g = jax.jit(lambda a: a * jnp.arange(a.shape[0]))
    out = jax.jit(jax.vmap(g, in_axes=1))(jnp.ones((2, 3)))
    check_close(out, np.tile(np.arange(2, dtype=np.float32), (3, 1)))
