"""The convolution primitive, conv_general_dilated, and its wrappers.

XLA's one convolution covers them all: an input (lhs) and a kernel (rhs) of
rank n+2 whose axes are named by `dimension_numbers` (batch and feature axes
of each operand, then the n spatial axes), window strides, explicit (low,
high) padding of the input, lhs dilation (holes between input elements:
transposed convolution), rhs dilation (holes between kernel taps: atrous
convolution), and feature or batch grouping. `conv`, `conv_with_general_padding`,
`conv_transpose` and `conv_general_dilated_patches` are spellings of it.

This module also holds the window geometry the windowed reductions share:
`padtype_to_pads` (the 'SAME'/'VALID' paddings), shape dilation and the
checks on shape-like params, with JAX's messages.
"""

from __future__ import annotations

import enum
import math
import operator
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from pyjax._src import config, core, dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.lax import sharding_rules
from pyjax._src.interpreters import batching as _batching
from pyjax._src.lax import dot as dot_lax
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import shapes
from pyjax._src.lax.dot import Precision

__all__ = [
    "ConvDimensionNumbers",
    "ConvGeneralDilatedDimensionNumbers",
    "conv",
    "conv_dimension_numbers",
    "conv_general_dilated",
    "conv_general_dilated_local",
    "conv_general_dilated_p",
    "conv_general_dilated_patches",
    "conv_general_permutations",
    "conv_general_shape_tuple",
    "conv_shape_tuple",
    "conv_transpose",
    "conv_transpose_shape_tuple",
    "conv_with_general_padding",
    "padtype_to_pads",
]


# ---------------------------------------------------------------------------
# Window geometry shared with the windowed reductions


class PaddingType(enum.Enum):
    """The padding modes a string padding argument names."""

    VALID = 1
    SAME = 2
    SAME_LOWER = 3


def padtype_to_pads(in_shape: Sequence[int], window_shape: Sequence[int],
                    window_strides: Sequence[int], padding) -> list[tuple[int, int]]:
    """Converts a padding mode into explicit (low, high) pads per dimension.

    Args:
      in_shape: the spatial shape of the input.
      window_shape: the (dilated) window shape.
      window_strides: the window strides.
      padding: 'VALID' (no padding), 'SAME' (pad so that the output has
        ceil(in / stride) elements, an odd amount with the extra element at
        the end) or 'SAME_LOWER' (the same, the extra element at the start),
        or a PaddingType.

    Returns:
      A list of (low, high) integer pairs, one per dimension.

    Example:
      >>> padtype_to_pads((5, 6), (3, 3), (2, 2), 'SAME')
      [(1, 1), (0, 1)]
    """
    if isinstance(padding, str):
        try:
            padding = PaddingType[padding.upper()]
        except KeyError as err:
            raise RuntimeError(
                f"Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got {padding}."
            ) from err
    if padding in (PaddingType.SAME, PaddingType.SAME_LOWER):
        pads = []
        for size, window, stride in zip(in_shape, window_shape, window_strides, strict=True):
            out_size = -(-int(size) // int(stride))
            total = max((out_size - 1) * int(stride) + int(window) - int(size), 0)
            small, large = total // 2, total - total // 2
            pads.append((small, large) if padding is PaddingType.SAME else (large, small))
        return pads
    if padding is PaddingType.VALID:
        return [(0, 0)] * len(in_shape)
    raise TypeError(f"Unknown padding type: {padding}.")


def dilate_shape(shape: Sequence[int], dilation: Sequence[int]) -> tuple:
    """The size of each axis after `dilation - 1` holes between its elements."""
    if not all(d > 0 for d in np.asarray(dilation).ravel()):
        raise TypeError(f"All dilations must be positive, got {dilation}.")
    dilation = (1,) * (len(shape) - len(dilation)) + tuple(dilation)
    return tuple(d if r == 1 else max(0, 1 + r * (d - 1)) for d, r in zip(shape, dilation, strict=True))


def stride_dim(size: int, window: int, stride: int) -> int:
    """How many windows of `window` fit in `size` with `stride` between them."""
    return max((size - window) // stride + 1, 0)


def check_shapelike(fun_name: str, arg_name: str, obj, non_zero_shape: bool = False) -> None:
    """Checks that `obj` is a tuple/list/array of nonnegative (or positive) ints."""
    if not isinstance(obj, (tuple, list, np.ndarray)):
        raise TypeError(f"{fun_name} {arg_name} must be of type tuple/list/ndarray, got {type(obj)}.")
    if not len(obj):
        return
    array = np.array(obj)
    if array.ndim != 1:
        raise TypeError(f"{fun_name} {arg_name} must be 1-dimensional, got {array.ndim}.")
    if not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in array.tolist()):
        raise TypeError(
            f"{fun_name} {arg_name} must have every element be an integer type, got {tuple(map(type, obj))}."
        )
    lower, words = (1, "strictly positive") if non_zero_shape else (0, "nonnegative")
    if not all(d >= lower for d in array):
        raise TypeError(f"{fun_name} {arg_name} must have every element be {words}, got {obj}.")


# ---------------------------------------------------------------------------
# Dimension numbers


class ConvDimensionNumbers(NamedTuple):
    """Which axes of a convolution's operands are batch, feature and spatial.

    Args:
      lhs_spec: (batch dimension, feature dimension, spatial dimensions...)
        of the input.
      rhs_spec: (out feature dimension, in feature dimension, spatial
        dimensions...) of the kernel.
      out_spec: (batch dimension, feature dimension, spatial dimensions...)
        of the output.
    """

    lhs_spec: Sequence[int]
    rhs_spec: Sequence[int]
    out_spec: Sequence[int]


ConvGeneralDilatedDimensionNumbers = tuple[str, str, str] | ConvDimensionNumbers | None


def conv_general_permutations(dimension_numbers) -> tuple[tuple, tuple, tuple]:
    """The axis permutations of a string `(lhs, rhs, out)` spec that put each
    operand in XLA's canonical order: batch/out-feature, feature/in-feature,
    then spatial axes in the order the kernel spec lists them.

    Example:
      >>> conv_general_permutations(('NHWC', 'HWIO', 'NHWC'))
      ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    """
    rhs_spec = dimension_numbers[1]
    charpairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(charpairs):
        spec = dimension_numbers[i]
        if not spec.count(a) == spec.count(b) == 1:
            raise TypeError(
                f"convolution dimension_numbers[{i}] must contain the characters '{a}' and '{b}' "
                f"exactly once, got {spec}."
            )
        if len(spec) != len(set(spec)):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate characters, got {spec}.")
    spatial = [set(spec) - set(pair) for spec, pair in zip(dimension_numbers, charpairs, strict=True)]
    if not spatial[0] == spatial[1] == spatial[2]:
        raise TypeError(
            "convolution dimension_numbers elements must each have the same set of spatial "
            f"characters, got {dimension_numbers}."
        )

    def permutation(spec: str, pair: tuple) -> tuple:
        spatial_axes = [i for i, c in enumerate(spec) if c not in pair]
        if spec is not rhs_spec:
            spatial_axes.sort(key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1]), *spatial_axes)

    return tuple(permutation(s, p) for s, p in zip(dimension_numbers, charpairs, strict=True))


