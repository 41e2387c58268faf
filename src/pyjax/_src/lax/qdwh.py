"""lax.linalg.qdwh: the polar decomposition by the QR-based dynamically
weighted Halley iteration (Nakatsukasa, Bai and Gygi 2010).

x = u h with u having orthonormal columns and h Hermitian positive
semi-definite. The iteration scales x so its singular values lie in
[l, 1], then maps them towards 1 with rational Halley steps whose weights
(a, b, c) follow from the current lower bound l; those weights are computed
ahead of time in Python, as JAX does, so the number of steps and their
coefficients match JAX's. Early steps (c > 100, ill-conditioned) use a QR
factorization of [sqrt(c) u; I]; later ones a Cholesky factorization of
c u^H u + I, testing convergence of ||u_k - u_{k-1}||_F; then plain
Halley steps (a, b, c) = (3, 1, 3) run in a while loop until convergence
or `max_iterations`. The result gets one Newton-Schulz polish.

Only lax operations are used, so the function traces, jits and vmaps.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyjax._src import core, dtypes

__all__ = ["qdwh"]

_CHOLESKY_CUTOFF = 100


def _lax():
    from pyjax import lax

    return lax


def _adjoint(x):
    lax = _lax()
    y = lax.transpose(x, (1, 0))
    return lax.conj(y) if dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating) else y


def _matmul(a, b):
    return _lax().dot_general(a, b, (((1,), (0,)), ((), ())), precision=None)


def _eye(n: int, dtype) -> Any:
    lax = _lax()
    i = lax.broadcasted_iota(np.int32, (n, n), 0)
    j = lax.broadcasted_iota(np.int32, (n, n), 1)
    return lax.convert_element_type(lax.eq(i, j), dtype)


def _scalar(value, dtype):
    return _lax().convert_element_type(value, dtype)


def _abs_sum(x, axis):
    lax = _lax()
    return lax.reduce_sum(lax.abs(x), (axis,))


def _frobenius(x):
    lax = _lax()
    a = lax.abs(x)
    return lax.sqrt(lax.reduce_sum(lax.mul(a, a), (0, 1)))


def _mask(x, dims, alternative=None):
    # Entries outside the dynamic shape `dims` become `alternative` (0 by default).
    lax = _lax()
    aval = core.get_aval(x)
    mask = None
    for i, d in enumerate(dims):
        if d is not None:
            inside = lax.lt(lax.broadcasted_iota(np.int32, aval.shape, i), _scalar(d, np.int32))
            mask = inside if mask is None else lax.bitwise_and(mask, inside)
    if mask is None:
        return x
    if alternative is None:
        alternative = lax.full(aval.shape, 0, aval.dtype)
    return lax.select(mask, x, alternative)


def _qr_step(u, m, n, params):
    lax = _lax()
    from pyjax._src.lax import linalg

    a_minus_e_by_sqrt_c, sqrt_c, e = params
    M, N = core.get_aval(u).shape
    dtype = core.get_aval(u).dtype
    scaled = lax.mul(sqrt_c, u)
    eye = _eye(N, dtype)
    if m is None:
        y = lax.concatenate([scaled, eye], 0)
    else:  # [sqrt(c) u (its first m rows); I] in an (M + N) x N buffer
        padded = lax.pad(scaled, _scalar(0, dtype), [(0, N, 0), (0, 0, 0)])
        y = lax.dynamic_update_slice(padded, eye, (_scalar(m, np.int32), _scalar(0, np.int32)))
    q, _ = linalg.qr(y, full_matrices=False)
    q1 = _mask(lax.slice(q, (0, 0), (M, N)), (m, n))
    q2 = q[M:] if m is None else lax.dynamic_slice(q, (_scalar(m, np.int32), _scalar(0, np.int32)), (N, N))
    q2 = _adjoint(_mask(q2, (n, n)))
    return lax.add(lax.mul(e, u), lax.mul(a_minus_e_by_sqrt_c, _matmul(q1, q2)))


def _cholesky_step(u, m, n, params):
    lax = _lax()
    from pyjax._src.lax import linalg

    a_minus_e, c, e = params
    _, N = core.get_aval(u).shape
    dtype = core.get_aval(u).dtype
    eye = _eye(N, dtype)
    x = lax.add(lax.mul(c, _matmul(_adjoint(u), u)), eye)
    x = _mask(x, (n, n), eye)
    y = linalg.cholesky(x, symmetrize_input=False)
    ut = lax.transpose(u, (1, 0))
    z = linalg.triangular_solve(y, ut, left_side=True, lower=True, conjugate_a=True)
    z = _conj(z)
    z = linalg.triangular_solve(y, z, left_side=True, lower=True, transpose_a=True, conjugate_a=True)
    z = _adjoint(z)
    return lax.add(lax.mul(e, u), lax.mul(a_minus_e, z))


def _conj(x):
    lax = _lax()
    return lax.conj(x) if dtypes.issubdtype(core.get_aval(x).dtype, np.complexfloating) else x


def _coefficients(eps: float, max_iterations: int):
    # The Halley weights for each step while the lower bound l is below 1,
    # split into the QR steps (c > 100) and the Cholesky ones.
    l, tol_l = eps, 10.0 * eps / 2.0
    qr, chol = [], []
    k = 0
    while l + tol_l < 1 and k < max_iterations:
        k += 1
        l2 = l * l
        dd = (4 * (1 / l2 - 1) / l2) ** (1 / 3)
        sqd = (1.0 + dd) ** (1 / 2)
        a = sqd + (2 - dd + 2 * (2 - l2) / (l2 * sqd)) ** (1 / 2)
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        l = l * (a + b * l2) / (1 + c * l2)
        e = b / c
        if c > _CHOLESKY_CUTOFF:
            qr.append(((a - e) / c ** (1 / 2), c ** (1 / 2), e))
        else:
            chol.append((a - e, c, e))
    return qr, chol, tol_l


def _qdwh(x, m, n, max_iterations: int, eps: float | None):
    lax = _lax()
    aval = core.get_aval(x)
    real = np.finfo(aval.dtype).dtype  # the real dtype of a complex input
    if eps is None:
        eps = float(np.finfo(aval.dtype).eps)
    one_norm = lax.reduce_max(_abs_sum(x, 0), (0,))
    inf_norm = lax.reduce_max(_abs_sum(x, 1), (0,))
    alpha_inverse = lax.mul(lax.rsqrt(one_norm), lax.rsqrt(inf_norm))
    alpha_inverse = lax.select(lax.eq(one_norm, _scalar(0, real)), _scalar(1, real), alpha_inverse)
    u = lax.mul(x, lax.convert_element_type(alpha_inverse, aval.dtype))
    qr_coefs, chol_coefs, tol_l = _coefficients(eps, max_iterations)
    tol_norm = _scalar(np.cbrt(tol_l), real)

    def step(update, coefs, test):
        def body(k, state):
            u, _ = state
            row = lax.dynamic_index_in_dim(coefs, k, 0, keepdims=False)
            params = [lax.convert_element_type(lax.squeeze(lax.slice(row, (j,), (j + 1,)), (0,)), aval.dtype)
                      for j in range(3)]
            new = update(u, m, n, params)
            not_converged = (lax.gt(_frobenius(lax.sub(new, u)), tol_norm) if test
                             else lax.full((), True, np.bool_))
            return new, not_converged
        return body

    not_converged = lax.full((), True, np.bool_)
    for coefs, update, test in ((qr_coefs, _qr_step, False), (chol_coefs, _cholesky_step, True)):
        if coefs:
            table = lax.convert_element_type(np.asarray(coefs, np.float64), real)
            u, not_converged = lax.fori_loop(0, len(coefs), step(update, table, test), (u, not_converged))

    halley = [_scalar(v, aval.dtype) for v in (3 - 1 / 3, 3, 1 / 3)]  # (a - e, c, e) for (3, 1, 3)

    def cond_fun(state):
        k, _, not_converged = state
        return lax.bitwise_and(not_converged, lax.lt(k, max_iterations))

    def body_fun(state):
        k, u, _ = state
        new = _cholesky_step(u, m, n, halley)
        return k + 1, new, lax.gt(_frobenius(lax.sub(new, u)), tol_norm)

    start = len(qr_coefs) + len(chol_coefs)
    num_iters, u, not_converged = lax.while_loop(cond_fun, body_fun, (start, u, not_converged))
    # One Newton-Schulz step: u <- 1.5 u - 0.5 u (u^H u).
    u = lax.sub(lax.mul(_scalar(1.5, aval.dtype), u),
                lax.mul(_scalar(0.5, aval.dtype), _matmul(u, _matmul(_adjoint(u), u))))
    h = _matmul(_adjoint(u), x)
    h = lax.div(lax.add(h, _adjoint(h)), _scalar(2, aval.dtype))
    return u, h, num_iters, lax.bitwise_not(not_converged)


def qdwh(x, *, is_hermitian: bool = False, max_iterations: int | None = None, eps: float | None = None,
         dynamic_shape: tuple[int, int] | None = None):
    """QR-based dynamically weighted Halley iteration for polar decomposition.

    Args:
      x: A full-rank matrix, with shape `M x N`. The matrix may be padded up to
        that size from a smaller true shape (``dynamic_shape``).
      is_hermitian: True if `x` is Hermitian. Unused, kept for compatibility.
      eps: The final result will satisfy ``|x_k - x_k-1| < |x_k| * (4*eps)**(1/3)``
        where `x_k` is the iterate.
      max_iterations: Iterations will terminate after this many steps even if
        the above is unsatisfied (default 10).
      dynamic_shape: the unpadded shape as an ``(m, n)`` tuple; optional.

    Returns:
      A four-tuple of (u, h, num_iters, is_converged) containing the polar
      decomposition of `x = u * h`, the number of iterations to compute `u`,
      and `is_converged`, True when convergence is achieved within the maximum
      number of iterations.
    """
    from pyjax._src.jit import jit

    bool(is_hermitian)  # (unused, but must be static: a tracer raises its concretization error)
    max_iterations = 10 if max_iterations is None else int(max_iterations)
    M, N = core.get_aval(x).shape
    if M < N:
        raise ValueError("The input matrix of shape M x N must have M >= N.")
    return _qdwh_jit(jit)(x, dynamic_shape, max_iterations=max_iterations, eps=eps)


_JITTED: list = []


def _qdwh_jit(jit):
    if not _JITTED:
        def run(x, dynamic_shape, *, max_iterations, eps):
            if dynamic_shape is not None:
                m, n = dynamic_shape
                x = _mask(x, (m, n))
            else:
                m = n = None
            return _qdwh(x, m, n, max_iterations, eps)

        run.__name__ = "qdwh"
        _JITTED.append(jit(run, static_argnames=("max_iterations", "eps")))
    return _JITTED[0]
