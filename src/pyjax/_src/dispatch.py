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
from pyjax._src.core import python_scalar_aval
from pyjax._src.rules import missing_rule_error

_SCALAR_TYPES = (bool, int, float, complex)


class EvalTrace(core.Trace):
    """Runs primitives on concrete values with a backend's impl table."""

    def __init__(self, impls: dict):
        self.impls = impls

    def process_primitive(self, primitive, args, params):
        if len(args) == 2 and type(args[0]) is Array and type(args[1]) is Array and not primitive.multiple_results:
            # The commonest eager call, a binary op on two Arrays, without the
            # generic argument loop (same cache, same impl, same checks).
            x, y = args
            avals = (x.aval, y.aval)
            out_aval = primitive._abstract_eval_cache.get((avals, *params.values()) if params else avals)
            impl = self.impls.get(primitive)
            if out_aval is not None and impl is not None:
                out = impl(x._value, y._value, **params)
                dtype = getattr(out, "dtype", None)
                if dtype is not out_aval.dtype and dtype != out_aval.dtype:
                    out = np.asarray(out, out_aval.dtype)
                return Array(out, out_aval)
        avals = []
        for x in args:
            tx = type(x)
            if tx is Array:
                avals.append(x.aval)
            elif tx in _SCALAR_TYPES:
                avals.append(python_scalar_aval(tx))
            else:
                return self._process_general(primitive, args, params)
        avals = tuple(avals)
        try:
            out_aval = primitive._abstract_eval_cache[(avals, *params.values()) if params else avals]
            impl = self.impls[primitive]
        except (KeyError, TypeError):
            return self._run(primitive, avals, [x._value if type(x) is Array else x for x in args], params)
        out = impl(*[x._value if type(x) is Array else x for x in args], **params)
        if primitive.multiple_results:
            return [Array(v, a) for v, a in zip(out, out_aval, strict=True)]
        dtype = getattr(out, "dtype", None)
        if dtype is not out_aval.dtype and dtype != out_aval.dtype:
            out = np.asarray(out, out_aval.dtype)
        return Array(out, out_aval)

    def apply_with_scalar(self, primitive, x: Array, scalar, scalar_aval, scalar_first: bool):
        """`primitive(x, scalar)` (or reversed) for a param-free binary primitive:
        the same impl and abstract-eval cache as process_primitive, minus the
        generic argument loop. jax.numpy's binary functions call this for the
        most common eager operation there is, `array + 1.0`."""
        avals = (scalar_aval, x.aval) if scalar_first else (x.aval, scalar_aval)
        out_aval = primitive._abstract_eval_cache.get(avals)
        if out_aval is None:
            out_aval = primitive.out_avals(avals, {})
        impl = self.impls[primitive]
        out = impl(scalar, x._value) if scalar_first else impl(x._value, scalar)
        if out.dtype is not out_aval.dtype and out.dtype != out_aval.dtype:
            out = np.asarray(out, out_aval.dtype)
        return Array(out, out_aval)

    def _process_general(self, primitive, args, params):
        values, avals = [], []
        for x in args:
            tx = type(x)
            if tx is Array:
                value, aval = x._value, x.aval
            elif tx in _SCALAR_TYPES:
                value, aval = x, python_scalar_aval(tx)
            else:
                value, aval = _concrete(x)
            values.append(value)
            avals.append(aval)
        return self._run(primitive, tuple(avals), values, params)

    def _run(self, primitive, avals, values, params):
        out_aval = primitive.out_avals(avals, params)
        impl = self.impls.get(primitive)
        if impl is None:
            raise missing_rule_error("impl", primitive.name)
        out = impl(*values, **params)
        if primitive.multiple_results:
            return [Array(v, a) for v, a in zip(out, out_aval, strict=True)]
        dtype = getattr(out, "dtype", None)
        if dtype is not out_aval.dtype and dtype != out_aval.dtype:
            out = np.asarray(out, out_aval.dtype)  # e.g. NumPy returned a Python scalar
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
