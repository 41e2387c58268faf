"""Partial-manual shard_map on an Explicit mesh, and the residual layout of
shard_map's autodiff (issue 22).

On a mesh whose axes ('x', 'y') are Explicit, `axis_names={'x'}` makes 'x'
manual and leaves 'y' in the body's types; the body runs per device,
partitioned over 'y' (shard_map_partial.py). The tests compare with NumPy
on meshes (1,8), (2,4), (4,2), (8,1), each manual axis in turn, and watch
every per-device buffer: none is larger than a device's block. The
residuals of grad/linearize leave the body as they are, joined on their
leading axis over the manual axes they vary over.

JAX 0.11's jaxprs, placements, values and errors are golden programs
(tests/golden/programs_shard_map_partial.py).
"""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import spmd_jit
from pyjax._src.backends.numpy.impls import spmd
from pyjax.sharding import AxisType, NamedSharding, PartitionSpec as P

MESHES = [(1, 8), (2, 4), (4, 2), (8, 1)]
SHAPE = (16, 16)


def _explicit(shape):
    return jax.make_mesh(shape, ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Explicit))


def _data(shape=SHAPE, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _placed(mesh, a, *spec):
    return jax.device_put(a, NamedSharding(mesh, P(*spec)))


def _split(a, nx, ny):
    """a's (x-block, y-block) grid: blocks[i][j] is device (i, j)'s part."""
    return [np.split(r, ny, axis=1) for r in np.split(a, nx, axis=0)]


@pytest.fixture(autouse=True)
def _strict_partitioning():
    # A program the partitioner refuses must fail here, not fall back to
    # computing on assembled values.
    saved = spmd_jit.STRICT[0]
    spmd_jit.STRICT[0] = True
    yield
    spmd_jit.STRICT[0] = saved


def _watch():
    seen: list = []
    return seen, spmd.watch_buffers(lambda d, b: seen.append(int(np.size(b))))


# ---------------------------------------------------------------------------
# 'x' manual, 'y' Explicit in the body's types


def _body_x(v):
    # v: this x block, typed f32[rows, 16@y]{V:x}
    w = jnp.sin(v) * 2.0 + 1.0
    s = w.sum(axis=1, keepdims=True)  # a sum over the Explicit dimension (a psum over 'y')
    return w * s + lax.axis_index("x").astype(np.float32) + lax.psum(v, "x")


def _reference_x(a, nx):
    rows = np.split(a, nx, axis=0)
    total = sum(rows)
    outs = []
    for i, v in enumerate(rows):
        w = np.sin(v) * 2.0 + 1.0
        outs.append(w * w.sum(axis=1, keepdims=True) + i + total)
    return np.concatenate(outs, axis=0)


@pytest.mark.parametrize("shape", MESHES)
def test_manual_x_keeps_y_in_the_types_and_runs_on_blocks(shape):
    mesh = _explicit(shape)
    nx, ny = shape
    a = _data()
    f = jax.shard_map(_body_x, mesh=mesh, in_specs=P("x"), out_specs=P("x"), axis_names={"x"})
    seen, watching = _watch()
    with watching:
        r = f(_placed(mesh, a, "x", "y"))
    np.testing.assert_allclose(np.asarray(r), _reference_x(a, nx), rtol=1e-5, atol=1e-4)
    assert str(jax.typeof(r)) == "float32[16@x,16@y]"
    assert r.sharding.spec == P("x", "y")
    assert {s.data.shape for s in r.addressable_shards} == {(16 // nx, 16 // ny)}
    # No device ever holds more than its (x, y) block: 'y' stays split in the body.
    assert max(seen) <= (16 // nx) * (16 // ny)


@pytest.mark.parametrize("shape", MESHES)
def test_body_sees_its_x_block_typed_over_y(shape):
    mesh = _explicit(shape)
    nx, ny = shape
    seen = []

    def body(v):
        seen.append((str(jax.typeof(v)), str(jax.typeof(v.sum(axis=1)))))
        return v

    jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"), axis_names={"x"})(
        _placed(mesh, _data(), "x", "y"))
    assert seen[0] == (f"float32[{16 // nx},16@y]{{V:x}}", f"float32[{16 // nx}]{{V:x}}")


@pytest.mark.parametrize("shape", MESHES)
def test_manual_y_leaves_x_explicit(shape):
    mesh = _explicit(shape)
    nx, ny = shape
    a = _data()
    f = jax.shard_map(lambda v: lax.psum(jnp.cos(v), "y") * 3.0, mesh=mesh, in_specs=P(None, "y"),
                      out_specs=P(), axis_names={"y"})
    seen, watching = _watch()
    with watching:
        r = f(_placed(mesh, a, "x", "y"))
    want = sum(np.split(np.cos(a), ny, axis=1)) * 3.0
    np.testing.assert_allclose(np.asarray(r), want, rtol=1e-5, atol=1e-5)
    assert r.sharding.spec == P("x", None)
    assert max(seen) <= (16 // nx) * (16 // ny)


@pytest.mark.parametrize("shape", MESHES)
def test_in_spec_splits_another_dimension_than_the_argument(shape):
    # The argument is placed P('x', 'y') but in_specs splits dimension 1 over
    # 'x': the body's value is that column block, still split over 'y'.
    mesh = _explicit(shape)
    nx, ny = shape
    a = _data()
    f = jax.shard_map(lambda v: v * lax.axis_index("x").astype(np.float32), mesh=mesh, in_specs=P(None, "x"),
                      out_specs=P(None, "x"), axis_names={"x"})
    r = f(_placed(mesh, a, "x", "y"))
    cols = np.split(a, nx, axis=1)
    np.testing.assert_allclose(np.asarray(r), np.concatenate([c * i for i, c in enumerate(cols)], axis=1))
    assert r.sharding.spec == P(None, ("x", "y"))


@pytest.mark.parametrize("shape", MESHES)
def test_nested_shard_map_over_the_remaining_axis(shape):
    mesh = _explicit(shape)
    nx, ny = shape
    a = _data()

    def outer(v):
        w = jax.shard_map(lambda u: lax.psum(u, "y") * lax.axis_index("y").astype(np.float32),
                          in_specs=P(None, "y"), out_specs=P(None, "y"), axis_names={"y"})(v)
        return w + lax.axis_index("x").astype(np.float32)

    seen, watching = _watch()
    with watching:
        r = jax.shard_map(outer, mesh=mesh, in_specs=P("x"), out_specs=P("x"), axis_names={"x"})(
            _placed(mesh, a, "x", "y"))
    blocks = _split(a, nx, ny)
    want = np.block([[sum(blocks[i]) * j + i for j in range(ny)] for i in range(nx)])
    np.testing.assert_allclose(np.asarray(r), want, rtol=1e-5, atol=1e-5)
    assert max(seen) <= (16 // nx) * (16 // ny)


@pytest.mark.parametrize("shape", MESHES)
def test_partial_manual_under_jit_and_in_a_larger_program(shape):
    mesh = _explicit(shape)
    nx, _ = shape
    a = _data()
    f = jax.shard_map(_body_x, mesh=mesh, in_specs=P("x"), out_specs=P("x"), axis_names={"x"})
    np.testing.assert_allclose(np.asarray(jax.jit(f)(_placed(mesh, a, "x", "y"))), _reference_x(a, nx),
                               rtol=1e-5, atol=1e-4)
    r = jax.jit(lambda b: f(b) * 2.0 - 1.0)(_placed(mesh, a, "x", "y"))
    np.testing.assert_allclose(np.asarray(r), _reference_x(a, nx) * 2.0 - 1.0, rtol=1e-5, atol=1e-4)
    assert r.sharding.spec == P("x", "y")


@pytest.mark.parametrize("shape", MESHES)
def test_grad_of_partial_manual_equals_numpy(shape):
    mesh = _explicit(shape)
    nx, _ = shape
    a = _data()
    f = jax.shard_map(lambda v: jnp.sin(v) * v.sum(axis=1, keepdims=True), mesh=mesh, in_specs=P("x"),
                      out_specs=P("x"), axis_names={"x"})
    g = jax.jit(jax.grad(lambda b: f(b).sum()))(_placed(mesh, a, "x", "y"))
    # d/da of sum(sin(a) * rowsum(a)): cos(a) * rowsum(a) + rowsum(sin(a))
    want = np.cos(a) * a.sum(axis=1, keepdims=True) + np.sin(a).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-4, atol=1e-4)


def test_a_body_the_partitioner_refuses_runs_whole_over_the_remaining_axis(capsys):
    # An effect cannot be partitioned (each device would repeat it): the
    # body then runs on each x block whole over 'y', its result placed as
    # its type says.
    spmd_jit.STRICT[0] = False
    mesh = _explicit((4, 2))
    a = _data()

    def body(v):
        jax.debug.print("block {}", lax.axis_index("x"))
        return jnp.sin(v).sum(axis=1, keepdims=True) * v

    f = jax.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"), axis_names={"x"})
    for g in (f, jax.jit(f)):
        r = g(_placed(mesh, a, "x", "y"))
        np.testing.assert_allclose(np.asarray(r), np.sin(a).sum(1, keepdims=True) * a, rtol=1e-5, atol=1e-5)
        assert str(jax.typeof(r)) == "float32[16@x,16@y]" and r.sharding.spec == P("x", "y")
        assert {s.data.shape for s in r.addressable_shards} == {(4, 8)}
    assert "block 3" in capsys.readouterr().out


def test_in_specs_inferred_from_the_arguments_keep_the_manual_axes():
    mesh = _explicit((4, 2))
    jaxpr = jax.make_jaxpr(jax.shard_map(lambda v: v, mesh=mesh, out_specs=P("x"), axis_names={"x"}))(
        _placed(mesh, _data(), "x", "y"))
    eqn = jaxpr.eqns[0]
    assert eqn.params["in_specs"] == (P("x", None),)
    assert str(eqn.params["jaxpr"].in_avals[0]) == "float32[4,16@y]{V:x}"


def test_numpy_argument_is_sliced_per_device():
    mesh = _explicit((4, 2))
    a = _data()
    r = jax.shard_map(lambda v: v * 2.0, mesh=mesh, in_specs=P("x"), out_specs=P("x"), axis_names={"x"})(a)
    np.testing.assert_allclose(np.asarray(r), a * 2.0)
    assert str(jax.typeof(r)) == "float32[16@x,16]" and r.sharding.spec == P("x", None)


def test_specs_naming_a_non_manual_axis_are_refused():
    mesh = _explicit((4, 2))
    a = _placed(mesh, _data(), "x", "y")
    with pytest.raises(ValueError, match=r"in_specs refers to 'y'"):
        jax.shard_map(lambda v: v, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x"), axis_names={"x"})(a)
    with pytest.raises(ValueError, match=r"out_specs\[1\] refers to 'y'"):
        jax.shard_map(lambda v: (v, v), mesh=mesh, in_specs=P("x"), out_specs=(P("x"), P("y")),
                      axis_names={"x"})(a)
    # Making every axis manual, the argument must be placed as in_specs says.
    with pytest.raises(ValueError, match="does not match the specs of the input"):
        jax.shard_map(lambda v: v, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(a)


def test_legacy_shard_map_warns_and_has_no_auto():
    import pyjax.experimental.shard_map as legacy_module

    with pytest.warns(DeprecationWarning, match="jax.experimental.shard_map is deprecated"):
        legacy = legacy_module.shard_map
    mesh = _explicit((4, 2))
    with pytest.raises(TypeError, match="unexpected keyword argument 'auto'"):
        legacy(lambda v: v, mesh=mesh, in_specs=P("x"), out_specs=P("x"), auto=frozenset({"y"}))
    a = _placed(mesh, _data(), "x", "y")
    r = legacy(lambda v: v + 1.0, mesh, P("x", "y"), P("x", "y"))(a)
    np.testing.assert_allclose(np.asarray(r), np.asarray(a) + 1.0)


# ---------------------------------------------------------------------------
# Residual layout of shard_map's autodiff


def _auto(shape):
    return jax.make_mesh(shape, ("x", "y"), axis_types=(AxisType.Auto, AxisType.Auto))


@pytest.mark.parametrize("shape", MESHES)
def test_residuals_are_joined_on_their_leading_axis(shape):
    mesh = _auto(shape)
    nx, ny = shape
    f = jax.shard_map(jnp.sin, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))
    jaxpr = jax.make_jaxpr(lambda a: jax.linearize(f, a))(_data())
    known = jaxpr.eqns[0]
    # Residuals first (cos of the block, as it is), then the primal output.
    assert known.params["out_specs"] == (P(("x", "y")), P("x", "y"))
    assert known.outvars[0].aval.shape == (16 // nx * nx * ny, 16 // ny)
    assert known.params["jaxpr"].out_avals[0].shape == (16 // nx, 16 // ny)


@pytest.mark.parametrize("shape", MESHES)
def test_grads_through_residuals_equal_numpy(shape):
    mesh = _auto(shape)
    nx, ny = shape
    a, w = _data(), _data((16, 4), 1)
    mm = jax.shard_map(lambda p, q: lax.psum(jnp.sin(p) @ q, "y"), mesh=mesh, in_specs=(P("x", "y"), P("y")),
                       out_specs=P("x"))
    ga, gw = jax.grad(lambda p, q: (mm(p, q) ** 2).sum(), argnums=(0, 1))(a, w)
    out = np.sin(a) @ w
    np.testing.assert_allclose(np.asarray(ga), np.cos(a) * ((2 * out) @ w.T), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(gw), np.sin(a).T @ (2 * out), rtol=1e-4, atol=1e-4)
    # A scalar residual (promoted to shape (1,)), varying over 'x' only.
    sc = jax.shard_map(lambda p: p * jnp.sin(p.sum()), mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    g = jax.grad(lambda p: sc(p).sum())(a)
    want = []
    for r in np.split(a, nx, axis=0):
        s = r.sum()
        want.append(np.full_like(r, np.sin(s)) + r.sum() * np.cos(s))
    np.testing.assert_allclose(np.asarray(g), np.concatenate(want), rtol=1e-4, atol=1e-4)
    # An invariant input's residual (P()) and an unchecked body whose residual is its output.
    inv = jax.shard_map(lambda p, q: jnp.sin(p) * jnp.cos(q), mesh=mesh, in_specs=(P("x"), P()), out_specs=P("x"))
    b = a[: 16 // nx]
    gp, gq = jax.grad(lambda p, q: inv(p, q).sum(), argnums=(0, 1))(a, b)
    rows = np.split(a, nx, axis=0)
    np.testing.assert_allclose(np.asarray(gp), np.cos(a) * np.cos(np.concatenate([b] * nx)), rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(np.asarray(gq), -np.sin(b) * sum(np.sin(r) for r in rows), rtol=1e-4, atol=1e-4)
    un = jax.shard_map(lambda p: jnp.exp(p), mesh=mesh, in_specs=P("x"), out_specs=P("x"), check_vma=False)
    np.testing.assert_allclose(np.asarray(jax.grad(lambda p: un(p).sum())(a)), np.exp(a), rtol=1e-5)


@pytest.mark.parametrize("shape", MESHES)
def test_grads_of_checkpointed_shard_maps_equal_numpy(shape):
    # Under jax.checkpoint a shard_map splits by the policy (its known part
    # computed outside the remat, the rest recomputed in the backward pass).
    mesh = _auto(shape)
    a = _data()
    f = jax.shard_map(jnp.sin, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    g = jax.grad(lambda p: jax.checkpoint(lambda b: f(f(b)))(p).sum())(a)
    np.testing.assert_allclose(np.asarray(g), np.cos(np.sin(a)) * np.cos(a), rtol=1e-5, atol=1e-6)
    jaxpr = jax.make_jaxpr(jax.grad(lambda p: jax.checkpoint(lambda b: f(f(b)))(p).sum()))(a)
    assert [e.primitive.name for e in jaxpr.eqns[:2]] == ["shard_map", "shard_map"]  # the primal, outside
    mm = jax.shard_map(lambda p: jnp.sin(p) @ jnp.cos(p).T, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    saving = jax.checkpoint(lambda b: mm(b).sum(), policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
    g = jax.grad(saving)(a)
    rows = np.split(a, shape[0], axis=0)
    want = np.concatenate([np.cos(r) * np.cos(r).sum(0) - np.sin(r) * np.sin(r).sum(0) for r in rows])
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-4, atol=1e-4)
