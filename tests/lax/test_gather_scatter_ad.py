"""Autodiff of gather and the scatters: JVPs against finite differences
(check_grads, forward and reverse, to second order where the rule allows),
the transposes of the linear ones, the tie-sharing of scatter-min/-max, the
winner-only tangents of scatter with repeated indices, and JAX's refusals.
"""

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

GDN = lax.GatherDimensionNumbers
SDN = lax.ScatterDimensionNumbers

X = np.linspace(0.3, 1.7, 6).astype(np.float32)
M = np.linspace(-1.2, 1.4, 20).astype(np.float32).reshape(4, 5)
REPEATED = np.array([[0], [2], [2]], np.int32)
UNIQUE = np.array([[0], [3], [2]], np.int32)
POINT = SDN((), (0,), (0,))


def test_gather_repeated_indices():
    f = lambda x: lax.gather(x, REPEATED, GDN((), (0,), (0,)), (1,)) ** 2
    check_grads(f, (X,), order=2, modes=("fwd", "rev"))


def test_gather_windows_and_batching_dims():
    # Rows of M, two columns wide; then one element per row (a batching dim).
    rows = lambda m: lax.gather(m, np.array([[1, 0], [2, 3]], np.int32), GDN((1, 2), (), (0, 1)), (2, 2))
    per_row = lambda m: lax.gather(m, np.array([[4], [0], [1], [1]], np.int32),
                                   GDN((), (1,), (1,), (0,), (0,)), (1, 1))
    check_grads(lambda m: lax.sin(rows(m)), (M,), order=2, modes=("fwd", "rev"))
    check_grads(lambda m: per_row(m) * per_row(m), (M,), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("mode", ["clip", "fill"])
def test_gather_out_of_bounds_modes(mode):
    idx = np.array([[1], [5], [-2]], np.int32)
    f = lambda x: lax.gather(x, idx, GDN((), (0,), (0,)), (1,), mode=mode, fill_value=-1.0) * x[:3]
    check_grads(f, (X,), order=2, modes=("fwd", "rev"))
    # A filled window has a zero tangent (whatever the fill value is).
    _, tangent = jax.jvp(lambda x: lax.gather(x, idx, GDN((), (0,), (0,)), (1,), mode=mode), (X,), (np.ones(6, np.float32),))
    check_close(tangent, np.array([1, 1, 1 if mode == "clip" else 0], np.float32))


def test_gather_transpose_is_scatter_add():
    # Repeated indices accumulate their cotangents.
    g = jax.grad(lambda x: lax.gather(x, REPEATED, GDN((), (0,), (0,)), (1,)).sum())(X)
    check_close(g, np.array([1, 0, 2, 0, 0, 0], np.float32))


@pytest.mark.parametrize("scatter", [lax.scatter_add, lax.scatter_sub])
def test_scatter_add_sub(scatter):
    u = np.array([0.5, -1.0, 2.0], np.float32)
    f = lambda x, u: lax.sin(scatter(x, REPEATED, u, POINT))
    check_grads(f, (X, u), order=2, modes=("fwd", "rev"))
    windows = SDN((1,), (0,), (0,))
    g = lambda m, u: scatter(m, REPEATED, u, windows) ** 2
    check_grads(g, (M, M[:3] * 2), order=2, modes=("fwd", "rev"))


def test_scatter_add_sub_transposes():
    u = np.ones(3, np.float32)
    ct_x, ct_u = jax.grad(lambda x, u: (lax.scatter_sub(x, REPEATED, u, POINT) * np.arange(6.0, dtype=np.float32)).sum(),
                          (0, 1))(X, u)
    check_close(ct_x, np.arange(6.0, dtype=np.float32))
    check_close(ct_u, -np.array([0, 2, 2], np.float32))


def test_scatter_mul_unique_indices():
    u = np.array([1.5, -0.5, 2.0], np.float32)
    f = lambda x, u: lax.scatter_mul(x, UNIQUE, u, POINT, unique_indices=True)
    check_grads(f, (X, u), order=2, modes=("fwd", "rev"))


def test_scatter_mul_repeated_indices():
    u = np.array([1.5, -0.5, 2.0], np.float32)
    # Linear in the operand: fine with repeated indices.
    check_grads(lambda x: lax.scatter_mul(x, REPEATED, u, POINT), (X,), order=2, modes=("fwd", "rev"))
    with pytest.raises(NotImplementedError, match="scatter_mul gradients are only implemented if `unique_indices=True`"):
        jax.jvp(lambda u: lax.scatter_mul(X, REPEATED, u, POINT), (u,), (u,))


@pytest.mark.parametrize("scatter", [lax.scatter_min, lax.scatter_max])
def test_scatter_min_max(scatter):
    u = np.array([0.1, 1.95, 0.8], np.float32)  # no ties: finite differences are well defined
    f = lambda x, u: scatter(x, REPEATED, u, POINT) * 2.0
    check_grads(f, (X, u), order=2, modes=("fwd", "rev"))


def test_scatter_max_ties_share_the_tangent():
    # Operand and both updates tie at element 0: each gets a third of it.
    x = np.array([1.0, 0.0], np.float32)
    u = np.array([1.0, 1.0], np.float32)
    idx = np.array([[0], [0]], np.int32)
    _, t = jax.jvp(lambda x, u: lax.scatter_max(x, idx, u, POINT), (x, u),
                   (np.array([3.0, 5.0], np.float32), np.array([6.0, 9.0], np.float32)))
    check_close(t, np.array([6.0, 5.0], np.float32))
    # An update that loses to the operand gets nothing.
    _, t = jax.jvp(lambda u: lax.scatter_max(x, idx, u, POINT), (np.array([1.0, 0.5], np.float32),),
                   (np.array([6.0, 9.0], np.float32),))
    check_close(t, np.array([3.0, 0.0], np.float32))


def test_scatter_repeated_indices_only_the_winner_counts():
    u = np.array([0.5, -1.0, 2.0], np.float32)
    f = lambda x, u: lax.scatter(x, REPEATED, u, POINT) ** 2
    check_grads(f, (X, u), order=2, modes=("fwd", "rev"))
    ct_x, ct_u = jax.grad(lambda x, u: lax.scatter(x, REPEATED, u, POINT).sum(), (0, 1))(X, u)
    check_close(ct_x, np.array([0, 1, 0, 1, 1, 1], np.float32))
    winner = np.asarray(lax.scatter(np.zeros(6, np.float32), REPEATED, np.array([1.0, 2.0, 3.0], np.float32), POINT))[2]
    expected_u = np.array([1, winner == 2.0, winner == 3.0], np.float32)
    check_close(ct_u, expected_u)


def test_scatter_unique_indices_windows():
    windows = SDN((1,), (0,), (0,))
    f = lambda m, u: lax.scatter(m, UNIQUE, u, windows, unique_indices=True) * m
    check_grads(f, (M, M[1:] + 1.0), order=2, modes=("fwd", "rev"))


def test_scatter_transpose_needs_unique_indices():
    # The unique-indices JVP is linear (a scatter of the tangents); its transpose
    # zeroes the overwritten part of the operand's cotangent.
    ct_x, ct_u = jax.grad(lambda x, u: (lax.scatter(x, UNIQUE, u, POINT, unique_indices=True) ** 2).sum(), (0, 1))(
        X, np.ones(3, np.float32))
    check_close(ct_x, np.array([0, 2 * X[1], 0, 0, 2 * X[4], 2 * X[5]], np.float32))
    check_close(ct_u, np.full(3, 2.0, np.float32))


def test_scatter_apply_has_no_jvp():
    with pytest.raises(NotImplementedError, match="scatter_apply JVP not implemented"):
        jax.jvp(lambda x: lax.scatter_apply(x, REPEATED, lax.sin, POINT), (X,), (X,))


def test_grads_under_jit():
    f = jax.jit(lambda x, u: lax.scatter(x, REPEATED, u, POINT) * lax.gather(x, np.arange(6)[:, None], GDN((), (0,), (0,)), (1,)))
    check_grads(f, (X, np.ones(3, np.float32)), order=1, modes=("fwd", "rev"))
