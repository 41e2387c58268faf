"""jax.numpy's elementwise functions against NumPy, for every input dtype
JAX accepts (bool, int8, uint8, int32, float16, bfloat16, float32,
complex64).

The result dtype of each function on each input dtype (or the error JAX
raises) is the table JAX 0.11 gives, written out below; the values are
compared with NumPy evaluated in double precision (or in the integer dtype
itself, where the result is an integer) at the tolerance of the result
dtype. Every case is also run under jit, which must agree with eager mode
in shape, dtype, weak type and value.
"""

from __future__ import annotations

import zlib

import ml_dtypes
import numpy as np
import pytest
from helpers import check_close, check_jit_matches_eager

import pyjax.numpy as jnp

DTYPES = ["bool", "int8", "uint8", "int32", "float16", "bfloat16", "float32", "complex64"]
SHORT = {"b": "bool", "i8": "int8", "u8": "uint8", "i32": "int32", "f16": "float16",
         "bf16": "bfloat16", "f32": "float32", "c64": "complex64"}
ERRORS = {"TypeError": TypeError, "ValueError": ValueError}

# Result dtype per input dtype (in DTYPES' order), as JAX 0.11 gives it.
UNARY = {
    "abs": "b i8 u8 i32 f16 bf16 f32 f32",
    "absolute": "b i8 u8 i32 f16 bf16 f32 f32",
    "acos": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "acosh": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "angle": "f32 f32 f32 f32 f16 bf16 f32 f32",
    "arccos": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "arccosh": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "arcsin": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "arcsinh": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "arctan": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "arctanh": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "asin": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "asinh": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "atan": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "atanh": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "bitwise_count": "u8 u8 u8 u8 TypeError TypeError TypeError TypeError",
    "bitwise_invert": "b i8 u8 i32 TypeError TypeError TypeError TypeError",
    "bitwise_not": "b i8 u8 i32 TypeError TypeError TypeError TypeError",
    "cbrt": "f32 f32 f32 f32 f16 bf16 f32 TypeError",
    "ceil": "b i8 u8 i32 f16 bf16 f32 TypeError",
    "conj": "b i8 u8 i32 f16 bf16 f32 c64",
    "conjugate": "b i8 u8 i32 f16 bf16 f32 c64",
    "cos": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "cosh": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "deg2rad": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "degrees": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "exp": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "exp2": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "expm1": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "fabs": "f32 f32 f32 f32 f16 bf16 f32 TypeError",
    "floor": "b i8 u8 i32 f16 bf16 f32 TypeError",
    "i0": "f32 f32 f32 f32 f16 bf16 f32 ValueError",
    "imag": "b i8 u8 i32 f16 bf16 f32 f32",
    "invert": "b i8 u8 i32 TypeError TypeError TypeError TypeError",
    "iscomplex": "b b b b b b b b",
    "isfinite": "b b b b b b b b",
    "isinf": "b b b b b b b b",
    "isnan": "b b b b b b b b",
    "isneginf": "b b b b b b b ValueError",
    "isposinf": "b b b b b b b ValueError",
    "isreal": "b b b b b b b b",
    "log": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "log10": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "log1p": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "log2": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "logical_not": "b b b b b b b b",
    "nan_to_num": "b i8 u8 i32 f16 bf16 f32 c64",
    "negative": "TypeError i8 u8 i32 f16 bf16 f32 c64",
    "positive": "b i8 u8 i32 f16 bf16 f32 c64",
    "rad2deg": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "radians": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "real": "b i8 u8 i32 f16 bf16 f32 f32",
    "reciprocal": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "rint": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "round": "ValueError i8 u8 i32 f16 bf16 f32 c64",
    "around": "ValueError i8 u8 i32 f16 bf16 f32 c64",
    "sign": "TypeError i8 u8 i32 f16 bf16 f32 c64",
    "signbit": "b b b b b b b ValueError",
    "sin": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "sinc": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "sinh": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "spacing": "f32 f32 f32 f32 f16 bf16 f32 ValueError",
    "sqrt": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "square": "i32 i8 u8 i32 f16 bf16 f32 c64",
    "tan": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "tanh": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "trunc": "b i8 u8 i32 f16 bf16 f32 TypeError",
}

