"""lax.scaled_dot: `(lhs * lhs_scale) @ (rhs * rhs_scale)` for block-scaled
(microscaling) operands.

JAX binds a `scaled_dot` primitive that XLA may fuse; its reference
lowering, which pyjax composes here from existing primitives, repeats each
scale over its block of the contracting dimension, multiplies in bfloat16
and contracts with `dot_general` in the preferred type (bfloat16 by
default). The shapes are checked with JAX's messages first.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.lax._standard import as_array

__all__ = ["scaled_dot"]


def _validate_operand_scale(side: str, shape, scale_shape, contracting: Sequence[int]) -> None:
    for i, size in enumerate(shape):
        if i in contracting:
            if size % scale_shape[i] != 0:
                raise TypeError(f"{side} contracting dim {i} of size {size} must be divisible by its scale's dim "
                                f"size {scale_shape[i]}.")
            ratio = size // scale_shape[i]
            if ratio < 2:
                raise TypeError(f"The ratio of {side} contracting dim {i} to its scale's dim size ({ratio}) must be "
                                "at least 2.")
        elif scale_shape[i] != size:
            raise TypeError(f"{side} dim {i} of size {size} does not match scale dim size {scale_shape[i]}.")


def _validate(lhs, rhs, lhs_scale, rhs_scale, dimension_numbers) -> None:
    (lc, rc), (lb, rb) = dimension_numbers
    ndims = [lhs.ndim, rhs.ndim, lhs_scale.ndim, rhs_scale.ndim]
    if max(ndims) != min(ndims):
        raise TypeError(f"All input tensors must have the same rank. Got lhs rank: {lhs.ndim} rhs rank: {rhs.ndim} "
                        f"lhs_scale rank: {lhs_scale.ndim} rhs_scale rank: {rhs_scale.ndim}.")
    if len(lb) != len(rb):
        raise TypeError(f"LHS and RHS must have the same number of batch dimensions, got {len(lb)} and {len(rb)}.")
    if len(lc) != len(rc):
        raise TypeError(f"LHS and RHS must have the same number of contracting dimensions, got {len(lc)} and "
                        f"{len(rc)}.")
    for i, j in zip(lb, rb):
        sizes = [lhs.shape[i], rhs.shape[j], lhs_scale.shape[i], rhs_scale.shape[j]]
        if max(sizes) != min(sizes):
            raise TypeError(f"All input tensors must have the same batch dimension size for batch dims ({i}, {j}).")
    for i, j in zip(lc, rc):
        if lhs.shape[i] != rhs.shape[j]:
            raise TypeError(f"LHS contracting dim {i} of size {lhs.shape[i]} does not match RHS contracting dim "
                            f"{j} of size {rhs.shape[j]}.")
    _validate_operand_scale("LHS", lhs.shape, lhs_scale.shape, lc)
    _validate_operand_scale("RHS", rhs.shape, rhs_scale.shape, rc)


def _repeat_scale(scale, operand_shape, contracting):
    # Each scale entry repeated over its block of every contracting dimension.
    from pyjax._src.lax.shapes import broadcast_in_dim, reshape

    for i in contracting:
        shape = tuple(core.get_aval(scale).shape)
        if shape[i] != operand_shape[i]:
            block = operand_shape[i] // shape[i]
            expanded = shape[:i + 1] + (block,) + shape[i + 1:]
            dims = tuple(d if d <= i else d + 1 for d in range(len(shape)))
            scale = broadcast_in_dim(scale, expanded, dims)
            scale = reshape(scale, shape[:i] + (shape[i] * block,) + shape[i + 1:])
    return scale


def scaled_dot(lhs: Any, rhs: Any, *, lhs_scale: Any = None, rhs_scale: Any = None,
               dimension_numbers: Any = None, preferred_element_type: Any = None) -> Any:
    """Computes a scaled dot product.

    This function computes `(lhs * lhs_scale) @ (rhs * rhs_scale)` in
    `preferred_element_type` precision, where `@` denotes `jax.lax.dot_general`.
    Non-contracting dimensions of the operand and scale must have the same
    size; the operand's contracting dimension must be a multiple (at least 2x)
    of the scale's.

    Args:
      lhs: The left-hand side operand of the dot product.
      rhs: The right-hand side operand of the dot product.
      lhs_scale: The scale factor for `lhs` (default: ones, one per row).
      rhs_scale: The scale factor for `rhs` (default: ones).
      dimension_numbers: ``((lhs_contracting_dims, rhs_contracting_dims),
        (lhs_batch_dims, rhs_batch_dims))``; by default the last dimension of
        `lhs` contracts with the second-to-last of `rhs`, leading dimensions
        being batch dimensions.
      preferred_element_type: the output and accumulation dtype, bfloat16
        (default) or float32.

    Returns:
      The result of the scaled dot product.
    """
    from pyjax._src.lax import elementwise as ew
    from pyjax._src.lax.dot import dot_general
    from pyjax._src.lax.shapes import full

    lhs, rhs = as_array(lhs), as_array(rhs)
    la, ra = core.get_aval(lhs), core.get_aval(rhs)
    if dimension_numbers is None:
        if la.ndim in (0, 1):
            raise TypeError("scaled_dot does not support 0-rank and 1-rank operands.")
        n = la.ndim
        dimension_numbers = (((n - 1,), (n - 2,)), (tuple(range(n - 2)), tuple(range(n - 2))))
    (lc, rc), (lb, rb) = dimension_numbers
    dimension_numbers = ((tuple(lc), tuple(rc)), (tuple(lb), tuple(rb)))

    def dummy(aval, contracting):
        shape = tuple(1 if d in contracting else s for d, s in enumerate(aval.shape))
        return full(shape, 1, dtypes.float8_e8m0fnu)

    lhs_scale = dummy(la, lc) if lhs_scale is None else as_array(lhs_scale)
    rhs_scale = dummy(ra, rc) if rhs_scale is None else as_array(rhs_scale)
    element_type = dtypes.check_and_canonicalize_user_dtype(
        preferred_element_type if preferred_element_type is not None else dtypes.bfloat16, "scaled_dot")
    _validate(la, ra, core.get_aval(lhs_scale), core.get_aval(rhs_scale), dimension_numbers)
    bf16 = np.dtype(dtypes.bfloat16)
    lhs_scaled = ew.mul(ew.convert_element_type(lhs, bf16),
                        ew.convert_element_type(_repeat_scale(lhs_scale, la.shape, lc), bf16))
    rhs_scaled = ew.mul(ew.convert_element_type(rhs, bf16),
                        ew.convert_element_type(_repeat_scale(rhs_scale, ra.shape, rc), bf16))
    return dot_general(lhs_scaled, rhs_scaled, dimension_numbers, preferred_element_type=element_type)
