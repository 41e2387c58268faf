"""jax.scipy.optimize.minimize: SciPy's interface to the BFGS minimizer."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.optimize.bfgs import minimize_bfgs

__all__ = ["OptimizeResults", "minimize"]


class OptimizeResults(NamedTuple):
    """The result of minimize.

    Attributes:
      x: the solution.
      success: whether the optimizer converged without a line-search failure.
      status: 0 converged, 1 too many iterations, 2 + the line search's status
        when it failed.
      fun, jac: the objective and its gradient at x.
      hess_inv: the inverse-Hessian estimate.
      nfev, njev: objective and gradient evaluations.
      nit: iterations.
    """

    x: Any
    success: Any
    status: Any
    fun: Any
    jac: Any
    hess_inv: Any
    nfev: Any
    njev: Any
    nit: Any


def minimize(fun: Callable, x0, args: tuple = (), *, method: str, tol: float | None = None,
             options: Mapping[str, Any] | None = None) -> OptimizeResults:
    """Minimizes a scalar function of one or more variables.

    Unlike SciPy's, this is written on lax loops: it traces once, runs under
    jit, and is differentiable only through its inputs' closure (not through
    the iterations). Only ``method="BFGS"`` is supported.

    Args:
      fun: ``fun(x, *args) -> scalar``, with x one-dimensional.
      x0: the starting point, a one-dimensional array.
      args: extra arguments for `fun` (a tuple).
      method: ``"BFGS"`` (case-insensitive).
      tol: unused (use ``options={"gtol": ...}``).
      options: maxiter, norm (the order of the gradient norm), gtol,
        line_search_maxiter.

    Returns:
      An OptimizeResults.

    Example:
      >>> minimize(lambda x: jnp.sum((x - 3.0) ** 2), jnp.zeros(2), method="BFGS").x
      Array([3., 3.], dtype=float32)
    """
    options = dict(options or {})
    if not isinstance(args, tuple):
        raise TypeError(f"args argument to jax.scipy.optimize.minimize must be a tuple, got {args}")

    def fun_with_args(x):
        return fun(x, *args)

    if method.lower() == "bfgs":
        if "norm" in options:
            options["norm_ord"] = options.pop("norm")
        results = minimize_bfgs(fun_with_args, x0, **options)
        success = results.converged & jnp.logical_not(results.failed)
        return OptimizeResults(x=results.x_k, success=success, status=results.status, fun=results.f_k,
                               jac=results.g_k, hess_inv=results.H_k, nfev=results.nfev, njev=results.ngev,
                               nit=results.k)
    raise ValueError(f"Method {method} not recognized")
