"""The gamma sampler and the distributions built on it: gamma, loggamma,
beta, dirichlet, chisquare, f, t, generalized_normal and ball.

Gamma variates come from Marsaglia and Tsang's rejection method ("A simple
method for generating gamma variables", 2000), one independent loop per
element. As in JAX, the loop is hidden inside one primitive,
``random_gamma[log_space=...]`` (defined with the other key primitives in
prng.py): each backend runs the loops its own way (the NumPy backend runs
all elements' loops at once, each element drawing from its own key).
"""

from __future__ import annotations

from pyjax._src import dtypes
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax
from pyjax._src.nn.functions import softmax
from pyjax._src.numpy import ufuncs as jnp_ufuncs
from pyjax._src.numpy.shape_ops import broadcast_to
from pyjax._src.random.discrete import _concrete_int, rademacher
from pyjax._src.random.distributions import (
    float_sampler_args,
    _check_all_safe_to_cast,
    _float_dtype,
    check_broadcast_shapes,
    exponential,
    normal,
)
from pyjax._src.random.keys import (
    canonicalize_shape,
    check_prng_key,
    check_shape,
    split_typed,
)
from pyjax._src.random.numpy_ops import const, shape_of
from pyjax._src.random.prng import random_gamma_p

# ---------------------------------------------------------------------------
# gamma, loggamma


def gamma(key, a, shape=None, dtype=None, *, out_sharding=None):
    r"""Sample Gamma random values with given shape and float dtype.

    The values are distributed according to the probability density function:

    .. math::
       f(x;a) \propto x^{a - 1} e^{-x}

    on the domain :math:`0 \le x < \infty`, with :math:`a > 0`.

    This is the standard gamma density, with a unit scale/rate parameter.
    Dividing the sample output by the rate is equivalent to sampling from
    *gamma(a, rate)*, and multiplying the sample output by the scale is equivalent
    to sampling from *gamma(a, scale)*.

    Args:
      key: a PRNG key used as the random key.
      a: a float or array of floats broadcast-compatible with ``shape``
        representing the parameter of the distribution.
      shape: optional, a tuple of nonnegative integers specifying the result
        shape. Must be broadcast-compatible with ``a``. The default (None)
        produces a result shape equal to ``a.shape``.
      dtype: optional, a float dtype for the returned values (default float64 if
        jax_enable_x64 is true, otherwise float32).

    Returns:
      A random array with the specified dtype and with shape given by ``shape`` if
      ``shape`` is not None, or else by ``a.shape``.

    See Also:
      loggamma : sample gamma values in log-space, which can provide improved
        accuracy for small values of ``a``.
    """
    key, _ = check_prng_key("gamma", key)
    dtype = _float_dtype(dtype, "gamma")
    if shape is not None:
        shape = canonicalize_shape(shape)
    return _gamma(key, a, shape=shape, dtype=dtype)


def loggamma(key, a, shape=None, dtype=None, *, out_sharding=None):
    """Sample log-gamma random values with given shape and float dtype.

    ``exp(loggamma(*args))`` equals ``gamma(*args)`` up to rounding; for samples
    very close to zero (frequent when ``a << 1``) the log-space values keep
    precision that the samples themselves lose.

    Args:
      key: a PRNG key used as the random key.
      a: a float or array of floats broadcast-compatible with ``shape``
        representing the parameter of the distribution.
      shape: optional, a tuple of nonnegative integers specifying the result
        shape. Must be broadcast-compatible with ``a``. The default (None)
        produces a result shape equal to ``a.shape``.
      dtype: optional, a float dtype for the returned values (default float64 if
        jax_enable_x64 is true, otherwise float32).

    Returns:
      A random array with the specified dtype and with shape given by ``shape`` if
      ``shape`` is not None, or else by ``a.shape``.
    """
    key, _ = check_prng_key("loggamma", key)
    dtype = _float_dtype(dtype, "gamma")
    if shape is not None:
        shape = canonicalize_shape(shape)
    return _gamma(key, a, shape=shape, dtype=dtype, log_space=True)


