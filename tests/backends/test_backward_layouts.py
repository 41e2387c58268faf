"""A transformer's backward pass on the NumPy backend: batched products read
strided head views in place (impls/standard.py `_matrix_views`), and the
cotangent sums (`add_any`) join the fused row loops around them
(native/rows.py). Results are bitwise those of the copies / the Python code."""

from __future__ import annotations

import re

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src import ad_util
from pyjax._src.backends.numpy import native
from pyjax._src.backends.numpy.impls import standard
from pyjax._src.backends.numpy.native import settings as native_settings
from pyjax._src.backends.numpy.parallel import split as split_lib

rng = np.random.default_rng(11)


def heads(B=4, T=128, H=4, hd=32):
    # q, k, v as a transformer makes them: column slices of one projection,
    # split into heads: (B, H, T, hd) views whose batch axes do not merge.
    qkv = rng.standard_normal((B, T, 3 * H * hd)).astype(np.float32)
    q, k, v = np.split(qkv, 3, axis=-1)
    return [t.reshape(B, T, H, hd).transpose(0, 2, 1, 3) for t in (q, k, v)]


SCORES = (((3,), (3,)), ((0, 1), (0, 1)))   # q k^T
MIX = (((3,), (2,)), ((0, 1), (0, 1)))      # p v


def call(lhs, rhs, dims):
    return standard._dot_general(lhs, rhs, dimension_numbers=dims, precision=None,
                                 preferred_element_type=None, out_sharding=None)


def operands_seen(monkeypatch):
    seen = []
    real = split_lib.matmul

    def spy(a, b):
        seen.append((a, b))
        return real(a, b)

    monkeypatch.setattr(split_lib, "matmul", spy)
    return seen


@pytest.mark.parametrize("workers", [1, 2])
def test_head_products_read_strided_heads_in_place(monkeypatch, workers):
    monkeypatch.setitem(split_lib._state, "workers", workers)
    q, k, v = heads()
    p = rng.standard_normal((4, 4, 128, 128)).astype(np.float32)
    seen = operands_seen(monkeypatch)
    scores, mixed = call(q, k, SCORES), call(p, v, MIX)
    (a1, _), (_, b2) = seen
    # q and v are read where they are (no copy); k^T of a small product is
    # copied, as before (transposed small products sum in another order).
    assert np.shares_memory(a1, q) and np.shares_memory(b2, v)
    expected_scores = np.matmul(np.ascontiguousarray(q).reshape(16, 128, 32),
                                np.ascontiguousarray(k.transpose(0, 1, 3, 2)).reshape(16, 32, 128))
    expected_mixed = np.matmul(p.reshape(16, 128, 128), np.ascontiguousarray(v).reshape(16, 128, 32))
    assert scores.tobytes() == expected_scores.reshape(4, 4, 128, 128).tobytes()
    assert mixed.tobytes() == expected_mixed.reshape(4, 4, 128, 32).tobytes()


def test_large_transposed_heads_are_read_in_place_and_small_ones_copied(monkeypatch):
    q, k, _ = heads(B=2, T=256, H=2, hd=64)  # 256 x 256 x 64 = 4M multiply-adds: past the small kernels
    seen = operands_seen(monkeypatch)
    out = call(q, k, SCORES)
    ((a, b),) = seen
    assert np.shares_memory(a, q) and np.shares_memory(b, k)
    expected = np.matmul(np.ascontiguousarray(q), np.ascontiguousarray(k.transpose(0, 1, 3, 2)))
    assert out.tobytes() == expected.tobytes()


def test_a_head_times_its_own_transpose_keeps_the_copies(monkeypatch):
    # One address on both sides: NumPy would take syrk, which sums in another order.
    q, _, _ = heads(B=2, T=256, H=2, hd=64)
    seen = operands_seen(monkeypatch)
    out = call(q, q, SCORES)
    ((a, b),) = seen
    assert not np.shares_memory(a, q) and not np.shares_memory(b, q)
    expected = np.matmul(np.ascontiguousarray(q).reshape(4, 256, 64),
                         np.ascontiguousarray(q.transpose(0, 1, 3, 2)).reshape(4, 64, 256))
    assert out.tobytes() == expected.reshape(2, 2, 256, 256).tobytes()


def test_jitted_attention_gradient_is_unchanged_bitwise():
    q, k, v = (jnp.asarray(np.ascontiguousarray(t)) for t in heads(B=2, T=64, H=2, hd=16))

    def loss(q, k, v):
        s = jnp.einsum("bhqd,bhkd->bhqk", q, k)
        return jnp.sum(jnp.einsum("bhqk,bhkd->bhqd", pyjax.nn.softmax(s, axis=-1), v) ** 2)

    grads = pyjax.jit(pyjax.grad(loss, argnums=(0, 1, 2)))(q, k, v)
    with pyjax.disable_jit():
        eager = pyjax.grad(loss, argnums=(0, 1, 2))(q, k, v)
    for g, e in zip(grads, eager, strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=2e-5, atol=1e-5)


def test_add_any_is_elementwise():
    assert ad_util.add_any_p.elementwise


needs_native = pytest.mark.skipif(native.compiler() is None or not native_settings.ENABLED,
                                  reason="native code needs a C compiler")


def gelu_mlp_grad(x, w):
    # GELU's derivative sums two cotangents of its input (add_any) between
    # the multiplies around it.
    return pyjax.grad(lambda x, w: jnp.sum(pyjax.nn.gelu(x @ w) ** 2), argnums=0)(x, w)


def row_equations(text):
    return sorted(int(n) for n in re.findall(r"# (\d+) row-wise equations", text))


@needs_native
def test_cotangent_sums_join_the_row_loops(monkeypatch):
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    x, w = (jnp.asarray(rng.standard_normal(s).astype(np.float32)) for s in ((256, 64), (64, 512)))
    with_sums = row_equations(pyjax.jit(gelu_mlp_grad).lower(x, w).as_text("python"))
    with monkeypatch.context() as m:
        m.setattr(ad_util.add_any_p, "elementwise", False)
        without = row_equations(pyjax.jit(lambda x, w: gelu_mlp_grad(x, w)).lower(x, w).as_text("python"))
    assert sum(with_sums) > sum(without)  # (the derivative's run no longer stops at its cotangent sum)
    jf = pyjax.jit(lambda x, w: gelu_mlp_grad(x, w))
    outs = [np.asarray(jf(x, w)) for _ in range(3)]
    with monkeypatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        reference = np.asarray(pyjax.jit(lambda x, w: gelu_mlp_grad(x, w))(x, w))
    for out in outs:
        assert out.tobytes() == reference.tobytes()


def test_lax_dot_general_on_head_views_matches_einsum():
    q, k, _ = heads(B=2, T=32, H=2, hd=8)
    out = np.asarray(pyjax.jit(lambda a, b: lax.dot_general(a, b, SCORES))(jnp.asarray(q), jnp.asarray(k)))
    np.testing.assert_allclose(out, np.einsum("bhqd,bhkd->bhqk", q, k), rtol=1e-5, atol=1e-5)