def conv_dimension_numbers(lhs_shape: Sequence[int], rhs_shape: Sequence[int],
                           dimension_numbers) -> ConvDimensionNumbers:
    """Converts convolution `dimension_numbers` to a ConvDimensionNumbers.

    Args:
      lhs_shape: the shape of the input.
      rhs_shape: the shape of the kernel.
      dimension_numbers: None (the default NCHW/OIHW/NCHW layout), a
        (lhs, rhs, out) tuple of spec strings such as ('NHWC', 'HWIO', 'NHWC'),
        or a ConvDimensionNumbers (returned as it is).

    Returns:
      The ConvDimensionNumbers of axis permutations.
    """
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError(
            f"convolution requires lhs and rhs ndim to be equal, got {len(lhs_shape)} and {len(rhs_shape)}."
        )
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if isinstance(dimension_numbers, (list, tuple)):
        if len(dimension_numbers) != 3:
            raise TypeError(f"convolution dimension_numbers list/tuple must be length 3, got {len(dimension_numbers)}.")
        if not all(isinstance(spec, str) for spec in dimension_numbers):
            raise TypeError(
                f"convolution dimension_numbers elements must be strings, got {tuple(map(type, dimension_numbers))}."
            )
        for i, spec in enumerate(dimension_numbers):
            if len(spec) != len(lhs_shape):
                raise TypeError(
                    f"convolution dimension_numbers[{i}] must have len equal to the ndim of lhs and rhs, "
                    f"got {len(spec)} for lhs and rhs shapes {tuple(lhs_shape)} and {tuple(rhs_shape)}."
                )
        return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))
    raise TypeError(f"convolution dimension_numbers must be tuple/list or None, got {type(dimension_numbers)}.")


def _hashable_dimension_numbers(dnums: ConvDimensionNumbers) -> ConvDimensionNumbers:
    # A user-built ConvDimensionNumbers may hold lists; params must hash.
    return ConvDimensionNumbers(*(tuple(int(d) for d in spec) for spec in dnums))


