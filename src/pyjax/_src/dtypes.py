"""Dtypes: canonical dtypes, weak types and the type promotion lattice.

What lives here, top to bottom:

* the dtype names JAX adds to NumPy's (``bfloat16``, the ``float8_*`` family,
  ``int4`` ...), ``float0`` (the tangent dtype of integer/bool primals) and the
  abstract scalar classes ``extended`` / ``prng_key`` with ``ExtendedDType``,
  defined in dtype_names.py and public from here;
* canonicalisation: with ``jax_enable_x64`` off, 64-bit dtypes become their
  32-bit siblings (``canonicalize_dtype``, ``default_*_dtype``) and explicit
  requests for them warn (``check_and_canonicalize_user_dtype``);
* ``issubdtype`` / ``isdtype`` that know ``bfloat16`` is floating and
  ``prng_key`` is ``extended``;
* ``dtype(x)``: the dtype of a value; ``is_weakly_typed``;
* the promotion lattice: Python scalars are *weak* (``int``, ``float`` and
  ``complex`` are lattice nodes of their own, written ``i*``, ``f*``, ``c*`` in
  JAX's docs) and never widen a strongly-typed operand. ``promote_types``,
  ``result_type``, ``lattice_result_type`` and the memoised hot-path entry
  ``binary_promote`` all answer from it;
* ``short_dtype_name``: the abbreviations the jaxpr printer uses (``f32``, ``bf16``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from typing import Any

import ml_dtypes
import numpy as np

from pyjax._src import config
from pyjax._src.dtype_names import (  # noqa: F401 (re-exported: dtypes is their public home)
    bfloat16,
    bool_,
    complex_,
    DType,
    DTypeLike,
    extended,
    ExtendedDType,
    float0,
    float4_e2m1fn,
    float6_e2m3fn,
    float6_e3m2fn,
    float8_e3m4,
    float8_e4m3,
    float8_e4m3b11fnuz,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    float8_e8m0fnu,
    float_,
    int1,
    int2,
    int4,
    int_,
    prng_key,
    string_dtype,
    uint,
    uint1,
    uint2,
    uint4,
    _bool_dtypes,
    _complex_dtypes,
    _custom_float_dtypes,
    _CUSTOM_FLOAT_TYPES,
    _float4_dtypes,
    _float6_dtypes,
    _float8_dtypes,
    _float_dtypes,
    _intn_dtypes,
    _jax_dtype_set,
    _numeric_dtypes,
    _signed_dtypes,
    _SIGNED_NARROW_TYPES,
    _unsigned_dtypes,
    _UNSIGNED_NARROW_TYPES,
)

# --- defaults and canonicalisation -----------------------------------------------

# fmt: off
_TO_32_BIT = {np.dtype(wide): np.dtype(narrow) for wide, narrow in [
    ("int64", "int32"), ("uint64", "uint32"),
    ("float64", "float32"), ("complex128", "complex64")]}
# fmt: on

_enable_x64 = config.enable_x64


def default_int_dtype() -> DType:
    """The dtype of Python ints: int64 with x64 on, else int32."""
    return np.dtype(np.int64) if _enable_x64.value else np.dtype(np.int32)


def default_uint_dtype() -> DType:
    """The default unsigned integer dtype: uint64 with x64 on, else uint32."""
    return np.dtype(np.uint64) if _enable_x64.value else np.dtype(np.uint32)


def default_float_dtype() -> DType:
    """The dtype of Python floats: float64 with x64 on, else float32."""
    return np.dtype(np.float64) if _enable_x64.value else np.dtype(np.float32)


def default_complex_dtype() -> DType:
    """The dtype of Python complexes: complex128 with x64 on, else complex64."""
    return np.dtype(np.complex128) if _enable_x64.value else np.dtype(np.complex64)


default_types: dict[str, Callable[[], DType]] = {
    "b": lambda: np.dtype(bool),
    "i": default_int_dtype,
    "u": default_uint_dtype,
    "f": default_float_dtype,
    "c": default_complex_dtype,
}

_PYTHON_TYPE_DEFAULTS: dict[type, Callable[[], DType]] = {
    bool: lambda: np.dtype(bool),
    int: default_int_dtype,
    float: default_float_dtype,
    complex: default_complex_dtype,
}

python_scalar_types: frozenset[type] = frozenset({bool, int, float, complex})

# The dtype a Python scalar has before canonicalisation.
python_scalar_types_to_dtypes: dict[type, DType] = {
    bool: np.dtype("bool"),
    int: np.dtype("int64"),
    float: np.dtype("float64"),
    complex: np.dtype("complex128"),
}

# dtype-like -> (canonical with x64 off, canonical with x64 on).
_canonical_cache: dict[Any, tuple[DType, DType]] = {}


def _canonicalize_uncached(dtype: Any, allow_extended_dtype: bool) -> Any:
    if issubdtype(dtype, extended):
        if not allow_extended_dtype:
            raise ValueError(
                f"Internal: canonicalize_dtype called on extended dtype {dtype} "
                "with allow_extended_dtype=False"
            )
        return dtype
    try:
        np_dtype = np.dtype(dtype)
    except TypeError as err:
        raise TypeError(f"dtype {dtype!r} not understood") from err
    pair = (_TO_32_BIT.get(np_dtype, np_dtype), np_dtype)
    try:
        _canonical_cache[dtype] = pair
    except TypeError:  # unhashable dtype-like, e.g. a list spec
        pass
    return pair[_enable_x64.value]


def canonicalize_dtype(dtype: Any, allow_extended_dtype: bool = False) -> DType:
    """Converts a dtype to its canonical form under the current ``jax_enable_x64``.

    With x64 off, float64/int64/uint64/complex128 become float32/int32/uint32/
    complex64; with x64 on every dtype is its own canonical form.

    >>> canonicalize_dtype(np.float64)   # x64 off
    dtype('float32')
    """
    try:
        return _canonical_cache[dtype][_enable_x64.value]
    except (KeyError, TypeError):
        return _canonicalize_uncached(dtype, allow_extended_dtype)


_array_dtype_cache: dict = {}


def canonicalize_array_dtype(dtype: Any) -> DType:
    """The canonical dtype of an array value entering JAX (a NumPy array's
    aval), raising TypeError for a dtype no JAX array may have.

    A NumPy dtype in non-native byte order (``'>f4'`` on a little-endian
    machine) is no JAX dtype: JAX 0.11 refuses such arrays where they enter
    (`canonicalize_dtype` itself keeps them as they are)."""
    try:
        return _array_dtype_cache[dtype][_enable_x64.value]
    except (KeyError, TypeError):
        pass
    if not (dtype in _jax_dtype_set or issubdtype(dtype, extended)):
        raise TypeError(f"Dtype {dtype} is not a valid JAX array type. Only arrays of numeric types are supported by JAX.")
    pair = (dtype if issubdtype(dtype, extended) else _TO_32_BIT.get(dtype, dtype), dtype)
    try:
        _array_dtype_cache[dtype] = pair
    except TypeError:
        pass
    return pair[_enable_x64.value]


def _maybe_canonicalize_explicit_dtype(np_dtype: DType, fun_name: str) -> DType:
    """Applies ``jax_explicit_x64_dtypes`` to a dtype the user asked for by name."""
    mode = config.explicit_x64_dtypes.value
    if mode == config.ExplicitX64Mode.ALLOW or _enable_x64.value:
        return np_dtype
    canonical = canonicalize_dtype(np_dtype)
    if canonical == np_dtype:
        return np_dtype
    where = f" requested in {fun_name}" if fun_name else ""
    if mode == config.ExplicitX64Mode.ERROR:
        raise ValueError(
            f"Explicitly requested dtype {np_dtype}{where} is not available. To enable "
            "more dtypes, set the jax_enable_x64 or allow_explicit_x64_dtypes "
            "configuration options.See https://github.com/jax-ml/jax#current-gotchas "
            "for more."
        )
    warnings.warn(
        f"Explicitly requested dtype {np_dtype}{where} is not available, and will be "
        f"truncated to dtype {canonical.name}. To enable more dtypes, set the "
        "jax_enable_x64 configuration option or the JAX_ENABLE_X64 shell environment "
        "variable. See https://github.com/jax-ml/jax#current-gotchas for more.",
        stacklevel=4,
    )
    return canonical


def check_and_canonicalize_user_dtype(dtype: Any, fun_name: str | None = None) -> DType:
    """Checks a dtype passed by a user (``dtype=...``) and returns its canonical form.

    Python scalar types give their default dtype. An explicit 64-bit dtype while
    x64 is off warns and is truncated (per ``jax_explicit_x64_dtypes``).
    """
    if dtype is None:
        raise ValueError("dtype must be specified.")
    if hasattr(dtype, "aval") and hasattr(dtype, "shape"):
        raise ValueError(
            "Passing an array as a dtype argument is no longer "
            "supported; instead of dtype=arr use dtype=arr.dtype."
        )
    if issubdtype(dtype, extended):
        return dtype
    if isinstance(dtype, type) and dtype in _PYTHON_TYPE_DEFAULTS:
        return _PYTHON_TYPE_DEFAULTS[dtype]()
    np_dtype = np.dtype(dtype)
    if np_dtype not in _jax_dtype_set:
        where = f" in {fun_name}" if fun_name else ""
        raise TypeError(
            f"JAX only supports number, bool, and string dtypes, got dtype "
            f"{dtype}{where}"
        )
    return _maybe_canonicalize_explicit_dtype(np_dtype, fun_name or "")


def check_user_dtype_supported(dtype: Any, fun_name: str | None = None) -> None:
    """Warns (or raises) as ``check_and_canonicalize_user_dtype`` does; returns nothing."""
    if dtype is not None:
        check_and_canonicalize_user_dtype(dtype, fun_name)


def check_valid_dtype(dtype: DType) -> None:
    """Raises TypeError unless arrays may have ``dtype``."""
    if dtype not in _jax_dtype_set:
        raise TypeError(
            f"Dtype {dtype} is not a valid JAX array "
            "type. Only arrays of numeric types are supported by JAX."
        )


# --- dtype conversions ------------------------------------------------------------

# Narrow types go to float32 (as JAX does, for backward compatibility).
# fmt: off
_TO_INEXACT = {np.dtype(k): np.dtype(v) for k, v in [
    ("bool", "float32"), ("uint4", "float32"), ("int4", "float32"),
    ("uint8", "float32"), ("int8", "float32"), ("uint16", "float32"),
    ("int16", "float32"), ("uint32", "float32"), ("int32", "float32"),
    ("uint64", "float64"), ("int64", "float64")]}
# fmt: on


def to_numeric_dtype(dtype: DTypeLike) -> DType:
    """Promotes bool to int32; other dtypes are returned unchanged."""
    np_dtype = np.dtype(dtype)
    return np.dtype("int32") if np_dtype == np.dtype("bool") else np_dtype


def to_inexact_dtype(dtype: DTypeLike) -> DType:
    """Promotes bool/integer dtypes to a float dtype (64-bit ints to float64)."""
    np_dtype = np.dtype(dtype)
    return _TO_INEXACT.get(np_dtype, np_dtype)


def to_floating_dtype(dtype: DTypeLike) -> DType:
    """Promotes a dtype to a real floating dtype (complex gives its component)."""
    return finfo(to_inexact_dtype(dtype)).dtype


def to_complex_dtype(dtype: DTypeLike) -> DType:
    """The complex dtype wide enough for ``dtype``."""
    inexact = to_inexact_dtype(dtype)
    if inexact in (np.dtype("float64"), np.dtype("complex128")):
        return np.dtype("complex128")
    return np.dtype("complex64")


iinfo = ml_dtypes.iinfo
finfo = ml_dtypes.finfo


def supports_inf(dtype: DTypeLike) -> bool:
    """Whether ``dtype`` can represent infinity."""
    scalar_type = np.dtype(dtype).type
    if scalar_type in (
        float8_e4m3b11fnuz,
        float8_e4m3fn,
        float8_e4m3fnuz,
        float8_e5m2fnuz,
    ):
        return False
    return issubdtype(dtype, np.inexact)


def tangent_dtype(primal_dtype: Any) -> Any:
    """The dtype of tangents of ``primal_dtype``: float0 for bool and integer
    primals, the extended dtype's rule for extended dtypes, else itself."""
    if isinstance(primal_dtype, ExtendedDType):
        return primal_dtype._rules.tangent_dtype(primal_dtype)
    if not issubdtype(primal_dtype, np.inexact):
        return float0
    return primal_dtype


