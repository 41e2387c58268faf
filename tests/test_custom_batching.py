"""custom_vmap, sequential_vmap and custom_gradient, against JAX 0.11.0's
behaviour (expected text and errors recorded from the reference)."""

import re

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax.custom_batching import custom_vmap, sequential_vmap


def _f():
    @custom_vmap
    def f(x, y):
        return jnp.sin(x) * y

    @f.def_vmap
    def rule(axis_size, in_batched, xs, ys):
        rule.calls.append((axis_size, in_batched))
        return jnp.cos(xs) * ys, in_batched[0] or in_batched[1]

    rule.calls = []
    return f, rule


def test_custom_vmap_uses_rule_only_under_vmap():
    f, rule = _f()
    np.testing.assert_allclose(f(1.0, 2.0), np.sin(np.float32(1)) * 2, rtol=1e-6)
    out = jax.vmap(f, in_axes=(0, None))(jnp.arange(3.0), 2.0)
    np.testing.assert_allclose(out, np.cos(np.arange(3, dtype=np.float32)) * 2, rtol=1e-6)
    assert rule.calls == [(3, [True, False])]
    out = jax.jit(jax.vmap(f))(jnp.arange(3.0), jnp.ones(3))
    np.testing.assert_allclose(out, np.cos(np.arange(3, dtype=np.float32)), rtol=1e-6)
    out = jax.vmap(jax.vmap(f))(jnp.ones((2, 3)), jnp.ones((2, 3)))
    np.testing.assert_allclose(out, np.full((2, 3), np.cos(np.float32(1))), rtol=1e-6)


def test_custom_vmap_jaxpr_text():
    f, _ = _f()
    text = re.sub(r"0x[0-9a-fA-FX]+", "0xX", str(jax.make_jaxpr(f)(1.0, 2.0)))
    assert text == """{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = custom_vmap_call[
      call={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = sin d
          g:f32[] = mul f e
        in (g,) }
      in_tree=PyTreeDef(([], (*, *)))
      out_tree=PyTreeDef(*)
      rule=<function _f.<locals>.rule at 0xX>
    ] a b
  in (c,) }"""
    assert str(jax.make_jaxpr(jax.vmap(f))(jnp.arange(3.0), jnp.ones(3))) == (
        "{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = cos a; d:f32[3] = mul c b in (d,) }")


def test_custom_vmap_autodiff():
    f, _ = _f()
    # jvp differentiates the body; grad of vmap differentiates the rule.
    _, t = jax.jvp(f, (1.0, 2.0), (1.0, 0.0))
    np.testing.assert_allclose(t, np.cos(np.float32(1)) * 2, rtol=1e-6)
    g = jax.grad(lambda x: jax.vmap(f)(x, jnp.ones(3)).sum())(jnp.arange(3.0))
    np.testing.assert_allclose(g, -np.sin(np.arange(3, dtype=np.float32)), rtol=1e-6)
    with pytest.raises(ValueError, match="Linearization failed to produce known values for all output primals"):
        jax.grad(f)(1.0, 2.0)


def test_custom_vmap_errors():
    @custom_vmap
    def h(x):
        return x

    with pytest.raises(AttributeError, match="No batching rule defined for custom_vmap function h using def_vmap."):
        h(1.0)

    @custom_vmap
    def k(x):
        return x

    k.def_vmap(lambda n, b, x: ((x, x), True))
    with pytest.raises(ValueError, match="structure of output value and output batching specification"):
        jax.vmap(k)(jnp.ones(2))


def test_sequential_vmap_loops():
    @sequential_vmap
    def g(x):
        return jnp.sum(x) * 2

    np.testing.assert_array_equal(jax.vmap(g)(jnp.ones((3, 2))), [4.0, 4.0, 4.0])
    text = str(jax.make_jaxpr(jax.vmap(g))(jnp.ones((3, 2))))
    assert "scan[" in text and "custom_vmap_call[" in text and "length=3" in text


def test_custom_gradient():
    @jax.custom_gradient
    def f(x):
        return x ** 2, lambda g: (g * x,)

    assert float(f(3.0)) == 9.0 and float(jax.grad(f)(3.0)) == 3.0 and float(jax.grad(jax.grad(f))(3.0)) == 1.0
    assert float(jax.jit(jax.grad(f))(3.0)) == 3.0
    assert str(jax.make_jaxpr(jax.grad(f))(3.0)) == """{ lambda ; a:f32[]. let
    _:f32[] = integer_pow[y=2] a
    b:f32[] = mul 1.0:f32[] a
  in (b,) }"""
    assert "name=wrapped_fun\n      bwd=bwd" in str(jax.make_jaxpr(f)(3.0))

    @jax.custom_gradient
    def g(x, y):
        return x * y, lambda ct: (ct * 10.0, ct * 20.0)

    assert [float(v) for v in jax.grad(g, argnums=(0, 1))(1.0, 2.0)] == [10.0, 20.0]
    np.testing.assert_array_equal(jax.vmap(jax.grad(g))(jnp.arange(3.0), jnp.ones(3)), [10.0, 10.0, 10.0])

    @jax.custom_gradient
    def h(x):
        return x, lambda ct: ct * 3.0  # one cotangent, not a tuple

    assert float(jax.grad(h)(1.0)) == 3.0
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        jax.jvp(f, (3.0,), (1.0,))