# ---------------------------------------------------------------------------
# Shapes


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count: int = 1) -> tuple:
    """The output shape of a convolution of operands in canonical (N, C,
    spatial...) / (O, I, spatial...) order."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError(f"Wrong number of explicit pads for convolution: expected {len(lhs_shape) - 2}, got {len(pads)}.")
    padded = [int(d) + int(lo) + int(hi) for d, (lo, hi) in zip(lhs_shape[2:], pads, strict=True)]
    if any(d < 0 for d in padded):
        # JAX's message shows the spatial sizes as NumPy integers.
        shown = tuple(np.int64(d) for d in lhs_shape[2:])
        raise ValueError(
            "Negative padding is larger than the size of the corresponding dimension: "
            f"got padding={pads} for lhs_shape[2:]={shown}"
        )
    out_space = tuple(stride_dim(d, int(k), int(s)) for d, k, s in zip(padded, rhs_shape[2:], strides, strict=True))
    batch = int(lhs_shape[0]) // batch_group_count if batch_group_count > 1 else int(lhs_shape[0])
    return (batch, int(rhs_shape[0]), *out_space)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers) -> tuple:
    """The output shape of a convolution with string dimension numbers."""
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    out = conv_shape_tuple([lhs_shape[i] for i in lhs_perm], [rhs_shape[i] for i in rhs_perm], window_strides, padding)
    return tuple(out[i] for i in np.argsort(out_perm))


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers) -> tuple:
    """The output shape of conv_transpose with string dimension numbers."""
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs_t = [int(lhs_shape[i]) for i in lhs_perm]
    rhs_t = [int(rhs_shape[i]) for i in rhs_perm]
    if isinstance(padding, str):
        padding = [_conv_transpose_padding(k, s, padding) for k, s in zip(rhs_t[2:], window_strides, strict=True)]
    pad_totals = [int(sum(p)) for p in padding]
    out_space = [(i - 1) * s - k + 2 + p for i, k, s, p in zip(lhs_t[2:], rhs_t[2:], window_strides, pad_totals, strict=True)]
    out = (lhs_t[0], rhs_t[0], *out_space)
    return tuple(out[i] for i in np.argsort(out_perm))


# ---------------------------------------------------------------------------
# The primitive

conv_general_dilated_p = Primitive("conv_general_dilated")


def _check_same_dtypes(lhs: ShapedArray, rhs: ShapedArray) -> None:
    # JAX's same-dtype message, without a jnp tip (no jnp equivalent).
    if lhs.dtype != rhs.dtype:
        raise TypeError(
            f"lax.conv_general_dilated requires arguments to have the same dtypes, got {lhs.dtype}, {rhs.dtype}."
        )


def validate_preferred_element_type(input_dtype, preferred) -> None:
    """JAX's checks that an accumulation dtype can hold the input dtype."""
    if dtypes.issubdtype(input_dtype, np.integer) and dtypes.issubdtype(preferred, np.floating):
        pass  # integer inputs may accumulate in any float, of either signedness
    else:
        for kind in (np.integer, np.floating, np.complexfloating):
            if dtypes.issubdtype(input_dtype, kind) and not dtypes.issubdtype(preferred, kind):
                raise TypeError(
                    "Input type is incompatible with `preferred_element_type`. The compatible combinations "
                    "of (input_type, preferred_element_type) are (integral, integral), (integral, floating), "
                    "(floating, floating), (complex, complex."
                )
        if dtypes.issubdtype(input_dtype, np.signedinteger) and not dtypes.issubdtype(preferred, np.signedinteger):
            raise TypeError("`preferred_element_type` must have the same signedness as the original type.")
    if np.dtype(preferred).itemsize < np.dtype(input_dtype).itemsize:
        raise TypeError("`preferred_element_type` must not be narrower than the original type.")


def _check_groups(lhs: ShapedArray, rhs: ShapedArray, dnums: ConvDimensionNumbers,
                  feature_group_count: int, batch_group_count: int) -> None:
    if not feature_group_count > 0:
        raise ValueError(f"conv_general_dilated feature_group_count must be a positive integer, got {feature_group_count}.")
    lhs_features = lhs.shape[dnums.lhs_spec[1]]
    rhs_in_features = rhs.shape[dnums.rhs_spec[1]]
    rhs_out_features = rhs.shape[dnums.rhs_spec[0]]
    quotient, remainder = divmod(lhs_features, feature_group_count)
    if remainder:
        raise ValueError(
            "conv_general_dilated feature_group_count must divide lhs feature dimension size, "
            f"but {feature_group_count} does not divide {lhs_features}."
        )
    if quotient != rhs_in_features:
        raise ValueError(
            "conv_general_dilated lhs feature dimension size divided by feature_group_count must equal "
            f"the rhs input feature dimension size, but {lhs_features} // {feature_group_count} != {rhs_in_features}."
        )
    if rhs_out_features % feature_group_count:
        raise ValueError(
            "conv_general_dilated rhs output feature dimension size must be a multiple of "
            f"feature_group_count, but {rhs_out_features} is not a multiple of {feature_group_count}."
        )
    if not batch_group_count > 0:
        raise ValueError(f"conv_general_dilated batch_group_count must be a positive integer, got {batch_group_count}.")
    lhs_batch = lhs.shape[dnums.lhs_spec[0]]
    if batch_group_count > 1 and lhs_batch % batch_group_count:
        raise ValueError(
            "conv_general_dilated batch_group_count must divide lhs batch dimension size, "
            f"but {batch_group_count} does not divide {lhs_batch}."
        )
    if rhs_out_features % batch_group_count:
        raise ValueError(
            "conv_general_dilated rhs output feature dimension size must be a multiple of "
            f"batch_group_count, but {rhs_out_features} is not a multiple of {batch_group_count}."
        )
    if batch_group_count > 1 and feature_group_count > 1:
        raise ValueError(
            "At most one of batch_group_count and feature_group_count may be > 1, got "
            f"batch_group_count={batch_group_count} and feature_group_count={feature_group_count}"
        )