BINARY = {
    "add": "b i8 u8 i32 f16 bf16 f32 c64",
    "subtract": "TypeError i8 u8 i32 f16 bf16 f32 c64",
    "multiply": "b i8 u8 i32 f16 bf16 f32 c64",
    "divide": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "true_divide": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "floor_divide": "i32 i8 u8 i32 f16 bf16 f32 TypeError",
    "mod": "i32 i8 u8 i32 f16 bf16 f32 TypeError",
    "remainder": "i32 i8 u8 i32 f16 bf16 f32 TypeError",
    "fmod": "i32 i8 u8 i32 f16 bf16 f32 TypeError",
    "power": "i32 i8 u8 i32 f16 bf16 f32 c64",
    "pow": "i32 i8 u8 i32 f16 bf16 f32 c64",
    "float_power": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "arctan2": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "atan2": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "hypot": "f32 f32 f32 f32 f16 bf16 f32 ValueError",
    "copysign": "f32 f32 f32 f32 f16 bf16 f32 TypeError",
    "maximum": "b i8 u8 i32 f16 bf16 f32 c64",
    "minimum": "b i8 u8 i32 f16 bf16 f32 c64",
    "fmax": "b i8 u8 i32 f16 bf16 f32 c64",
    "fmin": "b i8 u8 i32 f16 bf16 f32 c64",
    "logaddexp": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "logaddexp2": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "nextafter": "f32 f32 f32 f32 f16 bf16 f32 TypeError",
    "heaviside": "f32 f32 f32 f32 f16 bf16 f32 TypeError",
    "equal": "b b b b b b b b",
    "not_equal": "b b b b b b b b",
    "less": "b b b b b b b b",
    "less_equal": "b b b b b b b b",
    "greater": "b b b b b b b b",
    "greater_equal": "b b b b b b b b",
    "logical_and": "b b b b b b b b",
    "logical_or": "b b b b b b b b",
    "logical_xor": "b b b b b b b b",
    "bitwise_and": "b i8 u8 i32 TypeError TypeError TypeError TypeError",
    "bitwise_or": "b i8 u8 i32 TypeError TypeError TypeError TypeError",
    "bitwise_xor": "b i8 u8 i32 TypeError TypeError TypeError TypeError",
    "left_shift": "i32 i8 u8 i32 TypeError TypeError TypeError TypeError",
    "right_shift": "i32 i8 u8 i32 TypeError TypeError TypeError TypeError",
    "bitwise_left_shift": "i32 i8 u8 i32 TypeError TypeError TypeError TypeError",
    "bitwise_right_shift": "i32 i8 u8 i32 TypeError TypeError TypeError TypeError",
    "gcd": "ValueError i8 u8 i32 ValueError ValueError ValueError ValueError",
    "lcm": "ValueError i8 u8 i32 ValueError ValueError ValueError ValueError",
    "divmod": "i32,i32 i8,i8 u8,u8 i32,i32 f16,f16 bf16,bf16 f32,f32 TypeError",
}

# Multiple-output unary functions.
UNARY_MULTI = {
    "frexp": "f32,i32 f32,i32 f32,i32 f32,i32 f16,i32 bf16,i32 f32,i32 TypeError",
    "modf": "f32,f32 f32,f32 f32,f32 f32,f32 f16,f16 bf16,bf16 f32,f32 TypeError",
}

# NumPy names where they differ from jax.numpy's.
NUMPY_NAME = {"around": "round", "bitwise_invert": "invert", "bitwise_left_shift": "left_shift",
              "bitwise_right_shift": "right_shift"}

# Input domains, chosen inside each function's domain and away from poles and
# branch cuts, so that both libraries are well conditioned there.
DOMAIN = {
    "acos": "unit", "arccos": "unit", "asin": "unit", "arcsin": "unit", "atanh": "unit",
    "arctanh": "unit", "acosh": "ge1", "arccosh": "ge1", "log": "pos", "log10": "pos",
    "log2": "pos", "log1p": "pos", "sqrt": "pos", "reciprocal": "nonzero", "tan": "unit",
    "isfinite": "special", "isinf": "special", "isnan": "special", "isneginf": "special",
    "isposinf": "special", "nan_to_num": "special", "signbit": "signed", "spacing": "any",
    "floor_divide": "nonzero", "mod": "nonzero", "remainder": "nonzero", "fmod": "nonzero",
    "divmod": "nonzero", "divide": "nonzero", "true_divide": "nonzero", "power": "exponent",
    "pow": "exponent", "float_power": "exponent", "left_shift": "shift", "right_shift": "shift",
    "bitwise_left_shift": "shift", "bitwise_right_shift": "shift", "gcd": "any", "lcm": "any",
}

