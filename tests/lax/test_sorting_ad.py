"""Autodiff of sort, top_k and approx_top_k: tangents follow the permutation.
JVPs and VJPs against finite differences (check_grads, to second order) on
inputs without ties, and the permutation itself against NumPy's."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from helpers import check_close

import pyjax as jax
from pyjax import lax
from pyjax.test_util import check_grads

# float32 finite differences: the tolerance these checks were written for
# (JAX's own default for float32 is 2e-3)
check_grads = functools.partial(check_grads, atol=2e-2, rtol=2e-2)

# Distinct values, no two closer than the finite-difference step can swap.
X = np.array([[0.7, -1.3, 2.1, 0.2, 1.4], [3.0, 0.9, -0.4, -2.2, 1.1], [0.05, 0.6, -0.8, 1.7, -1.5]], np.float32)


@pytest.mark.parametrize("dimension", [0, 1])
def test_sort(dimension):
    check_grads(lambda x: lax.sort(x, dimension=dimension) * np.arange(X.shape[dimension] * 1.0, dtype=np.float32).reshape(
        (-1, 1) if dimension == 0 else (1, -1)), (X,), order=2, modes=("fwd", "rev"))


def test_sort_tangent_is_permuted():
    t = np.arange(15.0, dtype=np.float32).reshape(3, 5)
    _, tangent = jax.jvp(lambda x: lax.sort(x), (X,), (t,))
    check_close(tangent, np.take_along_axis(t, np.argsort(X, axis=1), axis=1))


def test_sort_several_operands():
    values = X[::-1] * 2.0
    f = lambda k, v: lax.sort((k, v), dimension=1, num_keys=1)
    check_grads(f, (X, values), order=2, modes=("fwd", "rev"))
    # Two keys: ordered by the first, ties broken by the second.
    keys = np.array([[1.0, 0.0, 1.0, 0.0]], np.float32)
    g = lambda k2, v: lax.sort((keys, k2, v), num_keys=2)[2]
    check_grads(g, (np.array([[0.4, 0.3, -0.2, 0.9]], np.float32), np.array([[1.0, 2.0, 3.0, 4.0]], np.float32)),
                order=2, modes=("fwd", "rev"))


def test_sort_key_val_integer_keys():
    keys = np.array([3, 1, 2, 0], np.int32)
    grad = jax.grad(lambda v: (lax.sort_key_val(keys, v)[1] * np.arange(4.0, dtype=np.float32)).sum())(
        np.ones(4, np.float32))
    check_close(grad, np.array([3.0, 1.0, 2.0, 0.0], np.float32))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_top_k(axis):
    check_grads(lambda x: lax.top_k(x, 2, axis=axis)[0] ** 2, (X,), order=2, modes=("fwd", "rev"))


def test_top_k_indices_have_no_tangent():
    (_, indices), (t_values, t_indices) = jax.jvp(lambda x: lax.top_k(x, 3), (X,), (np.ones_like(X),))
    assert t_indices.dtype == jax.dtypes.float0 and t_indices.shape == indices.shape
    check_close(t_values, np.ones((3, 3), np.float32))


@pytest.mark.parametrize("approx", [lax.approx_max_k, lax.approx_min_k])
@pytest.mark.parametrize("dimension", [0, -1])
def test_approx_top_k(approx, dimension):
    check_grads(lambda x: approx(x, 2, reduction_dimension=dimension)[0] ** 2, (X,), order=2, modes=("fwd", "rev"))


def test_approx_max_k_grad_lands_on_the_winners():
    grad = jax.grad(lambda x: approx_sum(x))(X[0])
    check_close(grad, np.array([0, 0, 1, 0, 1], np.float32))


def approx_sum(x):
    return lax.approx_max_k(x, 2)[0].sum()
