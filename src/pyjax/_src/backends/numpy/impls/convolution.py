"""NumPy impl of conv_general_dilated, and the window helpers the windowed
reductions share.

A convolution is computed as XLA defines it, vectorised:

1. put the input in (N, C, spatial...) and the kernel in (O, I, spatial...)
   order (the dimension numbers' permutations);
2. dilate and pad the input in one copy (`dilate_and_pad`: holes and padding
   are zeros, negative padding crops);
3. view every window (`window_view`: a strided view; window strides and rhs
   dilation are steps of that view, nothing is copied);
4. per feature group or batch group, one matmul of the flattened windows
   (im2col) with the flattened kernel.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from pyjax._src import dtypes
from pyjax._src.lax import convolution as conv_lax

IMPLS: dict = {}


# ---------------------------------------------------------------------------
# Window helpers (shared with the windowed reductions)


def dilate_and_pad(x: np.ndarray, dilation: Sequence[int], padding: Sequence[tuple[int, int]], fill) -> np.ndarray:
    """`x` with `dilation - 1` holes between elements and (low, high) padding
    on every axis, holes and padding set to `fill`; negative padding removes
    elements (XLA's Pad with interior padding, in one copy)."""
    if all(r == 1 for r in dilation) and all(lo == 0 and hi == 0 for lo, hi in padding):
        return x
    dilated = [0 if d == 0 else (d - 1) * r + 1 for d, r in zip(x.shape, dilation, strict=True)]
    final = [d + lo + hi for d, (lo, hi) in zip(dilated, padding, strict=True)]
    out = np.full(final, fill, dtype=x.dtype)
    source, target = [], []
    for size, r, (lo, _), length in zip(x.shape, dilation, padding, final, strict=True):
        # Input element j lands at lo + j * r; keep the j that land inside.
        first = max(0, -(lo // r)) if lo < 0 else 0
        last = min(size - 1, (length - 1 - lo) // r) if length > 0 else -1
        if last < first:
            return out
        source.append(slice(first, last + 1))
        target.append(slice(lo + first * r, lo + last * r + 1, r))
    out[tuple(target)] = x[tuple(source)]
    return out


def window_view(x: np.ndarray, axes: Sequence[int], window: Sequence[int], strides: Sequence[int],
                window_dilation: Sequence[int]) -> np.ndarray | None:
    """A read-only strided view of every window of `x` over `axes`: shape
    (x's shape with each of `axes` replaced by its number of windows, then
    the window's sizes). None when some axis holds no window at all."""
    effective = [(w - 1) * r + 1 for w, r in zip(window, window_dilation, strict=True)]
    if any(x.shape[a] < e for a, e in zip(axes, effective, strict=True)):
        return None
    view = sliding_window_view(x, effective, axis=tuple(axes))
    index = [slice(None)] * x.ndim
    for a, s in zip(axes, strides, strict=True):
        index[a] = slice(None, None, s)
    index += [slice(None, None, r) for r in window_dilation]
    return view[tuple(index)]


# ---------------------------------------------------------------------------
# conv_general_dilated


def _compute_dtype(input_dtype: np.dtype, out_dtype: np.dtype) -> np.dtype:
    # Accumulate as XLA does on the CPU: half floats in float32, integers in a
    # wide integer (the final cast wraps exactly as a narrow accumulator would).
    if out_dtype == np.bool_:
        return np.dtype(np.bool_)
    if dtypes.issubdtype(out_dtype, np.integer):
        return np.dtype(np.int64)
    if dtypes.issubdtype(out_dtype, np.floating) and np.dtype(out_dtype).itemsize < 4:
        return np.dtype(np.float32)
    return np.dtype(out_dtype)


def _conv_general_dilated(lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                          feature_group_count, batch_group_count, precision, preferred_element_type,
                          out_sharding):
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    out_dtype = np.dtype(preferred_element_type) if preferred_element_type is not None else lhs.dtype
    compute = _compute_dtype(lhs.dtype, out_dtype)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    x = np.transpose(lhs, lhs_spec).astype(compute, copy=False)
    kernel = np.transpose(rhs, rhs_spec).astype(compute, copy=False)
    spatial = x.ndim - 2
    x = dilate_and_pad(x, (1, 1, *lhs_dilation), ((0, 0), (0, 0), *padding), 0)
    out_shape = conv_lax.conv_output_shape(
        lhs.shape, rhs.shape, window_strides=window_strides, padding=padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=dimension_numbers, batch_group_count=batch_group_count,
    )
    axes = tuple(range(2, 2 + spatial))
    windows = window_view(x, axes, kernel.shape[2:], window_strides, rhs_dilation)
    if windows is None or math.prod(out_shape) == 0:
        return np.zeros(out_shape, out_dtype)
    result = _grouped_matmul(windows, kernel, feature_group_count, batch_group_count)
    return np.transpose(result, np.argsort(out_spec)).astype(out_dtype, copy=False)


def _grouped_matmul(windows: np.ndarray, kernel: np.ndarray, feature_groups: int, batch_groups: int) -> np.ndarray:
    """Contracts windows (N, C, out..., k...) with kernel (O, I, k...) into
    (N / batch_groups, O, out...), one matmul per group.

    Groups are the major part of the split axis, as in XLA: feature group g
    reads input features [g*I, (g+1)*I) and writes output features
    [g*O/G, (g+1)*O/G); batch group b reads batch rows [b*N/B, (b+1)*N/B)
    and writes output features [b*O/B, (b+1)*O/B).
    """
    n, c = windows.shape[:2]
    spatial = (windows.ndim - 2) // 2
    out_space = windows.shape[2:2 + spatial]
    positions = math.prod(out_space)
    taps = math.prod(kernel.shape[2:])
    o = kernel.shape[0]
    g, b = feature_groups, batch_groups
    groups = g * b  # at most one of them exceeds 1
    nb, cg, og = n // b, c // g, o // groups
    # (B, N/B, G, C/G, P, K) -> (groups, N/B * P, C/G * K)
    patches = windows.reshape(b, nb, g, cg, positions, taps).transpose(0, 2, 1, 4, 3, 5)
    patches = patches.reshape(groups, nb * positions, cg * taps)
    weights = kernel.reshape(groups, og, cg * taps).transpose(0, 2, 1)
    out = np.matmul(patches, weights)  # (groups, N/B * P, O/groups)
    out = out.reshape(groups, nb, positions, og).transpose(1, 0, 3, 2)
    return out.reshape(nb, o, *out_space)


IMPLS[conv_lax.conv_general_dilated_p] = _conv_general_dilated
