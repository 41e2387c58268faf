"""vmap of every lax.linalg primitive: vmap(f) equals decomposing (solving)
each example and stacking, with the batch axis anywhere in the operands and,
for the several-operand primitives, batched and unbatched operands mixed.
(The primitives map over leading batch dims, so the rule moves the vmap
axis to the front; without it vmap raises "Batching rule for '<primitive>'
not implemented".) cholesky_update has no batching rule in JAX either."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.lax import linalg as linalg_internal  # geqrf, geqp3: not public in JAX either
from pyjax.lax import linalg

from vmap_oracle import check_vmap

B = 3
rng = np.random.default_rng(5)


def _normal(shape):
    return rng.standard_normal(shape).astype(np.float32)


def _spd(shape):
    # symmetric positive definite (..., n, n)
    a = _normal(shape)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1], dtype=np.float32)).astype(np.float32)


def _batched(make, shape, axis):
    return np.moveaxis(make((B,) + shape), 0, axis)


def _arg(make, shape, axis):
    return make(shape) if axis is None else _batched(make, shape, axis)


AXES = [0, 1, 2]


@pytest.mark.parametrize("axis", AXES)
def test_cholesky(axis):
    check_vmap(linalg.cholesky, (_batched(_spd, (4, 4), axis),), axis, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("axis", AXES)
def test_eigh(axis):
    check_vmap(linalg.eigh, (_batched(_spd, (4, 4), axis),), axis, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("axis", AXES)
def test_eig(axis):
    f = lambda x: linalg.eig(x, compute_left_eigenvectors=False)
    check_vmap(f, (_batched(_normal, (3, 3), axis),), axis, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_qr_and_svd(axis, full_matrices):
    # x: (4, 3), tall
    f = lambda x: (linalg.qr(x, full_matrices=full_matrices), linalg.svd(x, full_matrices=full_matrices))
    check_vmap(f, (_batched(_normal, (4, 3), axis),), axis, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("axis", AXES)
def test_qr_with_pivoting(axis):
    f = lambda x: linalg.qr(x, pivoting=True)
    check_vmap(f, (_batched(_normal, (3, 4), axis),), axis, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("axis", AXES)
def test_lu_and_pivots_to_permutation(axis):
    # lu, pivots (int32), permutation (int32)
    check_vmap(linalg.lu, (_batched(_normal, (4, 4), axis),), axis, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("axis", [0, 1])
def test_lu_pivots_to_permutation(axis):
    pivots = np.moveaxis(np.array([[2, 2, 3], [0, 1, 2], [3, 3, 3]], np.int32), 0, axis)
    check_vmap(lambda p: linalg.lu_pivots_to_permutation(p, 4), (pivots,), axis)


@pytest.mark.parametrize("axis", AXES)
def test_schur_hessenberg_tridiagonal(axis):
    f = lambda x: (linalg.schur(x), linalg.hessenberg(x))
    check_vmap(f, (_batched(_normal, (3, 3), axis),), axis, rtol=1e-4, atol=1e-4)
    check_vmap(linalg.tridiagonal, (_batched(_spd, (4, 4), axis),), axis, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("axis", AXES)
def test_geqrf(axis):
    check_vmap(linalg_internal.geqrf, (_batched(_normal, (4, 3), axis),), axis, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (2, 1)])
def test_geqp3(in_axes):
    # a: (3, 4), jpvt: (4,) int32 (zeros: every column free to move)
    a = _arg(_normal, (3, 4), in_axes[0])
    jpvt = np.zeros((B, 4) if in_axes[1] is not None else (4,), np.int32)
    jpvt = np.moveaxis(jpvt, 0, in_axes[1]) if in_axes[1] is not None else jpvt
    check_vmap(linalg_internal.geqp3, (a, jpvt), in_axes, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("in_axes", [(0, 0), (1, None), (None, 0), (2, 1)])
def test_householder_product(in_axes):
    # a: (4, 3) reflectors below the diagonal, taus: (3,)
    a, taus = _arg(_normal, (4, 3), in_axes[0]), _arg(_normal, (3,), in_axes[1])
    check_vmap(linalg.householder_product, (a, taus), in_axes, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("in_axes", [(0, 0, 0), (None, None, 1), (1, 0, None), (None, 0, 2)])
@pytest.mark.parametrize("left, transpose", [(True, False), (False, True)])
def test_ormqr(in_axes, left, transpose):
    # a: (4, 3), taus: (3,), c: (4, 4) -> Q c or c Q^T
    a, taus, c = (_arg(_normal, (4, 3), in_axes[0]), _arg(_normal, (3,), in_axes[1]),
                  _arg(_normal, (4, 4), in_axes[2]))
    f = lambda a, t, c: linalg.ormqr(a, t, c, left=left, transpose=transpose)
    check_vmap(f, (a, taus, c), in_axes, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("in_axes", [(0, 0), (2, None), (None, 1)])
def test_symmetric_product(in_axes):
    # alpha a a^T + beta c, a: (3, 2), c: (3, 3)
    a, c = _arg(_normal, (3, 2), in_axes[0]), _arg(_spd, (3, 3), in_axes[1])
    f = lambda a, c: linalg.symmetric_product(a, c, alpha=2.0, beta=0.5, symmetrize_output=True)
    check_vmap(f, (a, c), in_axes, rtol=1e-4, atol=1e-4)


def _lower(shape):
    # well-conditioned lower-triangular matrices
    return (np.tril(_normal(shape)) + 3 * np.eye(shape[-1], dtype=np.float32)).astype(np.float32)


TRIANGULAR_PLACEMENTS = [(0, 0), (2, 1), (None, 0), (None, 1), (None, 2), (0, None), (1, None)]


@pytest.mark.parametrize("in_axes", TRIANGULAR_PLACEMENTS)
@pytest.mark.parametrize("left_side", [True, False])
@pytest.mark.parametrize("transpose_a", [False, True])
def test_triangular_solve(in_axes, left_side, transpose_a):
    # a: (3, 3) lower, b: (3, 2) (left) or (2, 3) (right); a batched b alone
    # folds the examples into more right-hand sides of one solve.
    a = _arg(_lower, (3, 3), in_axes[0])
    b = _arg(_normal, (3, 2) if left_side else (2, 3), in_axes[1])
    f = lambda a, b: linalg.triangular_solve(a, b, left_side=left_side, lower=True, transpose_a=transpose_a)
    check_vmap(f, (a, b), in_axes, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("in_axes", [(None, None, None, 0), (None, None, None, 2), (0, None, None, None),
                                     (None, 1, None, 0), (0, 0, 0, 0), (None, None, 1, None)])
def test_tridiagonal_solve(in_axes):
    # dl, d, du: (4,), b: (4, 2); shared diagonals with batched b fold the
    # examples into more columns of b.
    dl, du = _arg(_normal, (4,), in_axes[0]), _arg(_normal, (4,), in_axes[2])
    d = _arg(lambda s: _normal(s) + 5.0, (4,), in_axes[1])
    b = _arg(_normal, (4, 2), in_axes[3])
    check_vmap(linalg.tridiagonal_solve, (dl, d, du, b), in_axes, rtol=1e-4, atol=1e-4)


def test_jnp_linalg_under_vmap():
    # the jnp functions built on these primitives (lu, triangular_solve,
    # gather), per example. (Wrapped in lambdas: jit(vmap(g)) of a jitted g
    # itself currently loses the vmap, a jit/vmap wrapper bug outside these
    # rules.)
    x = _batched(_spd, (3, 3), 1)
    check_vmap(lambda x: jnp.linalg.inv(x), (x,), 1, rtol=1e-4, atol=1e-4)
    check_vmap(lambda x: jnp.linalg.det(x), (x,), 1, rtol=1e-4, atol=1e-4)


def test_cholesky_update_has_no_rule():
    # a declared gap (the coverage table lists it), not a silent hole
    with pytest.raises(NotImplementedError, match="'cholesky_update' not implemented .JAX 0.11 defines no batching"):
        jax.vmap(lax.linalg.cholesky_update)(jnp.ones((2, 3, 3)), jnp.ones((2, 3)))