def conv_output_shape(lhs_shape, rhs_shape, *, window_strides, padding, lhs_dilation, rhs_dilation,
                      dimension_numbers, batch_group_count) -> tuple:
    """The result shape of conv_general_dilated (axes in out_spec order)."""
    lhs_perm, rhs_perm, out_perm = dimension_numbers
    lhs_t = dilate_shape([lhs_shape[i] for i in lhs_perm], lhs_dilation)
    rhs_t = dilate_shape([rhs_shape[i] for i in rhs_perm], rhs_dilation)
    out_t = conv_shape_tuple(lhs_t, rhs_t, window_strides, padding, batch_group_count)
    return tuple(out_t[i] for i in np.argsort(out_perm))


@conv_general_dilated_p.def_abstract_eval
def _conv_general_dilated_abstract_eval(
    lhs: ShapedArray, rhs: ShapedArray, *, window_strides, padding, lhs_dilation, rhs_dilation,
    dimension_numbers, feature_group_count, batch_group_count, precision, preferred_element_type,
    out_sharding,
) -> ShapedArray:
    if lhs.ndim != rhs.ndim:
        raise ValueError(
            "conv_general_dilated lhs and rhs must have the same number of dimensions, "
            f"but got {lhs.shape} and {rhs.shape}."
        )
    _check_groups(lhs, rhs, dimension_numbers, feature_group_count, batch_group_count)
    spatial = len(dimension_numbers.rhs_spec) - 2
    if spatial != len(window_strides):
        raise ValueError(
            "conv_general_dilated window and window_strides must have the same number of dimensions, "
            f"but got {spatial} and {len(window_strides)}"
        )
    shape = conv_output_shape(
        lhs.shape, rhs.shape, window_strides=window_strides, padding=padding, lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation, dimension_numbers=dimension_numbers, batch_group_count=batch_group_count,
    )
    _check_same_dtypes(lhs, rhs)
    dtype = lhs.dtype
    if preferred_element_type is not None:
        validate_preferred_element_type(dtype, preferred_element_type)
        dtype = preferred_element_type
    return ShapedArray(shape, dtype, lhs.weak_type and rhs.weak_type, out_sharding)


# ---------------------------------------------------------------------------
# Public wrappers

_PRECISION_STRINGS = {
    "highest": Precision.HIGHEST, "float32": Precision.HIGHEST,
    "high": Precision.HIGH, "bfloat16_3x": Precision.HIGH, "tensorfloat32": Precision.HIGH,
    "default": Precision.DEFAULT, "bfloat16": Precision.DEFAULT, "fastest": Precision.DEFAULT,
}


def canonicalize_precision(precision):
    """An API precision (None, a string, a Precision or a pair of them) as
    the pair of Precision values the primitive carries (or None)."""
    if precision is None:
        default = config.default_matmul_precision.value
        return None if default is None else canonicalize_precision(default)
    if isinstance(precision, str) and precision in _PRECISION_STRINGS:
        return (_PRECISION_STRINGS[precision],) * 2
    if isinstance(precision, Precision):
        return (precision, precision)
    if isinstance(precision, (list, tuple)) and len(precision) == 2:
        if all(isinstance(p, Precision) for p in precision):
            return tuple(precision)
        if all(isinstance(p, str) for p in precision):
            return tuple(canonicalize_precision(p)[0] for p in precision)
    raise ValueError(
        "Precision argument must be one of:\n- None,\n"
        f"- a string in {list(_PRECISION_STRINGS)},\n- a lax.Precision value,\n"
        f"- a tuple of two lax.Precision values or strings;\nbut got {precision}."
    )


def _shape(x) -> tuple:
    aval = getattr(x, "aval", None)
    return aval.shape if aval is not None else np.shape(x)


