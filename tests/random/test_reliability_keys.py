"""Typed PRNG keys keep their type, and values keep the shapes their avals
promise (issue 19, items 2, 5 and 8).

Keys: pickling and copying give back typed keys that split and sample as
the originals; `==` / `!=` compare keys (eagerly, under jit and vmap);
arithmetic, promotion with other dtypes and conversions to and from keys
raise JAX 0.11's errors (messages recorded from JAX 0.11.0, CPU); integer
counts (`split`'s `num`) take `operator.index` as JAX does.

0-d values: every function in backends/numpy/xla/xla_math.py, and every lax
operation and sampler that reaches them, returns a buffer whose shape and
dtype are its aval's for 0-d operands, eagerly, under jit and in a scan body.
"""

from __future__ import annotations

import copy
import inspect
import pickle

import ml_dtypes
import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax, random
from pyjax._src.backends.numpy.xla import xla_math
from pyjax._src.random import prng


def _data(keys) -> np.ndarray:
    return np.asarray(random.key_data(keys))


def _keys():
    k = random.key(0)
    return {"scalar": k, "vector": random.split(k, 3), "matrix": random.split(k, (2, 3))}


# ---------------------------------------------------------------------------
# pickle, copy, deepcopy


ROUND_TRIPS = {
    "pickle": lambda x: pickle.loads(pickle.dumps(x)),
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
}


@pytest.mark.parametrize("how", sorted(ROUND_TRIPS))
@pytest.mark.parametrize("which", ["scalar", "vector", "matrix"])
def test_typed_keys_round_trip(how, which):
    keys = _keys()[which]
    back = ROUND_TRIPS[how](keys)
    assert back.dtype == keys.dtype and back.shape == keys.shape
    assert jnp.issubdtype(back.dtype, jax.dtypes.prng_key)
    np.testing.assert_array_equal(_data(back), _data(keys))
    one = back if which == "scalar" else back.reshape(-1)[1]
    orig = keys if which == "scalar" else keys.reshape(-1)[1]
    np.testing.assert_array_equal(_data(random.split(one)), _data(random.split(orig)))
    np.testing.assert_array_equal(np.asarray(random.normal(one, (3,))), np.asarray(random.normal(orig, (3,))))
    assert bool(jnp.all(back == keys))


def test_key_dtype_pickles_as_the_registered_impl():
    dtype = random.key(0).dtype
    back = pickle.loads(pickle.dumps(dtype))
    assert back == dtype and back._impl is dtype._impl


@pytest.mark.parametrize("how", sorted(ROUND_TRIPS))
def test_raw_keys_round_trip(how):
    raw = random.PRNGKey(0)
    back = ROUND_TRIPS[how](raw)
    assert back.dtype == np.uint32 and back.shape == (2,)
    np.testing.assert_array_equal(np.asarray(random.split(back)), np.asarray(random.split(raw)))


def test_weak_arrays_still_round_trip():
    back = pickle.loads(pickle.dumps(jnp.asarray(1.0)))
    assert back.weak_type and back.dtype == np.float32 and float(back) == 1.0


# ---------------------------------------------------------------------------
# == and !=


def _expected_eq(a, b):
    return (_data(a) == _data(b)).all(-1)


EQ_CASES = {
    "same": lambda k, ks: (k, k),
    "other seed": lambda k, ks: (k, random.key(1)),
    "vector": lambda k, ks: (ks, ks),
    "scalar vs vector": lambda k, ks: (ks[0], ks),
    "outer": lambda k, ks: (ks[:, None], ks[None, :]),
    "empty": lambda k, ks: (ks[:0], ks[:0]),
}


# vmap maps both operands over a shared leading axis.
_VMAPPABLE = {"vector", "empty"}


@pytest.mark.parametrize("case, mode", [(c, m) for c in sorted(EQ_CASES) for m in ("eager", "jit", "vmap")
                                        if m != "vmap" or c in _VMAPPABLE])
def test_key_equality(case, mode):
    a, b = EQ_CASES[case](random.key(0), random.split(random.key(0), 3))
    expected = np.broadcast_to(_expected_eq(a, b), np.broadcast_shapes(a.shape, b.shape))
    eq, ne = (lambda x, y: x == y), (lambda x, y: x != y)
    if mode == "jit":
        eq, ne = jax.jit(eq), jax.jit(ne)
    elif mode == "vmap":
        eq, ne = jax.vmap(eq), jax.vmap(ne)
    for fn, want in ((eq, expected), (ne, ~expected)):
        out = fn(a, b)
        assert out.dtype == np.bool_ and out.shape == want.shape
        np.testing.assert_array_equal(np.asarray(out), want)