# Functions computed in single precision by transcendental approximations: a
# few ulps of difference from NumPy's double-precision result are expected.
APPROX = {"acos", "acosh", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "asin",
          "asinh", "atan", "atanh", "cbrt", "cos", "cosh", "exp", "exp2", "expm1", "i0", "log",
          "log10", "log1p", "log2", "sin", "sinc", "sinh", "tan", "tanh", "arctan2", "atan2",
          "hypot", "logaddexp", "logaddexp2", "power", "pow", "float_power", "sqrt", "reciprocal",
          "divide", "true_divide", "angle", "sign"}

RNG = np.random.default_rng(0)


def np_dtype(name):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def expectations(table, name):
    return dict(zip(DTYPES, table[name].split(), strict=True))


def sample(domain, dtype, rng, shape=(3, 4), second=False):
    """Values of `dtype` in `domain` (see DOMAIN)."""
    dt = np_dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(bool) if domain not in ("nonzero", "pos", "ge1") \
            else np.ones(shape, bool)
    if dt.kind in "iu":
        low = 0 if dt.kind == "u" else -4
        lows = {"pos": 1, "ge1": 1, "nonzero": 1, "unit": max(low, -1), "exponent": 0, "shift": 0}
        highs = {"unit": 1, "exponent": 4, "shift": dt.itemsize * 8}
        values = rng.integers(lows.get(domain, low), highs.get(domain, 6), shape)
        if domain == "nonzero" and dt.kind == "i" and second:
            values = values * rng.choice([-1, 1], shape)
        return values.astype(dt)
    if domain == "special":
        values = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0, 3e4] * 2).reshape(4, 4)
    elif domain == "shift":
        values = rng.uniform(0, 3, shape)
    else:
        bounds = {"unit": (-0.9, 0.9), "pos": (0.2, 4.0), "ge1": (1.1, 4.0), "exponent": (0.3, 2.5),
                  "nonzero": (0.5, 3.0), "signed": (-3, 3)}
        values = rng.uniform(*bounds.get(domain, (-3.0, 3.0)), shape)
        if domain == "nonzero":
            values = values * rng.choice([-1, 1], shape)
    if dt.kind == "c":
        imag = rng.uniform(-0.5, 0.5, values.shape) if domain != "special" else np.zeros(values.shape)
        return (values + 1j * imag).astype(dt)
    return values.astype(dt)


# References for inputs NumPy's own function rejects but JAX accepts
# (complex angles and complex log-sum-exp), written from their definitions.
COMPLEX_REFERENCE = {
    "deg2rad": lambda x: x * (np.pi / 180), "radians": lambda x: x * (np.pi / 180),
    "rad2deg": lambda x: x * (180 / np.pi), "degrees": lambda x: x * (180 / np.pi),
    "arctan2": lambda x, y: -1j * np.log((y + 1j * x) / np.sqrt(x * x + y * y)),
    "atan2": lambda x, y: -1j * np.log((y + 1j * x) / np.sqrt(x * x + y * y)),
    "logaddexp": lambda x, y: np.log(np.exp(x) + np.exp(y)),
    "logaddexp2": lambda x, y: np.log2(2 ** x + 2 ** y),
}


def numpy_reference(name, args, out_dtypes):
    """NumPy's values for `name` on `args`, as arrays of JAX's result dtypes."""
    fn = getattr(np, NUMPY_NAME.get(name, name))
    if args[0].dtype.kind == "c" and name in COMPLEX_REFERENCE:
        fn = COMPLEX_REFERENCE[name]
    if name == "nan_to_num" and args[0].dtype == ml_dtypes.bfloat16:
        top = float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)
        return [np.nan_to_num(args[0].astype(np.float32), posinf=top, neginf=-top).astype(args[0].dtype)]
    if name == "positive" and args[0].dtype == np.bool_:
        fn = np.copy  # NumPy refuses unary + on booleans; JAX returns the input
    exact = all(np.dtype(d).kind in "biu" for d in out_dtypes)
    if name == "bitwise_count":
        args = [a.astype(np.uint8) if a.dtype == np.bool_ else a for a in args]
    elif exact:
        # Integer results: NumPy in the result dtype itself (same wrap-around).
        args = [a.astype(out_dtypes[0]) if a.dtype == np.bool_ and out_dtypes[0] != "bool" else a
                for a in args]
    else:
        args = [a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
                if a.dtype.kind not in "biu" or name not in ("heaviside",) else a.astype(np.float64)
                for a in args]
        if name in ("frexp", "modf", "spacing", "nextafter", "nan_to_num"):
            # Functions of the representation: evaluated in the input's own format.
            args = [a.astype(np_dtype(out_dtypes[0])) for a in args]
    with np.errstate(all="ignore"):
        out = fn(*args) if name != "heaviside" else fn(args[0], args[1])
    outs = out if isinstance(out, tuple) else (out,)
    return [np.asarray(o).astype(np_dtype(d)) for o, d in zip(outs, out_dtypes, strict=True)]


