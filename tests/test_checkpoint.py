"""jax.checkpoint / remat: gradients equal the plain function's, each policy
saves the residuals JAX 0.11 saves (tests/golden/checkpoint_residuals.json,
recorded by tests/golden/record_saved_residuals.py), the remat equation
survives jit / vmap / grad(grad), static_argnums, checkpoint_name, and the
NumPy backend runs remat bodies eagerly and compiled."""

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import ad_checkpoint as ad
from pyjax._src.ad_checkpoint import saved_residuals

GOLDEN = Path(__file__).resolve().parent / "golden"
sys.path.insert(0, str(GOLDEN))

from record_saved_residuals import SAVED_RESIDUAL_CASES, run_case

RECORDED = json.loads((GOLDEN / "checkpoint_residuals.json").read_text())
POLICIES = jax.checkpoint_policies


def f_chain(x):
    return jnp.sum(jnp.sin(jnp.cos(x) * x) * jnp.exp(x))


def f_mlp(w, x):
    h = ad.checkpoint_name(jnp.tanh(w @ x), "h")
    return jnp.sum(jnp.sin(w.T @ h))


ALL_POLICIES = [
    None, POLICIES.everything_saveable, POLICIES.nothing_saveable, POLICIES.dots_saveable,
    POLICIES.checkpoint_dots, POLICIES.dots_with_no_batch_dims_saveable,
    POLICIES.checkpoint_dots_with_no_batch_dims, POLICIES.save_only_these_names("h"),
    POLICIES.save_any_names_but_these("h"), POLICIES.save_anything_except_these_names("h"),
    POLICIES.save_from_both_policies(POLICIES.dots_saveable, POLICIES.save_only_these_names("h")),
    POLICIES.save_and_offload_only_these_names(names_which_can_be_saved=(), names_which_can_be_offloaded=("h",),
                                               offload_src="device", offload_dst="pinned_host"),
    POLICIES.offload_dot_with_no_batch_dims("device", "pinned_host"),
]


# --- gradients equal the un-checkpointed function's


@pytest.mark.parametrize("policy", ALL_POLICIES, ids=lambda p: getattr(p, "__name__", type(p).__name__))
def test_gradient_matches_plain_function_for_each_policy(policy):
    w = jnp.arange(12.0).reshape(3, 4) / 10
    x = jnp.linspace(-1.0, 1.0, 4)
    want = jax.grad(f_mlp, argnums=(0, 1))(w, x)
    got = jax.grad(jax.checkpoint(f_mlp, policy=policy), argnums=(0, 1))(w, x)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


def test_checkpoint_is_a_remat_equation_and_grad_recomputes():
    x = jnp.linspace(0.1, 1.0, 3)
    plain = jax.make_jaxpr(jax.grad(f_chain))(x)
    remat = jax.make_jaxpr(jax.grad(jax.checkpoint(f_chain)))(x)
    assert "remat2" not in str(plain)
    differentiated = [e for e in remat.eqns if e.primitive.name == "remat2"]
    assert len(differentiated) == 1 and differentiated[0].params["differentiated"] is True
    body = str(differentiated[0].params["jaxpr"])
    assert "cos" in body and "exp" in body  # the forward values are recomputed in the backward pass
    np.testing.assert_allclose(jax.grad(jax.checkpoint(f_chain))(x), jax.grad(f_chain)(x), rtol=1e-6)


def test_remat_alias_and_decorator_forms():
    @jax.checkpoint
    def f(x):
        return jnp.sin(x) * x

    @jax.remat
    def g(x):
        return jnp.sin(x) * x

    for h in (f, g):
        assert "remat2" in str(jax.make_jaxpr(h)(1.0))
        np.testing.assert_allclose(jax.grad(h)(0.3), np.cos(0.3) * 0.3 + np.sin(0.3), rtol=1e-6)
    assert ad.remat is jax.remat and ad.checkpoint is jax.checkpoint


# --- saved residuals per policy, as JAX saves them


def _comparable(residuals, offload: bool):
    # On this single-memory backend an offloaded residual is saved in place:
    # JAX reports it as a device_put output in host memory.
    if offload:
        return sorted(aval.replace("<host>", "") for aval, _ in residuals)
    return [tuple(r) for r in residuals]


@pytest.mark.parametrize("name", sorted(SAVED_RESIDUAL_CASES))
def test_saved_residuals_match_jax(name):
    recorded = RECORDED[name]
    assert recorded["source"] == SAVED_RESIDUAL_CASES[name], "re-record with record_saved_residuals.py"
    offload = "offload" in name
    got = run_case(SAVED_RESIDUAL_CASES[name], jax, jnp, ad)
    assert _comparable(got, offload) == _comparable(recorded["residuals"], offload)


