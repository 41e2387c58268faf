"""jax.scipy.sparse.linalg: Krylov solvers for linear operators given as
functions (or matrices), on pytrees of arrays: cg, bicgstab, gmres.

Each solve is wrapped in ``lax.custom_linear_solve``, so derivatives come
from another solve (implicit differentiation), not from differentiating
through the iterations, as in JAX.
"""

from __future__ import annotations

import operator
from functools import partial

import numpy as np

from pyjax._src import dtypes
from pyjax._src.flatten_util import ravel_pytree
from pyjax._src.lax import control_flow as lax_control
from pyjax._src.lax import dot as lax_dot
from pyjax._src.lax.linear_solve import custom_linear_solve
from pyjax._src.scipy import jnp_pending as jnp
from pyjax._src.tree_util import tree_leaves, tree_map, tree_structure

__all__ = ["bicgstab", "cg", "gmres"]

_HIGHEST = lax_dot.Precision.HIGHEST


def _vdot_real(x, y):
    # The real part of <x, y>, leaf by leaf: the cross terms of complex
    # inputs are left out, so the result is real.
    out = jnp.vdot(x.real, y.real, precision=_HIGHEST)
    if jnp.iscomplexobj(x) or jnp.iscomplexobj(y):
        out = out + jnp.vdot(x.imag, y.imag, precision=_HIGHEST)
    return out


def _vdot_real_tree(x, y):
    return sum(tree_leaves(tree_map(_vdot_real, x, y)))


def _vdot_tree(x, y):
    return sum(tree_leaves(tree_map(partial(jnp.vdot, precision=_HIGHEST), x, y)))


def _norm(x):
    return jnp.sqrt(_vdot_real_tree(x, x))


def _scale(s, tree):
    return tree_map(lambda leaf: s * leaf, tree)


def _add(x, y):
    return tree_map(operator.add, x, y)


def _sub(x, y):
    return tree_map(operator.sub, x, y)


def _identity(x):
    return x


def _as_matvec(f):
    """A function, or a square matrix (anything with @), as a matvec."""
    if callable(f):
        return f
    if isinstance(f, np.ndarray) or hasattr(f, "shape") and hasattr(f, "dtype"):
        if f.ndim != 2 or f.shape[0] != f.shape[1]:
            raise ValueError(f"linear operator must be a square matrix, but has shape: {f.shape}")
        return partial(jnp.dot, f, precision=_HIGHEST)
    if hasattr(f, "__matmul__"):
        if hasattr(f, "shape") and (len(f.shape) != 2 or f.shape[0] != f.shape[1]):
            raise ValueError(f"linear operator must be a square matrix, but has shape: {f.shape}")
        return partial(operator.matmul, f)
    raise TypeError(f"linear operator must be either a function or ndarray: {f}")


def _shapes(tree):
    return [np.shape(leaf) for leaf in tree_leaves(tree)]


def _cg_solve(A, b, x0, *, maxiter, tol, atol, M):
    bs = _vdot_real_tree(b, b)
    atol2 = jnp.maximum(jnp.square(tol) * bs, jnp.square(atol))
    r0 = _sub(b, A(x0))
    p0 = z0 = M(r0)
    dtype = dtypes.result_type(*tree_leaves(p0))
    gamma0 = _vdot_real_tree(r0, z0).astype(dtype)

    def cond(state):
        _, r, gamma, _, k = state
        rs = gamma.real if M is _identity else _vdot_real_tree(r, r)
        return (rs > atol2) & (k < maxiter)

    def body(state):
        x, r, gamma, p, k = state
        ap = A(p)
        alpha = gamma / _vdot_real_tree(p, ap).astype(dtype)
        x = _add(x, _scale(alpha, p))
        r = _sub(r, _scale(alpha, ap))
        z = M(r)
        gamma_new = _vdot_real_tree(r, z).astype(dtype)
        p = _add(z, _scale(gamma_new / gamma, p))
        return x, r, gamma_new, p, k + 1

    return lax_control.while_loop(cond, body, (x0, r0, gamma0, p0, 0))[0]


