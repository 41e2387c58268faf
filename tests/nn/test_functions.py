"""jax.nn's activations, softmax family, standardize and one_hot.

Each activation is checked against a float64 NumPy/SciPy oracle in every
float dtype JAX accepts, for its derivatives against finite differences
(check_grads), for the derivative conventions at its kinks, and for its
decomposition (a jit, a custom_jvp) by the equation it stages. The jaxprs
themselves are held to JAX's text in tests/golden/programs_nn.py.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import scipy.special as sc
from helpers import check_close

import pyjax
import pyjax.numpy as jnp
from pyjax import nn
from pyjax.test_util import check_grads

BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = [np.dtype("float16"), BF16, np.dtype("float32")]
TOL = {np.dtype("float16"): 5e-3, BF16: 3e-2, np.dtype("float32"): 2e-6}

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def softplus64(x):
    return np.logaddexp(x, 0.0)


# name -> (function, float64 oracle)
ACTIVATIONS = {
    "relu": (nn.relu, lambda x: np.maximum(x, 0)),
    "relu6": (nn.relu6, lambda x: np.minimum(np.maximum(x, 0), 6)),
    "gelu_tanh": (nn.gelu, lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    "gelu_exact": (lambda x: nn.gelu(x, approximate=False), lambda x: 0.5 * x * sc.erfc(-x / np.sqrt(2))),
    "silu": (nn.silu, lambda x: x * sc.expit(x)),
    "swish": (nn.swish, lambda x: x * sc.expit(x)),
    "sigmoid": (nn.sigmoid, sc.expit),
    "softplus": (nn.softplus, softplus64),
    "soft_sign": (nn.soft_sign, lambda x: x / (np.abs(x) + 1)),
    "log_sigmoid": (nn.log_sigmoid, lambda x: -softplus64(-x)),
    "elu": (nn.elu, lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))),
    "elu_alpha": (lambda x: nn.elu(x, 0.3), lambda x: np.where(x > 0, x, 0.3 * np.expm1(np.minimum(x, 0)))),
    "celu": (lambda x: nn.celu(x, 1.5), lambda x: np.maximum(x, 0) + 1.5 * np.expm1(np.minimum(x, 0) / 1.5)),
    "selu": (nn.selu, lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(np.minimum(x, 0)))),
    "leaky_relu": (nn.leaky_relu, lambda x: np.where(x >= 0, x, 0.01 * x)),
    "leaky_relu_slope": (lambda x: nn.leaky_relu(x, 0.2), lambda x: np.where(x >= 0, x, 0.2 * x)),
    "hard_tanh": (nn.hard_tanh, lambda x: np.clip(x, -1, 1)),
    "hard_sigmoid": (nn.hard_sigmoid, lambda x: np.clip(x + 3, 0, 6) / 6),
    "hard_silu": (nn.hard_silu, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "hard_swish": (nn.hard_swish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "squareplus": (nn.squareplus, lambda x: (x + np.sqrt(x * x + 4)) / 2),
    "squareplus_b": (lambda x: nn.squareplus(x, 1.0), lambda x: (x + np.sqrt(x * x + 1)) / 2),
    "mish": (nn.mish, lambda x: x * np.tanh(softplus64(x))),
    "sparse_plus": (nn.sparse_plus, lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4))),
    "sparse_sigmoid": (nn.sparse_sigmoid, lambda x: 0.5 * np.clip(x + 1, 0, 2)),
    "identity": (nn.identity, lambda x: x),
    "tanh": (nn.tanh, np.tanh),
}

# Smooth away from the kinks the sample avoids.
DIFFERENTIABLE = sorted(set(ACTIVATIONS) - {"identity"})


SAMPLE = np.array([-7.5, -3.2, -1.3, -0.7, -0.2, 0.3, 0.9, 1.6, 2.9, 5.5, 8.25], np.float32)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_matches_oracle(name, dtype):
    fn, oracle = ACTIVATIONS[name]
    x = SAMPLE.astype(dtype)
    out = fn(jnp.asarray(x))
    expected = oracle(x.astype(np.float64)).astype(dtype)
    check_close(out, expected, rtol=TOL[dtype], atol=TOL[dtype])


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_float64(name):
    fn, oracle = ACTIVATIONS[name]
    with pyjax.enable_x64(True):
        out = fn(jnp.asarray(SAMPLE.astype(np.float64)))
        check_close(out, oracle(SAMPLE.astype(np.float64)), rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_jit_and_vmap(name):
    fn, _ = ACTIVATIONS[name]
    x = jnp.asarray(SAMPLE.reshape(1, -1) * np.ones((3, 1), np.float32))
    eager = fn(x)
    check_close(pyjax.jit(fn)(x), eager)
    check_close(pyjax.vmap(fn)(x), eager)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_activation_gradients(name):
    fn, _ = ACTIVATIONS[name]
    with pyjax.enable_x64(True):
        check_grads(fn, (jnp.asarray(SAMPLE.astype(np.float64)),), order=2, atol=1e-6, rtol=1e-6)


def test_gelu_exact_gradient():
    with pyjax.enable_x64(True):
        check_grads(lambda x: nn.gelu(x, approximate=False), (jnp.asarray(SAMPLE.astype(np.float64)),), order=1)


def test_integer_inputs():
    i = jnp.arange(-3, 4)
    check_close(nn.relu(i), np.maximum(np.arange(-3, 4), 0).astype(np.int32))
    # relu6 caps at the float 6.0, which promotes integers to float.
    check_close(nn.relu6(i * 3), np.clip(np.arange(-3, 4) * 3, 0, 6).astype(np.float32))
    # Functions that need floats promote integers to the default float type.
    check_close(nn.gelu(i), ACTIVATIONS["gelu_tanh"][1](np.arange(-3.0, 4.0)).astype(np.float32), rtol=1e-6)
    check_close(nn.silu(i.astype(jnp.float16)), (np.arange(-3.0, 4.0) * sc.expit(np.arange(-3.0, 4.0))).astype(np.float16),
                rtol=5e-3)
    # sigmoid is lax.logistic itself, which (as in JAX) refuses integers.
    with pytest.raises(TypeError, match="logistic does not accept dtype int32"):
        nn.sigmoid(i)


def test_weak_types():
    assert pyjax.typeof(nn.relu(2.0)).weak_type
    assert pyjax.typeof(nn.softplus(2.0)).weak_type
    # gelu multiplies by NumPy float32 constants, which are strongly typed.
    assert not pyjax.typeof(nn.gelu(1.0)).weak_type


@pytest.mark.parametrize("fn,at,expected", [
    (nn.relu, [0.0, -1.0, 1.0], [0.0, 0.0, 1.0]),
    (nn.relu6, [0.0, 6.0, 3.0, 7.0], [0.0, 0.0, 1.0, 0.0]),
    (nn.hard_tanh, [-2.0, 0.5, 2.0], [0.0, 1.0, 0.0]),
    (nn.leaky_relu, [-1.0, 1.0], [0.01, 1.0]),
    (nn.elu, [-1.0, 2.0], [np.exp(-1.0), 1.0]),
])
def test_derivative_conventions(fn, at, expected):
    grad = pyjax.vmap(pyjax.grad(fn))(jnp.asarray(at))
    check_close(grad, np.asarray(expected, np.float32), rtol=1e-6)


def test_elu_gradient_finite_for_large_inputs():
    # The exponential sees only non-positive inputs, so no inf * 0 = NaN.
    g = pyjax.grad(lambda x: nn.elu(x).sum())(jnp.asarray([100.0, 1000.0]))
    check_close(g, np.ones(2, np.float32))


def test_softplus_extremes():
    x = jnp.asarray([-1000.0, -np.inf, 1000.0, np.inf])
    check_close(nn.softplus(x), np.array([0.0, 0.0, 1000.0, np.inf], np.float32))
    g = pyjax.vmap(pyjax.grad(nn.softplus))(x)
    check_close(g, np.array([0.0, 0.0, 1.0, 1.0], np.float32))


def test_decomposition():
    x = jnp.ones(3)
    prims = lambda f: [e.primitive.name for e in pyjax.make_jaxpr(f)(x).jaxpr.eqns]
    assert prims(nn.relu) == ["custom_jvp_call"]
    assert prims(nn.relu6) == ["custom_jvp_call"]
    assert prims(nn.sigmoid) == ["logistic"]  # an inlined jit
    assert prims(nn.silu) == ["jit"]
    assert prims(nn.gelu) == ["integer_pow", "mul", "add", "mul", "tanh", "add", "mul", "mul"]
    assert prims(nn.softmax)[:5] == ["reduce_max", "max", "broadcast_in_dim", "stop_gradient", "sub"]
    assert prims(nn.log_softmax) == ["jit"]


# ---- softmax, log_softmax, logsumexp ----

def np_softmax(x, axis, where=None):
    x = np.asarray(x, np.float64)
    if where is not None:
        x = np.where(where, x, -np.inf)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    out = e / np.sum(e, axis=axis, keepdims=True)
    return out if where is None else np.where(where, out, 0)


X = np.random.default_rng(0).normal(size=(3, 4, 5)).astype(np.float32) * 3


@pytest.mark.parametrize("axis", [-1, 0, 1, (0, 2), None])
def test_softmax_axes(axis):
    out = nn.softmax(jnp.asarray(X), axis=axis)
    check_close(out, np_softmax(X, axis).astype(np.float32), rtol=1e-5, atol=1e-7)
    check_close(jnp.sum(out, axis=axis), np.ones(np.sum(X, axis=axis).shape, np.float32), rtol=1e-5)


@pytest.mark.parametrize("axis", [-1, 0, (1, 2), None])
def test_log_softmax_axes(axis):
    out = nn.log_softmax(jnp.asarray(X), axis=axis)
    check_close(out, np.log(np_softmax(X, axis)).astype(np.float32), rtol=1e-5, atol=1e-5)


def test_softmax_where():
    where = X > -1
    out = nn.softmax(jnp.asarray(X), where=jnp.asarray(where))
    check_close(out, np_softmax(X, -1, where).astype(np.float32), rtol=1e-5, atol=1e-7)
    assert np.all(np.asarray(out)[~where] == 0)


def test_log_softmax_where():
    where = X > -1
    out = np.asarray(nn.log_softmax(jnp.asarray(X), where=jnp.asarray(where)))
    assert np.all(out[~where] == -np.inf)
    with np.errstate(divide="ignore"):
        expected = np.log(np_softmax(X, -1, where))
    np.testing.assert_allclose(out[where], expected[where], rtol=1e-5, atol=1e-5)


def test_softmax_large_inputs_do_not_overflow():
    out = nn.softmax(jnp.asarray([1000.0, 1000.0, -1000.0]))
    check_close(out, np.array([0.5, 0.5, 0.0], np.float32))


def test_softmax_gradients():
    x = jnp.asarray(X[0].astype(np.float64))
    with pyjax.enable_x64(True):
        x = jnp.asarray(X[0].astype(np.float64))
        check_grads(lambda x: nn.softmax(x, axis=0), (x,), order=2)
        check_grads(lambda x: nn.log_softmax(x, axis=1), (x,), order=2)
        check_grads(lambda x: nn.logsumexp(x, axis=1), (x,), order=2)


def test_softmax_gradient_ignores_max_shift():
    # d/dx sum(softmax(x) * w) with the stop_gradient'ed max equals the exact
    # Jacobian diag(s) - s s^T applied to w.
    x = np.array([0.3, -1.2, 2.0], np.float32)
    w = np.array([1.0, 2.0, -0.5], np.float32)
    g = pyjax.grad(lambda x: jnp.sum(nn.softmax(x) * w))(jnp.asarray(x))
    s = np_softmax(x, -1)
    check_close(g, ((np.diag(s) - np.outer(s, s)) @ w).astype(np.float32), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("axis", [None, 0, (1, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_logsumexp(axis, keepdims):
    out = nn.logsumexp(jnp.asarray(X), axis=axis, keepdims=keepdims)
    check_close(out, sc.logsumexp(X.astype(np.float64), axis=axis, keepdims=keepdims).astype(np.float32),
                rtol=1e-5, atol=1e-6)


# ---- standardize ----

def np_standardize(x, axis, epsilon=1e-5):
    x = np.asarray(x, np.float64)
    mean = x.mean(axis=axis, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=axis, keepdims=True) + epsilon)


@pytest.mark.parametrize("algorithm", ["fast", "stable"])
@pytest.mark.parametrize("axis", [-1, 0, (0, 2), None])
def test_standardize(axis, algorithm):
    out = nn.standardize(jnp.asarray(X), axis=axis, algorithm=algorithm)
    check_close(out, np_standardize(X, axis).astype(np.float32), rtol=2e-5, atol=2e-5)


def test_standardize_given_statistics_and_where():
    x = jnp.asarray(X)
    out = nn.standardize(x, mean=1.0, variance=4.0, epsilon=0.0)
    check_close(out, ((X - 1.0) / 2.0).astype(np.float32), rtol=1e-6)
    where = X > 0
    masked = nn.standardize(x, axis=-1, where=jnp.asarray(where), algorithm="stable")
    for i in np.ndindex(X.shape[:2]):
        sel = X[i][where[i]]
        if sel.size:
            expected = (X[i][where[i]] - sel.mean()) / np.sqrt(sel.var() + 1e-5)
            np.testing.assert_allclose(np.asarray(masked)[i][where[i]], expected, rtol=2e-5, atol=2e-5)


@pytest.mark.numpy_backend("asserts JAX 0.11.0's recorded float32 bits (XLA's division by a constant)")
def test_standardize_fast_variance_clipped_at_zero():
    # A constant row has variance 0; cancellation must not make it negative
    # (rsqrt of a negative would be nan). The mean is sum * (1/5) under
    # standardize's jit, as XLA computes a division by a constant, so the
    # result is not exactly 0: JAX 0.11.0 gives -7.539457e-05 (recorded).
    out = np.asarray(nn.standardize(jnp.full((2, 5), 3.1), axis=-1))
    np.testing.assert_array_equal(out, np.full((2, 5), np.float32(-7.539457e-05)))


def test_standardize_unknown_algorithm():
    with pytest.raises(ValueError, match="Unknown algorithm 'slow'. Expected 'fast' or 'stable'."):
        nn.standardize(jnp.ones(3), algorithm="slow")


# ---- glu, one_hot ----

@pytest.mark.parametrize("axis", [-1, 0])
def test_glu(axis):
    x = X[0] if axis == -1 else X[0].T
    first, second = np.split(x.astype(np.float64), 2, axis=axis) if x.shape[axis] % 2 == 0 else (None, None)
    x = np.concatenate([x, x], axis=axis)
    first, second = np.split(x.astype(np.float64), 2, axis=axis)
    check_close(nn.glu(jnp.asarray(x), axis=axis), (first * sc.expit(second)).astype(np.float32), rtol=1e-6)


def test_glu_odd_axis():
    with pytest.raises(AssertionError, match="axis size must be divisible by 2"):
        nn.glu(jnp.ones((2, 3)))


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot(axis):
    idx = np.array([[0, 2, 5], [-1, 1, 3]])
    out = nn.one_hot(jnp.asarray(idx), 4, axis=axis)
    expected = np.moveaxis((idx[..., None] == np.arange(4)).astype(np.float32), -1, axis)
    check_close(out, expected)


def test_one_hot_dtype_and_jit():
    out = pyjax.jit(lambda i: nn.one_hot(i, 3, dtype=jnp.int32))(jnp.arange(3))
    check_close(out, np.eye(3, dtype=np.int32))
    assert nn.one_hot(jnp.arange(2), 2, dtype=jnp.bfloat16).dtype == BF16


def test_one_hot_traced_num_classes():
    with pytest.raises(pyjax.errors.ConcretizationTypeError, match="argument `num_classes`"):
        pyjax.jit(lambda n: nn.one_hot(jnp.arange(3), n))(3)


# ---- logmeanexp, log1mexp ----

@pytest.mark.parametrize("axis", [None, 0, (1, 2)])
def test_logmeanexp(axis):
    count = X.size if axis is None else np.prod([X.shape[a] for a in np.atleast_1d(axis)])
    expected = sc.logsumexp(X.astype(np.float64), axis=axis) - np.log(count)
    check_close(nn.logmeanexp(jnp.asarray(X), axis=axis), expected.astype(np.float32), rtol=1e-5, atol=1e-5)
    where = X > 0
    out = np.asarray(nn.logmeanexp(jnp.asarray(X), axis=-1, where=jnp.asarray(where)))
    for i in np.ndindex(X.shape[:2]):
        if where[i].any():
            np.testing.assert_allclose(out[i], np.log(np.mean(np.exp(X[i][where[i]].astype(np.float64)))), rtol=1e-5)


@pytest.mark.numpy_backend("IREE's float64 log/expm1 are accurate to about 1e-12 relative; the test asks 1e-13")
def test_log1mexp():
    x = np.array([1e-6, 1e-3, 0.3, np.log(2.0), 2.0, 30.0])
    with pyjax.enable_x64(True):
        check_close(nn.log1mexp(jnp.asarray(x)), np.log(-np.expm1(-x)), rtol=1e-13, atol=1e-14)
        check_grads(nn.log1mexp, (jnp.asarray(x[2:5]),), order=2)
