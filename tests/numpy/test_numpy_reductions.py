"""jax.numpy reductions against NumPy.

Every reduction on every input dtype (result dtypes or errors as JAX 0.11
gives them, recorded below), over several axes, eagerly and under jit; then
keepdims, dtype=, where=, initial=, ddof/correction, the NaN-ignoring
variants on data with NaNs, cumulative reductions (include_initial),
arg-reductions, JAX's errors, and a hypothesis layer over random shapes and
axes.
"""

from __future__ import annotations

import warnings
import zlib

import ml_dtypes
import numpy as np
import pytest
from helpers import check_close, check_jit_matches_eager
from hypothesis import given, settings
from hypothesis import strategies as st

import pyjax
import pyjax.numpy as jnp

DTYPES = ["bool", "int8", "uint8", "int32", "float16", "bfloat16", "float32", "complex64"]
SHORT = {"b": "bool", "i8": "int8", "u8": "uint8", "i32": "int32", "u32": "uint32", "f16": "float16",
         "bf16": "bfloat16", "f32": "float32", "c64": "complex64"}

# Result dtype of f(x, axis=0) per input dtype (in DTYPES' order), from JAX
# 0.11. "-": not checked here (arg-reductions of complex values fail only
# when XLA lowers the comparison, which this backend does not model).
TABLE = {
    "sum": "i32 i32 u32 i32 f16 bf16 f32 c64",
    "prod": "i32 i32 u32 i32 f16 bf16 f32 c64",
    "mean": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "var": "f32 f32 f32 f32 f16 bf16 f32 f32",
    "std": "f32 f32 f32 f32 f16 bf16 f32 f32",
    "min": "b i8 u8 i32 f16 bf16 f32 c64",
    "max": "b i8 u8 i32 f16 bf16 f32 c64",
    "amin": "b i8 u8 i32 f16 bf16 f32 c64",
    "amax": "b i8 u8 i32 f16 bf16 f32 c64",
    "all": "b b b b b b b b",
    "any": "b b b b b b b b",
    "argmin": "i32 i32 i32 i32 i32 i32 i32 -",
    "argmax": "i32 i32 i32 i32 i32 i32 i32 -",
    "ptp": "TypeError i8 u8 i32 f16 bf16 f32 c64",
    "count_nonzero": "i32 i32 i32 i32 i32 i32 i32 i32",
    "cumsum": "i32 i8 u8 i32 f16 bf16 f32 c64",
    "cumprod": "i32 i8 u8 i32 f16 bf16 f32 c64",
    "cumulative_sum": "i32 i32 u32 i32 f16 bf16 f32 c64",
    "cumulative_prod": "i32 i8 u8 i32 f16 bf16 f32 c64",
    "nansum": "i32 i32 u32 i32 f16 bf16 f32 c64",
    "nanprod": "i32 i32 u32 i32 f16 bf16 f32 c64",
    "nanmean": "f32 f32 f32 f32 f16 bf16 f32 c64",
    "nanvar": "f32 f32 f32 f32 f16 bf16 f32 f32",
    "nanstd": "f32 f32 f32 f32 f16 bf16 f32 f32",
    "nanmin": "b i8 u8 i32 f16 bf16 f32 c64",
    "nanmax": "b i8 u8 i32 f16 bf16 f32 c64",
    "nanargmin": "i32 i32 i32 i32 i32 i32 i32 -",
    "nanargmax": "i32 i32 i32 i32 i32 i32 i32 -",
    "nancumsum": "i32 i8 u8 i32 f16 bf16 f32 c64",
    "nancumprod": "i32 i8 u8 i32 f16 bf16 f32 c64",
    "median": "f32 f32 f32 f32 f16 bf16 f32 ValueError",
    "nanmedian": "f32 f32 f32 f32 f16 bf16 f32 ValueError",
    "average": "f32 f32 f32 f32 f16 bf16 f32 c64",
}

# Axes each function accepts (cumulative and arg-reductions take one axis).
SINGLE_AXIS = {"argmin", "argmax", "nanargmin", "nanargmax", "cumsum", "cumprod", "cumulative_sum",
               "cumulative_prod", "nancumsum", "nancumprod"}
AXES = [None, 0, -1, (0, 2)]


def np_dtype(name):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def sample(dtype, rng, shape=(3, 4, 5)):
    dt = np_dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) > 0.3
    if dt.kind in "iu":
        # Small magnitudes keep products inside every integer type.
        return rng.integers(0 if dt.kind == "u" else -2, 3, shape).astype(dt)
    values = rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape)
    if dt.kind == "c":
        values = values + 1j * rng.uniform(-1, 1, shape)
    return values.astype(dt)