@jit(static_argnames=("shape", "dtype", "log_space"))
def _gamma(key, a, shape, dtype, log_space=False):
    if shape is None:
        shape = shape_of(a)
    else:
        check_shape("gamma", shape, shape_of(a))
    a = lax.convert_element_type(a, dtype)
    if shape_of(a) != shape:
        a = broadcast_to(a, shape)
    return random_gamma_p.bind(key, a, log_space=log_space)


# ---------------------------------------------------------------------------
# Distributions made of gamma variates


def beta(key, a, b, shape=None, dtype=None, *, out_sharding=None):
    r"""Sample Beta random values with given shape and float dtype.

    The values are distributed according to the probability density function:

    .. math::
       f(x;a,b) \propto x^{a - 1}(1 - x)^{b - 1}

    on the domain :math:`0 \le x \le 1`.

    Args:
      key: a PRNG key used as the random key.
      a: a float or array of floats broadcast-compatible with ``shape``
        representing the first parameter "alpha".
      b: a float or array of floats broadcast-compatible with ``shape``
        representing the second parameter "beta".
      shape: optional, a tuple of nonnegative integers specifying the result
        shape. Must be broadcast-compatible with ``a`` and ``b``. The default
        (None) produces a result shape by broadcasting ``a`` and ``b``.
      dtype: optional, a float dtype for the returned values (default float64 if
        jax_enable_x64 is true, otherwise float32).

    Returns:
      A random array with the specified dtype and shape given by ``shape`` if
      ``shape`` is not None, or else by broadcasting ``a`` and ``b``.
    """
    key, _ = check_prng_key("beta", key)
    dtype = _float_dtype(dtype, "beta")
    _check_all_safe_to_cast("beta", dtype, a, b)
    shape = check_broadcast_shapes("beta", shape, a, b)
    return _beta(key, a, b, shape, dtype)


@jit(static_argnums=(3, 4))
def _beta(key, a, b, shape, dtype):
    check_shape("beta", shape, shape_of(a), shape_of(b))
    a = lax.convert_element_type(a, dtype)
    b = lax.convert_element_type(b, dtype)
    key_a, key_b = split_typed(key)
    a = broadcast_to(a, shape)
    b = broadcast_to(b, shape)
    log_gamma_a = loggamma(key_a, a, shape, dtype)
    log_gamma_b = loggamma(key_b, b, shape, dtype)
    # gamma_a / (gamma_a + gamma_b), scaled by the larger so neither underflows.
    log_max = lax.max(log_gamma_a, log_gamma_b)
    gamma_a_scaled = jnp_ufuncs.exp(log_gamma_a - log_max)
    gamma_b_scaled = jnp_ufuncs.exp(log_gamma_b - log_max)
    return gamma_a_scaled / (gamma_a_scaled + gamma_b_scaled)


def dirichlet(key, alpha, shape=None, dtype=None, *, out_sharding=None):
    r"""Sample Dirichlet random values with given shape and float dtype.

    The values are distributed according to the probability density function:

    .. math::
       f(\{x_i\}; \{\alpha_i\}) \propto \prod_{i=1}^k x_i^{\alpha_i - 1}

    Where :math:`k` is the dimension, and :math:`\{x_i\}` satisfies

    .. math::
       \sum_{i=1}^k x_i = 1

    and :math:`0 \le x_i \le 1` for all :math:`x_i`.

    Args:
      key: a PRNG key used as the random key.
      alpha: an array of shape ``(..., n)`` used as the concentration
        parameter of the random variables.
      shape: optional, a tuple of nonnegative integers specifying the result
        batch shape; that is, the prefix of the result shape excluding the last
        element of value ``n``. Must be broadcast-compatible with
        ``alpha.shape[:-1]``. The default (None) produces a result shape equal to
        ``alpha.shape``.
      dtype: optional, a float dtype for the returned values (default float64 if
        jax_enable_x64 is true, otherwise float32).

    Returns:
      A random array with the specified dtype and shape given by
      ``shape + (alpha.shape[-1],)`` if ``shape`` is not None, or else
      ``alpha.shape``.
    """
    key, _ = check_prng_key("dirichlet", key)
    dtype = _float_dtype(dtype, "dirichlet")
    if shape is not None:
        shape = canonicalize_shape(shape)
    return _dirichlet(key, alpha, shape, dtype)


