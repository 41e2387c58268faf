"""Autodiff and batching of the special functions.

JVPs and VJPs against finite differences (check_grads: second order in
float64, first order in float32) on inputs inside each function's domain,
the derivatives against their closed forms (SciPy in float64), the
derivatives JAX 0.11 does not define (its errors), and vmap against a loop
over the examples for every special function and several in_axes.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sc
from helpers import check_close

import pyjax as jax
from pyjax import lax
from pyjax._src.lax import special
from pyjax._src.rules import Sentinel
from pyjax.test_util import check_grads


@pytest.fixture
def x64():
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", False)


# Inputs inside each domain and away from kinks (bessel_i0e has |x|).
UNARY = {
    "erf": (lax.erf, np.array([-1.2, -0.3, 0.4, 1.1])),
    "erfc": (lax.erfc, np.array([-1.2, -0.3, 0.4, 1.1])),
    "erf_inv": (lax.erf_inv, np.array([-0.7, -0.2, 0.3, 0.6])),
    "lgamma": (lax.lgamma, np.array([0.6, 1.3, 2.5, 4.0])),
    "digamma": (lax.digamma, np.array([0.6, 1.3, 2.5, 4.0])),
    "bessel_i0e": (lax.bessel_i0e, np.array([-2.5, -0.7, 0.4, 3.0])),
    "bessel_i1e": (lax.bessel_i1e, np.array([-2.5, -0.7, 0.4, 3.0])),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_second_order_float64(name, x64):
    fn, x = UNARY[name]
    check_grads(fn, (x,), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_first_order_float32(name):
    fn, x = UNARY[name]
    check_grads(fn, (x.astype(np.float32),), order=1, modes=("fwd", "rev"))


def test_unary_derivatives_closed_form(x64):
    x = np.array([0.6, 1.3, 2.5])
    grad = lambda f: jax.vmap(jax.grad(f))
    check_close(grad(lax.erf)(x), 2 / np.sqrt(np.pi) * np.exp(-x**2))
    check_close(grad(lax.erfc)(x), -2 / np.sqrt(np.pi) * np.exp(-x**2))
    check_close(grad(lax.lgamma)(x), sc.digamma(x))
    check_close(grad(lax.digamma)(x), sc.polygamma(1, x))
    y = np.array([-0.5, 0.1, 0.8])
    check_close(grad(lax.erf_inv)(y), np.sqrt(np.pi) / 2 * np.exp(sc.erfinv(y) ** 2))
    z = np.array([-2.0, 0.5, 3.0])
    check_close(grad(lax.bessel_i0e)(z), sc.i1e(z) - np.sign(z) * sc.i0e(z))
    check_close(grad(lax.bessel_i1e)(z), sc.i0e(z) - sc.i1e(z) * (np.sign(z) + 1 / z))


def test_bessel_i1e_derivative_at_zero_is_one_half():
    # 1/x would be inf at 0: the rule switches to the limit 1/2 for |x| <= eps.
    g = jax.grad(lax.bessel_i1e)
    check_close(g(np.float32(0.0)), np.float32(0.5))
    check_close(g(np.float32(1e-9)), np.float32(0.5))


@pytest.mark.parametrize("m", [0.0, 1.0, 2.0])
def test_polygamma_in_x(m, x64):
    check_grads(lambda x: lax.polygamma(np.float64(m), x), (np.array([0.7, 1.5, 3.0]),), order=2, modes=("fwd", "rev"))
    check_close(jax.vmap(jax.grad(lambda x: lax.polygamma(np.float64(m), x)))(np.array([0.7, 1.5])),
                sc.polygamma(int(m) + 1, np.array([0.7, 1.5])))


def test_polygamma_in_m_is_not_differentiable():
    with pytest.raises(ValueError, match="polygamma gradient with respect to m is not supported"):
        jax.grad(lax.polygamma)(np.float32(1.0), np.float32(0.5))
    # without a tangent for m the rule for m is never asked
    jax.grad(lax.polygamma, 1)(np.float32(1.0), np.float32(0.5))


A = np.array([0.8, 1.5, 2.5, 4.0])
X = np.array([0.4, 1.2, 2.0, 3.5])


@pytest.mark.parametrize("fn", [lax.igamma, lax.igammac], ids=["igamma", "igammac"])
def test_igamma_in_x_second_order(fn, x64):
    check_grads(lambda x: fn(A, x), (X,), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("fn", [lax.igamma, lax.igammac], ids=["igamma", "igammac"])
def test_igamma_in_a_and_x_first_order(fn, x64):
    # d/da goes through igamma_grad_a, which has no derivative of its own
    check_grads(fn, (A, X), order=1, modes=("fwd", "rev"), eps=1e-5)


def test_igamma_derivatives_closed_form(x64):
    gx = jax.grad(lambda x: lax.igamma(A, x).sum())(X)
    check_close(gx, np.exp(-X + (A - 1) * np.log(X) - sc.gammaln(A)))
    ga = jax.grad(lambda a: lax.igammac(a, X).sum())(A)
    check_close(ga, -np.asarray(lax.igamma_grad_a(A, X)))


def test_igamma_second_derivative_in_a_raises_jax_message():
    with pytest.raises(NotImplementedError, match=r"^Differentiation rule for 'igamma_grad_a' not implemented$"):
        jax.grad(jax.grad(lax.igamma))(np.float32(2.0), np.float32(0.5))


def test_betainc_in_x(x64):
    a, b = np.array([0.8, 2.0, 3.5]), np.array([1.5, 3.0, 0.9])
    x = np.array([0.2, 0.5, 0.7])
    check_grads(lambda x: lax.betainc(a, b, x), (x,), order=2, modes=("fwd", "rev"))
    check_close(jax.grad(lambda x: lax.betainc(a, b, x).sum())(x),
                x ** (a - 1) * (1 - x) ** (b - 1) / sc.beta(a, b))


@pytest.mark.parametrize("argnum", [0, 1])
def test_betainc_in_a_or_b_is_not_differentiable(argnum):
    args = (np.float32(2.0), np.float32(3.0), np.float32(0.3))
    with pytest.raises(ValueError, match="Betainc gradient with respect to a and b not supported."):
        jax.grad(lax.betainc, argnum)(*args)


@pytest.mark.parametrize("fn, argnum", [(lax.zeta, 0), (lax.zeta, 1), (lax.igamma_grad_a, 0),
                                        (lax.igamma_grad_a, 1)], ids=["zeta_x", "zeta_q", "grad_a_a", "grad_a_x"])
def test_no_derivative_in_jax_either(fn, argnum):
    # JAX 0.11 registers no JVP for these: the same error, word for word
    name = "zeta" if fn is lax.zeta else "igamma_grad_a"
    primitive = special.zeta_p if fn is lax.zeta else special.igamma_grad_a_p
    assert isinstance(primitive.jvp, Sentinel) and primitive.jvp.name == "unimplemented"  # declared, not a hole
    with pytest.raises(NotImplementedError, match=rf"^Differentiation rule for '{name}' not implemented$"):
        jax.grad(fn, argnum)(np.float32(2.0), np.float32(0.5))


def test_random_gamma_grad_has_declared_gap():
    assert isinstance(special.random_gamma_grad_p.jvp, Sentinel)
    with pytest.raises(NotImplementedError, match="Differentiation rule for 'random_gamma_grad' not implemented"):
        jax.jvp(lambda a: lax.random_gamma_grad(a, np.float32(0.5)), (np.float32(2.0),), (np.float32(1.0),))


def test_grads_under_jit_match_eager():
    x = np.array([0.6, 1.3, 2.5], np.float32)
    for fn in (lax.erf, lax.lgamma, lax.digamma, lax.bessel_i1e):
        g = jax.grad(lambda x, fn=fn: fn(x).sum())
        check_close(jax.jit(g)(x), g(x))
    g = jax.grad(lambda a, x: lax.igamma(a, x).sum(), (0, 1))
    for got, want in zip(jax.jit(g)(x + 1, x), g(x + 1, x), strict=True):
        check_close(got, want)


# ---------------------------------------------------------------------------
# Batching


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("in_axis", [0, 1])
def test_vmap_unary(name, in_axis):
    fn, x = UNARY[name]
    xs = np.stack([x, x[::-1] * 0.9]).astype(np.float32)  # (2, 4)
    out = jax.vmap(fn, in_axes=in_axis)(xs)
    expected = np.stack([np.asarray(fn(np.take(xs, i, axis=in_axis))) for i in range(xs.shape[in_axis])])
    check_close(out, expected)


BINARY = {
    "polygamma": (lax.polygamma, np.array([0.0, 1.0, 2.0, 1.0]), np.array([0.7, 1.5, 3.0, 2.2])),
    "igamma": (lax.igamma, A, X),
    "igammac": (lax.igammac, A, X),
    "igamma_grad_a": (lax.igamma_grad_a, A, X),
    "random_gamma_grad": (lax.random_gamma_grad, A, X),
    "zeta": (lax.zeta, np.array([2.0, 3.0, 2.5, 4.0]), np.array([0.5, 1.0, 2.0, 3.0])),
}


def _loop(fn, args, in_axes):
    size = next(np.shape(a)[ax] for a, ax in zip(args, in_axes, strict=True) if ax is not None)
    return np.stack([np.asarray(fn(*[a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, in_axes, strict=True)]))
                     for i in range(size)])


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("in_axes", [(0, 0), (0, None), (None, 1), (1, 0)])
def test_vmap_binary(name, in_axes):
    fn, p, q = BINARY[name]
    p, q = p.astype(np.float32), q.astype(np.float32)
    # batched operands: (3, 4) with the batch on axis 0, (4, 3) on axis 1
    def batched(v, axis):
        if axis is None:
            return v
        stacked = np.stack([v, v * 1.1, v * 0.9]).astype(np.float32)
        return stacked if axis == 0 else stacked.T
    args = (batched(p, in_axes[0]), batched(q, in_axes[1]))
    check_close(jax.vmap(fn, in_axes=in_axes)(*args), _loop(fn, args, in_axes), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("in_axes", [(0, 0, 0), (None, 0, 1), (0, None, None), (None, None, 0)])
def test_vmap_betainc(in_axes):
    a, b, x = np.array([0.8, 2.0, 3.5]), np.array([1.5, 3.0, 0.9]), np.array([0.2, 0.5, 0.7])
    def batched(v, axis):
        if axis is None:
            return v.astype(np.float32)
        stacked = np.stack([v, v * 0.9, v * 0.8]).astype(np.float32)
        return stacked if axis == 0 else stacked.T
    args = tuple(batched(v, ax) for v, ax in zip((a, b, x), in_axes, strict=True))
    check_close(jax.vmap(lax.betainc, in_axes=in_axes)(*args), _loop(lax.betainc, args, in_axes), rtol=1e-5, atol=1e-6)


def test_vmap_of_grad_and_grad_of_vmap():
    x = np.array([0.6, 1.3, 2.5], np.float32)
    check_close(jax.vmap(jax.grad(lax.digamma))(x), np.stack([np.asarray(jax.grad(lax.digamma)(v)) for v in x]))
    a = np.array([1.0, 2.0], np.float32)
    xs = np.array([[0.5, 1.5], [1.0, 2.0], [2.0, 0.3]], np.float32)
    g = jax.grad(lambda a, xs: jax.vmap(lax.igamma, in_axes=(None, 0))(a, xs).sum(), (0, 1))(a, xs)
    ga = sum(np.asarray(jax.grad(lambda a, row=row: lax.igamma(a, row).sum())(a)) for row in xs)
    check_close(g[0], ga.astype(np.float32), rtol=1e-5)
    check_close(g[1], np.stack([np.asarray(jax.grad(lambda x: lax.igamma(a, x).sum())(row)) for row in xs]))