primal_dtype_to_tangent_dtype = tangent_dtype


def itemsize_bits(dtype: DTypeLike) -> int:
    """Number of bits per element of ``dtype`` (bool counts as 8)."""
    if dtype is None:
        raise ValueError("dtype cannot be None.")
    if dtype == np.dtype(bool):
        return 8
    if issubdtype(dtype, np.integer):
        return iinfo(dtype).bits
    if issubdtype(dtype, np.floating):
        return finfo(dtype).bits
    if issubdtype(dtype, np.complexfloating):
        return 2 * finfo(dtype).bits
    raise ValueError(f"unexpected input: {dtype=}")


# --- issubdtype / isdtype -----------------------------------------------------------

_FLOAT_PARENTS = frozenset({np.floating, np.inexact, np.number, np.generic})
_SIGNED_PARENTS = frozenset({np.signedinteger, np.integer, np.number, np.generic})
_UNSIGNED_PARENTS = frozenset({np.unsignedinteger, np.integer, np.number, np.generic})


def _is_subclass(a: Any, b: Any) -> bool:
    return isinstance(a, type) and issubclass(a, b)


def _scalar_type(x: Any) -> type:
    return x if _is_subclass(x, np.generic) else np.dtype(x).type


def _issubdtype_uncached(a: Any, b: Any) -> bool:
    if _is_subclass(b, extended):
        if isinstance(a, ExtendedDType):
            return _is_subclass(a.type, b)
        return _is_subclass(_scalar_type(a), b)
    if isinstance(b, ExtendedDType):
        return isinstance(a, ExtendedDType) and a == b
    if isinstance(a, ExtendedDType):
        a = a.type
    a_type, b_type = _scalar_type(a), _scalar_type(b)
    # ml_dtypes' scalar types sit outside NumPy's class hierarchy.
    if a_type in _CUSTOM_FLOAT_TYPES:
        return b_type is a_type or b_type in _FLOAT_PARENTS
    if a_type in _SIGNED_NARROW_TYPES:
        return b_type is a_type or b_type in _SIGNED_PARENTS
    if a_type in _UNSIGNED_NARROW_TYPES:
        return b_type is a_type or b_type in _UNSIGNED_PARENTS
    return bool(np.issubdtype(a_type, b_type))


