"""jax.numpy's dtype helpers and constants: finfo / iinfo, issubdtype,
isdtype, can_cast, result_type and promote_types (JAX's promotion lattice,
weak types, x64 off), the callable scalar types (jnp.float32(1.5) makes an
array), the abstract type hierarchy, and the constants.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from helpers import check_close

import pyjax
import pyjax.numpy as jnp
from pyjax._src import core


@pytest.mark.parametrize("dtype", [np.float16, np.float32, jnp.bfloat16, np.complex64])
def test_finfo(dtype):
    info = jnp.finfo(dtype)
    ref = ml_dtypes.finfo(ml_dtypes.bfloat16) if dtype is jnp.bfloat16 else np.finfo(dtype)
    assert float(info.eps) == float(ref.eps)
    assert float(info.max) == float(ref.max)
    assert float(info.tiny) == float(ref.tiny)
    assert info.bits == ref.bits


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.uint32, bool])
def test_iinfo(dtype):
    if dtype is bool:
        with pytest.raises(ValueError):
            jnp.iinfo(dtype)
        return
    assert jnp.iinfo(dtype).max == np.iinfo(dtype).max
    assert jnp.iinfo(dtype).min == np.iinfo(dtype).min
    assert jnp.iinfo(jnp.zeros(2, dtype)).bits == np.iinfo(dtype).bits


def test_issubdtype_and_isdtype():
    assert jnp.issubdtype(jnp.bfloat16, jnp.floating)
    assert jnp.issubdtype(jnp.bfloat16, jnp.inexact)
    assert not jnp.issubdtype(jnp.bfloat16, np.float16)
    assert jnp.issubdtype(np.int8, jnp.signedinteger) and jnp.issubdtype(np.uint16, jnp.unsignedinteger)
    assert jnp.issubdtype(np.complex64, jnp.complexfloating) and not jnp.issubdtype(np.float32, jnp.complexfloating)
    assert jnp.issubdtype(jnp.int4, jnp.integer)
    assert jnp.isdtype(np.float32, "real floating") and jnp.isdtype(jnp.bfloat16, "real floating")
    assert jnp.isdtype(np.int8, ("integral", "bool")) and not jnp.isdtype(np.int8, "unsigned integer")
    assert jnp.isdtype(np.complex64, "complex floating") and jnp.isdtype(bool, "bool")
    assert jnp.isdtype(np.uint8, "numeric")
    with pytest.raises(ValueError, match="Unrecognized kind='bogus' expected one of \\['bool', 'signed integer'"):
        jnp.isdtype(np.int8, "bogus")


PROMOTIONS = [
    (np.int8, np.uint8, np.int16), (np.uint8, np.int32, np.int32), (np.int32, np.float16, np.float16),
    (jnp.bfloat16, np.float16, np.float32), (np.int64, np.float32, np.float32), (bool, np.int8, np.int8),
    (np.uint32, np.int8, np.int32), (np.float32, np.complex64, np.complex64), (jnp.bfloat16, np.int32, jnp.bfloat16),
    (np.float64, np.complex64, np.complex128), (np.uint64, np.int8, np.float64),
]


@pytest.mark.parametrize("a,b,want", PROMOTIONS)
def test_promote_types(a, b, want):
    # JAX's lattice (not NumPy's): e.g. bfloat16 with float16 is float32 and an
    # unsigned 64-bit integer with a signed one is a float.
    assert jnp.promote_types(a, b) == np.dtype(want)
    assert jnp.promote_types(b, a) == np.dtype(want)


def test_result_type():
    # With x64 off, 64-bit results are canonicalised to 32-bit.
    assert jnp.result_type(np.int8, np.uint32) == np.int32
    assert jnp.result_type(np.float64) == np.float32
    # Python scalars are weakly typed: they take the other operand's type.
    assert jnp.result_type(jnp.ones(2, np.float16), 2.0) == np.float16
    assert jnp.result_type(jnp.ones(2, np.int8), 3) == np.int8
    assert jnp.result_type(jnp.ones(2, np.int8), 3.0) == np.float32
    assert jnp.result_type(2, 3.0) == np.float32
    assert jnp.result_type(1j, jnp.bfloat16) == np.complex64
    with pytest.raises(ValueError, match="at least one array or dtype is required"):
        jnp.result_type()


def test_can_cast():
    assert jnp.can_cast(np.int8, np.int16) and not jnp.can_cast(np.int16, np.int8)
    assert jnp.can_cast(np.float32, np.int8, casting="unsafe")
    assert not jnp.can_cast(np.float32, np.int32, casting="same_kind")


def test_scalar_types_are_callable():
    x = jnp.float32(1.5)
    assert isinstance(x, pyjax.Array) and x.dtype == np.float32 and x.shape == ()
    assert not core.get_aval(x).weak_type
    check_close(jnp.int8([1, 2, 300 - 256]), np.array([1, 2, 44], np.int8))
    check_close(jnp.bfloat16(np.arange(3)), np.arange(3).astype(ml_dtypes.bfloat16))
    assert jnp.float64(1.0).dtype == np.float32  # x64 is off
    assert jnp.bool_(3).dtype == np.bool_ and bool(jnp.bool_(3))
    assert jnp.complex64(2).dtype == np.complex64
    assert jnp.dtype(jnp.float32) == np.float32 and jnp.dtype("bfloat16") == ml_dtypes.bfloat16
    assert jnp.zeros(2, jnp.int4).dtype == ml_dtypes.int4
    check_close(pyjax.jit(lambda v: jnp.float16(v))(np.array([1.25], np.float32)), np.array([1.25], np.float16))
    assert jnp.float32.dtype == np.float32
    # The scalar types are JAX's own classes; the hierarchy is queried through dtypes.
    assert not issubclass(jnp.float32, jnp.floating)
    assert jnp.issubdtype(jnp.float32, jnp.floating) and jnp.issubdtype(jnp.uint8, jnp.number)
    assert jnp.ndarray is pyjax.Array and isinstance(jnp.ones(2), jnp.ndarray)


def test_constants():
    assert jnp.pi == np.pi and jnp.e == np.e and jnp.euler_gamma == np.euler_gamma
    assert np.isinf(jnp.inf) and np.isnan(jnp.nan) and jnp.newaxis is None
    assert jnp.bool is jnp.bool_ and jnp.int_ is jnp.int64 and jnp.float_ is jnp.float64
    assert jnp.complex_ is jnp.complex128 and jnp.uint is jnp.uint64
    assert jnp.single is jnp.float32 and jnp.double is jnp.float64
    assert jnp.csingle is jnp.complex64 and jnp.cdouble is jnp.complex128


def test_printoptions_and_repr():
    with jnp.printoptions(precision=2):
        assert "1.23" in repr(jnp.array([1.23456]))
    assert jnp.get_printoptions()["precision"] == np.get_printoptions()["precision"]
    assert jnp.array_str(np.array([1, 2])) == "[1 2]"
