"""Discrete samplers: bernoulli, rademacher, randint, permutation, choice,
categorical (with the Gumbel sampler it uses) and geometric.

Integer results come from integer operations on the random bits (randint's
double-width modulus, permutation's sorts on random keys) or from comparing
uniform floats, so they are identical to JAX's whenever the bits are. The
samplers that loop (poisson, binomial, multinomial) are in loops.py.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

import numpy as np

from pyjax._src import avals, core, dtypes
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax import sorting as lax_sorting
from pyjax._src.numpy import ufuncs as jnp_ufuncs
from pyjax._src.numpy.creation import arange, array, asarray, full_like, zeros
from pyjax._src.numpy.reductions import argmax
from pyjax._src.numpy.shape_ops import moveaxis
from pyjax._src.numpy.util import check_arraylike
from pyjax._src.numpy.where import where
from pyjax._src.random import prng
from pyjax._src.random.distributions import (
    _float_dtype,
    _uniform,
    check_broadcast_shapes,
    uniform,
)
from pyjax._src.random.keys import (
    canonicalize_shape,
    check_prng_key,
    check_shape,
    random_bits,
    split_typed,
)
from pyjax._src.random.numpy_ops import (
    broadcast_to_rank,
    clip,
    const,
    cumsum,
    dtype_of,
    ndim_of,
    promote_dtypes_inexact,
    searchsorted,
    shape_of,
    take,
)

UINT_DTYPES = prng.UINT_DTYPES


def _canonicalize_axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


# ---------------------------------------------------------------------------
# bernoulli, rademacher


def bernoulli(key, p=0.5, shape=None, mode="low", *, out_sharding=None):
    r"""Draw booleans that are ``True`` with probability ``p``.

    Each entry is an independent coin flip: :math:`P(k = 1) = p` and
    :math:`P(k = 0) = 1 - p`, for :math:`k \in \{0, 1\}`.

    Args:
      key: the PRNG key to consume.
      p: probability of ``True``, a float or a float array (default ``0.5``).
      shape: result shape, broadcast-compatible with ``p``; ``None`` (the default)
        means ``p``'s shape.
      mode: ``"low"`` (the default) compares one uniform draw with ``p``, which
        cannot resolve probabilities under about ``1e-7`` in float32; ``"high"``
        adds a second draw below the first one's resolution, at twice the cost.

    Returns:
      A boolean array of the requested shape.

    Example:
      >>> import pyjax as jax
      >>> jax.random.bernoulli(jax.random.key(0), 0.3, (4,)).dtype
      dtype('bool')
    """
    if shape is not None:
        shape = avals.canonicalize_shape(shape, negative=avals.NEGATIVE_BROADCAST)
    if mode not in ("high", "low"):
        raise ValueError(f"got {mode=}, expected 'high' or 'low'")
    key, _ = check_prng_key("bernoulli", key)
    dtype = dtype_of(p)
    if not dtypes.issubdtype(dtype, np.floating):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dtype}.")
    p = lax.convert_element_type(p, dtype)
    return _bernoulli(key, p, shape=shape, mode=mode)


@jit(static_argnames=("shape", "mode"))
def _bernoulli(key, p, shape, mode):
    if shape is None:
        shape = shape_of(p)
    else:
        check_shape("bernoulli", shape, shape_of(p))
    dtype = dtype_of(p)
    if mode == "high":
        u1, u2 = uniform(key, (2, *shape), dtype)
        # A second uniform refines the first below its resolution of 2**-nmant.
        u2 = u2 * 2 ** -dtypes.finfo(dtype).nmant
        return u2 < p - u1
    return uniform(key, shape, dtype) < p


def rademacher(key, shape=(), dtype=None, *, out_sharding=None):
    """Draw ``-1`` or ``+1``, each with probability one half.

    Args:
      key: the PRNG key to consume.
      shape: result shape (default ``()``).
      dtype: result dtype (default: the default integer dtype).

    Returns:
      An array of ``shape`` whose entries are ``-1`` or ``1``.

    Example:
      >>> import pyjax as jax
      >>> x = jax.random.rademacher(jax.random.key(0), (6,))
      >>> bool(((x == 1) | (x == -1)).all())
      True
    """
    key, _ = check_prng_key("rademacher", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype)
    shape = canonicalize_shape(shape)
    return _rademacher(key, shape, dtype, None)


@jit(static_argnums=(1, 2, 3))
def _rademacher(key, shape, dtype, out_sharding):
    bernoulli_samples = bernoulli(key=key, p=0.5, shape=shape).astype(dtype)
    return (2 * bernoulli_samples - 1).astype(dtype)


# ---------------------------------------------------------------------------
# randint


def _convert_and_clip_integer(val, dtype):
    """``val`` converted to the integer ``dtype``, clipped to its range instead of wrapping."""
    if not (dtypes.issubdtype(dtype, np.integer) and dtypes.issubdtype(val.dtype, np.integer)):
        raise TypeError("_convert_and_clip_integer only accepts integer dtypes.")
    min_val = const(val, max(int(dtypes.iinfo(dtype).min), int(dtypes.iinfo(val.dtype).min)))
    max_val = const(val, min(int(dtypes.iinfo(dtype).max), int(dtypes.iinfo(val.dtype).max)))
    return clip(val, min_val, max_val).astype(dtype)


def randint(key, shape, minval, maxval, dtype=None, *, out_sharding=None):
    """Draw integers uniformly from the half-open range ``[minval, maxval)``.

    Args:
      key: the PRNG key to consume.
      shape: result shape.
      minval: smallest value that can be drawn (inclusive); an integer or an integer
        array broadcast-compatible with ``shape``.
      maxval: bound that is never reached (exclusive), likewise.
      dtype: integer dtype of the result (default: the default integer dtype,
        int32 unless x64 is enabled).

    Returns:
      An integer array of ``shape`` and ``dtype``.

    Example:
      >>> import pyjax as jax
      >>> x = jax.random.randint(jax.random.key(0), (5,), 3, 7)
      >>> bool(((x >= 3) & (x < 7)).all())
      True
    """
    key, _ = check_prng_key("randint", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype)
    shape = avals.canonicalize_shape(shape, negative=avals.NEGATIVE_BROADCAST)
    if not dtypes.issubdtype(dtype, np.integer):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    info = dtypes.iinfo(dtype)
    dtype_for_sampling = dtype
    if info.bits < 32:
        dtype_for_sampling = np.dtype("int32")
        # (JAX calls the `clip` method, which passes the bounds by keyword.)
        minval = clip(asarray(minval).astype("int32"), min=int(info.min), max=int(info.max))
        maxval = clip(asarray(maxval).astype("int32"), min=int(info.min), max=int(info.max) + 1)
    return _randint(key, minval, maxval, shape, dtype_for_sampling).astype(dtype)


@jit(static_argnums=(3, 4))
def _randint(key, minval, maxval, shape, dtype):
    check_shape("randint", shape, shape_of(minval), shape_of(maxval))
    if not dtypes.issubdtype(dtype, np.integer):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    check_arraylike("randint", minval, maxval)
    minval = asarray(minval)
    maxval = asarray(maxval)
    if not dtypes.issubdtype(minval.dtype, np.integer):
        minval = minval.astype(int)
    if not dtypes.issubdtype(maxval.dtype, np.integer):
        maxval = maxval.astype(int)
    # A maxval above the dtype's range (randint(k, s, 0, 256, uint8)) widens the span by one.
    maxval_out_of_range = lax.gt(
        maxval, _convert_and_clip_integer(array(dtypes.iinfo(dtype).max, dtype), maxval.dtype))
    minval = _convert_and_clip_integer(minval, dtype)
    maxval = _convert_and_clip_integer(maxval, dtype)
    minval = broadcast_to_rank(minval, len(shape))
    maxval = broadcast_to_rank(maxval, len(shape))
    nbits = dtypes.iinfo(dtype).bits
    if nbits not in (8, 16, 32, 64):
        raise TypeError(f"randint only accepts 8-, 16-, 32-, or 64-bit dtypes, got {dtype}")
    # Twice the dtype's bits per value, reduced modulo the span: the bias shrinks
    # to about span**2 / 2**(2 * nbits).
    k1, k2 = split_typed(key)
    higher_bits, lower_bits = random_bits(k1, nbits, shape), random_bits(k2, nbits, shape)
    unsigned_dtype = UINT_DTYPES[nbits]
    span = lax.convert_element_type(maxval - minval, unsigned_dtype)
    # maxval <= minval: a span of 1 always gives minval.
    span = lax.select(maxval <= minval, full_like(span, 1), span)
    span = lax.select(maxval_out_of_range & (maxval > minval), lax.add(span, const(span, 1)), span)
    # (hi * 2**nbits + lo) % span without overflow: (a * b) % n == ((a % n) * (b % n)) % n.
    multiplier = lax.rem(const(span, 2 ** (nbits // 2)), span)
    multiplier = lax.rem(lax.mul(multiplier, multiplier), span)
    random_offset = lax.add(lax.mul(lax.rem(higher_bits, span), multiplier), lax.rem(lower_bits, span))
    random_offset = lax.rem(random_offset, span)
    return lax.add(minval, lax.convert_element_type(random_offset, dtype))


# ---------------------------------------------------------------------------
# permutation, choice


def permutation(key, x, axis: int = 0, independent: bool = False, *, out_sharding=None):
    """Shuffle an array, or return a shuffled ``arange``.

    Args:
      key: the PRNG key to consume.
      x: an integer ``n`` (shuffle ``arange(n)``) or an array of at least one
        dimension.
      axis: the axis to shuffle along (default 0).
      independent: when ``True``, every 1-D slice along ``axis`` gets its own
        shuffle; when ``False`` (the default), whole slices are reordered together.

    Returns:
      The shuffled array.

    Example:
      >>> import pyjax as jax
      >>> sorted(jax.random.permutation(jax.random.key(0), 4).tolist())
      [0, 1, 2, 3]
    """
    key, _ = check_prng_key("permutation", key)
    check_arraylike("permutation", x)
    axis = _canonicalize_axis(axis, ndim_of(x) or 1)
    if not ndim_of(x):
        if not np.issubdtype(dtype_of(x), np.integer):
            raise TypeError("x must be an integer or at least 1-dimensional")
        r = _concrete_int(x, "argument x of jax.random.permutation()")
        return _shuffle(key, arange(r), axis)
    return _permutation(key, x, axis, independent)


def _concrete_int(x, context: str, *, truncate: bool = False) -> int:
    """``int(x)`` for a concrete ``x``; JAX's ConcretizationTypeError for a tracer.

    A non-integer Python or NumPy scalar is refused (``operator.index``)
    unless ``truncate``: JAX's ``choice(key, 5.0)`` takes ``int(a)``."""
    if isinstance(x, core.Tracer):
        from pyjax._src import errors

        raise errors.ConcretizationTypeError(x, context)
    return int(x) if truncate or hasattr(x, "aval") else operator.index(x)