_issubdtype_cache: dict[tuple[Any, Any], bool] = {}


def issubdtype(
    a: DTypeLike | ExtendedDType | None, b: DTypeLike | ExtendedDType | None
) -> bool:
    """Returns True if ``a`` is lower than or equal to ``b`` in the type hierarchy.

    Like :func:`numpy.issubdtype`, but knows JAX's extra dtypes:
    ``issubdtype(bfloat16, np.floating)`` and
    ``issubdtype(key_dtype, dtypes.prng_key)`` are True.
    """
    if not isinstance(a, (type, np.dtype, ExtendedDType)):
        a = np.dtype(a)
    if not isinstance(b, (type, np.dtype, ExtendedDType)):
        b = np.dtype(b)
    key = (a, b)
    try:
        return _issubdtype_cache[key]
    except KeyError:
        result = _issubdtype_cache[key] = _issubdtype_uncached(a, b)
        return result
    except TypeError:  # unhashable extended dtype
        return _issubdtype_uncached(a, b)


_DTYPE_KINDS: dict[str, frozenset[DType]] = {
    "bool": frozenset(_bool_dtypes),
    "signed integer": frozenset(_signed_dtypes),
    "unsigned integer": frozenset(_unsigned_dtypes),
    "integral": frozenset(_signed_dtypes + _unsigned_dtypes),
    "real floating": frozenset(_float_dtypes),
    "complex floating": frozenset(_complex_dtypes),
    "numeric": frozenset(
        _signed_dtypes + _unsigned_dtypes + _float_dtypes + _complex_dtypes
    ),
}


