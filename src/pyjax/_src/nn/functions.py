"""Neural-network functions (pyjax.nn): activations, softmax, normalisation,
one-hot encoding.

Each is written on jax.numpy and lax the way JAX writes it, so a program
stages the same jaxpr: most activations are a `jit` (named after the
function), relu and relu6 are a `custom_jvp` around a jit (their derivative
at the kinks is zero), sigmoid is an inlined jit (a bare `logistic`), and
softmax subtracts a stop_gradient'ed max before exponentiating.
"""

from __future__ import annotations

import operator
from functools import partial

import numpy as np

from pyjax._src import core, dtypes, errors
from pyjax._src.custom_derivatives import custom_jvp
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax import special as lax_special
from pyjax._src import dispatch
from pyjax._src.numpy.util import (
    aval_of,
    canonicalize_axis,
    check_arraylike,
    ensure_array,
    promote_args_inexact,
)
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.special import logsumexp

__all__ = [
    "celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "identity",
    "leaky_relu", "log1mexp", "log_sigmoid", "log_softmax", "logmeanexp", "logsumexp", "mish", "one_hot", "relu",
    "relu6", "selu", "sigmoid", "silu", "soft_sign", "softmax", "softplus", "sparse_plus", "sparse_sigmoid",
    "squareplus", "standardize", "swish", "tanh",
]


def _zeros_like(g):
    aval = aval_of(g)
    zero = aval.dtype.type(0)
    return lax_shapes.broadcast_in_dim(zero, aval.shape, ()) if aval.shape else zero


@jit
def identity(x):
    """Identity activation: returns `x` unchanged."""
    check_arraylike("identity", x)
    return ensure_array(x)


@custom_jvp
@jit
def relu(x):
    """Rectified linear unit: ``max(x, 0)``.

    Under differentiation the derivative at 0 is taken to be 0 (see "Numerical
    influence of ReLU'(0) on backpropagation").

    Example:
      >>> jax.nn.relu(jnp.array([-2., 0., 2.]))
      Array([0., 0., 2.], dtype=float32)
    """
    return jnp.maximum(x, 0)


relu.defjvps(lambda g, ans, x: lax_ew.select(lax_ew.gt_p.bind(x, aval_of(x).dtype.type(0)), g, _zeros_like(g)))


@custom_jvp
@jit
def relu6(x):
    """Rectified linear unit capped at 6: ``min(max(x, 0), 6)``.

    The derivative is taken to be 0 at both kinks, 0 and 6.
    """
    return jnp.minimum(jnp.maximum(x, 0), 6.0)


def _relu6_tangent(g, ans, x):
    inside = jnp.logical_and(jnp.greater(x, 0), jnp.less(x, 6))
    return lax_ew.select(inside, g, _zeros_like(g))


relu6.defjvps(_relu6_tangent)


@jit
def squareplus(x, b=4):
    """Squareplus: ``(x + sqrt(x**2 + b)) / 2``, a smooth relu (arXiv:2112.11687).

    Args:
      x: input array.
      b: smoothness parameter (default 4).
    """
    check_arraylike("squareplus", x, b)
    y = jnp.add(x, jnp.sqrt(jnp.add(jnp.square(x), b)))
    return jnp.true_divide(y, 2)


@jit
def softplus(x):
    """Softplus: ``log(1 + exp(x))``, computed without overflow."""
    return jnp.logaddexp(x, 0)


@jit
def sparse_plus(x):
    """Sparse plus: 0 for x <= -1, ``(x + 1)**2 / 4`` on (-1, 1), x for x >= 1."""
    check_arraylike("sparse_plus", x)
    x = ensure_array(x)
    return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@jit
def soft_sign(x):
    """Soft-sign: ``x / (|x| + 1)``."""
    check_arraylike("soft_sign", x)
    x = ensure_array(x)
    return x / (jnp.abs(x) + 1)


@partial(jit, inline=True)
def sigmoid(x):
    """Logistic sigmoid: ``1 / (1 + exp(-x))`` (the `logistic` primitive)."""
    return lax_ew.logistic_p.bind(x, accuracy=None)


@jit
def sparse_sigmoid(x):
    """Sparse sigmoid: ``clip(x + 1, 0, 2) / 2``, the derivative of sparse_plus."""
    return 0.5 * jnp.clip(x + 1.0, 0.0, 2.0)


@jit
def silu(x):
    """SiLU (swish): ``x * sigmoid(x)``."""
    check_arraylike("silu", x)
    x = ensure_array(x)
    return x * sigmoid(x)


swish = silu


@jit
def mish(x):
    """Mish: ``x * tanh(softplus(x))`` (arXiv:1908.08681)."""
    check_arraylike("mish", x)
    x = ensure_array(x)
    return x * jnp.tanh(softplus(x))


@jit
def log_sigmoid(x):
    """Log-sigmoid: ``log(sigmoid(x)) = -softplus(-x)``."""
    check_arraylike("log_sigmoid", x)
    x = ensure_array(x)
    return -softplus(-x)


