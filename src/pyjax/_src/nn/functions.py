"""Neural-network functions (pyjax.nn), written on jax.numpy as JAX writes
them, so their jaxprs match: relu is a custom_jvp around a jitted body;
softmax subtracts a stop_gradient'ed max before exponentiating.
"""

from __future__ import annotations

from functools import partial

import numpy as np


from pyjax._src.custom_derivatives import custom_jvp
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.numpy import reductions, ufuncs
from pyjax._src.numpy.util import aval_of, ensure_array, promote_args_inexact


@custom_jvp
@jit
def relu(x):
    """Rectified linear unit: max(x, 0). Its derivative at 0 is taken as 0."""
    return ufuncs.maximum(x, 0)


def _relu_tangent(g, ans, x):
    shape = aval_of(g).shape
    zero = aval_of(g).dtype.type(0)
    zeros = lax_shapes.broadcast_in_dim(zero, shape, ()) if shape else zero
    return lax_ew.select_n_p.bind(lax_ew.gt_p.bind(x, aval_of(x).dtype.type(0)), zeros, g)


relu.defjvps(_relu_tangent)


def softmax(x, axis: int | tuple = -1, where=None, initial=None):
    """Softmax along `axis`: exp(x - max) / sum(exp(x - max)).

    The max is treated as a constant (stop_gradient): it only guards
    against overflow and does not change the result.
    """
    if where is not None:
        raise NotImplementedError("jax.nn.softmax(where=...) is not implemented yet")
    x = ensure_array(x)
    x_max = reductions.max(x, axis, initial=-np.inf, keepdims=True)
    unnormalized = ufuncs.exp(ufuncs.subtract(x, lax_ew.stop_gradient(x_max)))
    return ufuncs.true_divide(unnormalized, reductions.sum(unnormalized, axis, keepdims=True))


@partial(jit, static_argnames=("axis",))
def log_softmax(x, axis: int | tuple = -1, where=None):
    """Log of softmax, computed stably: shifted - log(sum(exp(shifted))).

    Jitted (axis static), as in JAX, so it is one `jit[name=log_softmax]`
    equation in a jaxpr."""
    if where is not None:
        raise NotImplementedError("jax.nn.log_softmax(where=...) is not implemented yet")
    x = ensure_array(x)
    x_max = reductions.max(x, axis, initial=-np.inf, keepdims=True)
    shifted = ufuncs.subtract(x, lax_ew.stop_gradient(x_max))
    shifted_logsumexp = ufuncs.log(reductions.sum(ufuncs.exp(shifted), axis, keepdims=True))
    return ufuncs.subtract(shifted, shifted_logsumexp)


def sigmoid(x):
    """Logistic sigmoid: 1 / (1 + exp(-x))."""
    (x,) = promote_args_inexact("sigmoid", x)
    return lax_ew.logistic_p.bind(x, accuracy=None)


def silu(x):
    """SiLU (swish): x * sigmoid(x)."""
    (x,) = promote_args_inexact("silu", x)
    return ufuncs.multiply(x, sigmoid(x))


swish = silu


def softplus(x):
    """log(1 + exp(x)), computed stably."""
    (x,) = promote_args_inexact("softplus", x)
    return ufuncs.logaddexp(x, aval_of(x).dtype.type(0))


def tanh(x):
    """Hyperbolic tangent."""
    return ufuncs.tanh(x)