def isdtype(
    dtype: DTypeLike, kind: str | DTypeLike | tuple[str | DTypeLike, ...]
) -> bool:
    """Whether ``dtype`` is of ``kind``: a dtype, a kind name such as
    ``'real floating'`` or ``'integral'``, or a tuple of those."""
    the_dtype = np.dtype(dtype)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    options: set[DType] = set()
    for one_kind in kinds:
        if isinstance(one_kind, str) and one_kind in _DTYPE_KINDS:
            options.update(_DTYPE_KINDS[one_kind])
            continue
        try:
            options.add(np.dtype(one_kind))
        except TypeError as err:
            if isinstance(one_kind, str):
                raise ValueError(  # noqa: TRY004 -- JAX raises ValueError here
                    f"Unrecognized kind={one_kind!r} expected one of {list(_DTYPE_KINDS)}, "
                    "or a compatible input for jnp.dtype()"
                ) from None
            raise TypeError(
                f"Expected kind to be a dtype, string, or tuple; got kind={one_kind!r}"
            ) from err
    return the_dtype in options


# --- the dtype of a value -----------------------------------------------------------


def _is_jax_value(x: Any) -> bool:
    """Arrays and tracers carry an aval; their dtype is never re-canonicalised."""
    return hasattr(x, "aval") and hasattr(x, "dtype")