@jit(static_argnums=(2, 3))
def _dirichlet(key, alpha, shape, dtype):
    if not len(shape_of(alpha)) >= 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {len(shape_of(alpha))}")
    if shape is None:
        shape = shape_of(alpha)[:-1]
    else:
        check_shape("dirichlet", shape, shape_of(alpha)[:-1])
    alpha = lax.convert_element_type(alpha, dtype)
    # Gamma variates in log space (small alpha underflows), normalised by softmax.
    log_gamma_samples = loggamma(key, alpha, shape + shape_of(alpha)[-1:], dtype)
    return softmax(log_gamma_samples, -1)


def chisquare(key, df, shape=None, dtype=None, *, out_sharding=None):
    r"""Sample Chisquare random values with given shape and float dtype.

    The values are distributed according to the probability density function:

    .. math::
       f(x; \nu) \propto x^{\nu/2 - 1}e^{-x/2}

    on the domain :math:`0 < x < \infty`, where :math:`\nu > 0` represents the
    degrees of freedom, given by the parameter ``df``.

    Args:
      key: a PRNG key used as the random key.
      df: a float or array of floats broadcast-compatible with ``shape``
        representing the parameter of the distribution.
      shape: optional, a tuple of nonnegative integers specifying the result
        shape. Must be broadcast-compatible with ``df``. The default (None)
        produces a result shape equal to ``df.shape``.
      dtype: optional, a float dtype for the returned values (default float64 if
        jax_enable_x64 is true, otherwise float32).

    Returns:
      A random array with the specified dtype and with shape given by ``shape`` if
      ``shape`` is not None, or else by ``df.shape``.
    """
    key, dtype, shape = float_sampler_args("chisquare", key, dtype, shape, df)
    return _chisquare(key, df, shape, dtype, None)


@jit(static_argnums=(2, 3, 4))
def _chisquare(key, df, shape, dtype, out_sharding):
    df = lax.convert_element_type(df, dtype)
    two = const(df, 2)
    half_df = lax.div(df, two)
    log_g = loggamma(key, a=half_df, shape=shape, dtype=dtype)
    return lax.mul(jnp_ufuncs.exp(log_g), two)


def f(key, dfnum, dfden, shape=None, dtype=None, *, out_sharding=None):
    r"""Sample F-distribution random values with given shape and float dtype.

    The values are distributed according to the probability density function:

    .. math::
       f(x; \nu_1, \nu_2) \propto x^{\nu_1/2 - 1}\left(1 + \frac{\nu_1}{\nu_2}x\right)^{
        -(\nu_1 + \nu_2) / 2}

    on the domain :math:`0 < x < \infty`. Here :math:`\nu_1` is the degrees of
    freedom of the numerator (``dfnum``), and :math:`\nu_2` is the degrees of
    freedom of the denominator (``dfden``).

    Args:
      key: a PRNG key used as the random key.
      dfnum: a float or array of floats broadcast-compatible with ``shape``
        representing the numerator's ``df`` of the distribution.
      dfden: a float or array of floats broadcast-compatible with ``shape``
        representing the denominator's ``df`` of the distribution.
      shape: optional, a tuple of nonnegative integers specifying the result
        shape. Must be broadcast-compatible with ``dfnum`` and ``dfden``.
        The default (None) produces a result shape equal to ``dfnum.shape``,
        and ``dfden.shape``.
      dtype: optional, a float dtype for the returned values (default float64 if
        jax_enable_x64 is true, otherwise float32).

    Returns:
      A random array with the specified dtype and with shape given by ``shape`` if
      ``shape`` is not None, or else by ``df.shape``.
    """
    key, dtype, shape = float_sampler_args("f", key, dtype, shape, dfnum, dfden)
    return _f(key, dfnum, dfden, shape, dtype, None)


@jit(static_argnums=(3, 4, 5))
def _f(key, dfnum, dfden, shape, dtype, out_sharding):
    dfden = lax.convert_element_type(dfden, dtype)
    dfnum = lax.convert_element_type(dfnum, dtype)
    key_dfd, key_dfn = split_typed(key)
    chi2_dfn = chisquare(key_dfn, dfnum, shape, dtype)
    chi2_dfd = chisquare(key_dfd, dfden, shape, dtype)
    num = lax.div(chi2_dfn, dfnum)
    den = lax.div(chi2_dfd, dfden)
    return lax.div(num, den)


