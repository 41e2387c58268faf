"""Programs of the issue-23 benchmark suite (benchmarks/suite) that IREE 3.13
failed on, at the smallest sizes that still failed: each must compile, run and
match the NumPy backend (docs/iree.md, "Benchmark workloads").

Needs the `[iree]` extra; without it the tests are skipped and say so.
"""

from __future__ import annotations

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax._src.backends import iree as iree_backend

pytestmark = pytest.mark.skipif(not iree_backend.available(),
                                reason="IREE is not installed (pip install -e '.[iree]')")


def _layer_norm(x, g, b):
    m = jnp.mean(x, axis=-1, keepdims=True)
    v = jnp.mean((x - m) ** 2, axis=-1, keepdims=True)
    return g * (x - m) / jnp.sqrt(v + 1e-5) + b


def _block(p, x, heads):
    g1, b1, wqkv, wo, g2, b2, w1, c1, w2, c2 = p
    B, T, D = x.shape
    q, k, v = jnp.split(_layer_norm(x, g1, b1) @ wqkv, 3, axis=-1)
    q, k, v = (t.reshape(B, T, heads, D // heads).transpose(0, 2, 1, 3) for t in (q, k, v))
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(jnp.float32(D // heads))
    a = pyjax.nn.softmax(jnp.where(jnp.tril(jnp.ones((T, T), dtype=bool)), s, -1e9), axis=-1)
    o = jnp.einsum("bhqk,bhkd->bhqd", a, v).transpose(0, 2, 1, 3).reshape(B, T, D)
    x = x + o @ wo
    return x + pyjax.nn.gelu(_layer_norm(x, g2, b2) @ w1 + c1) @ w2 + c2


def test_transformer_block_gradient_compiles_and_matches():
    # (IREE 3.13's default data tiling failed on the dispatch of `gelu(h @ w1 + c1)`, whose
    # results are unpacked and packed again for the backward products: "One or more operations
    # with large vector sizes (32768 bytes) were found"; from batch 1, sequence 128, width 128)
    r = np.random.RandomState(0)
    d, f = 128, 512

    def w(*shape):
        return (r.randn(*shape) / np.sqrt(shape[0])).astype(np.float32)

    params = (np.ones(d, np.float32), np.zeros(d, np.float32), w(d, 3 * d), w(d, d), np.ones(d, np.float32),
              np.zeros(d, np.float32), w(d, f), np.zeros(f, np.float32), w(f, d), np.zeros(d, np.float32))
    x = r.randn(1, 128, d).astype(np.float32)

    def loss_grad(p, x):
        return pyjax.value_and_grad(lambda p, x: jnp.mean(_block(p, x, 4) ** 2))(p, x)

    got = pyjax.tree_util.tree_leaves(pyjax.jit(loss_grad, backend="iree")(params, x))
    want = pyjax.tree_util.tree_leaves(pyjax.jit(loss_grad)(params, x))
    for g, v in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(v), rtol=2e-4, atol=2e-6)
