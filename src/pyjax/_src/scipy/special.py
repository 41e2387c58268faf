"""Special functions (jax.scipy.special), on lax's special-function primitives.

Each function promotes its arguments to a common floating dtype and stages
what JAX stages: a lax primitive where XLA has one (erf, lgamma, igamma,
betainc, zeta, ...), otherwise a composition of elementwise operations. The
functions JAX gives a custom derivative (xlogy, xlog1py, logit, log_ndtr,
zeta, ...) have the same one here. logsumexp is shared with jax.nn.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from pyjax._src import core, dtypes, errors
from pyjax._src.api import jvp
from pyjax._src.custom_derivatives import custom_jvp
from pyjax._src.jit import jit
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.lax import special as lax_special
from pyjax._src.numpy.util import aval_of, canonicalize_axis, promote_args_inexact
from pyjax._src.scipy import jnp_pending as jnp

__all__ = [
    "beta",
    "betainc",
    "betaln",
    "comb",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfinv",
    "expit",
    "factorial",
    "gamma",
    "gammainc",
    "gammaincc",
    "gammaln",
    "gammasgn",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "kl_div",
    "log_ndtr",
    "log_softmax",
    "loggamma",
    "logit",
    "logsumexp",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "rel_entr",
    "softmax",
    "xlog1py",
    "xlogy",
    "zeta",
]


def _reduction_dims(axis, ndim: int) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return tuple(canonicalize_axis(a, ndim) for a in axes)


def _full_like(x, value):
    aval = aval_of(x)
    scalar = np.array(value, aval.dtype)[()]
    return lax_shapes.broadcast_in_dim(scalar, aval.shape, ()) if aval.shape else scalar


def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False, where=None):
    """Log of the sum of exponentials: ``log(sum(b * exp(a), axis))``, without overflow.

    Args:
      a: input array.
      axis: the axis or axes to reduce (None: all).
      b: scale factors for the exponentials, broadcastable to `a`.
      keepdims: keep the reduced axes as size-1 dimensions.
      return_sign: also return the sign of the sum; the first result is then
        the log of its absolute value.
      where: elements to include in the sum.

    Returns:
      The reduction, or a pair ``(result, sign)`` with `return_sign`. Without
      `return_sign`, a negative sum gives NaN.
    """
    if where is not None:
        a = jnp.where(where, a, 0)
    if b is not None:
        a, b = promote_args_inexact("logsumexp", a, b)
        a = jnp.where(jnp.not_equal(b, 0), a, -np.inf)
    else:
        (a,) = promote_args_inexact("logsumexp", a)
    a = jnp.asarray(a)
    dims = _reduction_dims(axis, aval_of(a).ndim)
    is_complex = aval_of(a).dtype.kind == "c"
    amax = jnp.max(lax_ew.real_p.bind(a) if is_complex else a, axis=dims, keepdims=keepdims, where=where,
                   initial=-np.inf)
    # A non-finite max (all -inf, or an inf) must not be subtracted: use 0.
    amax = lax_ew.stop_gradient(lax_ew.select(jnp.isfinite(amax), amax, _full_like(amax, 0)))
    amax_with_dims = amax if keepdims else lax_shapes.expand_dims(amax, dims)
    exp_a = lax_ew.exp_p.bind(lax_ew.sub_p.bind(a, lax_ew._convert_element_type(amax_with_dims, aval_of(a).dtype)),
                              accuracy=None)
    if b is not None:
        exp_a = lax_ew.mul_p.bind(exp_a, b)
    sumexp = jnp.sum(exp_a, axis=dims, keepdims=keepdims, where=where)
    sign = lax_ew.sign_p.bind(sumexp)
    if return_sign or not is_complex:
        sumexp = jnp.abs(sumexp)
    out = lax_ew.add_p.bind(lax_ew.log_p.bind(sumexp, accuracy=None),
                            lax_ew._convert_element_type(amax, aval_of(sumexp).dtype))
    if return_sign:
        return out, sign
    if b is not None and not is_complex:
        out = jnp.where(sign < 0, np.array(np.nan, aval_of(out).dtype), out)
    return out


def _const(like, value):
    """A scalar constant of `like`'s dtype (lax._const): a literal in jaxprs."""
    return np.array(value, aval_of(like).dtype)[()]


