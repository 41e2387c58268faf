"""Eager operations on Arrays sharded over a mesh run per device (issue 22;
src/pyjax/_src/spmd_eager.py).

The placements and values are JAX 0.11's (tests/golden/programs_spmd_eager.py,
run by test_golden.py); here every operation of that set is run again with
the global value made unreadable (`ShardedArray._value` raises) and the
runtime's per-device buffers watched: no step may assemble a global array,
and no device may hold a buffer larger than the largest shard of the
operands and the result. Without the per-device path each operation reads
its operands' global values.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import dispatch
from pyjax._src.backends.numpy.impls import spmd
from pyjax._src.sharding.sharded_array import ShardedArray
from pyjax.sharding import AxisType, NamedSharding, PartitionSpec as P

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))
from programs_spmd_eager import (AUTO_CASES, CASES, CONTROL_CASES, MIXED_CASES,  # noqa: E402
                                MIXED_RESHAPE_CASES, RESHAPE_CASES)


def _arrays(kind):
    # kind "mixed": 'x' Explicit, 'y' Auto.
    kinds = (AxisType.Explicit, AxisType.Auto) if kind == "mixed" else (kind, kind)
    mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=kinds)
    x = jax.device_put(np.arange(128., dtype=np.float32).reshape(8, 16) / 16, NamedSharding(mesh, P("x", "y")))
    y = jax.device_put(np.linspace(-1, 1, 128, dtype=np.float32).reshape(8, 16), NamedSharding(mesh, P("x")))
    v = jax.device_put(np.arange(16., dtype=np.float32), NamedSharding(mesh, P("y")))
    i = jax.device_put(np.arange(128, dtype=np.int32).reshape(8, 16), NamedSharding(mesh, P(None, "y")))
    return mesh, x, y, v, i


@contextlib.contextmanager
def _no_global_reads(scalars: bool = False):
    """Reading a placed Array's global value raises inside the block (but
    for a scalar's, where `scalars`: an eager branch reads its predicate)."""
    original = ShardedArray._value

    def refuse(self):
        if scalars and self.aval.ndim == 0:
            return original.fget(self)
        raise AssertionError(f"the global value of a placed {self.aval.str_short()} was assembled")

    ShardedArray._value = property(refuse)
    try:
        yield
    finally:
        ShardedArray._value = original


def _largest_shard(*arrays) -> int:
    return max(int(np.prod(s.data.shape)) for a in arrays for s in a.addressable_shards)


def _numpy(expr: str, x, y, v, i):
    env = {"x": np.asarray(x), "y": np.asarray(y), "v": np.asarray(v), "i": np.asarray(i), "np": np,
           "jnp": np, "lax": type("lax", (), {"max": np.maximum})}
    return np.asarray(eval(expr.replace(".astype(jnp.int32)", ".astype(np.int32)"), env))


