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

from pyjax._src.backends.numpy.xla import xla_math
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import rng as lax_rng
from pyjax._src.random import bit_generators, prng
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
    msgs = np.asarray(msgs, np.uint32)
    if not getattr(impl.fold_in, "takes_unbroadcast_msgs", False):  # (unsafe_rbg's depends on msgs' own axes)
        msgs = np.broadcast_to(msgs, shape)
    return prng.key_buffer(impl.fold_in(data, msgs), impl)


def _random_bits(keys, *, bit_width, shape):
    return prng.buffer_impl(keys).random_bits(prng.physical_keys(keys), bit_width, shape)


def _random_wrap(data, *, impl):
    return prng.key_buffer(np.asarray(data), impl)


def _random_unwrap(keys):
    return np.array(prng.physical_keys(keys))


def _comparing_keys(ufunc, reduce_words):
    # lax.eq / lax.ne, which also take two key arrays of one dtype (their
    # only operations on keys besides moving them): two keys are equal when
    # all their words are. NumPy's ufuncs have no loop for record dtypes, so
    # the eager plans and the compiler call this impl, not `ufunc`, for keys
    # (they look for an extended dtype once per plan or compiled equation).
    def impl(x, y):
        if getattr(getattr(x, "dtype", None), "names", None) is None:
            return ufunc(x, y)
        words = len(prng.buffer_impl(x).key_shape)
        per_word = ufunc(prng.physical_keys(x), prng.physical_keys(y))
        return reduce_words(per_word, axis=tuple(range(-words, 0)))

    impl.__name__ = ufunc.__name__
    impl.ufunc = ufunc  # the call for every other dtype
    return impl


IMPLS[ew.eq_p] = _comparing_keys(np.equal, np.all)
IMPLS[ew.ne_p] = _comparing_keys(np.not_equal, np.any)
IMPLS[prng.random_seed_p] = _random_seed
IMPLS[prng.random_split_p] = _random_split
IMPLS[prng.random_fold_in_p] = _random_fold_in
IMPLS[prng.random_bits_p] = _random_bits
IMPLS[prng.random_wrap_p] = _random_wrap
IMPLS[prng.random_unwrap_p] = _random_unwrap
IMPLS[prng.random_clone_p] = lambda keys: keys
def _rng_bit_generator(key, *, shape, dtype, algorithm, out_sharding):
    # RNG_DEFAULT is Philox: what XLA's CPU compiler expands the default to.
    generate = (bit_generators.threefry_bits if algorithm == lax_rng.RandomAlgorithm.RNG_THREE_FRY
                else bit_generators.philox_bits)
    return list(generate(np.asarray(key), tuple(shape), np.dtype(dtype).itemsize * 8))


IMPLS[lax_rng.rng_bit_generator_p] = _rng_bit_generator
IMPLS[threefry2x32_p] = lambda k0, k1, x0, x1: list(threefry2x32_numpy(k0, k1, x0, x1))

# rng_uniform's state lives in the process, as XLA's RNG op keeps a global
# counter: successive calls draw different numbers, in no specified sequence.
_UNIFORM_STATE = np.random.default_rng(0)


def _rng_uniform(a, b, *, shape):
    a, b = np.asarray(a), np.asarray(b)
    dtype = a.dtype
    if dtype.kind in "iu":
        if b <= a:  # undefined in XLA; the lower bound
            return np.full(shape, a, dtype)
        return _UNIFORM_STATE.integers(a, b, size=shape, dtype=dtype, endpoint=False)
    u = _UNIFORM_STATE.random(size=shape, dtype=np.float64)
    out = (a.astype(np.float64) + (b.astype(np.float64) - a.astype(np.float64)) * u).astype(dtype)
    # Rounding to a narrow float may land on b: keep the interval half-open.
    return np.where(out >= b, a, out).astype(dtype) if b > a else out