def test_key_equality_functions_and_jaxpr():
    k, ks = random.key(0), random.split(random.key(0), 3)
    assert bool(jnp.equal(k, k)) and bool(lax.eq(k, k)) and not bool(lax.ne(k, k))
    assert bool(jnp.array_equal(ks, ks)) and not bool(jnp.array_equal(ks, k))
    text = str(jax.make_jaxpr(lambda a, b: a != b)(ks, k))
    assert text == "{ lambda ; a:key<fry>[3] b:key<fry>[]. let c:bool[3] = ne a b in (c,) }"


# ---------------------------------------------------------------------------
# What keys refuse, with JAX 0.11's errors


def _other_impl_key():
    # An implementation of another name: its keys have another dtype.
    impl = prng.PRNGImpl(key_shape=(2,), seed=None, split=None, random_bits=None, fold_in=None,
                         name="other", tag="oth")
    return prng.random_wrap(jnp.zeros(2, jnp.uint32), impl=impl)


REFUSALS = [
    (lambda k: k == 1, TypeError, "equal does not accept dtypes key<fry>, int32."),
    (lambda k: 1 == k, TypeError, "equal does not accept dtypes key<fry>, int32."),
    (lambda k: k == 1.0, TypeError, "equal does not accept dtypes key<fry>, float32."),
    (lambda k: k == np.uint32(0), TypeError, "equal does not accept dtypes key<fry>, uint32."),
    (lambda k: k == random.PRNGKey(0), TypeError, "equal does not accept dtypes key<fry>, uint32."),
    (lambda k: k == _other_impl_key(), TypeError, "equal does not accept dtypes key<fry>, key<oth>."),
    (lambda k: k + 1, TypeError, "add does not accept dtypes key<fry>, int32."),
    (lambda k: 1 + k, TypeError, "add does not accept dtypes int32, key<fry>."),
    (lambda k: k * 2, TypeError, "multiply does not accept dtypes key<fry>, int32."),
    (lambda k: jax.jit(lambda a: a + 1)(k), TypeError, "add does not accept dtypes key<fry>, int32."),
    (lambda k: k.astype(jnp.float32), NotImplementedError, "Cannot call abstract method astype"),
    (lambda k: k.astype(jnp.uint32), NotImplementedError, "Cannot call abstract method astype"),
    (lambda k: k.astype(k.dtype), NotImplementedError, "Cannot call abstract method astype"),
    (lambda k: jax.jit(lambda a: a.astype(jnp.float32))(k), ValueError,
     "Cannot convert_element_type from key<fry> to float32"),
    (lambda k: jax.vmap(lambda a: a.astype(jnp.float32))(random.split(k)), ValueError,
     "Cannot convert_element_type from key<fry> to float32"),
    (lambda k: jnp.asarray(k, jnp.float32), ValueError, "Cannot convert_element_type from key<fry> to float32"),
    (lambda k: jnp.asarray(k, jnp.uint32), ValueError, "Cannot convert_element_type from key<fry> to uint32"),
    (lambda k: jnp.asarray(k, bool), ValueError, "Cannot convert_element_type from key<fry> to bool"),
    (lambda k: jnp.array(random.split(k, 3), jnp.float32), ValueError,
     "Cannot convert_element_type from key<fry> to float32"),
    (lambda k: jnp.astype(k, jnp.float32), ValueError, "Cannot convert_element_type from key<fry> to float32"),
    (lambda k: lax.convert_element_type(k, jnp.float32), ValueError,
     "Cannot convert_element_type from key<fry> to float32"),
    (lambda k: jax.jit(lambda a: lax.convert_element_type(a, jnp.uint32))(k), ValueError,
     "Cannot convert_element_type from key<fry> to uint32"),
    (lambda k: lax.convert_element_type(jnp.zeros(2, jnp.uint32), k.dtype), ValueError,
     "Cannot convert_element_type from uint32 to key<fry>"),
    (lambda k: jnp.asarray(jnp.zeros(2, jnp.uint32), k.dtype), ValueError,
     "Cannot convert_element_type from uint32 to key<fry>"),
    (lambda k: lax.convert_element_type(k, _other_impl_key().dtype), ValueError,
     "cannot directly convert between extended dtypes: from key<fry> to key<oth>. Instead, convert to and "
     "from their representation dtypes, e.g.:\nkey<fry> -> uint32 -> uint32 -> key<oth>"),
    (lambda k: random.fold_in(k, k), ValueError, "Cannot convert_element_type from key<fry> to uint32"),
    (lambda k: np.asarray(k), TypeError,
     "JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use jax.random.key_data(arr) if you "
     "wish to extract the underlying integer array."),
    (lambda k: bool(k), TypeError, "key array cannot be converted to boolean."),
    (lambda k: k < k, TypeError, "lt does not accept dtype key<fry> at position 0."),
    (lambda k: -k, TypeError, "neg does not accept dtype key<fry>."),
    (lambda k: random.split(k, 3) == random.split(k, 2), TypeError,
     "eq got incompatible shapes for broadcasting: (3,), (2,)."),
]