def conv_general_dilated(lhs, rhs, window_strides: Sequence[int], padding, lhs_dilation: Sequence[int] | None = None,
                         rhs_dilation: Sequence[int] | None = None, dimension_numbers=None,
                         feature_group_count: int = 1, batch_group_count: int = 1, precision=None,
                         preferred_element_type=None, out_sharding=None):
    """General n-dimensional convolution operator, with optional dilation.

    Wraps XLA's Conv operator.

    Args:
      lhs: a rank n+2 input array.
      rhs: a rank n+2 array of kernel weights.
      window_strides: n integers, the inter-window strides.
      padding: 'SAME', 'SAME_LOWER', 'VALID', or n (low, high) integer pairs
        of padding applied before and after each spatial dimension.
      lhs_dilation: None, or n integers: the dilation of lhs (transposed
        convolution).
      rhs_dilation: None, or n integers: the dilation of rhs (atrous
        convolution).
      dimension_numbers: None (the ('NCHW', 'OIHW', 'NCHW') layout, for any
        n), a ConvDimensionNumbers, or a (lhs, rhs, out) tuple of spec
        strings: 'N' batch, 'C' feature, 'O'/'I' kernel output/input feature,
        any other distinct characters spatial dimensions.
      feature_group_count: split the input features into this many groups,
        each convolved with its own slice of the kernel.
      batch_group_count: split the batch into this many groups, each
        convolved with its own slice of the kernel's output features.
      precision: None, a lax.Precision, a precision string, or a pair.
      preferred_element_type: None, or the dtype to accumulate in and return.

    Returns:
      The convolution result, laid out as the output spec says.

    Example:
      >>> x = jnp.ones((1, 1, 5)); k = jnp.ones((1, 1, 3))
      >>> lax.conv_general_dilated(x, k, (1,), 'SAME')
      Array([[[2., 3., 3., 3., 2.]]], dtype=float32)
    """
    lhs_shape, rhs_shape = _shape(lhs), _shape(rhs)
    dnums = _hashable_dimension_numbers(conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers))
    if lhs_dilation is None:
        lhs_dilation = (1,) * (len(lhs_shape) - 2)
    elif isinstance(padding, str) and any(d != 1 for d in lhs_dilation):
        raise ValueError(
            "String padding is not implemented for transposed convolution using this op. Please either "
            "exactly specify the required padding or use conv_transpose."
        )
    if rhs_dilation is None:
        rhs_dilation = (1,) * (len(rhs_shape) - 2)
    if isinstance(padding, str):
        kernel_spatial = [rhs_shape[i] for i in dnums.rhs_spec[2:]]
        effective = [1 + r * (k - 1) if r != 1 else k for k, r in zip(kernel_spatial, rhs_dilation, strict=True)]
        padding = padtype_to_pads([lhs_shape[i] for i in dnums.lhs_spec[2:]], effective, window_strides, padding)
    else:
        try:
            padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
        except (ValueError, TypeError) as e:
            raise ValueError(
                "padding argument to conv_general_dilated should be a string or a sequence of (low, high) "
                f"pairs, got {padding}"
            ) from e
    if preferred_element_type is not None:
        preferred_element_type = dtypes.check_and_canonicalize_user_dtype(preferred_element_type, "conv_general_dilated")
    return conv_general_dilated_p.bind(
        lhs, rhs, window_strides=tuple(int(s) for s in window_strides),
        padding=tuple((int(lo), int(hi)) for lo, hi in padding),
        lhs_dilation=tuple(int(d) for d in lhs_dilation), rhs_dilation=tuple(int(d) for d in rhs_dilation),
        dimension_numbers=dnums, feature_group_count=operator.index(feature_group_count),
        batch_group_count=operator.index(batch_group_count), precision=canonicalize_precision(precision),
        preferred_element_type=preferred_element_type,
        out_sharding=sharding_rules.canonicalize_sharding(out_sharding, "conv_general_dilated"),
    )


def conv(lhs, rhs, window_strides: Sequence[int], padding: str, precision=None, preferred_element_type=None):
    """Convenience wrapper around conv_general_dilated: NCHW/OIHW layout,
    no dilation.

    Args:
      lhs: a rank n+2 input array.
      rhs: a rank n+2 array of kernel weights.
      window_strides: n integers, the inter-window strides.
      padding: 'SAME' or 'VALID'.
      precision: see conv_general_dilated.
      preferred_element_type: see conv_general_dilated.

    Returns:
      The convolution result.
    """
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)


def conv_with_general_padding(lhs, rhs, window_strides: Sequence[int], padding, lhs_dilation, rhs_dilation,
                              precision=None, preferred_element_type=None):
    """Convenience wrapper around conv_general_dilated with explicit padding
    and dilations, NCHW/OIHW layout.

    Args:
      lhs: a rank n+2 input array.
      rhs: a rank n+2 array of kernel weights.
      window_strides: n integers, the inter-window strides.
      padding: 'SAME', 'VALID', or n (low, high) integer pairs.
      lhs_dilation: None, or n integers.
      rhs_dilation: None, or n integers.
      precision: see conv_general_dilated.
      preferred_element_type: see conv_general_dilated.

    Returns:
      The convolution result.
    """
    return conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=lhs_dilation,
                                rhs_dilation=rhs_dilation, precision=precision,
                                preferred_element_type=preferred_element_type)


