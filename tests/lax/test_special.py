"""The special-function primitives: erf, erfc, erf_inv, lgamma, digamma,
polygamma, igamma, igammac, igamma_grad_a, random_gamma_grad, zeta,
bessel_i0e, bessel_i1e, regularized_incomplete_beta (lax.betainc).

Each is checked over bfloat16/float16/float32 (and float64 with x64) against
an oracle (Python's math module where it has the function, SciPy in float64
otherwise; finite differences of SciPy's gammainc for the two derivatives),
abstract eval against the impl, jit against eager, JAX 0.11's values at the
edges of the domains (recorded from the reference), its messages and weak
types.
"""

from __future__ import annotations

import math
import zlib

import ml_dtypes
import numpy as np
import pytest
import scipy.special as sc
from helpers import check_close, check_impl_matches_abstract_eval, check_jit_matches_eager

import pyjax
import pyjax.numpy as jnp
from pyjax._src.lax import special as lax

BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = [np.dtype("float16"), BF16, np.dtype("float32")]
SHAPE = (3, 5)
NAN, INF = np.nan, np.inf


def elementwise(fn):
    """A scalar Python function applied elementwise in float64."""
    return lambda *args: np.vectorize(fn, otypes=[np.float64])(*args)


def gamma_derivative_fd(a, x):
    """dP(a, x)/da by a five-point central difference (float64) of SciPy's
    gammainc, or of -gammaincc where P is close to 1 (no cancellation)."""
    upper = x > a + 1
    h = 1e-3 * a

    def f(b):
        return np.where(upper, -sc.gammaincc(b, x), sc.gammainc(b, x))

    return (8 * (f(a + h) - f(a - h)) - (f(a + 2 * h) - f(a - 2 * h))) / (12 * h)


def gamma_sample_grad_fd(a, x):
    density = np.exp((a - 1) * np.log(x) - x - sc.gammaln(a))
    return -gamma_derivative_fd(a, x) / density


def uniform(lo, hi, integer=False):
    def sample(rng):
        v = rng.uniform(lo, hi, SHAPE)
        return np.round(v) if integer else v

    return sample


# name -> (wrapper, primitive, oracle on float64, samplers)
SPECIALS = {
    "erf": (lax.erf, lax.erf_p, elementwise(math.erf), [uniform(-3, 3)]),
    "erfc": (lax.erfc, lax.erfc_p, elementwise(math.erfc), [uniform(-3, 5)]),
    "erf_inv": (lax.erf_inv, lax.erf_inv_p, sc.erfinv, [uniform(-0.99, 0.99)]),
    "lgamma": (lax.lgamma, lax.lgamma_p, elementwise(math.lgamma), [uniform(-4.9, 12)]),
    "digamma": (lax.digamma, lax.digamma_p, sc.psi, [uniform(0.1, 10)]),
    "bessel_i0e": (lax.bessel_i0e, lax.bessel_i0e_p, sc.i0e, [uniform(-20, 20)]),
    "bessel_i1e": (lax.bessel_i1e, lax.bessel_i1e_p, sc.i1e, [uniform(-20, 20)]),
    "polygamma": (lax.polygamma, lax.polygamma_p, sc.polygamma, [uniform(0, 4, integer=True), uniform(0.5, 5)]),
    "igamma": (lax.igamma, lax.igamma_p, sc.gammainc, [uniform(0.1, 10), uniform(0, 15)]),
    "igammac": (lax.igammac, lax.igammac_p, sc.gammaincc, [uniform(0.1, 10), uniform(0, 15)]),
    "zeta": (lax.zeta, lax.zeta_p, sc.zeta, [uniform(1.1, 6), uniform(0.5, 5)]),
    "betainc": (
        lax.betainc,
        lax.regularized_incomplete_beta_p,
        sc.betainc,
        [uniform(0.5, 5), uniform(0.5, 5), uniform(0, 1)],
    ),
    "igamma_grad_a": (
        lax.igamma_grad_a,
        lax.igamma_grad_a_p,
        gamma_derivative_fd,
        [uniform(0.2, 10), uniform(0.05, 15)],
    ),
    "random_gamma_grad": (
        lax.random_gamma_grad,
        lax.random_gamma_grad_p,
        gamma_sample_grad_fd,
        [uniform(0.2, 10), uniform(0.05, 15)],
    ),
}

