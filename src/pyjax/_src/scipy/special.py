"""Special functions (jax.scipy.special), on lax's special-function primitives.

logsumexp is shared with jax.nn.
"""

from __future__ import annotations

import numpy as np

from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.numpy.reductions import _axes
from pyjax._src.numpy.util import aval_of, promote_args_inexact
from pyjax._src.scipy import jnp_pending as jnp


def _full_like(x, value):
    aval = aval_of(x)
    scalar = np.array(value, aval.dtype)[()]
    return lax_shapes.broadcast_in_dim(scalar, aval.shape, ()) if aval.shape else scalar


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False, where=None):
    """Log of the sum of exponentials: ``log(sum(b * exp(a), axis))``, without overflow.

    Args:
      a: input array.
      axis: the axis or axes to reduce (None: all).
      b: scale factors for the exponentials, broadcastable to `a`.
      keepdims: keep the reduced axes as size-1 dimensions.
      return_sign: also return the sign of the sum; the first result is then
        the log of its absolute value.
      where: elements to include in the sum.

    Returns:
      The reduction, or a pair ``(result, sign)`` with `return_sign`. Without
      `return_sign`, a negative sum gives NaN.
    """
    if where is not None:
        a = jnp.where(where, a, 0)
    if b is not None:
        a, b = promote_args_inexact("logsumexp", a, b)
        a = jnp.where(jnp.not_equal(b, 0), a, -np.inf)
    else:
        (a,) = promote_args_inexact("logsumexp", a)
    a = jnp.asarray(a)
    dims = _axes(axis, aval_of(a).ndim)
    is_complex = aval_of(a).dtype.kind == "c"
    amax = jnp.max(lax_ew.real_p.bind(a) if is_complex else a, axis=dims, keepdims=keepdims, where=where,
                   initial=-np.inf)
    # A non-finite max (all -inf, or an inf) must not be subtracted: use 0.
    amax = lax_ew.stop_gradient(lax_ew.select(jnp.isfinite(amax), amax, _full_like(amax, 0)))
    amax_with_dims = amax if keepdims else lax_shapes.expand_dims(amax, dims)
    exp_a = lax_ew.exp_p.bind(lax_ew.sub_p.bind(a, lax_ew._convert_element_type(amax_with_dims, aval_of(a).dtype)),
                              accuracy=None)
    if b is not None:
        exp_a = lax_ew.mul_p.bind(exp_a, b)
    sumexp = jnp.sum(exp_a, axis=dims, keepdims=keepdims, where=where)
    sign = lax_ew.sign_p.bind(sumexp)
    if return_sign or not is_complex:
        sumexp = jnp.abs(sumexp)
    out = lax_ew.add_p.bind(lax_ew.log_p.bind(sumexp, accuracy=None),
                            lax_ew._convert_element_type(amax, aval_of(sumexp).dtype))
    if return_sign:
        return out, sign
    if b is not None and not is_complex:
        out = jnp.where(sign < 0, np.array(np.nan, aval_of(out).dtype), out)
    return out
