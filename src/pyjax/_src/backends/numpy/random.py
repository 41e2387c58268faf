"""NumPy impls of the PRNG primitives.

A key array's buffer is a NumPy array of the key shape whose record dtype
(``KeyTy.dtype``) holds each key's uint32 words, under a field named after
its PRNG implementation. The impls unpack it to the physical uint32 key
data, call the implementation's vectorised functions (threefry's run the
hash on whole arrays) and pack the result back.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from pyjax._src.random import prng
from pyjax._src.random.threefry import threefry2x32_numpy, threefry2x32_p

IMPLS: dict = {}


def _random_seed(seeds, *, impl):
    seeds = np.asarray(seeds)
    if seeds.dtype == np.bool_ or not np.issubdtype(seeds.dtype, np.integer):
        # JAX checks inside its jitted seeding function, so it names a tracer.
        raise TypeError(f"PRNG key seed must be an integer; got JitTracer({seeds.dtype.name}[{','.join(map(str, seeds.shape))}])")
    return prng.key_buffer(impl.seed(seeds), impl)


def _random_split(keys, *, shape):
    impl = prng.buffer_impl(keys)
    return prng.key_buffer(impl.split(prng.physical_keys(keys), shape), impl)


def _random_fold_in(keys, msgs):
    impl = prng.buffer_impl(keys)
    data = prng.physical_keys(keys)
    # The keys and messages broadcast together (lax's rule: equal ranks with
    # size-1 axes, or a rank-0 operand).
    shape = np.broadcast_shapes(data.shape[:-1], np.shape(msgs))
    data = np.broadcast_to(data, shape + data.shape[-1:])
    return prng.key_buffer(impl.fold_in(data, np.broadcast_to(np.asarray(msgs, np.uint32), shape)), impl)


def _random_bits(keys, *, bit_width, shape):
    return prng.buffer_impl(keys).random_bits(prng.physical_keys(keys), bit_width, shape)


def _random_wrap(data, *, impl):
    return prng.key_buffer(np.asarray(data), impl)


def _random_unwrap(keys):
    return np.array(prng.physical_keys(keys))


IMPLS[prng.random_seed_p] = _random_seed
IMPLS[prng.random_split_p] = _random_split
IMPLS[prng.random_fold_in_p] = _random_fold_in
IMPLS[prng.random_bits_p] = _random_bits
IMPLS[prng.random_wrap_p] = _random_wrap
IMPLS[prng.random_unwrap_p] = _random_unwrap
IMPLS[prng.random_clone_p] = lambda keys: keys
IMPLS[threefry2x32_p] = lambda k0, k1, x0, x1: list(threefry2x32_numpy(k0, k1, x0, x1))


# ---------------------------------------------------------------------------
# random_gamma: Marsaglia and Tsang's rejection loops, all elements at once.
#
# JAX lowers random_gamma to a vmapped while loop: every element runs its own
# loop on its own key, and finished elements keep their state. Running the
# loop body on the still-active elements only gives the same per-element
# results. The scalar draws inside (normal, uniform) repeat _uniform and
# _normal_real on NumPy values; where XLA on the CPU fuses a multiply into
# the following add, the float32 path does too (float64 arithmetic rounded
# once), so the draws stay bit-identical to XLA's wherever the
# transcendentals (log, erf_inv, pow) agree.

_ERF_INV_SMALL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_ERF_INV_LARGE = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                  -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _fma(a, b, c, dtype):
    if dtype == np.float32:  # exact product in float64, one rounding of the sum
        return (a.astype(np.float64) * b + c).astype(np.float32)
    return (a * b + c).astype(dtype)


# XLA's float32 log1p below |x| = sqrt(2) - 1: Cephes' rational approximation,
# Horner with fused multiply-adds (above it, log(1 + x)).
_LOG1P_NUMERATOR = (4.5270000862445199635215E-5, 4.9854102823193375972212E-1, 6.5787325942061044846969E0,
                    2.9911919328553073277375E1, 6.0949667980987787057556E1, 5.7112963590585538103336E1,
                    2.0039553499201281259648E1)
_LOG1P_DENOMINATOR = (1.0, 1.5062909083469192043167E1, 8.3047565967967209469434E1, 2.2176239823732856465394E2,
                      3.0909872225312059774938E2, 2.1642788614495947685003E2, 6.0118660497603843919306E1)


def _log1p_f32(x):
    small = np.abs(x) < np.float32(0.41421356237309504880)
    xs = np.where(small, x, np.float32(0))
    numerator = np.full_like(xs, _LOG1P_NUMERATOR[0])
    denominator = np.full_like(xs, _LOG1P_DENOMINATOR[0])
    for a, b in zip(_LOG1P_NUMERATOR[1:], _LOG1P_DENOMINATOR[1:], strict=True):
        numerator = _fma(numerator, xs, np.float32(a), np.float32)
        denominator = _fma(denominator, xs, np.float32(b), np.float32)
    squared = xs * xs
    series = (xs * squared) * (numerator / denominator)
    series = xs + _fma(np.float32(-0.5), squared, series, np.float32)
    # (XLA's own float32 log is not NumPy's: the large branch may differ in the last bit.)
    large = np.log((np.float32(1) + x).astype(np.float64)).astype(np.float32)
    return np.where(small, series, large)


def _erf_inv(x, dtype):
    if dtype != np.float32:
        import scipy.special

        return np.where(x == 0, x, scipy.special.erfinv(x.astype(np.float64))).astype(dtype)
    # XLA's single-precision erf_inv (Giles' polynomials, Horner with fused
    # multiply-adds): not correctly rounded, so scipy's value can be ulps away.
    with np.errstate(divide="ignore", invalid="ignore"):
        w = -_log1p_f32(x * -x)
        small = w < np.float32(5)
        w = np.where(small, w - np.float32(2.5), np.sqrt(w) - np.float32(3))
        p = np.where(small, np.float32(_ERF_INV_SMALL[0]), np.float32(_ERF_INV_LARGE[0]))
        for lo, hi in zip(_ERF_INV_SMALL[1:], _ERF_INV_LARGE[1:], strict=True):
            p = _fma(p, w, np.where(small, np.float32(lo), np.float32(hi)), np.float32)
        return np.where(np.abs(x) == 1, x * np.float32(np.inf), p * x)


def _uniform_scalars(impl, keys, dtype, lo=None, hi=None):
    # `_uniform(key, lo, hi, (), dtype)` for each key of a batch.
    info = ml_dtypes.finfo(dtype)
    nbits, nmant = dtype.itemsize * 8, info.nmant
    rng_bits = nbits if nmant >= 8 else 8
    uint = np.dtype(f"uint{nbits}")
    bits = impl.random_bits(keys, rng_bits, ()).astype(uint)
    one_bits = np.array(1.0, dtype).view(uint)
    floats = ((bits >> uint.type(rng_bits - nmant)) | one_bits).view(dtype) - dtype.type(1)
    if lo is None:
        return np.maximum(dtype.type(0), floats)
    return np.maximum(lo, _fma(floats, hi - lo, lo, dtype))


def _normal_scalars(impl, keys, dtype):
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype))
    u = _uniform_scalars(impl, keys, dtype, lo, np.array(1.0, dtype))
    return (np.array(np.sqrt(2), dtype) * _erf_inv(u, dtype)).astype(dtype)


def _split_batch(impl, keys, n: int):
    parts = impl.split(keys, (n,))
    return [parts[:, i] for i in range(n)]


def _gamma_one(impl, keys, alpha, log_space: bool):
    dtype = alpha.dtype
    one, third = dtype.type(1), np.array(1.0 / 3.0, dtype)
    squeeze, half = np.array(0.0331, dtype), dtype.type(0.5)
    # alpha < 1 draws Gamma(alpha + 1) and scales it by Uniform**(1 / alpha).
    boost_mask = alpha >= one
    alpha_orig = alpha
    alpha = np.where(boost_mask, alpha, alpha + one)
    d = alpha - third
    c = third / np.sqrt(d)
    key, subkey = _split_batch(impl, keys, 2)
    X = np.zeros_like(alpha)
    V = np.ones_like(alpha)
    U = np.full_like(alpha, 2)

    def rejected(X, V, U, d):
        with np.errstate(divide="ignore", invalid="ignore"):
            first = U >= _fma(-squeeze, X * X, one, dtype)
            second = np.log(U) >= X * half + d * ((one - V) + np.log(V))
        return first & second

    active = rejected(X, V, U, d)
    while active.any():
        idx = np.nonzero(active)[0]
        key_i, x_key, u_key = _split_batch(impl, key[idx], 3)
        key[idx] = key_i
        c_i = c[idx]
        x = np.zeros_like(c_i)
        v = np.full_like(c_i, -1)
        pending = np.ones(idx.shape, bool)
        while pending.any():  # a normal draw with 1 + x * c > 0
            j = np.nonzero(pending)[0]
            x_key_j, sub = _split_batch(impl, x_key[j], 2)
            x_key[j] = x_key_j
            x[j] = _normal_scalars(impl, sub, dtype)
            v[j] = _fma(x[j], c_i[j], one, dtype)
            pending = v <= 0
        X[idx] = x * x
        V[idx] = v * v * v
        U[idx] = _uniform_scalars(impl, u_key, dtype)
        active = rejected(X, V, U, d)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if log_space:
            log_samples = np.log1p(-_uniform_scalars(impl, subkey, dtype)).astype(dtype)
            log_boost = np.where(boost_mask | (log_samples == 0), dtype.type(0), log_samples * (one / alpha_orig))
            return ((np.log(d) + np.log(V)) + log_boost).astype(dtype)
        samples = one - _uniform_scalars(impl, subkey, dtype)
        boost = np.where(boost_mask, one, np.power(samples, one / alpha_orig))
        return ((d * V) * boost).astype(dtype)


def _random_gamma(keys, a, *, log_space):
    impl = prng.buffer_impl(keys)
    data = prng.physical_keys(keys)
    a = np.asarray(a)
    batch = data.shape[:-1]
    # Each key splits into one key per element of its slice of `a`.
    count = int(np.prod(a.shape[len(batch):], dtype=np.int64))
    element_keys = impl.split(data.reshape(-1, data.shape[-1]), (count,)).reshape(-1, data.shape[-1])
    if a.size == 0:
        return np.zeros(a.shape, a.dtype)
    samples = _gamma_one(impl, element_keys, a.reshape(-1).copy(), log_space)
    return samples.reshape(a.shape)


IMPLS[prng.random_gamma_p] = _random_gamma
