"""A line search satisfying the strong Wolfe conditions (Nocedal & Wright,
Numerical Optimization, 2nd ed., algorithms 3.5 and 3.6), as lax loops.

Both the bracketing phase and the zoom run under lax.while_loop, so they
trace once and work under jit. Branches are taken with jnp.where rather than
lax.cond: every candidate is computed and the chosen one kept, as JAX does
(so that the loops also run well on accelerators).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NamedTuple

from pyjax._src import dtypes
from pyjax._src.api import value_and_grad
from pyjax._src.lax import control_flow as lax_control
from pyjax._src.lax import dot as lax_dot
from pyjax._src.numpy.linalg import _promote_inexact
from pyjax._src.numpy.util import aval_of
from pyjax._src.scipy import jnp_pending as jnp

__all__ = ["line_search"]

_dot = partial(jnp.dot, precision=lax_dot.Precision.HIGHEST)


def _cubic_minimizer(a, fa, fpa, b, fb, c, fc):
    """The minimizer of the cubic through (a, fa) with slope fpa at a, and
    through (b, fb) and (c, fc). NaN when the cubic has none."""
    dtype = dtypes.result_type(a, fa, fpa, b, fb, c, fc)
    C = fpa
    db = b - a
    dc = c - a
    denom = (db * dc) ** 2 * (db - dc)
    d1 = jnp.array([[dc ** 2, -db ** 2], [-dc ** 3, db ** 3]], dtype=dtype)
    d2 = jnp.array([fb - fa - C * db, fc - fa - C * dc], dtype=dtype)
    A, B = _dot(d1, d2) / denom
    radical = B * B - 3.0 * A * C
    return a + (-B + jnp.sqrt(radical)) / (3.0 * A)


def _quadratic_minimizer(a, fa, fpa, b, fb):
    """The minimizer of the quadratic through (a, fa), slope fpa at a, and (b, fb)."""
    D = fa
    C = fpa
    db = b - a
    B = (fb - D - C * db) / (db ** 2)
    return a - C / (2.0 * B)


def _where_replace(condition, state: dict, new: dict, keys=None) -> dict:
    """The entries of `new` where `condition` holds, else `state`'s."""
    keys = new.keys() if keys is None else keys
    return {key: jnp.where(condition, new[key], state[key]) for key in keys}


class _ZoomState(NamedTuple):
    done: object
    failed: object
    j: object
    a_lo: object
    phi_lo: object
    dphi_lo: object
    a_hi: object
    phi_hi: object
    dphi_hi: object
    a_rec: object
    phi_rec: object
    a_star: object
    phi_star: object
    dphi_star: object
    g_star: object
    nfev: object
    ngev: object


