"""What `jax.extend.core` and `jax.core` export, on pyjax's core.

The classes are pyjax's own (a `Primitive` made here is the same class as
`lax.sin_p`'s; `Jaxpr` is `ClosedJaxpr`); the functions are the small
helpers libraries written against JAX's internals call: building
equations, evaluating jaxprs, asking what is being traced.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from pyjax._src import core, dtypes, errors
from pyjax._src.array import Array
from pyjax._src.avals import AbstractValue, ShapedArray
from pyjax._src.core import Primitive, Trace, Tracer, concrete_aval, get_aval
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.staging import DebugInfo, DynamicJaxprTrace
from pyjax._src.jaxpr import (
    ClosedJaxpr, DropVar, Effect, Jaxpr, JaxprEqn, JaxprTypeError, Literal, Var, check_jaxpr, eval_jaxpr,
    no_effects,
)

Effects = set  # a set of Effect (JAX's `Effects` alias)
ParamDict = dict


class TraceTag:
    """Identifies one transformation's traces (JAX's tag, compared by identity)."""

    __slots__ = ()


class CallPrimitive(Primitive):
    """A primitive whose first operand is a function it calls on the others.

    pyjax stages calls as `jit` equations; a CallPrimitive's bind runs the
    function under the current trace (its equations are inlined).
    """

    call_primitive = True

    def __init__(self, name: str):
        super().__init__(name, multiple_results=True)

    def bind(self, fun, *args, **params):
        return call_impl(fun, *args, **params)


def call_impl(f, *args, **params):
    """Calls a (wrapped) function on `args`: the evaluation rule of a call primitive."""
    call = getattr(f, "call_wrapped", f)
    return call(*args)


# Concrete types a jaxpr operand may have (JAX's `array_types`).
array_types: set[type] = {np.ndarray, Array, *(np.dtype(t).type for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64, np.complex64, np.complex128, dtypes.bfloat16))}


def new_jaxpr_eqn(invars, outvars, primitive, params, effects, source_info=None, ctx=None) -> JaxprEqn:
    """A new equation `outvars = primitive[params] invars`."""
    return JaxprEqn(primitive, list(invars), list(outvars), dict(params), frozenset(effects or ()), source_info)


def gensym() -> Callable[[AbstractValue], Var]:
    """A function making fresh variables of a given aval (names are given only when printing)."""
    return Var


def jaxpr_as_fun(closed_jaxpr: Jaxpr, *args):
    """The function a closed jaxpr computes; `jaxpr_as_fun(j)(*args)` or `jaxpr_as_fun(j, *args)`."""
    if not args:
        return functools.partial(jaxpr_as_fun, closed_jaxpr)
    return eval_jaxpr(closed_jaxpr, closed_jaxpr.consts, *args)


def subjaxprs(jaxpr: Jaxpr) -> Iterator[Jaxpr]:
    """The jaxprs directly inside `jaxpr`'s equations' params (bodies, branches)."""
    for eqn in jaxpr.eqns:
        yield from jaxprs_in_params(eqn.params)


def jaxprs_in_params(params) -> Iterator[Jaxpr]:
    """The jaxprs among an equation's params, also inside tuples and lists."""
    for value in params.values():
        for item in value if isinstance(value, (tuple, list)) else (value,):
            if isinstance(item, Jaxpr):
                yield item


def mapped_aval(size, axis, aval: AbstractValue) -> AbstractValue:
    """The aval of one slice of `aval` along `axis` (of length `size`); `axis` None: `aval`."""
    if axis is None:
        return aval
    if aval.shape[axis] != size:
        raise ValueError(f"mapped axis {axis} of {aval} has size {aval.shape[axis]}, not {size}")
    shape = list(aval.shape)
    del shape[axis]
    return aval.update(shape=tuple(shape))


def unmapped_aval(size, axis, aval: AbstractValue, explicit_mesh_axis=None) -> AbstractValue:
    """The aval of `size` stacked values of `aval` along `axis`; `axis` None: `aval`."""
    if axis is None:
        return aval
    shape = list(aval.shape)
    shape.insert(axis, size)
    return aval.update(shape=tuple(shape))


def primal_dtype_to_tangent_dtype(primal_dtype):
    """The dtype of tangents of values of `primal_dtype` (float0 for integers and booleans)."""
    return dtypes.tangent_dtype(primal_dtype)


def valid_jaxtype(x) -> bool:
    """Whether `x` is a value JAX can trace (an array, a NumPy or Python scalar, a tracer)."""
    try:
        get_aval(x)
    except TypeError:
        return False
    return True