def _permutation(key, x, axis, independent):
    if independent or ndim_of(x) == 1:
        return _shuffle(key, x, axis)
    ind = _shuffle(key, arange(shape_of(x)[axis]), 0)
    return take(x, ind, axis, unique_indices=True)


@jit(static_argnums=(2,))
def _shuffle(key, x, axis):
    # Sorting on random 32-bit keys, repeated with fresh keys: once every pair of
    # elements has had distinct keys in some round the shuffle is exact.
    # `exponent` rounds per factor of 2**32 in size follow tjablin@'s analysis
    # (tensorflow/compiler/tf2xla/random_ops.cc).
    exponent = 3
    uint32max = dtypes.iinfo(np.uint32).max
    size = math.prod(shape_of(x))
    num_rounds = int(np.ceil(exponent * np.log(max(1, size)) / np.log(uint32max)))
    for _ in range(num_rounds):
        key, subkey = split_typed(key)
        sort_keys = random_bits(subkey, 32, shape_of(x))
        _, x = lax_sorting.sort_key_val(sort_keys, x, axis)
    return x


def choice(key, a, shape=(), replace: bool = True, p=None, axis: int = 0, mode=None):
    """Pick entries of ``a`` at random, with or without replacement.

    Behaviour is undefined when sampling without replacement asks for more
    draws than ``p`` has non-zero entries.

    Args:
      key: the PRNG key to consume.
      a: an array to pick from, or an integer ``n`` meaning ``arange(n)``.
      shape: how many picks to make, as a shape (default ``()``, one pick).
      replace: whether an entry may be picked more than once (default ``True``).
      p: optional 1-D probabilities, one per entry of ``a`` along ``axis``;
        uniform when not given.
      axis: the axis of ``a`` along which entries are picked (default 0).
      mode: bit count for the Gumbel draws used when ``p`` is given and
        ``replace=False``; see :func:`gumbel`.

    Returns:
      The picked entries; ``shape`` takes the place of ``a``'s ``axis``.

    Example:
      >>> import pyjax as jax
      >>> jax.random.choice(jax.random.key(0), 10, (3,), replace=False).shape
      (3,)
    """
    key, _ = check_prng_key("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    check_arraylike("choice", a)
    arr = asarray(a)
    if arr.ndim == 0:
        n_inputs = _concrete_int(a, "The error occurred in jax.random.choice()", truncate=True)
    else:
        axis = _canonicalize_axis(axis, arr.ndim)
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population "
                         f"(size {n_inputs}) when 'replace=False'")
    if p is None:
        if replace:
            ind = randint(key, shape, 0, n_inputs)
            result = ind if arr.ndim == 0 else take(arr, ind, axis)
        else:
            slices = (slice(None),) * axis + (slice(n_draws),)
            result = permutation(key, n_inputs if arr.ndim == 0 else arr, axis)[slices]
    else:
        check_arraylike("choice", p)
        (p_arr,) = promote_dtypes_inexact(p)
        if p_arr.shape != (n_inputs,):
            raise ValueError("p must be None or a 1D vector with the same size as a.shape[axis]. "
                             f"p has shape {p_arr.shape} and a.shape[axis] is {n_inputs}.")
        if replace:
            # Inverse-CDF sampling on the cumulative weights.
            p_cuml = cumsum(p_arr)
            r = p_cuml[-1] * (1 - uniform(key, shape, dtype=p_cuml.dtype))
            ind = searchsorted(p_cuml, r).astype(int)
        else:
            # The Gumbel top-k trick.
            g = gumbel(key, (n_inputs,), dtype=p_arr.dtype, mode=mode) + jnp_ufuncs.log(p_arr)
            ind = lax_sorting.top_k(g, k=n_draws)[1].astype(int)
        result = ind if arr.ndim == 0 else take(arr, ind, axis)
    return result.reshape(shape if arr.ndim == 0 else arr.shape[0:axis] + tuple(shape) + arr.shape[axis + 1:])