IMPLS[lax_rng.rng_uniform_p] = _rng_uniform


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

def _fma(a, b, c, dtype):
    if dtype == np.float32:  # exact product in float64, one rounding of the sum
        return (a.astype(np.float64) * b + c).astype(np.float32)
    if dtype == np.float64:
        return xla_math.fma_f64(a, b, c)
    return (a * b + c).astype(dtype)


# XLA's own log, log1p and erf_inv (xla_math), not NumPy's or SciPy's.
def _log(x, dtype):
    if dtype == np.float32:
        return xla_math.log_f32(x)
    if dtype == np.float16:  # (in float32, as XLA computes float16)
        return np.log(x.astype(np.float32)).astype(dtype)
    return xla_math.log_f64(x) if dtype == np.float64 else np.log(x)


def _log1p(x, dtype):
    if dtype == np.float32:
        return xla_math.log1p_f32(x)
    if dtype == np.float16:
        return np.log1p(x.astype(np.float32)).astype(dtype)
    return xla_math.log1p_f64(x) if dtype == np.float64 else np.log1p(x).astype(dtype)


def _erf_inv(x, dtype):
    if dtype == np.float32:
        return xla_math.erf_inv_f32(x)
    if dtype == np.float64:
        return xla_math.erf_inv_f64(x)
    import scipy.special

    return np.where(x == 0, x, scipy.special.erfinv(x.astype(np.float64))).astype(dtype)


def _third_over_sqrt(third, d, dtype):
    # XLA rewrites a / sqrt(b) as a * rsqrt(b), and its float32 rsqrt starts
    # from the CPU's estimate (xla_math.rsqrt_f32); float16 takes that rsqrt
    # rounded to float16. bfloat16 keeps the division (measured: JAX's
    # bfloat16 c is third / sqrt(d) rounded once).
    if dtype == np.float64:
        return third * np.reciprocal(np.sqrt(d))
    if dtype == ml_dtypes.bfloat16:
        return third / np.sqrt(d)
    return third * xla_math.rsqrt_f32(d.astype(np.float32)).astype(dtype)


def _pow(x, y, dtype):
    if dtype == np.float16:
        return np.power(np.asarray(x, np.float32), np.asarray(y, np.float32)).astype(dtype)
    return xla_math.pow_f64(x, y) if dtype == np.float64 else np.power(x, y)


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
    c = _third_over_sqrt(third, d, dtype)
    key, subkey = _split_batch(impl, keys, 2)
    X = np.zeros_like(alpha)
    V = np.ones_like(alpha)
    U = np.full_like(alpha, 2)

    def rejected(X, V, U, d):
        with np.errstate(divide="ignore", invalid="ignore"):
            first = U >= _fma(-squeeze, X * X, one, dtype)
            second = _log(U, dtype) >= X * half + d * ((one - V) + _log(V, dtype))
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
            log_samples = _log1p(-_uniform_scalars(impl, subkey, dtype), dtype)
            log_boost = np.where(boost_mask | (log_samples == 0), dtype.type(0), log_samples * (one / alpha_orig))
            return ((_log(d, dtype) + _log(V, dtype)) + log_boost).astype(dtype)
        samples = one - _uniform_scalars(impl, subkey, dtype)
        boost = np.where(boost_mask, one, _pow(samples, one / alpha_orig, dtype))
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
    alphas = a.reshape(-1).copy()
    if impl.name == "threefry2x32":
        samples = _gamma_one(impl, element_keys, alphas, log_space)
    else:
        # JAX maps the sampler over the elements one at a time (lax.map) for
        # other PRNGs: a batch of rbg keys draws its bits from its first key.
        samples = np.concatenate([_gamma_one(impl, element_keys[i:i + 1], alphas[i:i + 1], log_space)
                                  for i in range(alphas.size)])
    return samples.reshape(a.shape)


IMPLS[prng.random_gamma_p] = _random_gamma