CASES = [(name, dtype) for name in SPECIALS for dtype in FLOATS]
IDS = [f"{name}-{dtype.name}" for name, dtype in CASES]


def operands(name, dtype):
    rng = np.random.default_rng(zlib.crc32(f"{name}-{dtype.name}".encode()))
    return [sample(rng).astype(dtype) for sample in SPECIALS[name][3]]


@pytest.mark.parametrize("name,dtype", CASES, ids=IDS)
def test_impl_matches_oracle(name, dtype):
    fn, _, oracle, _ = SPECIALS[name]
    args = operands(name, dtype)
    with np.errstate(all="ignore"):
        expected = np.asarray(oracle(*(a.astype(np.float64) for a in args))).astype(dtype)
    check_close(fn(*(jnp.asarray(a) for a in args)), expected, err_msg=name)


@pytest.mark.parametrize("name,dtype", CASES, ids=IDS)
def test_abstract_eval_matches_impl(name, dtype):
    check_impl_matches_abstract_eval(SPECIALS[name][1], *(jnp.asarray(a) for a in operands(name, dtype)))


@pytest.mark.parametrize("name,dtype", CASES, ids=IDS)
def test_jit_matches_eager(name, dtype):
    check_jit_matches_eager(SPECIALS[name][0], *(jnp.asarray(a) for a in operands(name, dtype)))


@pytest.fixture
def x64():
    pyjax.config.update("jax_enable_x64", True)
    yield
    pyjax.config.update("jax_enable_x64", False)


@pytest.mark.parametrize("name", sorted(SPECIALS))
def test_float64(name, x64):
    fn, _, oracle, samplers = SPECIALS[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    args = [sample(rng) for sample in samplers]
    out = fn(*(jnp.asarray(a) for a in args))
    # The derivatives' oracle is a finite difference: good to ~1e-9.
    rtol = 1e-8 if name in ("igamma_grad_a", "random_gamma_grad") else 1e-12
    check_close(out, np.asarray(oracle(*args)), dtype=np.float64, rtol=rtol, atol=1e-14)


# ---------------------------------------------------------------------------
# Edge values recorded from JAX 0.11 (float32, CPU)


def f32(*v):
    return jnp.asarray(np.array(v, np.float32))


def exactly(actual, expected):
    actual, expected = np.asarray(actual), np.asarray(expected, np.float32)
    assert actual.dtype == np.float32
    np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=0)
    finite_zero = expected == 0
    np.testing.assert_array_equal(np.signbit(actual[finite_zero]), np.signbit(expected[finite_zero]))


