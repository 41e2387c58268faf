"""`jax.experimental.EArray` and `cur_qdd`: two names of JAX's "hijax" layer.

`EArray(aval, data)` is an Array of an extended dtype (a PRNG key dtype, a
primal_tangent_dtype) made from its representation data: `data` holds the
uint32 words of keys, or the stored values of a primal_tangent_dtype. It
behaves as any Array of `aval` (jit, random, tree leaves) and prints as
JAX's does, `E` before its data's repr. pyjax's own Arrays hold extended
dtypes directly, so nothing in pyjax makes EArrays; they exist for code that
builds them.

`cur_qdd(x)`: the current quasi-dynamic data of a value whose type carries
some (JAX's hijax types: a `Box`'s contents). pyjax has no such types: under
a trace it is None, as JAX's tracers answer, and eagerly a value without
`cur_qdd` raises JAX's AttributeError.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.array import Array
from pyjax._src.random.prng import KeyTy, key_buffer


def _buffer(dtype, data: np.ndarray) -> np.ndarray:
    if isinstance(dtype, KeyTy):
        return key_buffer(data, dtype._impl)
    if isinstance(dtype, dtypes.ExtendedDType):
        return np.asarray(data, dtype._rules.physical_element_aval(dtype).dtype)
    return np.asarray(data, dtype)


class EArray(Array):
    """An Array of `aval` made from its representation data (see the module docstring)."""

    __slots__ = ("_data",)

    def __init__(self, aval, data):
        super().__init__(_buffer(aval.dtype, np.asarray(data)), aval)
        self._data = data

    def __repr__(self):
        return "E" + repr(self._data)

    __str__ = __repr__

    def copy(self) -> EArray:
        return EArray(self.aval, self._data.copy())

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        raise NotImplementedError("iteration over an EArray")

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of unsized object")
        return self.shape[0]


def cur_qdd(x):
    """The current quasi-dynamic data of `x`'s type (None for the types of a trace)."""
    if isinstance(x, core.Tracer):
        return None
    return x.cur_qdd()
