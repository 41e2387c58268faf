"""Scaled dot-product attention (jax.nn.dot_product_attention), the reference
("xla") implementation.

Shapes use JAX's letters: B batch, T query length, S key/value length, N
query heads, K key/value heads, H head size, G = N // K query heads per
key/value head. The query is viewed as (B, T, K, G, H) and the per-group
computation is vmapped over G, so grouped-query and multi-query attention
need no copies of the keys and values, and the jaxpr is JAX's.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from pyjax._src import dtypes
from pyjax._src.api import vmap
from pyjax._src.lax import dot as lax_dot
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.numpy.util import aval_of
from pyjax._src.scipy import jnp_pending as jnp

__all__ = ["dot_product_attention"]


def _einsum_pair(spec: str, first, second, preferred_element_type=None):
    """A two-operand einsum without repeated or summed-out-alone indices, staged
    as jnp.einsum stages it.

    jnp.einsum follows opt_einsum's path, which lists a pair's operands in
    reverse, so the second operand is the "lhs" below: the dot_general takes
    (first, second) when that order needs no transpose afterwards, else
    (second, first) followed by a transpose to the output order.
    """
    inputs, result = spec.split("->")
    first_names, second_names = inputs.split(",")
    lhs, rhs, lhs_names, rhs_names = second, first, second_names, first_names
    if preferred_element_type is None:
        preferred_element_type, weak = dtypes.result_type(first, second, return_weak_type_flag=True)
    else:
        weak = False
    contracted = sorted(set(lhs_names) & set(rhs_names) - set(result))
    batch = [n for n in result if n in lhs_names and n in rhs_names]
    lhs_batch = tuple(lhs_names.index(n) for n in batch)
    rhs_batch = tuple(rhs_names.index(n) for n in batch)
    lhs_contract = tuple(lhs_names.index(n) for n in contracted)
    rhs_contract = tuple(rhs_names.index(n) for n in contracted)
    deleted = set(batch) | set(contracted)
    lhs_rest = "".join(n for n in lhs_names if n not in deleted)
    rhs_rest = "".join(n for n in rhs_names if n not in deleted)
    names = "".join(batch) + rhs_rest + lhs_rest
    if names == result:
        out = lax_dot.dot_general(rhs, lhs, ((rhs_contract, lhs_contract), (rhs_batch, lhs_batch)),
                                  None, preferred_element_type)
    else:
        names = "".join(batch) + lhs_rest + rhs_rest
        out = lax_dot.dot_general(lhs, rhs, ((lhs_contract, rhs_contract), (lhs_batch, rhs_batch)),
                                  None, preferred_element_type)
    if names != result:
        out = lax_shapes.transpose(out, tuple(names.index(n) for n in result))
    return lax_ew._convert_element_type(out, np.dtype(preferred_element_type), weak)


def _large_negative(dtype):
    # Softmax runs in float32, so the fill must stay finite there, even for
    # float64 logits (an inf would trip debug_infs).
    limit = min(float(dtypes.finfo(dtype).max), float(np.finfo(np.float32).max))
    # A NumPy scalar rather than jnp.asarray: see _attention_core.
    return np.asarray(-0.7 * limit, dtype=dtype)[()]


def _causal_mask(T: int, S: int):
    return jnp.tril(jnp.ones((T, S), dtype=bool))[None, None, :, :]


def _window_mask(T: int, S: int, window: tuple[int, int]):
    query_pos = jnp.array(range(T))
    key_pos = jnp.array(range(S))
    left, right = window
    left_mask = query_pos[..., None] <= key_pos[..., None, :] + left
    right_mask = query_pos[..., None] >= key_pos[..., None, :] - right
    return jnp.logical_and(right_mask, left_mask)[None, None, :, :]


def _padding_mask_logits(T: int, S: int, q_seqlen, kv_seqlen):
    q_mask = True
    kv_mask = True
    if q_seqlen is not None:
        q_mask = jnp.arange(0, T)[None, :, None] < q_seqlen[:, None, None]
    if kv_seqlen is not None:
        kv_mask = jnp.arange(0, S)[None, None, :] < kv_seqlen[:, None, None]
    return jnp.logical_and(q_mask, kv_mask)[:, None, :, :]


def _padding_mask_encoded(T: int, q_seqlen):
    return (jnp.arange(0, T)[None, :] < q_seqlen[:, None])[:, :, None, None]


def _apply_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, window):
    if mask is None and not is_causal and q_seqlen is None and kv_seqlen is None and window is None:
        return logits
    combined = jnp.ones_like(logits, dtype=bool)
    if mask is not None:
        combined = jnp.logical_and(combined, mask)
    T, S = aval_of(logits).shape[2], aval_of(logits).shape[3]
    if is_causal:
        combined = jnp.logical_and(combined, _causal_mask(T, S))
    if window is not None:
        combined = jnp.logical_and(combined, _window_mask(T, S, window))
    if q_seqlen is not None or kv_seqlen is not None:
        combined = jnp.logical_and(combined, _padding_mask_logits(T, S, q_seqlen, kv_seqlen))
    return jnp.where(combined, logits, _large_negative(aval_of(logits).dtype))


def _attention_core(query, key, value, bias, mask, *, is_causal, scale, q_seqlen, kv_seqlen, window,
                    return_residual):
    from pyjax._src.nn.functions import logsumexp, softmax

    logits_dtype = dtypes.promote_types(aval_of(query).dtype, np.float32)
    logits = _einsum_pair("BTNH,BSNH->BNTS", query, key, preferred_element_type=logits_dtype)
    # JAX writes jnp.array(scale, dtype); a NumPy scalar is the same constant
    # and stays a literal in the jaxpr under this function's vmap, where a
    # pyjax Array constant would become a constvar.
    logits = logits * np.asarray(scale, dtype=aval_of(logits).dtype)[()]
    if bias is not None:
        logits = (logits + bias).astype(aval_of(logits).dtype)
    padded = _apply_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, window)
    # The softmax always runs in float32.
    padded = padded.astype(np.float32)
    probs = softmax(padded, axis=-1).astype(aval_of(key).dtype)
    encoded = _einsum_pair("BNTS,BSNH->BTNH", probs, value)
    if q_seqlen is not None:
        encoded = encoded * _padding_mask_encoded(aval_of(encoded).shape[1], q_seqlen).astype(aval_of(encoded).dtype)
    if return_residual:
        residual = logsumexp(padded, axis=-1).astype(aval_of(key).dtype)
        return encoded, lax_ew.stop_gradient(jnp.transpose(residual, (0, 2, 1)))
    return encoded


def _attention_grouped(query, key, value, bias, mask, *, is_causal, scale, q_seqlen, kv_seqlen, window,
                       return_residual):
    B, T, N, H = aval_of(query).shape
    K = aval_of(key).shape[2]
    G = N // K
    query = jnp.reshape(query, (B, T, K, G, H))

    def grouped(t):
        # A bias or mask with one head is shared by all groups; otherwise its
        # heads are split the way the query's are.
        if t is None:
            return None
        tB, tN, tT, tS = aval_of(t).shape
        if tN == 1:
            return jnp.broadcast_to(t[:, :, None, :, :], (tB, tN, G, tT, tS))
        assert tN == N
        return jnp.reshape(t, (tB, K, G, tT, tS))

    core = partial(_attention_core, is_causal=is_causal, scale=scale, q_seqlen=q_seqlen, kv_seqlen=kv_seqlen,
                   window=window, return_residual=return_residual)
    out = vmap(core, in_axes=(3, None, None, 2, 2), out_axes=3)(query, key, value, grouped(bias), grouped(mask))
    if return_residual:
        encoded, residual = out
        return jnp.reshape(encoded, (B, T, N, H)), jnp.reshape(residual, (B, T, N))
    return jnp.reshape(out, (B, T, N, H))


def _check(t, shape, dtype, name: str) -> None:
    if t is None:
        return
    aval = aval_of(t)
    if aval.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {aval.ndim}")
    if dtype is not None and aval.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {aval.dtype}")
    for i in range(aval.ndim):
        if shape[i] != -1 and aval.shape[i] != shape[i]:
            raise ValueError(f"{name} shape should be {shape}: but got {aval.shape}")


def _as_4d(t):
    t = jnp.asarray(t)
    missing = 4 - aval_of(t).ndim
    return jnp.expand_dims(t, axis=tuple(range(missing))) if missing > 0 else t


def dot_product_attention(query, key, value, bias=None, mask=None, *, scale: float | None = None,
                          is_causal: bool = False, query_seq_lengths=None, key_value_seq_lengths=None,
                          local_window_size: int | tuple[int, int] | None = None, implementation=None,
                          return_residual: bool = False):
    """Scaled dot-product attention: ``softmax(Q K^T * scale + bias) V`` per head.

    Args:
      query: (B, T, N, H) or (T, N, H).
      key: (B, S, K, H) or (S, K, H); N must be a multiple of K (K == N is
        multi-head, K == 1 multi-query, otherwise grouped-query attention).
      value: the same shape as `key`.
      bias: added to the logits; 4-D, broadcastable to (B, N, T, S).
      mask: boolean, True where a logit takes part; 4-D, broadcastable to (B, N, T, S).
      scale: the logit scale (default ``1 / sqrt(H)``).
      is_causal: mask out keys after each query position.
      query_seq_lengths, key_value_seq_lengths: int32 (B,) valid lengths.
      local_window_size: (left, right) window each query attends within (an
        int means a symmetric window).
      implementation: None or ``'xla'`` (the reference implementation).
      return_residual: also return the logsumexp of the logits, (B, T, N).

    Returns:
      An array shaped like `query` (and the residual with `return_residual`).
    """
    output_shape = aval_of(jnp.asarray(query)).shape
    residual_shape = output_shape[:-1]
    query, key, value = _as_4d(query), _as_4d(key), _as_4d(value)
    bias = _as_4d(bias) if bias is not None else None
    mask = _as_4d(mask) if mask is not None else None
    if query_seq_lengths is not None:
        query_seq_lengths = jnp.asarray(query_seq_lengths)
    if key_value_seq_lengths is not None:
        key_value_seq_lengths = jnp.asarray(key_value_seq_lengths)
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)

    B, S, K, H = aval_of(key).shape
    _check(value, [B, S, K, H], aval_of(key).dtype, "value")
    _check(query, [B, -1, -1, H], aval_of(key).dtype, "query")
    _check(mask, [-1] * 4, np.dtype(bool), "mask")
    _check(bias, [-1] * 4, None, "bias")
    _check(query_seq_lengths, [B], np.dtype("int32"), "query_seq_lengths")
    _check(key_value_seq_lengths, [B], np.dtype("int32"), "key_value_seq_lengths")
    if aval_of(query).shape[-2] % K != 0:
        raise ValueError(f"The number of query heads must be a multiple of key/value heads, but got "
                         f"{aval_of(query).shape[-2]} vs {K}")
    scale = (1.0 / np.sqrt(H)) if scale is None else scale
    if implementation == "cudnn":
        raise NotImplementedError("dot_product_attention(implementation='cudnn') needs cuDNN, which pyjax does not use")
    if implementation not in (None, "xla"):
        raise ValueError(f"Unsupported implementation option: {implementation}")
    out = _attention_grouped(query, key, value, bias, mask, is_causal=is_causal, scale=scale,
                             q_seqlen=query_seq_lengths, kv_seqlen=key_value_seq_lengths, window=local_window_size,
                             return_residual=return_residual)
    if return_residual:
        encoded, residual = out
        return jnp.reshape(encoded, output_shape), jnp.reshape(residual, residual_shape)
    return jnp.reshape(out, output_shape)