def test_saved_residuals_report_sources_and_names(capsys):
    def f(x):
        y = ad.checkpoint_name(jnp.sin(x), "y")
        return jnp.cos(y) * x

    res = saved_residuals(jax.checkpoint(f, policy=POLICIES.save_only_these_names("y")), 1.0)
    assert [(str(a.str_short()), s.split(" from ")[0]) for a, s in res] == [("f32[]", "from the argument x"), ("f32[]", "named 'y'")]
    assert res[1][1].endswith("(f)") and "test_checkpoint.py:" in res[1][1]
    ad.print_saved_residuals(jax.checkpoint(f), 1.0)
    assert capsys.readouterr().out == "f32[] from the argument x\n"


def test_everything_saveable_saves_what_plain_vjp_saves():
    x = jnp.ones(3)
    plain = [a for a, _ in saved_residuals(f_chain, x)]
    saved = [a for a, _ in saved_residuals(jax.checkpoint(f_chain, policy=POLICIES.everything_saveable), x)]
    nothing = [a for a, _ in saved_residuals(jax.checkpoint(f_chain), x)]
    assert saved == plain and len(plain) > 1 and nothing == [x.aval]


# --- compositions


def test_jit_of_grad_of_checkpoint_runs_compiled():
    x = jnp.linspace(-1.0, 2.0, 5)
    want = jax.grad(f_chain)(x)
    for policy in (None, POLICIES.everything_saveable, POLICIES.dots_saveable):
        got = jax.jit(jax.grad(jax.checkpoint(f_chain, policy=policy)))(x)
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_checkpoint_runs_eagerly_and_under_jit():
    x = jnp.arange(4.0)
    cf = jax.checkpoint(lambda x: jnp.sin(x) ** 2 + ad.checkpoint_name(x, "x"))
    want = np.sin(np.arange(4.0)) ** 2 + np.arange(4.0)
    np.testing.assert_allclose(cf(x), want, rtol=1e-6)
    np.testing.assert_allclose(jax.jit(cf)(x), want, rtol=1e-6)


def test_vmap_of_checkpoint_stays_a_checkpoint_and_batches():
    cf = jax.checkpoint(lambda x, y: jnp.sin(x) * y)
    xs, y = jnp.arange(6.0).reshape(3, 2), jnp.array([1.0, -2.0])
    jaxpr = jax.make_jaxpr(jax.vmap(cf, in_axes=(0, None)))(xs, y)
    (eqn,) = jaxpr.eqns
    assert eqn.primitive.name == "remat2" and eqn.params["differentiated"] is False
    np.testing.assert_allclose(jax.vmap(cf, in_axes=(0, None))(xs, y), np.sin(np.arange(6.0).reshape(3, 2)) * [1, -2], rtol=1e-6)
    per_example = jax.vmap(jax.grad(lambda x: jnp.sum(cf(x, y))))(xs)
    np.testing.assert_allclose(per_example, np.cos(np.arange(6.0).reshape(3, 2)) * [1, -2], rtol=1e-6)