def dtype(x: Any, *, canonicalize: bool = False) -> DType:
    """Returns the dtype of a value, a scalar type or a dtype-like.

    Python scalars and scalar types give JAX's defaults: ``int`` is int64 and
    ``float`` float64 before canonicalisation. With ``canonicalize=True`` the
    answer is canonical for the current x64 mode, as ``jax.dtypes.dtype`` in
    JAX 0.11: explicit 64-bit dtype-likes (``np.float64``, ``'int64'``) warn and
    are truncated when x64 is off; NumPy arrays are narrowed silently; arrays and
    tracers keep their dtype.
    """
    if x is None:
        raise ValueError(f"Invalid argument to dtype: {x}.")
    scalar_type = x if isinstance(x, type) else type(x)
    python_default = python_scalar_types_to_dtypes.get(scalar_type)
    if python_default is not None:
        return canonicalize_dtype(python_default) if canonicalize else python_default
    if _is_jax_value(x):
        return x.dtype
    explicit = isinstance(x, (str, np.dtype)) or _is_subclass(x, np.generic)
    if explicit:
        found = np.dtype(x)
    else:
        found = getattr(x, "dtype", None)
        if not (isinstance(found, (np.dtype, ExtendedDType)) or _is_extended(found)):
            try:
                found = np.result_type(x)
            except TypeError as err:
                raise TypeError(f"Cannot determine dtype of {x}") from err
    if found not in _jax_dtype_set and not issubdtype(found, extended):
        raise TypeError(
            f"Value '{x}' with dtype {found} is not a valid JAX array "
            "type. Only arrays of numeric types are supported by JAX."
        )
    if not canonicalize:
        return found
    if explicit:
        return _maybe_canonicalize_explicit_dtype(found, "dtype")
    return canonicalize_dtype(found, allow_extended_dtype=True)


def _is_extended(x: Any) -> bool:
    """``issubdtype(x, extended)`` that answers False for non-dtype-likes."""
    try:
        return x is not None and issubdtype(x, extended)
    except TypeError:
        return False


def is_python_scalar(x: Any) -> bool:
    """Whether ``x`` is a Python bool, int, float or complex (not a NumPy scalar)."""
    return type(x) in python_scalar_types


_WEAK_SCALAR_TYPES = (int, float, complex)


def is_weakly_typed(x: Any) -> bool:
    """Whether ``x`` is weakly typed: a Python int/float/complex, or a value or
    aval whose ``weak_type`` flag is set."""
    if type(x) in _WEAK_SCALAR_TYPES:
        return True
    aval = getattr(x, "aval", None)
    if aval is not None:
        return bool(getattr(aval, "weak_type", False))
    return bool(getattr(x, "weak_type", False))


def is_weakly_typed_scalar(x: Any) -> bool:
    """Whether ``x`` is a weakly-typed scalar (a Python scalar or a 0-d weak value)."""
    aval = getattr(x, "aval", None)
    if aval is None:
        return type(x) in python_scalar_types
    return bool(aval.weak_type) and np.ndim(x) == 0


def scalar_type_of(x: Any) -> type:
    """Returns the Python scalar type (bool, int, float, complex) of a value's dtype."""
    value_dtype = dtype(x, canonicalize=True)
    if value_dtype in _custom_float_dtypes:
        return float
    if value_dtype in _intn_dtypes:
        return int
    for parent, python_type in (
        (np.bool_, bool),
        (np.integer, int),
        (np.floating, float),
        (np.complexfloating, complex),
    ):
        if np.issubdtype(value_dtype, parent):
            return python_type
    raise TypeError(f"Invalid scalar value {x}")


def scalar_type_to_dtype(typ: type, value: Any = None) -> DType:
    """The canonical dtype of Python scalar type ``typ``.

    Raises OverflowError if ``typ`` is int and ``value`` does not fit in it.
    """
    result = canonicalize_dtype(python_scalar_types_to_dtypes[typ])
    if typ is int and value is not None:
        info = np.iinfo(result)
        if value < info.min or value > info.max:
            raise OverflowError(f"Python int {value} too large to convert to {result}")
    return result


