"""The BFGS quasi-Newton method (Nocedal & Wright, Numerical Optimization,
2nd ed., algorithm 6.1), as one lax.while_loop."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NamedTuple

import numpy as np

from pyjax._src.api import value_and_grad
from pyjax._src.lax import control_flow as lax_control
from pyjax._src.lax import dot as lax_dot
from pyjax._src.numpy.linalg_norms import norm
from pyjax._src.numpy.util import aval_of
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.scipy.optimize.line_search import line_search

__all__ = ["minimize_bfgs"]

_dot = partial(jnp.dot, precision=lax_dot.Precision.HIGHEST)


class _BFGSResults(NamedTuple):
    """converged, failed; k (iterations); nfev, ngev, nhev (function,
    gradient and Hessian evaluations); x_k, f_k, g_k (the point, value and
    gradient); H_k (the inverse-Hessian estimate); old_old_fval (the value
    one step back); status (0 converged, 1 too many iterations, 2 + the line
    search's status when it failed); line_search_status."""

    converged: object
    failed: object
    k: object
    nfev: object
    ngev: object
    nhev: object
    x_k: object
    f_k: object
    g_k: object
    H_k: object
    old_old_fval: object
    status: object
    line_search_status: object


def _conjugated_product(w, H):
    """w @ H @ w.T (einsum 'ij,jk,lk') at HIGHEST precision."""
    return _dot(_dot(w, H), jnp.matrix_transpose(w))


def minimize_bfgs(fun: Callable, x0, maxiter: int | None = None, norm_ord=np.inf, gtol: float = 1e-5,
                  line_search_maxiter: int = 10) -> _BFGSResults:
    """Minimizes `fun` from `x0` by BFGS.

    Args:
      fun: a scalar function of a one-dimensional array.
      x0: the starting point.
      maxiter: the most iterations (default 200 per variable).
      norm_ord: the order of the gradient norm the convergence test uses.
      gtol: converged when that norm is below gtol.
      line_search_maxiter: the most bracketing steps per line search.
    """
    if maxiter is None:
        maxiter = np.size(x0) * 200
    d = aval_of(x0).shape[0]
    initial_H = jnp.eye(d, dtype=aval_of(x0).dtype)
    f_0, g_0 = value_and_grad(fun)(x0)
    state = _BFGSResults(converged=norm(g_0, ord=norm_ord) < gtol, failed=False, k=0, nfev=1, ngev=1, nhev=0,
                         x_k=x0, f_k=f_0, g_k=g_0, H_k=initial_H, old_old_fval=f_0 + norm(g_0) / 2, status=0,
                         line_search_status=0)

    def cond_fun(state):
        return jnp.logical_not(state.converged) & jnp.logical_not(state.failed) & (state.k < maxiter)

    def body_fun(state):
        p_k = -_dot(state.H_k, state.g_k)
        search = line_search(fun, state.x_k, p_k, old_fval=state.f_k, old_old_fval=state.old_old_fval,
                             gfk=state.g_k, maxiter=line_search_maxiter)
        state = state._replace(nfev=state.nfev + search.nfev, ngev=state.ngev + search.ngev, failed=search.failed,
                               line_search_status=search.status)
        s_k = search.a_k * p_k
        x_kp1 = state.x_k + s_k
        y_k = search.g_k - state.g_k
        # H+ = (I - rho s y^T) H (I - rho y s^T) + rho s s^T, rho = 1 / (y . s);
        # skipped when y . s is zero (rho not finite).
        rho_k = jnp.reciprocal(_dot(y_k, s_k))
        sy_k = s_k[:, None] * y_k[None, :]
        w = jnp.eye(d, dtype=aval_of(rho_k).dtype) - rho_k * sy_k
        H_kp1 = _conjugated_product(w, state.H_k) + rho_k * s_k[:, None] * s_k[None, :]
        H_kp1 = jnp.where(jnp.isfinite(rho_k), H_kp1, state.H_k)
        return state._replace(converged=norm(search.g_k, ord=norm_ord) < gtol, k=state.k + 1, x_k=x_kp1,
                              f_k=search.f_k, g_k=search.g_k, H_k=H_kp1, old_old_fval=state.f_k)

    state = lax_control.while_loop(cond_fun, body_fun, state)
    status = jnp.where(state.converged, 0,
                       jnp.where(state.k == maxiter, 1, jnp.where(state.failed, 2 + state.line_search_status, -1)))
    return state._replace(status=status)