def _zoom(phi_and_grad: Callable, sufficient_decrease_fails: Callable, curvature_holds: Callable, a_lo, phi_lo,
          dphi_lo, a_hi, phi_hi, dphi_hi, g_0, skip):
    """Shrinks the bracket [a_lo, a_hi] (Nocedal & Wright algorithm 3.6)
    until a step satisfies both Wolfe conditions; a no-op when `skip`."""
    state = _ZoomState(done=False, failed=False, j=0, a_lo=a_lo, phi_lo=phi_lo, dphi_lo=dphi_lo, a_hi=a_hi,
                       phi_hi=phi_hi, dphi_hi=dphi_hi, a_rec=(a_lo + a_hi) / 2.0, phi_rec=(phi_lo + phi_hi) / 2.0,
                       a_star=1.0, phi_star=phi_lo, dphi_star=dphi_lo, g_star=g_0, nfev=0, ngev=0)
    # The cubic (resp. quadratic) step is used only if it lands this far
    # inside the bracket; otherwise bisect.
    delta1, delta2 = 0.2, 0.1

    def body(state):
        dalpha = state.a_hi - state.a_lo
        a = jnp.minimum(state.a_hi, state.a_lo)
        b = jnp.maximum(state.a_hi, state.a_lo)
        cchk = delta1 * dalpha
        qchk = delta2 * dalpha
        # A collapsed bracket ends the search as a failure.
        threshold = jnp.where(dtypes.finfo(aval_of(dalpha).dtype).bits < 64, 1e-5, 1e-10)
        state = state._replace(failed=state.failed | (dalpha <= threshold))
        a_cubic = _cubic_minimizer(state.a_lo, state.phi_lo, state.dphi_lo, state.a_hi, state.phi_hi, state.a_rec,
                                   state.phi_rec)
        use_cubic = (state.j > 0) & (a_cubic > a + cchk) & (a_cubic < b - cchk)
        a_quad = _quadratic_minimizer(state.a_lo, state.phi_lo, state.dphi_lo, state.a_hi, state.phi_hi)
        use_quad = (~use_cubic) & (a_quad > a + qchk) & (a_quad < b - qchk)
        a_bisect = (state.a_lo + state.a_hi) / 2.0
        use_bisect = (~use_cubic) & (~use_quad)
        a_j = jnp.where(use_cubic, a_cubic, state.a_rec)
        a_j = jnp.where(use_quad, a_quad, a_j)
        a_j = jnp.where(use_bisect, a_bisect, a_j)
        phi_j, dphi_j, g_j = phi_and_grad(a_j)
        phi_j = phi_j.astype(aval_of(state.phi_lo).dtype)
        dphi_j = dphi_j.astype(aval_of(state.dphi_lo).dtype)
        g_j = g_j.astype(aval_of(state.g_star).dtype)
        state = state._replace(nfev=state.nfev + 1, ngev=state.ngev + 1)
        hi_to_j = sufficient_decrease_fails(a_j, phi_j) | (phi_j >= state.phi_lo)
        star_to_j = curvature_holds(dphi_j) & (~hi_to_j)
        hi_to_lo = (dphi_j * (state.a_hi - state.a_lo) >= 0.0) & (~hi_to_j) & (~star_to_j)
        lo_to_j = (~hi_to_j) & (~star_to_j)
        state = state._replace(**_where_replace(hi_to_j, state._asdict(), {
            "a_hi": a_j, "phi_hi": phi_j, "dphi_hi": dphi_j, "a_rec": state.a_hi, "phi_rec": state.phi_hi}))
        state = state._replace(done=star_to_j | state.done, **_where_replace(star_to_j, state._asdict(), {
            "a_star": a_j, "phi_star": phi_j, "dphi_star": dphi_j, "g_star": g_j}))
        state = state._replace(**_where_replace(hi_to_lo, state._asdict(), {
            "a_hi": state.a_lo, "phi_hi": state.phi_lo, "dphi_hi": state.dphi_lo, "a_rec": state.a_hi, "phi_rec": state.phi_hi}))
        state = state._replace(**_where_replace(lo_to_j & ~hi_to_lo, state._asdict(), {
            "a_rec": state.a_lo, "phi_rec": state.phi_lo}))
        state = state._replace(**_where_replace(lo_to_j, state._asdict(), {
            "a_lo": a_j, "phi_lo": phi_j, "dphi_lo": dphi_j}))
        state = state._replace(j=state.j + 1)
        # More zoom steps than SciPy allows: float32 needs them.
        return state._replace(failed=state.failed | (state.j >= 30))

    return lax_control.while_loop(lambda s: (~s.done) & (~skip) & (~s.failed), body, state)


class _LineSearchState(NamedTuple):
    done: object
    failed: object
    i: object
    a_i1: object
    phi_i1: object
    dphi_i1: object
    nfev: object
    ngev: object
    a_star: object
    phi_star: object
    dphi_star: object
    g_star: object


class _LineSearchResults(NamedTuple):
    """failed; nit (iterations); nfev and ngev (function and gradient
    evaluations); k (the last iteration index); a_k (the step); f_k and g_k
    (the value and gradient there); status (0 passed, 1 zoom failed, 3 too
    many iterations)."""

    failed: object
    nit: object
    nfev: object
    ngev: object
    k: object
    a_k: object
    f_k: object
    g_k: object
    status: object