# ---------------------------------------------------------------------------
# gumbel, categorical


def gumbel(key, shape=(), dtype=None, mode=None, *, out_sharding=None):
    """Draw samples of the standard Gumbel distribution.

    The density is :math:`f(x) = e^{-(x + e^{-x})}`.

    Args:
      key: the PRNG key to consume.
      shape: result shape (default ``()``).
      dtype: floating result dtype (default: the default float dtype).
      mode: ``"low"`` (the default) uses one uniform draw per value, which caps
        the largest result at about 16 in float32; ``"high"`` spends twice the
        bits to raise the cap to about 32.

    Returns:
      A floating array of ``shape`` and ``dtype``.

    Example:
      >>> import pyjax as jax
      >>> jax.random.gumbel(jax.random.key(0), (2, 3)).shape
      (2, 3)
    """
    from pyjax._src import config

    key, _ = check_prng_key("gumbel", key)
    dtype = _float_dtype(dtype, "gumbel")
    shape = canonicalize_shape(shape)
    if mode is None:
        high = getattr(config, "use_high_dynamic_range_gumbel", None)
        mode = "high" if high is not None and high.value else "low"
    if mode not in ("highest", "high", "low"):
        raise ValueError("Must provide valid mode for gumbel got: %s" % mode)
    return _gumbel(key, shape, dtype, mode)