def _conv_transpose_padding(k: int, s: int, padding) -> tuple[int, int]:
    """(before, after) padding of one dimension of a transposed convolution
    whose forward convolution had kernel size k, stride s and `padding`."""
    if padding == "SAME":
        pad_len = k + s - 2
        pad_a = k - 1 if s > k - 1 else math.ceil(pad_len / 2)
    elif padding == "VALID":
        pad_len = k + s - 2 + max(k - s, 0)
        pad_a = k - 1
    elif isinstance(padding, tuple):
        pads = tuple(k - p - 1 for p in padding)
        pad_a, pad_len = pads[0], sum(pads)
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return pad_a, pad_len - pad_a


_CONV_TRANSPOSE_LAYOUTS = {
    2: ("NC", "IO", "NC"), 3: ("NHC", "HIO", "NHC"), 4: ("NHWC", "HWIO", "NHWC"), 5: ("NHWDC", "HWDIO", "NHWDC"),
}


def conv_transpose(lhs, rhs, strides: Sequence[int], padding, rhs_dilation: Sequence[int] | None = None,
                   dimension_numbers=None, transpose_kernel: bool = False, precision=None,
                   preferred_element_type=None, use_consistent_padding: bool = False):
    """The N-d convolution "transpose" (a fractionally strided convolution).

    Computed directly, as a convolution with lhs dilation `strides`, rather
    than as the gradient of a forward convolution.

    Args:
      lhs: a rank n+2 input array.
      rhs: a rank n+2 array of kernel weights.
      strides: n integers: the fractional stride.
      padding: 'SAME' or 'VALID' (the padding of the corresponding forward
        convolution), or n (low, high) pairs: the padding of the transposed
        convolution itself, or, with use_consistent_padding, of the forward one.
      rhs_dilation: None, or n integers: the kernel dilation.
      dimension_numbers: as in conv_general_dilated; the default is the
        TensorFlow layout ('NHWC', 'HWIO', 'NHWC') for the rank.
      transpose_kernel: flip the kernel's spatial axes and swap its input and
        output feature axes (what the gradient of a convolution does, and what
        Keras' Conv2DTranspose computes).
      precision: see conv_general_dilated.
      preferred_element_type: see conv_general_dilated.
      use_consistent_padding: read integer padding as the forward
        convolution's, as strings always are (PyTorch's convention).

    Returns:
      The transposed convolution.
    """
    lhs_shape, rhs_shape = _shape(lhs), _shape(rhs)
    assert len(lhs_shape) == len(rhs_shape) and len(lhs_shape) >= 2
    ndim = len(lhs_shape)
    if dimension_numbers is None:
        if ndim not in _CONV_TRANSPOSE_LAYOUTS:
            raise ValueError("No 4+ dimensional dimension_number defaults.")
        dimension_numbers = _CONV_TRANSPOSE_LAYOUTS[ndim]
    dnums = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    kernel_spatial = [rhs_shape[i] for i in dnums.rhs_spec[2:]]
    if rhs_dilation is None:
        rhs_dilation = (1,) * (ndim - 2)
    if use_consistent_padding or (isinstance(padding, str) and padding in {"SAME", "VALID"}):
        effective = [1 + r * (k - 1) if r != 1 else k for k, r in zip(kernel_spatial, rhs_dilation, strict=True)]
        per_dim = [padding] * len(strides) if isinstance(padding, str) else [tuple(p) for p in padding]
        pads = tuple(_conv_transpose_padding(k, s, p) for k, s, p in zip(effective, strides, per_dim, strict=True))
    else:
        pads = padding
    if transpose_kernel:
        rhs = shapes.rev(rhs, tuple(dnums.rhs_spec[2:]))
        swap = list(range(ndim))
        swap[dnums.rhs_spec[0]], swap[dnums.rhs_spec[1]] = swap[dnums.rhs_spec[1]], swap[dnums.rhs_spec[0]]
        rhs = shapes.transpose(rhs, swap)
    return conv_general_dilated(lhs, rhs, (1,) * (ndim - 2), pads, strides, rhs_dilation, dnums,
                                precision=precision, preferred_element_type=preferred_element_type)