def check_case(name, args, expected, dtype_name):
    fn = getattr(jnp, name)
    if expected in ERRORS:
        with pytest.raises(ERRORS[expected]):
            fn(*[jnp.asarray(a) for a in args])
        return
    out_dtypes = [SHORT[t] for t in expected.split(",")]
    jargs = [jnp.asarray(a) for a in args]
    result = fn(*jargs)
    results = result if isinstance(result, tuple) else (result,)
    assert len(results) == len(out_dtypes)
    for r, ref, d in zip(results, numpy_reference(name, args, out_dtypes), out_dtypes, strict=True):
        rtol = atol = None
        if name in APPROX and d in ("float32", "complex64"):
            rtol, atol = 1e-5, 1e-5
        check_close(r, ref, dtype=np_dtype(d), rtol=rtol, atol=atol, err_msg=f"{name}({dtype_name})")
    check_jit_matches_eager(fn, *jargs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(UNARY) + sorted(UNARY_MULTI))
def test_unary(name, dtype):
    table = UNARY if name in UNARY else UNARY_MULTI
    rng = np.random.default_rng(zlib.crc32(f"{name}{dtype}".encode()))
    x = sample(DOMAIN.get(name, "any"), dtype, rng)
    check_case(name, [x], expectations(table, name)[dtype], dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name, dtype):
    rng = np.random.default_rng(zlib.crc32(f"{name}{dtype}".encode()))
    domain = DOMAIN.get(name, "any")
    x = sample("any" if domain in ("nonzero", "shift") else domain, dtype, rng)
    if domain == "exponent" and np_dtype(dtype).kind in "fc":
        x = sample("pos", dtype, rng)
    y = sample(domain, dtype, rng, second=True)
    check_case(name, [x, y], expectations(BINARY, name)[dtype], dtype)


@pytest.mark.parametrize("dtype", ["int32", "float16", "bfloat16", "float32"])
def test_ldexp(dtype):
    x = sample("any", dtype, RNG)
    e = RNG.integers(-3, 4, x.shape).astype(np.int32)
    out = jnp.ldexp(jnp.asarray(x), jnp.asarray(e))
    want = "float32" if dtype == "int32" else dtype
    check_close(out, np.ldexp(x.astype(np.float64), e).astype(np_dtype(want)), dtype=np_dtype(want))
    with pytest.raises(ValueError):
        jnp.ldexp(jnp.ones(2, np.complex64), jnp.ones(2, np.int32))
    with pytest.raises(ValueError, match=r"ldexp not supported for input types \(dtype\('float32'\), dtype\('float32'\)\)"):
        jnp.ldexp(jnp.ones(2), jnp.ones(2))  # the exponent must be an integer


def test_binary_broadcasting_and_scalars():
    x = RNG.normal(size=(3, 1, 4)).astype(np.float32)
    y = RNG.normal(size=(5, 1)).astype(np.float32)
    check_close(jnp.add(x, y), x + y)
    check_close(jnp.arctan2(x, y), np.arctan2(x, y), rtol=1e-5, atol=1e-6)
    # A Python scalar is weakly typed: it takes the array's dtype.
    assert jnp.multiply(jnp.ones(2, jnp.bfloat16), 3.0).dtype == jnp.bfloat16
    assert jnp.add(jnp.ones(2, np.int8), 3).dtype == np.int8
    assert jnp.add(jnp.ones(2, np.int8), 3.0).dtype == np.float32
    assert jnp.add(jnp.ones(2, np.uint8), jnp.ones(2, np.int8)).dtype == np.int16
    assert jnp.add(jnp.ones(2, jnp.bfloat16), jnp.ones(2, np.float16)).dtype == np.float32