def coerce_to_array(x: Any, dtype: DTypeLike | None = None) -> np.ndarray:
    """``np.asarray`` that gives Python scalars JAX's (canonical) dtypes."""
    if dtype is None and type(x) in python_scalar_types:
        dtype = scalar_type_to_dtype(type(x), x)
    return np.asarray(x, dtype)


def short_dtype_name(dtype: Any) -> str:
    """The abbreviation the jaxpr printer uses: f32, bf16, i8, u32, c64, f8_e4m3fn ...

    ``float0`` is written ``float0`` (NumPy calls it ``void``).
    """
    try:
        return _short_names[dtype]
    except KeyError:
        pass
    if isinstance(dtype, ExtendedDType):
        name = str(dtype)
    elif dtype == float0:
        name = "float0"
    else:
        name = (
            dtype.name.replace("float", "f")
            .replace("uint", "u")
            .replace("int", "i")
            .replace("complex", "c")
        )
    _short_names[dtype] = name
    return name


_short_names: dict[Any, str] = {}

# --- the promotion lattice ------------------------------------------------------------
# Nodes are NumPy dtypes plus the Python types int, float and complex, which stand
# for weakly-typed values of each kind (JAX's i*, f*, c*). An edge a -> b means b
# can hold every value of a "without surprise"; promotion is the least upper bound.


class TypePromotionError(ValueError):
    """Raised when JAX type promotion fails."""


_WEAK_NODES = (int, float, complex)


def _lattice_edges(strict: bool, x64: bool) -> dict[Any, tuple[Any, ...]]:
    """The promotion lattice as a DAG: each node and the nodes just above it."""
    u8, u16, u32, u64 = (np.dtype(f"uint{b}") for b in (8, 16, 32, 64))
    i8, i16, i32, i64 = (np.dtype(f"int{b}") for b in (8, 16, 32, 64))
    f16, f32, f64 = (np.dtype(f"float{b}") for b in (16, 32, 64))
    c64, c128 = _complex_dtypes
    bf16 = np.dtype(bfloat16)
    edges: dict[Any, tuple[Any, ...]] = {node: () for node in _numeric_dtypes}
    if strict:
        # Weak types still find their kind; strong dtypes meet only themselves.
        edges[int] = (float, *_unsigned_dtypes, *_signed_dtypes)
        edges[float] = (complex, *_float_dtypes)
        edges[complex] = tuple(_complex_dtypes)
        return edges
    narrow_ints = [np.dtype(t) for t in _SIGNED_NARROW_TYPES + _UNSIGNED_NARROW_TYPES]
    small_floats = [np.dtype(t) for t in _CUSTOM_FLOAT_TYPES if t is not bfloat16]
    # fmt: off
    edges.update({
        np.dtype(bool): (int,),
        int: (u8, i8, *narrow_ints),
        u8: (u16, i16), u16: (u32, i32),
        # With x64 off no promotion may build a 64-bit type out of narrower ones.
        u32: (u64, i64) if x64 else (u64, i32),
        u64: (float,),
        i8: (i16,), i16: (i32,), i32: (i64,), i64: (float,),
        float: (*small_floats, bf16, f16, complex),
        bf16: (f32,), f16: (f32,), f32: (f64, c64), f64: (c128,),
        complex: (c64,), c64: (c128,),
    })
    # fmt: on
    return edges


def _upper_bounds(edges: dict[Any, tuple[Any, ...]]) -> dict[Any, frozenset]:
    """Each node's set of upper bounds (itself included): the closure of ``edges``."""
    bounds: dict[Any, frozenset] = {}

    def visit(node: Any) -> frozenset:
        if node not in bounds:
            above = {node}
            for parent in edges[node]:
                above |= visit(parent)
            bounds[node] = frozenset(above)
        return bounds[node]

    for node in edges:
        visit(node)
    return bounds


# (strict, x64) -> upper bounds.
_LATTICE_UPPER_BOUNDS = {
    (strict, x64): _upper_bounds(_lattice_edges(strict, x64))
    for strict in (False, True)
    for x64 in (False, True)
}

_STRICT = config.NumpyDtypePromotion.STRICT
_promotion_mode = config.numpy_dtype_promotion