def conv_general_dilated_patches(lhs, filter_shape: Sequence[int], window_strides: Sequence[int], padding,
                                 lhs_dilation: Sequence[int] | None = None,
                                 rhs_dilation: Sequence[int] | None = None, dimension_numbers=None,
                                 precision=None, preferred_element_type=None):
    """Extracts the patches a convolution with `filter_shape` would see.

    A convolution with an identity kernel (one output feature per input
    feature and window position, feature_group_count = input features), so
    the result's feature axis holds each patch flattened, features major:
    size prod(filter_shape) * input features.

    Args:
      lhs: a rank n+2 input array.
      filter_shape: the n spatial sizes of the window.
      window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
      precision, preferred_element_type: as in conv_general_dilated.

    Returns:
      The patches, laid out as the output spec says.
    """
    lhs_shape = _shape(lhs)
    filter_shape = tuple(int(d) for d in filter_shape)
    dnums = conv_dimension_numbers(lhs_shape, (1, 1) + filter_shape, dimension_numbers)
    lhs_spec, rhs_spec, _ = dnums
    spatial_size = math.prod(filter_shape)
    channels = lhs_shape[lhs_spec[1]]
    dtype = core.get_aval(lhs).dtype
    # The identity kernel, built with primitives as JAX builds its eye.
    eye_shape = (spatial_size, spatial_size)
    rows = ew.add(shapes.broadcasted_iota(np.int32, eye_shape, 0), np.int32(0))
    eye = ew._convert_element_type(ew.eq(rows, shapes.broadcasted_iota(np.int32, eye_shape, 1)), dtype)
    kernel = shapes.broadcast_in_dim(eye, (channels, spatial_size, spatial_size), (1, 2))
    kernel = shapes.reshape(kernel, (channels * spatial_size, 1, *filter_shape))
    if (rhs_spec[0], rhs_spec[1]) != (0, 1):
        order = [d for d in range(kernel.ndim) if d not in (0, 1)]
        for position, source in sorted(zip((rhs_spec[0], rhs_spec[1]), (0, 1), strict=True)):
            order.insert(position, source)
        kernel = shapes.transpose(kernel, order)
    return conv_general_dilated(
        lhs, kernel, window_strides, padding, lhs_dilation, rhs_dilation, dnums,
        precision=None if precision is None else (precision, Precision.DEFAULT),
        feature_group_count=channels, preferred_element_type=preferred_element_type,
    )


def conv_general_dilated_local(lhs, rhs, window_strides: Sequence[int], padding, filter_shape: Sequence[int],
                               lhs_dilation: Sequence[int] | None = None,
                               rhs_dilation: Sequence[int] | None = None, dimension_numbers=None,
                               precision=None):
    """General n-dimensional unshared convolution (a locally connected layer).

    A convolution with a separate kernel at each output spatial location:
    the patches of `lhs` (conv_general_dilated_patches) contracted, position
    by position, with `rhs`.

    Args:
      lhs: a rank n+2 input array.
      rhs: a rank n+2 array of kernel weights whose spatial axes are the
        output's spatial positions and whose input-feature axis ('I') holds
        each patch flattened: input features major, then the filter taps.
      window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers:
        as in conv_general_dilated.
      filter_shape: the n spatial sizes of the window.
      precision: see conv_general_dilated.

    Returns:
      The unshared convolution, laid out as the output spec says.
    """
    canonical = canonicalize_precision(precision)
    lhs_precision = None if canonical is None else canonical[0]
    patches = conv_general_dilated_patches(lhs, filter_shape, window_strides, padding, lhs_dilation,
                                           rhs_dilation, dimension_numbers, precision=lhs_precision)
    _, rhs_spec, out_spec = conv_dimension_numbers(_shape(lhs), (1, 1, *filter_shape), dimension_numbers)
    # Contract the patch axis with the kernel's input features; the output's
    # spatial axes and the kernel's spatial axes are batch axes, in order.
    spatial = sorted(range(len(out_spec) - 2), key=lambda k: out_spec[2 + k])
    lhs_batch = tuple(out_spec[2 + k] for k in spatial)
    rhs_batch = tuple(rhs_spec[2 + k] for k in spatial)
    out = dot_lax.dot_general(patches, rhs, (((out_spec[1],), (rhs_spec[1],)), (lhs_batch, rhs_batch)),
                              precision=canonical)
    ndim = len(out_spec)
    order = list(range(ndim - 2))
    for position, source in sorted(zip((out_spec[0], out_spec[1]), (ndim - 2, ndim - 1), strict=True)):
        order.insert(position, source)
    return shapes.transpose(out, order)


# ---------------------------------------------------------------------------
# Axis folds, shared by the batching rules below and the autodiff rules
# (convolution_ad.py).


def _reshape_axis_out_of(src: int, size1: int, x):
    # Splits axis `src` into (size1, rest), major part first.
    shape = list(core.get_aval(x).shape)
    size2, ragged = divmod(shape[src], size1)
    assert not ragged
    shape[src:src + 1] = [size1, size2]
    return shapes.reshape(x, shape)


def _reshape_axis_into(src: int, dst: int, x):
    # Merges axis `src` into axis `dst` (numbered once `src` is removed),
    # `src` becoming the major part of the merged axis.
    shape = core.get_aval(x).shape
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    new_shape = list(np.delete(shape, src))
    new_shape[dst] *= shape[src]
    return shapes.reshape(x, new_shape, perm)


# ---------------------------------------------------------------------------
# Batching rules. A convolution has no spare axis for a vmap batch, so the
# batch is folded into one it has and split out of the result again: a
# batched lhs rides in the image batch (N); a batched kernel rides in its
# output features (O) and comes out in the result's features; when both are
# batched, each example becomes a feature group of its own (or a batch group,
# when the convolution already groups its batch). Existing groups stay the
# outermost part of the folded axis, as XLA's grouping requires. Placement
# follows JAX 0.11 (folds and splits are the same reshapes), so vmapped
# convolutions stage the same jaxprs.



