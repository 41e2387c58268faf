"""Native programs (backends/numpy/native/) with batched products, reshapes of
strided views, iotas, pads and small constants: a small transformer block's
attention and a log density's gradients under vmap run natively once they
tier up, bitwise the Python code's (for products, the same BLAS calls
NumPy's matmul makes, one gemm per batch entry)."""

from __future__ import annotations


import numpy as np
import pytest
from helpers import native_tiers_made

import pyjax
import pyjax.numpy as jnp
from pyjax._src.backends.numpy import native
from pyjax._src.backends.numpy.native import ops
from pyjax._src.backends.numpy.native import settings as native_settings

pytestmark = pytest.mark.skipif(native.compiler() is None or not native_settings.ENABLED,
                                reason="native code needs a C compiler")

rng = np.random.default_rng(11)


def arr(*shape):
    return jnp.asarray(rng.standard_normal(shape).astype(np.float32))


def run_both(f, *args, monkeypatch):
    """Three native calls and the Python code's result (bitwise equal); the programs made."""
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    jf = pyjax.jit(lambda *a: f(*a))
    outs, made = native_tiers_made(lambda: [jf(*args) for _ in range(3)], kind="program")
    with monkeypatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        reference = pyjax.jit(lambda *a: f(*a))(*args)
    for out in outs:
        for a, b in zip(pyjax.tree.leaves(out), pyjax.tree.leaves(reference), strict=True):
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes()
    return made


def attention(x, wqkv):
    B, T, D = x.shape
    heads = 4
    q, k, v = jnp.split(x @ wqkv, 3, axis=-1)  # (strided views: reshaped by copies)
    q, k, v = (t.reshape(B, T, heads, D // heads).transpose(0, 2, 1, 3) for t in (q, k, v))
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / 4.0
    s = jnp.where(jnp.tril(jnp.ones((T, T), dtype=bool)), s, -1e9)  # (an iota's causal mask)
    a = pyjax.nn.softmax(s, axis=-1)
    return jnp.einsum("bhqk,bhkd->bhqd", a, v).transpose(0, 2, 1, 3).reshape(B, T, D)


Y = jnp.asarray([28., 8., -3., 7., -1., 1., 18., 12.])


def log_density_grads(zs):
    # Closes over a constant (its values go into the source); the gradient of
    # the slices is a pad; the slices' squeezes are of strided views.
    def log_density(z):
        mu, log_tau, theta_t = z[0], z[1], z[2:]
        theta = mu + jnp.exp(log_tau) * theta_t
        return jnp.sum(-0.5 * ((Y - theta) / 10.0) ** 2) - 0.5 * mu ** 2 + log_tau
    return pyjax.vmap(pyjax.value_and_grad(log_density))(zs)


@pytest.mark.parametrize("f, shapes", [
    (log_density_grads, [(100, 10)]),
    (lambda x: jnp.pad(x, ((1, 2), (0, 3))) * 2.0, [(5, 4)]),
    (attention, [(2, 16, 64), (64, 192)]),
    (lambda a, b: jnp.einsum("bij,bkj->bik", a, b) + 1.0, [(3, 8, 5), (3, 6, 5)]),  # a transposed operand
    (lambda a, b: jnp.einsum("ibj,bjk->bik", a, b) * 2.0, [(8, 3, 5), (3, 5, 6)]),  # batch not leading
    (lambda a, b: jnp.tensordot(a, b, axes=([1, 2], [0, 1])) + 1.0, [(6, 4, 5), (4, 5, 7)]),  # two contracting axes
])
def test_batched_products_go_live_bitwise(f, shapes, monkeypatch):
    made = run_both(f, *[arr(*s) for s in shapes], monkeypatch=monkeypatch)
    assert made and all(o.live for o in made)


@pytest.mark.parametrize("shape, strides, new", [
    ((2, 16, 64), (12288, 768, 4), (2, 16, 4, 16)),  # a split's slice: the last axis cut in two
    ((2, 4, 16, 16), (4096, 64, 256, 4), (8, 16, 16)),  # transposed heads merged: a copy
    ((4, 6), (4, 16), (24,)),  # a transpose flattened: a copy
    ((3, 1, 5), (20, 20, 4), (3, 5, 1)),
    ((6, 4), (16, 4), (2, 3, 2, 2)),
    ((1, 1), (4, 4), (1,)),
])
def test_reshape_views_are_numpys(shape, strides, new):
    base = np.zeros(4096, np.float32)
    x = np.lib.stride_tricks.as_strided(base, shape, strides)
    got = ops._reshape_strides(shape, strides, new, 4)
    y = np.reshape(x, new)
    if np.shares_memory(x, y):
        assert got is not None
        assert all(a == b for a, b, d in zip(got, y.strides, new) if d != 1)
    else:
        assert got is None
