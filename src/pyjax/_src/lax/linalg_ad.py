"""Autodiff and batching rules of the linalg family (lax/linalg.py).

Kept in their own module so the family file stays readable; importing
`pyjax._src.lax` registers them.
"""

from __future__ import annotations

import numpy as np

from pyjax._src.ad_util import Zero as _Zero
from pyjax._src.ad_util import add_tangents as _add_tangents
from pyjax._src.ad_util import instantiate as _instantiate
from pyjax._src.ad_util import tangent_aval as _tangent_aval
from pyjax._src.core import get_aval
from pyjax._src.interpreters.jvp import defjvp2 as _defjvp2
from pyjax._src.interpreters.jvp import defjvp_zero as _defjvp_zero
from pyjax._src.lax import dot as _dot_mod
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import gather_scatter as _gs
from pyjax._src.lax import shapes
from pyjax._src.lax import slicing as _slicing
from pyjax._src.lax.linalg import (
    _scalar,
    _symmetrize,
    _transpose_last,
    _tril,
    cholesky_p,
    cholesky_update_p,
    eig,
    eig_p,
    eigh_p,
    geqp3_p,
    geqrf_p,
    hessenberg_p,
    householder_product_p,
    lu,
    lu_p,
    lu_pivots_to_permutation_p,
    ormqr_p,
    qr_p,
    schur_p,
    svd_p,
    symmetric_product_p,
    triangular_solve,
    triangular_solve_p,
    tridiagonal_p,
    tridiagonal_solve,
    tridiagonal_solve_p,
)
from pyjax._src.rules import unimplemented as _unimplemented

# ---------------------------------------------------------------------------
# Autodiff rules
#
# The decompositions are differentiated by perturbation theory (see each
# rule for its reference); triangular_solve and tridiagonal_solve are linear
# in their right-hand side and transpose to a solve with the transposed
# matrix. Each rule stages the equations JAX 0.11's does, in the same order,
# so gradient jaxprs print alike: that is why the helpers below mimic
# jax.numpy's operators (`@` is a dot_general with preferred_element_type;
# `x[..., i, i]` a gather of normalised indices) rather than call them.

_HIGHEST = _dot_mod.Precision.HIGHEST


def _shape(x) -> tuple:
    return get_aval(x).shape


def _dtype(x) -> np.dtype:
    return get_aval(x).dtype


def _is_complex(x) -> bool:
    return np.issubdtype(_dtype(x), np.complexfloating)


def _weak(value, x):
    """A Python scalar in arithmetic with x: a weak literal of x's dtype."""
    return _scalar(value, get_aval(x), True)


def _conj(x):
    # jnp.conj: the identity on real arrays.
    return ew.conj(x) if _is_complex(x) else x


def _H(x):
    return _conj(_transpose_last(x))


def _real(x):
    # x.real: the identity on real arrays.
    return ew.real(x) if _is_complex(x) else x


def _astype(x, dtype):
    dtype = np.dtype(dtype)
    if _dtype(x) == dtype:
        return x
    return ew.convert_element_type_p.bind(x, new_dtype=dtype, weak_type=False, sharding=None)


def _eye(dtype, n: int, m: int | None = None):
    """lax._eye: ones on the diagonal, as an iota comparison."""
    m = n if m is None else m
    rows = ew.add(shapes.broadcasted_iota(np.int32, (n, m), 0), np.int32(0))
    mask = ew.eq(rows, shapes.broadcasted_iota(np.int32, (n, m), 1))
    return ew.convert_element_type_p.bind(mask, new_dtype=np.dtype(dtype), weak_type=False, sharding=None)


def _expand_leading(x, ndim: int):
    """lax.expand_dims(x, range(ndim - x.ndim)): size-1 axes in front."""
    return shapes.expand_dims(x, tuple(range(ndim - len(_shape(x)))))


def _rank_promote(x, ndim: int):
    """jnp's rank promotion of an operand: leading size-1 axes."""
    return _expand_leading(x, ndim)


def _triu(x, k: int = 0):
    """Zeroes the part of each matrix of `x` below its k-th diagonal."""
    aval = get_aval(x)
    *batch, n, m = aval.shape
    rows = ew.add(shapes.broadcasted_iota(np.int32, (n, m), 0), np.int32(k - 1))
    mask = ew.ge(rows, shapes.broadcasted_iota(np.int32, (n, m), 1))
    if batch:
        mask = shapes.broadcast_in_dim(mask, aval.shape, (len(batch), len(batch) + 1))
    zeros = shapes.broadcast_in_dim(_scalar(0, aval, aval.weak_type), aval.shape, ())
    return ew.select(mask, zeros, x)


def _dot_highest(a, b):
    """lax.dot (matrices) or lax.batch_matmul, at HIGHEST precision."""
    nd = len(_shape(a))
    batch = tuple(range(nd - 2))
    return _dot_mod.dot_general(a, b, (((nd - 1,), (nd - 2,)), (batch, batch)), precision=_HIGHEST)