def _bicgstab_solve(A, b, x0, *, maxiter, tol, atol, M):
    bs = _vdot_real_tree(b, b)
    atol2 = jnp.maximum(jnp.square(tol) * bs, jnp.square(atol))
    r0 = _sub(b, A(x0))
    one = jnp.ones((), dtypes.result_type(*tree_leaves(b)))

    def cond(state):
        _, r, *_, k = state
        return (_vdot_real_tree(r, r) > atol2) & (k < maxiter) & (k >= 0)

    def body(state):
        x, r, rhat, alpha, omega, rho, p, q, k = state
        rho_new = _vdot_tree(rhat, r)
        beta = rho_new / rho * alpha / omega
        p = _add(r, _scale(beta, _sub(p, _scale(omega, q))))
        phat = M(p)
        q = A(phat)
        alpha = rho_new / _vdot_tree(rhat, q)
        s = _sub(r, _scale(alpha, q))
        done = _vdot_real_tree(s, s) < atol2
        shat = M(s)
        t = A(shat)
        omega = _vdot_tree(t, s) / _vdot_tree(t, t)
        x = tree_map(partial(jnp.where, done), _add(x, _scale(alpha, phat)),
                     _add(x, _add(_scale(alpha, phat), _scale(omega, shat))))
        r = tree_map(partial(jnp.where, done), s, _sub(s, _scale(omega, t)))
        # Breakdowns stop the iteration (k < 0), as SciPy's codes -10/-11.
        k = jnp.where((omega == 0) | (alpha == 0), -11, k + 1)
        k = jnp.where(rho_new == 0, -10, k)
        return x, r, rhat, alpha, omega, rho_new, p, q, k

    init = (x0, r0, r0, one, one, one, r0, r0, 0)
    return lax_control.while_loop(cond, body, init)[0]


def _isolve(solve, A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None, check_symmetric=False):
    if x0 is None:
        x0 = tree_map(jnp.zeros_like, b)
    b = tree_map(jnp.asarray, b)
    x0 = tree_map(jnp.asarray, x0)
    if maxiter is None:
        maxiter = 10 * sum(leaf.size for leaf in tree_leaves(b))  # SciPy's default
    M = _identity if M is None else _as_matvec(M)
    A = _as_matvec(A)
    if tree_structure(x0) != tree_structure(b):
        raise ValueError(f"x0 and b must have matching tree structure: {tree_structure(x0)} vs {tree_structure(b)}")
    if _shapes(x0) != _shapes(b):
        raise ValueError(f"arrays in x0 and b must have matching shapes: {_shapes(x0)} vs {_shapes(b)}")
    run = partial(solve, x0=x0, tol=tol, atol=atol, maxiter=maxiter, M=M)
    symmetric = check_symmetric and all(not jnp.iscomplexobj(leaf) for leaf in tree_leaves(b))
    x = custom_linear_solve(A, b, solve=run, transpose_solve=run, symmetric=symmetric)
    return x, None


