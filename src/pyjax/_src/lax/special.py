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

# XLA fuses all of these; the ones declared fusible=False are fusion roots for
# the NumPy backend's multiply-add analysis (rewrite.py), which was measured
# against JAX without them as consumers.
erf_p = standard_unop("erf", _FLOATS, cost="expensive")
erfc_p = standard_unop("erfc", _FLOATS, cost="expensive")
erf_inv_p = standard_unop("erf_inv", _FLOATS, cost="expensive")
lgamma_p = standard_unop("lgamma", _FLOATS, cost="expensive", fusible=False)
digamma_p = standard_unop("digamma", _FLOATS, cost="expensive", fusible=False)
bessel_i0e_p = standard_unop("bessel_i0e", _FLOATS, cost="expensive", fusible=False)
bessel_i1e_p = standard_unop("bessel_i1e", _FLOATS, cost="expensive", fusible=False)
polygamma_p = _naryop("polygamma", (_FLOATS, _FLOATS), cost="expensive", fusible=False)
igamma_p = _naryop("igamma", (_FLOATS, _FLOATS), cost="expensive", fusible=False)
igammac_p = _naryop("igammac", (_FLOATS, _FLOATS), cost="expensive", fusible=False)
igamma_grad_a_p = _naryop("igamma_grad_a", (_FLOATS, _FLOATS), cost="expensive", fusible=False)
random_gamma_grad_p = _naryop("random_gamma_grad", (_FLOATS, _FLOATS), cost="expensive", fusible=False)
zeta_p = _naryop("zeta", (_FLOATS, _FLOATS), cost="expensive", fusible=False)
regularized_incomplete_beta_p = _naryop("regularized_incomplete_beta", (_FLOATS, _FLOATS, _FLOATS),
                                        cost="expensive", fusible=False)


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


# ---------------------------------------------------------------------------
# Autodiff rules
#
# Each JVP is JAX 0.11's formula written with the same operations in the same
# order, so gradient jaxprs print the same equations. Where JAX writes Python
# operators (`g * ...`, `-x`, `b - 1`) the rules do too: on tracers those go
# through jnp's promotion (a weakly typed operand meeting a strong one gets a
# convert_element_type, as in JAX), and on Python scalars they fold in Python.

import ml_dtypes

from pyjax._src import core, dtypes
from pyjax._src.interpreters.jvp import defjvp, defjvp2
from pyjax._src.lax import elementwise as ew
from pyjax._src.rules import unimplemented


def _const(example, value):
    # lax._const: a weakly typed scalar example gets a Python scalar (a weak
    # literal, printed at full precision); anything else a scalar of its dtype.
    dtype = core.get_aval(example).dtype
    if dtypes.is_weakly_typed_scalar(example):
        value = dtypes.scalar_type_of(example)(value)
        return value if dtypes.dtype(value, canonicalize=True) == dtype else np.array(value, dtype)
    return np.array(value, dtype)


def _full_like(x, value):
    # lax.full_like: a constant of x's dtype and weak type; a broadcast when x
    # is not a scalar.
    from pyjax._src.lax.shapes import broadcast_in_dim

    aval = core.get_aval(x)
    scalar = ew._convert_element_type(value, aval.dtype, weak_type=aval.weak_type)
    return broadcast_in_dim(scalar, aval.shape, ()) if aval.shape else scalar


def _erf_tangent(g, x):
    # d erf/dx = 2/sqrt(pi) exp(-x^2)
    return ew.mul(_const(x, 2.0 / np.sqrt(np.pi)), ew.mul(g, ew.exp(ew.neg(ew.square(x)))))


def _erfc_tangent(g, x):
    return ew.mul(_const(x, -2.0 / np.sqrt(np.pi)), ew.mul(g, ew.exp(ew.neg(ew.square(x)))))


def _erf_inv_tangent(g, ans, x):
    # the inverse function's derivative: sqrt(pi)/2 exp(erf_inv(x)^2)
    return ew.mul(_const(x, np.sqrt(np.pi) / 2.0), ew.mul(g, ew.exp(ew.square(ans))))


def _polygamma_tangent_m(g, m, x):
    raise ValueError("polygamma gradient with respect to m is not supported")


