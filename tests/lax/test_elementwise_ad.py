"""Autodiff of the elementwise primitives whose rules follow JAX 0.11's
special cases: the complex parts (real, imag, complex: linear, with
transposes), abs (complex values; the select at 0 for real ones), clamp's
select-based rule, reduce_precision (linear), the declared zero derivatives
(bitcast, mulhi, the total-order comparisons), nextafter (no derivative, as
in JAX) and pow with integer exponents.

JVPs and VJPs against finite differences (check_grads; complex functions
use JAX's convention, conj(vjp(conj(ct)))), the values at the special
points against what JAX returns, and JAX's errors. The rules rewritten in
JAX's form (exp2, tan, the inverse functions, atan2, rem, pow, integer_pow,
select_n, copy, convert_element_type) are checked by their gradient
jaxprs in tests/golden/programs_special_ad.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_close

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax._src.lax import elementwise as ew
from pyjax._src.rules import NOT_DIFFERENTIABLE
from pyjax.test_util import check_grads

rng = np.random.default_rng(0)


@pytest.fixture
def x64():
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", False)


def _complex(shape, dtype=np.complex128):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


# ---------------------------------------------------------------------------
# complex parts


@pytest.mark.parametrize("fn", [lax.real, lax.imag], ids=["real", "imag"])
def test_complex_parts(fn, x64):
    check_grads(lambda z: fn(z) * fn(z), (_complex((2, 3)),), order=2, modes=("fwd", "rev"))


def test_real_imag_cotangents():
    z = np.array([1 + 2j, -3 + 0.5j], np.complex64)
    ct = np.array([1.0, 2.0], np.float32)
    (got,) = jax.vjp(lax.real, z)[1](ct)
    check_close(got, ct.astype(np.complex64))
    (got,) = jax.vjp(lax.imag, z)[1](ct)
    check_close(got, (-1j * ct).astype(np.complex64))


def test_complex(x64):
    x, y = rng.standard_normal(3), rng.standard_normal(3)
    check_grads(lax.complex, (x, y), order=2, modes=("fwd", "rev"))
    check_grads(lambda x, y: lax.abs(lax.complex(x, y) ** 2), (x, y), order=2, modes=("fwd", "rev"))


def test_complex_transpose_unbroadcasts_a_scalar_part():
    ct = np.array([1 + 1j, 2 - 1j, 0.5j], np.complex64)
    gx, gy = jax.vjp(lax.complex, np.float32(1.0), np.ones(3, np.float32))[1](ct)
    check_close(gx, np.float32(3.0))  # sum of the real parts
    check_close(gy, -np.imag(ct).astype(np.float32))  # imag(-ct): y enters as i*y


def test_complex_one_part_tangent():
    y = np.ones(3, np.float32)
    _, t = jax.jvp(lambda x: lax.complex(x, y), (np.arange(3.0, dtype=np.float32),), (np.ones(3, np.float32),))
    check_close(t, np.ones(3, np.complex64))


# ---------------------------------------------------------------------------
# abs


def test_abs_complex(x64):
    check_grads(lax.abs, (_complex((4,)),), order=2, modes=("fwd", "rev"))


def test_abs_complex_gradient_values():
    z = np.array([3 + 4j, 0j, -1 - 1j], np.complex64)
    g = jax.grad(lambda z: lax.abs(z).sum())(z)
    # conj(z)/|z| under JAX's convention, 0 at 0 (|z| = 0 replaced by 1)
    check_close(g, np.array([0.6 - 0.8j, 0, -1 / np.sqrt(2) + 1j / np.sqrt(2)], np.complex64))


def test_abs_real_derivative_at_zero_is_one():
    # JAX selects on x >= 0: +0.0 and -0.0 both get +1 (not sign(0) = 0)
    g = jax.grad(lambda x: lax.abs(x).sum())(np.array([-1.0, 0.0, -0.0, 2.0], np.float32))
    check_close(g, np.array([-1.0, 1.0, 1.0, 1.0], np.float32))


# ---------------------------------------------------------------------------
# clamp


def test_clamp_second_order(x64):
    lo, hi = np.array([0.0, 0.0, 0.0, 1.0]), np.array([1.0, 1.0, 1.0, 2.0])
    x = np.array([-0.5, 0.4, 1.6, 1.3])
    check_grads(lax.clamp, (lo, x, hi), order=2, modes=("fwd", "rev"))


def test_clamp_gradient_goes_to_the_chosen_operand():
    f = lambda lo, x, hi: lax.clamp(lo, x, hi).sum()
    lo = np.array([0.0, 0.0, 0.0, 1.0], np.float32)
    x = np.array([-1.0, 0.5, 2.0, 0.0], np.float32)
    hi = np.array([1.0, 1.0, 1.0, 0.5], np.float32)  # last: lo > hi, the result is hi
    glo, gx, ghi = jax.grad(f, (0, 1, 2))(lo, x, hi)
    check_close(glo, np.array([1.0, 0.0, 0.0, 0.0], np.float32))
    check_close(gx, np.array([0.0, 1.0, 0.0, 0.0], np.float32))
    # with lo > hi JAX's rule credits no operand (hi only where x > hi)
    check_close(ghi, np.array([0.0, 0.0, 1.0, 0.0], np.float32))


def test_clamp_scalar_bounds():
    g = jax.grad(lambda x: lax.clamp(0.0, x, 1.0).sum())(np.array([-1.0, 0.5, 2.0], np.float32))
    check_close(g, np.array([0.0, 1.0, 0.0], np.float32))
    # JAX's rule selects between a scalar tangent and zeros of x's shape
    with pytest.raises(TypeError, match=r"select cases must have the same shapes, got \[\(3,\), \(\)\]\."):
        jax.grad(lambda lo, x: lax.clamp(lo, x, 1.0).sum(), (0, 1))(np.float32(0.0), np.zeros(3, np.float32))


# ---------------------------------------------------------------------------
# reduce_precision and the declared zero derivatives


def test_reduce_precision_is_linear():
    x = np.array([1.0001, 2.5, -3.3], np.float32)
    t = np.array([0.1, 1.0003, 7.0], np.float32)
    out, tangent = jax.jvp(lambda x: lax.reduce_precision(x, 5, 10), (x,), (t,))
    check_close(out, np.asarray(lax.reduce_precision(x, 5, 10)))
    check_close(tangent, np.asarray(lax.reduce_precision(t, 5, 10)))
    (ct,) = jax.vjp(lambda x: lax.reduce_precision(x, 8, 7), x)[1](t)
    check_close(ct, np.asarray(lax.reduce_precision(t, 8, 7)))


@pytest.mark.parametrize("primitive", [ew.bitcast_convert_type_p, ew.mulhi_p, ew.eq_to_p, ew.le_to_p, ew.lt_to_p],
                         ids=lambda p: p.name)
def test_declared_zero_derivative(primitive):
    assert primitive.jvp is NOT_DIFFERENTIABLE


def test_bitcast_has_zero_derivative():
    f = lambda x: lax.bitcast_convert_type(lax.bitcast_convert_type(x, jnp.int32), jnp.float32) + x
    check_close(jax.grad(f)(np.float32(1.5)), np.float32(1.0))
    # float to float of one width: still zero (JAX declares it so)
    _, t = jax.jvp(lambda x: lax.bitcast_convert_type(x, jnp.float32) * 1.0, (np.ones(2, np.float32),),
                   (np.ones(2, np.float32),))
    check_close(t, np.zeros(2, np.float32))


def test_total_order_comparison_has_zero_derivative():
    f = lambda x: lax.select(ew.lt_to_p.bind(x, np.float32(0.5)), x, 2 * x).sum()
    check_close(jax.grad(f)(np.array([0.0, 1.0], np.float32)), np.array([1.0, 2.0], np.float32))


def test_nextafter_has_no_derivative_as_in_jax():
    with pytest.raises(NotImplementedError, match=r"^Differentiation rule for 'nextafter' not implemented$"):
        jax.grad(lax.nextafter)(np.float32(1.0), np.float32(2.0))


# ---------------------------------------------------------------------------
# pow with an integer exponent


def test_pow_integer_exponent():
    x = np.array([0.0, 1.5, 2.0], np.float32)
    n = np.array([0, 1, 3], np.int32)
    # y = 0 gives 0 (not 0 * x^-1 = NaN at x = 0), y = 1 gives 1, y = 3 gives 3 x^2
    check_close(jax.grad(lambda x: lax.pow(x, n).sum())(x), np.array([0.0, 1.0, 12.0], np.float32))
    check_grads(lambda x: lax.pow(x, n), (x + 0.5,), order=2, modes=("fwd", "rev"))
