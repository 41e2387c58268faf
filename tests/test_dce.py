"""Dead-code elimination (interpreters/dce.py): one eliminator, with the
per-primitive DCE rules that prune call bodies."""

import numpy as np

import pyjax as jax
import pyjax.numpy as jnp
from pyjax._src.interpreters.dce import call_dce_rule, dce_jaxpr
from pyjax._src.jaxpr import eval_jaxpr
from pyjax._src.jit import jit_p
from pyjax._src.remat import remat_p


def _outer_with_call():
    def inner(x):
        return jnp.sin(x), jnp.cos(x), x * 2.0

    def f(x, y):
        a, b, c = jax.jit(inner)(x)
        return a, y + 1.0

    return jax.make_jaxpr(f)(1.0, 2.0).jaxpr


def test_calls_declare_the_call_rule_where_defined():
    import pyjax._src.jit as jit_lib

    # jit's own rule is the generic call rule plus its sharding params
    # (moved with the kept operands and results).
    assert jit_p.dce_rule is jit_lib._jit_dce
    assert jit_lib._jit_dce.__code__.co_names.count("call_dce_rule") == 1
    assert remat_p.dce_rule is call_dce_rule


def test_without_bodies_a_call_is_kept_whole_and_invars_stay():
    jaxpr = _outer_with_call()
    pruned, used = dce_jaxpr(jaxpr, [True, False])
    assert used == [True, False]
    assert len(pruned.invars) == 2 and len(pruned.outvars) == 1
    (call,) = pruned.eqns
    assert len(call.outvars) == 3 and len(call.params["jaxpr"].eqns) == 3


def test_bodies_pruned_by_the_rule_and_unused_invars_dropped():
    jaxpr = _outer_with_call()
    pruned, used = dce_jaxpr(jaxpr, [True, False], prune_invars=True, prune_bodies=True)
    assert used == [True, False]
    assert len(pruned.invars) == 1
    (call,) = pruned.eqns
    body = call.params["jaxpr"]
    assert len(call.outvars) == 1 and [e.primitive.name for e in body.eqns] == ["sin"]
    assert call.params["donated_invars"] == (False,)
    (value,) = eval_jaxpr(pruned, pruned.consts, np.float32(1.0))
    np.testing.assert_allclose(np.asarray(value), np.sin(np.float32(1.0)), rtol=1e-6)


def test_keep_unused_keeps_the_calls_operands():
    def f(x, y):
        return jax.jit(lambda a, b: (a * 2.0, b * 3.0), keep_unused=True)(x, y)[0]

    jaxpr = jax.make_jaxpr(f)(1.0, 2.0).jaxpr
    pruned, _ = dce_jaxpr(jaxpr, [True], prune_invars=True, prune_bodies=True)
    (call,) = pruned.eqns
    assert len(call.invars) == 2 and len(call.params["jaxpr"].eqns) == 1


def test_a_primitive_without_a_rule_is_kept_whole():
    def f(x):
        return jax.lax.while_loop(lambda c: c[0] < 3.0, lambda c: (c[0] + 1.0, c[1] * 2.0), (x, x))[0]

    jaxpr = jax.make_jaxpr(f)(1.0).jaxpr
    pruned, _ = dce_jaxpr(jaxpr, None, prune_invars=True, prune_bodies=True)
    loop = next(e for e in pruned.eqns if e.primitive.name == "while")
    assert len(loop.outvars) == 2


def test_cond_rule_prunes_outputs_branches_and_operands():
    # JAX's cond DCE rule: unused outputs go, with each branch's dead
    # equations and the operands no branch reads (the index stays).
    def f(x, y):
        return jax.lax.cond(x > 0, lambda v, w: (v * 4.0, w * 2.0), lambda v, w: (v * 5.0, w * 3.0), x, y)[0]

    jaxpr = jax.make_jaxpr(f)(1.0, 2.0).jaxpr
    pruned, _ = dce_jaxpr(jaxpr, None, prune_invars=True, prune_bodies=True)
    cond = next(e for e in pruned.eqns if e.primitive.name == "cond")
    assert len(cond.outvars) == 1 and len(cond.invars) == 2
    assert all(len(b.eqns) == 1 and len(b.invars) == 1 for b in cond.params["branches"])


def test_remat_grad_prunes_nested_call_bodies():
    # The backward remat keeps only what the cotangent needs of the inner
    # jit (its cos, not its exp), as JAX 0.11 prints it.
    @jax.checkpoint
    def f(x):
        a, b = jax.jit(lambda v: (jnp.sin(v), jnp.exp(v)))(x)
        return a * 2.0 + jax.lax.stop_gradient(b)

    np.testing.assert_allclose(np.asarray(jax.grad(f)(0.5)), 2.0 * np.cos(0.5), rtol=1e-6)
    text = str(jax.make_jaxpr(jax.grad(f))(0.5))
    assert text == JAX_GRAD_TEXT


JAX_GRAD_TEXT = """{ lambda ; a:f32[]. let
    b:f32[] c:f32[] = jit[
      name=<lambda>
      jaxpr={ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = exp a in (b, c) }
    ] a
    d:f32[] = mul b 2.0:f32[]
    e:f32[] = stop_gradient c
    _:f32[] = add d e
    f:f32[] = remat2[
      differentiated=True
      jaxpr={ lambda ; g:f32[] h:f32[]. let
          i:f32[] = jit[
            name=<lambda>
            jaxpr={ lambda ; g:f32[]. let i:f32[] = cos g in (i,) }
          ] g
          j:f32[] = mul h 2.0:f32[]
          k:f32[] = jit[
            name=<lambda>
            jaxpr={ lambda ; i:f32[] j:f32[]. let k:f32[] = mul j i in (k,) }
          ] i j
        in (k,) }
      policy=None
      prevent_cse=True
    ] a 1.0:f32[]
  in (f,) }"""