def _matmul(a, b, precision=None):
    """jnp.matmul of equal-batch operands: a dot_general that keeps the dtype."""
    nd = len(_shape(a))
    batch = tuple(range(nd - 2))
    return _dot_mod.dot_general(a, b, (((nd - 1,), (nd - 2,)), (batch, batch)), precision=precision,
                                preferred_element_type=_dtype(a))


def _normalize_index(index, size: int):
    # jnp indexing wraps negative indices: where(i < 0, i + size, i).
    dtype = _dtype(index)
    return ew.select(ew.lt(index, np.zeros((), dtype)[()]), ew.add(index, np.asarray(size, dtype)[()]), index)


def _extract_diagonal(s):
    """s[..., i, i] for i < min(n, m), as jnp indexing gathers it."""
    *batch, n, m = _shape(s)
    i = shapes.iota(np.int32, min(n, m))
    first, second = _normalize_index(i, n), _normalize_index(i, m)
    indices = shapes.concatenate([shapes.expand_dims(first, (1,)), shapes.expand_dims(second, (1,))], 1)
    nb = len(batch)
    dnums = _gs.GatherDimensionNumbers(offset_dims=tuple(range(nb)), collapsed_slice_dims=(nb, nb + 1),
                                       start_index_map=(nb, nb + 1))
    return _gs.gather(s, indices, dnums, (*batch, 1, 1), mode=_gs.GatherScatterMode.PROMISE_IN_BOUNDS)


def _construct_diagonal(s):
    """A (batched) diagonal matrix: zeros.at[..., i, i].set(s)."""
    *batch, k = _shape(s)
    i = shapes.iota(np.int32, k)
    zeros = shapes.broadcast_in_dim(np.zeros((), _dtype(s))[()], (*batch, k, k), ())
    first, second = _normalize_index(i, k), _normalize_index(i, k)
    indices = shapes.concatenate([shapes.expand_dims(first, (1,)), shapes.expand_dims(second, (1,))], 1)
    nb = len(batch)
    dnums = _gs.ScatterDimensionNumbers(update_window_dims=tuple(range(nb)), inserted_window_dims=(nb, nb + 1),
                                        scatter_dims_to_operand_dims=(nb, nb + 1))
    return _gs.scatter(zeros, indices, s, dnums)


def _take_last_axis(x, indices):
    """x[..., indices] for a vector of indices (jnp's gather)."""
    shape = _shape(x)
    nd = len(shape)
    indices = shapes.expand_dims(_normalize_index(indices, shape[-1]), (1,))
    dnums = _gs.GatherDimensionNumbers(offset_dims=tuple(range(nd - 1)), collapsed_slice_dims=(nd - 1,),
                                       start_index_map=(nd - 1,))
    return _gs.gather(x, indices, dnums, (*shape[:-1], 1), mode=_gs.GatherScatterMode.PROMISE_IN_BOUNDS)


def _slice_last2(x, rows: tuple, cols: tuple):
    """x[..., r0:r1, c0:c1] (no equation when it is all of x)."""
    batch = _shape(x)[:-2]
    start = (0,) * len(batch) + (rows[0], cols[0])
    limit = tuple(batch) + (rows[1], cols[1])
    if start == (0,) * len(start) and limit == _shape(x):
        return x
    return shapes.slice(x, start, limit)


# --- cholesky


def _cholesky_jvp(primals, tangents):
    # Forward mode from https://arxiv.org/pdf/1602.07527.pdf: with
    # S = L^-1 dA L^-H, dL = L phi(S), phi = the lower triangle with a halved diagonal.
    (x,), (sigma_dot,) = primals, tangents
    L = _tril(cholesky_p.bind(x))
    n = _shape(x)[-1]
    tmp = triangular_solve(L, sigma_dot, left_side=False, transpose_a=True, conjugate_a=True, lower=True)
    s = triangular_solve(L, tmp, left_side=True, transpose_a=False, lower=True)
    lower = _tril(s)
    halve_diagonal = ew.add(np.ones((), _dtype(s))[()], _eye(_dtype(s), n))
    phi = ew.div(lower, _expand_leading(halve_diagonal, len(_shape(lower))))
    return L, _dot_highest(L, phi)


cholesky_p.def_jvp(_cholesky_jvp)


# --- triangular_solve: nonlinear in a, linear in b


