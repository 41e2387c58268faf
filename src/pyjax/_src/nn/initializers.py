"""Parameter initializers (jax.nn.initializers).

An initializer is a function ``init(key, shape, dtype=None) -> Array``; the
functions here either are one (zeros, ones) or build one from its
parameters (normal(stddev), variance_scaling(scale, mode, distribution), ...).
They draw from pyjax.random exactly as JAX's do (the same calls, in the same
order, with the same keys), so a key gives JAX's values bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from pyjax._src import dtypes
from pyjax._src.scipy import jnp_pending as jnp

__all__ = [
    "Initializer", "constant", "delta_orthogonal", "glorot_normal", "glorot_uniform", "he_normal",
    "he_uniform", "kaiming_normal", "kaiming_uniform", "lecun_normal", "lecun_uniform", "normal", "ones",
    "orthogonal", "truncated_normal", "uniform", "variance_scaling", "xavier_normal", "xavier_uniform",
    "zeros",
]


def _random():
    # pyjax.random imports jax.numpy; resolved at call time to keep the import
    # graph acyclic.
    import pyjax.random

    return pyjax.random


def _default(dtype):
    return dtypes.default_float_dtype() if dtype is None else dtype


@runtime_checkable
class Initializer(Protocol):
    """The type of an initializer: ``(key, shape, dtype=None, out_sharding=None) -> Array``."""

    def __call__(self, key, shape, dtype=None, out_sharding=None):
        raise NotImplementedError


def zeros(key, shape, dtype=None, out_sharding=None):
    """An initializer that returns zeros (the key is unused).

    Example:
      >>> jax.nn.initializers.zeros(jax.random.key(0), (2, 3))
      Array([[0., 0., 0.],
             [0., 0., 0.]], dtype=float32)
    """
    return jnp.zeros(shape, _default(dtype))


def ones(key, shape, dtype=None, out_sharding=None):
    """An initializer that returns ones (the key is unused)."""
    return jnp.ones(shape, _default(dtype))


def constant(value, dtype=None) -> Initializer:
    """Builds an initializer that fills every element with `value`."""

    def init(key, shape, dtype=dtype, out_sharding=None):
        return jnp.full(shape, value, dtype=_default(dtype))

    return init


def uniform(scale=1e-2, dtype=None) -> Initializer:
    """Builds an initializer drawing uniformly from [0, scale)."""

    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _default(dtype)
        return _random().uniform(key, shape, dtype) * jnp.array(scale, dtype)

    return init


def normal(stddev=1e-2, dtype=None) -> Initializer:
    """Builds an initializer drawing from a normal distribution with mean 0 and `stddev`."""

    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _default(dtype)
        return _random().normal(key, shape, dtype) * jnp.array(stddev, dtype)

    return init


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0) -> Initializer:
    """Builds an initializer drawing from a normal distribution truncated to
    [lower, upper] (in units of the untruncated standard deviation), scaled by `stddev`."""

    def init(key, shape, dtype=dtype, out_sharding=None):
        dtype = _default(dtype)
        return _random().truncated_normal(key, lower, upper, shape, dtype) * jnp.array(stddev, dtype)

    return init


def _compute_fans(shape: Sequence[int], in_axis=-2, out_axis=-1, batch_axis=()) -> tuple[float, float]:
    """(fan_in, fan_out) of a weight shape: the input and output sizes times
    the receptive field (every axis that is neither input, output nor batch)."""
    if isinstance(in_axis, int) and in_axis == -2 and len(shape) <= 1:
        raise ValueError(f"Can't compute input and output sizes of a {len(shape)}-dimensional weights tensor "
                         "with default in_axis. Must be at least 2D or specify in_axis explicitly.")

    def size(axes):
        return shape[axes] if isinstance(axes, int) else math.prod(shape[i] for i in axes)

    in_size, out_size, batch_size = size(in_axis), size(out_axis), size(batch_axis)
    receptive_field = math.prod(shape) / in_size / out_size / batch_size
    return in_size * receptive_field, out_size * receptive_field


def _complex_uniform(key, shape, dtype):
    # Uniform on the unit-area disc: radius sqrt(2u), angle uniform.
    random = _random()
    key_r, key_theta = random.split(key)
    real_dtype = np.array(0, dtype).real.dtype
    dtype = dtypes.to_complex_dtype(real_dtype)
    r = jnp.sqrt(2 * random.uniform(key_r, shape, real_dtype)).astype(dtype)
    theta = 2 * np.pi * random.uniform(key_theta, shape, real_dtype).astype(dtype)
    return r * jnp.exp(1j * theta)


def _complex_truncated_normal(key, upper, shape, dtype):
    # A complex normal truncated to |z| <= upper, by inverting the radius' CDF.
    random = _random()
    key_r, key_theta = random.split(key)
    real_dtype = np.array(0, dtype).real.dtype
    dtype = dtypes.to_complex_dtype(real_dtype)
    t = (1 - jnp.exp(jnp.array(-(upper ** 2), dtype))) * random.uniform(key_r, shape, real_dtype).astype(dtype)
    r = jnp.sqrt(-jnp.log(1 - t))
    theta = 2 * np.pi * random.uniform(key_theta, shape, real_dtype).astype(dtype)
    return r * jnp.exp(1j * theta)


# The standard deviation of a unit normal truncated to [-2, 2], and of a unit
# complex normal truncated to |z| <= 2: dividing by them restores the variance.
_TRUNCATED_STDDEV = 0.87962566103423978
_COMPLEX_TRUNCATED_STDDEV = 0.95311164380491208


def variance_scaling(scale, mode: str, distribution: str, in_axis=-2, out_axis=-1, batch_axis=(),
                     dtype=None) -> Initializer:
    """Builds an initializer whose variance is ``scale / n``, with n from the weight's fans.

    Args:
      scale: the variance's numerator.
      mode: n is ``"fan_in"``, ``"fan_out"``, ``"fan_avg"`` (their mean) or
        ``"fan_geo_avg"`` (their geometric mean).
      distribution: ``"truncated_normal"`` (within two standard deviations),
        ``"normal"`` or ``"uniform"``.
      in_axis, out_axis, batch_axis: the axes that hold the input size, the
        output size and the batch; all others form the receptive field.
      dtype: the default dtype of the weights.
    """

    def init(key, shape, dtype=dtype, out_sharding=None):
        shape = tuple(int(d) for d in shape)
        dtype = _default(dtype)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        if mode == "fan_in":
            denominator = fan_in
        elif mode == "fan_out":
            denominator = fan_out
        elif mode == "fan_avg":
            denominator = (fan_in + fan_out) / 2
        elif mode == "fan_geo_avg":
            denominator = (fan_in * fan_out) ** 0.5
        else:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        variance = jnp.array(scale / denominator, dtype=dtype)
        random = _random()
        is_real = dtypes.issubdtype(dtype, np.floating)
        if distribution == "truncated_normal":
            if is_real:
                stddev = jnp.sqrt(variance) / jnp.array(_TRUNCATED_STDDEV, dtype)
                return random.truncated_normal(key, -2, 2, shape, dtype) * stddev
            stddev = jnp.sqrt(variance) / jnp.array(_COMPLEX_TRUNCATED_STDDEV, dtype)
            return _complex_truncated_normal(key, 2, shape, dtype) * stddev
        if distribution == "normal":
            return random.normal(key, shape, dtype) * jnp.sqrt(variance)
        if distribution == "uniform":
            if is_real:
                return random.uniform(key, shape, dtype, -1) * jnp.sqrt(3 * variance)
            return _complex_uniform(key, shape, dtype) * jnp.sqrt(variance)
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")

    return init


def _scaled(scale: float, mode: str, distribution: str, doc: str):
    def builder(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
        return variance_scaling(scale, mode, distribution, in_axis=in_axis, out_axis=out_axis,
                                batch_axis=batch_axis, dtype=dtype)

    builder.__doc__ = doc
    return builder


glorot_uniform = _scaled(1.0, "fan_avg", "uniform",
                         "Glorot (Xavier) uniform: variance_scaling(1.0, 'fan_avg', 'uniform').")
glorot_normal = _scaled(1.0, "fan_avg", "truncated_normal",
                        "Glorot (Xavier) normal: variance_scaling(1.0, 'fan_avg', 'truncated_normal').")
lecun_uniform = _scaled(1.0, "fan_in", "uniform", "LeCun uniform: variance_scaling(1.0, 'fan_in', 'uniform').")
lecun_normal = _scaled(1.0, "fan_in", "truncated_normal",
                       "LeCun normal: variance_scaling(1.0, 'fan_in', 'truncated_normal').")
he_uniform = _scaled(2.0, "fan_in", "uniform", "He (Kaiming) uniform: variance_scaling(2.0, 'fan_in', 'uniform').")
he_normal = _scaled(2.0, "fan_in", "truncated_normal",
                    "He (Kaiming) normal: variance_scaling(2.0, 'fan_in', 'truncated_normal').")
for _name, _fn in (("glorot_uniform", glorot_uniform), ("glorot_normal", glorot_normal),
                   ("lecun_uniform", lecun_uniform), ("lecun_normal", lecun_normal),
                   ("he_uniform", he_uniform), ("he_normal", he_normal)):
    _fn.__name__ = _fn.__qualname__ = _name
xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def orthogonal(scale=1.0, column_axis: int = -1, dtype=None) -> Initializer:
    """Builds an initializer for (semi-)orthogonal matrices, times `scale`.

    The weight is viewed as a matrix whose columns lie along `column_axis`
    (all other axes flattened into rows); its columns, or its rows when there
    are fewer of them, are orthonormal.
    """

    def init(key, shape, dtype=dtype, out_sharding=None):
        if out_sharding is not None:
            raise NotImplementedError("out_sharding is not supported by pyjax's initializers yet (no sharding)")
        dtype = _default(dtype)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        if any(d == 0 for d in shape):
            return jnp.zeros(shape, dtype=dtype)
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        q = _random().orthogonal(key, n_rows, (), dtype, n_cols)
        q = jnp.reshape(q, tuple(np.delete(shape, column_axis)) + (n_cols,))
        q = jnp.moveaxis(q, -1, column_axis)
        return jnp.array(scale, dtype) * q

    return init


def delta_orthogonal(scale=1.0, column_axis: int = -1, dtype=None) -> Initializer:
    """Builds an initializer for convolution kernels (3-D to 5-D) that are an
    orthogonal matrix at the spatial centre and zero elsewhere (arXiv:1806.05393)."""

    def init(key, shape, dtype=dtype, out_sharding=None):
        if out_sharding is not None:
            raise NotImplementedError("out_sharding is not supported by pyjax's initializers yet (no sharding)")
        dtype = _default(dtype)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        matrix = orthogonal(scale=scale, column_axis=column_axis, dtype=dtype)(key, shape[-2:])
        centre = tuple((k - 1) // 2 for k in shape[:-2])
        return jnp.zeros(shape, dtype=dtype).at[centre + (Ellipsis,)].set(matrix)

    return init