def _safe_int_to_float(bits, dtype):
    """u32[2, ...] read as 64-bit fixed point in (0, 1), rounded to f32[...]."""
    if bits.dtype != np.uint32 or dtype != np.float32:
        raise RuntimeError("_safe_int_to_float only works for u32 -> f32")
    finfo = dtypes.finfo(dtype)
    hiclz, loclz = lax.clz(bits)
    hi, lo = bits
    # The 24 leading significant bits of hi:lo, wherever the first 1 is.
    mantissa = lax.bitwise_or(
        lax.shift_left(hi, hiclz),
        where(hiclz == 32, lax.shift_left(lo, loclz), lax.shift_right_logical(lo, finfo.bits - hiclz)))
    mantissa = lax.shift_right_logical(mantissa, np.array(finfo.bits - finfo.nmant - 1, dtype=np.uint32))
    mantissa = lax.bitwise_and(mantissa, np.array((1 << finfo.nmant) - 1, dtype=np.uint32))
    exp = lax.shift_left((-finfo.minexp - where(hiclz == 32, 32 + loclz, hiclz)),
                         np.array(finfo.nmant, dtype=np.uint32))
    exp = lax.bitwise_and(exp, np.array((1 << (finfo.bits - 2)) - (1 << (finfo.nmant - 1)), dtype=np.uint32))
    return lax.bitcast_convert_type(lax.bitwise_or(exp, mantissa), dtype)


