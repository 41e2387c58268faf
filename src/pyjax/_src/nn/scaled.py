"""Block-scaled matrix products (JAX's jax.nn.scaled_matmul, scaled_dot_general,
get_scaled_dot_general_config).

Microscaling formats store a low-precision matrix with one scale per block
of `block_size` consecutive elements along the contracting dimension:
mxfp8 (float8_e4m3fn data, power-of-two float8_e8m0fnu scales, blocks of
32) and nvfp4 (float4_e2m1fn data, float8_e4m3fn scales, blocks of 16,
times a float32 global scale). JAX hands these to cuDNN on Blackwell GPUs
and otherwise computes what pyjax computes here: the dequantized operands'
product in float32 (or the preferred type).

`scaled_dot_general` quantizes its high-precision operands first, as JAX
does (the same scale rounding, so the same quantized values), and has JAX's
custom VJP: gradients are products of the quantized cotangent with the
quantized other operand (configs[2] for the cotangent), with nvfp4's
straight-through estimator zeroing gradients of clipped inputs.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy as np

from pyjax._src import dtypes
from pyjax._src.custom_vjp import custom_vjp
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax.dot import dot_general
from pyjax._src.scipy import jnp_pending as jnp

__all__ = ["BlockScaleConfig", "get_scaled_dot_general_config", "scaled_dot_general", "scaled_matmul"]


@dataclasses.dataclass(slots=True)
class BlockScaleConfig:
    """How one operand is block-quantized: the format's name, block size,
    data and scale dtypes, nvfp4's global scale, and whether only inference
    (no gradients) is intended."""

    mode: str
    block_size: int
    data_type: Any
    scale_type: Any
    global_scale: Any
    infer_only: bool


def get_scaled_dot_general_config(mode: str, global_scale: Any = None) -> BlockScaleConfig:
    """Get quantization configs for scaled_dot_general.

    Args:
      mode: ``'mxfp8'`` or ``'nvfp4'``.
      global_scale: nvfp4's float32 global scale, shape (1,) (default 1).
    """
    if mode == "nvfp4":
        one = jnp.ones((1,), dtype=np.float32)
        return BlockScaleConfig(mode="nvfp4", block_size=16, data_type=dtypes.float4_e2m1fn,
                                scale_type=dtypes.float8_e4m3fn,
                                global_scale=one if global_scale is None else global_scale, infer_only=False)
    if mode == "mxfp8":
        return BlockScaleConfig(mode="mxfp8", block_size=32, data_type=dtypes.float8_e4m3fn,
                                scale_type=dtypes.float8_e8m0fnu, global_scale=None, infer_only=False)
    raise ValueError(f"Unsupported mode: {mode}")


# ---------------------------------------------------------------------------
# The product of dequantized operands (JAX's CPU lowering of its primitive).


def _dequantized_matmul(a, b, a_scales, b_scales, preferred_element_type):
    # (B, M, K) x (B, N, K) with scales (B, M, K_a), (B, N, K_b) -> (B, M, N),
    # computed in the preferred type (float8 has no arithmetic of its own).
    t = preferred_element_type
    a, b, a_scales, b_scales = (lax_ew.convert_element_type(v, t) for v in (a, b, a_scales, b_scales))
    B, M, K = a.shape
    _, N, _ = b.shape
    K_a, K_b = a_scales.shape[2], b_scales.shape[2]
    a_scaled = jnp.reshape(jnp.reshape(a, (B, M, K_a, K // K_a)) * jnp.reshape(a_scales, (B, M, K_a, 1)), (B, M, K))
    b_scaled = jnp.reshape(jnp.reshape(b, (B, N, K_b, K // K_b)) * jnp.reshape(b_scales, (B, N, K_b, 1)), (B, N, K))
    return dot_general(a_scaled, b_scaled, (((2,), (2,)), ((0,), (0,))), preferred_element_type=t)


_matmul_jit = jit(_dequantized_matmul, static_argnames=("preferred_element_type",))


def _scaled_matmul(a, b, a_scales, b_scales, preferred_element_type=np.dtype("float32")):
    preferred_element_type = dtypes.check_and_canonicalize_user_dtype(preferred_element_type,
                                                                      "scaled_matmul_wrapper")
    return _matmul_jit(a, b, a_scales, b_scales, preferred_element_type=preferred_element_type)


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type: Any = np.float32):
    r"""Scaled matrix multiplication function.

    Performs block-scaled matmul of `a` and `b` using `a_scales` and
    `b_scales`. The last dim is the contracting dim, and block size is
    inferred. Mathematically::

      a_block_size = a.shape[-1] // a_scales.shape[-1]
      b_block_size = b.shape[-1] // b_scales.shape[-1]
      a_scaled = a * jnp.repeat(a_scales, a_block_size, axis=-1)
      b_scaled = b * jnp.repeat(b_scales, b_block_size, axis=-1)
      jnp.einsum('BMK,BNK->BMN', a_scaled, b_scaled)

    Args:
      lhs: Operand a, shape (B, M, K).
      rhs: Operand b, shape (B, N, K).
      lhs_scales: Shape (B, M, K_a), where `K % K_a == 0`.
      rhs_scales: Shape (B, N, K_b), where `K % K_b == 0`.
      preferred_element_type: Defaults to `jnp.float32`.

    Returns:
      Array of shape (B, M, N).
    """
    a, b, a_scales, b_scales = lhs, rhs, lhs_scales, rhs_scales
    if not all(jnp.ndim(x) == 3 for x in (a, b, a_scales, b_scales)):
        raise ValueError("scaled_matmul requires all inputs to be 3-dimensional arrays")
    B_a, M_a, K_a = a.shape
    B_b, N_b, K_b = b.shape
    if K_a != K_b or B_a != B_b:
        raise ValueError("scaled_matmul requires inputs a and b to have matching batch (B) and contract (K) "
                         f"dimensions, but got shapes {a.shape} and {b.shape}")
    B_as, M_as, K_as = a_scales.shape
    B_bs, N_bs, K_bs = b_scales.shape
    if K_as != K_bs or B_as != B_bs:
        raise ValueError("scaled_matmul requires scales to have matching batch (B) and contract (K) dimensions, "
                         f"but got shapes {a_scales.shape} and {b_scales.shape}")
    if M_as != M_a or N_bs != N_b:
        raise ValueError("scaled_matmul requires scales to match non-contract dimensions of inputs, but got "
                         f"shapes a: {a.shape}, b: {b.shape}, a_scales: {a_scales.shape}, "
                         f"b_scales: {b_scales.shape}")
    preferred_element_type = dtypes.check_and_canonicalize_user_dtype(preferred_element_type, "scaled_matmul")
    return _scaled_matmul(a, b, a_scales, b_scales, preferred_element_type=preferred_element_type)


# ---------------------------------------------------------------------------
# Quantization.


def _bitcast(x, dtype):
    return lax_ew.bitcast_convert_type(x, dtype)


def _to_e8m0_rounding_up(x):
    # The power-of-two scale >= x, as an e8m0 byte: the float32 exponent,
    # plus one unless x is already a power of two (or the top exponent, or a
    # denormal at most half the smallest normal).
    bits = _bitcast(lax_ew.convert_element_type(x, np.float32), np.uint32)
    exp = bits >> 23
    mant = bits & 0x7FFFFF
    round_up = (mant > 0) & (exp != 0xFE) & ~((exp == 0) & (mant <= 0x400000))
    exp = jnp.where(round_up, exp + 1, exp)
    return lax_ew.convert_element_type(exp, np.uint8)


def _e8m0_to(x, dtype):
    value = _bitcast(lax_ew.convert_element_type(x, np.uint32) << 23, np.float32)
    tiny = 2 ** -15 if dtype == np.float16 else 2 ** -127
    value = jnp.where(value == 0, jnp.array(tiny, np.float32), value)
    return lax_ew.convert_element_type(value, dtype)


def quantize(x, config: BlockScaleConfig):
    """Block-quantizes x (B, M, K) along K: returns (x_q, scales) as JAX does."""
    from pyjax._src.lax.identity import optimization_barrier

    x_shape = x.shape
    block_size = config.block_size
    assert x_shape[-1] >= block_size and x_shape[-1] % block_size == 0
    x = jnp.reshape(x, x_shape[:-1] + (x_shape[-1] // block_size, block_size))
    MAX = np.asarray(dtypes.finfo(config.data_type).max).astype(x.dtype)

    def block_scales(values):
        return jnp.max(jnp.abs(values), axis=-1, keepdims=True) / MAX

    if config.mode == "mxfp8":
        scales_q = _to_e8m0_rounding_up(block_scales(x))
        scaled_x = x / _e8m0_to(scales_q, x.dtype)
    elif config.mode == "nvfp4":
        SCALE_MAX = np.asarray(dtypes.finfo(config.scale_type).max).astype(x.dtype)
        x = x / config.global_scale
        scales_q = jnp.clip(block_scales(x), 0, SCALE_MAX)
        scales_q = optimization_barrier(lax_ew.convert_element_type(scales_q, config.scale_type))
        scaled_x = x / lax_ew.convert_element_type(scales_q, np.float32)
    else:
        raise ValueError(f"Unrecognized mode: {config.mode}.")
    x_q = lax_ew.convert_element_type(jnp.clip(scaled_x, -MAX, MAX), config.data_type)
    x_q = jnp.reshape(x_q, x_shape)
    scales_q = jnp.reshape(scales_q, scales_q.shape[:-1])
    if scales_q.dtype != np.dtype(config.scale_type):  # (mxfp8: the e8m0 byte is the scale's bits)
        scales_q = _bitcast(scales_q, config.scale_type)
    return x_q, scales_q


# ---------------------------------------------------------------------------
# scaled_dot_general: quantize, multiply, with JAX's VJP.


def _normalize(x, contracting, batch):
    # x's axes reordered to (batch, kept, contracting), each group flattened: (B, M, K).
    order = range(x.ndim)
    batch_axes = [d for d in order if d in batch]
    kept = [d for d in order if d not in contracting and d not in batch]
    contract = [d for d in order if d in contracting]
    sizes = [int(np.prod([x.shape[d] for d in group], dtype=int)) for group in (batch_axes, kept, contract)]
    return jnp.reshape(lax_shapes.transpose(x, tuple(batch_axes + kept + contract)), tuple(sizes))


def _dot_output_shape(lhs_shape, rhs_shape, lhs_dn, rhs_dn):
    (lc, lb), (rc, rb) = lhs_dn, rhs_dn
    return (tuple(d for i, d in enumerate(lhs_shape) if i in lb)
            + tuple(d for i, d in enumerate(lhs_shape) if i not in lc and i not in lb)
            + tuple(d for i, d in enumerate(rhs_shape) if i not in rc and i not in rb))


def _scaled_dot_impl(lhs, rhs, dimension_numbers, preferred_element_type, configs):
    if preferred_element_type is None:
        preferred_element_type = dtypes.result_type(lhs, rhs)
    else:
        preferred_element_type = dtypes.check_and_canonicalize_user_dtype(preferred_element_type,
                                                                          "scaled_dot_impl")
    (lc, rc), (lb, rb) = dimension_numbers
    lhs_q, lhs_scales = quantize(_normalize(lhs, lc, lb), configs[0])
    rhs_q, rhs_scales = quantize(_normalize(rhs, rc, rb), configs[1])
    out_dtype = np.dtype(np.float32) if configs[0].mode == "nvfp4" else preferred_element_type
    out = _scaled_matmul(lhs_q, rhs_q, lhs_scales, rhs_scales, preferred_element_type=out_dtype)
    if configs[0].mode == "nvfp4":
        out = out * (configs[0].global_scale * configs[1].global_scale)
        out = lax_ew.convert_element_type(out, preferred_element_type)
    return jnp.reshape(out, _dot_output_shape(lhs.shape, rhs.shape, (lc, lb), (rc, rb)))


def _ranges_like(*groups):
    start = 0
    for g in groups:
        yield list(range(start, start + len(g)))
        start += len(g)


def _remaining(n, *excluded):
    return [i for i in range(n) if all(i not in e for e in excluded)]


def _transpose_lhs(g, x, y, *, dimension_numbers, preferred_element_type, configs, swap_ans=False):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    x_kept = _remaining(x.ndim, x_contract, x_batch)
    y_kept = _remaining(y.ndim, y_contract, y_batch)
    if swap_ans:
        ans_batch, ans_y, _ = _ranges_like(x_batch, y_kept, x_kept)
    else:
        ans_batch, _, ans_y = _ranges_like(x_batch, x_kept, y_kept)
    x_contract_by_y = list(np.take(x_contract, np.argsort(y_contract)))
    out_axes = np.argsort(list(x_batch) + x_kept + x_contract_by_y)
    y_3d = _normalize(y, y_kept, y_batch)
    g_3d = _normalize(g, ans_y, ans_batch)
    if configs[0].mode != "nvfp4":
        g_q, g_scales = quantize(g_3d, configs[0])
        y_q, y_scales = quantize(y_3d, configs[1])
        out = _scaled_matmul(g_q, y_q, g_scales, y_scales, preferred_element_type)
    else:
        out = jnp.matmul(g_3d, lax_shapes.transpose(y_3d, (0, 2, 1)), preferred_element_type=preferred_element_type)
    out = jnp.reshape(out, _dot_output_shape(g.shape, y.shape, (ans_y, ans_batch), (y_kept, y_batch)))
    return lax_shapes.transpose(out, tuple(int(a) for a in out_axes))


def _transpose_rhs(g, x, y, *, dimension_numbers, **kw):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    return _transpose_lhs(g, y, x, dimension_numbers=((y_contract, x_contract), (y_batch, x_batch)), swap_ans=True,
                          **kw)


@functools.partial(custom_vjp, nondiff_argnums=(2, 3, 4))
def _scaled_dot_general_fn(lhs, rhs, dimension_numbers, preferred_element_type, configs):
    return _scaled_dot_impl(lhs, rhs, dimension_numbers, preferred_element_type, configs)


def _scaled_dot_fwd(lhs, rhs, dimension_numbers, preferred_element_type, configs):
    return _scaled_dot_impl(lhs, rhs, dimension_numbers, preferred_element_type, configs), (lhs, rhs)


def _scaled_dot_bwd(dimension_numbers, preferred_element_type, configs, res, g):
    lhs, rhs = res
    kw = dict(dimension_numbers=dimension_numbers, preferred_element_type=preferred_element_type)
    grad_lhs = _transpose_lhs(g, lhs, rhs, configs=[configs[2], configs[1]], **kw)
    grad_rhs = _transpose_rhs(g, lhs, rhs, configs=[configs[2], configs[0]], **kw)
    if configs[2].mode == "nvfp4":
        # Straight-through estimator: inputs clipped when quantized get no gradient.
        MAX = np.asarray(dtypes.finfo(configs[0].data_type).max).astype(lhs.dtype)
        SCALE_MAX = np.asarray(dtypes.finfo(configs[0].scale_type).max).astype(lhs.dtype)
        grad_lhs = jnp.where(jnp.abs(lhs) <= configs[0].global_scale * MAX * SCALE_MAX, grad_lhs, 0)
        grad_rhs = jnp.where(jnp.abs(rhs) <= configs[1].global_scale * MAX * SCALE_MAX, grad_rhs, 0)
    return grad_lhs, grad_rhs


_scaled_dot_general_fn.defvjp(_scaled_dot_fwd, _scaled_dot_bwd)


def _as_tuples(dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    return (tuple(lc), tuple(rc)), (tuple(lb), tuple(rb))


def scaled_dot_general(lhs, rhs, dimension_numbers, preferred_element_type: Any = np.float32,
                       configs: list[BlockScaleConfig] | None = None, implementation: str | None = None):
    r"""Scaled dot general operation.

    A generalized dot product with block-scaled quantization of ``lhs`` and
    ``rhs``::

      a, a_scales = quantize(lhs, configs[0])
      b, b_scales = quantize(rhs, configs[1])
      c = jax.nn.scaled_matmul(a, b, a_scales, b_scales)

    Args:
      lhs, rhs: input arrays.
      dimension_numbers: ``((lhs_contracting_dims, rhs_contracting_dims),
        (lhs_batch_dims, rhs_batch_dims))``.
      preferred_element_type: output dtype: float32 (default), bfloat16 or float16.
      configs: three BlockScaleConfigs (lhs, rhs, gradients), from
        :func:`get_scaled_dot_general_config`; None falls back to
        ``lax.dot_general``.
      implementation: deprecated and ignored.

    Returns:
      The product, batch dimensions first, then lhs's and rhs's free dimensions.
    """
    import warnings

    if implementation is not None:
        warnings.warn("Backend selector, now ignored. The system chooses the backend automatically.",
                      DeprecationWarning)
    if configs is None:
        return dot_general(lhs, rhs, dimension_numbers, preferred_element_type=preferred_element_type)
    if np.dtype(preferred_element_type) not in (np.dtype("float32"), np.dtype(dtypes.bfloat16),
                                                np.dtype("float16")):
        raise TypeError("Only support preferred_element_type in (f32, bf16, f16), but got "
                        "{preferred_element_type}")
    dimension_numbers = _as_tuples(dimension_numbers)
    (lc, rc), (lb, rb) = dimension_numbers
    lhs_b, rhs_b = lhs, rhs
    # Operands without batch dimensions get a trailing size-1 one (squeezed after).
    if lb == ():
        lhs_b, lb = jnp.expand_dims(lhs, lhs.ndim), (lhs.ndim,)
    if rb == ():
        rhs_b, rb = jnp.expand_dims(rhs, rhs.ndim), (rhs.ndim,)
    batched = ((lc, rc), (lb, rb))
    out = _scaled_dot_general_fn(lhs_b, rhs_b, batched, np.dtype(preferred_element_type), configs)
    return jnp.squeeze(out, axis=0) if batched != dimension_numbers else out
