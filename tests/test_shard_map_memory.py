"""Each device holds only its shard: the largest buffer any device makes
during a sharded MLP training step (784-512-512-10, softmax cross-entropy,
value_and_grad + SGD: the benchmark's mlp_train_step, at batch 96 so that
no block's shape is mistaken for a global one) is no larger than that device's shards plus what its collectives hand it.
The runtime's per-device buffers are observed through spmd.watch_buffers.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy.impls import spmd, spmd_runs
from pyjax.sharding import AxisType, PartitionSpec as P

BATCH, SIZES, LR = 96, (784, 512, 512, 10), 0.01
RNG = np.random.default_rng(0)
PARAMS = [(RNG.standard_normal((m, n)).astype(np.float32) * 0.05, np.zeros(n, np.float32))
          for m, n in zip(SIZES[:-1], SIZES[1:])]
X = RNG.standard_normal((BATCH, SIZES[0])).astype(np.float32)
Y = np.eye(10, dtype=np.float32)[RNG.integers(0, 10, BATCH)]


def _loss(logits, y):
    logits = logits - jax.nn.logsumexp(logits, axis=1, keepdims=True)
    return -jnp.sum(logits * y) / BATCH


def _reference_step(params, x, y):
    def loss(p):
        h = x
        for w, b in p[:-1]:
            h = jnp.maximum(h @ w + b, 0)
        return _loss(h @ p[-1][0] + p[-1][1], y)

    value, grads = jax.value_and_grad(loss)(params)
    return jax.tree.map(lambda a, g: a - LR * g, params, grads), value


def _largest_per_device(f, *args):
    largest: dict = {}
    shapes: set = set()

    def see(device, buffer):
        largest[device] = max(largest.get(device, 0), np.asarray(buffer).nbytes)
        shapes.add(np.shape(buffer))

    with spmd.watch_buffers(see):
        out = f(*args)
    return out, largest, shapes


def test_data_parallel_step_holds_batch_shards_only():
    mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Auto,))

    def local(params, x, y):
        (new, value) = _reference_step(params, x, y)
        grads = jax.tree.map(lambda a, b: (a - b) / LR, params, new)
        grads, value = lax.psum((grads, value), "data")
        return jax.tree.map(lambda a, g: a - LR * g, params, grads), value

    f = jax.shard_map(local, mesh=mesh, in_specs=(P(), P("data"), P("data")), out_specs=(P(), P()),
                      check_vma=False)
    (params, value), largest, shapes = _largest_per_device(f, PARAMS, X, Y)
    want_params, want_value = _reference_step(PARAMS, X, Y)
    np.testing.assert_allclose(float(value), float(want_value), rtol=1e-5)
    for a, b in zip(jax.tree.leaves(params), jax.tree.leaves(want_params)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-6)
    assert sorted(largest) == list(range(8))
    # The largest shard a device holds is the replicated W1 (784x512); its
    # gradient's psum needs one buffer of that size (the sum).
    bound = PARAMS[0][0].nbytes
    assert max(largest.values()) <= bound
    assert not any(BATCH in s for s in shapes), "a buffer spans the global batch"
    assert any(s[:1] == (BATCH // 8,) for s in shapes)


def test_data_by_model_step_holds_its_blocks_only():
    # 2 data replicas x 4 model shards: W1 split by columns, W2 by rows
    # (its product summed over 'model'), W3 replicated.
    mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Auto, AxisType.Auto))
    specs = [(P(None, "model"), P("model")), (P("model", None), P()), (P(), P())]

    def local(params, x, y):
        def loss(p):
            (w1, b1), (w2, b2), (w3, b3) = p
            h = jnp.maximum(x @ w1 + b1, 0)                      # (48, 128): this device's columns
            h = jnp.maximum(lax.psum(h @ w2, "model") + b2, 0)  # (48, 512)
            return _loss(h @ w3 + b3, y)

        # With vma types, the gradient of a piece replicated over an axis
        # arrives summed over it (the transpose of the implicit pvary).
        value, grads = jax.value_and_grad(loss)(params)
        return jax.tree.map(lambda a, g: a - LR * g, params, grads), lax.psum(value, "data")

    f = jax.shard_map(local, mesh=mesh, in_specs=(specs, P("data"), P("data")), out_specs=(specs, P()))
    (params, value), largest, shapes = _largest_per_device(f, PARAMS, X, Y)
    want_params, want_value = _reference_step(PARAMS, X, Y)
    np.testing.assert_allclose(float(value), float(want_value), rtol=1e-5)
    for a, b in zip(jax.tree.leaves(params), jax.tree.leaves(want_params)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-6)
    assert sorted(largest) == list(range(8))
    bound = PARAMS[0][0].nbytes // 4  # W1's block, the largest shard
    assert max(largest.values()) <= bound
    assert not shapes & {(BATCH, 784), (BATCH, 512), (BATCH, 10), (784, 512), (512, 512)}, "a global array"
    assert (48, 784) in shapes and (784, 128) in shapes and (128, 512) in shapes  # this device's blocks


@pytest.mark.numpy_backend("spies on the NumPy backend's runtime equation by equation")
def test_jit_of_a_shard_map_runs_on_the_shards(monkeypatch):
    # A jitted program that is one shard_map runs per device on the placed
    # arguments' own shards: the global array is never assembled, and a
    # value every device holds alike (the replicated weights' update) is
    # computed once.
    from pyjax._src.sharding.sharded_array import ShardedArray

    mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Auto,))
    x = jax.device_put(X, jax.NamedSharding(mesh, P("data")))
    w = jax.device_put(PARAMS[1][0], jax.NamedSharding(mesh, P()))
    f = jax.jit(jax.shard_map(lambda w, x: (w - 0.5 * w, lax.psum(x.sum(0), "data")), mesh=mesh,
                              in_specs=(P(), P("data")), out_specs=(P(), P()), check_vma=False))
    want = f(w, x)
    calls = []
    original = spmd._per_device

    def spy(eqn, mesh_, ins, impls):
        out = original(eqn, mesh_, ins, impls)
        calls.append((eqn.primitive.name, len({id(b) for b in out[0]})))
        return out

    def no_global(self):
        raise AssertionError("the global array was assembled")

    monkeypatch.setattr(spmd, "_per_device", spy)
    monkeypatch.setattr(spmd_runs, "COMPILE", [None])  # (equation by equation, where the spy sees each)
    monkeypatch.setattr(ShardedArray, "_value", property(no_global))
    new_w, total = f(want[0], x)
    monkeypatch.undo()
    np.testing.assert_allclose(np.asarray(new_w), PARAMS[1][0] * 0.25, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(total), X.sum(0), rtol=1e-4, atol=1e-5)
    assert ("sub", 1) in calls and ("mul", 1) in calls  # the replicated update: one buffer for all devices
    assert ("reduce_sum", 8) in calls