@jit(static_argnums=(1, 2, 3))
def _gumbel(key, shape, dtype, mode):
    check_shape("gumbel", shape)
    info = dtypes.finfo(dtype)
    if dtype == np.float32 and mode == "highest":
        bits = random_bits(key, info.bits, (2,) + shape)
        neg = lax.bitwise_not(bits)
        lo_bits = neg[1]
        # 1 - bits in 64-bit fixed point: the carry from the low word.
        neg = neg + array([lo_bits == np.array((1 << info.bits) - 1, dtype=np.uint32),
                           full_like(lo_bits, 1)], dtype=np.uint32)
        flip_mask = bits[0] < np.array(1 << (info.bits - 1), dtype=np.uint32)
        x = _safe_int_to_float(where(flip_mask, bits, neg), dtype=np.float32)
        # log1p on (0, 0.5), log on [0.5, 1).
        return where(flip_mask, -jnp_ufuncs.log(-jnp_ufuncs.log1p(-x)), -jnp_ufuncs.log(-jnp_ufuncs.log(x)))
    if mode in ("high", "highest"):
        high, low = _uniform(key, minval=0.0, maxval=1.0, shape=(2,) + shape, dtype=dtype)
        # The low draw fills in below the high draw's resolution (away from 1).
        x = where(high >= 0.5, high, high + 2 ** -(info.nmant) * low + info.tiny)
        return -jnp_ufuncs.log(-jnp_ufuncs.log1p(-x))
    return -jnp_ufuncs.log(-jnp_ufuncs.log(_uniform(key, minval=info.tiny, maxval=1.0, shape=shape, dtype=dtype)))