def t(key, df, shape=None, dtype=None, *, out_sharding=None):
    r"""Sample Student's t random values with given shape and float dtype.

    The values are distributed according to the probability density function:

    .. math::
       f(t; \nu) \propto \left(1 + \frac{t^2}{\nu}\right)^{-(\nu + 1)/2}

    Where :math:`\nu > 0` is the degrees of freedom, given by the parameter ``df``.

    Args:
      key: a PRNG key used as the random key.
      df: a float or array of floats broadcast-compatible with ``shape``
        representing the degrees of freedom parameter of the distribution.
      shape: optional, a tuple of nonnegative integers specifying the result
        shape. Must be broadcast-compatible with ``df``. The default (None)
        produces a result shape equal to ``df.shape``.
      dtype: optional, a float dtype for the returned values (default float64 if
        jax_enable_x64 is true, otherwise float32).

    Returns:
      A random array with the specified dtype and with shape given by ``shape`` if
      ``shape`` is not None, or else by ``df.shape``.
    """
    key, dtype, shape = float_sampler_args("t", key, dtype, shape, df)
    return _t(key, df, shape, dtype)


@jit(static_argnums=(2, 3))
def _t(key, df, shape, dtype):
    check_shape("t", shape, shape_of(df))
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = split_typed(key)
    n = normal(key_n, shape, dtype)
    two = const(n, 2)
    half_df = lax.div(df, two)
    g = gamma(key_g, half_df, shape, dtype)
    return n * jnp_ufuncs.sqrt(half_df / g)


def generalized_normal(key, p, shape=(), dtype=None, *, out_sharding=None):
    r"""Sample from the generalized normal distribution.

    The values are returned according to the probability density function:

    .. math::
       f(x;p) \propto e^{-|x|^p}

    on the domain :math:`-\infty < x < \infty`, where :math:`p > 0` is the
    shape parameter.

    Args:
      key: a PRNG key used as the random key.
      p: a float representing the shape parameter.
      shape: optional, the batch dimensions of the result. Default ().
      dtype: optional, a float dtype for the returned values (default float64 if
        jax_enable_x64 is true, otherwise float32).

    Returns:
      A random array with the specified shape and dtype.
    """
    shape = canonicalize_shape(shape)
    key, _ = check_prng_key("generalized_normal", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
    check_shape("generalized_normal", shape)
    return _generalized_normal(key, p, shape, dtype)


@jit(static_argnums=(2, 3))
def _generalized_normal(key, p, shape, dtype):
    # |x|**p ~ gamma(1/p), with a random sign.
    from pyjax._src.random.keys import split

    keys = split(key)
    g = gamma(keys[0], 1 / p, shape, dtype)
    r = rademacher(keys[1], shape, dtype)
    return r * g ** (1 / p)


def ball(key, d: int, p: float = 2, shape=(), dtype=None, *, out_sharding=None):
    """Sample uniformly from the unit Lp ball.

    Reference: Barthe, Guédon, Mendelson and Naor, https://arxiv.org/abs/math/0503650.

    Args:
      key: a PRNG key used as the random key.
      d: a nonnegative int representing the dimensionality of the ball.
      p: a float representing the p parameter of the Lp norm.
      shape: optional, the batch dimensions of the result. Default ().
      dtype: optional, a float dtype for the returned values (default float64 if
        jax_enable_x64 is true, otherwise float32).

    Returns:
      A random array of shape `(*shape, d)` and specified dtype.
    """
    shape = canonicalize_shape(shape)
    key, _ = check_prng_key("ball", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
    check_shape("ball", shape)
    d = _concrete_int(d, "The error occurred in jax.random.ball()")
    return _ball(key, p, d, shape, dtype)


@jit(static_argnums=(2, 3, 4))
def _ball(key, p, d, shape, dtype):
    from pyjax._src.random.keys import split

    k1, k2 = split(key)
    g = generalized_normal(k1, p, (*shape, d), dtype)
    e = exponential(k2, shape, dtype)
    return g / (((jnp_ufuncs.abs(g) ** p).sum(-1) + e) ** (1 / p))[..., None]


__all__ = ["ball", "beta", "chisquare", "dirichlet", "f", "gamma", "generalized_normal", "loggamma",
           "random_gamma_p", "t"]

