"""Sharding in types: avals carry placement under Explicit axes; the rules
beside abstract evaluation compute it and raise ShardingTypeError."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.core import ShardingTypeError
from pyjax.sharding import AxisType, NamedSharding, PartitionSpec as P

MESH = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Explicit))
AUTO = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto, AxisType.Auto))


def put(shape, spec, mesh=MESH):
    return jax.device_put(np.arange(float(np.prod(shape)), dtype=np.float32).reshape(shape), NamedSharding(mesh, spec))


def test_the_issue_example():
    with jax.sharding.set_mesh(MESH):
        a = jax.device_put(jnp.zeros((8, 16)), jax.NamedSharding(MESH, P("x", "y")))
        b = jax.device_put(jnp.zeros((16, 4)), jax.NamedSharding(MESH, P("y", None)))
        assert f"{jax.typeof(a)} {jax.typeof(b)}" == "float32[8@x,16@y] float32[16@y,4]"
        with pytest.raises(ShardingTypeError, match="Contracting dimensions are sharded and it is ambiguous"):
            jax.make_jaxpr(lambda p, q: p @ q)(a, b)

        def f(p, q):
            return lax.dot_general(p, q, (((1,), (0,)), ((), ())), out_sharding=P("x", None))

        assert str(jax.make_jaxpr(f)(a, b)) == (
            "{ lambda ; a:f32[8@x,16@y] b:f32[16@y,4]. let\n"
            "    c:f32[8@x,4] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b\n"
            "  in (c,) }")


def test_auto_axes_keep_the_type_quiet():
    a = put((8, 16), P("x", "y"), AUTO)
    assert str(jax.typeof(a)) == "float32[8,16]"
    # no rule raises on Auto axes: placement is the compiler's
    b = put((8, 16), P("y", "x"), AUTO)
    assert str(jax.make_jaxpr(lambda p, q: p + q)(a, b).eqns[0].outvars[0].aval) == "float32[8,16]"


def test_broadcasting_rule():
    a = put((8, 16), P("x", "y"))
    with pytest.raises(ShardingTypeError, match=r"mul got incompatible shardings for broadcasting: \('x', 'y'\), "
                                                r"\('y', None\)\."):
        jax.make_jaxpr(lambda p, q: p * q)(a, put((8, 16), P("y", None)))
    # a replicated operand takes the other's placement; a size-1 dim yields
    out = jax.make_jaxpr(lambda p, q: p - q)(a, jnp.ones((1, 16))).out_avals[0]
    assert str(out) == "float32[8@x,16@y]"


def test_dot_general_rule():
    a = put((8, 16), P("x", None))
    b = put((16, 4), P(None, "y"))
    assert str(jax.make_jaxpr(lambda p, q: p @ q)(a, b).out_avals[0]) == "float32[8@x,4@y]"
    with pytest.raises(ShardingTypeError, match="dot_general requires contracting dimensions to have consistent"):
        jax.make_jaxpr(lambda p, q: p @ q)(put((8, 16), P(None, "x")), put((16, 4), P("y", None)))


def test_reduction_transpose_broadcast_reshape_rules():
    a = put((8, 16), P("x", "y"))
    assert str(jax.make_jaxpr(lambda p: jnp.sum(p, axis=1))(a).out_avals[0]) == "float32[8@x]"
    assert str(jax.make_jaxpr(lambda p: p.T)(a).out_avals[0]) == "float32[16@y,8@x]"
    assert str(jax.make_jaxpr(lambda p: p.reshape(128))(a).out_avals[0]) == "float32[128@(x,y)]"
    assert str(jax.make_jaxpr(lambda p: p.reshape(8, 1, 16))(a).out_avals[0]) == "float32[8@x,1,16@y]"
    with pytest.raises(ShardingTypeError, match="This reshape is not supported"):
        jax.make_jaxpr(lambda p: p.reshape(2, 4, 16))(a)
    v = put((8,), P("x"))
    assert str(jax.make_jaxpr(lambda p: jnp.broadcast_to(p[:, None], (8, 6)))(v).out_avals[0]) == "float32[8@x,6]"


def test_grad_cotangents_carry_the_primal_type():
    a = put((8, 16), P("x", "y"))
    jaxpr = jax.make_jaxpr(jax.grad(lambda p: jnp.sum(jnp.sin(p) * p)))(a)
    assert str(jaxpr.out_avals[0]) == "float32[8@x,16@y]"
    g = jax.grad(lambda p: jnp.sum(p * p))(a)
    np.testing.assert_allclose(np.asarray(g), 2 * np.asarray(a))


def test_scan_carries_and_stacked_outputs():
    a = put((8, 16), P("x", "y"))
    jaxpr = jax.make_jaxpr(lambda p: lax.scan(lambda c, x: (c + x, c), p, jnp.zeros((3, 8, 16))))(a)
    assert [str(v) for v in jaxpr.out_avals] == ["float32[8@x,16@y]", "float32[3,8@x,16@y]"]


def test_mesh_context_is_in_the_jit_cache_key():
    traces = []

    @jax.jit
    def f(x):
        traces.append(jax.sharding.get_abstract_mesh())
        return x * 2

    f(jnp.ones(8))
    with jax.sharding.set_mesh(MESH):
        f(jnp.ones(8))
    f(jnp.ones(8))
    assert len(traces) == 2 and traces[0].empty and traces[1] == MESH.abstract_mesh


def test_reshard_changes_the_type_and_transposes_back():
    a = put((8, 16), P("x", "y"))
    target = NamedSharding(MESH, P(None, "x"))
    assert str(jax.make_jaxpr(lambda p: jax.sharding.reshard(p, target))(a).out_avals[0]) == "float32[8,16@x]"
    r = jax.sharding.reshard(a, target)
    assert r.sharding == target and [s.data.shape for s in r.addressable_shards][0] == (8, 4)
    g = jax.grad(lambda p: jnp.sum(jax.sharding.reshard(p, target) * 2.0))(a)
    assert g.sharding == a.sharding


def test_with_sharding_constraint():
    with jax.sharding.set_mesh(MESH):
        a = put((8, 16), P("x", "y"))
        with pytest.raises(AssertionError, match="acts as an assert when all axes of mesh are of type `Explicit`"):
            lax.with_sharding_constraint(a, P("x", None))
        assert lax.with_sharding_constraint(a, P("x", "y")) is a
    with jax.sharding.set_mesh(AUTO):
        b = put((8, 16), P("x", "y"), AUTO)
        out = lax.with_sharding_constraint(b, NamedSharding(AUTO, P("x", None)))
        assert out.sharding == NamedSharding(AUTO, P("x", None))
        np.testing.assert_array_equal(np.asarray(out), np.asarray(b))


def test_unsharded_programs_keep_unsharded_types():
    jaxpr = jax.make_jaxpr(lambda p, q: p @ q + 1.0)(jnp.ones((2, 3)), jnp.ones((3, 4)))
    assert all(v.aval.sharding is None for e in jaxpr.eqns for v in e.outvars)


def test_every_primitive_has_a_sharding_rule_or_a_declared_reason():
    from pyjax.tools import coverage

    header, rows = coverage.table()
    column = header.index("sharding")
    assert [row[0] for row in rows if row[column] not in ("rule", "declared")] == []
    assert all(reason for reason in coverage.sharding_reasons().values())