@pytest.mark.parametrize("index", range(len(REFUSALS)))
def test_keys_refuse_with_jax_errors(index):
    fn, error, message = REFUSALS[index]
    with pytest.raises(error) as info:
        fn(random.key(0))
    assert str(info.value).startswith(message)


def test_keys_stay_keys_where_jax_keeps_them():
    k = random.key(0)
    for same in (jnp.asarray(k), jnp.array(k), jnp.asarray(k, k.dtype), lax.convert_element_type(k, k.dtype)):
        assert same.dtype == k.dtype and same.shape == ()
        np.testing.assert_array_equal(_data(same), _data(k))
    assert f"{k}" == str(k) == repr(k)
    struct = jax.ShapeDtypeStruct((), k.dtype)
    assert struct.dtype == k.dtype
    assert jax.eval_shape(lambda key: random.split(key), struct).dtype == k.dtype
    assert jax.eval_shape(lambda key: random.normal(key), struct).dtype == np.float32


# ---------------------------------------------------------------------------
# Integer counts: operator.index, as JAX


@pytest.mark.parametrize("num, message", [
    (2.0, "'float' object cannot be interpreted as an integer"),
    ((2.0,), "'float' object cannot be interpreted as an integer"),
    (np.float32(2), "'numpy.float32' object cannot be interpreted as an integer"),
    (jnp.float32(2), "Only integer scalar arrays can be converted to a scalar index."),
    ("2", "'str' object cannot be interpreted as an integer"),
    (None, "'NoneType' object cannot be interpreted as an integer"),
])
@pytest.mark.parametrize("kind", ["typed", "raw"])
def test_split_num_must_be_an_integer(num, message, kind):
    key = random.key(0) if kind == "typed" else random.PRNGKey(0)
    with pytest.raises(TypeError) as info:
        random.split(key, num)
    assert str(info.value) == message


@pytest.mark.parametrize("num, shape", [(np.int32(2), (2,)), (jnp.int32(2), (2,)), (True, (1,)), ([2, 3], (2, 3))])
def test_split_num_integers(num, shape):
    assert random.split(random.key(0), num).shape == shape


def test_fold_in_and_choice_take_what_jax_takes():
    k = random.key(0)
    # fold_in converts data to uint32 as jnp.asarray does; Python ints out of range raise.
    np.testing.assert_array_equal(_data(random.fold_in(k, 2.0)), _data(random.fold_in(k, 2)))
    for bad in (-1, 2**33):
        with pytest.raises(OverflowError, match=f"Python integer {bad} out of bounds for uint32"):
            random.fold_in(k, bad)
    # choice takes int(a) of a scalar population (JAX's concrete_or_error(int, a)).
    np.testing.assert_array_equal(np.asarray(random.choice(k, 5.0, (4,))), np.asarray(random.choice(k, 5, (4,))))
    np.testing.assert_array_equal(np.asarray(random.choice(k, 2.5, (4,))), np.asarray(random.choice(k, 2, (4,))))
    with pytest.raises(TypeError, match="x must be an integer or at least 1-dimensional"):
        random.permutation(k, 5.0)


# ---------------------------------------------------------------------------
# 0-d operands keep 0-d buffers


def _public_xla_math():
    for name, fn in sorted(vars(xla_math).items()):
        if not name.startswith("_") and callable(fn) and getattr(fn, "__module__", None) == xla_math.__name__:
            yield name, fn


XLA_MATH = dict(_public_xla_math())


def test_xla_math_inventory():
    # A new function here must be covered by the 0-d test below (its output dtype).
    assert set(XLA_MATH) == {"erf_f32", "erf_inv_f32", "erf_inv_f64", "exp_f64", "fma_f64", "log1p_f32",
                             "log1p_f64", "log_f32", "log_f64", "pow_f64", "rsqrt_estimate_f32", "rsqrt_f32"}


@pytest.mark.parametrize("form", ["0-d array", "numpy scalar"])
@pytest.mark.parametrize("in_dtype", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(XLA_MATH))
def test_xla_math_keeps_0d(name, in_dtype, form):
    fn = XLA_MATH[name]
    arg = np.array(0.5, in_dtype) if form == "0-d array" else np.array(0.5, in_dtype)[()]
    nargs = len(inspect.signature(fn).parameters)
    with np.errstate(all="ignore"):
        out = fn(*([arg] * nargs))
    assert np.shape(out) == ()
    assert np.asarray(out).dtype == (np.float32 if name.endswith("_f32") else np.float64)