def test_integer_edge_cases_follow_jax():
    a = np.array([7, -7, 7, -7, 0], np.int32)
    b = np.array([2, 2, -2, -2, 3], np.int32)
    check_close(jnp.floor_divide(a, b), np.floor_divide(a, b))
    check_close(jnp.remainder(a, b), np.remainder(a, b))
    check_close(jnp.fmod(a, b), np.fmod(a, b))
    # A static negative exponent is an error for integers (integer_pow); a
    # traced one gives 0 except for bases of magnitude 1.
    with pytest.raises(TypeError, match=r"Integers cannot be raised to negative powers, got integer_pow\(int32\[3\], -2\)"):
        jnp.power(jnp.arange(3), -2)
    check_close(jnp.power(np.array([1, -1, 2], np.int32), np.array([-2, -3, -1], np.int32)), np.array([1, -1, 0], np.int32))
    check_close(jnp.power(np.arange(4, dtype=np.int32), 3), np.arange(4, dtype=np.int32) ** 3)
    check_close(jnp.gcd(np.array([12, -18, 0], np.int32), np.array([8, 12, 5], np.int32)), np.array([4, 6, 5], np.int32))
    check_close(jnp.lcm(np.array([4, -6, 0], np.int32), np.array([6, 4, 5], np.int32)), np.array([12, 12, 0], np.int32))


def test_nan_to_num_parameters():
    x = np.array([np.nan, np.inf, -np.inf, 1.0], np.float32)
    check_close(jnp.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0), np.nan_to_num(x, nan=-1.0, posinf=9.0, neginf=-9.0))
    z = np.array([complex(np.nan, np.inf), 1 + 2j], np.complex64)
    check_close(jnp.nan_to_num(z), np.nan_to_num(z))


def test_rounding_functions():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.234567], np.float32)
    check_close(jnp.round(x), np.round(x))  # half to even, as NumPy
    check_close(jnp.round(x, 3), np.round(x, 3), rtol=1e-6)
    with pytest.raises(NotImplementedError, match="integer np.round not implemented for decimals < 0"):
        jnp.round(np.array([1234, -1251], np.int32), -2)
    check_close(jnp.rint(x), np.rint(x))
    check_close(jnp.trunc(x), np.trunc(x))


def test_sign_and_complex_helpers():
    z = np.array([3 + 4j, -1j, 0j], np.complex64)
    check_close(jnp.sign(z), np.sign(z))
    check_close(jnp.angle(z, deg=True), np.angle(z, deg=True), rtol=1e-6)
    assert bool(jnp.iscomplexobj(z)) and not jnp.isrealobj(z)
    assert jnp.isrealobj(np.ones(2)) and not jnp.iscomplexobj(np.ones(2))
    check_close(jnp.sort_complex(np.array([2 + 1j, 1 + 3j, 1 + 1j], np.complex64)),
                np.sort_complex(np.array([2 + 1j, 1 + 3j, 1 + 1j], np.complex64)))


def test_float_power_and_heaviside_mixed():
    x = np.array([-2.0, 0.0, 3.0], np.float32)
    check_close(jnp.heaviside(x, 0.5), np.heaviside(x, 0.5).astype(np.float32))
    check_close(jnp.float_power(np.array([2, 3], np.int32), 0.5), np.float_power([2, 3], 0.5).astype(np.float32),
                rtol=1e-6)


def test_unary_operators_on_arrays_match_functions():
    x = jnp.asarray(np.array([[1.5, -2.0], [0.0, 3.0]], np.float32))
    i = jnp.asarray(np.array([3, -4], np.int32))
    check_close(-x, np.negative(np.asarray(x)))
    check_close(abs(x), np.abs(np.asarray(x)))
    check_close(~i, np.invert(np.asarray(i)))
    check_close(x ** 2, np.asarray(x) ** 2)
    check_close(2 ** i.astype(np.float32), 2.0 ** np.asarray(i).astype(np.float32))
    check_close(x // 2, np.asarray(x) // 2)
    check_close(x % 2, np.asarray(x) % 2)
    check_close(i << 1, np.asarray(i) << 1)
    check_close(i >> 1, np.asarray(i) >> 1)
    check_close(i & 6, np.asarray(i) & 6)
    check_close(i | 1, np.asarray(i) | 1)
    check_close(i ^ 5, np.asarray(i) ^ 5)
    check_close(x @ x, np.asarray(x) @ np.asarray(x))
    check_close(divmod(i, 3)[1], np.divmod(np.asarray(i), 3)[1])