EDGES = {
    "lgamma": (lambda: lax.lgamma(f32(0, -1, -INF, INF, NAN, 1e-30)), [INF, INF, INF, INF, NAN, 69.07755279541016]),
    "digamma_poles": (
        lambda: lax.digamma(f32(0, -0.0, -1, -INF, INF, NAN, 1e30)),
        [NAN, NAN, NAN, NAN, INF, NAN, 69.07755279541016],
    ),
    "erf": (lambda: lax.erf(f32(0, -0.0, INF, -INF, NAN)), [0, -0.0, 1, -1, NAN]),
    "erfc": (lambda: lax.erfc(f32(INF, -INF, 0, NAN)), [0, 2, 1, NAN]),
    "erf_inv": (lambda: lax.erf_inv(f32(0, -0.0, 1, -1, 1.5, NAN)), [0, -0.0, INF, -INF, NAN, NAN]),
    "bessel_i0e": (lambda: lax.bessel_i0e(f32(INF, -INF, NAN)), [0, 0, NAN]),
    "bessel_i1e": (lambda: lax.bessel_i1e(f32(0, -0.0, INF, -INF, NAN)), [0, -0.0, 0, -0.0, NAN]),
    # polygamma: m must be a non-negative integer; poles follow zeta's rules.
    "polygamma": (
        lambda: lax.polygamma(
            f32(0, 1, 2, 1.5, -1, 3, 1, 1, INF, 2, 1), f32(2, 2, 0.5, 2, 2, -1.5, 0, -1, 1, -3, -INF)
        ),
        [
            0.42278432846069336,
            0.6449340581893921,
            -16.82879638671875,
            NAN,
            NAN,
            194.59426879882812,
            INF,
            INF,
            NAN,
            NAN,
            INF,
        ],
    ),
    "igamma": (
        lambda: lax.igamma(f32(0, 1, 1, -1, 2, 0, INF, 1, 0, 0, INF), f32(1, 0, -1, 1, INF, 0, 1, NAN, 0.5, 2, INF)),
        [1, 0, NAN, NAN, 1, NAN, 0, NAN, NAN, 1, NAN],
    ),
    "igammac": (
        lambda: lax.igammac(f32(0, 1, 1, -1, 2, 0, INF, 1, 0), f32(1, 0, -1, 1, INF, 0, 1, NAN, 0.5)),
        [0, 1, NAN, NAN, 0, NAN, 1, NAN, 0],
    ),
    "igamma_grad_a": (
        lambda: lax.igamma_grad_a(f32(1, 0, -1, 1, 1, NAN), f32(0, 1, 1, -1, INF, 1)),
        [0, NAN, NAN, NAN, NAN, NAN],
    ),
    "random_gamma_grad": (
        lambda: lax.random_gamma_grad(f32(1, 0, -1, 1, NAN), f32(0, 1, 1, -1, 1)),
        [0, NAN, NAN, NAN, NAN],
    ),
    # zeta: inf at x = 1; NaN below, except x = 0, -2, ... at the poles q = 0, -1, ... (and -inf),
    # where even x gives inf and the rest NaN; NaN at q = +inf and x = inf.
    "zeta": (
        lambda: lax.zeta(
            f32(2, 1, 0.5, 1, 0, -2, 0, 2, 3, 1.5, 2, 3, INF, 2, 2),
            f32(1, 0.5, 1, INF, -3, -1, 0.5, -INF, -INF, -3, -2.5, -2.5, 2, INF, NAN),
        ),
        [
            1.644934058189392,
            INF,
            NAN,
            INF,
            INF,
            INF,
            NAN,
            INF,
            NAN,
            NAN,
            9.539246559143066,
            0.05410202592611313,
            NAN,
            NAN,
            NAN,
        ],
    ),
    "betainc": (
        lambda: lax.betainc(f32(1, 0, -1, 1, 2, 1, 1), f32(1, 1, 1, 0, 2, 1, 1), f32(0.5, 0.5, 0.5, 0.5, 1.5, 0, 1)),
        [0.5, 1, NAN, 0, NAN, 0, 1],
    ),
}


@pytest.mark.parametrize("name", sorted(EDGES))
def test_edge_values_match_jax(name):
    fn, expected = EDGES[name]
    with np.errstate(all="ignore"):
        exactly(fn(), expected)
        exactly(pyjax.jit(fn)(), expected)


