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
from pyjax._src.numpy import ufuncs as jnp_ufuncs
from pyjax._src.numpy.creation import array, asarray
from pyjax._src.numpy.reductions import sum as jnp_sum
from pyjax._src.numpy.shape_ops import broadcast_to
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


def float_sampler_args(name: str, key, dtype, shape, *params):
    """Validate the inputs every float sampler with array parameters shares.

    The key must be valid, ``dtype`` floating, ``shape`` broadcast-compatible
    with the parameters and the parameters castable to ``dtype``; returns
    ``(key, dtype, shape)``.
    """
    key, _ = check_prng_key(name, key)
    dtype = _float_dtype(dtype, name)
    shape = check_broadcast_shapes(name, shape, *params)
    _check_all_safe_to_cast(name, dtype, *params)
    return key, dtype, shape


def plain_float_sampler_args(name: str, key, dtype, shape):
    """Validate the inputs of a float sampler without array parameters: the
    key, a floating ``dtype`` and a static ``shape``; returns
    ``(key, dtype, shape)``."""
    key, _ = check_prng_key(name, key)
    return key, _float_dtype(dtype, name), canonicalize_shape(shape)


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
    """Draw floats uniformly from ``[minval, maxval)``.

    Args:
      key: the PRNG key to consume.
      shape: result shape (default ``()``).
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).
      minval: inclusive lower bound, broadcast-compatible with ``shape`` (default 0).
      maxval: exclusive upper bound, likewise (default 1).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> x = jax.random.uniform(jax.random.key(0), (3,), minval=2.0, maxval=4.0)
      >>> bool(((x >= 2) & (x < 4)).all())
      True
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
    r"""Draw samples of the standard normal distribution.

    The density is :math:`f(x) = e^{-x^2/2} / \sqrt{2\pi}`; complex dtypes draw the real and imaginary parts independently, each with variance one half.

    Args:
      key: the PRNG key to consume.
      shape: result shape (default ``()``).
      dtype: floating or complex result dtype (default: the default float dtype).

    Returns:
      An array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> jax.random.normal(jax.random.key(0), (2, 2)).shape
      (2, 2)
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




# ---------------------------------------------------------------------------
# Transformations of one uniform draw


def truncated_normal(key, lower, upper, shape=None, dtype=None, *, out_sharding=None):
    """Draw standard normal samples restricted to ``(lower, upper)``.

    The density is proportional to :math:`e^{-x^2/2}` between the bounds and zero outside.

    Args:
      key: the PRNG key to consume.
      lower: lower bound, a float or float array.
      upper: upper bound, broadcast-compatible with ``lower``.
      shape: result shape, broadcast-compatible with ``lower`` and ``upper``; ``None`` (the
        default) means their broadcast shape.
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> x = jax.random.truncated_normal(jax.random.key(0), -1.0, 1.0, (5,))
      >>> bool((abs(x) < 1).all())
      True
    """
    if shape is not None:
        shape = canonicalize_shape(shape)
    key, _ = check_prng_key("truncated_normal", key)
    dtype = _float_dtype(dtype, "truncated_normal")
    return _truncated_normal(key, lower, upper, shape, dtype)


@jit(static_argnums=(3, 4))
def _truncated_normal(key, lower, upper, shape, dtype):
    from pyjax._src.numpy.shape_ops import broadcast_shapes

    if shape is None:
        shape = tuple(broadcast_shapes(shape_of(lower), shape_of(upper)))
    else:
        check_shape("truncated_normal", shape, shape_of(lower), shape_of(upper))
    sqrt2 = np.array(np.sqrt(2), dtype)
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    # Uniform in [erf(lower/sqrt2), erf(upper/sqrt2)), mapped back by the inverse CDF.
    a = lax_special.erf(lower / sqrt2)
    b = lax_special.erf(upper / sqrt2)
    u = uniform(key, shape, dtype, minval=a, maxval=b)
    out = sqrt2 * lax_special.erf_inv(u)
    # Rounding (or drawing `a` itself) may land on a bound: clamp into the open interval.
    return clip(out,
                lax.nextafter(lax.stop_gradient(lower), np.array(np.inf, dtype=dtype)),
                lax.nextafter(lax.stop_gradient(upper), np.array(-np.inf, dtype=dtype)))


def exponential(key, shape=(), dtype=None, *, out_sharding=None):
    r"""Draw samples of the unit-rate exponential distribution.

    The density is :math:`f(x) = e^{-x}` for :math:`x \ge 0`.

    Args:
      key: the PRNG key to consume.
      shape: result shape (default ``()``).
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> bool((jax.random.exponential(jax.random.key(0), (4,)) >= 0).all())
      True
    """
    key, dtype, shape = plain_float_sampler_args("exponential", key, dtype, shape)
    return _exponential(key, shape, dtype)