def _triangular_solve_jvp_a(g_a, ans, a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    # d(A^-1 B) = -A^-1 dA A^-1 B, with dA restricted to the triangle A is read from.
    m, n = _shape(b)[-2:]
    k = 1 if unit_diagonal else 0
    g_a = _tril(g_a, -k) if lower else _triu(g_a, k)
    g_a = ew.neg(g_a)
    g_a = _transpose_last(g_a) if transpose_a else g_a
    g_a = _conj(g_a) if conjugate_a else g_a

    def a_inverse(rhs):
        return triangular_solve(a, rhs, left_side=left_side, lower=lower, transpose_a=transpose_a,
                                conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)

    # A solve costs about as much as a product: take the cheaper order.
    if left_side:
        return a_inverse(_dot_highest(g_a, ans)) if m > n else _dot_highest(a_inverse(g_a), ans)
    return a_inverse(_dot_highest(ans, g_a)) if m < n else _dot_highest(ans, a_inverse(g_a))


def _triangular_solve_jvp_b(g_b, ans, a, b, **params):
    return triangular_solve(a, g_b, **params)


def _triangular_solve_transpose(ct, a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    # ct: b-shaped -> b: the solve with op(A) transposed.
    if type(ct) is _Zero:
        return [None, _Zero(b.aval)]
    return [None, triangular_solve(a, ct, left_side=left_side, lower=lower, transpose_a=not transpose_a,
                                   conjugate_a=conjugate_a, unit_diagonal=unit_diagonal)]


_defjvp2(triangular_solve_p, _triangular_solve_jvp_a, _triangular_solve_jvp_b)
triangular_solve_p.def_transpose(_triangular_solve_transpose)


# --- tridiagonal_solve: nonlinear in the diagonals, linear in b


def _at_rows_add(y, start: int, update):
    """y.at[..., start:, :].add(update) (or [..., :stop, :] at start 0), as
    jnp stages it: a scatter-add of the update window at row `start`."""
    nd = len(_shape(y))
    index = shapes.broadcast_in_dim(np.int32(start), (1,), ())
    dnums = _gs.ScatterDimensionNumbers(update_window_dims=tuple(range(nd)), inserted_window_dims=(),
                                        scatter_dims_to_operand_dims=(nd - 2,))
    return _gs.scatter_add(y, index, update, dnums, indices_are_sorted=True, unique_indices=True)


def _rows(x, start: int, stop: int):
    """x[..., start:stop, :] (x[..., start:stop] for a vector batch)."""
    shape = _shape(x)
    starts = [0] * len(shape)
    limits = list(shape)
    axis = len(shape) - 2
    starts[axis], limits[axis] = start, stop
    return shapes.slice(x, tuple(starts), tuple(limits))


def _last(x, start: int, stop: int):
    """x[..., start:stop] as a static slice."""
    shape = _shape(x)
    return shapes.slice(x, (0,) * (len(shape) - 1) + (start,), shape[:-1] + (stop,))


def _tridiagonal_product(dl, d, du, b):
    # The tridiagonal matrix (dl, d, du) times b.
    m = _shape(b)[-2]
    y = ew.mul(shapes.reshape(d, _shape(d) + (1,)), b)
    y = _at_rows_add(y, 1, ew.mul(shapes.expand_dims(_last(dl, 1, m), (len(_shape(dl)),)), _rows(b, 0, m - 1)))
    y = _at_rows_add(y, 0, ew.mul(shapes.expand_dims(_last(du, 0, m - 1), (len(_shape(du)),)), _rows(b, 1, m)))
    return y


def _tridiagonal_solve_jvp(primals, tangents, *, perturb_singular):
    *diags, _ = primals
    *diags_dot, b_dot = tangents
    ans = tridiagonal_solve_p.bind(*primals, perturb_singular=perturb_singular)
    # A x = b  =>  A dx = db - dA x.
    if all(type(t) is _Zero for t in diags_dot):
        rhs = b_dot
    else:
        matvec_dot = _tridiagonal_product(*[_instantiate(t) for t in diags_dot], ans)
        rhs = _add_tangents(b_dot, ew.neg(matvec_dot))
    return ans, tridiagonal_solve_p.bind(*diags, _instantiate(rhs), perturb_singular=perturb_singular)


def _tridiagonal_solve_transpose(ct, dl, d, du, b, *, perturb_singular):
    # ct: b-shaped -> b: solve with A^T, whose sub-diagonal is A's super-diagonal
    # shifted down one row and whose super-diagonal is A's sub-diagonal shifted up.
    if type(ct) is _Zero:
        return [None, None, None, _Zero(b.aval)]
    n = _shape(du)[-1]
    last = len(_shape(du)) - 1
    zeros_like = lambda x: shapes.broadcast_in_dim(np.zeros((), _dtype(x))[()], _shape(x), ())
    dl_trans = shapes.concatenate([zeros_like(_last(du, n - 1, n)), _last(du, 0, n - 1)], last)
    du_trans = shapes.concatenate([_last(dl, 1, n), zeros_like(_last(dl, 0, 1))], last)
    return [None, None, None, tridiagonal_solve(dl_trans, d, du_trans, ct, perturb_singular=perturb_singular)]


tridiagonal_solve_p.def_jvp(_tridiagonal_solve_jvp)
tridiagonal_solve_p.def_transpose(_tridiagonal_solve_transpose)


# --- eigh


def _eigh_jvp(primals, tangents, *, lower, sort_eigenvalues, subset_by_index, algorithm):
    # Nondegenerate perturbation theory (distinct eigenvalues), e.g.
    # https://people.maths.ox.ac.uk/gilesm/files/NA-08-01.pdf:
    # dw = diag(V^H dA V), dV = V (F * V^H dA V), F_ij = 1 / (w_j - w_i) off the diagonal.
    (a,), (a_dot,) = primals, tangents
    n = _shape(a)[-1]
    if not (subset_by_index is None or tuple(subset_by_index) == (0, n)):
        raise NotImplementedError("Derivatives not defined for partial eigen decomposition.")
    v, w_real = eigh_p.bind(_symmetrize(a), lower=lower, sort_eigenvalues=sort_eigenvalues,
                            subset_by_index=subset_by_index, algorithm=algorithm)
    w = _astype(w_real, _dtype(a))
    nd = len(_shape(w))
    eye_n = _eye(_dtype(a), n)
    # Built so the diagonal is 1/1, never 1/0.
    w_row = shapes.expand_dims(w, (nd - 1,))
    with_row = ew.add(_rank_promote(eye_n, nd + 1), w_row)
    fmat = ew.sub(ew.integer_pow(ew.sub(with_row, shapes.expand_dims(w, (nd,))), -1), _rank_promote(eye_n, nd + 1))
    vdag_adot_v = _dot_highest(_dot_highest(_H(v), a_dot), v)
    dv = _dot_highest(v, ew.mul(fmat, vdag_adot_v))
    dw = _extract_diagonal(_real(vdag_adot_v))
    return [v, w_real], [dv, dw]


eigh_p.def_jvp(_eigh_jvp)


# --- eig


def _solve(a, b):
    """a^-1 b by LU with partial pivoting (JAX uses custom_linear_solve here,
    which pyjax does not have yet: the math is the same, the jaxpr is not)."""
    lu_, _, permutation = lu(a)
    x = _take_rows(b, permutation)
    x = triangular_solve(lu_, x, left_side=True, lower=True, unit_diagonal=True)
    return triangular_solve(lu_, x, left_side=True, lower=False)


def _take_rows(x, rows):
    """x[..., rows, :] for a (batched) row permutation."""
    *batch, _, k = _shape(x)
    nb = len(batch)
    indices = shapes.expand_dims(rows, (nb + 1,))
    batch_dims = tuple(range(nb))
    dnums = _gs.GatherDimensionNumbers(offset_dims=(nb + 1,), collapsed_slice_dims=(nb,), start_index_map=(nb,),
                                       operand_batching_dims=batch_dims, start_indices_batching_dims=batch_dims)
    return _gs.gather(x, indices, dnums, (1,) * nb + (1, k), mode=_gs.GatherScatterMode.PROMISE_IN_BOUNDS)


def _sum_last(x, axis: int):
    from pyjax._src.lax.reductions import reduce_sum

    return reduce_sum(x, (axis % len(_shape(x)),))


def _eig_vec_jvp(w, v, da):
    # Nondegenerate perturbation theory, Sec 3.1 of
    # https://people.maths.ox.ac.uk/gilesm/files/NA-08-01.pdf. geev fixes each
    # eigenvector up to a complex scale by unit 2-norm and a real largest
    # component; the derivative keeps both (https://github.com/jax-ml/jax/issues/2748).
    n = _shape(w)[-1]
    nd = len(_shape(v))
    eye_n = _eye(_dtype(w), n)
    w_row = shapes.expand_dims(w, (nd - 2,))
    with_row = ew.add(_rank_promote(eye_n, nd), w_row)
    fmat = ew.sub(ew.integer_pow(ew.sub(with_row, shapes.expand_dims(w, (nd - 1,))), -1), _rank_promote(eye_n, nd))
    p = _dot_highest(_solve(v, da), v)
    dw = _extract_diagonal(p)
    u = _dot_highest(v, ew.mul(fmat, p))
    # dv_j = u_j + c_j v_j; c_j = -Re(v_j^H u_j) - i Im(u_kj) / v_kj at k = argmax_i |v_ij|.
    from pyjax._src.lax.reductions import argmax

    k = argmax(ew.abs(v), nd - 2, np.int32)
    mask = _astype(ew.eq(shapes.broadcasted_iota(np.int32, _shape(v), nd - 2), shapes.expand_dims(k, (nd - 2,))),
                   _dtype(v))
    c = ew.complex(ew.neg(ew.real(_sum_last(ew.mul(ew.conj(v), u), -2))),
                   ew.div(ew.neg(ew.imag(_sum_last(ew.mul(mask, u), -2))), ew.real(_sum_last(ew.mul(mask, v), -2))))
    return dw, ew.add(u, ew.mul(v, shapes.expand_dims(c, (nd - 2,))))


def _eig_jvp(primals, tangents, *, compute_left_eigenvectors, compute_right_eigenvectors, enable_eigvec_derivs,
             implementation):
    (a,), (da,) = primals, tangents
    if (compute_left_eigenvectors or compute_right_eigenvectors) and not enable_eigvec_derivs:
        raise NotImplementedError(
            "Derivatives of non-symmetric eigenvectors are only valid under assumptions on the input that JAX "
            "cannot check (see the enable_eigvec_derivs argument to jax.lax.linalg.eig). Pass "
            "enable_eigvec_derivs=True to jax.lax.linalg.eig to opt in. See "
            "https://github.com/jax-ml/jax/issues/2748 for discussion.")
    outs = eig(a, compute_left_eigenvectors=compute_left_eigenvectors, compute_right_eigenvectors=True,
               enable_eigvec_derivs=enable_eigvec_derivs, implementation=implementation)
    w, vr = outs[0], outs[-1]
    da = _astype(da, _dtype(vr))
    if not (compute_left_eigenvectors or compute_right_eigenvectors):
        # dw = diag(V^-1 dA V)
        return [w], [_sum_last(ew.mul(_solve(vr, da), _transpose_last(vr)), -1)]
    dw, dvr = _eig_vec_jvp(w, vr, da)
    primal_out, tangent_out = [w], [dw]
    if compute_left_eigenvectors:
        vl = outs[1]
        _, dvl = _eig_vec_jvp(ew.conj(w), vl, _H(da))
        primal_out.append(vl)
        tangent_out.append(dvl)
    primal_out.append(vr)
    tangent_out.append(dvr)
    return primal_out, tangent_out


eig_p.def_jvp(_eig_jvp)


# --- qr


def _thin_qr_jvp(q, r, dx):
    # For [..., m, n] with m >= n; see j-towns.github.io/papers/qr-derivative.pdf.
    dx_rinv = triangular_solve(r, dx)
    qt_dx_rinv = _matmul(_H(q), dx_rinv)
    qt_dx_rinv_lower = _tril(qt_dx_rinv, -1)
    do = ew.sub(qt_dx_rinv_lower, _H(qt_dx_rinv_lower))  # skew-symmetric
    # For complex inputs the diagonal of Q^H dX R^-1 keeps its imaginary part.
    n = _shape(r)[-1]
    eye = _expand_leading(_eye(_dtype(do), n), len(_shape(qt_dx_rinv)))
    do = ew.add(do, ew.mul(eye, ew.sub(qt_dx_rinv, _astype(_real(qt_dx_rinv), _dtype(qt_dx_rinv)))))
    dq = ew.add(_matmul(q, ew.sub(do, qt_dx_rinv)), dx_rinv)
    dr = _matmul(ew.sub(qt_dx_rinv, do), r)
    return dq, dr


def _qr_jvp(primals, tangents, *, pivoting, full_matrices, use_magma):
    (x,), (dx,) = primals, tangents
    q, r, *p = qr_p.bind(x, pivoting=pivoting, full_matrices=full_matrices, use_magma=use_magma)
    *_, m, n = _shape(x)
    if pivoting:
        dx = _take_last_axis(dx, p[0])
    pivots_dot = [_Zero(_tangent_aval(get_aval(p[0])))] if pivoting else []
    if m < n:
        # Wide: X = [X1 X2] = Q [R1 R2]; X1 = Q R1 is a square QR, and
        # R2 = Q^H X2 gives dR2 = dQ^H X2 + Q^H dX2.
        x2 = _slice_last2(x, (0, m), (m, n))
        dx1 = _slice_last2(dx, (0, m), (0, m))
        dx2 = _slice_last2(dx, (0, m), (m, n))
        r1 = _slice_last2(r, (0, m), (0, m))
        dq, dr1 = _thin_qr_jvp(q, r1, dx1)
        dr2 = ew.add(_matmul(_H(dq), x2), _matmul(_H(q), dx2))
        dr = shapes.concatenate([dr1, dr2], len(_shape(dr1)) - 1)
        return [q, r, *p], [dq, dr, *pivots_dot]
    q_mn = _slice_last2(q, (0, m), (0, n)) if full_matrices else q
    r_nn = _slice_last2(r, (0, n), (0, n)) if full_matrices else r
    dq_mn, dr_nn = _thin_qr_jvp(q_mn, r_nn, dx)
    if not full_matrices or m == n:
        return [q, r, *p], [dq_mn, dr_nn, *pivots_dot]
    # Full Q of a tall matrix (https://arxiv.org/pdf/2409.13374, eqs 32-33):
    # the extra columns follow from Q^H Q = I. (JAX solves with lu_solve; the
    # same solve here is written with triangular solves, so the jaxpr differs.)
    q_nn = _slice_last2(q_mn, (0, n), (0, n))
    q_pn = _slice_last2(q_mn, (n, m), (0, n))
    q_mp = _slice_last2(q, (0, m), (n, m))
    dq_nn = _slice_last2(dq_mn, (0, n), (0, n))
    dq_pn = _slice_last2(dq_mn, (n, m), (0, n))
    eye_n = _expand_leading(_eye(_dtype(q_nn), n), len(_shape(q_nn)))
    z_pn_h = _solve(_H(ew.sub(q_nn, eye_n)), _H(q_pn))
    z_pn = _H(z_pn_h)
    dq_mp = ew.sub(_matmul(dq_mn, z_pn_h),
                   _matmul(ew.add(q_mn, _matmul(q_mp, z_pn)), _H(ew.sub(dq_pn, _matmul(z_pn, dq_nn)))))
    dq = shapes.concatenate([dq_mn, dq_mp], len(_shape(dq_mn)) - 1)
    zeros = shapes.broadcast_in_dim(np.zeros((), _dtype(dr_nn))[()], (*_shape(dr_nn)[:-2], m - n, n), ())
    dr = shapes.concatenate([dr_nn, zeros], len(_shape(dr_nn)) - 2)
    return [q, r, *p], [dq, dr, *pivots_dot]


qr_p.def_jvp(_qr_jvp)


# --- lu


def _lu_jvp_inner(lu_, a_dot, permutation, batched: bool):
    # Differentiation of Matrix Functionals Using Triangular Factorization
    # (De Hoog, Anderssen, Lukas): from LU = PA,
    #   L^-1 dL + dU U^-1 = L^-1 P dA U^-1 =: S,
    #   dL = L tril(S, -1),  dU = triu(S) U.
    # JAX vmaps this function over batch dimensions; `batched` stages what
    # that vmap stages (masks, zeros and identities built per matrix and then
    # broadcast against the batch).
    *batch, m, n = _shape(a_dot)
    dtype = _dtype(a_dot)
    k = min(m, n)
    nb = len(batch)
    zero = np.zeros((), _dtype(lu_))[()]

    def tril(x, diag):
        return _vmapped_triangle(x, diag, lower=True) if batched else _tril(x, diag)

    def triu(x, diag):
        return _vmapped_triangle(x, diag, lower=False) if batched else _triu(x, diag)

    def add_unbatched(x, y):
        # x batched, y one matrix: vmap broadcasts y against the batch first.
        if batched:
            y = _vmap_broadcast(y, (1,) * nb + _shape(y), np.arange(nb, nb + 2, dtype=np.int64))
        return ew.add(x, y)

    pad_batch = ((0, 0, 0),) * nb
    l_part = tril(_slice_last2(lu_, (0, m), (0, k)), -1)
    l_ = _slicing.pad(l_part, zero, pad_batch + ((0, 0, 0), (0, m - k, 0)))
    l_ = add_unbatched(l_, _eye(dtype, m))
    u_eye = _slicing.pad(_eye(dtype, n - k), zero, ((k, 0, 0), (k, 0, 0)))
    u_part = triu(_slice_last2(lu_, (0, k), (0, n)), 0)
    u_ = add_unbatched(_slicing.pad(u_part, zero, pad_batch + ((0, n - k, 0), (0, 0, 0))), u_eye)
    if batched:
        la_rhs = _vmapped_take_rows(a_dot, permutation)
    else:
        la_rhs = _take_rows(a_dot, _normalize_index(permutation, m))
    la = triangular_solve(l_, la_rhs, left_side=True, transpose_a=False, lower=True, unit_diagonal=True)
    lau = triangular_solve(u_, la, left_side=False, transpose_a=False, lower=False)
    l_dot = _matmul(l_, tril(lau, -1), precision=_HIGHEST)
    u_dot = _matmul(triu(lau, 0), u_, precision=_HIGHEST)
    return ew.add(l_dot, u_dot)


def _vmap_broadcast(x, shape, dims):
    # vmap's rules broadcast with NumPy integer dimensions, which JAX prints
    # as np.int64(...): bind directly so they are kept.
    return shapes.broadcast_in_dim_p.bind(x, shape=tuple(shape), broadcast_dimensions=tuple(dims), sharding=None)


def _vmapped_triangle(x, k: int, lower: bool):
    # _tril/_triu of one matrix under vmap: the mask and the zeros are built
    # for one matrix, then broadcast against the batch by select_n's rule.
    *batch, n, m = _shape(x)
    dims = tuple(np.arange(len(batch), len(batch) + 2, dtype=np.int64))
    rows = ew.add(shapes.broadcasted_iota(np.int32, (n, m), 0), np.int32(k if lower else k - 1))
    mask = ew.ge(rows, shapes.broadcasted_iota(np.int32, (n, m), 1))
    zeros = shapes.broadcast_in_dim(np.zeros((), _dtype(x))[()], (n, m), ())
    mask = _vmap_broadcast(mask, _shape(x), dims)
    zeros = _vmap_broadcast(zeros, _shape(x), dims)
    return ew.select(mask, x, zeros) if lower else ew.select(mask, zeros, x)


def _vmapped_take_rows(x, rows):
    # a_dot[permutation] under vmap: a gather with the batch as batching dims.
    *batch, m, k = _shape(x)
    nb = len(batch)
    rows = _normalize_index(rows, m)
    indices = _vmap_broadcast(rows, _shape(rows) + (1,), tuple(range(nb)) + (np.int64(nb),))
    batch_dims = tuple(range(nb))
    dnums = _gs.GatherDimensionNumbers(offset_dims=(np.int64(nb + 1),), collapsed_slice_dims=(np.int64(nb),),
                                       start_index_map=(np.int64(nb),), operand_batching_dims=batch_dims,
                                       start_indices_batching_dims=batch_dims)
    return _gs.gather(x, indices, dnums, (1,) * nb + (1, k), mode=_gs.GatherScatterMode.PROMISE_IN_BOUNDS)


def _lu_jvp(primals, tangents):
    (a,), (a_dot,) = primals, tangents
    lu_, pivots, permutation = lu_p.bind(a)
    if len(_shape(a)) > 2:
        lu_dot = _lu_jvp_inner(lu_, a_dot, permutation, batched=True)
    else:
        lu_dot = _lu_jvp_inner(lu_, a_dot, permutation, batched=False)
    return [lu_, pivots, permutation], [lu_dot, _Zero(_tangent_aval(get_aval(pivots))),
                                        _Zero(_tangent_aval(get_aval(permutation)))]


lu_p.def_jvp(_lu_jvp)


# --- svd


def _svd_jvp(primals, tangents, *, full_matrices, compute_uv, subset_by_index, algorithm):
    # https://people.maths.ox.ac.uk/gilesm/files/NA-08-01.pdf, for distinct
    # nonzero singular values. The products run at float32 precision
    # (HIGHEST), as JAX's rule asks with default_matmul_precision.
    (a,), (da,) = primals, tangents
    s, u, vt = svd_p.bind(a, full_matrices=False, compute_uv=True, subset_by_index=subset_by_index,
                          algorithm=algorithm)
    m, n = _shape(a)[-2:]
    if compute_uv and full_matrices and m != n:
        raise NotImplementedError("Singular value decomposition JVP not implemented for full matrices")
    mm = lambda x, y: _matmul(x, y, precision=_HIGHEST)
    dtype = _dtype(a)
    ut, v = _H(u), _H(vt)
    s_dim = shapes.expand_dims(s, (len(_shape(s)) - 1,))
    ds_full = mm(mm(ut, da), v)
    ds = _extract_diagonal(_real(ds_full))
    if not compute_uv:
        return [s], [ds]
    k = _shape(s)[-1]
    s_diffs = ew.mul(ew.add(s_dim, _transpose_last(s_dim)), ew.sub(s_dim, _transpose_last(s_dim)))
    s_diffs_zeros = _expand_leading(_eye(_dtype(s), k), len(_shape(s_diffs)))
    f = ew.sub(ew.div(_weak(1, s_diffs), ew.add(s_diffs, s_diffs_zeros)), s_diffs_zeros)
    dss = ew.mul(_astype(s_dim, dtype), ds_full)
    sds = ew.mul(_transpose_last(_astype(s_dim, dtype)), ds_full)
    s_zeros = _astype(ew.eq(s, _weak(0, s)), _dtype(s))
    s_inv = ew.sub(ew.div(_weak(1, s), ew.add(s, s_zeros)), s_zeros)
    s_inv_mat = _construct_diagonal(s_inv)
    dudv_diag = ew.mul(ew.mul(_weak(0.5, ds_full), ew.sub(ds_full, _H(ds_full))), _astype(s_inv_mat, dtype))
    du = mm(u, ew.add(ew.mul(_astype(f, dtype), ew.add(dss, _H(dss))), dudv_diag))
    dv = mm(v, ew.mul(_astype(f, dtype), ew.add(sds, _H(sds))))
    if m > n:
        dav = mm(da, v)
        du = ew.add(du, ew.div(ew.sub(dav, mm(u, mm(ut, dav))), _astype(s_dim, dtype)))
    if n > m:
        dahu = mm(_H(da), u)
        dv = ew.add(dv, ew.div(ew.sub(dahu, mm(v, mm(vt, dahu))), _astype(s_dim, dtype)))
    return [s, u, vt], [ds, du, _H(dv)]


svd_p.def_jvp(_svd_jvp)


# --- declared: no derivative in JAX either, or an integer-valued result

_defjvp_zero(lu_pivots_to_permutation_p)  # integer in, integer out
for _primitive in (householder_product_p, hessenberg_p, schur_p, tridiagonal_p, geqrf_p, geqp3_p, ormqr_p,
                   cholesky_update_p, symmetric_product_p):
    _primitive.def_jvp(_unimplemented(f"JAX 0.11 defines no derivative for {_primitive.name}"))


# ---------------------------------------------------------------------------
# Batching rules. Every linalg primitive already maps over leading batch
# dimensions, so vmap moves its axis to the front of every operand (an
# unbatched operand is broadcast) and binds the same primitive; outputs come
# out batched on axis 0. The two solves have a cheaper case when only the
# right-hand side is batched: the examples become extra right-hand sides of
# one solve. cholesky_update has no batching rule in JAX 0.11 either. The
# placement (and the NumPy dimension numbers of the broadcasts) follow
# JAX 0.11, so vmapped jaxprs match.

from pyjax._src.interpreters import batching as _batching  # noqa: E402
from pyjax._src.lax import batching_util as _batching_util  # noqa: E402


def _batch_at_front(x, d, size: int):
    # JAX's batching.bdim_at_front (broadcast with np.int64 dimension numbers).
    if d is _batching.not_mapped:
        return _batching_util.broadcast_batch(x, size, 0)
    return _batching_util.moveaxis(x, d, 0)


def _leading_batch_rule(primitive):
    def rule(axis_data, args, dims, **params):
        # every operand: (B, batch..., core...)
        operands = [_batch_at_front(x, d, axis_data.size) for x, d in zip(args, dims, strict=True)]
        out = primitive.bind(*operands, **params)
        return (out, [0] * len(out)) if primitive.multiple_results else (out, 0)

    return rule


for _primitive in (cholesky_p, eig_p, eigh_p, hessenberg_p, tridiagonal_p, schur_p, householder_product_p, ormqr_p,
                   geqrf_p, geqp3_p, qr_p, lu_p, lu_pivots_to_permutation_p, svd_p, symmetric_product_p):
    _primitive.def_batch(_leading_batch_rule(_primitive))

cholesky_update_p.def_batch(_unimplemented("JAX 0.11 defines no batching rule for cholesky_update"))


def _move_to(x, src: int, dst: int):
    # moveaxis to a possibly negative destination (nothing when it is in place)
    return _batching_util.moveaxis(x, src, dst % get_aval(x).ndim)


def _triangular_solve_batch(axis_data, args, dims, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    (a, b), (a_dim, b_dim) = args, dims
    params = {"left_side": left_side, "lower": lower, "transpose_a": transpose_a, "conjugate_a": conjugate_a,
              "unit_diagonal": unit_diagonal}
    if a_dim is _batching.not_mapped:
        # One matrix for every example: the examples become more right-hand
        # sides. left_side, b: (..., m, n, B) -> (..., m, n*B); otherwise
        # b: (..., B, n, m) -> (..., B*n, m).
        if left_side:
            b = _move_to(b, b_dim, -1)
            shape = get_aval(b).shape
            flat = shapes.reshape(b, shape[:-2] + (shape[-2] * shape[-1],))
            out_dim = len(shape) - 1
        else:
            b = _move_to(b, b_dim, -2)
            shape = get_aval(b).shape
            flat = shapes.reshape(b, shape[:-3] + (shape[-3] * shape[-2], shape[-1]))
            out_dim = len(shape) - 2
        return shapes.reshape(triangular_solve(a, flat, **params), shape), out_dim
    a = _batch_at_front(a, a_dim, axis_data.size)
    b = _batch_at_front(b, b_dim, axis_data.size)
    return triangular_solve(a, b, **params), 0


def _tridiagonal_solve_batch(axis_data, args, dims, *, perturb_singular):
    dl, d, du, b = args
    not_mapped = _batching.not_mapped
    if all(x is not_mapped for x in dims[:3]):
        # Shared diagonals: b: (..., m, B, n) -> (..., m, B*n), one solve.
        b = _move_to(b, dims[3], -2)
        shape = get_aval(b).shape
        flat = shapes.reshape(b, shape[:-3] + (shape[-3], shape[-2] * shape[-1]))
        out = tridiagonal_solve(dl, d, du, flat, perturb_singular=perturb_singular)
        return shapes.reshape(out, shape), len(shape) - 2
    dl, d, du, b = (_batch_at_front(x, bd, axis_data.size) for x, bd in zip(args, dims, strict=True))
    return tridiagonal_solve(dl, d, du, b, perturb_singular=perturb_singular), 0


triangular_solve_p.def_batch(_triangular_solve_batch)
tridiagonal_solve_p.def_batch(_tridiagonal_solve_batch)
