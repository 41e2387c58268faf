"""jax.scipy.optimize.minimize(method="BFGS") against scipy.optimize: the
minimizer on convex and non-convex problems in float64, its bookkeeping
(status, counts, the inverse-Hessian estimate), options and args, jit and
vmap over starting points, and JAX's errors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize as so

import pyjax
import pyjax.numpy as jnp
from pyjax.scipy.optimize import OptimizeResults, minimize


def rosenbrock(np_like):
    return lambda x: np_like.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def quadratic(np_like, A, b):
    return lambda x: 0.5 * x @ A @ x - b @ x


@pytest.fixture(autouse=True)
def x64():
    with pyjax.enable_x64(True):
        yield


@pytest.mark.parametrize("x0", [[0.5, 0.5], [2.0, 2.0], [1.1, 0.9, 1.2]])
def test_rosenbrock(x0):
    x0 = np.asarray(x0)
    result = minimize(rosenbrock(jnp), jnp.asarray(x0), method="BFGS")
    expected = so.minimize(rosenbrock(np), x0, method="BFGS")
    assert isinstance(result, OptimizeResults)
    assert bool(result.success) and int(result.status) == 0
    np.testing.assert_allclose(np.asarray(result.x), np.ones_like(x0), atol=1e-4)
    np.testing.assert_allclose(np.asarray(result.x), expected.x, atol=1e-4)
    assert float(result.fun) < 1e-9
    assert np.linalg.norm(np.asarray(result.jac), np.inf) < 1e-5


def test_line_search_failure_as_jax():
    # From (-1.2, 1) JAX's BFGS stops after 8 iterations with status 3 (its
    # line search failed); SciPy's goes on. pyjax stops at the same point
    # with the same counts.
    result = minimize(rosenbrock(jnp), jnp.array([-1.2, 1.0]), method="BFGS")
    assert int(result.status) == 3 and not bool(result.success)
    assert (int(result.nit), int(result.nfev)) == (8, 17)
    np.testing.assert_allclose(np.asarray(result.x), [-0.27780696, 0.04333878], rtol=1e-6)


def test_quadratic_solution_and_inverse_hessian():
    rng = np.random.default_rng(0)
    m = rng.normal(size=(4, 4))
    A = m @ m.T + 4 * np.eye(4)
    b = rng.normal(size=4)
    result = minimize(quadratic(jnp, jnp.asarray(A), jnp.asarray(b)), jnp.zeros(4), method="BFGS")
    np.testing.assert_allclose(np.asarray(result.x), np.linalg.solve(A, b), atol=1e-6)
    # On a quadratic, BFGS's estimate approaches the true inverse Hessian.
    np.testing.assert_allclose(np.asarray(result.hess_inv), np.linalg.inv(A), atol=1e-2)
    assert int(result.nit) <= 8
    assert int(result.nfev) == int(result.njev) >= int(result.nit)


def test_args_options_and_status():
    f = lambda x, a, scale: scale * jnp.sum((x - a) ** 2)
    a = jnp.array([1.0, -2.0, 0.5])
    result = minimize(f, jnp.zeros(3), (a, 3.0), method="bfgs", options={"gtol": 1e-8})
    np.testing.assert_allclose(np.asarray(result.x), np.asarray(a), atol=1e-8)
    limited = minimize(rosenbrock(jnp), jnp.array([2.0, 2.0]), method="BFGS", options={"maxiter": 2})
    assert int(limited.status) == 1 and int(limited.nit) == 2 and not bool(limited.success)
    # An L1 gradient norm may take longer to fall below gtol than the default max-norm.
    l1 = minimize(rosenbrock(jnp), jnp.array([2.0, 2.0]), method="BFGS", options={"norm": 1})
    assert bool(l1.success)


def test_converged_at_start():
    result = minimize(lambda x: jnp.sum(x ** 2), jnp.zeros(2), method="BFGS")
    assert int(result.nit) == 0 and int(result.nfev) == 1 and bool(result.success)


def test_jit_and_vmap():
    solve = pyjax.jit(lambda x0: minimize(rosenbrock(jnp), x0, method="BFGS").x)
    np.testing.assert_allclose(np.asarray(solve(jnp.array([2.0, 2.0]))), [1.0, 1.0], atol=1e-4)
    starts = jnp.array([[0.5, 0.5], [2.0, 2.0]])
    xs = pyjax.vmap(lambda x0: minimize(rosenbrock(jnp), x0, method="BFGS").x)(starts)
    np.testing.assert_allclose(np.asarray(xs), np.ones((2, 2)), atol=1e-4)


def test_float32():
    with pyjax.enable_x64(False):
        result = minimize(lambda x: jnp.sum((x - jnp.array([1.0, -2.0])) ** 2), jnp.zeros(2), method="BFGS")
        assert result.x.dtype == np.float32
        np.testing.assert_allclose(np.asarray(result.x), [1.0, -2.0], atol=1e-6)


def test_errors():
    with pytest.raises(ValueError, match="Method Nelder-Mead not recognized"):
        minimize(lambda x: x @ x, jnp.zeros(2), method="Nelder-Mead")
    with pytest.raises(TypeError, match=r"args argument to jax.scipy.optimize.minimize must be a tuple, got \[1.0\]"):
        minimize(lambda x, a: x @ x, jnp.zeros(2), [1.0], method="BFGS")