# Interior values of the two derivatives (JAX 0.11, float32): these are
# where XLA's float32 series and fraction agree with the float64 truth.
GAMMA_A = [0.1, 0.5, 1, 2, 5, 10, 50, 50, 50, 50, 100, 20, 3, 7.5, 0.01, 200]
GAMMA_X = [5, 0.3, 1, 1, 7, 3, 4.3, 15.6, 45, 60, 90, 25, 0.001, 9, 0.5, 250]
JAX_SAMPLE_GRAD = [
    10.54150390625,
    1.009802222251892,
    1.1735634803771973,
    0.7507786750793457,
    1.2175811529159546,
    0.5242120623588562,
    0.2314879298210144,
    0.5298873782157898,
    0.9514099955558777,
    1.097579836845398,
    0.9498277306556702,
    1.125049114227295,
    0.002721992554143071,
    1.1185393333435059,
    46.6793212890625,
    1.1166406869888306,
]
JAX_GRAD_A = [
    -0.0017539472319185734,
    -0.7705706357955933,
    -0.43172967433929443,
    -0.27619603276252747,
    -0.11107522249221802,
    -0.0014156330144032836,
    -5.661212935983792e-35,
    -4.248013399377193e-12,
    -0.04554324597120285,
    -0.021284781396389008,
    -0.024612197652459145,
    -0.0467277467250824,
    -1.3596349601741053e-09,
    -0.1176099181175232,
    -0.5655474662780762,
    -0.00011708438250934705,
]


def test_gamma_derivatives_match_jax():
    a, x = f32(*GAMMA_A), f32(*GAMMA_X)
    np.testing.assert_allclose(np.asarray(lax.random_gamma_grad(a, x)), JAX_SAMPLE_GRAD, rtol=3e-5)
    np.testing.assert_allclose(np.asarray(lax.igamma_grad_a(a, x)), JAX_GRAD_A, rtol=3e-5)


def test_random_gamma_grad_broadcasts_numpy_style():
    a = jnp.asarray(np.array([1.0, 2.0, 3.0], np.float32))
    x = jnp.asarray(np.array([[0.5], [1.5]], np.float32))
    out = lax.random_gamma_grad(a, x)
    assert out.shape == (2, 3)
    check_close(
        out,
        np.asarray(
            gamma_sample_grad_fd(*np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64)))
        ).astype(np.float32),
        rtol=2e-5,
    )


# ---------------------------------------------------------------------------
# Types and messages (JAX 0.11's text)


def test_results_keep_the_dtype_and_the_weak_type():
    assert lax.erf(1.0).weak_type and lax.erf(1.0).dtype == np.float32
    assert lax.igamma(1.0, 2.0).weak_type
    assert not lax.igamma(jnp.float32(1), 2.0).weak_type
    for dtype in FLOATS:
        assert lax.betainc(*[jnp.asarray(np.full(2, 0.5, dtype))] * 3).dtype == dtype


@pytest.mark.parametrize("name", sorted(SPECIALS))
def test_rejected_dtype_message(name):
    fn, primitive, _, samplers = SPECIALS[name]
    bad = jnp.ones(SHAPE, jnp.int32)
    with pytest.raises(TypeError) as error:
        fn(*[bad] * len(samplers))
    if len(samplers) == 1:
        want = f"{primitive.name} does not accept dtype int32. Accepted dtypes are subtypes of floating."
    else:
        want = (
            f"{primitive.name} does not accept dtype int32 at position 0. Accepted dtypes at position 0 "
            "are subtypes of floating."
        )
    assert str(error.value) == want


def test_same_dtype_message_has_no_tip():
    f, h = jnp.ones(3), jnp.ones(3, jnp.float16)
    with pytest.raises(
        TypeError, match=r"^lax\.igamma requires arguments to have the same dtypes, got float32, float16\.$"
    ):
        lax.igamma(f, h)
    with pytest.raises(
        TypeError,
        match=r"^lax\.regularized_incomplete_beta requires arguments to have the same dtypes, "
        r"got float32, float32, float16\.$",
    ):
        lax.betainc(f, f, h)


def test_python_int_operand_is_rejected():
    with pytest.raises(TypeError, match="^polygamma does not accept dtype int32 at position 0"):
        lax.polygamma(1, jnp.ones(3))