@jit
def elu(x, alpha=1.0):
    """Exponential linear unit: x for x > 0, ``alpha * (exp(x) - 1)`` otherwise.

    The exponential only ever sees non-positive inputs, so it cannot overflow
    (and its gradient is not NaN) for large x.
    """
    check_arraylike("elu", x)
    x = ensure_array(x)
    return jnp.where(x > 0, x, alpha * jnp.expm1(jnp.where(x > 0, 0.0, x)))


@jit
def leaky_relu(x, negative_slope=1e-2):
    """Leaky relu: x for x >= 0, ``negative_slope * x`` otherwise."""
    check_arraylike("leaky_relu", x)
    x = ensure_array(x)
    return jnp.where(x >= 0, x, negative_slope * x)


@jit
def hard_tanh(x):
    """Hard tanh: x clipped to [-1, 1]."""
    check_arraylike("hard_tanh", x)
    x = ensure_array(x)
    return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


@jit
def celu(x, alpha=1.0):
    """Continuously differentiable ELU: ``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``."""
    return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@jit
def selu(x):
    """Scaled ELU (arXiv:1706.02515): ``scale * elu(x, alpha)`` with the
    self-normalising constants alpha = 1.6732632... and scale = 1.0507009..."""
    return _SELU_SCALE * elu(x, _SELU_ALPHA)


def gelu(x, approximate: bool = True):
    """Gaussian error linear unit.

    With ``approximate=False``: ``x / 2 * erfc(-x / sqrt(2))``. With
    ``approximate=True`` (the default) the tanh form
    ``x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x**3)))``.

    Not jitted, as in JAX (a jit changed its numerics there).
    """
    (x,) = promote_args_inexact("gelu", x)
    dtype = aval_of(x).dtype
    if approximate:
        sqrt_2_over_pi = np.sqrt(2 / np.pi).astype(dtype)
        cdf = 0.5 * (1.0 + jnp.tanh(sqrt_2_over_pi * (x + 0.044715 * (x ** 3))))
        return x * cdf
    sqrt_half = np.sqrt(0.5).astype(dtype)
    out = 0.5 * x * lax_special.erfc(-x * sqrt_half)
    # JAX wraps the result in jnp.array(..., dtype), which stages a `copy`.
    return lax_ew.copy_p.bind(out)


@partial(jit, static_argnames=("axis",))
def glu(x, axis: int = -1):
    """Gated linear unit: splits `x` in two halves along `axis` and returns
    ``first * sigmoid(second)``. The axis size must be even."""
    check_arraylike("glu", x)
    x = ensure_array(x)
    size = aval_of(x).shape[axis]
    assert size % 2 == 0, "axis size must be divisible by 2"
    x1, x2 = jnp.split(x, 2, axis)
    return x1 * sigmoid(x2)


@dispatch.fast_path
@partial(jit, static_argnames=("axis",))
def log_softmax(x, axis: int | tuple | None = -1, where=None):
    """Log-softmax: ``x - logsumexp(x, axis)``, in [-inf, 0).

    Args:
      x: input array.
      axis: the axis or axes to normalise over (None: all).
      where: elements to include; the output is -inf for the others.
    """
    check_arraylike("log_softmax", x)
    x = ensure_array(x)
    x_max = jnp.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    shifted = x_safe - lax_ew.stop_gradient(x_max)
    shifted_logsumexp = jnp.log(jnp.sum(jnp.exp(shifted), axis, where=where, keepdims=True))
    result = shifted - shifted_logsumexp
    return result if where is None else jnp.where(where, result, -np.inf)


@dispatch.fast_path
def softmax(x, axis: int | tuple | None = -1, where=None):
    """Softmax: ``exp(x) / sum(exp(x), axis)``, summing to 1 along `axis`.

    The max subtracted first (against overflow) is a stop_gradient constant:
    it does not change the result, so it gets no derivative.

    Args:
      x: input array.
      axis: the axis or axes to normalise over (None: all).
      where: elements to include; the output is 0 for the others.
    """
    from pyjax._src import config

    if config.softmax_custom_jvp.value:
        return _softmax(x, axis, where)
    x_max = jnp.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    unnormalized = jnp.exp(x_safe - lax_ew.stop_gradient(x_max))
    result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
    return result if where is None else jnp.where(where, result, 0)


# jax_softmax_custom_jvp: softmax as a custom_jvp function whose tangent is
# y * (x_dot - sum(y * x_dot)), so its derivative never meets exp's overflow.
def _softmax_with_jvp(x, axis, where=None, initial=-np.inf):
    x_max = jnp.max(x, axis, where=where, initial=initial, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, initial)
    unnormalized = jnp.exp(x_safe - x_max)
    result = unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)
    return result if where is None else jnp.where(where, result, 0)


_softmax_with_jvp.__name__ = "_softmax"
_softmax = custom_jvp(_softmax_with_jvp, nondiff_argnums=(1,))


@_softmax.defjvp
def _softmax_jvp(axis, primals, tangents):
    (x, where, initial), (x_dot, _, _) = primals, tangents
    y = _softmax(x, axis, where, initial)
    return y, y * (x_dot - (y * x_dot).sum(axis, where=where, keepdims=True))


