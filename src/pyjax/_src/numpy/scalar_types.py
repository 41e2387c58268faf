"""Scalar types of pyjax.numpy: `jnp.float32` is a dtype-like class that
builds an Array when called (`jnp.float32(3)`), as in JAX, where scalars
are 0-d arrays. Equal to the NumPy scalar type, usable as a dtype, and an
isinstance check against NumPy scalars of that type.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import dispatch, dtypes


class _ScalarMeta(type):
    def __hash__(cls):
        return hash(cls.dtype.type)

    def __eq__(cls, other):
        return cls is other or cls.dtype.type == other

    def __ne__(cls, other):
        return not cls == other

    def __call__(cls, x):
        from pyjax._src.numpy.creation import asarray

        return asarray(x, dtype=cls.dtype)

    def __instancecheck__(cls, instance):
        return isinstance(instance, cls.dtype.type)


# An eager fast path (dispatch.fast_path) keys a scalar type option by its dtype.
dispatch.register_static_option_type(_ScalarMeta, lambda t: ("dtype", np.dtype(t.dtype)))


def _make_scalar_type(numpy_type) -> type:
    name = np.dtype(numpy_type).name if numpy_type is not np.bool_ else "bool"
    doc = (f"A JAX scalar constructor of type {name}.\n\nWhile NumPy defines scalar types for each data type, JAX "
           "represents scalars as zero-dimensional arrays.")
    return _ScalarMeta(name, (object,), {"dtype": np.dtype(numpy_type), "__module__": "pyjax.numpy", "__doc__": doc})


bool_ = _make_scalar_type(np.bool_)
uint1 = _make_scalar_type(dtypes.uint1)
uint2 = _make_scalar_type(dtypes.uint2)
uint4 = _make_scalar_type(dtypes.uint4)
uint8 = _make_scalar_type(np.uint8)
uint16 = _make_scalar_type(np.uint16)
uint32 = _make_scalar_type(np.uint32)
uint64 = _make_scalar_type(np.uint64)
int1 = _make_scalar_type(dtypes.int1)
int2 = _make_scalar_type(dtypes.int2)
int4 = _make_scalar_type(dtypes.int4)
int8 = _make_scalar_type(np.int8)
int16 = _make_scalar_type(np.int16)
int32 = _make_scalar_type(np.int32)
int64 = _make_scalar_type(np.int64)
float4_e2m1fn = _make_scalar_type(dtypes.float4_e2m1fn)
float6_e2m3fn = _make_scalar_type(dtypes.float6_e2m3fn)
float6_e3m2fn = _make_scalar_type(dtypes.float6_e3m2fn)
float8_e3m4 = _make_scalar_type(dtypes.float8_e3m4)
float8_e4m3 = _make_scalar_type(dtypes.float8_e4m3)
float8_e8m0fnu = _make_scalar_type(dtypes.float8_e8m0fnu)
float8_e4m3fn = _make_scalar_type(dtypes.float8_e4m3fn)
float8_e4m3fnuz = _make_scalar_type(dtypes.float8_e4m3fnuz)
float8_e5m2 = _make_scalar_type(dtypes.float8_e5m2)
float8_e5m2fnuz = _make_scalar_type(dtypes.float8_e5m2fnuz)
float8_e4m3b11fnuz = _make_scalar_type(dtypes.float8_e4m3b11fnuz)
bfloat16 = _make_scalar_type(dtypes.bfloat16)
float16 = _make_scalar_type(np.float16)
float32 = single = _make_scalar_type(np.float32)
float64 = double = _make_scalar_type(np.float64)
complex64 = csingle = _make_scalar_type(np.complex64)
complex128 = cdouble = _make_scalar_type(np.complex128)
int_ = int64
uint = uint64
float_ = float64
complex_ = complex128