# Every lax operation whose impl reaches xla_math (and the other special
# functions beside it), on 0-d operands of each float dtype.
UNARY_OPS = {
    "exp": lax.exp, "log": lax.log, "log1p": lax.log1p, "rsqrt": lax.rsqrt, "erf": lax.erf,
    "erf_inv": lax.erf_inv, "erfc": lax.erfc, "lgamma": lax.lgamma, "digamma": lax.digamma,
    "logistic": lax.logistic, "expm1": lax.expm1, "tanh": lax.tanh, "sqrt": lax.sqrt, "cbrt": lax.cbrt,
    "bessel_i0e": lax.bessel_i0e, "bessel_i1e": lax.bessel_i1e,
}
BINARY_OPS = {"pow": lax.pow, "igamma": lax.igamma, "igammac": lax.igammac, "atan2": lax.atan2,
              "nextafter": lax.nextafter, "zeta": lax.zeta}
DTYPES = ["float16", "bfloat16", "float32", "float64"]


def _check_like_aval(out):
    buffer = np.asarray(out)
    assert buffer.shape == out.shape
    assert buffer.dtype == out.dtype


def _run_everywhere(fn, *args):
    """fn(*args) eagerly, under jit, and as a scan body; every result's buffer is checked."""
    outs = [fn(*args), jax.jit(fn)(*args)]

    def body(carry, _):
        y = fn(*args)
        return carry + y.astype(carry.dtype), y

    carry, ys = lax.scan(body, jnp.zeros((), outs[0].dtype), None, length=3)
    outs += [carry, ys[0]]
    for out in outs:
        assert out.shape == outs[0].shape and out.dtype == outs[0].dtype
        _check_like_aval(out)
    _check_like_aval(ys)
    assert ys.shape == (3, *outs[0].shape)
    return outs


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(UNARY_OPS) + sorted(BINARY_OPS))
def test_lax_special_ops_keep_0d(name, dtype):
    with jax.enable_x64(dtype == "float64"):
        x = jnp.asarray(0.5, dtype)
        if name in BINARY_OPS:
            y = jnp.asarray(1.5 if name == "zeta" else 0.25, dtype)
            outs = _run_everywhere(BINARY_OPS[name], x, y)
        else:
            outs = _run_everywhere(UNARY_OPS[name], x)
        assert outs[0].shape == () and outs[0].dtype == np.dtype(dtype)


SAMPLERS = {
    "normal": lambda k, d: random.normal(k, (), d),
    "uniform": lambda k, d: random.uniform(k, (), d),
    "truncated_normal": lambda k, d: random.truncated_normal(k, -1.0, 1.0, (), d),
    "exponential": lambda k, d: random.exponential(k, (), d),
    "gamma": lambda k, d: random.gamma(k, 2.0, (), d),
    "beta": lambda k, d: random.beta(k, 2.0, 3.0, (), d),
    "t": lambda k, d: random.t(k, 3.0, (), d),
    "cauchy": lambda k, d: random.cauchy(k, (), d),
    "laplace": lambda k, d: random.laplace(k, (), d),
    "logistic": lambda k, d: random.logistic(k, (), d),
    "gumbel": lambda k, d: random.gumbel(k, (), d),
    "chisquare": lambda k, d: random.chisquare(k, 2.0, (), d),
    "weibull_min": lambda k, d: random.weibull_min(k, 1.0, 2.0, (), d),
    "lognormal": lambda k, d: random.lognormal(k, 0.5, (), d),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_scalar_draws_keep_0d(name, dtype):
    with jax.enable_x64(dtype == "float64"):
        sampler = SAMPLERS[name]
        key = random.key(0)
        outs = _run_everywhere(lambda: sampler(key, dtype))
        assert outs[0].shape == () and outs[0].dtype == np.dtype(dtype)

        # A scan whose body draws one scalar from the key it is handed (issue 19's report).
        def body(total, k):
            return total + sampler(k, dtype), sampler(k, dtype)

        total, draws = lax.scan(body, jnp.zeros((), dtype), random.split(key, 4))
        _check_like_aval(total)
        _check_like_aval(draws)
        assert draws.shape == (4,)
        eager = [np.asarray(sampler(k, dtype)) for k in random.split(key, 4)]
        np.testing.assert_array_equal(np.asarray(draws), np.array(eager, dtype))