def _dtype_type(x):
    return aval_of(x).dtype.type


# ---------------------------------------------------------------------------
# Gamma, beta and their relatives


def gammaln(x):
    """Log of the absolute value of the gamma function (lax.lgamma).

    Example:
      >>> jax.scipy.special.gammaln(jnp.array([0.5, 4.0]))
      Array([0.5723649, 1.7917595], dtype=float32)
    """
    (x,) = promote_args_inexact("gammaln", x)
    return lax_special.lgamma(x)


def _gammasgn(x):
    (x,) = promote_args_inexact("gammasgn", x)
    if aval_of(x).dtype.kind == "c":
        raise ValueError("gammasgn does not support complex-valued inputs.")
    typ = _dtype_type(x)
    floor_x = lax_ew.floor(x)
    negative = x < 0
    # Poles (non-positive integers) and NaN give NaN; the sign is negative
    # between -2k-1 and -2k, and at -0.
    undefined = (negative & (x == floor_x)) | jnp.isnan(x)
    minus = (negative & (floor_x % 2 != 0)) | ((x == 0) & jnp.signbit(x))
    return jnp.select([undefined, minus], [typ(np.nan), typ(-1.0)], typ(1.0))


gammasgn = jit(_gammasgn)
gammasgn.__doc__ = """The sign of the gamma function: 1 or -1 (NaN at the poles)."""


def loggamma(x):
    """Log of the gamma function, for real `x`: lgamma where gamma is
    positive, NaN for x <= 0 (complex inputs are not supported yet)."""
    (x,) = promote_args_inexact("loggamma", x)
    if aval_of(x).dtype.kind == "c":
        raise NotImplementedError("loggamma of complex inputs is not implemented in pyjax yet")
    return jnp.where(x > 0, lax_special.lgamma(x), jnp.nan)


def gamma(x):
    """The gamma function: ``gammasgn(x) * exp(gammaln(x))`` for real `x`."""
    (x,) = promote_args_inexact("gamma", x)
    if aval_of(x).dtype.kind == "c":
        raise NotImplementedError("gamma of complex inputs is not implemented in pyjax yet")
    return gammasgn(x) * lax_ew.exp(lax_special.lgamma(x))


def _log_gamma_ratio_large_b(a, b):
    """log(gamma(b) / gamma(a + b)) for a <= b and b >= 8, by the asymptotic
    series of log-gamma (cdflib's algdiv): w = del(b) - del(a + b) with
    del(x) = lgamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2)."""
    c0, c1, c2 = 0.833333333333333e-01, -0.277777777760991e-02, 0.793650666825390e-03
    c3, c4, c5 = -0.595202931351870e-03, 0.837308034031215e-03, -0.165322962780713e-02
    h = a / b
    c = h / (1 + h)
    x = h / (1 + h)
    d = b + (a - 0.5)
    # s_n = (1 - x**n) / (1 - x), built up by Horner's rule.
    x2 = x * x
    s3 = 1.0 + (x + x2)
    s5 = 1.0 + (x + x2 * s3)
    s7 = 1.0 + (x + x2 * s5)
    s9 = 1.0 + (x + x2 * s7)
    s11 = 1.0 + (x + x2 * s9)
    t = (1.0 / b) ** 2
    w = ((((c5 * s11 * t + c4 * s9) * t + c3 * s7) * t + c2 * s5) * t + c1 * s3) * t + c0
    w = w * (c / b)
    u = d * lax_ew.log1p(a / b)
    v = a * (lax_ew.log(b) - 1.0)
    # Subtract the larger of u, v last, for accuracy.
    return jnp.where(u <= v, (w - v) - u, (w - u) - v)


