"""Family builders: one call makes a primitive with its abstract evaluation.

Abstract evaluation is split as in JAX into a shape rule and a dtype rule;
`standard_primitive` joins them with the weak-type rule (an elementwise
result is weak when every operand is). The dtype and shape checks raise
JAX's messages, naming the primitive, the dtypes and the shapes.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.lax import batching_util, sharding_rules

# Dtype classes, named as JAX's messages name them.
_BOOL = ("bool", lambda d: d == np.bool_)
_INT = ("integer", lambda d: np.issubdtype(d, np.integer))
_FLOAT = ("floating", lambda d: dtypes.issubdtype(d, np.floating))
_COMPLEX = ("complexfloating", lambda d: np.issubdtype(d, np.complexfloating))
_SIGNED = ("signedinteger", lambda d: np.issubdtype(d, np.signedinteger))
_UNSIGNED = ("unsignedinteger", lambda d: np.issubdtype(d, np.unsignedinteger))

ANY = None
FLOAT_OR_COMPLEX = (_FLOAT, _COMPLEX)
FLOAT = (_FLOAT,)
NUMBER = (_INT, _COMPLEX, _FLOAT)
SIGNED_NUMBER = (_SIGNED, _COMPLEX, _FLOAT)
INT_OR_BOOL = (_INT, _BOOL)
BOOL_OR_NUMBER = (_BOOL, _INT, _FLOAT, _COMPLEX)
INT = (_INT,)
FLOAT_OR_INT = (_FLOAT, _INT)
FLOAT_INT_BOOL = (_FLOAT, _INT, _BOOL)

_accept_cache: dict = {}


def _accepts(classes, dtype) -> bool:
    key = (id(classes), dtype)
    hit = _accept_cache.get(key)
    if hit is None:
        hit = _accept_cache[key] = any(test(dtype) for _, test in classes)
    return hit


def _class_names(classes) -> str:
    return ", ".join(name for name, _ in classes)


# JAX's tip names the jnp function that promotes; lax names differ for some.
_JNP_NAMES = {
    "sub": "subtract",
    "mul": "multiply",
    "div": "divide",
    "max": "maximum",
    "min": "minimum",
    "rem": "remainder",
    "pow": "float_power",
    "select": "where",
    "and": "bitwise_and",
    "or": "bitwise_or",
    "xor": "bitwise_xor",
    "eq": "equal",
    "ne": "not_equal",
    "lt": "less",
    "le": "less_equal",
    "gt": "greater",
    "ge": "greater_equal",
    "atan2": "arctan2",
}


def check_same_dtypes(name: str, *avals: ShapedArray) -> None:
    if len(avals) < 2:
        return
    first = avals[0].dtype
    if all(a.dtype == first for a in avals[1:]):
        return
    got = ", ".join(str(a.dtype) for a in avals)
    raise TypeError(
        f"lax.{name} requires arguments to have the same dtypes, got {got}. "
        f"(Tip: jnp.{_JNP_NAMES.get(name, name)} is a similar function that does "
        "automatic type promotion on inputs)."
    )


def unary_dtype_check(name: str, accepted, aval: ShapedArray) -> None:
    if accepted is not None and not _accepts(accepted, aval.dtype):
        raise TypeError(
            f"{name} does not accept dtype {aval.dtype}. Accepted dtypes are subtypes "
            f"of {_class_names(accepted)}."
        )


def nary_dtype_check(name: str, accepted: Sequence, avals: Sequence[ShapedArray]) -> None:
    for i, (classes, aval) in enumerate(zip(accepted, avals, strict=True)):
        if classes is not None and not _accepts(classes, aval.dtype):
            raise TypeError(
                f"{name} does not accept dtype {aval.dtype} at position {i}. Accepted dtypes "
                f"at position {i} are subtypes of {_class_names(classes)}."
            )


def broadcasting_shape(name: str, *shapes: tuple) -> tuple:
    """Elementwise result shape: equal ranks broadcast size-1 dims; rank-0
    operands broadcast against anything."""
    shapes = [s for s in shapes if s]
    if not shapes:
        return ()
    first = shapes[0]
    if all(s == first for s in shapes[1:]):
        return first
    if len({len(s) for s in shapes}) != 1:
        raise TypeError(_incompatible(name, shapes))
    out = []
    for dims in zip(*shapes, strict=True):
        sizes = {d for d in dims if d != 1}
        if len(sizes) > 1:
            raise TypeError(_incompatible(name, shapes))
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _incompatible(name: str, shapes) -> str:
    return f"{name} got incompatible shapes for broadcasting: {', '.join(map(str, shapes))}."


def standard_unop(name: str, accepted, *, result_dtype: Callable | None = None, cost: str | None = None,
                  fusible: bool = True) -> Primitive:
    """An elementwise unary primitive: same shape; dtype kept (or mapped).

    It is declared elementwise, of XLA's cost class `cost` ("cheap" or
    "expensive"; tests/test_primitive_properties.py fails while it is None),
    `fusible` by XLA's loop fusion, and batches with the batch axis in place
    (JAX's `defvectorized`)."""
    primitive = Primitive(name)
    primitive.declare(elementwise=True, fusible=fusible, cost=cost)
    batching_util.vectorized(primitive)
    primitive.def_sharding_rule(sharding_rules.keep_operand_rule)

    def abstract_eval(x: ShapedArray, **params) -> ShapedArray:
        unary_dtype_check(name, accepted, x)
        dtype = x.dtype if result_dtype is None else result_dtype(x.dtype)
        return ShapedArray(x.shape, dtype, x.weak_type, x.sharding)

    primitive.def_abstract_eval(abstract_eval)
    primitive.pp_hidden = _hide_none_accuracy
    return primitive


def _hide_none_accuracy(key, value) -> bool:
    return key == "accuracy" and value is None


def standard_naryop(name: str, accepted: Sequence, *, result_dtype: Callable | None = None,
                    same_dtypes: bool = True, cost: str | None = None, fusible: bool = True) -> Primitive:
    """An elementwise n-ary primitive: operands of one dtype, broadcast shapes.

    Declared as `declare_naryop` declares, and batched with JAX's broadcast
    batcher (`defbroadcasting`)."""
    primitive = Primitive(name)
    declare_naryop(primitive, cost=cost, fusible=fusible)

    def abstract_eval(*avals: ShapedArray, **params) -> ShapedArray:
        nary_dtype_check(name, accepted, avals)
        if same_dtypes:
            check_same_dtypes(name, *avals)
        shape = broadcasting_shape(name, *(a.shape for a in avals))
        dtype = avals[0].dtype if result_dtype is None else result_dtype(avals[0].dtype)
        weak = all(a.weak_type for a in avals)
        return ShapedArray(shape, dtype, weak)

    primitive.def_abstract_eval(abstract_eval)
    return primitive


def declare_naryop(primitive: Primitive, *, cost: str | None, fusible: bool = True) -> Primitive:
    """Declares `primitive` an elementwise n-ary op under lax's broadcasting
    (rank-0 and size-1 operands broadcast), of XLA's cost class `cost`,
    `fusible` by XLA's loop fusion, and registers JAX's broadcast batcher."""
    primitive.declare(elementwise=True, broadcasting=True, fusible=fusible, cost=cost)
    batching_util.broadcasting(primitive)
    primitive.def_sharding_rule(sharding_rules.broadcasting_rule(primitive.name))
    return primitive


def as_array(x):
    """`x` as a value the lax layer hands on: Arrays and tracers as they are,
    Python scalars (weakly typed) and NumPy values as Arrays of their
    canonical dtype; anything else is JAX's "not a valid JAX type" error."""
    if type(x) is Array or isinstance(x, (core.Tracer, Array)):  # (a placed Array is an Array)
        return x
    aval = core.concrete_aval(x)
    value = np.asarray(x, aval.dtype)
    # Under a trace the constant is the trace's (a staged scalar is a literal).
    lift = getattr(core.current_trace(), "lift_constant", None)
    return Array(value, aval) if lift is None else lift(value, aval)