def cg(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Use Conjugate Gradient iteration to solve ``Ax = b``.

    JAX implementation of :func:`scipy.sparse.linalg.cg`. ``A`` (a function
    or a square matrix) must be Hermitian positive definite; ``b`` may be a
    pytree. Converged when ``norm(residual) <= max(tol * norm(b), atol)``.
    Returns ``(x, None)``; derivatives come from another cg solve.
    """
    return _isolve(_cg_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M, check_symmetric=True)


def bicgstab(A, b, x0=None, *, tol=1e-5, atol=0.0, maxiter=None, M=None):
    """Use Bi-Conjugate Gradient Stable iteration to solve ``Ax = b``.

    JAX implementation of :func:`scipy.sparse.linalg.bicgstab`, for general
    (non-symmetric) operators. Returns ``(x, None)``.
    """
    return _isolve(_bicgstab_solve, A, b, x0, tol=tol, atol=atol, maxiter=maxiter, M=M)


def _gmres_cycle(A, M, b, x, restart: int, ptol):
    """One restart cycle: an Arnoldi basis of the preconditioned Krylov
    space (modified Gram-Schmidt), then the least-squares update."""
    r = M(b - A(x))
    beta = jnp.linalg.norm(r)
    safe_beta = jnp.where(beta > 0, beta, 1.0)
    n = r.shape[0]
    V = jnp.zeros((restart + 1, n), r.dtype).at[0].set(r / safe_beta)
    H = jnp.zeros((restart + 1, restart), r.dtype)

    def arnoldi(k, carry):
        V, H = carry
        w = M(A(V[k]))
        for_mask = jnp.arange(restart + 1) <= k

        def project(j, wh):
            w, h = wh
            coef = jnp.where(for_mask[j], jnp.vdot(V[j], w, precision=_HIGHEST), 0.0)
            return w - coef * V[j], h.at[j].set(coef)

        w, h = lax_control.fori_loop(0, restart + 1, project, (w, jnp.zeros(restart + 1, r.dtype)))
        norm_w = jnp.linalg.norm(w)
        h = h.at[k + 1].set(norm_w)
        tiny = np.finfo(np.dtype(r.real.dtype)).eps * beta
        V = V.at[k + 1].set(jnp.where(norm_w > tiny, w / jnp.where(norm_w > tiny, norm_w, 1.0), 0.0))
        return V, H.at[:, k].set(h)

    V, H = lax_control.fori_loop(0, restart, arnoldi, (V, H))
    e1 = jnp.zeros(restart + 1, r.dtype).at[0].set(beta)
    y = jnp.linalg.lstsq(H, e1)[0]
    return x + V[:restart].T @ y


def _gmres_solve(A, M, b, x0, ptol, restart: int, maxiter: int):
    def residual(x):
        return jnp.linalg.norm(M(b - A(x)))

    def cond(state):
        x, k, res = state
        return (k < maxiter) & (res > ptol)

    def body(state):
        x, k, _ = state
        x = _gmres_cycle(A, M, b, x, restart, ptol)
        return x, k + 1, residual(x)

    return lax_control.while_loop(cond, body, (x0, 0, residual(x0)))[0]


def gmres(A, b, x0=None, *, tol=1e-5, atol=0.0, restart=20, maxiter=None, M=None, solve_method="batched"):
    """GMRES solves the linear system ``A x = b`` for general ``A``.

    JAX implementation of :func:`scipy.sparse.linalg.gmres`: restarted
    GMRES with left preconditioning by ``M``, ``restart`` Krylov vectors per
    cycle and at most ``maxiter`` cycles. Both ``solve_method`` values give
    the same solution here. Returns ``(x, info)``, info -1 when the result
    is NaN, else 0.
    """
    if x0 is None:
        x0 = tree_map(jnp.zeros_like, b)
    b = tree_map(jnp.asarray, b)
    x0 = tree_map(jnp.asarray, x0)
    M = _identity if M is None else _as_matvec(M)
    A = _as_matvec(A)
    size = sum(leaf.size for leaf in tree_leaves(b))
    if maxiter is None:
        maxiter = 10 * size  # SciPy's default
    restart = min(restart, size)
    if tree_structure(x0) != tree_structure(b):
        raise ValueError(f"x0 and b must have matching tree structure: {tree_structure(x0)} vs {tree_structure(b)}")
    b_norm = _norm(b)
    atol = jnp.maximum(tol * b_norm, atol)
    ptol = _norm(M(b)) * jnp.minimum(1.0, atol / b_norm)
    if solve_method not in ("incremental", "batched"):
        raise ValueError(f"invalid solve_method {solve_method}, must be either 'incremental' or 'batched'")

    def run(A, b):
        # The Krylov vectors are flat: operators on the pytree, wrapped.
        flat_b, unravel = ravel_pytree(b)
        flat_x0, _ = ravel_pytree(x0)
        flat_A = lambda v: ravel_pytree(A(unravel(v)))[0]
        flat_M = lambda v: ravel_pytree(M(unravel(v)))[0]
        return unravel(_gmres_solve(flat_A, flat_M, flat_b, flat_x0, ptol, restart, maxiter))

    x = custom_linear_solve(A, b, solve=run, transpose_solve=run)
    info = jnp.where(jnp.isnan(_norm(x)), -1, 0)
    return x, info
