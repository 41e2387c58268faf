"""`jax.experimental.primal_tangent_dtype`: a dtype whose tangents have another dtype.

`primal_tangent_dtype(int8, float32)` is an extended dtype stored as int8
whose tangents (and cotangents) are float32; `primal_tangent_dtype(float32,
bfloat16)` carries float32 values with bfloat16 gradients. Arrays convert
to it from its storage dtype and back with `lax.convert_element_type`
(the `to_edtype` and `from_edtype` equations, lax/edtype.py); autodiff
converts their tangents to the tangent dtype.
"""

from __future__ import annotations

import dataclasses
import types
from typing import Any

import numpy as np

from pyjax._src import dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.dtype_names import ExtendedDType, extended


class primal_tangent_dtype_scalar(extended):
    """The scalar class of primal/tangent dtypes."""


@dataclasses.dataclass(frozen=True)
class PrimalTangentDType(ExtendedDType):
    """An extended dtype stored as `primal_dtype`, whose tangents are `tangent_dtype`."""

    primal_dtype: Any
    tangent_dtype: Any
    name: str
    type = primal_tangent_dtype_scalar

    def __repr__(self):
        return self.name

    @property
    def itemsize(self) -> int:
        return self.primal_dtype.itemsize

    __str__ = __repr__

    @property
    def _rules(self):
        # Read by convert_element_type (allow_conversion), lax/edtype.py
        # (physical_element_aval) and autodiff (tangent_dtype).
        return types.SimpleNamespace(
            physical_element_aval=lambda dtype: ShapedArray((), self.primal_dtype),
            tangent_dtype=lambda dtype: self.tangent_dtype,
            allow_conversion=True)


def primal_tangent_dtype(primal_dtype, tangent_dtype, name: str | None = None) -> ExtendedDType:
    """An extended dtype stored as `primal_dtype` whose tangents are
    `tangent_dtype`; printed as `name` (default `PrimalTangentDType{i8/f32}`)."""
    primal_dtype, tangent_dtype = np.dtype(primal_dtype), np.dtype(tangent_dtype)
    if name is None:
        name = (f"PrimalTangentDType{{{dtypes.short_dtype_name(primal_dtype)}"
                f"/{dtypes.short_dtype_name(tangent_dtype)}}}")
    return PrimalTangentDType(primal_dtype, tangent_dtype, name)
