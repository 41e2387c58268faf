"""Placed Arrays: one NumPy buffer per device shard, assembled on demand.

Runs on the 8 CPU devices tests/conftest.py asks for (JAX_NUM_CPU_DEVICES=8).
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pyjax as jax
import pyjax.numpy as jnp
from pyjax.sharding import AxisType, NamedSharding, PartitionSpec as P

MESH_SHAPES = [(1, 8), (2, 4), (4, 2), (8, 1)]


def _mesh(shape, types=AxisType.Explicit):
    return jax.make_mesh(shape, ("x", "y"), axis_types=(types, types))


def test_eight_devices():
    assert jax.device_count() == 8 and len(jax.devices()) == 8
    d = jax.devices()[3]
    assert (d.id, d.platform, d.device_kind, d.process_index) == (3, "cpu", "cpu", 0)
    assert repr(d) == "CpuDevice(id=3)" and str(d) == "cpu:3"
    assert jax.local_devices() == jax.devices() and jax.local_device_count() == 8
    assert (jax.process_index(), jax.process_count()) == (0, 1)


def test_changing_the_device_count_after_first_use_raises():
    jax.devices()
    with pytest.raises(RuntimeError, match="jax_num_cpu_devices config should be updated before backends"):
        jax.config.update("jax_num_cpu_devices", 4)
    assert jax.device_count() == 8
    jax.config.update("jax_num_cpu_devices", 8)  # the count in use: not a change


def _spec_strategy():
    entries = st.sampled_from([None, "x", "y", ("x", "y"), ("y", "x")])
    return st.lists(entries, min_size=0, max_size=2)


def _valid(spec):
    used = [a for e in spec if e is not None for a in (e if isinstance(e, tuple) else (e,))]
    return len(used) == len(set(used))


@settings(max_examples=60, deadline=None)
@given(mesh_shape=st.sampled_from(MESH_SHAPES), spec=_spec_strategy(),
       rows=st.sampled_from([8, 16]), cols=st.sampled_from([8, 24]), seed=st.integers(0, 2**31 - 1))
def test_device_put_round_trips_and_each_shard_holds_its_slice(mesh_shape, spec, rows, cols, seed):
    if not _valid(spec):
        return
    mesh = _mesh(mesh_shape)
    x = np.random.default_rng(seed).standard_normal((rows, cols)).astype(np.float32)
    a = jax.device_put(x, NamedSharding(mesh, P(*spec)))
    np.testing.assert_array_equal(np.asarray(a), x)
    np.testing.assert_array_equal(jax.device_get(a), x)
    shards = a.addressable_shards
    assert [s.device for s in shards] == list(mesh.devices.flat)
    buffers = set()
    for s in shards:
        data = np.asarray(s.data)
        np.testing.assert_array_equal(data, x[s.index])
        assert s.data.devices() == {s.device}
        buffer = a._shards[shards.index(s)]
        assert not np.shares_memory(buffer, x)  # the device has its own copy
        buffers.add(id(buffer))
        if not a.is_fully_replicated:
            assert buffer.size < x.size  # no device holds the global array
    assert len(buffers) == 8  # one buffer per device, no hidden global copy
    # replica ids number the copies of each distinct slice 0, 1, ...
    by_index = {}
    for s in shards:
        by_index.setdefault(tuple((i.start, i.stop) for i in s.index), []).append(s.replica_id)
    assert all(sorted(r) == list(range(len(r))) for r in by_index.values())


def test_placed_array_holds_no_global_buffer():
    mesh = _mesh((4, 2))
    a = jax.device_put(np.arange(128.0, dtype=np.float32).reshape(8, 16), NamedSharding(mesh, P("x", "y")))
    assert all(b.shape == (2, 8) for b in a._shards)
    # the global value is assembled afresh each time, not kept
    assert np.asarray(a) is not np.asarray(a)


def test_eager_ops_on_placed_arrays_return_placed_results():
    mesh = _mesh((4, 2))
    x = np.arange(128.0, dtype=np.float32).reshape(8, 16)
    a = jax.device_put(x, NamedSharding(mesh, P("x", "y")))
    out = a * 2.0 + a
    assert out.sharding == NamedSharding(mesh, P("x", "y"))
    assert str(jax.typeof(out)) == "float32[8@x,16@y]"
    np.testing.assert_array_equal(np.asarray(out), x * 3)
    s = jnp.sum(a, axis=1)
    assert s.sharding == NamedSharding(mesh, P("x"))
    np.testing.assert_allclose(np.asarray(s), x.sum(1))


def test_jit_on_placed_arrays_places_its_results_by_type():
    mesh = _mesh((4, 2))
    x = np.arange(128.0, dtype=np.float32).reshape(8, 16)
    a = jax.device_put(x, NamedSharding(mesh, P("x", "y")))
    f = jax.jit(lambda p: jnp.sin(p) * p)
    out = f(a)
    assert out.sharding == NamedSharding(mesh, P("x", "y"))
    np.testing.assert_allclose(np.asarray(out), np.sin(x) * x, rtol=1e-6)


def test_jit_cache_keys_on_sharding():
    mesh = _mesh((4, 2))
    traces = []

    @jax.jit
    def f(p):
        traces.append(jax.typeof(p))
        return p + 1.0

    x = np.zeros((8, 16), np.float32)
    f(jax.device_put(x, NamedSharding(mesh, P("x", "y"))))
    f(jax.device_put(x + 1, NamedSharding(mesh, P("x", "y"))))
    assert len(traces) == 1  # the same sharding hits
    f(jax.device_put(x, NamedSharding(mesh, P("y", "x"))))
    assert len(traces) == 2  # a resharded argument retraces
    assert [str(t) for t in traces] == ["float32[8@x,16@y]", "float32[8@y,16@x]"]


def test_make_array_from_callback_and_single_device_arrays():
    mesh = _mesh((4, 2))
    s = NamedSharding(mesh, P("x", "y"))
    data = np.arange(128.0, dtype=np.float32).reshape(8, 16)
    seen = []
    a = jax.make_array_from_callback((8, 16), s, lambda idx: (seen.append(idx), data[idx])[1])
    assert len(seen) == 8 and all(np.asarray(sh.data).shape == (2, 8) for sh in a.addressable_shards)
    np.testing.assert_array_equal(np.asarray(a), data)
    b = jax.make_array_from_single_device_arrays((8, 16), s, [sh.data for sh in a.addressable_shards])
    np.testing.assert_array_equal(np.asarray(b), data)
    with pytest.raises(ValueError, match="Expected shard shape"):
        jax.make_array_from_callback((8, 16), s, lambda idx: np.zeros((3, 3), np.float32))


def test_device_put_on_one_device_and_back():
    y = jax.device_put(jnp.arange(3.0), jax.devices()[5])
    assert y.device == jax.devices()[5] and y.sharding.device_set == {jax.devices()[5]}
    np.testing.assert_array_equal(np.asarray(y + 1), [1.0, 2.0, 3.0])
    assert (y + 1).devices() == {jax.devices()[5]}


def test_pickled_placed_array_keeps_its_sharding():
    mesh = _mesh((2, 4))
    a = jax.device_put(np.arange(32.0, dtype=np.float32).reshape(4, 8), NamedSharding(mesh, P("x", "y")))
    b = pickle.loads(pickle.dumps(a))
    assert b.sharding == a.sharding
    np.testing.assert_array_equal(np.asarray(b), np.asarray(a))


def test_deleted_placed_array_refuses_use():
    mesh = _mesh((4, 2))
    a = jax.device_put(np.zeros((8, 2), np.float32), NamedSharding(mesh, P("x")))
    a.delete()
    assert a.is_deleted()
    with pytest.raises(RuntimeError, match="Array has been deleted"):
        np.asarray(a)


def test_memory_kind_in_the_type():
    mesh = _mesh((4, 2))
    h = jax.device_put(np.zeros((8, 16), np.float32), NamedSharding(mesh, P("x", "y"), memory_kind="pinned_host"))
    assert str(jax.typeof(h)) == "float32<host>[8@x,16@y]"
    assert h.sharding.memory_kind == "pinned_host"
    assert h.addressable_shards[0].data.sharding.memory_kind == "pinned_host"
    d = jax.device_put(h, NamedSharding(mesh, P("x", "y")))
    assert str(jax.typeof(d)) == "float32[8@x,16@y]"
