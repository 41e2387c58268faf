"""`jax.pmap(..., donate_argnums=...)` (issue 22): beyond the recorded JAX
0.11 facts (tests/golden/programs_pmap_donation.py), a training loop that
donates its parameters each step, and a donated broadcast (in_axes=None)
argument."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax


def test_training_loop_donating_parameters():
    step = jax.pmap(lambda w, x: w - 0.1 * lax.pmean(x * w, "i"), axis_name="i", donate_argnums=0)
    w = jax.pmap(lambda v: v)(jnp.ones(8))
    x = np.arange(8.0, dtype=np.float32)
    expected = np.ones(8, np.float32)
    for _ in range(3):
        old = w
        w = step(w, x)
        assert old.is_deleted() and not w.is_deleted()
        with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[8\]"):
            np.asarray(old)
        expected = expected - 0.1 * np.mean(x * expected)
    np.testing.assert_allclose(np.asarray(w), expected, rtol=1e-6)


def test_donated_buffers_are_matched_per_device():
    f = jax.pmap(lambda a, b: a + b, in_axes=(0, None), donate_argnums=1)
    a = jax.pmap(lambda v: v)(jnp.arange(8.0))
    b = jnp.arange(8.0)  # on one device, split: each device gets a copy of its slice, the copy donated
    jax.pmap(lambda a, b: a * b, donate_argnums=1)(a, b)
    assert not b.is_deleted() and not a.is_deleted()
    b = jnp.ones(())  # broadcast from the first device: its buffer is that device's copy, and is taken
    f(a, b)
    assert b.is_deleted() and not a.is_deleted()
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:8]), ("_internal_pmap_axis_name",))
    replicated = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())
    # A replicated f32[8] holds 8 elements per device; each device's result (1 element) cannot reuse it.
    c = jax.device_put(jnp.ones(8), replicated)
    jax.pmap(lambda a, c: a + c.sum(), in_axes=(0, None), donate_argnums=1)(a, c)
    assert not c.is_deleted()
    # A replicated result of its own shape can.
    h = jax.pmap(lambda a, c: (a, c * 2), in_axes=(0, None), out_axes=(0, None), donate_argnums=1)
    out = h(a, c)
    assert c.is_deleted() and not a.is_deleted()
    np.testing.assert_array_equal(np.asarray(out[1]), np.full(8, 2.0, np.float32))