def reference(name, x, axis, out_dtype):
    """NumPy's result for `name`, in double precision, as JAX's dtype."""
    wide = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
    exact_ops = {"min", "max", "amin", "amax", "ptp", "nanmin", "nanmax", "all", "any", "argmin", "argmax",
                 "nanargmin", "nanargmax", "count_nonzero"}
    if name in exact_ops:
        # Order statistics are exact: computed on the values themselves.
        wide = x.astype(np.float64) if x.dtype == ml_dtypes.bfloat16 else x
    elif np.dtype(out_dtype).kind in "biu":
        wide = x.astype(np.int64)
    fn = {"cumulative_sum": np.cumulative_sum, "cumulative_prod": np.cumulative_prod}.get(name) or getattr(np, name)
    if name in ("cumulative_sum", "cumulative_prod") and axis is None:
        wide, axis = wide.reshape(-1), 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(wide, axis=axis)
    return np.asarray(out).astype(np_dtype(out_dtype))


CASES = [pytest.param(name, dtype, axis)
         for name in sorted(TABLE) for dtype in DTYPES
         for axis in ([None, 0, -1] if name in SINGLE_AXIS else AXES)]


@pytest.mark.parametrize("name,dtype,axis", CASES)
def test_reduction_matches_numpy(name, dtype, axis):
    expected_dtype = dict(zip(DTYPES, TABLE[name].split(), strict=True))[dtype]
    if expected_dtype == "-":
        pytest.skip("complex arg-reductions fail in XLA's lowering, not modelled here")
    rng = np.random.default_rng(zlib.crc32(f"{name}{dtype}{axis}".encode()))
    x = sample(dtype, rng)
    fn = getattr(jnp, name)
    if expected_dtype in ("TypeError", "ValueError"):
        with pytest.raises({"TypeError": TypeError, "ValueError": ValueError}[expected_dtype]):
            fn(jnp.asarray(x), axis=axis)
        return
    out_dtype = SHORT[expected_dtype]
    if name in ("cumulative_sum", "cumulative_prod") and axis is None:
        x = x[0, 0]  # these need an axis for arrays of more than one dimension
    out = fn(jnp.asarray(x), axis=axis)
    rtol = atol = None
    if out_dtype in ("float32", "complex64"):
        rtol, atol = 1e-5, 1e-5
    check_close(out, reference(name, x, axis, out_dtype), dtype=np_dtype(out_dtype), rtol=rtol, atol=atol,
                err_msg=f"{name}({dtype}, axis={axis})")
    check_jit_matches_eager(lambda a: fn(a, axis=axis), jnp.asarray(x))


X = np.random.default_rng(1).normal(size=(3, 4, 5)).astype(np.float32)


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "var", "std", "min", "max", "all", "any", "ptp",
                                  "nansum", "nanmean", "nanmax", "median", "count_nonzero"])
@pytest.mark.parametrize("axis", [None, 1, (0, 2)])
def test_keepdims(name, axis):
    out = getattr(jnp, name)(X, axis=axis, keepdims=True)
    check_close(out, getattr(np, name)(X, axis=axis, keepdims=True).astype(np.asarray(out).dtype),
                rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "var", "std", "min", "max", "all", "any",
                                  "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmin", "nanmax"])