def line_search(f, xk, pk, old_fval=None, old_old_fval=None, gfk=None, c1=1e-4, c2=0.9, maxiter=20):
    """A step size along `pk` from `xk` satisfying the strong Wolfe conditions.

    Args:
      f: the objective (scalar-valued, differentiable).
      xk, pk: the current point and the search direction.
      old_fval, gfk: f and its gradient at xk, if already known.
      old_old_fval: f at the previous point, for the first trial step.
      c1, c2: the sufficient-decrease and curvature constants.
      maxiter: the most bracketing steps.

    Returns:
      A _LineSearchResults.
    """
    xk, pk = _promote_inexact(xk, pk)

    def phi_and_grad(t):
        t = jnp.array(t, dtype=aval_of(pk).dtype)
        phi, g = value_and_grad(f)(xk + t * pk)
        return phi, jnp.real(_dot(g, pk)), g

    if old_fval is None or gfk is None:
        phi_0, dphi_0, gfk = phi_and_grad(0)
    else:
        phi_0 = old_fval
        dphi_0 = jnp.real(_dot(gfk, pk))
    if old_old_fval is not None:
        # The step that would repeat the last decrease, capped at 1.
        candidate = 1.01 * 2 * (phi_0 - old_old_fval) / dphi_0
        start_value = jnp.where(candidate > 1, 1.0, candidate)
    else:
        start_value = 1

    def sufficient_decrease_fails(a_i, phi_i):
        return phi_i > phi_0 + c1 * a_i * dphi_0

    def curvature_holds(dphi_i):
        return jnp.abs(dphi_i) <= -c2 * dphi_0

    evaluated_at_start = 1 if (old_fval is None or gfk is None) else 0
    state = _LineSearchState(done=jnp.array(False, dtype=bool), failed=jnp.array(False, dtype=bool),
                             # From 1, as Nocedal & Wright (SciPy starts at 0, scipy#12157).
                             i=1, a_i1=0.0, phi_i1=phi_0, dphi_i1=dphi_0, nfev=evaluated_at_start,
                             ngev=evaluated_at_start, a_star=0.0, phi_star=phi_0, dphi_star=dphi_0, g_star=gfk)

    def body(state):
        # Each trial step doubles the last (no maximum step, as SciPy).
        a_i = jnp.where(state.i == 1, start_value, state.a_i1 * 2.0)
        phi_i, dphi_i, g_i = phi_and_grad(a_i)
        state = state._replace(nfev=state.nfev + 1, ngev=state.ngev + 1)
        star_to_zoom1 = sufficient_decrease_fails(a_i, phi_i) | ((phi_i >= state.phi_i1) & (state.i > 1))
        star_to_i = curvature_holds(dphi_i) & (~star_to_zoom1)
        star_to_zoom2 = (dphi_i >= 0.0) & (~star_to_zoom1) & (~star_to_i)
        # Both zooms are traced; each is skipped unless its case holds.
        zoom1 = _zoom(phi_and_grad, sufficient_decrease_fails, curvature_holds, state.a_i1, state.phi_i1,
                      state.dphi_i1, a_i, phi_i, dphi_i, gfk, ~star_to_zoom1)
        state = state._replace(nfev=state.nfev + zoom1.nfev, ngev=state.ngev + zoom1.ngev)
        zoom2 = _zoom(phi_and_grad, sufficient_decrease_fails, curvature_holds, a_i, phi_i, dphi_i, state.a_i1,
                      state.phi_i1, state.dphi_i1, gfk, ~star_to_zoom2)
        state = state._replace(nfev=state.nfev + zoom2.nfev, ngev=state.ngev + zoom2.ngev)
        found = ["a_star", "phi_star", "dphi_star", "g_star"]
        state = state._replace(done=star_to_zoom1 | state.done, failed=(star_to_zoom1 & zoom1.failed) | state.failed,
                               **_where_replace(star_to_zoom1, state._asdict(), zoom1._asdict(), keys=found))
        state = state._replace(done=star_to_i | state.done, **_where_replace(star_to_i, state._asdict(), {
            "a_star": a_i, "phi_star": phi_i, "dphi_star": dphi_i, "g_star": g_i}))
        state = state._replace(done=star_to_zoom2 | state.done, failed=(star_to_zoom2 & zoom2.failed) | state.failed,
                               **_where_replace(star_to_zoom2, state._asdict(), zoom2._asdict(), keys=found))
        return state._replace(i=state.i + 1, a_i1=a_i, phi_i1=phi_i, dphi_i1=dphi_i)

    state = lax_control.while_loop(lambda s: (~s.done) & (s.i <= maxiter) & (~s.failed), body, state)
    status = jnp.where(state.failed, jnp.array(1), jnp.where(state.i > maxiter, jnp.array(3), jnp.array(0)))
    # In single precision a step below 1e-8 would stall the optimizer (a zero
    # direction): floor its magnitude.
    alpha_k = jnp.asarray(state.a_star)
    small = (dtypes.finfo(aval_of(alpha_k).dtype).bits != 64) & (jnp.abs(alpha_k) < 1e-8)
    alpha_k = jnp.where(small, jnp.sign(alpha_k) * 1e-8, alpha_k)
    return _LineSearchResults(failed=state.failed | (~state.done), nit=state.i - 1, nfev=state.nfev,
                              ngev=state.ngev, k=state.i, a_k=alpha_k, f_k=state.phi_star, g_k=state.g_star,
                              status=status)



