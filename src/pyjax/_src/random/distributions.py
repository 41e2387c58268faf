"""Continuous samplers built on uniform bits: uniform, normal and the
distributions that transform them.

Each sampler is split as in JAX: a public function that checks its
arguments and canonicalises the shape and dtype, and a jitted private
function (``_uniform``, ``_normal``, ...) with the shape and dtype static.
The split is visible: a jaxpr of ``normal`` holds a ``jit[name=_normal]``
equation wrapping ``jit[name=_normal_real]`` wrapping the shared
``_uniform`` — the same text as JAX 0.11 — and the same float operations in
the same order give the same bits.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax import special as lax_special
from pyjax._src.numpy.creation import array, asarray
from pyjax._src.random import prng
from pyjax._src.random.keys import (
    canonicalize_shape,
    check_prng_key,
    check_shape,
    random_bits,
    split_typed,
)
from pyjax._src.random.numpy_ops import broadcast_to_rank, clip, const, shape_of

UINT_DTYPES = prng.UINT_DTYPES


def _float_dtype(dtype, name: str, *, allow_complex: bool = False) -> np.dtype:
    # The samplers' default is the default float dtype (float64 with x64);
    # anything that is not a float is refused with JAX's message.
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
    kind = np.inexact if allow_complex else np.floating
    if not dtypes.issubdtype(dtype, kind):
        what = "a float or complex dtype" if allow_complex else "a float dtype"
        raise ValueError(f"dtype argument to `{name}` must be {what}, got {dtype}")
    return dtype


def _check_all_safe_to_cast(name: str, dtype, *args) -> None:
    for arg in args:
        if not dtypes.safe_to_cast(arg, dtype):
            raise dtypes.TypePromotionError(
                f"In arguments to {name}, cannot safely cast argument of type "
                f"{asarray(arg).dtype} to {dtype}")


def check_broadcast_shapes(name: str, shape, *args) -> tuple:
    """``shape`` canonicalised and checked against the parameters' shapes,
    or (when None) their broadcast shape."""
    from pyjax._src.numpy.shape_ops import broadcast_shapes

    arg_shapes = [shape_of(a) for a in args]
    if shape is None:
        return tuple(broadcast_shapes(*arg_shapes)) if arg_shapes else ()
    shape = canonicalize_shape(shape)
    check_shape(name, shape, *arg_shapes)
    return shape


# ---------------------------------------------------------------------------
# uniform


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0, *, out_sharding=None):
    """Sample uniform random values in [minval, maxval) with given shape/dtype.

    Args:
      key: a PRNG key used as the random key.
      shape: optional, a tuple of nonnegative integers representing the result
        shape. Default ().
      dtype: optional, a float dtype for the returned values (default float64 if
        jax_enable_x64 is true, otherwise float32).
      minval: optional, a minimum (inclusive) value broadcast-compatible with shape
        for the range (default 0).
      maxval: optional, a maximum (exclusive) value broadcast-compatible with shape
        for the range (default 1).

    Returns:
      A random array with the specified shape and dtype.
    """
    key, _ = check_prng_key("uniform", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
    shape = canonicalize_shape(shape)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"dtype argument to `uniform` must be a float dtype, got {dtype}")
    return _uniform(key, minval, maxval, shape=shape, dtype=dtype)


@jit(static_argnums=(3, 4))
def _uniform(key, minval, maxval, shape, dtype):
    check_shape("uniform", shape)
    if not dtypes.issubdtype(dtype, np.floating):
        raise TypeError("uniform only accepts floating point dtypes.")
    minval = lax.convert_element_type(minval, dtype)
    maxval = lax.convert_element_type(maxval, dtype)
    minval = broadcast_to_rank(minval, len(shape))
    maxval = broadcast_to_rank(maxval, len(shape))
    finfo = dtypes.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    if nbits not in (8, 16, 32, 64):
        raise TypeError(f"uniform only accepts 8-, 16-, 32-, or 64-bit dtypesgot {dtype}.")
    # Random mantissa bits under the exponent of 1.0 give a float in [1, 2);
    # subtracting 1 maps it to [0, 1) with every value equally likely.
    rng_bits = nbits if nmant >= 8 else 8
    bits = random_bits(key, rng_bits, shape)
    uint_dtype = UINT_DTYPES[nbits]
    if rng_bits != nbits:
        bits = lax.convert_element_type(bits, uint_dtype)
    float_bits = lax.shift_right_logical(bits, array(rng_bits - nmant, uint_dtype))
    one_bits = np.array(1.0, dtype).view(uint_dtype)
    float_bits = lax.bitwise_or(float_bits, asarray(one_bits, dtype=uint_dtype))
    floats = lax.bitcast_convert_type(float_bits, dtype) - array(1.0, dtype)
    return lax.max(minval, lax_shapes.reshape(floats * (maxval - minval) + minval, shape))


# ---------------------------------------------------------------------------
# normal


def normal(key, shape=(), dtype=None, *, out_sharding=None):
    r"""Sample standard normal random values with given shape and float dtype.

    The values are returned according to the probability density function:

    .. math::
       f(x) = \frac{1}{\sqrt{2\pi}}e^{-x^2/2}

    on the domain :math:`-\infty < x < \infty`. A complex dtype gives values
    whose real and imaginary parts are independent normals of variance 1/2.

    Args:
      key: a PRNG key used as the random key.
      shape: optional, a tuple of nonnegative integers representing the result
        shape. Default ().
      dtype: optional, a float dtype for the returned values (default float64 if
        jax_enable_x64 is true, otherwise float32).

    Returns:
      A random array with the specified shape and dtype.

    Example:
      >>> normal(key(0), (3,))
      Array([ 1.6226422 ,  2.0252647 , -0.43359444], dtype=float32)
    """
    key, _ = check_prng_key("normal", key)
    shape = canonicalize_shape(shape)
    dtype = _float_dtype(dtype, "normal", allow_complex=True)
    return _normal(key, shape, dtype)


@jit(static_argnums=(1, 2))
def _normal(key, shape, dtype):
    if dtypes.issubdtype(dtype, np.complexfloating):
        sqrt2 = np.array(np.sqrt(2), dtype)
        key_re, key_im = split_typed(key)
        real_dtype = np.array(0, dtype).real.dtype
        real = _normal_real(key_re, shape, real_dtype).astype(dtype)
        imag = _normal_real(key_im, shape, real_dtype).astype(dtype)
        return (real + 1j * imag) / sqrt2
    return _normal_real(key, shape, dtype)


@jit(static_argnums=(1, 2))
def _normal_real(key, shape, dtype):
    check_shape("normal", shape)
    # Inverse-CDF sampling on the open interval (-1, 1): erf_inv(-1) is -inf.
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype), dtype=dtype)
    hi = np.array(1.0, dtype)
    u = uniform(key, shape, dtype, lo, hi)
    return lax.mul(np.array(np.sqrt(2), dtype), lax_special.erf_inv(u))


__all__ = ["normal", "uniform"]

_ = (clip, const)  # used by the samplers added below