@jit(static_argnums=(1, 2))
def _exponential(key, shape, dtype):
    check_shape("exponential", shape)
    u = uniform(key, shape, dtype)
    # log1p(-u) with u in [0, 1): the argument of the log stays in (0, 1].
    return lax.neg(lax.log1p(lax.neg(u)))


def cauchy(key, shape=(), dtype=None, *, out_sharding=None):
    r"""Draw samples of the standard Cauchy distribution.

    The density is :math:`f(x) = 1 / (\pi (1 + x^2))`.

    Args:
      key: the PRNG key to consume.
      shape: result shape (default ``()``).
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> jax.random.cauchy(jax.random.key(0), (3,)).shape
      (3,)
    """
    key, dtype, shape = plain_float_sampler_args("cauchy", key, dtype, shape)
    return _cauchy(key, shape, dtype)


@jit(static_argnums=(1, 2))
def _cauchy(key, shape, dtype):
    check_shape("cauchy", shape)
    u = uniform(key, shape, dtype, minval=dtypes.finfo(dtype).eps, maxval=1.0)
    pi = const(u, np.pi)
    return lax.tan(lax.mul(pi, lax.sub(u, const(u, 0.5))))


def laplace(key, shape=(), dtype=None, *, out_sharding=None):
    """Draw samples of the standard Laplace distribution.

    The density is :math:`f(x) = e^{-|x|} / 2`.

    Args:
      key: the PRNG key to consume.
      shape: result shape (default ``()``).
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> jax.random.laplace(jax.random.key(0), (3,)).shape
      (3,)
    """
    key, dtype, shape = plain_float_sampler_args("laplace", key, dtype, shape)
    return _laplace(key, shape, dtype)


@jit(static_argnums=(1, 2))
def _laplace(key, shape, dtype):
    check_shape("laplace", shape)
    u = uniform(key, shape, dtype, minval=-1.0 + dtypes.finfo(dtype).epsneg, maxval=1.0)
    return lax.mul(lax.sign(u), lax.log1p(lax.neg(lax.abs(u))))


def logistic(key, shape=(), dtype=None, *, out_sharding=None):
    """Draw samples of the standard logistic distribution.

    The density is :math:`f(x) = e^{-x} / (1 + e^{-x})^2`.

    Args:
      key: the PRNG key to consume.
      shape: result shape (default ``()``).
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> jax.random.logistic(jax.random.key(0), (3,)).shape
      (3,)
    """
    key, dtype, shape = plain_float_sampler_args("logistic", key, dtype, shape)
    return _logistic(key, shape, dtype)


@jit(static_argnums=(1, 2))
def _logistic(key, shape, dtype):
    check_shape("logistic", shape)
    x = uniform(key, shape, dtype, minval=dtypes.finfo(dtype).tiny, maxval=1.0)
    return lax.sub(lax.log(x), lax.log1p(lax.neg(x)))


def pareto(key, b, shape=None, dtype=None, *, out_sharding=None):
    r"""Draw samples of the Pareto distribution with shape parameter ``b``.

    The density is :math:`f(x) = b / x^{b + 1}` for :math:`x \ge 1`.

    Args:
      key: the PRNG key to consume.
      b: the shape parameter, a float or float array.
      shape: result shape, broadcast-compatible with ``b``; ``None`` (the
        default) means their broadcast shape.
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> bool((jax.random.pareto(jax.random.key(0), 3.0, (4,)) >= 1).all())
      True
    """
    key, dtype, shape = float_sampler_args("pareto", key, dtype, shape, b)
    return _pareto(key, b, shape, dtype)


@jit(static_argnums=(2, 3))
def _pareto(key, b, shape, dtype):
    b = lax.convert_element_type(b, dtype)
    e = exponential(key, shape, dtype)
    return lax.exp(e / b)


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    r"""Draw samples of the Weibull distribution.

    The density is proportional to :math:`x^{c - 1} e^{-(x / \sigma)^c}` for :math:`x > 0`, with scale :math:`\sigma` and concentration :math:`c`.

    Args:
      key: the PRNG key to consume.
      scale: the scale :math:`\sigma > 0`.
      concentration: the concentration :math:`c > 0`.
      shape: result shape, broadcast against the parameters (default ``()``).
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> jax.random.weibull_min(jax.random.key(0), 1.0, 2.0, (3,)).shape
      (3,)
    """
    key, dtype, shape = plain_float_sampler_args("weibull_min", key, dtype, shape)
    return _weibull_min(key, scale, concentration, shape, dtype)


