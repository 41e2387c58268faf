"""Conversions between an extended dtype and its storage dtype: `to_edtype`
and `from_edtype`, bound by `convert_element_type` when the extended dtype
allows conversion (`_rules.allow_conversion`, as primal_tangent_dtype's do;
PRNG key dtypes do not).

The buffer is unchanged: an array of the extended dtype is stored as its
representation dtype. Their JVPs convert the tangent to the tangent dtype
of the result (for primal_tangent_dtype: its `tangent_dtype`), and each
transposes to the other.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters.jvp import defjvp
from pyjax._src.lax import batching_util

to_edtype_p = Primitive("to_edtype").declare(sharding_reason="a change of dtype, not of placement")
from_edtype_p = Primitive("from_edtype").declare(sharding_reason="a change of dtype, not of placement")


def _rep_aval(edtype) -> ShapedArray:
    return edtype._rules.physical_element_aval(edtype)


def _allowed(edtype) -> bool:
    return bool(getattr(edtype._rules, "allow_conversion", False))


@to_edtype_p.def_abstract_eval
def _to_edtype_abstract_eval(x: ShapedArray, *, edtype) -> ShapedArray:
    if not _allowed(edtype):
        raise ValueError(f"Cannot convert_element_type from {x.dtype} to {edtype}")
    rep = _rep_aval(edtype)
    if x.dtype != rep.dtype:
        raise ValueError(
            "can only convert to extended dtype from its representation dtype, but tried to convert from "
            f"{x.dtype} to {edtype} which doesn't match the representation type {rep.dtype}.")
    n = x.ndim - len(rep.shape)
    if n < 0 or tuple(x.shape[n:]) != tuple(rep.shape):
        raise ValueError(
            "can only convert to extended dtype from an array of its representation type, but the extended "
            f"dtype {edtype} has a representation shape {rep.shape} while the given representation array has "
            f"shape {x.shape}.")
    return ShapedArray(x.shape[:n], edtype, x.weak_type)


@from_edtype_p.def_abstract_eval
def _from_edtype_abstract_eval(x: ShapedArray, *, dtype) -> ShapedArray:
    if not _allowed(x.dtype):
        raise ValueError(f"Cannot convert_element_type from {x.dtype} to {dtype}")
    rep = _rep_aval(x.dtype)
    if rep.dtype != dtype:
        raise ValueError(
            "can only convert from extended dtype to its representation dtype, but tried to convert from "
            f"{x.dtype} to {dtype} which doesn't match the representation type {rep.dtype}.")
    return ShapedArray((*x.shape, *rep.shape), dtype, x.weak_type)


def _tangent_to(dtype):
    # the tangent converted to the tangent dtype of the result's dtype
    def rule(t, x, **_):
        from pyjax._src.lax.elementwise import convert_element_type

        return convert_element_type(t, dtypes.tangent_dtype(dtype))
    return rule


to_edtype_p.def_impl(lambda x, *, edtype: np.asarray(x))
from_edtype_p.def_impl(lambda x, *, dtype: np.asarray(x))
defjvp(to_edtype_p, lambda t, x, *, edtype: _tangent_to(edtype)(t, x))
defjvp(from_edtype_p, lambda t, x, *, dtype: _tangent_to(dtype)(t, x))
to_edtype_p.def_transpose(lambda ct, x, *, edtype: [from_edtype_p.bind(ct, dtype=x.aval.dtype)])
from_edtype_p.def_transpose(lambda ct, x, *, dtype: [to_edtype_p.bind(ct, edtype=x.aval.dtype)])
batching_util.vectorized(to_edtype_p)
batching_util.vectorized(from_edtype_p)


def convert_edtype(operand, old_dtype, new_dtype):
    """`convert_element_type` between an extended dtype that allows conversion
    and its representation dtype, or None when that is not this conversion."""
    old_ext, new_ext = (isinstance(d, dtypes.ExtendedDType) for d in (old_dtype, new_dtype))
    if old_ext == new_ext or not _allowed(new_dtype if new_ext else old_dtype):
        return None
    if new_ext:
        return to_edtype_p.bind(operand, edtype=new_dtype)
    return from_edtype_p.bind(operand, dtype=np.dtype(new_dtype))
