"""Runs of equations that exchange nothing in a shard_map body run as one
compiled program per device (backends/numpy/impls/spmd_runs.py), with the
same bits as interpreting them equation by equation, and a value every
device shares still computed once."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.backends.numpy.impls import spmd, spmd_runs
from pyjax.sharding import AxisType, PartitionSpec as P

# (On IREE the runs are IREE's modules, checked by tests/backends/test_iree_spmd.py; these check the
# NumPy backend's compiled runs bit for bit against its interpreted impls.)
pytestmark = pytest.mark.numpy_backend("the NumPy backend's compiled runs, bitwise against its impls")

MESHES = [(1, 8), (2, 4), (4, 2), (8, 1)]


def _bits(tree) -> list:
    return [(np.asarray(x).dtype, np.shape(x), np.asarray(x).tobytes()) for x in jax.tree.leaves(tree)]


def _both_ways(f, *args, monkeypatch):
    """f(*args) with compiled runs, then interpreted; and how many programs were made."""
    made = []
    original = spmd_runs.COMPILE[0]

    def compile_and_count(jaxpr):
        made.append(len(jaxpr.eqns))
        return original(jaxpr)

    monkeypatch.setattr(spmd_runs, "COMPILE", [compile_and_count])
    compiled = f(*args)
    monkeypatch.setattr(spmd_runs, "COMPILE", [None])
    interpreted = f(*args)
    monkeypatch.undo()
    return compiled, interpreted, made


def _mlp_step(mesh, batch=32):
    def loss(params, x, y):
        h = x
        for w, b in params[:-1]:
            h = jnp.maximum(h @ w + b, 0.0)
        logits = h @ params[-1][0] + params[-1][1]
        logits = logits - jax.nn.logsumexp(logits, axis=1, keepdims=True)
        return -jnp.sum(logits * y) / batch

    def local_step(params, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        value, grads = lax.psum((value, grads), "data")
        return jax.tree.map(lambda p, g: p - 0.05 * g, params, grads), value

    return jax.jit(jax.shard_map(local_step, mesh=mesh, in_specs=(P(), P("data"), P("data")),
                                 out_specs=(P(), P()), check_vma=False))


def test_a_data_parallel_training_step_is_bitwise_the_same_compiled(monkeypatch):
    mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Auto,))
    rng = np.random.default_rng(0)
    sizes = (24, 32, 16, 10)
    params = [(jnp.asarray(rng.standard_normal((m, n)).astype(np.float32) / np.sqrt(m)),
               jnp.zeros((n,), jnp.float32)) for m, n in zip(sizes[:-1], sizes[1:])]
    x = jax.device_put(rng.standard_normal((32, 24)).astype(np.float32), jax.NamedSharding(mesh, P("data")))
    y = jax.device_put(np.eye(10, dtype=np.float32)[rng.integers(0, 10, 32)], jax.NamedSharding(mesh, P("data")))
    step = _mlp_step(mesh)

    def train(params):
        losses = []
        for _ in range(4):
            params, value = step(params, x, y)
            losses.append(value)
        return params, losses

    compiled, interpreted, made = _both_ways(train, params, monkeypatch=monkeypatch)
    assert made and max(made) > 20  # the forward and backward pass: one program per device
    assert _bits(compiled) == _bits(interpreted)
    assert float(compiled[1][-1]) < float(compiled[1][0])


def _random_body(rng):
    """A random shard_map body over a (16, 24) block split ('x', 'y') and a
    (24, 8) operand split ('y', None): elementwise chains, a local matmul,
    reductions, and collectives between them."""
    ops = [jnp.sin, jnp.tanh, lambda v: v * 1.5 - 0.25, lambda v: jnp.maximum(v, 0.1), jnp.exp]
    picks = [ops[i] for i in rng.integers(0, len(ops), 6)]
    collective = int(rng.integers(0, 3))

    def body(a, b):
        h = picks[1](picks[0](a)) + picks[2](a)
        c = h @ b  # (local rows x 8): partial over y
        c = lax.psum(c, "y") if collective == 0 else lax.pmax(c, "y") if collective == 1 else c * 2.0
        c = picks[4](picks[3](c)) + c.mean(axis=0)
        return c, lax.psum(jnp.sum(picks[5](h) * 0.01, axis=1), "y")

    return body


@pytest.mark.parametrize("shape", MESHES)
def test_random_bodies_are_bitwise_the_same_compiled(shape, monkeypatch):
    mesh = jax.make_mesh(shape, ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    rng = np.random.default_rng(sum(shape) + shape[0])
    A = rng.standard_normal((16, 24)).astype(np.float32)
    B = rng.standard_normal((24, 8)).astype(np.float32) / 5
    for _ in range(3):
        body = _random_body(rng)
        f = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=(P("x", "y"), P("y", None)),
                                  out_specs=(P("x", None), P("x")), check_vma=False))
        a = jax.device_put(A, jax.NamedSharding(mesh, P("x", "y")))
        b = jax.device_put(B, jax.NamedSharding(mesh, P("y", None)))
        compiled, interpreted, made = _both_ways(f, a, b, monkeypatch=monkeypatch)
        assert made
        assert _bits(compiled) == _bits(interpreted)


def test_a_shared_value_is_still_computed_once(monkeypatch):
    mesh = jax.make_mesh((8,), ("data",), axis_types=(AxisType.Auto,))
    w = np.arange(48.0, dtype=np.float32).reshape(6, 8)
    x = jax.device_put(np.ones((16, 6), np.float32), jax.NamedSharding(mesh, P("data")))
    f = jax.jit(jax.shard_map(lambda w, x: ((w * 0.5 - 1.0) * 2.0, jnp.sin(x @ w) + 1.0), mesh=mesh,
                              in_specs=(P(), P("data")), out_specs=(P(), P("data")), check_vma=False))
    calls: dict = {}

    def counted(name, impl):
        def call(*args, **params):
            calls[name] = calls.get(name, 0) + 1
            return impl(*args, **params)
        return call

    monkeypatch.setattr(spmd, "_IMPLS", {p: counted(p.name, impl) for p, impl in spmd._IMPLS.items()})
    new_w, y = f(jnp.asarray(w), x)
    np.testing.assert_allclose(np.asarray(new_w), (w * 0.5 - 1.0) * 2.0)
    np.testing.assert_allclose(np.asarray(y), np.sin(np.ones((16, 6)) @ w) + 1.0, rtol=1e-5)
    # The replicated weights' arithmetic ran once; the per-device part ran
    # as compiled programs, not through the impls one call per device.
    assert calls.get("sub") == 1 and calls.get("mul") == 2, calls
    assert "sin" not in calls and "dot_general" not in calls, calls


def test_a_run_the_backend_cannot_compile_is_interpreted(monkeypatch):
    mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)

    refused = []

    def refuse(jaxpr):
        refused.append(jaxpr)
        raise NotImplementedError("no compiler here")

    def make():  # (a fresh program each time: its runs not compiled yet)
        return jax.jit(jax.shard_map(lambda a: lax.psum(jnp.cos(a) * 2.0 + a, "y"), mesh=mesh,
                                     in_specs=P("x", "y"), out_specs=P("x", None), check_vma=False))

    A = np.arange(64.0, dtype=np.float32).reshape(8, 8) / 10
    a = jax.device_put(A, jax.NamedSharding(mesh, P("x", "y")))
    want = make()(a)
    monkeypatch.setattr(spmd_runs, "COMPILE", [refuse])
    got = make()(a)
    assert refused and _bits(got) == _bits(want)
    blocks = (np.cos(A) * 2.0 + A).reshape(8, 2, 4)
    np.testing.assert_allclose(np.asarray(got), blocks.sum(1), rtol=1e-5)
