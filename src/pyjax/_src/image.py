"""jax.image: resampling images (resize, scale_and_translate).

Every method but nearest is separable: along each resized axis the output
is the input contracted with a weight matrix of shape (in_size, out_size),
whose column j holds the kernel evaluated at the distances between output
sample j (mapped back into the input) and each input pixel, normalised to
sum to one. Downsampling with antialias widens the kernel by the inverse
scale. Output samples that map outside the input get weight zero (except
for cubic-pytorch without antialias, which clamps to the edge pixels). The
weights are computed with jnp in the dtype of scale and translation, so
both may be traced and differentiated, as in JAX.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pyjax._src import core, errors
from pyjax._src.avals import canonicalize_shape
from pyjax._src.jit import jit
from pyjax._src.lax.dot import Precision
from pyjax._src.numpy import creation, einsum as jnp_einsum, reductions, ufuncs
from pyjax._src.numpy.util import promote_dtypes_inexact
from pyjax._src.numpy.where import where


class ResizeMethod(enum.Enum):
    """Image resize method.

    Possible values are:

    NEAREST:
      Nearest-neighbor interpolation.

    LINEAR:
      Linear interpolation.

    LANCZOS3:
      Lanczos resampling, using a kernel of radius 3.

    LANCZOS5:
      Lanczos resampling, using a kernel of radius 5.

    CUBIC:
      Cubic interpolation, using the Keys cubic kernel.

    CUBIC_PYTORCH:
      Cubic interpolation as PyTorch's bicubic resize (the OpenCV kernel,
      a = -0.75; edges clamped when antialiasing is off).

    AREA:
      Area interpolation: each output pixel is the input averaged over the
      output pixel's area. When downscaling, this acts as an anti-aliasing
      filter.
    """

    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str) -> ResizeMethod:
        """The method a string names: 'nearest', 'linear', 'cubic', 'lanczos3', ... (JAX's spellings)."""
        method = _NAMES.get(s)
        if method is None:
            raise ValueError(f'Unknown resize method "{s}"')
        return method


_NAMES = {
    "nearest": ResizeMethod.NEAREST,
    **dict.fromkeys(["linear", "bilinear", "trilinear", "triangle"], ResizeMethod.LINEAR),
    "lanczos3": ResizeMethod.LANCZOS3,
    "lanczos5": ResizeMethod.LANCZOS5,
    **dict.fromkeys(["cubic", "bicubic", "tricubic"], ResizeMethod.CUBIC),
    **dict.fromkeys(["cubic-pytorch", "bicubic-pytorch"], ResizeMethod.CUBIC_PYTORCH),
    "area": ResizeMethod.AREA,
}


# ---- kernels: functions of the (non-negative) distance x in input pixels

def _triangle(x):
    return ufuncs.maximum(0, 1 - ufuncs.abs(x))


def _keys_cubic(x):  # Keys (1981), a = -0.5
    inner = ((1.5 * x - 2.5) * x) * x + 1.
    outer = ((-0.5 * x + 2.5) * x - 4.) * x + 2.
    return where(x >= 2., 0., where(x >= 1., outer, inner))


def _opencv_cubic(x):  # the same family with a = -0.75 (OpenCV, PyTorch)
    a = -0.75
    inner = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0
    outer = ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a
    return where(x >= 2.0, 0.0, where(x >= 1.0, outer, inner))


def _lanczos(radius: float) -> Callable:
    def kernel(x):
        y = radius * ufuncs.sin(np.pi * x) * ufuncs.sin(np.pi * x / radius)
        # sinc's 0/0 at the centre: the limit 1 below a small distance.
        body = where(x > 1e-3, ufuncs.divide(y, where(x != 0, np.pi ** 2 * x ** 2, 1)), 1)
        return where(x > radius, 0., body)
    return kernel


_AREA = "area"  # weights are interval overlaps, not a kernel of the distance

_KERNELS: dict[ResizeMethod, tuple[int, Any]] = {
    ResizeMethod.LINEAR: (1, _triangle),
    ResizeMethod.LANCZOS3: (3, _lanczos(3.)),
    ResizeMethod.LANCZOS5: (5, _lanczos(5.)),
    ResizeMethod.CUBIC: (2, _keys_cubic),
    ResizeMethod.CUBIC_PYTORCH: (2, _opencv_cubic),
    ResizeMethod.AREA: (1, _AREA),
}


def _normalise(weights):
    # Columns whose weights cancel to (nearly) nothing get zero, not noise.
    total = reductions.sum(weights, axis=0, keepdims=True)
    big_enough = ufuncs.abs(total) > 1000. * float(np.finfo(np.float32).eps)
    return where(big_enough, ufuncs.divide(weights, where(total != 0, total, 1)), 0)


def _weight_matrix(in_size: int, out_size: int, scale, translation, kernel, antialias: bool,
                   edge_padding: bool, radius: int):
    """The (in_size, out_size) resampling matrix of one axis."""
    from pyjax._src import dtypes

    dtype = dtypes.result_type(scale, translation)
    inv_scale = 1. / scale
    kernel_scale = ufuncs.maximum(inv_scale, 1.) if antialias else 1.
    # Output pixel centres mapped back into input coordinates (pixel centres at i + 0.5).
    sample = (creation.arange(out_size, dtype=dtype) + 0.5) * inv_scale - translation * inv_scale - 0.5
    pad = 0
    if edge_padding:
        pad = radius
        if antialias:
            if isinstance(scale, core.Tracer):
                raise errors.ConcretizationTypeError(scale, "Antialiasing with edge padding requires a static scale.")
            pad = math.ceil(radius * max(1.0 / float(scale), 1.0))
    positions = creation.arange(-pad, in_size + pad, dtype=dtype)
    if kernel is _AREA:
        out_left = creation.arange(out_size, dtype=dtype) * inv_scale - translation * inv_scale
        out_right = out_left + inv_scale
        in_left = creation.arange(in_size, dtype=dtype)
        in_right = in_left + 1.0
        weights = ufuncs.maximum(0.0, ufuncs.minimum(out_right[None, :], in_right[:, None])
                                 - ufuncs.maximum(out_left[None, :], in_left[:, None]))
    else:
        weights = kernel(ufuncs.abs(sample[None, :] - positions[:, None]) / kernel_scale)
    if edge_padding:
        # Padding rows fold onto the edge pixel they replicate.
        rows = creation.asarray(positions.astype(np.int32))
        rows = ufuncs.minimum(ufuncs.maximum(rows, 0), in_size - 1)
        cols = creation.arange(out_size)
        matrix = creation.zeros((in_size, out_size), dtype=dtype)
        matrix = matrix.at[rows[:, None], cols[None, :]].add(weights)
        return _normalise(matrix)
    weights = _normalise(weights)
    inside = ufuncs.logical_and(sample >= -0.5, sample <= in_size - 0.5)
    return where(inside[None, :], weights, 0)


def _contract(x, out_shape: tuple[int, ...], spatial_dims: Sequence[int], scale, translation, kernel,
              antialias: bool, precision, edge_padding: bool, radius: int):
    if len(spatial_dims) == 0:
        return x
    ndim = len(out_shape)
    operands: list[Any] = []
    out_axes = list(range(ndim))
    for i, d in enumerate(spatial_dims):
        d = d + ndim if d < 0 else d
        w = _weight_matrix(x.shape[d], out_shape[d], scale[i], translation[i], kernel, antialias,
                           edge_padding, radius).astype(x.dtype)
        operands += [w, [d, ndim + i]]
        out_axes[d] = ndim + i
    return jnp_einsum.einsum(x, list(range(ndim)), *operands, out_axes, precision=precision)


def _check_rank(shape, image) -> None:
    if len(shape) != image.ndim:
        raise ValueError("shape must have length equal to the number of dimensions of x; "
                         f" {shape} vs {image.shape}")


def _kernel_for(method: ResizeMethod, antialias: bool):
    if method == ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC  # PyTorch's antialiased bicubic uses the Keys kernel
    radius, kernel = _KERNELS[method]
    return radius, kernel, method == ResizeMethod.CUBIC_PYTORCH


def scale_and_translate(image, shape: Sequence[int], spatial_dims: Sequence[int], scale, translation,
                        method: str | ResizeMethod, antialias: bool = True, precision=Precision.HIGHEST):
    """Apply a scale and translation to an image.

    Generates a new image of shape 'shape' by resampling from the input image
    using the sampling method corresponding to method. For 2D images, this
    operation transforms a location in the input images, (x, y), to a location
    in the output image according to::

      (x * scale[1] + translation[1], y * scale[0] + translation[0])

    (Note the *inverse* warp is used to generate the sample locations.)
    Assumes half-centered pixels, i.e the pixel at integer location ``row,
    col`` has coordinates ``y, x = row + 0.5, col + 0.5``. If an output
    location maps to an input sample location that is outside the input
    boundaries then the value for the output location will be set to zero.

    Args:
      image: a JAX array.
      shape: the output shape, as a sequence of integers with length equal to
        the number of dimensions of image.
      spatial_dims: A length K tuple specifying the spatial dimensions that
        the passed scale and translation should be applied to.
      scale: A [K] array with the same number of dimensions as image,
        containing the scale to apply in each dimension.
      translation: A [K] array with the same number of dimensions as image,
        containing the translation to apply in each dimension.
      method: the resizing method to use; either a ``ResizeMethod`` instance
        or a string. Available methods are: ``LINEAR``, ``LANCZOS3``,
        ``LANCZOS5``, ``CUBIC``, ``CUBIC_PYTORCH``, ``AREA``.
      antialias: Should an antialiasing filter be used when downsampling?
        Defaults to ``True``. Has no effect when upsampling.
      precision: the precision of the contractions.

    Returns:
      The scale and translated image.
    """
    shape = canonicalize_shape(shape)
    _check_rank(shape, image)
    if isinstance(method, str):
        method = ResizeMethod.from_string(method)
    if method == ResizeMethod.NEAREST:
        raise ValueError("Nearest neighbor resampling is not currently supported for scale_and_translate.")
    radius, kernel, edge_padding = _kernel_for(method, antialias)
    image, = promote_dtypes_inexact(image)
    scale, translation = promote_dtypes_inexact(scale, translation)
    return _contract(image, shape, spatial_dims, scale, translation, kernel, antialias, precision,
                     edge_padding, radius)


def _resize_nearest(x, out_shape: tuple[int, ...]):
    for d, (m, n) in enumerate(zip(x.shape, out_shape)):
        if m == n:
            continue
        # Output pixel centres mapped back, floored in float32 (as JAX, whatever x64 says).
        centres = (creation.arange(n, dtype=np.float32) + 0.5) * m / n
        index = ufuncs.floor(centres.astype(np.float32)).astype(np.int32)
        x = x[(slice(None),) * d + (index,)]
    return x


def _resize_impl(image, shape: tuple[int, ...], method, antialias: bool, precision):
    _check_rank(shape, image)
    if isinstance(method, str):
        method = ResizeMethod.from_string(method)
    if method == ResizeMethod.NEAREST:
        return _resize_nearest(image, shape)
    image, = promote_dtypes_inexact(image)
    # Resampling is interpolating: an axis that keeps its size keeps its values.
    spatial_dims = tuple(d for d in range(len(shape)) if image.shape[d] != shape[d])
    radius, kernel, edge_padding = _kernel_for(method, antialias)
    scale = [1.0 if shape[d] == 0 else shape[d] / image.shape[d] for d in spatial_dims]
    return _contract(image, shape, spatial_dims, scale, [0.] * len(spatial_dims), kernel, antialias,
                     precision, edge_padding, radius)


_resize = jit(_resize_impl, static_argnums=(1, 2, 3, 4))
_resize.__name__ = "_resize"


def resize(image, shape: Sequence[int], method: str | ResizeMethod, antialias: bool = True,
           precision=Precision.HIGHEST):
    """Image resize.

    The ``method`` argument expects one of the following resize methods:

    ``ResizeMethod.NEAREST``, ``"nearest"``
      Nearest neighbor interpolation. The values of ``antialias`` and
      ``precision`` are ignored.

    ``ResizeMethod.LINEAR``, ``"linear"``, ``"bilinear"``, ``"trilinear"``, ``"triangle"``
      Linear interpolation. If ``antialias`` is ``True``, uses a triangular
      filter when downsampling.

    ``ResizeMethod.CUBIC``, ``"cubic"``, ``"bicubic"``, ``"tricubic"``
      Cubic interpolation, using the Keys cubic kernel.

    ``ResizeMethod.CUBIC_PYTORCH``, ``"cubic-pytorch"``, ``"bicubic-pytorch"``
      Cubic interpolation matching PyTorch's bicubic resize.

    ``ResizeMethod.LANCZOS3``, ``"lanczos3"``
      Lanczos resampling, using a kernel of radius 3.

    ``ResizeMethod.LANCZOS5``, ``"lanczos5"``
      Lanczos resampling, using a kernel of radius 5.

    ``ResizeMethod.AREA``, ``"area"``
      Each output pixel is the input averaged over the output pixel's area.

    Args:
      image: a JAX array.
      shape: the output shape, as a sequence of integers with length equal to
        the number of dimensions of `image`. Note that :func:`resize` does not
        distinguish spatial dimensions from batch or channel dimensions, so
        this includes all dimensions of the image. To represent a batch or a
        channel dimension, simply leave that element of the shape unchanged.
      method: the resizing method to use; either a ``ResizeMethod`` instance
        or a string. Available methods are: LINEAR, LANCZOS3, LANCZOS5,
        CUBIC, CUBIC_PYTORCH, AREA, NEAREST.
      antialias: should an antialiasing filter be used when downsampling?
        Defaults to ``True``. Has no effect when upsampling.
      precision: the precision of the contractions.

    Returns:
      The resized image.
    """
    return _resize(image, canonicalize_shape(shape), method, antialias, precision)