def _polygamma_tangent_x(g, m, x):
    return g * polygamma(ew.add(m, _const(m, 1)), x)


def _igamma_tangent_x(g, a, x):
    # the integrand of P(a, x), x^(a-1) e^-x / Gamma(a), in log space
    return g * ew.exp(-x + (a - _full_like(a, 1)) * ew.log(x) - lgamma(a))


def _igamma_tangent_a(g, a, x):
    return g * igamma_grad_a(a, x)


def _betainc_tangent_x(g, a, b, x):
    # the integrand of I_x(a, b), x^(a-1) (1-x)^(b-1) / B(a, b), in log space
    log_beta = lgamma(a) + lgamma(b) - lgamma(a + b)
    partial_x = ew.exp((b - 1) * ew.log1p(-x) + (a - 1) * ew.log(x) - log_beta)
    return partial_x * g


def _betainc_tangent_ab(g, a, b, x):
    raise ValueError("Betainc gradient with respect to a and b not supported.")


def _bessel_i0e_tangent(g, y, x):
    # d/dx e^-|x| I0(x) = e^-|x| I1(x) - sign(x) e^-|x| I0(x)
    return g * (bessel_i1e(x) - ew.sign(x) * y)


def _bessel_i1e_tangent(g, y, x):
    # d/dx e^-|x| I1(x) = i0e(x) - i1e(x) (sign(x) + 1/x); its limit at 0 is 1/2,
    # so tiny |x| takes 1/2 (and a safe x keeps 1/x finite in the other branch).
    eps = ml_dtypes.finfo(core.get_aval(x).dtype).eps
    x_is_not_tiny = abs(x) > eps
    safe_x = ew.select(x_is_not_tiny, x, _full_like(x, eps))
    dy_dx = bessel_i0e(safe_x) - y * (ew.sign(safe_x) + ew.reciprocal(safe_x))
    dy_dx = ew.select(x_is_not_tiny, dy_dx, _full_like(x, 0.5))
    return g * dy_dx


defjvp(erf_p, _erf_tangent)
defjvp(erfc_p, _erfc_tangent)
defjvp2(erf_inv_p, _erf_inv_tangent)
defjvp(lgamma_p, lambda g, x: ew.mul(g, digamma(x)))
defjvp(digamma_p, lambda g, x: ew.mul(g, polygamma(_const(x, 1), x)))
defjvp(polygamma_p, _polygamma_tangent_m, _polygamma_tangent_x)
defjvp(igamma_p, _igamma_tangent_a, _igamma_tangent_x)
defjvp(igammac_p, lambda g, a, x: -_igamma_tangent_a(g, a, x), lambda g, a, x: -_igamma_tangent_x(g, a, x))
defjvp(regularized_incomplete_beta_p, _betainc_tangent_ab, _betainc_tangent_ab, _betainc_tangent_x)
defjvp2(bessel_i0e_p, _bessel_i0e_tangent)
defjvp2(bessel_i1e_p, _bessel_i1e_tangent)

# JAX 0.11 registers no derivative for these: differentiating them raises its
# "Differentiation rule for '...' not implemented" (no reason appended, so the
# message is JAX's own). random_gamma_grad is a traced function in JAX (a
# series and a continued fraction under while_loop), differentiable in forward
# mode there; here it is a primitive without that derivative.
zeta_p.def_jvp(unimplemented(""))
igamma_grad_a_p.def_jvp(unimplemented(""))
random_gamma_grad_p.def_jvp(unimplemented("in JAX 0.11 it is a traced while_loop, differentiable in forward mode "
                                          "only; pyjax's primitive has no derivative"))

# (Batching: every primitive here is built by standard_unop or _naryop,
# which register JAX's vectorized and broadcast batchers.)

# JAX 0.11's `lax.random_gamma_grad` is the inner function of a decorator
# without functools.wraps: `jit(lax.random_gamma_grad)` is named after it
# (`module @jit_up_and_broadcast`).
random_gamma_grad.__name__ = "up_and_broadcast"
random_gamma_grad.__qualname__ = "_up_and_broadcast.<locals>.up_and_broadcast"