def test_grad_of_grad_and_jvp_of_checkpoint():
    cf = jax.checkpoint(lambda x: jnp.sin(x) * jnp.exp(x))
    x = 0.7
    second = jax.grad(jax.grad(cf))(x)
    want = 2 * np.cos(x) * np.exp(x)  # (sin e^x)'' = 2 cos(x) e^x
    np.testing.assert_allclose(second, want, rtol=1e-5)
    primal, tangent = jax.jvp(cf, (x,), (1.0,))
    np.testing.assert_allclose(tangent, (np.cos(x) + np.sin(x)) * np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(primal, np.sin(x) * np.exp(x), rtol=1e-6)


def test_nested_checkpoints_and_jit_inside():
    inner = jax.jit(lambda x: jnp.sin(jnp.sin(x)))
    f = jax.checkpoint(lambda x: jax.checkpoint(inner)(x) * jnp.cos(x), policy=POLICIES.everything_saveable)
    x = jnp.array([0.2, 1.3])
    plain = lambda x: jnp.sin(jnp.sin(x)) * jnp.cos(x)
    np.testing.assert_allclose(jax.grad(lambda x: jnp.sum(f(x)))(x), jax.grad(lambda x: jnp.sum(plain(x)))(x), rtol=1e-6)


def test_static_argnums_and_pytrees():
    def f(p, n, *, scale):
        y = p["a"] * scale
        for _ in range(n):
            y = jnp.sin(y)
        return {"y": y, "b": p["b"]}

    cf = jax.checkpoint(f, static_argnums=(1,), static_argnames="scale")
    p = {"a": jnp.array([0.5, 1.0]), "b": jnp.array(3.0)}
    out = cf(p, 3, scale=2.0)
    np.testing.assert_allclose(out["y"], np.sin(np.sin(np.sin([1.0, 2.0]))), rtol=1e-6)
    g = jax.grad(lambda p: jnp.sum(cf(p, 2, scale=2.0)["y"]))(p)
    want = jax.grad(lambda p: jnp.sum(f(p, 2, scale=2.0)["y"]))(p)
    np.testing.assert_allclose(g["a"], want["a"], rtol=1e-6)
    assert float(g["b"]) == 0.0


def test_static_argnums_errors_and_concretization_hint():
    with pytest.raises(ValueError, match="can only take integer values greater than or equal to `-len\\(args\\)`"):
        jax.checkpoint(lambda x: x, static_argnums=(2,))(1.0)
    with pytest.raises(TypeError, match="must be an int, tuple of ints or, bool"):
        jax.checkpoint(lambda x: x, static_argnums=[0])(1.0)
    with pytest.raises(jax.errors.ConcretizationTypeError, match="Consider using the `static_argnums` parameter"):
        jax.checkpoint(lambda x, n: x if n > 0 else -x)(1.0, 2.0)


def test_prevent_cse_param_and_per_argument_tuple():
    jaxpr = jax.make_jaxpr(jax.checkpoint(lambda x, y: x * y, prevent_cse=False))(1.0, 2.0)
    assert jaxpr.eqns[0].params["prevent_cse"] is False
    jaxpr = jax.make_jaxpr(jax.checkpoint(lambda x, y: x * y[0] * y[1], prevent_cse=(True, False)))(1.0, (2.0, 3.0))
    assert jaxpr.eqns[0].params["prevent_cse"] == (True, False, False)
    g = jax.grad(jax.checkpoint(lambda x, y: jnp.sin(x) * y, prevent_cse=(False, True)))(0.5, 2.0)
    np.testing.assert_allclose(g, 2 * np.cos(0.5), rtol=1e-6)


# --- checkpoint_name and the policies themselves


def test_checkpoint_name_is_identity_under_every_transformation():
    named = lambda x: ad.checkpoint_name(jnp.sin(x), "s") * 2
    x = jnp.array([0.1, 0.2])
    assert "name[name=s]" in str(jax.make_jaxpr(named)(x))
    np.testing.assert_allclose(named(x), 2 * np.sin([0.1, 0.2]), rtol=1e-6)
    np.testing.assert_allclose(jax.jit(named)(x), 2 * np.sin([0.1, 0.2]), rtol=1e-6)
    np.testing.assert_allclose(jax.vmap(named)(x), 2 * np.sin([0.1, 0.2]), rtol=1e-6)
    np.testing.assert_allclose(jax.grad(lambda x: jnp.sum(named(x)))(x), 2 * np.cos([0.1, 0.2]), rtol=1e-6)
    tangent = jax.jvp(named, (x,), (jnp.ones(2),))[1]
    np.testing.assert_allclose(tangent, 2 * np.cos([0.1, 0.2]), rtol=1e-6)
    tree = ad.checkpoint_name({"a": x, "b": (x, x)}, "t")
    assert set(tree) == {"a", "b"} and len(tree["b"]) == 2


def test_policy_objects_answer_like_jax():
    from pyjax._src.ad_checkpoint import name_p
    from pyjax._src.lax.dot import dot_general_p
    from pyjax._src.lax.elementwise import sin_p

    plain_dot = {"dimension_numbers": (((1,), (0,)), ((), ()))}
    batched_dot = {"dimension_numbers": (((2,), (1,)), ((0,), (0,)))}
    assert POLICIES.dots_saveable(dot_general_p, **batched_dot) is True
    assert POLICIES.dots_with_no_batch_dims_saveable(dot_general_p, **batched_dot) is False
    assert POLICIES.dots_with_no_batch_dims_saveable(dot_general_p, **plain_dot) is True
    assert POLICIES.dots_saveable(sin_p) is False
    assert POLICIES.save_only_these_names("a")(name_p, name="a") is True
    assert POLICIES.save_only_these_names("a")(name_p, name="b") is False
    assert POLICIES.save_any_names_but_these("a")(name_p, name="b") is True
    assert POLICIES.save_any_names_but_these("a")(sin_p) is False
    assert repr(POLICIES.save_only_these_names("y")) == "SaveOnlyTheseNames(saveable_names=frozenset({'y'}))"
    with pytest.raises(ValueError, match="The return value of the policies should be a boolean"):
        POLICIES.save_from_both_policies(POLICIES.offload_dot_with_no_batch_dims("a", "b"), POLICIES.dots_saveable)(
            dot_general_p, **plain_dot)


def test_policy_returning_garbage_raises_jax_type_error():
    with pytest.raises(TypeError, match="Value returned by a remat policy should be a bool"):
        jax.grad(jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)), policy=lambda *_, **__: "yes"))(1.0)


def test_custom_policy_sees_primitive_and_avals():
    seen = []

    def policy(prim, *avals, **params):
        seen.append((prim.name, tuple(a.shape for a in avals)))
        return prim.name == "cos"

    jax.grad(jax.checkpoint(lambda x: jnp.sum(jnp.sin(jnp.cos(x))), policy=policy))(jnp.ones(2))
    assert ("cos", ((2,),)) in seen and ("sin", ((2,),)) in seen
    res = [s for _, s in saved_residuals(jax.checkpoint(lambda x: jnp.sum(jnp.sin(jnp.cos(x))), policy=policy), jnp.ones(2))]
    assert any(s.startswith("output of cos") for s in res)
    assert not any(s.startswith("output of sin") for s in res)
