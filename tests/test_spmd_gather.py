"""Batched gathers and scatters run per device (issue 22; lax/spmd_rules.py
gather_rule, scatter_rule).

A vmapped indexing `vmap(lambda r, k: r[k])` is a gather with batching
dimensions (operand_batching_dims / start_indices_batching_dims), which
JAX 0.11 types with the batch dimension split as the operands' (they must
be split alike). It used the fallback: the operand and the indices
all-gathered on every device, the gather computed at global size, the
result sliced back. Now each device gathers within its own batch rows
(and a vmapped `.at[k].add/set/max` scatters within them; JAX 0.11 types
an unbatched scatter on split operands with the operand resharded to
replicated first, so only batched ones stay split).
The runtime's per-device buffers are watched: none may be larger than the
largest block of the operands and the result (before: the whole operand).
"""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax._src import spmd_jit
from pyjax._src.backends.numpy.impls import spmd
from pyjax.sharding import AxisType, NamedSharding, PartitionSpec as P


@pytest.fixture(autouse=True)
def strict():
    spmd_jit.STRICT[0] = True
    yield
    spmd_jit.STRICT[0] = False


def _largest_block(*arrays) -> int:
    return max(int(np.prod(s.data.shape)) for a in arrays for s in a.addressable_shards)


def _check(fn, args, expected, spec):
    seen: list = []
    with spmd.watch_buffers(lambda device, buffer: seen.append(np.size(buffer))):
        out = fn(*args)
    np.testing.assert_array_equal(np.asarray(out), expected)
    assert out.sharding.spec == spec
    assert seen, "the program did not run per device"
    assert max(seen) <= _largest_block(*args, out), (max(seen), _largest_block(*args, out))


X = np.arange(8 * 16 * 4, dtype=np.float32).reshape(8, 16, 4)
I = (np.arange(8 * 3, dtype=np.int32).reshape(8, 3) * 5) % 16


def _put(value, *spec):
    mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    return jax.device_put(value, NamedSharding(mesh, P(*spec)))


@pytest.mark.parametrize("jitted", [True, False], ids=["jit", "eager"])
def test_vmapped_indexing_gathers_within_each_devices_rows(jitted):
    f = jax.vmap(lambda r, k: r[k])
    x, i = _put(X, "x", None, "y"), _put(I, "x", None)
    _check(jax.jit(f) if jitted else f, (x, i), X[np.arange(8)[:, None], I], P("x", None, "y"))


def test_batch_split_over_both_axes():
    f = jax.jit(jax.vmap(lambda r, k: r[k]))
    x, i = _put(X[:, :, 0], ("x", "y")), _put(I, ("x", "y"))
    _check(f, (x, i), X[:, :, 0][np.arange(8)[:, None], I], P(("x", "y"), None))


def test_two_batch_dimensions_and_take_along_axis():
    f = jax.jit(jax.vmap(jax.vmap(lambda r, k: jnp.take_along_axis(r, k, axis=0))))
    xs, ks = X.reshape(4, 2, 16, 4), np.broadcast_to((I.reshape(4, 2, 3, 1) + np.arange(4)) % 16, (4, 2, 3, 4))
    x, i = _put(xs, "x", "y"), _put(np.ascontiguousarray(ks), "x", "y")
    expected = np.take_along_axis(xs, ks, axis=2)
    _check(f, (x, i), expected, P("x", "y", None, None))


def test_the_per_device_program_holds_no_gather_of_the_operand():
    f = jax.jit(jax.vmap(lambda r, k: r[k]))
    text = f.lower(_put(X, "x", None, "y"), _put(I, "x", None)).compile().as_text()
    assert "all_gather" not in text and "gather[" in text


@pytest.mark.parametrize("op", ["add", "set", "max", "multiply"])
def test_vmapped_scatter_updates_each_devices_rows(op):
    f = jax.jit(jax.vmap(lambda r, k: getattr(r.at[k], op)(3.0)))
    xs = X[:, :, 0]
    x, i = _put(xs, "x", None), _put(I, "x", None)
    expected = xs.copy()
    for b in range(8):
        for k in I[b]:
            expected[b, k] = {"add": expected[b, k] + 3, "set": 3.0, "max": max(expected[b, k], 3.0),
                              "multiply": expected[b, k] * 3}[op]
    _check(f, (x, i), expected, P("x", None))
