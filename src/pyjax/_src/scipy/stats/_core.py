"""Statistics of samples (jax.scipy.stats.mode, rankdata, sem)."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from pyjax._src.api import vmap
from pyjax._src.jit import jit
from pyjax._src.lax import control_flow as lax_control
from pyjax._src.lax import sorting as lax_sorting
from pyjax._src.numpy.util import canonicalize_axis, check_arraylike, promote_args_inexact
from pyjax._src.scipy import jnp_pending as jnp

__all__ = ["ModeResult", "mode", "rankdata", "sem"]

_NAN_POLICIES = "{'propagate', 'omit', 'raise'}"


def _check_nan_policy(nan_policy: str, name: str) -> None:
    if nan_policy not in ["propagate", "omit", "raise"]:
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of {_NAN_POLICIES}")
    if nan_policy == "omit":
        raise NotImplementedError(f"Logic for `nan_policy` of {nan_policy} is not implemented")
    if nan_policy == "raise":
        raise NotImplementedError(
            f"In order to best JIT compile `{name}`, we cannot know whether `x` contains nans. "
            + ("Please check if nans exist in `x` outside of the `mode` function." if name == "mode" else
               "Please check if nans exist in `x` outside of the `rankdata` function."))


class ModeResult(NamedTuple):
    mode: object
    count: object


def _default_float():
    return jnp.zeros(()).dtype


@jit(static_argnames=["axis", "nan_policy", "keepdims"])
def mode(a, axis: int | None = 0, nan_policy: str = "propagate", keepdims: bool = False) -> ModeResult:
    """Compute the mode (most common value) along an axis of an array.

    JAX implementation of :func:`scipy.stats.mode`: ties go to the smallest
    value. Returns ``ModeResult(mode, count)``.
    """
    check_arraylike("mode", a)
    x = jnp.atleast_1d(a)
    _check_nan_policy(nan_policy, "mode")
    if axis is not None:
        axis = canonicalize_axis(axis, x.ndim)
    shape = x.shape
    if axis is None:
        out_shape = tuple(1 for _ in shape) if keepdims else ()
        x, axis = x.ravel(), 0
    elif keepdims:
        out_shape = tuple(1 if i == axis else s for i, s in enumerate(shape))
    else:
        out_shape = tuple(s for i, s in enumerate(shape) if i != axis)

    def one(column):
        if column.size == 0:
            return jnp.array(np.nan, dtype=_default_float()), jnp.array(0, dtype=_default_float())
        values, counts = jnp.unique(column, return_counts=True, size=column.size)
        return values[jnp.argmax(counts)], counts.max()

    x = jnp.moveaxis(x, axis, 0)
    x = x.reshape(x.shape[0], math.prod(x.shape[1:]))
    values, counts = vmap(one, in_axes=1)(x)
    return ModeResult(values.reshape(out_shape), counts.reshape(out_shape))


@jit(static_argnames=["method", "axis", "nan_policy"])
def rankdata(a, method: str = "average", *, axis: int | None = None, nan_policy: str = "propagate"):
    """Compute the rank of data, ties resolved by ``method``: ``'average'``,
    ``'min'``, ``'max'``, ``'dense'`` or ``'ordinal'``.

    JAX implementation of :func:`scipy.stats.rankdata`; any NaN makes every
    rank NaN.
    """
    check_arraylike("rankdata", a)
    _check_nan_policy(nan_policy, "rankdata")
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    if axis is not None:
        return jnp.apply_along_axis(rankdata, axis, a, method)
    a = jnp.ravel(a)
    out_dtype = _default_float()

    def ranks(a):
        ordered, order = lax_sorting.sort_key_val(a, jnp.arange(a.size))
        position = jnp.empty_like(order).at[order].set(jnp.arange(order.size, dtype=order.dtype))
        if method == "ordinal":
            return (position + 1).astype(out_dtype)
        # new_value[i]: ordered[i] starts a run of equal values.
        new_value = jnp.concatenate([jnp.array([True]), ordered[1:] != ordered[:-1]])
        dense = new_value.cumsum()[position]
        if method == "dense":
            return dense.astype(out_dtype)
        # starts[r]: where run r begins (one past the end for the last).
        starts = jnp.nonzero(new_value, size=ordered.size + 1, fill_value=new_value.size)[0].astype(out_dtype)
        if method == "max":
            return starts[dense]
        if method == "min":
            return starts[dense - 1] + 1
        return 0.5 * (starts[dense] + starts[dense - 1] + 1)

    return lax_control.cond(jnp.any(jnp.isnan(a)), lambda a: jnp.full_like(a, jnp.nan, out_dtype), ranks, a)


@jit(static_argnames=["axis", "nan_policy", "keepdims"])
def sem(a, axis: int | None = 0, ddof: int = 1, nan_policy: str = "propagate", *, keepdims: bool = False):
    """Compute the standard error of the mean: ``std(a, ddof) / sqrt(n)``.

    JAX implementation of :func:`scipy.stats.sem`; ``nan_policy='omit'``
    leaves NaNs out of both.
    """
    (b,) = promote_args_inexact("sem", a)
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[axis]
        return b.std(axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(size).astype(b.dtype)
    if nan_policy == "omit":
        count = (~jnp.isnan(b)).sum(axis, keepdims=keepdims)
        return jnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims) / jnp.sqrt(count).astype(b.dtype)
    raise ValueError(f"{nan_policy} is not supported")