@pytest.mark.parametrize("kind", [AxisType.Explicit, AxisType.Auto, "mixed"], ids=["explicit", "auto", "mixed"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_eager_op_runs_per_device(kind, name):
    mesh, x, y, v, i = _arrays(kind)
    expr = CASES[name]
    seen: list = []
    with _no_global_reads(), spmd.watch_buffers(lambda device, buffer: seen.append(np.size(buffer))):
        out = eval(expr, {"x": x, "y": y, "v": v, "i": i, "np": np, "jnp": jnp, "lax": lax})
    assert type(out) is ShardedArray and out.sharding.mesh == mesh
    assert seen, "nothing ran on the per-device runtime"
    assert max(seen) <= _largest_shard(x, y, v, i, out)
    want = _numpy(expr, x, y, v, i)
    np.testing.assert_allclose(np.asarray(out), want, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(AUTO_CASES))
def test_auto_mesh_choices_run_per_device(name):
    # Where the Explicit rules refuse, XLA's choice (JAX 0.11's placements, golden) per device.
    mesh, x, y, v, i = _arrays(AxisType.Auto)
    expr = AUTO_CASES[name]
    env = {"x": x, "y": y, "v": v, "i": i, "np": np, "jnp": jnp, "lax": lax, "jax": jax, "mesh": mesh,
           "NS": NamedSharding, "P": P}
    with _no_global_reads():
        out = eval(expr, env)
    assert type(out) is ShardedArray and out.sharding.mesh == mesh


@pytest.mark.parametrize("name", sorted(set(MIXED_CASES) - set(CASES)))
def test_mixed_mesh_operations_and_jits_run_per_device(name):
    # 'x' Explicit, 'y' Auto: laid out on the Explicit twin, typed by 'x'
    # alone (JAX 0.11's placements and types, golden).
    mesh, x, y, v, i = _arrays("mixed")
    env = {"x": x, "y": y, "v": v, "i": i, "np": np, "jnp": jnp, "lax": lax, "jax": jax, "mesh": mesh,
           "NS": NamedSharding, "P": P}
    seen: list = []
    with _no_global_reads(), spmd.watch_buffers(lambda device, buffer: seen.append(np.size(buffer))):
        out = eval(MIXED_CASES[name], env)
    assert type(out) is ShardedArray and out.sharding.mesh == mesh
    assert seen, "nothing ran on the per-device runtime"
    assert all(n == "x" for e in jax.typeof(out).sharding.spec if e is not None for n in (e if isinstance(e, tuple) else (e,)))


@pytest.mark.parametrize("kind,name", [("auto", n) for n in sorted(RESHAPE_CASES)]
                         + [("mixed", n) for n in MIXED_RESHAPE_CASES])
def test_reshapes_on_auto_axes_run_per_device(kind, name):
    # Placed as XLA places them (golden); each device reshapes its own block,
    # its operand laid out first where the placement asks for it.
    mesh, x, y, v, i = _arrays(AxisType.Auto if kind == "auto" else "mixed")
    env = {"x": x, "y": y, "v": v, "i": i, "np": np, "jax": jax, "mesh": mesh, "NS": NamedSharding, "P": P}
    operand = eval(RESHAPE_CASES[name].rsplit(".reshape", 1)[0], env)
    seen: list = []
    with _no_global_reads(), spmd.watch_buffers(lambda device, buffer: seen.append(np.size(buffer))):
        out = eval("operand.reshape" + RESHAPE_CASES[name].rsplit(".reshape", 1)[1], {"operand": operand})
    assert type(out) is ShardedArray and out.sharding.mesh == mesh
    assert seen, "nothing ran on the per-device runtime"
    assert max(seen) <= _largest_shard(operand, out)
    np.testing.assert_array_equal(np.asarray(out), np.asarray(operand).reshape(out.shape))


class _Eager:
    """`jax` with `jit` a no-op: the same programs run eagerly."""

    jit = staticmethod(lambda f: f)
    vmap = staticmethod(jax.vmap)


@pytest.mark.parametrize("mode", ["jit", "eager"])
@pytest.mark.parametrize("kind", ["auto", "mixed"])
@pytest.mark.parametrize("name", sorted(CONTROL_CASES))
def test_control_flow_on_auto_axes_runs_per_device(kind, name, mode):
    # Its bodies traced again at the Explicit twin's types: loops keep the
    # carry's layout (JAX 0.11's placements, golden for the jitted ones; an
    # eager loop is placed alike), no device ever holds a whole (8, 16) operand.
    mesh, x, y, v, i = _arrays(AxisType.Auto if kind == "auto" else "mixed")
    env = {"x": x, "np": np, "jnp": jnp, "lax": lax, "jax": jax if mode == "jit" else _Eager}
    want = eval(CONTROL_CASES[name], {**env, "jax": jax, "x": np.asarray(x)})
    seen: list = []
    with _no_global_reads(scalars=mode == "eager"), \
            spmd.watch_buffers(lambda device, buffer: seen.append(np.size(buffer))):
        out = eval(CONTROL_CASES[name], env)
    assert type(out) is ShardedArray and out.sharding.mesh == mesh
    assert seen and max(seen) < x.size
    np.testing.assert_allclose(np.asarray(out), np.asarray(want), rtol=1e-5, atol=1e-5)
    if mode == "eager":
        jitted = eval(CONTROL_CASES[name], {**env, "jax": jax})
        assert (out.sharding.spec, jax.typeof(out)) == (jitted.sharding.spec, jax.typeof(jitted))


def test_multiple_results_and_chains_stay_per_device():
    mesh, x, y, v, i = _arrays(AxisType.Explicit)
    w = jnp.cos(y * 7.0)
    with _no_global_reads():
        keys, vals = lax.sort((w, y), dimension=1, num_keys=1)
        chain = jnp.tanh(x * 0.5 + y) - v
    order = np.argsort(np.asarray(w), axis=1, kind="stable")
    np.testing.assert_array_equal(np.asarray(keys), np.sort(np.asarray(w), axis=1))
    np.testing.assert_array_equal(np.asarray(vals), np.take_along_axis(np.asarray(y), order, axis=1))
    assert keys.sharding.spec == vals.sharding.spec == P("x", None)
    np.testing.assert_allclose(np.asarray(chain), np.tanh(np.asarray(x) * 0.5 + np.asarray(y)) - np.asarray(v),
                               rtol=2e-6, atol=1e-6)
    assert chain.sharding.spec == P("x", "y")


def test_operations_it_cannot_partition_still_compute_on_the_assembled_value():
    # On an Auto mesh a contraction over a split dimension objects on the
    # Explicit twin (XLA would pick a layout): computed as before.
    mesh, x, y, v, i = _arrays(AxisType.Auto)
    z = jax.device_put(np.ones((16, 4), np.float32), NamedSharding(mesh, P("y")))
    out = x @ z
    np.testing.assert_allclose(np.asarray(out), np.asarray(x) @ np.ones((16, 4), np.float32), rtol=1e-6)
    assert out.sharding.mesh == mesh


def test_single_device_and_plain_arrays_never_reach_the_per_device_path():
    calls = []
    real = dispatch.PLACED_EAGER[0]
    dispatch.PLACED_EAGER[0] = lambda *a: calls.append(a[0]) or real(*a)
    try:
        a = jnp.arange(8.0)
        (a + 1.0, jnp.sin(a), a * a, a.sum(), a // 2.0)
        assert calls == []
        one = jax.device_put(np.arange(8.0, dtype=np.float32), jax.devices()[3])
        np.testing.assert_allclose(np.asarray(jnp.sin(one)), np.sin(np.arange(8.0, dtype=np.float32)), rtol=1e-6)
        mesh, x, y, v, i = _arrays(AxisType.Explicit)
        jnp.sin(x)
        assert calls and calls[-1].name == "sin"
    finally:
        dispatch.PLACED_EAGER[0] = real


def test_jitted_functions_on_placed_arguments_run_per_device():
    # jnp's jitted functions (floor_divide, where, ...) and a user's jit with
    # a Python scalar: the program partitioned on the arguments' placements.
    for kind in (AxisType.Explicit, AxisType.Auto):
        mesh, x, y, v, i = _arrays(kind)
        f = jax.jit(lambda a, b, s: jnp.where(a > s, a * s, b) + jnp.floor_divide(a, 3.0))
        with _no_global_reads():
            out = f(x, x * 2.0, 2.5)
            again = f(x, x, 1.5)
        a = np.asarray(x)
        np.testing.assert_allclose(np.asarray(out), np.where(a > 2.5, a * 2.5, a * 2) + np.floor_divide(a, 3.0),
                                   rtol=1e-6)
        np.testing.assert_allclose(np.asarray(again), np.where(a > 1.5, a * 1.5, a) + np.floor_divide(a, 3.0),
                                   rtol=1e-6)
        assert out.sharding.spec == again.sharding.spec == P("x", "y")  # (JAX 0.11 on both kinds)
