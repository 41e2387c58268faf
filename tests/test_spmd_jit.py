"""Sharded jit runs per device (issue 22 item 3): a jitted program over
Explicit-sharded arguments is partitioned into a per-device program (the
collectives its types demand inserted) and run by the lockstep runtime on
the arguments' own shards. Every test watches the runtime's per-device
buffers (spmd.watch_buffers): without the partitioner a jitted call makes
none, computing on the assembled value."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import spmd_jit
from pyjax._src.backends.numpy.impls import spmd
from pyjax.sharding import AxisType, NamedSharding, PartitionSpec as P

MESHES = [(1, 8), (2, 4), (4, 2), (8, 1)]
GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.fixture(autouse=True)
def strict():
    # A partitioning failure raises here rather than falling back to the global path.
    spmd_jit.STRICT[0] = True
    yield
    spmd_jit.STRICT[0] = False


def _mesh(shape):
    return jax.make_mesh(shape, ("x", "y"), axis_types=(AxisType.Explicit,) * 2)


def _put(mesh, value, *spec):
    return jax.device_put(value, NamedSharding(mesh, P(*spec)))


def _per_device(f, *args):
    """f(*args), with every per-device buffer the runtime made."""
    seen: list = []
    with spmd.watch_buffers(lambda device, buffer: seen.append(np.shape(buffer))):
        out = f(*args)
    assert seen, "the jitted call did not run per device"
    return out, seen


SPECS = [(None, None), ("x", None), (None, "y"), ("x", "y"), ("y", "x"), (("x", "y"), None), (None, ("y", "x"))]


def _random_program(rng, mesh):
    """(jitted function, NumPy reference, arguments) of a random chain of
    elementwise ops, a matmul with out_sharding, reductions and reshards."""
    ns = lambda *spec: NamedSharding(mesh, P(*spec))  # noqa: E731
    sa, sb, so, sr = (SPECS[i] for i in rng.integers(0, len(SPECS), 4))
    red_axis = int(rng.integers(0, 2))
    A = rng.standard_normal((16, 24)).astype(np.float32)
    B = rng.standard_normal((24, 8)).astype(np.float32)

    def f(a, b):
        h = jnp.sin(a) * 2.0 + a
        c = lax.dot_general(h, jax.sharding.reshard(b, ns(sa[1], None) if isinstance(sa[1], str) or sa[1] is None
                                                          else ns(None, None)),
                            (((1,), (0,)), ((), ())), out_sharding=ns(*so))
        c = jnp.tanh(c) + 1.0
        r = jax.sharding.reshard(c, ns(*sr))
        return r.sum(axis=red_axis), jnp.max(r), (r * r).mean(axis=0)

    def ref(a, b):
        c = np.tanh((np.sin(a) * 2.0 + a) @ b) + 1.0
        return c.sum(axis=red_axis), c.max(), (c * c).mean(axis=0)

    return jax.jit(f), ref, (_put(mesh, A, *sa), _put(mesh, B, *sb)), (A, B)


@pytest.mark.parametrize("shape", MESHES)
def test_random_sharded_programs_equal_the_unsharded_computation(shape):
    mesh = _mesh(shape)
    rng = np.random.default_rng(sum(shape) * 7 + shape[0])
    for _ in range(4):
        f, ref, args, values = _random_program(rng, mesh)
        outs, _ = _per_device(f, *args)
        for got, want in zip(outs, ref(*values)):
            np.testing.assert_allclose(np.asarray(got), want, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("shape", MESHES)
def test_elementwise_and_layout_ops_run_per_device(shape):
    mesh = _mesh(shape)
    A = np.arange(16 * 24, dtype=np.float32).reshape(16, 24) / 100.0
    a = _put(mesh, A, "x", "y")

    def f(x):
        y = jnp.exp(x) - x * 3 + jnp.arange(24.0, out_sharding=NamedSharding(mesh, P("y")))
        return y.T, jnp.cumsum(jax.sharding.reshard(y, NamedSharding(mesh, P("x", None))), axis=1), y.reshape(8, 48, out_sharding=NamedSharding(mesh, P("x", None)))

    outs, _ = _per_device(jax.jit(f), a)
    Y = np.exp(A) - A * 3 + np.arange(24.0, dtype=np.float32)
    for got, want in zip(outs, (Y.T, np.cumsum(Y, axis=1), Y.reshape(8, 48))):
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
    assert jax.typeof(outs[0]).sharding.spec == P("y", "x")


def test_issue_example_runs_per_device_and_equals_numpy():
    mesh = _mesh((4, 2))
    rng = np.random.default_rng(1)
    A, B = rng.standard_normal((8, 16)).astype(np.float32), rng.standard_normal((16, 4)).astype(np.float32)
    a, b = _put(mesh, A, "x", "y"), _put(mesh, B, "y", None)

    def f(p, q):
        return lax.dot_general(p, q, (((1,), (0,)), ((), ())), out_sharding=NamedSharding(mesh, P("x", None)))

    r, seen = _per_device(jax.jit(f), a, b)
    np.testing.assert_allclose(np.asarray(r), A @ B, rtol=1e-5, atol=1e-5)
    assert str(jax.typeof(r)) == "float32[8@x,4]"
    assert [s.data.shape for s in r.addressable_shards] == [(2, 4)] * 8
    assert set(seen) == {(2, 4)}  # the local product and its psum over y
    text = jax.jit(f).lower(a, b).compile().as_text()
    assert re.search(r"lambda ; \w+:f32\[2,8\] \w+:f32\[8,4\]\. let", text), text  # the per-device program
    assert "psum[axes=('y',)" in text and "shard_map[" in text


def test_no_device_buffer_is_the_global_array_during_a_sharded_matmul():
    mesh = _mesh((4, 2))
    rng = np.random.default_rng(2)
    A, B = rng.standard_normal((64, 96)).astype(np.float32), rng.standard_normal((96, 40)).astype(np.float32)
    a, b = _put(mesh, A, "x", "y"), _put(mesh, B, "y", None)
    largest: dict = {}

    def see(device, buffer):
        largest[device] = max(largest.get(device, 0), np.asarray(buffer).nbytes)
        assert np.shape(buffer) not in {(64, 96), (96, 40), (64, 40)}, np.shape(buffer)

    f = jax.jit(lambda p, q: jnp.matmul(p, q, out_sharding=NamedSharding(mesh, P("x", "y"))))
    with spmd.watch_buffers(see):
        r = f(a, b)
    np.testing.assert_allclose(np.asarray(r), A @ B, rtol=1e-4, atol=1e-4)
    assert len(largest) == 8 and max(largest.values()) <= 16 * 40 * 4  # one block of the partial product
    assert [s.data.shape for s in r.addressable_shards] == [(16, 20)] * 8  # (psum_scattered over y)


def test_grad_of_a_sharded_jitted_loss_runs_per_device():
    mesh = _mesh((2, 4))
    rng = np.random.default_rng(3)
    A, B = rng.standard_normal((8, 16)).astype(np.float32), rng.standard_normal((16, 4)).astype(np.float32)
    a, b = _put(mesh, A, "x", "y"), _put(mesh, B, "y", None)

    def loss(p, q):
        c = lax.dot_general(p, q, (((1,), (0,)), ((), ())), out_sharding=NamedSharding(mesh, P("x", None)))
        return jnp.tanh(c * 0.1).sum()

    (ga, gb), _ = _per_device(jax.jit(jax.grad(loss, argnums=(0, 1))), a, b)
    dc = (1 - np.tanh((A @ B) * 0.1) ** 2) * 0.1
    np.testing.assert_allclose(np.asarray(ga), dc @ B.T, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(gb), A.T @ dc, rtol=1e-4, atol=1e-5)
    assert jax.typeof(ga).sharding.spec == P("x", "y")


def test_a_primitive_without_a_rule_is_gathered_computed_and_sliced():
    mesh = _mesh((4, 2))
    A = np.random.default_rng(4).standard_normal((8, 16)).astype(np.float32)
    a = _put(mesh, A, "x", None)
    # (a variadic reduce with its own body has no partition rule; reduce_prod, the example before, has one now)
    def f(p):
        return lax.reduce((p, p * 0.5 + 1.0), (0.0, 1.0), lambda u, v: (u[0] + v[0], u[1] * v[1]), (1,))[1]

    out, _ = _per_device(jax.jit(f), a)
    np.testing.assert_allclose(np.asarray(out), np.prod(A * 0.5 + 1.0, axis=1), rtol=1e-4)


def _golden_programs():
    data = json.loads((GOLDEN / "spmd_jit.json").read_text())["programs"]
    return sorted(name for name, p in data.items() if p["kind"] == "value")


@pytest.mark.parametrize("name", _golden_programs())
def test_golden_programs_run_per_device_and_equal_jax(name):
    sys.path.insert(0, str(GOLDEN))
    try:
        import programs_core
        import programs_spmd_jit
    finally:
        sys.path.remove(str(GOLDEN))
    expected = json.loads((GOLDEN / "spmd_jit.json").read_text())["programs"][name]
    program = next(p for p in programs_spmd_jit.PROGRAMS if p.name == name)
    actual, _ = _per_device(lambda: programs_core.run_program(program, jax, jnp, lax))
    assert actual["kind"] == "value", actual
    assert (actual["shape"], actual["dtype"], actual["weak_type"]) == (expected["shape"], expected["dtype"],
                                                                        expected["weak_type"])
    np.testing.assert_allclose(np.asarray(actual["value"], np.float64), np.asarray(expected["value"], np.float64),
                               rtol=1e-5, atol=1e-6)
