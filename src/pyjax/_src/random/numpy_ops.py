"""The few jax.numpy / lax helpers the samplers need that pyjax.numpy does
not offer yet, each written to stage the same equations as JAX's own.

When pyjax.numpy grows the public function (``jnp.clip``, ``jnp.take``,
``jnp.cumsum`` ...), the samplers should call it and the helper here can go.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src.jit import jit
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.numpy.creation import asarray
from pyjax._src.numpy.ufuncs import maximum, minimum


def shape_of(x) -> tuple:
    """``np.shape`` that also reads tracers and Arrays."""
    aval = getattr(x, "aval", None)
    return tuple(aval.shape) if aval is not None else np.shape(x)


def ndim_of(x) -> int:
    return len(shape_of(x))


def dtype_of(x):
    """lax's dtype of a value: Python scalars give their canonical default."""
    return dtypes.dtype(x, canonicalize=True)


def const(example, value):
    """``value`` as a constant of ``example``'s dtype (lax's ``_const``): a
    Python scalar stays one (a weak literal) when its type already matches."""
    dtype = dtype_of(example)
    if dtypes.is_python_scalar(example):
        value = dtypes.scalar_type_of(example)(value)
        return value if dtype == dtype_of(value) else np.array(value, dtype)
    return np.array(value, dtype)


def broadcast_to_rank(x, rank: int):
    """Adds leading size-1 axes up to ``rank`` (lax's ``broadcast_to_rank``)."""
    ndim = ndim_of(x)
    if ndim == rank:
        return asarray(x)
    return lax_shapes.broadcast(x, (1,) * (rank - ndim))


@jit
def clip(arr=None, /, min=None, max=None):
    """``jnp.clip``: ``minimum(max, maximum(min, arr))``, as one jitted call."""
    if min is not None:
        arr = maximum(min, arr)
    if max is not None:
        arr = minimum(max, arr)
    return asarray(arr)


__all__ = ["broadcast_to_rank", "clip", "const", "dtype_of", "ndim_of", "shape_of"]
