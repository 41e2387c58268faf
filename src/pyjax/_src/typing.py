"""The type annotations of jax.typing, and the internal ones beside them.

ArrayLike is what JAX functions accept as an array argument (an Array or
tracer, a NumPy array or scalar, a Python scalar: never a list or tuple);
DTypeLike what they accept as a dtype. Both are typing.Union aliases with
JAX 0.11's members, so ``typing.get_args`` and ``isinstance`` against the
members give JAX's answers.
"""

from __future__ import annotations

import typing
from collections.abc import Sequence
from typing import Any, Protocol, Union

import numpy as np

from pyjax._src.array import Array

DType = np.dtype

StaticScalar = Union[np.bool_, np.number, bool, int, float, complex]

ArrayLike = Union[
    Array,  # pyjax arrays and tracers
    np.ndarray,
    np.bool_, np.number,  # NumPy scalars
    bool, int, float, complex,  # Python scalars
]


@typing.runtime_checkable
class SupportsDType(Protocol):
    """Anything with a ``dtype`` attribute (jnp.float32, an array)."""

    @property
    def dtype(self, /) -> DType: ...


DTypeLike = Union[
    str,  # 'float32'
    type[Any],  # np.float32, float, jnp.float32
    np.dtype,
    SupportsDType,
]

DimSize = Union[int, Any]
Shape = Sequence[DimSize]


class DuckTypedArray(Protocol):
    """An object with a dtype and a shape (a ShapeDtypeStruct, an aval)."""

    @property
    def dtype(self) -> DType: ...

    @property
    def shape(self) -> Shape: ...


class DeprecatedArg:
    """The default of an argument kept only to warn when it is passed."""

    def __repr__(self) -> str:
        return "Deprecated"
