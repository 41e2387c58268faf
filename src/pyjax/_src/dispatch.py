"""Eager execution: the eval trace, which runs each primitive at once.

There is no per-op compilation: `bind` under the eval trace looks up the
output aval (memoised abstract evaluation), calls the backend's impl on the
NumPy buffers and wraps the result. That is the whole eager path, which is
why an eager op costs little more than the NumPy call it makes.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import core, dtypes, errors
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray
from pyjax._src.rules import missing_rule_error

_SCALAR_TYPES = (bool, int, float, complex)


class EvalTrace(core.Trace):
    """Runs primitives on concrete values with a backend's impl table."""

    def __init__(self, impls: dict):
        self.impls = impls

    def process_primitive(self, primitive, args, params):
        values = []
        avals = []
        for x in args:
            tx = type(x)
            if tx is Array:
                values.append(x._value)
                avals.append(x.aval)
            elif tx in _SCALAR_TYPES:
                values.append(x)
                avals.append(core.concrete_aval(x))
            else:
                value, aval = _concrete(x)
                values.append(value)
                avals.append(aval)
        out_aval = primitive.out_avals(tuple(avals), params)
        impl = self.impls.get(primitive)
        if impl is None:
            raise missing_rule_error("impl", primitive.name)
        out = impl(*values, **params)
        if primitive.multiple_results:
            return [Array(v, a) for v, a in zip(out, out_aval, strict=True)]
        return Array(out, out_aval)


def _concrete(x):
    if isinstance(x, core.Tracer):
        raise errors.escaped_tracer_error(x)
    if isinstance(x, (np.ndarray, np.generic)):
        dtype = dtypes.canonicalize_dtype(x.dtype)
        value = x if x.dtype == dtype else x.astype(dtype)
        return value, ShapedArray(x.shape, dtype, False)
    if isinstance(x, Array):  # a subclass
        return x._value, x.aval
    raise TypeError(f"Value {x!r} of type {type(x)} is not a valid JAX type")
