"""Native programs with linear algebra (native/lapack.py, points.py,
level1.py): Cholesky and triangular solves through SciPy's LAPACK/BLAS
pointers, one-element gathers and scatter-adds (a diagonal and its
gradient), large integer iotas, the dot of two vectors, a column times a
row and a product without contracting axes. A Gaussian process's
likelihood and its gradient, batched factorizations and solves of every
kind, float64 under x64 and a failed factorization go live as one native
call, bitwise the Python code's. Without these emitters none of the
programs below got a native tier."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import native_tiers_made

import pyjax
import pyjax.numpy as jnp
import pyjax.scipy.linalg as sl
from pyjax import lax
from pyjax._src.backends.numpy import native
from pyjax._src.backends.numpy.native import lapack
from pyjax._src.backends.numpy.native import settings as native_settings

pytestmark = pytest.mark.skipif(native.compiler() is None or not native_settings.ENABLED,
                                reason="native code needs a C compiler")

rng = np.random.default_rng(23)


def run_both(f, *args, monkeypatch):
    """Three native calls' results, bitwise the Python code's; the program tiers made."""
    monkeypatch.setattr(native_settings, "AFTER_STEPS", 0)
    jf = pyjax.jit(f)
    outs, made = native_tiers_made(lambda: [jf(*args) for _ in range(3)], kind="program")
    with monkeypatch.context() as m:
        m.setattr(native_settings, "ENABLED", False)
        reference = pyjax.jit(f)(*args)
    for out in outs:
        for a, b in zip(pyjax.tree.leaves(out), pyjax.tree.leaves(reference), strict=True):
            assert np.asarray(a).dtype == np.asarray(b).dtype
            assert np.asarray(a).tobytes() == np.asarray(b).tobytes()
    return made, reference


def spd(*shape, dtype=np.float32):
    n = shape[-1]
    a = rng.standard_normal(shape)
    return jnp.asarray((a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype))


def gp_nll(theta, X, y):
    n = X.shape[0]
    ls, var, noise = jnp.exp(theta[0]), jnp.exp(theta[1]), jnp.exp(theta[2])
    d2 = jnp.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = var * jnp.exp(-0.5 * d2 / ls ** 2) + (noise + 1e-4) * jnp.eye(n)
    L = sl.cholesky(K, lower=True)
    alpha = sl.solve_triangular(L.T, sl.solve_triangular(L, y, lower=True), lower=False)
    return 0.5 * y @ alpha + jnp.sum(jnp.log(jnp.diag(L))) + 0.5 * n * jnp.log(2 * jnp.pi)


def test_gaussian_process_gradient_goes_live_bitwise(monkeypatch):
    X = jnp.asarray(rng.uniform(-2, 2, (32, 3)).astype(np.float32))
    y = jnp.asarray(rng.standard_normal(32).astype(np.float32))
    theta = jnp.asarray(np.array([0.1, -0.2, -2.0], np.float32))
    made, (value, grad) = run_both(pyjax.value_and_grad(gp_nll), theta, X, y, monkeypatch=monkeypatch)
    assert np.isfinite(np.asarray(grad)).all()
    assert made and all(o.live for o in made)


def test_float64_factorization_gradient_goes_live_bitwise(monkeypatch):
    # (float64 exp and log are XLA's emulated functions, which keep a GP's
    # whole likelihood in Python: here the factor's gradient alone.)
    def f(K, y):
        L = sl.cholesky(K, lower=True)
        alpha = sl.solve_triangular(L.T, sl.solve_triangular(L, y, lower=True), lower=False)
        return 0.5 * y @ alpha + jnp.sum(jnp.diag(L) ** 2)

    with pyjax.enable_x64(True):
        y = jnp.asarray(rng.standard_normal(24))
        made, (value, grad) = run_both(pyjax.value_and_grad(f), spd(24, 24, dtype=np.float64), y,
                                       monkeypatch=monkeypatch)
        assert value.dtype == np.float64 and grad.dtype == np.float64
    assert made and all(o.live for o in made)


SOLVES = [dict(left_side=left, lower=lower, transpose_a=trans, unit_diagonal=unit)
          for left in (True, False) for lower in (True, False) for trans in (False, True) for unit in (False, True)]


@pytest.mark.parametrize("params", SOLVES, ids=lambda p: "-".join(f"{k}={int(v)}" for k, v in p.items()))
def test_batched_triangular_solves_go_live_bitwise(params, monkeypatch):
    a = spd(3, 6, 6)
    b = jnp.asarray(rng.standard_normal((3, 6, 4) if params["left_side"] else (3, 4, 6)).astype(np.float32))

    def f(a, b):
        l = lax.linalg.cholesky(a)
        return lax.linalg.triangular_solve(l if params["lower"] else jnp.swapaxes(l, -1, -2), b, **params) * 2.0

    made, _ = run_both(f, a, b, monkeypatch=monkeypatch)
    assert made and all(o.live for o in made)


def test_float64_solves_with_strided_operands_go_live_bitwise(monkeypatch):
    # A transposed (column-major) factor is handed to trsm as it is; a
    # broadcast right-hand side is copied first, as f2py copies it.
    with pyjax.enable_x64(True):
        a = spd(5, 5, dtype=np.float64)

        def f(a, v):
            l = lax.linalg.cholesky(a)
            b = jnp.broadcast_to(v[:, None], (5, 3))
            x = lax.linalg.triangular_solve(l.T, b, left_side=True, lower=False, transpose_a=True)
            return x + lax.linalg.triangular_solve(l, b, left_side=True, lower=True, conjugate_a=True)

        made, out = run_both(f, a, jnp.arange(5.0), monkeypatch=monkeypatch)
        assert out.dtype == np.float64
    assert made and all(o.live for o in made)


def test_a_failed_factorization_is_nan_natively(monkeypatch):
    bad = jnp.asarray(np.stack([np.asarray(spd(4, 4)), -np.eye(4, dtype=np.float32)]))
    made, out = run_both(lambda a: lax.linalg.cholesky(a) + 1.0, bad, monkeypatch=monkeypatch)
    lower = np.tril_indices(4)  # (lax.linalg.cholesky keeps the lower triangle)
    assert np.isnan(np.asarray(out[1])[lower]).all() and np.isfinite(np.asarray(out[0])).all()
    assert made and all(o.live for o in made)


@pytest.mark.parametrize("mode", ["clip", "fill", "promise_in_bounds"])
def test_point_gathers_and_scatter_adds_go_live_bitwise(mode, monkeypatch):
    # Repeated indices accumulate in order; out-of-bounds ones are clamped
    # (clip) or dropped (the other modes); a gather in fill mode keeps the
    # Python code for its equation (the program's tier is then not made).
    x = jnp.asarray(rng.standard_normal((5, 4)).astype(np.float32))
    idx = jnp.asarray(np.array([[0, 1], [4, 3], [0, 1], [7, 2], [2, -1]], np.int32))
    u = jnp.asarray(rng.standard_normal(5).astype(np.float32))

    def f(x, idx, u):
        added = x.at[idx[:, 0], idx[:, 1]].add(u * 3.0, mode=mode)
        return added * 2.0, jnp.diag(added) + 1.0

    made, _ = run_both(f, x, idx, u, monkeypatch=monkeypatch)
    assert made and all(o.live for o in made)
    g = lambda x: x[idx[:, 0], idx[:, 1]] * 2.0  # noqa: E731
    if mode != "fill":
        made, _ = run_both(lambda x: lax.stop_gradient(g(x)) + g(x), x, monkeypatch=monkeypatch)
        assert made and all(o.live for o in made)


def test_vector_products_go_live_bitwise(monkeypatch):
    # y @ x (NumPy's sdot), a column times a row (K = 1 gemm), a scalar times
    # a vector (np.multiply.outer), and a reversed (negative-stride) vector.
    v = jnp.asarray(rng.standard_normal(16).astype(np.float32))
    w = jnp.asarray(rng.standard_normal(16).astype(np.float32))

    def f(v, w):
        outer = v[:, None] @ w[None, :]
        scaled = lax.dot_general(jnp.float32(3.0), w, (((), ()), ((), ())))
        return v @ w, v[::-1] @ w, outer * 1.5, scaled + 1.0

    made, _ = run_both(f, v, w, monkeypatch=monkeypatch)
    assert made and all(o.live for o in made)


def test_scipy_publishes_the_routines_called():
    # (complex: no routine, so a complex program keeps the Python code)
    for name in ("potrf", "trsm"):
        for dtype in (np.float32, np.float64):
            assert lapack.routine(name, dtype) is not None
    assert lapack.routine("potrf", np.complex64) is None
