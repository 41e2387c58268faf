"""Scalar types of pyjax.numpy: `jnp.float32` is a dtype-like class that
builds a strongly-typed Array when called, as in JAX (`jnp.float32(3)`)."""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes


class _ScalarMeta(type):
    def __hash__(cls):
        return hash(cls.dtype.type)

    def __eq__(cls, other):
        return id(cls) == id(other) or other is cls.dtype.type or other == cls.dtype

    def __ne__(cls, other):
        return not cls == other

    def __call__(cls, x):
        from pyjax._src.numpy.creation import array

        return array(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance):
        return isinstance(instance, cls.dtype.type)


def _make_scalar_type(name: str, numpy_type) -> type:
    return _ScalarMeta(name, (object,), {"dtype": np.dtype(numpy_type), "__module__": "pyjax.numpy"})


bool_ = _make_scalar_type("bool", np.bool_)
uint8 = _make_scalar_type("uint8", np.uint8)
uint16 = _make_scalar_type("uint16", np.uint16)
uint32 = _make_scalar_type("uint32", np.uint32)
uint64 = _make_scalar_type("uint64", np.uint64)
int8 = _make_scalar_type("int8", np.int8)
int16 = _make_scalar_type("int16", np.int16)
int32 = _make_scalar_type("int32", np.int32)
int64 = _make_scalar_type("int64", np.int64)
float16 = _make_scalar_type("float16", np.float16)
float32 = _make_scalar_type("float32", np.float32)
float64 = _make_scalar_type("float64", np.float64)
bfloat16 = _make_scalar_type("bfloat16", dtypes.bfloat16)
complex64 = _make_scalar_type("complex64", np.complex64)
complex128 = _make_scalar_type("complex128", np.complex128)
int_ = int64
uint = uint64
float_ = float64
complex_ = complex128