# Narrow dtype families that refuse implicit promotion, and the cast to suggest.
_NARROW_FAMILIES = (
    (_float8_dtypes, "8-bit floats", "float32"),
    (_float6_dtypes, "6-bit floats", "float32"),
    (_float4_dtypes, "4-bit floats", "float32"),
    (_intn_dtypes, "1-bit, 2-bit and 4-bit integers", "int32"),
)


def _no_path_message(nodes: tuple[Any, ...]) -> str:
    head = f"Input dtypes {tuple(str(n) for n in nodes)} have no available implicit "
    if _promotion_mode.value == _STRICT:
        return (
            head + "dtype promotion path when jax_numpy_dtype_promotion=strict. Try "
            "explicitly casting inputs to the desired output type, or set "
            "jax_numpy_dtype_promotion=standard."
        )
    for family, what, cast in _NARROW_FAMILIES:
        if any(n in family for n in nodes):
            return (
                head + f"dtype promotion path. To avoid unintended promotion, {what} "
                "do not support implicit promotion. If you'd like your inputs to be "
                "promoted to another type, you can do so explicitly using e.g. "
                f"x.astype('{cast}')"
            )
    return head + (
        "dtype promotion path. Try explicitly casting inputs to the desired output type."
    )


_lub_cache: dict[tuple, Any] = {}


def _least_upper_bound(strict: bool, x64: bool, nodes: tuple[Any, ...]) -> Any:
    """The least upper bound of lattice ``nodes``; TypePromotionError if none."""
    key = (strict, x64, nodes)
    try:
        return _lub_cache[key]
    except KeyError:
        pass
    upper_bounds = _LATTICE_UPPER_BOUNDS[(strict, x64 and not strict)]
    for node in nodes:
        if node not in upper_bounds:
            raise ValueError(
                f"dtype={node!r} is not a valid dtype for JAX type promotion."
            )
    common = frozenset.intersection(*(upper_bounds[n] for n in nodes))
    # The least common bound is the one every other common bound sits above.
    least = (common & set(nodes)) or {c for c in common if common <= upper_bounds[c]}
    if not least:
        raise TypePromotionError(_no_path_message(nodes))
    if len(least) > 1:
        raise TypePromotionError(
            f"Internal Type Promotion error: {nodes} do not have a unique least upper "
            f"bound on the specified lattice; options are {least}. This is an "
            "unexpected error in JAX's internal logic; please report it to the JAX "
            "maintainers."
        )
    (result,) = least
    _lub_cache[key] = result
    return result


def _node(dtype_: Any, weak_type: bool) -> Any:
    """The lattice node of a (dtype, weak_type) pair."""
    if not weak_type:
        return dtype_
    if dtype_ in _custom_float_dtypes:
        return float
    if dtype_ in _intn_dtypes:
        return int
    return {"b": dtype_, "i": int, "u": int, "f": float, "c": complex}[dtype_.kind]


def _node_dtype(node: Any) -> DType:
    """The dtype of a lattice node (weak nodes give the canonical default)."""
    if any(node is weak for weak in _WEAK_NODES):
        return canonicalize_dtype(python_scalar_types_to_dtypes[node])
    return _maybe_canonicalize_explicit_dtype(node, "dtype")


def _promote_pairs(
    dtypes: tuple[Any, ...], weak_types: tuple[bool, ...]
) -> tuple[DType, bool]:
    """Promotes (dtype, weak_type) pairs; returns the result's (dtype, weak_type)."""
    strict = _promotion_mode.value == _STRICT
    x64 = _enable_x64.value
    if len(dtypes) == 1:
        out_dtype, out_weak = dtypes[0], weak_types[0]
    elif len(set(dtypes)) == 1 and not all(weak_types):
        # Equal dtypes need no lattice; this also lets extended dtypes through.
        out_dtype, out_weak = dtypes[0], False
    elif all(weak_types) and not strict:
        # Promote the strong counterparts, then mark the result weak: this keeps
        # non-default weak dtypes (say a weak int16) from escaping as int64.
        nodes = tuple({_node(d, False) for d in dtypes})
        out_dtype, out_weak = _node_dtype(_least_upper_bound(strict, x64, nodes)), True
    else:
        nodes = tuple({_node(d, w) for d, w in zip(dtypes, weak_types, strict=True)})
        result = _least_upper_bound(strict, x64, nodes)
        out_dtype = _node_dtype(result)
        out_weak = any(result is weak for weak in _WEAK_NODES)
    return out_dtype, bool(out_weak) and out_dtype != np.dtype(bool)