def categorical(key, logits, axis: int = -1, shape=None, replace: bool = True, mode=None, *,
                out_sharding=None):
    """Draw category indices from unnormalised log-probabilities.

    Index ``i`` is drawn with probability ``softmax(logits, axis)[i]``.

    Args:
      key: the PRNG key to consume.
      logits: log-probabilities up to a constant, one per category along ``axis``.
      axis: the axis of ``logits`` that holds the categories (default ``-1``).
      shape: result shape, broadcast-compatible with ``logits``'s shape without
        ``axis``; ``None`` (the default) means exactly that shape.
      replace: when ``False``, no index repeats within one distribution.
      mode: bit count of the Gumbel draws; see :func:`gumbel`.

    Returns:
      An integer array of the requested shape.

    Example:
      >>> import pyjax as jax
      >>> import pyjax.numpy as jnp
      >>> jax.random.categorical(jax.random.key(0), jnp.zeros((2, 5))).shape
      (2,)
    """
    key, _ = check_prng_key("categorical", key)
    check_arraylike("categorical", logits)
    logits_arr = asarray(logits)
    batch_shape = tuple(int(d) for d in np.delete(np.array(logits_arr.shape, dtype=int), axis))
    if shape is None:
        shape = batch_shape
    else:
        shape = canonicalize_shape(shape)
        check_shape("categorical", shape, batch_shape)
    return _categorical(key, logits_arr, shape, batch_shape, axis, replace, mode)


def _categorical(key, logits_arr, shape, batch_shape, axis, replace, mode):
    shape_prefix = shape[: len(shape) - len(batch_shape)]
    if replace:
        if axis >= 0:
            axis -= len(logits_arr.shape)
        logits_shape = list(shape[len(shape) - len(batch_shape):])
        logits_shape.insert(axis % len(logits_arr.shape), logits_arr.shape[axis])
        return argmax(
            gumbel(key, (*shape_prefix, *logits_shape), logits_arr.dtype, mode=mode)
            + lax_shapes.expand_dims(logits_arr, tuple(range(len(shape_prefix)))),
            axis=axis)
    logits_arr = logits_arr + gumbel(key, logits_arr.shape, logits_arr.dtype, mode=mode)
    k = math.prod(shape_prefix)
    if k > logits_arr.shape[axis]:
        raise ValueError(f"Number of samples without replacement ({k}) cannot exceed number of "
                         f"categories ({logits_arr.shape[axis]}).")
    _, indices = lax_sorting.top_k(moveaxis(logits_arr, axis, -1), k)
    dimensions = (indices.ndim - 1, *range(indices.ndim - 1))
    return lax_shapes.reshape(indices, shape, dimensions)


# ---------------------------------------------------------------------------
# geometric


def geometric(key, p, shape=None, dtype=None, *, out_sharding=None):
    r"""Count trials up to and including the first success.

    The mass function is :math:`f(k) = (1 - p)^{k - 1} p` for :math:`k \ge 1`.

    Args:
      key: the PRNG key to consume.
      p: success probability of each trial, a float or float array.
      shape: result shape, broadcast-compatible with ``p``; ``None`` (the default)
        means ``p``'s shape.
      dtype: integer result dtype (default: the default integer dtype).

    Returns:
      An integer array of the requested shape.

    Example:
      >>> import pyjax as jax
      >>> bool((jax.random.geometric(jax.random.key(0), 0.5, (8,)) >= 1).all())
      True
    """
    key, _ = check_prng_key("geometric", key)
    dtype = dtypes.check_and_canonicalize_user_dtype(int if dtype is None else dtype)
    if not dtypes.issubdtype(dtype, np.integer):
        raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dtype}")
    shape = check_broadcast_shapes("geometric", shape, p)
    return _geometric(key, p, shape, dtype, None)


@jit(static_argnums=(2, 3, 4))
def _geometric(key, p, shape, dtype, out_sharding):
    from pyjax._src.numpy.shape_ops import broadcast_to

    check_arraylike("geometric", p)
    (p,) = promote_dtypes_inexact(p)
    u = uniform(key, shape, p.dtype)
    # u == 0 maps to 1, so that log(u) stays finite without changing other draws.
    u = where(u == 0, 1, u)
    log_u = lax.log(u)
    log_one_minus_p = lax.log1p(-p)
    log_one_minus_p = broadcast_to(log_one_minus_p, shape)
    g = lax.floor(lax.div(log_u, log_one_minus_p)) + 1
    return g.astype(dtype)


__all__ = [
    "bernoulli", "categorical", "choice", "geometric", "gumbel", "permutation", "rademacher", "randint",
]
