"""jax.pmap on the shard_map runtime, and multihost_utils on one process.

JAX 0.11's jaxprs, values, placements and errors are golden programs
(tests/golden/programs_spmd.py); these tests check what a recording cannot:
pmap against vmap on many programs, that each device computes on its own
element, gradients against NumPy, and that a pmap'd body is traced once.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy.impls import spmd, spmd_runs
from pyjax.sharding import NamedSharding, PartitionSpec as P

mu = importlib.import_module("pyjax.experimental.multihost_utils")
RNG = np.random.default_rng(0)


@pytest.mark.parametrize("n", [1, 3, 8])
@pytest.mark.parametrize("fn", [
    lambda v: jnp.sin(v) * 2 + v.sum(),
    lambda v: v @ v.T,
    lambda v: jnp.maximum(v, 0.5).cumsum(0),
])
def test_pmap_equals_vmap(n, fn):
    xs = RNG.standard_normal((n, 3, 3)).astype(np.float32)
    got = jax.pmap(fn)(xs)
    np.testing.assert_allclose(np.asarray(got), np.asarray(jax.vmap(fn)(xs)), rtol=1e-5, atol=1e-6)
    assert got.sharding == NamedSharding(got.sharding.mesh, P("_internal_pmap_axis_name"))
    assert len(got.sharding.mesh.devices) == n


def test_collectives_match_numpy():
    xs = RNG.standard_normal((8, 5)).astype(np.float32)

    def f(v):
        total = lax.psum(v, "i")
        gathered = lax.all_gather(v, "i")
        shifted = lax.ppermute(v, "i", [(k, (k + 1) % 8) for k in range(8)])
        return total, gathered, shifted, lax.pmax(v, "i"), lax.axis_index("i")

    total, gathered, shifted, biggest, index = jax.pmap(f, axis_name="i")(xs)
    np.testing.assert_allclose(np.asarray(total), np.tile(xs.sum(0), (8, 1)), rtol=1e-5)
    np.testing.assert_array_equal(np.asarray(gathered), np.tile(xs, (8, 1, 1)))
    np.testing.assert_array_equal(np.asarray(shifted), np.roll(xs, 1, axis=0))
    np.testing.assert_array_equal(np.asarray(biggest), np.tile(xs.max(0), (8, 1)))
    np.testing.assert_array_equal(np.asarray(index), np.arange(8))


def test_each_device_holds_its_own_element(monkeypatch):
    seen = []
    original = spmd._per_device

    def spy(eqn, mesh, ins, impls):
        seen.extend(np.shape(x[d]) for x in ins for d in range(mesh.n))
        return original(eqn, mesh, ins, impls)

    monkeypatch.setattr(spmd, "_per_device", spy)
    monkeypatch.setattr(spmd_runs, "COMPILE", [None])  # (equation by equation, where the spy sees each)
    xs = np.arange(8 * 6, dtype=np.float32).reshape(8, 6)
    out = jax.pmap(lambda v: v * 2 + 1)(xs)
    assert seen and all(s in ((1, 6), (6,), ()) for s in seen)  # never the (8, 6) array
    for k, shard in enumerate(out.addressable_shards):
        assert shard.device == jax.devices()[k]
        np.testing.assert_array_equal(np.asarray(shard.data), xs[k:k + 1] * 2 + 1)


def test_body_traced_once_per_argument_types():
    calls = []

    def f(v):
        calls.append(1)
        return v + 1

    g = jax.pmap(f)
    for _ in range(3):
        g(np.ones((4, 2), np.float32))
    g(np.ones((4, 3), np.float32))
    assert len(calls) == 2


def test_grad_of_pmap_matches_numpy():
    xs = RNG.standard_normal((8, 3)).astype(np.float32)

    def loss(v):
        return jax.pmap(lambda u: lax.psum(jnp.sin(u) * u, "i"), axis_name="i")(v).sum()

    # d/dv sum_devices sum_k psum(sin(u) u)_k = 8 * (cos(v) v + sin(v)) per element
    want = 8 * (np.cos(xs) * xs + np.sin(xs))
    np.testing.assert_allclose(np.asarray(jax.grad(loss)(xs)), want, rtol=1e-5)


def test_pmap_under_jit_and_static_args():
    xs = np.arange(12, dtype=np.float32).reshape(4, 3)
    f = jax.pmap(lambda v, k, w: v * k + w, static_broadcasted_argnums=(1,), in_axes=(0, None, None))
    np.testing.assert_allclose(np.asarray(jax.jit(lambda v: f(v, 3, 1.0))(xs)), xs * 3 + 1)
    np.testing.assert_allclose(np.asarray(f(xs, 2, np.float32(0.5))), xs * 2 + 0.5)


def test_multihost_utils_one_process():
    mesh = jax.make_mesh((4, 2), ("x", "y"))
    x = np.arange(16.0, dtype=np.float32).reshape(8, 2)
    g = mu.host_local_array_to_global_array({"w": x}, mesh, P("x", "y"))["w"]
    assert [s.data.shape for s in g.addressable_shards] == [(2, 1)] * 8
    back = mu.global_array_to_host_local_array(g, mesh, P("x", "y"))
    np.testing.assert_array_equal(np.asarray(back), x)
    np.testing.assert_array_equal(mu.process_allgather(g), x[None])
    np.testing.assert_array_equal(mu.process_allgather(g, tiled=True), x)
    assert isinstance(mu.broadcast_one_to_all(g), np.ndarray)
    assert mu.sync_global_devices("barrier") is None and mu.assert_equal(x) is None
    with mu.live_devices(jax.devices()) as live:
        assert live == jax.devices()
    doubled = jax.jit(lambda v: mu.host_local_array_to_global_array(v, mesh, P("x")) * 2)(x)
    np.testing.assert_array_equal(np.asarray(doubled), x * 2)
    batched = jax.vmap(lambda v: mu.host_local_array_to_global_array(v, mesh, P("x")))(np.stack([x, x]))
    np.testing.assert_array_equal(np.asarray(batched), np.stack([x, x]))
