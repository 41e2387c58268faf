"""jax.shard_map: random programs run per device equal the unsharded computation,
each device computes on its own shard only, and the body's types and autodiff.

The JAX 0.11 jaxprs, values and error texts are golden programs
(tests/golden/programs_shard_map.py); these tests check what a recording
cannot: many meshes, the per-device buffers, and gradients against NumPy.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy.impls import spmd
from pyjax._src.sharding.sharded_array import ShardedArray
from pyjax.sharding import AxisType, NamedSharding, PartitionSpec as P

MESHES = [(1, 8), (2, 4), (4, 2), (8, 1)]
R, C = 16, 16


def _mesh(shape, kind=AxisType.Auto):
    return jax.make_mesh(shape, ("x", "y"), axis_types=(kind, kind))


# Elementwise pieces: (pyjax function, NumPy function).
_ELEMENTWISE = [
    (jnp.sin, np.sin),
    (lambda v: v * 1.5, lambda v: v * 1.5),
    (lambda v: v + 0.25, lambda v: v + 0.25),
    (jnp.tanh, np.tanh),
    (lambda v: jnp.exp(-v * v), lambda v: np.exp(-v * v)),
]


def _templates(X: int, Y: int):
    """(name, in_specs, body(g), out_specs, reference(g, A, W)) for a mesh of X x Y."""
    def ring(v):
        return lax.ppermute(v, "x", [(i, (i + 1) % X) for i in range(X)])

    def block_index(A):
        return np.repeat(np.arange(X), R // X)[:, None] + np.zeros_like(A)

    return [
        ("matmul_psum", (P("x", "y"), P("y", None)), lambda g: lambda a, w: lax.psum(g(a) @ w, "y"),
         P("x", None), lambda g, A, W: g(A) @ W),
        ("column_sum", (P("x", "y"), P()), lambda g: lambda a, w: lax.psum(g(a).sum(0, keepdims=True), "x"),
         P(None, "y"), lambda g, A, W: g(A).sum(0, keepdims=True)),
        ("all_gather", (P("x", "y"), P()), lambda g: lambda a, w: lax.all_gather(g(a), "x", tiled=True),
         P("x", "y"), lambda g, A, W: np.tile(g(A), (X, 1))),
        ("all_gather_stacked", (P("x", "y"), P()),
         lambda g: lambda a, w: lax.all_gather(g(a), "y", axis=1).reshape(a.shape[0], -1),
         P("x", "y"), lambda g, A, W: np.tile(g(A), (1, Y))),
        ("ring", (P("x", "y"), P()), lambda g: lambda a, w: ring(g(a)), P("x", "y"),
         lambda g, A, W: np.roll(g(A), R // X, axis=0)),
        ("psum_scatter", (P(None, "y"), P()),
         lambda g: lambda a, w: lax.psum_scatter(g(a), "x", scatter_dimension=0, tiled=True),
         P("x", "y"), lambda g, A, W: X * g(A)),
        ("all_to_all", (P("x", None), P()), lambda g: lambda a, w: lax.all_to_all(g(a), "x", 1, 0, tiled=True),
         P(None, "x"), lambda g, A, W: g(A)),
        ("row_max", (P("x", "y"), P()), lambda g: lambda a, w: lax.pmax(jnp.max(g(a), axis=1, keepdims=True), "y"),
         P("x", None), lambda g, A, W: g(A).max(1, keepdims=True)),
        ("pmean_blocks", (P("x", "y"), P()), lambda g: lambda a, w: lax.pmean(g(a), ("x", "y")), P(),
         lambda g, A, W: g(A).reshape(X, R // X, Y, C // Y).mean(axis=(0, 2))),
        ("axis_index", (P("x", "y"), P()),
         lambda g: lambda a, w: g(a) + lax.axis_index("x").astype(jnp.float32), P("x", "y"),
         lambda g, A, W: g(A) + block_index(A)),
        ("pmin_and_matmul", (P("x", None), P()),
         lambda g: lambda a, w: lax.pmin(g(a) @ w, "x") * lax.axis_size("y"), P(),
         lambda g, A, W: (g(A) @ W).reshape(X, R // X, -1).min(0) * Y),
    ]


def _random_program(rng: random.Random, X: int, Y: int, template: int):
    name, in_specs, body, out_specs, ref = _templates(X, Y)[template]
    chain = [rng.choice(_ELEMENTWISE) for _ in range(rng.randint(0, 3))]

    def g(v):
        for fn, _ in chain:
            v = fn(v)
        return v

    def g_np(v):
        for _, fn in chain:
            v = fn(v)
        return v.astype(np.float32)

    return name, in_specs, body(g), out_specs, lambda A, W: ref(g_np, A, W), rng.random() < 0.3


@pytest.mark.parametrize("shape", MESHES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_random_programs_equal_the_unsharded_computation(shape):
    X, Y = shape
    mesh = _mesh(shape)
    rng = random.Random(sum(shape) * 7 + X)
    n = len(_templates(X, Y))
    for trial in range(2 * n):  # every template twice, each with a random elementwise chain
        name, in_specs, body, out_specs, ref, jitted = _random_program(rng, X, Y, trial % n)
        A = np.random.default_rng(trial).standard_normal((R, C)).astype(np.float32)
        W = np.random.default_rng(100 + trial).standard_normal((C, 3)).astype(np.float32)
        f = jax.shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs)
        if jitted:
            f = jax.jit(f)
        got = f(A, W)
        np.testing.assert_allclose(np.asarray(got), ref(A, W), rtol=2e-5, atol=2e-5,
                                   err_msg=f"{name} on {shape} (jit={jitted})")
        if not jitted:
            assert got.sharding == NamedSharding(mesh, out_specs)


def test_each_device_computes_on_its_own_shard_only(monkeypatch):
    mesh = _mesh((4, 2), AxisType.Explicit)
    x = jax.device_put(np.arange(128.0, dtype=np.float32).reshape(8, 16), NamedSharding(mesh, P("x", "y")))
    seen = []
    real = spmd._per_device

    def spy(eqn, m, ins, impls):
        seen.extend(np.shape(v) for operand in ins for v in operand)
        return real(eqn, m, ins, impls)

    def no_global(self):
        raise AssertionError("the global array was assembled")

    monkeypatch.setattr(spmd, "_per_device", spy)
    monkeypatch.setattr(ShardedArray, "_value", property(no_global))
    f = jax.shard_map(lambda a: lax.psum(jnp.sin(a) * 2.0, "y"), mesh=mesh, in_specs=P("x", "y"),
                      out_specs=P("x", None))
    out = f(x)
    assert seen and all(s in ((2, 8), ()) for s in seen), seen
    assert len(out._shards) == 8
    assert all(b.shape == (2, 8) for b in out._shards)  # no device holds the (8, 8) result
    monkeypatch.undo()
    want = np.sin(np.arange(128.0, dtype=np.float32).reshape(8, 16)) * 2
    np.testing.assert_allclose(np.asarray(out), want[:, :8] + want[:, 8:], rtol=1e-6)
    assert str(jax.typeof(out)) == "float32[8@x,8]"


def test_input_shards_are_handed_over_without_copies():
    mesh = _mesh((2, 4))
    x = jax.device_put(np.ones((4, 8), np.float32), NamedSharding(mesh, P("x", "y")))
    buffers = spmd_buffers = None
    from pyjax._src.sharding import spmd_data

    spmd_buffers = spmd_data.device_buffers([x], [P("x", "y")], mesh)
    by_device = dict(zip(x.sharding._device_assignment, x._shards))
    buffers = [by_device[d] for d in mesh.devices.flat]
    assert all(a[0] is b for a, b in zip(spmd_buffers, buffers))


def test_body_types_carry_the_varying_axes():
    mesh = _mesh((4, 2))
    seen = []

    def body(a, b):
        seen.append((str(jax.typeof(a)), str(jax.typeof(b)), str(jax.typeof(a + b))))
        return lax.psum(a + b, "y")

    jax.make_jaxpr(jax.shard_map(body, mesh=mesh, in_specs=(P("x", "y"), P()), out_specs=P("x")))(
        np.ones((8, 4), np.float32), np.ones((2,), np.float32))
    assert seen == [("float32[2,2]{V:(x,y)}", "float32[2]", "float32[2,2]{V:(x,y)}")]


def test_out_specs_that_drop_a_varying_axis_are_refused_unless_unchecked():
    mesh = _mesh((4, 2))
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    with pytest.raises(ValueError, match="out_specs which require replication"):
        jax.shard_map(lambda a: a, mesh=mesh, in_specs=P("x"), out_specs=P())(x)
    out = jax.shard_map(lambda a: a, mesh=mesh, in_specs=P("x"), out_specs=P(), check_vma=False)(x)
    np.testing.assert_array_equal(np.asarray(out), x[:2])  # device 0's block, as JAX gives it


def test_grad_of_a_nonlinear_body_with_residuals():
    mesh = _mesh((2, 4))
    A = np.random.default_rng(0).standard_normal((8, 8)).astype(np.float32)
    W = np.random.default_rng(1).standard_normal((8, 3)).astype(np.float32)
    f = jax.shard_map(lambda a, w: lax.psum(jnp.tanh(a) @ w, "y") ** 2, mesh=mesh,
                      in_specs=(P("x", "y"), P("y", None)), out_specs=P("x", None))
    loss = lambda a, w: f(a, w).sum()  # noqa: E731
    ga, gw = jax.grad(loss, argnums=(0, 1))(A, W)
    h = np.tanh(A) @ W
    np.testing.assert_allclose(np.asarray(ga), ((2 * h) @ W.T) * (1 - np.tanh(A) ** 2), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(gw), np.tanh(A).T @ (2 * h), rtol=1e-4, atol=1e-5)
    ga_jit = jax.jit(jax.grad(loss))(A, W)
    np.testing.assert_allclose(np.asarray(ga_jit), np.asarray(ga), rtol=1e-5, atol=1e-6)


def test_grad_through_collectives_transposes_them():
    mesh = _mesh((4, 2))
    A = np.random.default_rng(2).standard_normal((8, 4)).astype(np.float32)
    ring = [(i, (i + 1) % 4) for i in range(4)]
    f = jax.shard_map(lambda a: lax.all_gather(lax.ppermute(a, "x", ring) * a, "x", tiled=True),
                      mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    g = jax.grad(lambda a: (f(a) ** 2).sum())(A)
    eps = 1e-3
    e = np.zeros_like(A)
    e[3, 1] = eps
    num = (float((np.asarray(f(A + e)) ** 2).sum()) - float((np.asarray(f(A - e)) ** 2).sum())) / (2 * eps)
    np.testing.assert_allclose(np.asarray(g)[3, 1], num, rtol=2e-2)


def test_jvp_of_shard_map():
    mesh = _mesh((4, 2))
    A = np.random.default_rng(3).standard_normal((8, 4)).astype(np.float32)
    T = np.ones_like(A)
    f = jax.shard_map(lambda a: lax.psum(jnp.sin(a), "x"), mesh=mesh, in_specs=P("x"), out_specs=P())
    y, t = jax.jvp(f, (A,), (T,))
    np.testing.assert_allclose(np.asarray(y), np.sin(A).reshape(4, 2, 4).sum(0), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(t), np.cos(A).reshape(4, 2, 4).sum(0), rtol=1e-5)


def test_jit_inside_the_body_runs_its_collectives_per_device():
    mesh = _mesh((4, 2))
    inner = jax.jit(lambda v: lax.psum(v, "x") * 2)
    f = jax.shard_map(lambda a: inner(a), mesh=mesh, in_specs=P("x"), out_specs=P())
    A = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    np.testing.assert_allclose(np.asarray(f(A)), A.reshape(4, 2, 4).sum(0) * 2)


def test_experimental_shard_map_and_decorator_form():
    from pyjax.experimental.shard_map import shard_map

    mesh = _mesh((8, 1))
    A = np.arange(16.0, dtype=np.float32)
    out = shard_map(lambda a: a * 2, mesh, P("x"), P("x"))(A)
    np.testing.assert_array_equal(np.asarray(out), A * 2)

    @jax.shard_map(mesh=mesh, in_specs=P("x"), out_specs=P())
    def total(a):
        return lax.psum(a.sum(keepdims=True), "x")

    np.testing.assert_array_equal(np.asarray(total(A)), [A.sum()])


def test_context_mesh_is_used_when_none_is_given():
    mesh = _mesh((4, 2))
    A = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    with jax.set_mesh(mesh):
        out = jax.shard_map(lambda a: lax.pmax(a, "x"), in_specs=P("x"), out_specs=P())(A)
    np.testing.assert_array_equal(np.asarray(out), A.reshape(4, 2, 4).max(0))


def test_all_to_all_types_follow_each_mesh():
    # Same per-device block on meshes whose 'x' differs: all_to_all's result
    # type depends on the axis size, which its params do not hold.
    for shape, rows in (((4, 2), 8), ((8, 1), 16), ((4, 2), 8)):
        A = np.arange(rows * 16.0, dtype=np.float32).reshape(rows, 16)
        f = jax.shard_map(lambda a: lax.all_to_all(a, "x", 1, 0, tiled=True), mesh=_mesh(shape),
                          in_specs=P("x"), out_specs=P(None, "x"))
        np.testing.assert_array_equal(np.asarray(f(A)), A)


def test_vmap_of_shard_map():
    mesh = _mesh((4, 2))
    f = jax.shard_map(lambda a, b: lax.psum(a * b, "y"), mesh=mesh, in_specs=(P("x", "y"), P("y")),
                      out_specs=P("x", None))
    A = np.random.default_rng(5).standard_normal((3, 8, 16)).astype(np.float32)
    B = np.arange(16.0, dtype=np.float32)
    out = jax.vmap(f, in_axes=(0, None))(A, B)
    np.testing.assert_allclose(np.asarray(out), np.stack([(a * B)[:, :8] + (a * B)[:, 8:] for a in A]), rtol=1e-6)


def test_a_body_being_traced_types_nothing_another_thread_stages():
    # The varying-axes rule, the named axes and the body's mesh are context
    # state: while one thread is inside a shard_map body, another thread's
    # trace is an ordinary one (its unbound psum says psum, not pvary).
    import threading

    inside, release = threading.Event(), threading.Event()

    def body(x):
        inside.set()
        assert release.wait(30)
        return lax.psum(x, "x")

    f = jax.shard_map(body, mesh=_mesh((8, 1)), in_specs=P("x"), out_specs=P())
    worker = threading.Thread(target=lambda: jax.make_jaxpr(f)(jnp.ones(8)))
    worker.start()
    try:
        assert inside.wait(30)
        with pytest.raises(NameError, match="please call psum under"):
            jax.make_jaxpr(lambda v: lax.psum(v, "x"))(jnp.ones(3))
        assert str(jax.make_jaxpr(lambda v: jnp.sin(v))(jnp.ones(3))) == \
            "{ lambda ; a:f32[3]. let b:f32[3] = sin a in (b,) }"
    finally:
        release.set()
        worker.join()


@pytest.mark.parametrize("placed", ["host", "mixed", "placed"])
def test_a_jitted_shard_map_places_its_results_as_out_specs_says(placed):
    # JAX 0.11.0 (recorded): [P('x', 'y'), P()] for each of the three, jitted and eager. pyjax's jit
    # of a lone shard_map on host arguments (all, or beside placed ones) returned the first replicated.
    mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    f = jax.shard_map(lambda a, w: (a * w.sum(), lax.psum(a.sum(), "x")), mesh=mesh,
                      in_specs=(P("x"), P(None, "y")), out_specs=(P("x", "y"), P()))
    a, w = np.arange(32.0, dtype=np.float32).reshape(8, 4), np.ones((2, 4), np.float32)
    if placed != "host":
        a = jax.device_put(a, NamedSharding(mesh, P("x")))
    if placed == "placed":
        w = jax.device_put(w, NamedSharding(mesh, P(None, "y")))
    for out in (jax.jit(f)(a, w), f(a, w)):
        assert [o.sharding.spec for o in out] == [P("x", "y"), P()]
        np.testing.assert_array_equal(np.asarray(out[0]), np.tile(np.asarray(a), (1, 2)) * 4)