def betaln(a, b):
    """Log of the absolute value of the beta function.

    Computed as lgamma(a) + lgamma(b) - lgamma(a + b) for small arguments
    and by an asymptotic series when the larger one is at least 8, which
    stays accurate for arguments in the millions.
    """
    a, b = promote_args_inexact("betaln", a, b)
    a, b = jnp.minimum(a, b), jnp.maximum(a, b)
    small_b = lax_special.lgamma(a) + (lax_special.lgamma(b) - lax_special.lgamma(a + b))
    large_b = lax_special.lgamma(a) + _log_gamma_ratio_large_b(a, b)
    return jnp.where(b < 8, small_b, large_b)


def beta(a, b):
    """The beta function: ``gamma(a) gamma(b) / gamma(a + b)``."""
    a, b = promote_args_inexact("beta", a, b)
    if aval_of(a).dtype.kind == "c":
        raise ValueError("beta does not support complex-valued inputs.")
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * lax_ew.exp(betaln(a, b))


def betainc(a, b, x):
    """The regularized incomplete beta function I_x(a, b)."""
    a, b, x = promote_args_inexact("betainc", a, b, x)
    if aval_of(x).dtype.kind == "c":
        raise ValueError("betainc does not support complex-valued inputs.")
    return lax_special.betainc(a, b, x)


def digamma(x):
    """The digamma function: the derivative of gammaln."""
    (x,) = promote_args_inexact("digamma", x)
    return lax_special.digamma(x)


def polygamma(n, x):
    """The n-th derivative of the digamma function; `n` must be an integer array or scalar."""
    n_dtype = dtypes.canonicalize_dtype(dtypes.dtype(n))
    if not np.issubdtype(n_dtype, np.integer):
        raise ValueError(f"Argument `n` to polygamma must be of integer type. Got dtype {n_dtype}.")
    n, x = promote_args_inexact("polygamma", n, x)
    if aval_of(x).dtype.kind == "c":
        raise ValueError("polygamma does not support complex-valued inputs.")
    return lax_special.polygamma(n, x)


def gammainc(a, x):
    """The regularized lower incomplete gamma function P(a, x)."""
    a, x = promote_args_inexact("gammainc", a, x)
    return lax_special.igamma(a, x)


