"""Special functions: error functions, gamma-family functions, the Hurwitz
zeta function, scaled Bessel functions and the regularized incomplete beta
function.

Every primitive is elementwise over floating dtypes (bfloat16, float16,
float32, float64) and keeps its operand dtype; the binary and ternary ones
take operands of one dtype and broadcast like the other elementwise
primitives (see elementwise.py).

`random_gamma_grad` is a primitive here. In JAX 0.11 `lax.random_gamma_grad`
is a traced function (a series and a continued fraction under `while`), so
its jaxpr differs from JAX's; its values are the same.
"""

from __future__ import annotations

import numpy as np

from pyjax._src.lax._standard import _FLOAT, standard_unop
from pyjax._src.lax.elementwise import _naryop



__all__ = [
    "bessel_i0e", "bessel_i0e_p", "bessel_i1e", "bessel_i1e_p", "betainc", "digamma", "digamma_p",
    "erf", "erf_inv", "erf_inv_p", "erf_p", "erfc", "erfc_p", "igamma", "igamma_grad_a",
    "igamma_grad_a_p", "igamma_p", "igammac", "igammac_p", "lgamma", "lgamma_p", "polygamma",
    "polygamma_p", "random_gamma_grad", "regularized_incomplete_beta_p",
    "zeta", "zeta_p",
]

_FLOATS = (_FLOAT,)

erf_p = standard_unop("erf", _FLOATS)
erfc_p = standard_unop("erfc", _FLOATS)
erf_inv_p = standard_unop("erf_inv", _FLOATS)
lgamma_p = standard_unop("lgamma", _FLOATS)
digamma_p = standard_unop("digamma", _FLOATS)
bessel_i0e_p = standard_unop("bessel_i0e", _FLOATS)
bessel_i1e_p = standard_unop("bessel_i1e", _FLOATS)
polygamma_p = _naryop("polygamma", (_FLOATS, _FLOATS))
igamma_p = _naryop("igamma", (_FLOATS, _FLOATS))
igammac_p = _naryop("igammac", (_FLOATS, _FLOATS))
igamma_grad_a_p = _naryop("igamma_grad_a", (_FLOATS, _FLOATS))
random_gamma_grad_p = _naryop("random_gamma_grad", (_FLOATS, _FLOATS))
zeta_p = _naryop("zeta", (_FLOATS, _FLOATS))
regularized_incomplete_beta_p = _naryop("regularized_incomplete_beta", (_FLOATS, _FLOATS, _FLOATS))


def erf(x):
    r"""Elementwise error function: :math:`\mathrm{erf}(x) = \frac{2}{\sqrt\pi}\int_0^x e^{-t^2} dt`."""
    return erf_p.bind(x)


def erfc(x):
    r"""Elementwise complementary error function: :math:`1 - \mathrm{erf}(x)`, accurate for large x."""
    return erfc_p.bind(x)


def erf_inv(x):
    r"""Elementwise inverse error function: y with erf(y) = x (±inf at ±1, NaN outside [-1, 1])."""
    return erf_inv_p.bind(x)


def lgamma(x):
    r"""Elementwise log gamma: :math:`\log|\Gamma(x)|` (inf at the non-positive integers)."""
    return lgamma_p.bind(x)


def digamma(x):
    r"""Elementwise digamma :math:`\psi(x) = \Gamma'(x)/\Gamma(x)` (NaN at the non-positive integers)."""
    return digamma_p.bind(x)


def polygamma(m, x):
    r"""Elementwise polygamma :math:`\psi^{(m)}(x)`, the m-th derivative of digamma.

    `m` must hold non-negative integer values (NaN otherwise); it has x's dtype.
    """
    return polygamma_p.bind(m, x)


def igamma(a, x):
    r"""Elementwise regularized lower incomplete gamma function
    :math:`P(a, x) = \frac{1}{\Gamma(a)}\int_0^x t^{a-1} e^{-t} dt`."""
    return igamma_p.bind(a, x)


def igammac(a, x):
    r"""Elementwise regularized upper incomplete gamma function :math:`Q(a, x) = 1 - P(a, x)`."""
    return igammac_p.bind(a, x)


def igamma_grad_a(a, x):
    r"""Elementwise derivative of the regularized lower incomplete gamma
    function with respect to `a`: :math:`\partial P(a, x) / \partial a`."""
    return igamma_grad_a_p.bind(a, x)


def random_gamma_grad(a, x):
    r"""Elementwise derivative of a sample `x` of Gamma(a, 1) with respect to
    `a` (implicit differentiation of the CDF): :math:`-\frac{\partial P(a, x)/\partial a}{\partial P(a, x)/\partial x}`.

    Operands of different shapes broadcast NumPy-style.
    """
    a_shape, x_shape = np.shape(a), np.shape(x)
    if a_shape != x_shape:
        from pyjax._src.lax.shapes import broadcast_in_dim

        shape = np.broadcast_shapes(a_shape, x_shape)

        def widen(v, v_shape):
            if v_shape == shape:
                return v
            return broadcast_in_dim(v, shape, tuple(range(len(shape) - len(v_shape), len(shape))))

        a, x = widen(a, a_shape), widen(x, x_shape)
    return random_gamma_grad_p.bind(a, x)


def zeta(x, q):
    r"""Elementwise Hurwitz zeta function :math:`\zeta(x, q) = \sum_{n\ge0} (q + n)^{-x}`."""
    return zeta_p.bind(x, q)


def bessel_i0e(x):
    r"""Exponentially scaled modified Bessel function of order 0: :math:`e^{-|x|} I_0(x)`."""
    return bessel_i0e_p.bind(x)


def bessel_i1e(x):
    r"""Exponentially scaled modified Bessel function of order 1: :math:`e^{-|x|} I_1(x)`."""
    return bessel_i1e_p.bind(x)


def betainc(a, b, x):
    r"""Elementwise regularized incomplete beta integral
    :math:`I_x(a, b) = \frac{1}{B(a, b)}\int_0^x t^{a-1}(1-t)^{b-1} dt`."""
    return regularized_incomplete_beta_p.bind(a, b, x)