def concrete_or_error(force: Any, val: Any, context=""):
    """`force(val)` for a concrete value (`val` itself when `force` is None);
    for a traced value, JAX's ConcretizationTypeError with `context`."""
    if isinstance(val, Tracer):
        raise errors.ConcretizationTypeError(val, context)
    return val if force is None else force(val)


def find_top_trace(_) -> Trace:
    """The trace operations are bound under now."""
    return core.current_trace()


def get_opaque_trace_state(convention=None):
    """An object that identifies the current tracing state (compare with `==`)."""
    return _OpaqueTraceState(core.current_trace())


class _OpaqueTraceState:
    __slots__ = ("_trace",)

    def __init__(self, trace):
        self._trace = trace

    def __eq__(self, other):
        return type(other) is _OpaqueTraceState and self._trace is other._trace

    def __hash__(self):
        return id(self._trace)


class set_current_trace(contextlib.AbstractContextManager):
    """A context manager under which `trace` is the current trace."""

    def __init__(self, trace, check_leaks=False):
        self.trace = trace
        self._tokens: list = []

    def __enter__(self):
        self._tokens.append(core._trace_ctx.set(self.trace))
        return self.trace

    def __exit__(self, *exc):
        core._trace_ctx.reset(self._tokens.pop())
        return False


class take_current_trace(contextlib.AbstractContextManager):
    """A context manager yielding the current trace, with the eval trace
    current inside (JAX's way for a trace to run its rules one level down)."""

    def __init__(self):
        self._tokens: list = []

    def __enter__(self):
        trace = core.current_trace()
        self._tokens.append(core._trace_ctx.set(None))
        return trace

    def __exit__(self, *exc):
        core._trace_ctx.reset(self._tokens.pop())
        return False


def _trace_chain() -> Iterator[Trace]:
    trace = core.current_trace()
    while trace is not None:
        yield trace
        trace = getattr(trace, "parent", None)


def nonempty_axis_env_DO_NOT_USE() -> bool:
    """Whether a named vmap axis is in scope."""
    return bool(batching.axis_env())


def unsafe_am_i_under_a_jit_DO_NOT_USE() -> bool:
    """Whether the code runs while being staged (under jit or make_jaxpr)."""
    return any(isinstance(t, DynamicJaxprTrace) for t in _trace_chain())


def unsafe_am_i_under_a_vmap_DO_NOT_USE() -> bool:
    """Whether the code runs under vmap."""
    return bool(batching.axis_env()) or any(isinstance(t, batching.BatchTrace) for t in _trace_chain())


def unsafe_get_axis_names_DO_NOT_USE() -> list[Any]:
    """The names of the named vmap axes in scope, outermost first."""
    return [a.name for a in batching.axis_env()]


def eval_context():
    """A context manager under which operations run eagerly (the eval trace is current)."""
    return set_current_trace(None)


def max_dim(d1, d2):
    """Like max(d1, d2) but for both constant and symbolic dimensions (a
    `max` dimension expression when the bounds cannot decide)."""
    from pyjax._src import shape_poly

    return shape_poly.dim_max(d1, d2)


def min_dim(d1, d2):
    """Like min(d1, d2) but for both constant and symbolic dimensions (a
    `min` dimension expression when the bounds cannot decide)."""
    from pyjax._src import shape_poly

    return shape_poly.dim_min(d1, d2)


__all__ = [
    "AbstractValue", "CallPrimitive", "ClosedJaxpr", "DebugInfo", "DropVar", "Effect", "Effects", "Jaxpr",
    "JaxprEqn", "JaxprTypeError", "Literal", "ParamDict", "Primitive", "ShapedArray", "Trace", "TraceTag", "Tracer",
    "Var", "array_types", "call_impl", "check_jaxpr", "concrete_aval", "concrete_or_error", "eval_context",
    "eval_jaxpr", "find_top_trace", "gensym", "get_aval", "get_opaque_trace_state", "jaxpr_as_fun",
    "jaxprs_in_params", "mapped_aval", "max_dim", "min_dim", "new_jaxpr_eqn", "no_effects",
    "nonempty_axis_env_DO_NOT_USE", "primal_dtype_to_tangent_dtype", "set_current_trace", "subjaxprs",
    "take_current_trace", "unmapped_aval", "unsafe_am_i_under_a_jit_DO_NOT_USE",
    "unsafe_am_i_under_a_vmap_DO_NOT_USE", "unsafe_get_axis_names_DO_NOT_USE", "valid_jaxtype",
]
