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
    r"""Draw samples of the gamma distribution with unit scale.

    The density is :math:`f(x) = x^{a - 1} e^{-x} / \Gamma(a)` for :math:`x > 0`.

    Gradients with respect to ``a`` are implicit (through the CDF), as in JAX.

    Args:
      key: the PRNG key to consume.
      a: the shape parameter :math:`a > 0`, a float or float array.
      shape: result shape, broadcast-compatible with ``a``; ``None`` (the
        default) means their broadcast shape.
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> bool((jax.random.gamma(jax.random.key(0), 2.0, (4,)) > 0).all())
      True
    """
    key, _ = check_prng_key("gamma", key)
    dtype = _float_dtype(dtype, "gamma")
    if shape is not None:
        shape = canonicalize_shape(shape)
    return _gamma(key, a, shape=shape, dtype=dtype)


def loggamma(key, a, shape=None, dtype=None, *, out_sharding=None):
    """Draw the logarithms of gamma samples.

    Sampling in log space keeps small shape parameters, whose gamma samples underflow to zero, accurate.

    Args:
      key: the PRNG key to consume.
      a: the shape parameter :math:`a > 0`, a float or float array.
      shape: result shape, broadcast-compatible with ``a``; ``None`` (the
        default) means their broadcast shape.
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> jax.random.loggamma(jax.random.key(0), 0.1, (3,)).shape
      (3,)
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
    """Draw samples of the beta distribution on ``[0, 1]``.

    The density is proportional to :math:`x^{a - 1} (1 - x)^{b - 1}`.

    Args:
      key: the PRNG key to consume.
      a: first shape parameter, a float or float array.
      b: second shape parameter, likewise.
      shape: result shape, broadcast-compatible with ``a`` and ``b``; ``None`` (the
        default) means their broadcast shape.
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> x = jax.random.beta(jax.random.key(0), 2.0, 3.0, (4,))
      >>> bool(((x >= 0) & (x <= 1)).all())
      True
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
    r"""Draw probability vectors from the Dirichlet distribution.

    The density on the simplex is proportional to :math:`\prod_i x_i^{\alpha_i - 1}`.

    Args:
      key: the PRNG key to consume.
      alpha: concentrations, an array of shape ``(..., n)``.
      shape: batch shape of the result, broadcast-compatible with ``alpha.shape[:-1]``;
        ``None`` (the default) means ``alpha.shape[:-1]``.
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of shape ``(*shape, n)`` whose last axis sums to one.

    Example:
      >>> import pyjax as jax
      >>> import pyjax.numpy as jnp
      >>> jax.random.dirichlet(jax.random.key(0), jnp.ones(3), (2,)).shape
      (2, 3)
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
    r"""Draw samples of the chi-square distribution with ``df`` degrees of freedom.

    The density is proportional to :math:`x^{\nu/2 - 1} e^{-x/2}` for :math:`x > 0`, with :math:`\nu` = ``df``.

    Args:
      key: the PRNG key to consume.
      df: degrees of freedom, a float or float array.
      shape: result shape, broadcast-compatible with ``df``; ``None`` (the
        default) means their broadcast shape.
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> bool((jax.random.chisquare(jax.random.key(0), 3.0, (4,)) > 0).all())
      True
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
    """Draw samples of the F distribution.

    A sample is the ratio of two chi-square samples, each divided by its degrees of freedom.

    Args:
      key: the PRNG key to consume.
      dfnum: degrees of freedom of the numerator.
      dfden: degrees of freedom of the denominator.
      shape: result shape, broadcast-compatible with ``dfnum`` and ``dfden``; ``None`` (the
        default) means their broadcast shape.
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> jax.random.f(jax.random.key(0), 2.0, 5.0, (3,)).shape
      (3,)
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
    r"""Draw samples of Student's t distribution with ``df`` degrees of freedom.

    The density is proportional to :math:`(1 + x^2 / \nu)^{-(\nu + 1)/2}`, with :math:`\nu` = ``df``.

    Args:
      key: the PRNG key to consume.
      df: degrees of freedom, a float or float array.
      shape: result shape, broadcast-compatible with ``df``; ``None`` (the
        default) means their broadcast shape.
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> jax.random.t(jax.random.key(0), 4.0, (3,)).shape
      (3,)
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
    """Draw samples of the generalized normal distribution.

    The density is proportional to :math:`e^{-|x|^p}`; ``p = 2`` is a scaled normal and ``p = 1`` a Laplace.

    Args:
      key: the PRNG key to consume.
      p: the shape parameter :math:`p > 0`.
      shape: result shape (default ``()``).
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of the requested shape and dtype.

    Example:
      >>> import pyjax as jax
      >>> jax.random.generalized_normal(jax.random.key(0), 1.5, (3,)).shape
      (3,)
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
    """Draw points uniformly from the unit ball of the ``p``-norm in ``d`` dimensions.

    The construction follows Barthe, Guedon, Mendelson and Naor (https://arxiv.org/abs/math/0503650).

    Args:
      key: the PRNG key to consume.
      d: the dimension, a nonnegative integer.
      p: the norm's exponent (default 2).
      shape: batch shape of the result (default ``()``).
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of shape ``(*shape, d)``.

    Example:
      >>> import pyjax as jax
      >>> jax.random.ball(jax.random.key(0), 3, shape=(5,)).shape
      (5, 3)
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