def test_where_matches_numpy(name):
    where = np.random.default_rng(2).random(X.shape) > 0.4
    kwargs = {"initial": 0.0} if name in ("min", "max", "nanmin", "nanmax") else {}
    out = getattr(jnp, name)(X, axis=1, where=where, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = getattr(np, name)(X, axis=1, where=where, **kwargs)
    check_close(out, expected.astype(np.asarray(out).dtype), rtol=1e-5, atol=1e-6)


def test_initial():
    check_close(jnp.sum(X, initial=10.0), np.sum(X, initial=10.0), rtol=1e-5)
    check_close(jnp.prod(X, axis=0, initial=2.0), np.prod(X, axis=0, initial=2.0), rtol=1e-5)
    check_close(jnp.max(X, axis=2, initial=0.5), np.max(X, axis=2, initial=0.5))
    check_close(jnp.min(jnp.zeros((0, 3)), axis=0, initial=4.0), np.full(3, 4.0, np.float32))
    with pytest.raises(ValueError, match="zero-size array to reduction operation max which has no identity"):
        jnp.max(jnp.zeros((0, 3)), axis=0)


def test_dtype_argument():
    ints = np.arange(12, dtype=np.int8).reshape(3, 4)
    check_close(jnp.sum(ints, dtype=np.int8), np.sum(ints, dtype=np.int8))
    check_close(jnp.sum(ints, axis=0, dtype=np.float32), np.sum(ints, axis=0, dtype=np.float32))
    check_close(jnp.mean(ints, dtype=np.float16), np.mean(ints, dtype=np.float16), rtol=1e-3)
    check_close(jnp.cumsum(ints, axis=1, dtype=np.int32), np.cumsum(ints, axis=1, dtype=np.int32))
    check_close(jnp.prod(X, axis=0, dtype=jnp.bfloat16), np.prod(X, axis=0).astype(ml_dtypes.bfloat16))
    # An integer sum does not promote to the widest type when asked not to.
    assert jnp.sum(ints, promote_integers=False).dtype == np.int8


@pytest.mark.parametrize("ddof", [0, 1, 2])
def test_var_std_ddof_and_correction(ddof):
    check_close(jnp.var(X, axis=0, ddof=ddof), np.var(X, axis=0, ddof=ddof), rtol=1e-5, atol=1e-6)
    check_close(jnp.std(X, axis=(1, 2), ddof=ddof), np.std(X, axis=(1, 2), ddof=ddof), rtol=1e-5)
    check_close(jnp.var(X, correction=ddof), np.var(X, correction=ddof), rtol=1e-5)
    with pytest.raises(ValueError, match="ddof and correction can't be provided simultaneously."):
        jnp.var(X, ddof=1, correction=1)
    mean = np.mean(X, axis=1, keepdims=True)
    check_close(jnp.var(X, axis=1, mean=mean, ddof=ddof), np.var(X, axis=1, mean=mean, ddof=ddof), rtol=1e-5)


NAN_X = X.copy()
NAN_X[0, 1, :] = np.nan
NAN_X[1, :, 2] = np.nan
NAN_X[2, 0, 0] = np.nan


@pytest.mark.parametrize("name", ["nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmin", "nanmax",
                                  "nanargmin", "nanargmax", "nancumsum", "nancumprod", "nanmedian"])
@pytest.mark.parametrize("axis", [None, 0, 2])
def test_nan_variants_ignore_nans(name, axis):
    if name in ("nanargmin", "nanargmax") and axis == 2:
        pytest.skip("an all-NaN slice: NumPy raises, JAX gives -1 (test_all_nan_slices)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = getattr(np, name)(NAN_X, axis=axis)
    out = getattr(jnp, name)(NAN_X, axis=axis)
    check_close(out, np.asarray(expected).astype(np.asarray(out).dtype), rtol=1e-5, atol=1e-6)


def test_all_nan_slices():
    a = np.array([[np.nan, np.nan], [1.0, np.nan]], np.float32)
    check_close(jnp.nanmax(a, axis=1), np.array([np.nan, 1.0], np.float32))
    check_close(jnp.nanmean(a, axis=1), np.array([np.nan, 1.0], np.float32))
    check_close(jnp.nansum(a, axis=1), np.array([0.0, 1.0], np.float32))
    # JAX gives -1 for an all-NaN slice (NumPy raises).
    check_close(jnp.nanargmax(a, axis=1), np.array([-1, 0], np.int32))


@pytest.mark.parametrize("name", ["argmin", "argmax"])
def test_arg_reductions(name):
    x = np.array([[3, 1, 1], [0, 5, 5]], np.int32)
    check_close(getattr(jnp, name)(x), getattr(np, name)(x).astype(np.int32))
    check_close(getattr(jnp, name)(x, axis=1), getattr(np, name)(x, axis=1).astype(np.int32))
    check_close(getattr(jnp, name)(x, axis=0, keepdims=True), getattr(np, name)(x, axis=0, keepdims=True).astype(np.int32))
    # NaN wins, as in NumPy.
    f = np.array([1.0, np.nan, 3.0], np.float32)
    assert int(getattr(jnp, name)(f)) == 1
    with pytest.raises(ValueError, match=f"attempt to get {name} of an empty sequence"):
        getattr(jnp, name)(jnp.zeros(0))


def test_cumulative_include_initial_and_reverse_axes():
    x = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
    check_close(jnp.cumulative_sum(x, axis=1, include_initial=True),
                np.cumulative_sum(x, axis=1, include_initial=True).astype(np.int32))
    check_close(jnp.cumulative_prod(x, axis=0, include_initial=True),
                np.cumulative_prod(x, axis=0, include_initial=True).astype(np.int32))
    check_close(jnp.cumsum(x), np.cumsum(x).astype(np.int32))
    with pytest.raises(ValueError, match="The input array has rank 2, however axis was not set to an explicit "
                       "value. The axis argument is only optional for one-dimensional arrays."):
        jnp.cumulative_sum(x)


def test_count_nonzero_and_ptp():
    x = np.array([[0, 1, 2], [0, 0, 3]], np.int32)
    check_close(jnp.count_nonzero(x, axis=0), np.count_nonzero(x, axis=0).astype(np.int32))
    check_close(jnp.count_nonzero(x), np.int32(3))
    check_close(jnp.ptp(x, axis=1), np.ptp(x, axis=1).astype(np.int32))


def test_reduction_errors():
    with pytest.raises(ValueError, match="axis 3 is out of bounds for array of dimension 3"):
        jnp.sum(X, axis=3)
    with pytest.raises(ValueError, match=r"duplicate value in 'axis': \(0, 0\)"):
        jnp.sum(X, axis=(0, 0))
    with pytest.raises(NotImplementedError, match="The 'out' argument to jnp.sum is not supported."):
        jnp.sum(X, out=X)
    with pytest.raises(ValueError, match=r"jnp.sum: where must be None or a boolean array; "
                       r"got where.dtype=dtype\('int32'\)."):
        jnp.sum(X, where=np.ones(X.shape, np.int32))
    with pytest.raises(ValueError, match="repeated axis"):
        jnp.median(X, axis=(0, 0))
    # The axis must be static: passing it through jit traces it.
    with pytest.raises(pyjax.errors.ConcretizationTypeError, match="The axis argument must be known statically."):
        pyjax.jit(lambda x, a: jnp.sum(x, axis=a))(X, 0)


def test_gradients_of_reductions():
    x = np.array([[1.0, 2.0, 3.0], [4.0, -1.0, 0.5]], np.float32)
    check_close(pyjax.grad(lambda a: jnp.mean(a))(x), np.full(x.shape, 1 / 6, np.float32))
    check_close(pyjax.grad(lambda a: jnp.max(a))(x), (x == x.max()).astype(np.float32))
    check_close(pyjax.grad(lambda a: jnp.var(a))(x), (2 * (x - x.mean()) / x.size).astype(np.float32), rtol=1e-5)
    check_close(pyjax.grad(lambda a: jnp.prod(a))(x), (np.prod(x) / x).astype(np.float32), rtol=1e-5)
    check_close(pyjax.grad(lambda a: jnp.sum(jnp.cumsum(a, axis=1)))(x),
                np.array([[3.0, 2.0, 1.0]] * 2, np.float32))


# ---------------------------------------------------------------------------
# hypothesis: random shapes and axes


@st.composite
def shapes_and_axes(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=4)))
    if not shape or draw(st.booleans()):
        axis = None if not shape or draw(st.booleans()) else draw(st.integers(-len(shape), len(shape) - 1))
    else:
        axis = tuple(sorted(draw(st.sets(st.integers(0, len(shape) - 1), min_size=1))))
    return shape, axis


@settings(max_examples=120, deadline=None)
@given(shapes_and_axes(), st.sampled_from(["sum", "prod", "mean", "max", "min", "var", "std", "any", "all",
                                            "nansum", "ptp"]),
       st.booleans(), st.integers(0, 2**31 - 1))
def test_hypothesis_reductions(case, name, keepdims, seed):
    shape, axis = case
    x = np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float32)
    out = getattr(jnp, name)(x, axis=axis, keepdims=keepdims)
    expected = getattr(np, name)(x.astype(np.float64), axis=axis, keepdims=keepdims)
    check_close(out, np.asarray(expected).astype(np.asarray(out).dtype), rtol=2e-5, atol=2e-5)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple), st.integers(0, 2**31 - 1),
       st.sampled_from(["cumsum", "cumprod", "argmax", "argmin", "nancumsum"]))
def test_hypothesis_single_axis(shape, seed, name):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, shape).astype(np.float32)
    axis = int(rng.integers(-len(shape), len(shape)))
    out = getattr(jnp, name)(x, axis=axis)
    check_close(out, np.asarray(getattr(np, name)(x, axis=axis)).astype(np.asarray(out).dtype), rtol=1e-5, atol=1e-5)
