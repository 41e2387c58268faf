"""The dtypes JAX adds to NumPy's: their names and the families they fall in.

``bfloat16``, the ``float8_*``/``float6_*``/``float4_*`` family, ``int4`` and
the other narrow integers (from ml_dtypes), ``float0`` (the tangent dtype of
integer and bool primals), the abstract scalar classes ``extended`` /
``prng_key`` with ``ExtendedDType``, and the sets of dtypes by kind that
canonicalisation, ``issubdtype`` and the promotion lattice (dtypes.py) read.
"""

from __future__ import annotations

import abc
from typing import Any

import ml_dtypes
import numpy as np

DType = np.dtype
DTypeLike = Any

# --- names ------------------------------------------------------------------------


class extended(np.generic):
    """Scalar class for extended dtypes.

    Abstract, never instantiated: it exists so that
    ``issubdtype(key.dtype, dtypes.extended)`` is True for PRNG key arrays and
    other dtypes that are not NumPy's.
    """


class prng_key(extended):
    """Scalar class for PRNG key dtypes: ``issubdtype(key.dtype, dtypes.prng_key)``."""


class ExtendedDType(abc.ABC):
    """Base class of dtypes that NumPy does not know (e.g. PRNG key dtypes).

    A subclass names its scalar class (a subclass of ``extended``) as ``type``
    and may carry the rules that say how arrays of it lower (``_rules``).
    """

    _rules: Any = None

    @property
    @abc.abstractmethod
    def type(self) -> type: ...


bfloat16: type[np.generic] = ml_dtypes.bfloat16
float8_e3m4: type[np.generic] = ml_dtypes.float8_e3m4
float8_e4m3: type[np.generic] = ml_dtypes.float8_e4m3
float8_e8m0fnu: type[np.generic] = ml_dtypes.float8_e8m0fnu
float8_e4m3b11fnuz: type[np.generic] = ml_dtypes.float8_e4m3b11fnuz
float8_e4m3fn: type[np.generic] = ml_dtypes.float8_e4m3fn
float8_e4m3fnuz: type[np.generic] = ml_dtypes.float8_e4m3fnuz
float8_e5m2: type[np.generic] = ml_dtypes.float8_e5m2
float8_e5m2fnuz: type[np.generic] = ml_dtypes.float8_e5m2fnuz
float6_e2m3fn: type[np.generic] = ml_dtypes.float6_e2m3fn
float6_e3m2fn: type[np.generic] = ml_dtypes.float6_e3m2fn
float4_e2m1fn: type[np.generic] = ml_dtypes.float4_e2m1fn
int2: type[np.generic] = ml_dtypes.int2
uint2: type[np.generic] = ml_dtypes.uint2
int4: type[np.generic] = ml_dtypes.int4
uint4: type[np.generic] = ml_dtypes.uint4
# Older ml_dtypes releases lack the 1-bit integers.
int1: type[np.generic] | None = getattr(ml_dtypes, "int1", None)
uint1: type[np.generic] | None = getattr(ml_dtypes, "uint1", None)

bool_ = np.bool_
int_: type = np.int64
uint: type = np.uint64
float_: type = np.float64
complex_: type = np.complex128

float0: np.dtype = np.dtype([("float0", np.void, 0)])

# fmt: off
_FLOAT8_TYPES = (float8_e3m4, float8_e4m3, float8_e8m0fnu, float8_e4m3b11fnuz,
                 float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz)
# fmt: on
_FLOAT6_TYPES = (float6_e2m3fn, float6_e3m2fn)
_FLOAT4_TYPES = (float4_e2m1fn,)
_CUSTOM_FLOAT_TYPES = (float4_e2m1fn, *_FLOAT6_TYPES, *_FLOAT8_TYPES, bfloat16)
_SIGNED_NARROW_TYPES = tuple(t for t in (int1, int2, int4) if t is not None)
_UNSIGNED_NARROW_TYPES = tuple(t for t in (uint1, uint2, uint4) if t is not None)

_float8_dtypes = frozenset(np.dtype(t) for t in _FLOAT8_TYPES)
_float6_dtypes = frozenset(np.dtype(t) for t in _FLOAT6_TYPES)
_float4_dtypes = frozenset(np.dtype(t) for t in _FLOAT4_TYPES)
_custom_float_dtypes = frozenset(np.dtype(t) for t in _CUSTOM_FLOAT_TYPES)
_intn_dtypes = frozenset(
    np.dtype(t) for t in _SIGNED_NARROW_TYPES + _UNSIGNED_NARROW_TYPES
)

_bool_dtypes = [np.dtype(bool)]
_unsigned_dtypes = [np.dtype(t) for t in _UNSIGNED_NARROW_TYPES] + [
    np.dtype(n) for n in ("uint8", "uint16", "uint32", "uint64")
]
_signed_dtypes = [np.dtype(t) for t in _SIGNED_NARROW_TYPES] + [
    np.dtype(n) for n in ("int8", "int16", "int32", "int64")
]
_float_dtypes = [np.dtype(t) for t in _CUSTOM_FLOAT_TYPES] + [
    np.dtype(n) for n in ("float16", "float32", "float64")
]
_complex_dtypes = [np.dtype("complex64"), np.dtype("complex128")]
_numeric_dtypes = (
    _bool_dtypes + _unsigned_dtypes + _signed_dtypes + _float_dtypes + _complex_dtypes
)

string_dtype = np.dtypes.StringDType()
# Every dtype an array may have (extended dtypes aside).
_jax_dtype_set = frozenset({float0, string_dtype, *_numeric_dtypes})