_binary_cache: dict[tuple, tuple[DType, bool]] = {}


def binary_promote(
    dtype_a: DType, weak_a: bool, dtype_b: DType, weak_b: bool
) -> tuple[DType, bool]:
    """Promotes two operands given by aval dtype and weak flag; the hot path of
    every binary op. Returns ``(dtype, weak_type)`` of the result.

    Equals ``lattice_result_type`` on two values with those avals, and is
    memoised per x64 and promotion mode.

    >>> binary_promote(np.dtype('int32'), False, np.dtype('float32'), True)
    (dtype('float32'), True)
    """
    key = (
        dtype_a,
        weak_a,
        dtype_b,
        weak_b,
        _enable_x64.value,
        _promotion_mode.value,
        config.explicit_x64_dtypes.value,
    )
    try:
        return _binary_cache[key]
    except KeyError:
        pass
    result = _binary_cache[key] = _promote_pairs((dtype_a, dtype_b), (weak_a, weak_b))
    return result


def _dtype_and_weak_type(value: Any) -> tuple[DType, bool]:
    weak = value is int or value is float or value is complex or is_weakly_typed(value)
    return dtype(value, canonicalize=True), weak


def _promote_values(args: Iterable[Any]) -> tuple[DType, bool]:
    pairs = [_dtype_and_weak_type(arg) for arg in args]
    if len(pairs) == 2:  # the common case, memoised
        return binary_promote(*pairs[0], *pairs[1])
    return _promote_pairs(tuple(p[0] for p in pairs), tuple(p[1] for p in pairs))


def lattice_result_type(*args: Any) -> tuple[DType, bool]:
    """Promotes values, dtypes or avals; returns ``(dtype, weak_type)``.

    Unlike ``result_type``, a weak result keeps its lattice dtype (a weak
    float16 stays float16): this is what jax.numpy casts operands to.
    """
    return _promote_values(args)


def result_type(
    *args: Any, return_weak_type_flag: bool = False
) -> DType | tuple[DType, bool]:
    """Applies JAX's type promotion to arrays, scalars and dtypes.

    Python scalars (and the types ``int``, ``float``, ``complex``) are weakly
    typed: ``result_type(np.int8, 1)`` is int8, ``result_type(np.int8, 1.0)``
    the default float dtype. ``None`` counts as the default float dtype.

    Args:
      *args: values or dtype-likes to promote.
      return_weak_type_flag: if True, return ``(dtype, weak_type)``.

    Returns:
      the result dtype, or ``(dtype, weak_type)``. A weakly-typed result is
      reported as the default dtype of its kind.
    """
    if not args:
        raise ValueError("at least one array or dtype is required")
    out_dtype, weak_type = _promote_values(
        default_float_dtype() if arg is None else arg for arg in args
    )
    if weak_type:
        kind = "f" if out_dtype in _custom_float_dtypes else out_dtype.kind
        out_dtype = default_types[kind]()
    return (out_dtype, weak_type) if return_weak_type_flag else out_dtype


def promote_types(a: DTypeLike, b: DTypeLike) -> DType:
    """Returns the dtype a binary operation casts its arguments to.

    The Python types ``int``, ``float`` and ``complex`` are weak and do not
    widen a strongly-typed counterpart:

    >>> promote_types('uint8', int)
    dtype('uint8')
    >>> promote_types('int32', 'float32')
    dtype('float32')
    """
    nodes = tuple(
        x if any(x is weak for weak in _WEAK_NODES) else np.dtype(x) for x in (a, b)
    )
    strict = _promotion_mode.value == _STRICT
    return np.dtype(_least_upper_bound(strict, _enable_x64.value, nodes))


def safe_to_cast(input_dtype_or_value: Any, output_dtype_or_value: Any) -> bool:
    """Whether default promotion of the input with the (strong) output dtype
    gives the output dtype, i.e. casting loses nothing."""
    input_dtype = dtype(input_dtype_or_value, canonicalize=True)
    output_dtype = dtype(output_dtype_or_value, canonicalize=True)
    if input_dtype == output_dtype:
        return True
    return result_type(input_dtype_or_value, output_dtype) == output_dtype
