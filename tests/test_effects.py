"""Effects: a primitive declares them (`Primitive.effects_of`), staging
records them on the equation and on the jaxpr, call-like primitives take on
their bodies' effects, and dead-code elimination keeps effectful equations
(recorded from JAX 0.11: the same equations carry the Debug effect)."""

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.interpreters.dce import dce_jaxpr


def _inner(y):
    jax.debug.print("inner {}", y)
    return y * 3.0


def _f(x):
    jax.jit(_inner)(x)  # its result is unused
    return (x * 2.0).sum()


def _effects(jaxpr):
    return sorted(map(str, jaxpr.effects)), [sorted(map(str, e.effects)) for e in jaxpr.jaxpr.eqns]


def test_staged_equations_and_jaxprs_carry_effects():
    # JAX 0.11: ['Debug'] [['Debug'], [], []]
    assert _effects(jax.make_jaxpr(_f)(jnp.ones(2))) == (["Debug"], [["Debug"], [], []])
    ordered = jax.make_jaxpr(lambda a: jax.debug.callback(print, a, ordered=True))(jnp.ones(2))
    assert _effects(ordered) == (["OrderedDebug"], [["OrderedDebug"]])


def test_control_flow_takes_on_its_bodies_effects():
    def body(c, x):
        jax.debug.print("{}", x)
        return c + x, None

    scanned = jax.make_jaxpr(lambda xs: lax.scan(body, 0.0, xs)[0])(jnp.ones(3))
    assert _effects(scanned) == (["Debug"], [["Debug"]])
    branched = jax.make_jaxpr(lambda a: lax.cond(a > 0, lambda b: jax.debug.print("{}", b), lambda b: None, a))(1.0)
    assert [sorted(map(str, e.effects)) for e in branched.jaxpr.eqns][-1] == ["Debug"]
    pure = jax.make_jaxpr(lambda xs: lax.scan(lambda c, x: (c + x, None), 0.0, xs)[0])(jnp.ones(3))
    assert _effects(pure) == ([], [[]])


def test_dce_keeps_an_effectful_call_whose_outputs_are_unused(capsys):
    closed = jax.make_jaxpr(_f)(jnp.ones(2))
    pruned, _ = dce_jaxpr(closed.jaxpr)
    assert pruned.eqns[0].primitive.name == "jit"
    # And at run time, under grad and jit, the print happens (JAX prints the same two lines).
    jax.grad(_f)(jnp.ones(2))
    jax.jit(_f)(jnp.ones(2))
    assert capsys.readouterr().out == "inner [1. 1.]\ninner [1. 1.]\n"
