"""jax.scipy.sparse.linalg (cg, bicgstab, gmres) against numpy.linalg.solve
in double precision: matrices and functions as operators, preconditioners,
pytrees, restarts, and implicit derivatives. JAX's values and errors are
pinned by tests/golden/programs_scipy_sparse.py."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax.scipy.sparse import linalg as spl

RNG = np.random.default_rng(2)
N = 12
Q = RNG.normal(size=(N, N))
SPD = Q @ Q.T + N * np.eye(N)
GEN = Q + N * np.eye(N)
B = RNG.normal(size=N)


@pytest.fixture(autouse=True)
def x64():
    with pyjax.enable_x64(True):
        yield


def close(a, b, tol=1e-8):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


@pytest.mark.parametrize("solver,matrix", [(spl.cg, SPD), (spl.bicgstab, GEN), (spl.gmres, GEN)])
def test_solvers_converge_to_the_solution(solver, matrix):
    want = np.linalg.solve(matrix, B)
    close(solver(matrix, B, tol=1e-12)[0], want)
    close(solver(lambda v: jnp.dot(matrix, v), B, tol=1e-12, M=lambda v: v / np.diag(matrix))[0], want)
    close(pyjax.jit(lambda b: solver(matrix, b, tol=1e-12)[0])(B), want)


def test_gmres_restarts_and_info():
    x, info = spl.gmres(GEN, B, tol=1e-12, restart=3)
    close(x, np.linalg.solve(GEN, B))
    assert int(info) == 0
    close(spl.gmres(GEN, B, tol=1e-12, restart=4, solve_method="incremental")[0], np.linalg.solve(GEN, B))


def test_pytree_right_hand_sides():
    op = lambda t: {"a": t["a"] * 2.0, "b": SPD[:3, :3] @ t["b"]}
    out = spl.cg(op, {"a": jnp.ones(2), "b": jnp.ones(3)}, tol=1e-12)[0]
    close(out["a"], 0.5 * np.ones(2))
    close(out["b"], np.linalg.solve(SPD[:3, :3], np.ones(3)))


@pytest.mark.parametrize("solver,matrix", [(spl.cg, SPD), (spl.bicgstab, GEN), (spl.gmres, GEN)])
def test_implicit_derivatives(solver, matrix):
    g = pyjax.grad(lambda b: jnp.sum(solver(matrix, b, tol=1e-12)[0] ** 2))(B)
    x = np.linalg.solve(matrix, B)
    close(g, 2 * np.linalg.solve(matrix.T, x))
    batched = pyjax.vmap(lambda b: solver(matrix, b, tol=1e-12)[0])(np.stack([B, -2 * B]))
    close(batched, np.stack([x, -2 * x]))