@jit(static_argnums=(3, 4))
def _weibull_min(key, scale, concentration, shape, dtype):
    random_uniform = uniform(key=key, shape=shape, minval=0, maxval=1, dtype=dtype)
    # The inverse of the Weibull CDF.
    return jnp_ufuncs.power(-jnp_ufuncs.log1p(-random_uniform), 1.0 / concentration) * scale


def triangular(key, left, mode, right, shape=None, dtype=None, *, out_sharding=None):
    """Draw samples of the triangular distribution on ``[left, right]``.

    The density rises linearly from ``left`` to its peak at ``mode`` and falls linearly to ``right``.

    Args:
      key: the PRNG key to consume.
      left: lower end of the support.
      mode: the peak, with ``left <= mode <= right``.
      right: upper end of the support.
      shape: result shape, broadcast-compatible with the three parameters; ``None`` (the
        default) means their broadcast shape.
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> x = jax.random.triangular(jax.random.key(0), 0.0, 0.5, 1.0, (4,))
      >>> bool(((x >= 0) & (x <= 1)).all())
      True
    """
    key, dtype, shape = float_sampler_args("triangular", key, dtype, shape, left, mode, right)
    return _triangular(key, left, mode, right, shape, dtype)


@jit(static_argnums=(4, 5), inline=True)
def _triangular(key, left, mode, right, shape, dtype):
    # Inverse-CDF sampling: the CDF is quadratic on each side of the mode.
    left = broadcast_to(lax.convert_element_type(left, dtype), shape)
    right = broadcast_to(lax.convert_element_type(right, dtype), shape)
    mode = broadcast_to(lax.convert_element_type(mode, dtype), shape)
    fc = (mode - left) / (right - left)
    u = uniform(key, shape, dtype)
    out1 = left + lax.sqrt(u * (right - left) * (mode - left))
    out2 = right - lax.sqrt((1 - u) * (right - left) * (right - mode))
    return lax.select(u < fc, out1, out2)


def lognormal(key, sigma=np.float32(1), shape=None, dtype=None, *, out_sharding=None):
    r"""Draw samples whose logarithm is normal with standard deviation ``sigma``.

    The density is :math:`f(x) = e^{-(\log x)^2 / (2\sigma^2)} / (x \sigma \sqrt{2\pi})` for :math:`x > 0`.

    Args:
      key: the PRNG key to consume.
      sigma: standard deviation of the underlying normal (default 1).
      shape: result shape, broadcast-compatible with ``sigma``; ``None`` (the
        default) means their broadcast shape.
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> bool((jax.random.lognormal(jax.random.key(0), shape=(4,)) > 0).all())
      True
    """
    key, _ = check_prng_key("lognormal", key)
    dtype = _float_dtype(dtype, "lognormal", allow_complex=True)
    shape = check_broadcast_shapes("lognormal", shape, sigma)
    _check_all_safe_to_cast("lognormal", dtype, sigma)
    return _lognormal(key, sigma, shape, dtype)


@jit(static_argnums=(2, 3), inline=True)
def _lognormal(key, sigma, shape, dtype):
    sigma = lax.convert_element_type(sigma, dtype)
    scaled_norm = normal(key, shape, dtype) * sigma
    return lax.exp(scaled_norm)


def rayleigh(key, scale, shape=None, dtype=None, *, out_sharding=None):
    r"""Draw samples of the Rayleigh distribution.

    The density is :math:`f(x) = (x / \sigma^2) e^{-x^2 / (2\sigma^2)}` for :math:`x \ge 0`.

    Args:
      key: the PRNG key to consume.
      scale: the scale :math:`\sigma > 0`, a float or float array.
      shape: result shape, broadcast-compatible with ``scale``; ``None`` (the
        default) means their broadcast shape.
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> jax.random.rayleigh(jax.random.key(0), 1.0, (3,)).shape
      (3,)
    """
    key, dtype, shape = float_sampler_args("rayleigh", key, dtype, shape, scale)
    return _rayleigh(key, scale, shape, dtype)


@jit(static_argnums=(2, 3))
def _rayleigh(key, scale, shape, dtype):
    u = uniform(key, shape, dtype)
    scale = asarray(scale).astype(dtype)
    scale = broadcast_to(scale, shape)
    log_u = lax.log(u)
    n_two = const(scale, -2)
    sqrt_u = lax.sqrt(lax.mul(log_u, n_two))
    return lax.mul(scale, sqrt_u)