@partial(jit, static_argnames=("axis", "algorithm"))
def standardize(x, axis: int | tuple | None = -1, mean=None, variance=None, epsilon=1e-5, where=None, *,
                algorithm: str = "fast"):
    """Standardizes `x` to zero mean and unit variance along `axis`:
    ``(x - mean) / sqrt(variance + epsilon)``.

    Args:
      x: input array.
      axis: the axis or axes the statistics are taken over (None: all).
      mean, variance: used instead of the statistics of `x` when given.
      epsilon: added to the variance against division by zero.
      where: elements the statistics are taken over.
      algorithm: ``"fast"`` computes the variance as ``mean(x**2) - mean(x)**2``
        (clipped at 0); ``"stable"`` as ``mean((x - mean(x))**2)``.
    """
    check_arraylike("standardize", x)
    for arg in (mean, variance, where):
        if arg is not None:
            check_arraylike("standardize", arg)
    if mean is None:
        mean = jnp.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            variance = jnp.mean(jnp.square(jnp.subtract(x, mean)), axis, keepdims=True, where=where)
        elif algorithm == "fast":
            # One pass; cancellation can make it slightly negative, hence the clip.
            variance = jnp.mean(jnp.square(x), axis, keepdims=True, where=where) - jnp.square(mean)
            variance = jnp.clip(variance, 0)
        else:
            raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return jnp.subtract(x, mean) * lax_ew.rsqrt(variance + epsilon)


def _concrete_num_classes(num_classes):
    if isinstance(num_classes, core.Tracer):
        raise errors.ConcretizationTypeError(num_classes, "The error arose in jax.nn.one_hot argument `num_classes`.")
    return operator.index(num_classes)


@partial(jit, static_argnames=("num_classes", "dtype", "axis"))
def _one_hot(x, num_classes: int, *, dtype, axis: int):
    ndim = aval_of(x).ndim
    out_axis = canonicalize_axis(axis, ndim + 1)
    indices = lax_shapes.expand_dims(x, (axis,))
    classes_shape = [1] * ndim
    classes_shape.insert(out_axis, num_classes)
    classes = lax_shapes.broadcasted_iota(aval_of(x).dtype, classes_shape, out_axis)
    return lax_ew._convert_element_type(lax_ew.eq_p.bind(indices, classes), dtype, False)


def one_hot(x, num_classes: int, *, dtype=None, axis: int = -1):
    """One-hot encodes integer indices.

    Each index becomes a vector of `num_classes` zeros with a one at the
    index; indices outside [0, num_classes) become all zeros.

    Args:
      x: an array of indices.
      num_classes: the length of each encoding (a static integer).
      dtype: the result dtype (default: the default float type).
      axis: where the new axis goes.

    Example:
      >>> jax.nn.one_hot(jnp.array([0, 2]), 3)
      Array([[1., 0., 0.],
             [0., 0., 1.]], dtype=float32)
    """
    num_classes = _concrete_num_classes(num_classes)
    x = jnp.asarray(x)
    dtype = dtypes.default_float_dtype() if dtype is None else dtypes.check_and_canonicalize_user_dtype(dtype, "one_hot")
    return _one_hot(x, num_classes, dtype=np.dtype(dtype), axis=axis)


@jit
def hard_sigmoid(x):
    """Hard sigmoid: ``relu6(x + 3) / 6``."""
    return relu6(x + 3.0) / 6.0


@jit
def hard_silu(x):
    """Hard SiLU (hard swish): ``x * hard_sigmoid(x)``."""
    check_arraylike("hard_silu", x)
    x = ensure_array(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


@partial(jit, static_argnames=("axis", "keepdims"))
def logmeanexp(x, axis: int | tuple | None = None, where=None, keepdims: bool = False):
    """Log of the mean of exponentials: ``logsumexp(x) - log(n)``, n the
    number of (selected) elements reduced.

    Args:
      x: input array.
      axis: the axis or axes to reduce (None: all).
      where: elements to include.
      keepdims: keep the reduced axes as size-1 dimensions.
    """
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    dtype = aval_of(lse).dtype
    if where is None:
        shape = aval_of(jnp.asarray(x)).shape
        axes = range(len(shape)) if axis is None else ((axis,) if isinstance(axis, int) else axis)
        count = np.array(np.prod([shape[a] for a in axes], dtype=np.int64), dtype)[()]
    else:
        count = jnp.sum(jnp.broadcast_to(where, aval_of(jnp.asarray(x)).shape), axis, dtype=dtype, keepdims=keepdims)
    return lse - jnp.log(count)


@custom_jvp
@jit
def log1mexp(x):
    """``log(1 - exp(-x))`` for x >= 0, accurate for small and large x
    (Maechler, "Accurately computing log(1 - exp(-|a|))"): log(-expm1(-x))
    below log 2, log1p(-exp(-x)) above."""
    check_arraylike("log1mexp", x)
    x = ensure_array(x)
    c = jnp.log(2.0)
    return jnp.where(x < c, jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


log1mexp.defjvps(lambda g, ans, x: g / jnp.expm1(x))


def tanh(x):
    """Hyperbolic tangent (jax.nn re-exports jnp.tanh)."""
    return jnp.tanh(x)