def _conv_fold_grouped(x, vmap_axis: int, fold_axis: int, groups: int):
    """Folds `vmap_axis` of x into its axis `fold_axis` (numbered without the
    vmap axis) when that axis is split into `groups` outer groups:
    (..., G*K, ..., B, ...) -> (..., G*B*K, ...), each group's B*K contiguous."""
    folded_at = fold_axis + (vmap_axis <= fold_axis)          # fold axis in x
    x = _reshape_axis_out_of(folded_at, groups, x)            # (..., G, K, ...)
    vmap_at = vmap_axis + (fold_axis < vmap_axis)             # one axis more now
    x = _reshape_axis_into(vmap_at, fold_axis + 1, x)         # (..., G, B*K, ...)
    return _reshape_axis_into(fold_axis, fold_axis, x)        # (..., G*B*K, ...)


def _conv_general_dilated_batch(axis_data, args, dims, *, window_strides, padding, lhs_dilation, rhs_dilation,
                                dimension_numbers, feature_group_count, batch_group_count, precision,
                                preferred_element_type, out_sharding):
    lhs, rhs = args
    lhs_dim, rhs_dim = dims
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    not_mapped = _batching.not_mapped
    size = axis_data.size

    def convolve(new_lhs, new_rhs, features, batches):
        return conv_general_dilated(
            new_lhs, new_rhs, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
            feature_group_count=features, batch_group_count=batches, precision=precision,
            preferred_element_type=preferred_element_type, out_sharding=out_sharding)

    if size == 0:
        # Nothing to fold a size-0 batch into: the (empty) result directly.
        lhs_shape, rhs_shape = list(core.get_aval(lhs).shape), list(core.get_aval(rhs).shape)
        if lhs_dim is not not_mapped:
            del lhs_shape[lhs_dim]
        if rhs_dim is not not_mapped:
            del rhs_shape[rhs_dim]
        example = conv_output_shape(lhs_shape, rhs_shape, window_strides=window_strides, padding=padding,
                                    lhs_dilation=lhs_dilation, rhs_dilation=rhs_dilation,
                                    dimension_numbers=dimension_numbers, batch_group_count=batch_group_count)
        dtype = core.get_aval(lhs).dtype if preferred_element_type is None else preferred_element_type
        return shapes.broadcast_in_dim(np.zeros((), dtype)[()], (0,) + tuple(example), ()), 0

    if lhs_dim is not not_mapped and rhs_dim is not not_mapped:
        # lhs: (.., B, .., C, ..) -> C becomes B*C, kernel: O becomes B*O; the
        # examples are groups of their own, the first factor of each grouping.
        if batch_group_count > 1:
            new_lhs = _reshape_axis_into(lhs_dim, lhs_spec[0], lhs)
            batch_group_count *= size
        else:
            new_lhs = _reshape_axis_into(lhs_dim, lhs_spec[1], lhs)
            feature_group_count *= size
        new_rhs = _reshape_axis_into(rhs_dim, rhs_spec[0], rhs)
        out = convolve(new_lhs, new_rhs, feature_group_count, batch_group_count)
        return _reshape_axis_out_of(out_spec[1], size, out), out_spec[1]

    if lhs_dim is not not_mapped:
        # The examples join the image batch N (inside each batch group).
        if batch_group_count == 1:
            new_lhs = _reshape_axis_into(lhs_dim, lhs_spec[0], lhs)
        else:
            new_lhs = _conv_fold_grouped(lhs, lhs_dim, lhs_spec[0], batch_group_count)
        out = convolve(new_lhs, rhs, feature_group_count, batch_group_count)
        return _reshape_axis_out_of(out_spec[0], size, out), out_spec[0]

    # Only the kernel: the examples join its output features O.
    if feature_group_count == 1 and batch_group_count == 1:
        new_rhs = _reshape_axis_into(rhs_dim, rhs_spec[0], rhs)
        out = convolve(lhs, new_rhs, feature_group_count, batch_group_count)
        return _reshape_axis_out_of(out_spec[1], size, out), out_spec[1]
    groups = feature_group_count if feature_group_count > 1 else batch_group_count
    new_rhs = _conv_fold_grouped(rhs, rhs_dim, rhs_spec[0], groups)
    out = convolve(lhs, new_rhs, feature_group_count, batch_group_count)
    # out features (G*B*K) -> (G, B*K) -> (G, B, K) -> (B, G*K), examples first.
    feature = out_spec[1]
    out = _reshape_axis_out_of(feature, groups, out)
    out = _reshape_axis_out_of(feature + 1, size, out)
    return _reshape_axis_into(feature, feature + 1, out), feature


conv_general_dilated_p.def_batch(_conv_general_dilated_batch)
conv_general_dilated_p.def_sharding_rule(sharding_rules.conv_rule)

# Its autodiff rules, beside it (imported here so they exist whenever the primitive does).
from pyjax._src.lax import convolution_ad  # noqa: E402,F401