def wald(key, mean, shape=None, dtype=None, *, out_sharding=None):
    r"""Draw samples of the Wald (inverse Gaussian) distribution with unit shape.

    The density is :math:`f(x) = e^{-(x - \mu)^2 / (2 \mu^2 x)} / \sqrt{2 \pi x^3}` for :math:`x > 0`.

    Args:
      key: the PRNG key to consume.
      mean: the mean :math:`\mu > 0`, a float or float array.
      shape: result shape, broadcast-compatible with ``mean``; ``None`` (the
        default) means their broadcast shape.
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> bool((jax.random.wald(jax.random.key(0), 1.0, (4,)) > 0).all())
      True
    """
    key, dtype, shape = float_sampler_args("wald", key, dtype, shape, mean)
    return _wald(key, mean, shape, dtype)


@jit(static_argnums=(2, 3))
def _wald(key, mean, shape, dtype):
    # Michael, Schucany and Haas: a normal and a uniform give one variate.
    k1, k2 = split_typed(key, 2)
    mean = asarray(mean).astype(dtype)
    mean = broadcast_to(mean, shape)
    v = normal(k1, shape, dtype)
    z = uniform(k2, shape, dtype)
    y = lax.integer_pow(v, 2)
    y_sq = lax.integer_pow(y, 2)
    mean_sq = lax.integer_pow(mean, 2)
    sqrt_term = lax.sqrt(4 * mean * y + mean_sq * y_sq)
    x = mean + mean_sq * y / 2 - mean / 2 * sqrt_term
    return lax.select(lax.le(z, mean / (mean + x)), x, mean_sq / x)


def maxwell(key, shape=(), dtype=None, *, out_sharding=None):
    r"""Draw samples of the one-sided Maxwell distribution.

    The density is proportional to :math:`x^2 e^{-x^2 / 2}` for :math:`x \ge 0`: the length of a standard normal 3-vector.

    Args:
      key: the PRNG key to consume.
      shape: result shape (default ``()``).
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> bool((jax.random.maxwell(jax.random.key(0), (4,)) >= 0).all())
      True
    """
    # The norm of three independent standard normals.
    key, dtype, shape = plain_float_sampler_args("maxwell", key, dtype, shape)
    return _maxwell(key, shape, dtype, None)


@jit(static_argnums=(1, 2, 3))
def _maxwell(key, shape, dtype, out_sharding):
    norm_rvs = normal(key=key, shape=shape + (3,), dtype=dtype)
    return norm(norm_rvs)


@jit
def norm(x):
    """``jnp.linalg.norm(x, axis=-1)`` for a real ``x``: the 2-norm of the last axis."""
    return jnp_ufuncs.sqrt(jnp_sum(x * x, axis=-1))


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    r"""Draw samples of the two-sided Maxwell distribution.

    With :math:`z = (x - \mu) / \sigma` the density is proportional to :math:`z^2 e^{-z^2 / 2}`.

    Args:
      key: the PRNG key to consume.
      loc: the centre :math:`\mu`.
      scale: the scale :math:`\sigma`.
      shape: result shape, broadcast against the parameters (default ``()``).
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> jax.random.double_sided_maxwell(jax.random.key(0), 0.0, 1.0, (3,)).shape
      (3,)
    """
    key, dtype, shape = plain_float_sampler_args("double_sided_maxwell", key, dtype, shape)
    return _double_sided_maxwell(key, loc, scale, shape, dtype)


@jit(static_argnums=(3, 4))
def _double_sided_maxwell(key, loc, scale, shape, dtype):
    from pyjax._src.numpy.shape_ops import broadcast_shapes
    from pyjax._src.random.discrete import (
        rademacher,  # (discrete samplers build on uniform)
    )

    params_shapes = tuple(broadcast_shapes(shape_of(loc), shape_of(scale)))
    if not shape:
        shape = params_shapes
    shape = shape + params_shapes
    maxwell_key, rademacher_key = split_typed(key)
    maxwell_rvs = maxwell(maxwell_key, shape=shape, dtype=dtype)
    # Random signs make the one-sided variates symmetric.
    random_sign = rademacher(rademacher_key, shape=shape, dtype=dtype)
    return random_sign * maxwell_rvs * scale + loc


__all__ = [
    "cauchy", "double_sided_maxwell", "exponential", "laplace", "logistic", "lognormal", "maxwell",
    "normal", "pareto", "rayleigh", "triangular", "truncated_normal", "uniform", "wald", "weibull_min",
]

