"""jax.sharding's API around programs: jit's in/out_shardings, ctx_mesh,
out_sharding on creation and random samplers, memory spaces, drawing."""

from __future__ import annotations

import io
import contextlib

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax.sharding import AxisType, NamedSharding, PartitionSpec as P

MESH = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Explicit))


def test_jit_out_shardings_place_results_and_keep_values():
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    f = jax.jit(lambda a: (a * 2, a.sum(0)), out_shardings=(NamedSharding(MESH, P("x")), None))
    r, s = f(x)
    assert r.sharding == NamedSharding(MESH, P("x")) and str(jax.typeof(r)) == "float32[8@x,4]"
    assert all(sh.data.shape == (2, 4) for sh in r.addressable_shards)
    np.testing.assert_array_equal(np.asarray(r), x * 2)
    np.testing.assert_array_equal(np.asarray(s), x.sum(0))
    assert f.lower(x) is not None  # the jitted function's stages are still there


def test_jit_in_shardings_place_arguments_and_refuse_other_placements():
    seen = []
    f = jax.jit(lambda a: (seen.append(jax.typeof(a)), a + 1.0)[1], in_shardings=NamedSharding(MESH, P("x", "y")))
    x = np.zeros((8, 4), np.float32)
    assert f(x).sharding == NamedSharding(MESH, P("x", "y"))
    assert str(seen[0]) == "float32[8@x,4@y]"
    with pytest.raises(ValueError, match="Sharding passed to jit does not match the sharding on the respective arg"):
        f(jax.device_put(x, NamedSharding(MESH, P("y"))))


def test_ctx_mesh_param_only_under_a_mesh():
    with jax.sharding.set_mesh(MESH):
        (eqn,) = jax.make_jaxpr(jax.jit(lambda a: a * 2))(jnp.ones(3)).eqns
        assert eqn.params["ctx_mesh"] == MESH
    (eqn,) = jax.make_jaxpr(jax.jit(lambda a: a * 2))(jnp.ones(3)).eqns
    assert "ctx_mesh" not in eqn.params


def test_random_out_sharding_places_the_same_values():
    key = jax.random.key(3)
    plain = jax.random.normal(key, (8, 4))
    with jax.sharding.set_mesh(MESH):
        placed = jax.random.normal(key, (8, 4), out_sharding=P("x", "y"))
    assert placed.sharding == NamedSharding(MESH, P("x", "y"))
    np.testing.assert_array_equal(np.asarray(placed), np.asarray(plain))


def test_creation_out_sharding():
    with jax.sharding.set_mesh(MESH):
        z = jnp.full((8, 4), 3.0, jnp.float32, out_sharding=P("x"))
        r = jnp.arange(8, out_sharding=P("x"))
        s = jnp.arange(1, 9, 1, out_sharding=P("x"))
    assert str(jax.typeof(z)) == "float32[8@x,4]" and np.asarray(z).sum() == 96.0
    np.testing.assert_array_equal(np.asarray(r), np.arange(8))
    np.testing.assert_array_equal(np.asarray(s), np.arange(1, 9))
    assert r.sharding == s.sharding == NamedSharding(MESH, P("x"))
    with pytest.raises(ValueError, match="Using PartitionSpec when you are not under a mesh context"):
        jnp.zeros((8,), out_sharding=P("x"))


def test_memory_spaces_round_trip():
    a = jax.device_put(np.arange(8.0, dtype=np.float32), NamedSharding(MESH, P("x")))
    h = jax.device_put(a, jax.memory.Space.Host)
    assert str(jax.typeof(h)) == "float32<host>[8@x]" and h.sharding.memory_kind == "pinned_host"
    d = jax.device_put(h, jax.memory.Space.Device)
    assert str(jax.typeof(d)) == "float32[8@x]"
    np.testing.assert_array_equal(np.asarray(d), np.arange(8.0))


def test_shape_dtype_struct_with_a_sharding_types_tracers():
    s = jax.ShapeDtypeStruct((8, 4), jnp.float32, sharding=NamedSharding(MESH, P("x")))
    assert str(jax.make_jaxpr(lambda a: a)(s).in_avals[0]) == "float32[8@x,4]"
    out = jax.eval_shape(lambda a: a.T, s)
    assert str(out.sharding.spec) == "P(None, 'x')"


def test_visualize_array_sharding_draws_every_device():
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        jax.debug.visualize_array_sharding(jax.device_put(np.zeros((8, 4), np.float32), NamedSharding(MESH, P("x", "y"))))
    text = buf.getvalue()
    assert all(f"CPU {i}" in text for i in range(8)) and text.splitlines()[1] == "│ CPU 0 │ CPU 1 │"
    with pytest.raises(ValueError, match="only works for shapes with 1 and 2 dimensions"):
        jax.debug.visualize_sharding((2, 2, 2), NamedSharding(MESH, P("x")))


def test_jit_shardings_are_params_of_the_equation_only_when_given():
    s = NamedSharding(MESH, P("x"))
    x = np.ones((8, 4), np.float32)
    (eqn,) = jax.make_jaxpr(jax.jit(lambda a, b: a + b, in_shardings=(s, None)))(x, x).eqns
    assert eqn.params["in_shardings"][0] == s and repr(eqn.params["in_shardings"][1]) == "UnspecifiedValue"
    assert all(repr(o) == "UnspecifiedValue" for o in eqn.params["out_shardings"])
    (eqn,) = jax.make_jaxpr(jax.jit(lambda a: a))(x).eqns
    assert "in_shardings" not in eqn.params and "out_shardings" not in eqn.params


def test_jit_with_in_shardings_retraces_a_resharded_argument_and_hits_the_same():
    traces = []
    f = jax.jit(lambda a: (traces.append(jax.typeof(a)), a * 2)[1], in_shardings=NamedSharding(MESH, P("x")))
    x = np.ones((8, 4), np.float32)
    placed = jax.device_put(x, NamedSharding(MESH, P("x")))
    jax.make_jaxpr(f)(placed)
    jax.make_jaxpr(f)(jax.device_put(x + 1, NamedSharding(MESH, P("x"))))
    assert len(traces) == 1  # the same sharding hits
    jax.make_jaxpr(f)(jax.device_put(x, NamedSharding(MESH, P(None, "y"))))
    assert [str(t) for t in traces] == ["float32[8@x,4]", "float32[8,4@y]"]  # a resharded argument retraces


def test_jit_shardings_survive_dce_and_the_eager_value():
    s = NamedSharding(MESH, P("x"))
    f = jax.jit(lambda a, b: (a * 2, b + 1), in_shardings=(s, s), out_shardings=(s, s))
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    g = jax.grad(lambda a, b: f(a, b)[0].sum())
    jaxpr = jax.make_jaxpr(g)(x, x)
    last = jaxpr.eqns[-1]
    assert last.params["in_shardings"] == (s,) and last.params["out_shardings"] == (s,)
    np.testing.assert_array_equal(np.asarray(jax.jit(g)(x, x)), np.full((8, 4), 2.0, np.float32))
