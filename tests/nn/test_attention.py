"""jax.nn.dot_product_attention against a float64 NumPy reference: multi-head,
grouped- and multi-query, masks, bias, causal, padding lengths, local
windows, the residual, unbatched inputs, gradients and JAX's shape errors."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_close

import pyjax
import pyjax.numpy as jnp
from pyjax import nn
from pyjax.test_util import check_grads

RNG = np.random.default_rng(7)


def reference(q, k, v, bias=None, mask=None, scale=None, is_causal=False, q_len=None, kv_len=None, window=None):
    """softmax(q k^T * scale + bias, masked) v per head, in float64, with the
    key/value heads repeated for grouped queries."""
    q, k, v = (np.asarray(a, np.float64) for a in (q, k, v))
    _, T, N, H = q.shape
    S, K = k.shape[1], k.shape[2]
    k = np.repeat(k, N // K, axis=2)
    v = np.repeat(v, N // K, axis=2)
    scale = 1 / np.sqrt(H) if scale is None else scale
    logits = np.einsum("btnh,bsnh->bnts", q, k) * scale
    if bias is not None:
        logits = logits + bias
    keep = np.ones(logits.shape, bool)
    if mask is not None:
        keep &= np.broadcast_to(mask, logits.shape)
    t, s = np.arange(T)[:, None], np.arange(S)[None, :]
    if is_causal:
        keep &= t >= s
    if window is not None:
        keep &= (t <= s + window[0]) & (t >= s - window[1])
    if q_len is not None:
        keep &= (np.arange(T)[None, None, :, None] < np.asarray(q_len)[:, None, None, None])
    if kv_len is not None:
        keep &= (np.arange(S)[None, None, None, :] < np.asarray(kv_len)[:, None, None, None])
    logits = np.where(keep, logits, -0.7 * np.finfo(np.float32).max)
    probs = np.exp(logits - logits.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    out = np.einsum("bnts,bsnh->btnh", probs, v)
    if q_len is not None:
        out *= (np.arange(T)[None, :] < np.asarray(q_len)[:, None])[:, :, None, None]
    return out


def arrays(*shapes):
    return [RNG.normal(size=s).astype(np.float32) for s in shapes]


@pytest.mark.parametrize("heads", [(4, 4), (4, 2), (4, 1)], ids=["mha", "gqa", "mqa"])
def test_heads(heads):
    N, K = heads
    q, k, v = arrays((2, 5, N, 8), (2, 6, K, 8), (2, 6, K, 8))
    out = nn.dot_product_attention(jnp.asarray(q), jnp.asarray(k), jnp.asarray(v))
    check_close(out, reference(q, k, v).astype(np.float32), rtol=2e-5, atol=2e-6)


def test_bias_mask_scale():
    q, k, v, bias = arrays((2, 4, 2, 8), (2, 5, 2, 8), (2, 5, 2, 8), (1, 2, 4, 5))
    mask = RNG.random((2, 1, 4, 5)) > 0.3
    mask[..., 0] = True  # every query sees at least one key
    out = nn.dot_product_attention(jnp.asarray(q), jnp.asarray(k), jnp.asarray(v), jnp.asarray(bias),
                                   jnp.asarray(mask), scale=0.3)
    check_close(out, reference(q, k, v, bias, mask, 0.3).astype(np.float32), rtol=2e-5, atol=2e-6)


def test_bias_and_mask_with_one_head_under_groups():
    q, k, v, bias = arrays((1, 3, 4, 4), (1, 3, 2, 4), (1, 3, 2, 4), (1, 1, 3, 3))
    mask = np.tril(np.ones((3, 3), bool))[None, None]
    out = nn.dot_product_attention(jnp.asarray(q), jnp.asarray(k), jnp.asarray(v), bias=jnp.asarray(bias),
                                   mask=jnp.asarray(mask))
    check_close(out, reference(q, k, v, bias, mask).astype(np.float32), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("T,S", [(4, 4), (3, 5)])
def test_causal(T, S):
    q, k, v = arrays((2, T, 2, 4), (2, S, 2, 4), (2, S, 2, 4))
    out = nn.dot_product_attention(jnp.asarray(q), jnp.asarray(k), jnp.asarray(v), is_causal=True)
    check_close(out, reference(q, k, v, is_causal=True).astype(np.float32), rtol=2e-5, atol=2e-6)


def test_sequence_lengths_and_window():
    q, k, v = arrays((2, 6, 2, 4), (2, 6, 2, 4), (2, 6, 2, 4))
    q_len, kv_len = np.array([4, 6], np.int32), np.array([5, 3], np.int32)
    out = nn.dot_product_attention(jnp.asarray(q), jnp.asarray(k), jnp.asarray(v),
                                   query_seq_lengths=jnp.asarray(q_len), key_value_seq_lengths=jnp.asarray(kv_len))
    check_close(out, reference(q, k, v, q_len=q_len, kv_len=kv_len).astype(np.float32), rtol=2e-5, atol=2e-6)
    out = nn.dot_product_attention(jnp.asarray(q), jnp.asarray(k), jnp.asarray(v), local_window_size=(1, 2))
    check_close(out, reference(q, k, v, window=(1, 2)).astype(np.float32), rtol=2e-5, atol=2e-6)
    out = nn.dot_product_attention(jnp.asarray(q), jnp.asarray(k), jnp.asarray(v), local_window_size=1)
    check_close(out, reference(q, k, v, window=(1, 1)).astype(np.float32), rtol=2e-5, atol=2e-6)


def test_unbatched_inputs():
    q, k, v = arrays((5, 2, 4), (6, 2, 4), (6, 2, 4))
    out = nn.dot_product_attention(jnp.asarray(q), jnp.asarray(k), jnp.asarray(v))
    check_close(out, reference(q[None], k[None], v[None])[0].astype(np.float32), rtol=2e-5, atol=2e-6)


def test_return_residual():
    q, k, v = arrays((2, 3, 2, 4), (2, 5, 2, 4), (2, 5, 2, 4))
    out, residual = nn.dot_product_attention(jnp.asarray(q), jnp.asarray(k), jnp.asarray(v), return_residual=True)
    logits = np.einsum("btnh,bsnh->btns", q.astype(np.float64), k) / 2
    expected = np.log(np.exp(logits).sum(-1))
    check_close(out, reference(q, k, v).astype(np.float32), rtol=2e-5, atol=2e-6)
    check_close(residual, expected.astype(np.float32), rtol=2e-5, atol=2e-6)


def test_float16_inputs_compute_softmax_in_float32():
    q, k, v = (a.astype(np.float16) for a in arrays((1, 3, 2, 4), (1, 3, 2, 4), (1, 3, 2, 4)))
    out = nn.dot_product_attention(jnp.asarray(q), jnp.asarray(k), jnp.asarray(v))
    check_close(out, reference(q, k, v).astype(np.float16), rtol=5e-3, atol=5e-3)


def test_jit_and_gradients():
    q, k, v = (a.astype(np.float64) for a in arrays((1, 3, 2, 4), (1, 4, 1, 4), (1, 4, 1, 4)))
    f = lambda q, k, v: nn.dot_product_attention(q, k, v, is_causal=True)
    as_f32 = [jnp.asarray(a.astype(np.float32)) for a in (q, k, v)]
    check_close(pyjax.jit(f)(*as_f32), reference(q, k, v, is_causal=True).astype(np.float32), rtol=2e-5, atol=2e-6)
    # The softmax runs in float32 even for float64 inputs: a wide finite-
    # difference step keeps the float32 rounding out of the comparison.
    with pyjax.enable_x64(True):
        check_grads(f, tuple(jnp.asarray(a) for a in (q, k, v)), order=1, atol=2e-3, rtol=2e-3, eps=1e-2)


@pytest.mark.parametrize("kwargs,message", [
    ({"v": (1, 3, 2, 5)}, r"value shape should be \[1, 3, 2, 4\]: but got \(1, 3, 2, 5\)"),
    ({"q": (1, 3, 3, 4)}, "The number of query heads must be a multiple of key/value heads, but got 3 vs 2"),
    ({"q": (1, 3, 2, 5)}, r"query shape should be \[1, -1, -1, 4\]: but got \(1, 3, 2, 5\)"),
    ({"mask": np.ones((1, 1, 3, 3), np.int32)}, "mask dtype should be bool, but got int32"),
    ({"bias": np.ones((1, 1, 3, 3, 1), np.float32)}, "bias ndim should be 4, but got 5"),
    ({"implementation": "triton"}, "Unsupported implementation option: triton"),
])
def test_errors(kwargs, message):
    q = jnp.ones(kwargs.pop("q", (1, 3, 2, 4)))
    v = jnp.ones(kwargs.pop("v", (1, 3, 2, 4)))
    k = jnp.ones((1, 3, 2, 4))
    extra = {name: jnp.asarray(value) if isinstance(value, np.ndarray) else value for name, value in kwargs.items()}
    with pytest.raises(ValueError, match=message):
        nn.dot_product_attention(q, k, v, **extra)
