"""Samplers that loop: poisson, binomial and multinomial.

Their rejection samplers run as ``lax.while_loop``: every element keeps
drawing until it is accepted, and the loop runs until all are (vectorised
across elements, one key split per iteration). Multinomial draws one
binomial per category with ``lax.scan``.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax import special as lax_special
from pyjax._src.lax.control_flow.loops import while_loop
from pyjax._src.lax.control_flow.scan import scan
from pyjax._src.lax.windowed import cumsum as lax_cumsum
from pyjax._src.numpy import ufuncs as jnp_ufuncs
from pyjax._src.numpy.creation import array, asarray, full, full_like, zeros_like
from pyjax._src.numpy.reductions import any as jnp_any
from pyjax._src.numpy.shape_ops import broadcast_shapes, broadcast_to, moveaxis
from pyjax._src.numpy.util import check_arraylike
from pyjax._src.numpy.where import where
from pyjax._src.random import threefry
from pyjax._src.random.distributions import uniform
from pyjax._src.random.keys import (
    canonicalize_shape,
    check_prng_key,
    check_shape,
    split,
    split_typed,
)
from pyjax._src.random.numpy_ops import clip, promote_dtypes_inexact, shape_of, take


def _full_like(x, fill_value, dtype=None, shape=None):
    # lax.full_like: a broadcast constant of x's dtype (or `dtype`) and shape.
    dtype = x.dtype if dtype is None else np.dtype(dtype)
    shape = shape_of(x) if shape is None else tuple(shape)
    value = np.array(fill_value, dtype)
    return lax_shapes.broadcast_in_dim(value, shape, ()) if shape else asarray(value)


def _isnan(x):
    return lax.ne(x, x)


# ---------------------------------------------------------------------------
# poisson


@jit(static_argnums=(2, 3, 4))
def _poisson_knuth(key, lam, shape, dtype, max_iters):
    # Knuth: count uniforms until their product falls below exp(-lam), in logs.
    def body_fn(carry):
        i, k, rng, log_prod = carry
        rng, subkey = split_typed(rng)
        k = lax.select(log_prod > -lam, k + 1, k)
        u = uniform(subkey, shape, np.float32)
        return i + 1, k, rng, log_prod + jnp_ufuncs.log(u)

    def cond_fn(carry):
        i, log_prod = carry[0], carry[3]
        return jnp_any(log_prod > -lam) & (i < max_iters)

    k_init = _full_like(lam, 0, dtype, shape)
    log_rate_init = _full_like(lam, 0, np.float32, shape)
    k = while_loop(cond_fn, body_fn, (0, k_init, key, log_rate_init))[1]
    return (k - 1).astype(dtype)


@jit(static_argnums=(2, 3, 4))
def _poisson_rejection(key, lam, shape, dtype, max_iters):
    # Hörmann's transformed rejection with squeeze ("The transformed rejection
    # method for generating Poisson random variables", 1993).
    log_lam = lax.log(lam)
    b = 0.931 + 2.53 * lax.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def body_fn(carry):
        i, k_out, accepted, key = carry
        key, subkey_0, subkey_1 = split_typed(key, 3)
        u = uniform(subkey_0, shape, lam.dtype) - 0.5
        v = uniform(subkey_1, shape, lam.dtype)
        u_shifted = 0.5 - abs(u)
        k = lax.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = lax.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -lam + k * log_lam - lax_special.lgamma(k + 1)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept2 = s <= t
        accept = accept1 | (~reject & accept2)
        k_out = lax.select(accept, k, k_out)
        accepted = accepted | accept
        return i + 1, k_out, accepted, key

    def cond_fn(carry):
        i, k_out, accepted, key = carry
        return jnp_any(~accepted) & (i < max_iters)

    k_init = _full_like(lam, -1, lam.dtype, shape)
    accepted = _full_like(lam, False, np.dtype("bool"), shape)
    k = while_loop(cond_fn, body_fn, (0, k_init, accepted, key))[1]
    return k.astype(dtype)


@jit(static_argnums=(2, 3))
def _poisson(key, lam, shape, dtype):
    # Knuth below lam = 10 (as TensorFlow and NumPy), rejection above.
    use_knuth = _isnan(lam) | (lam < 10)
    lam_knuth = lax.select(use_knuth, lam, _full_like(lam, 0.0))
    # Rejection accepts ~89% of draws as lam -> inf: any large value keeps it quick.
    lam_rejection = lax.select(use_knuth, _full_like(lam, 1e5), lam)
    max_iters = dtype.type(dtypes.iinfo(dtype).max)
    result = lax.select(
        use_knuth,
        _poisson_knuth(key, lam_knuth, shape, dtype, max_iters),
        _poisson_rejection(key, lam_rejection, shape, dtype, max_iters),
    )
    return lax.select(lam == 0, zeros_like(result), result)


def poisson(key, lam, shape=None, dtype=None, *, out_sharding=None):
    r"""Draw counts from the Poisson distribution with rate ``lam``.

    The mass function is :math:`f(k) = \lambda^k e^{-\lambda} / k!` for integers :math:`k \ge 0`.

    Args:
      key: the PRNG key to consume.
      lam: the rate (and mean), nonnegative; a float or float array.
      shape: result shape, broadcast-compatible with ``lam``; ``None`` (the
        default) means their broadcast shape.
      dtype: integer result dtype (default: the default integer dtype).

    Returns:
      An integer array of the requested shape.

    Example:
      >>> import pyjax as jax
      >>> bool((jax.random.poisson(jax.random.key(0), 3.0, (4,)) >= 0).all())
      True
    """
    key, _ = check_prng_key("poisson", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype)
    key_impl = key.dtype._impl
    if key_impl is not threefry.threefry_prng_impl:
        raise NotImplementedError(f"`poisson` is only implemented for the threefry2x32 RNG, not {key_impl}")
    shape = canonicalize_shape(shape) if shape is not None else shape_of(lam)
    lam = broadcast_to(lam, shape)
    lam = lax.convert_element_type(lam, np.float32)
    return _poisson(key, lam, shape, dtype)


# ---------------------------------------------------------------------------
# binomial


def _stirling_approx_tail(k):
    # log(k!) minus its Stirling approximation: tabulated for k <= 9.
    stirling_tail_vals = array(
        [0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
         0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
         0.00925546218271273, 0.00833056343336287],
        dtype=k.dtype)
    use_tail_values = k <= 9
    k = lax.clamp(np.array(0.0, k.dtype), k, np.array(9.0, k.dtype))
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    k = jnp_ufuncs.floor(k)
    return lax.select(use_tail_values, take(stirling_tail_vals, asarray(k, dtype="int32"), 0), approx)


@jit(static_argnums=(3, 4, 5), inline=True)
def _binomial_inversion(key, count, prob, shape, dtype, max_iters):
    # Count geometric waiting times until they pass `count` trials.
    log1minusprob = jnp_ufuncs.log1p(-prob)

    def body_fn(carry):
        i, num_geom, geom_sum, key = carry
        subkey, key = split(key)
        num_geom_out = lax.select(geom_sum <= count, num_geom + 1, num_geom)
        u = uniform(subkey, shape, prob.dtype)
        geom = jnp_ufuncs.ceil(jnp_ufuncs.log(u) / log1minusprob)
        geom_sum = geom_sum + geom
        return i + 1, num_geom_out, geom_sum, key

    def cond_fn(carry):
        i, geom_sum = carry[0], carry[2]
        return jnp_any(geom_sum <= count) & (i < max_iters)

    num_geom_init = _full_like(prob, 0, prob.dtype, shape)
    geom_sum_init = _full_like(prob, 0, prob.dtype, shape)
    k = while_loop(cond_fn, body_fn, (0, num_geom_init, geom_sum_init, key))[1]
    return (k - 1).astype(dtype)


@jit(static_argnums=(3, 4, 5), inline=True)
def _btrs(key, count, prob, shape, dtype, max_iters):
    # Hörmann's BTRS transformed rejection ("The generation of binomial random
    # variates", 1993).
    stddev = jnp_ufuncs.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = jnp_ufuncs.floor((count + 1) * prob)

    def body_fn(carry):
        i, k_out, accepted, key = carry
        key, subkey_0, subkey_1 = split(key, 3)
        u = uniform(subkey_0, shape, prob.dtype)
        v = uniform(subkey_1, shape, prob.dtype)
        u = u - 0.5
        us = 0.5 - jnp_ufuncs.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = jnp_ufuncs.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = jnp_ufuncs.log(v * alpha / (a / (us * us) + b))
        ub = ((m + 0.5) * jnp_ufuncs.log((m + 1) / (r * (count - m + 1)))
              + (count + 1) * jnp_ufuncs.log((count - m + 1) / (count - k + 1))
              + (k + 0.5) * jnp_ufuncs.log(r * (count - k + 1) / (k + 1))
              + _stirling_approx_tail(m)
              + _stirling_approx_tail(count - m)
              - _stirling_approx_tail(k)
              - _stirling_approx_tail(count - k))
        accept2 = v <= ub
        accept = accept1 | (~reject & accept2)
        k_out = lax.select(accept, k, k_out)
        accepted = accepted | accept
        return i + 1, k_out, accepted, key

    def cond_fn(carry):
        i, accepted = carry[0], carry[2]
        return jnp_any(~accepted) & (i < max_iters)

    k_init = _full_like(prob, -1, prob.dtype, shape)
    carry = (0, k_init, full(shape, False, bool), key)
    return while_loop(cond_fn, body_fn, carry)[1].astype(dtype)


@jit(static_argnums=(3, 4), inline=True)
def _binomial(key, count, prob, shape, dtype):
    # As TensorFlow (Probability): inversion for n * p <= 10, BTRS above.
    if shape is None:
        shape = tuple(broadcast_shapes(shape_of(count), shape_of(prob)))
    else:
        check_shape("binomial", shape, shape_of(count), shape_of(prob))
    (prob,) = promote_dtypes_inexact(prob)
    count = lax.convert_element_type(count, prob.dtype)
    count = broadcast_to(count, shape)
    prob = broadcast_to(prob, shape)
    p_lt_half = prob < 0.5
    q = lax.select(p_lt_half, prob, 1.0 - prob)
    count_nan_or_neg = _isnan(count) | (count < 0.0)
    count_inf = lax.eq(lax.abs(count), np.array(np.inf, count.dtype))  # jnp.isinf
    q_is_nan = _isnan(q)
    q_l_0 = q < 0.0
    q = lax.select(q_is_nan | q_l_0, full_like(q, 0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    # Floats count whole trials, as np.random.binomial.
    count = jnp_ufuncs.floor(count)
    count_inv = lax.select(use_inversion, count, full_like(count, 0.0))
    count_btrs = lax.select(use_inversion, full_like(count, 1e4), count)
    q_btrs = lax.select(use_inversion, full_like(q, 0.5), q)
    max_iters = dtype.type(dtypes.finfo(dtype).max)
    samples = lax.select(
        use_inversion,
        _binomial_inversion(key, count_inv, q, shape, dtype, max_iters),
        _btrs(key, count_btrs, q_btrs, shape, dtype, max_iters),
    )
    # NaN or negative counts and NaN or negative probabilities give NaN; an
    # infinite count gives inf.
    invalid = q_l_0 | q_is_nan | count_nan_or_neg
    samples = lax.select(invalid, full_like(samples, np.nan, dtype), samples)
    samples = lax.select(count_inf & (~invalid), full_like(samples, np.inf, dtype), samples)
    return lax.select(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples,
                      count.astype(dtype) - samples)


def binomial(key, n, p, shape=None, dtype=None):
    r"""Draw success counts from ``n`` trials of probability ``p``.

    The mass function is :math:`f(k) = \binom{n}{k} p^k (1 - p)^{n - k}` for :math:`0 \le k \le n`.

    Args:
      key: the PRNG key to consume.
      n: the number of trials, a float or float array.
      p: the success probability of one trial.
      shape: result shape, broadcast-compatible with ``n`` and ``p``; ``None`` (the
        default) means their broadcast shape.
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).

    Returns:
      A floating array of whole-number counts of the requested shape.

    Example:
      >>> import pyjax as jax
      >>> x = jax.random.binomial(jax.random.key(0), 10.0, 0.5, (4,))
      >>> bool(((x >= 0) & (x <= 10)).all())
      True
    """
    key, _ = check_prng_key("binomial", key)
    check_arraylike("binomial", n, p)
    dtype = dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"dtype argument to `binomial` must be a float dtype, got {dtype}")
    if shape is not None:
        shape = canonicalize_shape(shape)
    return _binomial(key, n, p, shape, dtype)


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    r"""Draw how often each outcome occurs in ``n`` trials.

    The mass function is :math:`f(x) = n! \prod_i p_i^{x_i} / x_i!` with :math:`\sum_i x_i = n`.

    Args:
      key: the PRNG key to consume.
      n: the number of trials, broadcast-compatible with ``p.shape[:-1]``.
      p: outcome probabilities along the last axis.
      shape: batch shape of the result (everything but the last axis); ``None``
        (the default) means ``p.shape[:-1]``.
      dtype: floating result dtype (default: the default float dtype, float32
        unless x64 is enabled).
      unroll: the ``unroll`` passed to the :func:`jax.lax.scan` over outcomes.

    Returns:
      A floating array of counts of shape ``(*shape, p.shape[-1])``.

    Example:
      >>> import pyjax as jax
      >>> import pyjax.numpy as jnp
      >>> float(jax.random.multinomial(jax.random.key(0), 5.0, jnp.array([0.2, 0.8])).sum())
      5.0
    """
    key, _ = check_prng_key("multinomial", key)
    check_arraylike("multinomial", n, p)
    n, p = promote_dtypes_inexact(n, p)
    if shape is None:
        shape = p.shape
    n = broadcast_to(n, shape[:-1])
    p = broadcast_to(p, shape)

    # One binomial per outcome, of the trials left, at the outcome's share of
    # the probability left.
    def step(remainder, ratio_key):
        ratio, key = ratio_key
        count = binomial(key, remainder, clip(ratio, 0, 1), dtype=remainder.dtype)
        return remainder - count, count

    p = moveaxis(p, -1, 0)
    remaining_probs = lax_cumsum(p, 0, reverse=True)
    ratios = p / where(remaining_probs == 0, 1, remaining_probs)
    keys = split(key, ratios.shape[0])
    _, counts = scan(step, n, (ratios, keys), unroll=unroll)
    return moveaxis(counts, 0, -1).astype(dtypes.check_and_canonicalize_user_dtype(float if dtype is None else dtype))


__all__ = ["binomial", "multinomial", "poisson"]