def gammaincc(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    a, x = promote_args_inexact("gammaincc", a, x)
    return lax_special.igammac(a, x)


def factorial(n, exact: bool = False):
    """The factorial ``gamma(n + 1)`` (0 for negative n); `exact` is not supported."""
    if exact:
        raise NotImplementedError("factorial with exact=True")
    (n,) = promote_args_inexact("factorial", n)
    return jnp.where(n < 0, 0, lax_ew.exp(lax_special.lgamma(n + 1)))


def comb(N, k, *, repetition: bool = False):
    """The number of combinations of N things taken k at a time (0 outside 0 <= k <= N)."""
    N, k = promote_args_inexact("comb", N, k)
    if repetition:
        return jnp.where((k == 0) & (N >= 0), 1.0, comb(N + k - 1, k, repetition=False))
    valid = (k <= N) & (N >= 0) & (k >= 0)
    safe_N = jnp.where(valid, N, 0.0)
    safe_k = jnp.where(valid, k, 0.0)
    result = lax_ew.exp(gammaln(safe_N + 1) - gammaln(safe_k + 1) - gammaln(safe_N + 1 - safe_k))
    return jnp.where(valid, result, 0.0)


def multigammaln(a, d):
    """Log of the multivariate gamma function of dimension `d` (a static integer):
    ``d (d - 1) / 4 log(pi) + sum_j gammaln(a - j / 2)``."""
    if isinstance(d, core.Tracer):
        raise errors.ConcretizationTypeError(d, "d argument of multigammaln")
    d = int(d)
    a, d_ = promote_args_inexact("multigammaln", a, d)
    constant = lax_ew.mul(lax_ew.mul(lax_ew.mul(_const(a, 0.25), d_), lax_ew.sub(d_, _const(a, 1))),
                          lax_ew.log(_const(a, np.pi)))
    b = lax_ew.div(jnp.arange(d, dtype=aval_of(d_).dtype), _const(a, 2))
    terms = gammaln(jnp.expand_dims(a, axis=-1) - jnp.expand_dims(b, axis=tuple(range(aval_of(a).ndim))))
    return jnp.sum(terms, axis=-1) + constant


# ---------------------------------------------------------------------------
# Error functions and logistic functions


def erf(x):
    """The error function."""
    (x,) = promote_args_inexact("erf", x)
    return lax_special.erf(x)


def erfc(x):
    """The complementary error function, 1 - erf(x), accurate for large x."""
    (x,) = promote_args_inexact("erfc", x)
    return lax_special.erfc(x)


def erfinv(x):
    """The inverse of the error function on (-1, 1)."""
    (x,) = promote_args_inexact("erfinv", x)
    return lax_special.erf_inv(x)


def expit(x):
    """The logistic sigmoid, 1 / (1 + exp(-x))."""
    (x,) = promote_args_inexact("expit", x)
    return lax_ew.logistic(x)


@custom_jvp
def logit(x):
    """The log-odds, log(x / (1 - x)): the inverse of expit."""
    (x,) = promote_args_inexact("logit", x)
    return lax_ew.log(lax_ew.div(x, lax_ew.sub(_const(x, 1), x)))


logit.defjvps(lambda g, ans, x: lax_ew.div(g, lax_ew.mul(x, lax_ew.sub(_const(x, 1), x))))


# ---------------------------------------------------------------------------
# x log y and entropies


@custom_jvp
def xlogy(x, y):
    """x * log(y), with 0 * log(0) = 0 (a NaN y still gives NaN)."""
    x, y = promote_args_inexact("xlogy", x, y)
    x_ok = x != 0.0
    return jnp.where(x_ok | jnp.isnan(y), lax_ew.mul(x, lax_ew.log(y)), jnp.zeros_like(x))


def _xlogy_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    result = xlogy(x, y)
    return result, (x_dot * lax_ew.log(y) + y_dot * x / y).astype(aval_of(result).dtype)


xlogy.defjvp(_xlogy_jvp)


@custom_jvp
def xlog1py(x, y):
    """x * log1p(y), with 0 * log1p(-1) = 0 (a NaN y still gives NaN)."""
    x, y = promote_args_inexact("xlog1py", x, y)
    x_ok = x != 0.0
    return jnp.where(x_ok | jnp.isnan(y), lax_ew.mul(x, lax_ew.log1p(y)), jnp.zeros_like(x))


def _xlog1py_jvp(primals, tangents):
    (x, y), (x_dot, y_dot) = primals, tangents
    result = xlog1py(x, y)
    return result, (x_dot * lax_ew.log1p(y) + y_dot * x / (1 + y)).astype(aval_of(result).dtype)


xlog1py.defjvp(_xlog1py_jvp)


@custom_jvp
def _xlogx(x):
    return xlogy(x, x)


def _xlogx_jvp(primals, tangents):
    (x,), (x_dot,) = primals, tangents
    return _xlogx(x), x_dot * (lax_ew.log(x) + 1)


_xlogx.defjvp(_xlogx_jvp)


def entr(x):
    """Elementwise entropy: -x log x for x > 0, 0 at 0, -inf for x < 0."""
    (x,) = promote_args_inexact("entr", x)
    if aval_of(x).dtype.kind == "c":
        raise ValueError("entr does not support complex-valued inputs.")
    return lax_ew.select(lax_ew.lt(x, _const(x, 0)), _full_like(x, -np.inf), lax_ew.neg(_xlogx(x)))


def rel_entr(p, q):
    """Elementwise relative entropy: p log(p / q) for p, q > 0, 0 for p = 0, inf otherwise."""
    p, q = promote_args_inexact("rel_entr", p, q)
    both_positive = jnp.logical_and(jnp.greater(p, 0), jnp.greater(q, 0))
    one_zero = jnp.logical_and(jnp.equal(p, 0), jnp.greater_equal(q, 0))
    safe_p = jnp.where(both_positive, p, 1)
    safe_q = jnp.where(both_positive, q, 1)
    log_val = lax_ew.sub(_xlogx(safe_p), xlogy(safe_p, safe_q))
    result = jnp.where(both_positive, log_val, jnp.where(one_zero, 0.0, jnp.inf))
    return result


def kl_div(p, q):
    """Elementwise Kullback-Leibler term: p log(p / q) - p + q (p, q >= 0)."""
    p, q = promote_args_inexact("kl_div", p, q)
    return rel_entr(p, q) - p + q


def softmax(x, /, *, axis=None):
    """Softmax over `axis` (all axes by default, as SciPy's)."""
    from pyjax._src.nn.functions import softmax as nn_softmax

    return nn_softmax(x, axis=axis)


def log_softmax(x, /, *, axis=None):
    """Log-softmax over `axis` (all axes by default, as SciPy's)."""
    from pyjax._src.nn.functions import log_softmax as nn_log_softmax

    return nn_log_softmax(x, axis=axis)


# ---------------------------------------------------------------------------
# Bessel functions and the Hurwitz zeta function


def i0e(x):
    """The exponentially scaled modified Bessel function of order 0: exp(-|x|) I0(x)."""
    (x,) = promote_args_inexact("i0e", x)
    return lax_special.bessel_i0e(x)


def i0(x):
    """The modified Bessel function of order 0."""
    (x,) = promote_args_inexact("i0", x)
    return lax_ew.mul(lax_ew.exp(lax_ew.abs(x)), lax_special.bessel_i0e(x))


def i1e(x):
    """The exponentially scaled modified Bessel function of order 1: exp(-|x|) I1(x)."""
    (x,) = promote_args_inexact("i1e", x)
    return lax_special.bessel_i1e(x)


def i1(x):
    """The modified Bessel function of order 1."""
    (x,) = promote_args_inexact("i1", x)
    return lax_ew.mul(lax_ew.exp(lax_ew.abs(x)), lax_special.bessel_i1e(x))


@custom_jvp
def zeta(x, q=None):
    """The Hurwitz zeta function: sum over k >= 0 of (k + q) ** -x.

    `q` is required (the Riemann zeta function is not implemented, as in JAX).
    """
    if q is None:
        raise NotImplementedError("Riemann zeta function not implemented; pass q != None to compute the Hurwitz "
                                  "Zeta function.")
    x, q = promote_args_inexact("zeta", x, q)
    return lax_special.zeta(x, q)


# B_2m / (2m)!, for the Euler-Maclaurin tail of the zeta series.
_BERNOULLI_COEFS = [
    12, -720, 30240, -1209600, 47900160, -1307674368000 / 691, 74724249600, -10670622842880000 / 3617,
    5109094217170944000 / 43867, -802857662698291200000 / 174611, 14101100039391805440000 / 77683,
    -1693824136731743669452800000 / 236364091, 186134520519971831808000000 / 657931,
    -37893265687455865519472640000000 / 3392780147, 759790291646040068357842010112000000 / 1723168255201,
    -134196726836183700385281186201600000000 / 7709321041217,
]


def _zeta_series(s, a):
    # Euler-Maclaurin summation (Johansson 2015, arXiv:1309.2877, eq. 5):
    # N direct terms, the integral of the rest, and M correction terms.
    s, a = promote_args_inexact("zeta", s, a)
    dtype = _dtype_type(a)
    s_, a_ = jnp.expand_dims(s, -1), jnp.expand_dims(a, -1)
    N = M = dtype(8) if aval_of(a).dtype == np.float32 else dtype(16)
    k = jnp.expand_dims(np.arange(N, dtype=N.dtype), tuple(range(aval_of(a).ndim)))
    direct = jnp.sum((a_ + k) ** -s_, -1)
    integral = lax_ew.div((a + N) ** (dtype(1) - s), s - dtype(1))
    first = (a + N) ** -s
    m = jnp.expand_dims(np.arange(2 * M, dtype=M.dtype), tuple(range(aval_of(s).ndim)))
    rising = jnp.cumprod((s_ + m) / (a_ + N), -1)[..., ::2]
    rising = jnp.clip(rising, max=dtypes.finfo(dtype).max)
    coefs = np.expand_dims(np.array(_BERNOULLI_COEFS[:aval_of(rising).shape[-1]], dtype=dtype),
                           tuple(range(aval_of(a).ndim)))
    tail = first * (dtype(0.5) + jnp.sum(rising / coefs, -1))
    return direct + integral + tail


# zeta has no closed-form derivative: differentiate the series instead.
zeta.defjvp(partial(jvp, _zeta_series))


# ---------------------------------------------------------------------------
# The standard normal distribution function and its inverse


def ndtr(x):
    """The standard normal cumulative distribution function (float32/float64)."""
    x = jnp.asarray(x)
    dtype = aval_of(x).dtype
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={dtype} is not supported, see docstring for supported types.")
    return _ndtr(x)


def _ndtr(x):
    # Near 0, 1 + erf is accurate; in the tails erfc avoids the cancellation
    # of 1 - erf.
    dtype = _dtype_type(x)
    half_sqrt_2 = dtype(0.5) * np.sqrt(2.0, dtype=dtype)
    w = x * half_sqrt_2
    z = lax_ew.abs(w)
    y = lax_ew.select(lax_ew.lt(z, half_sqrt_2), dtype(1.0) + lax_special.erf(w),
                      lax_ew.select(lax_ew.gt(w, dtype(0.0)), dtype(2.0) - lax_special.erfc(z), lax_special.erfc(z)))
    return dtype(0.5) * y


# Cephes' rational approximations of ndtri (by permission of S. Moshier, under Apache 2.0).
_NDTRI_P0 = [-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
             1.39312609387279679503E1, -1.23916583867381258016E0]
_NDTRI_Q0 = [1.0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
             -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1,
             1.59056225126211695515E1, -1.18331621121330003142E0]
_NDTRI_P1 = [4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
             4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
             -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4]
_NDTRI_Q1 = [1.0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
             1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1,
             -3.80806407691578277194E-2, -9.33259480895457427372E-4]
_NDTRI_P2 = [3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
             1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
             3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9]
_NDTRI_Q2 = [1.0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
             2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
             2.89247864745380683936E-6, 6.79019408009981274425E-9]


def ndtri(p):
    """The inverse of ndtr: x such that ndtr(x) = p (float32/float64); -inf at 0, inf at 1."""
    dtype = dtypes.dtype(p)
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={dtype} is not supported, see docstring for supported types.")
    return _ndtri(jnp.asarray(p))


def _ndtri(p):
    dtype = _dtype_type(p)
    shape = aval_of(p).shape

    def coeffs(values):
        return np.array(values, dtype=dtype)

    # Work with the smaller of p and 1 - p; 0 is replaced by any value that
    # gives no NaN (its result is overwritten below).
    maybe_complement = jnp.where(p > dtype(-np.expm1(-2.0)), dtype(1.0) - p, p)
    sanitized = jnp.where(maybe_complement == dtype(0.0), jnp.full(shape, dtype(0.5)), maybe_complement)
    # Central region, p > exp(-2): x / sqrt(2 pi) = w + w**3 P0(w**2) / Q0(w**2).
    w = sanitized - dtype(0.5)
    ww = lax_ew.square(w)
    x_central = w + w * ww * (jnp.polyval(coeffs(_NDTRI_P0), ww) / jnp.polyval(coeffs(_NDTRI_Q0), ww))
    x_central = x_central * -dtype(np.sqrt(2.0 * np.pi))
    # Tails: x = z - log(z) / z - P(1/z) / (z Q(1/z)), z = sqrt(-2 log p),
    # with one pair of polynomials beyond p = exp(-32) and another inside.
    z = lax_ew.sqrt(dtype(-2.0) * lax_ew.log(sanitized))
    first_term = z - lax_ew.log(z) / z
    far_tail = jnp.polyval(coeffs(_NDTRI_P2), 1 / z) / jnp.polyval(coeffs(_NDTRI_Q2), 1 / z) / z
    near_tail = jnp.polyval(coeffs(_NDTRI_P1), 1 / z) / jnp.polyval(coeffs(_NDTRI_Q1), 1 / z) / z
    x = jnp.where(sanitized > dtype(np.exp(-2.0)), x_central,
                  jnp.where(z >= dtype(8.0), first_term - far_tail, first_term - near_tail))
    x = jnp.where(p > dtype(1.0 - np.exp(-2.0)), x, -x)
    infinity = jnp.full(shape, dtype(np.inf))
    return jnp.where(p == dtype(0.0), -infinity, jnp.where(p == dtype(1.0), infinity, x))


# Below LOWER the asymptotic series is used; above UPPER log(1 - q) ~ -q.
_LOG_NDTR_LOWER = {np.dtype(np.float64): np.array(-20, np.float64), np.dtype(np.float32): np.array(-10, np.float32)}
_LOG_NDTR_UPPER = {np.dtype(np.float64): np.array(8, np.float64), np.dtype(np.float32): np.array(5, np.float32)}


def _log_ndtr_impl(x, series_order):
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    x = jnp.asarray(x)
    dtype = aval_of(x).dtype
    if dtype not in _LOG_NDTR_LOWER:
        raise TypeError(f"x.dtype={np.dtype(dtype)} is not supported.")
    lower, upper = _LOG_NDTR_LOWER[dtype], _LOG_NDTR_UPPER[dtype]
    above_upper = lax_ew.gt(x, upper)
    # One ndtr serves both outer branches. The max/min keep the unused
    # branches' arguments finite, so their (masked) gradients are not NaN.
    ndtr_arg = jnp.where(above_upper, -x, lax_ew.max(x, lower))
    ndtr_value = _ndtr(ndtr_arg)
    return jnp.where(above_upper, -ndtr_value,
                     jnp.where(lax_ew.gt(x, lower), lax_ew.log(ndtr_value),
                               _log_ndtr_lower(lax_ew.min(x, lower), series_order)))


def _log_ndtr_lower(x, series_order):
    dtype = _dtype_type(x)
    x_2 = lax_ew.square(x)
    log_scale = -dtype(0.5) * x_2 - lax_ew.log(-x) - dtype(0.5 * np.log(2.0 * np.pi))
    return log_scale + lax_ew.log(_log_ndtr_asymptotic_series(x, series_order))


def _log_ndtr_asymptotic_series(x, series_order):
    # 1 + sum_n (-1)^n (2n - 1)!! / x^(2n), the even and odd terms summed apart.
    dtype = _dtype_type(x)
    if series_order <= 0:
        return np.array(1, dtype)
    x_2 = lax_ew.square(x)
    even_sum = jnp.zeros_like(x)
    odd_sum = jnp.zeros_like(x)
    x_2n = x_2
    for n in range(1, series_order + 1):
        term = np.array(np.prod(np.arange(2 * n - 1, 1, -2)), dtype) / x_2n
        if n % 2:
            odd_sum = odd_sum + term
        else:
            even_sum = even_sum + term
        x_2n = x_2n * x_2
    return dtype(1.0) + even_sum - odd_sum


def _norm_logpdf(x):
    return lax_ew.sub(lax_ew.mul(_const(x, -0.5), lax_ew.square(x)), _const(x, np.log(np.sqrt(2 * np.pi))))


_LOG_NDTR_FUNCTIONS: dict = {}


def log_ndtr(x, series_order: int = 3):
    """Log of ndtr, accurate far into both tails.

    Args:
      x: float32 or float64 array.
      series_order: terms of the asymptotic series used for very negative x (0 to 30).
    """
    # series_order is a non-differentiable argument of JAX's custom_jvp; one
    # custom_jvp per order keeps it out of the differentiated arguments.
    fn = _LOG_NDTR_FUNCTIONS.get(series_order)
    if fn is None:
        def log_ndtr(x):
            return _log_ndtr_impl(x, series_order)

        fn = custom_jvp(log_ndtr)

        def _log_ndtr_jvp(primals, tangents):
            (x,), (t,) = primals, tangents
            ans = fn(x)
            return ans, lax_ew.mul(t, lax_ew.exp(lax_ew.sub(_norm_logpdf(x), ans)))

        fn.defjvp(_log_ndtr_jvp)
        if isinstance(series_order, int):
            _LOG_NDTR_FUNCTIONS[series_order] = fn
    return fn(x)
