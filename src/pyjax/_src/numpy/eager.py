"""Eager fast paths for jax.numpy functions of one array with static options.

Eagerly, `jnp.sum(x)` or `x[1:3]` would redo all of jax.numpy's Python work
(argument checks, promotion, axis canonicalisation, index parsing) and
bind each primitive through the evaluation trace, on every call. Their
result only depends on the array's aval, the static options and the
configuration, so the first call per such key traces the function once
into a jaxpr and later calls run its equations directly with the backend's
impls: the same primitives, parameters and impls as the slow path, hence
the same values, dtypes and weak types, minus the Python overhead.

Only flat programs are replayed (equations whose parameters hold no
sub-jaxpr and whose primitives have a plain impl); anything else, any
traced call and any non-Array input take the ordinary path.
"""

from __future__ import annotations

import warnings

import numpy as np

from pyjax._src import config, core
from pyjax._src.array import Array
from pyjax._src.jaxpr import Literal

_NOT_REPLAYABLE = object()
_PLANS: dict = {}  # (name, aval, options, config id) -> _Program or _NOT_REPLAYABLE
_MAX_PLANS = 4096  # a bound on the cache for programs that index with many different keys


class _Program:
    """A flat jaxpr prepared for direct evaluation with numpy impls."""

    __slots__ = ("consts", "invar", "out_aval", "outvar", "steps")

    def __init__(self, closed, impls):
        jaxpr = closed.jaxpr
        self.consts = {v: (c._value if type(c) is Array else c) for v, c in zip(jaxpr.constvars, closed.consts,
                                                                                 strict=True)}
        (self.invar,) = jaxpr.invars
        (self.outvar,) = jaxpr.outvars
        self.out_aval = self.outvar.aval
        self.steps = []
        for eqn in jaxpr.eqns:
            impl = impls.get(eqn.primitive)
            if impl is None or eqn.primitive.multiple_results or any(
                    _holds_jaxpr(p) for p in eqn.params.values()):
                raise _Unsupported
            (out,) = eqn.outvars
            self.steps.append((impl, tuple(eqn.invars), eqn.params, out, out.aval.dtype))

    def run(self, value):
        env = dict(self.consts)
        env[self.invar] = value
        for impl, invars, params, out, dtype in self.steps:
            result = impl(*[v.val if type(v) is Literal else env[v] for v in invars], **params)
            if getattr(result, "dtype", None) != dtype:
                result = np.asarray(result, dtype)  # e.g. NumPy returned a Python scalar
            env[out] = result
        outvar = self.outvar
        return Array(outvar.val if type(outvar) is Literal else env[outvar], self.out_aval)


class _Unsupported(Exception):
    pass


def _holds_jaxpr(param) -> bool:
    if isinstance(param, (tuple, list)):
        return any(_holds_jaxpr(p) for p in param)
    return hasattr(param, "eqns") or hasattr(param, "jaxpr")


def replay(name: str, x, options, fn):
    """`fn(x)` for an eager Array `x`, from the equations cached under
    (name, x's aval, options); None when there is no fast path (the caller
    then runs its ordinary code). `options` must be hashable."""
    from pyjax._src.dispatch import EvalTrace

    trace = core._default_trace[0]
    if type(trace) is not EvalTrace:
        return None
    key = (name, x.aval, options, config.trace_context_id())
    program = _PLANS.get(key)
    if program is None:
        program = _build(fn, x, trace.impls)
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        _PLANS[key] = program
    if program is _NOT_REPLAYABLE:
        return None
    return program.run(x._value)


def _build(fn, x, impls):
    from pyjax._src.api import make_jaxpr

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            closed = make_jaxpr(fn)(x)
        except Exception:  # noqa: BLE001  (whatever it is, the ordinary path raises it to the user)
            return _NOT_REPLAYABLE
    if caught:
        # A call that warns keeps warning on every call: no fast path.
        return _NOT_REPLAYABLE
    if len(closed.jaxpr.outvars) != 1 or len(closed.jaxpr.invars) != 1:
        return _NOT_REPLAYABLE
    try:
        return _Program(closed, impls)
    except _Unsupported:
        return _NOT_REPLAYABLE


def static_index_plan(shape, index):
    """For `x[index]` with `index` made of Python ints, slices of ints, None
    and Ellipsis only: the NumPy index that selects the same elements as
    jax.numpy's static slicing (integers normalised and clamped into
    range, as JAX does, instead of raising) and the result's shape; None
    for any other index."""
    entries = index if type(index) is tuple else (index,)
    n_axes = 0
    for e in entries:
        t = type(e)
        if t is int:
            n_axes += 1
        elif t is slice:
            if not all(v is None or type(v) is int for v in (e.start, e.stop, e.step)) or e.step == 0:
                return None
            n_axes += 1
        elif e is not None and e is not Ellipsis:
            return None
    if n_axes > len(shape) or sum(e is Ellipsis for e in entries) > 1:
        return None
    out, axis = [], 0
    for e in entries:
        if type(e) is int:
            size = shape[axis]
            if size == 0:
                return None
            i = e + size if e < 0 else e
            out.append(min(max(i, 0), size - 1))
            axis += 1
        elif type(e) is slice:
            out.append(e)
            axis += 1
        elif e is Ellipsis:
            out.append(e)
            axis = len(shape) - (n_axes - axis)
        else:
            out.append(None)
    np_index = tuple(out)
    return np_index, np.broadcast_to(np.empty((), np.bool_), shape)[np_index].shape


def hashable(value):
    """`value` as a hashable cache-key part (lists become tuples, slices
    triples), or raises TypeError for anything unsuitable (arrays, ...)."""
    t = type(value)
    if value is None or t in (int, bool, str, float) or value is Ellipsis:
        return (t, value)
    if t is slice:
        return ("slice", hashable(value.start), hashable(value.stop), hashable(value.step))
    if t in (tuple, list):
        return (t, *(hashable(v) for v in value))
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return ("dtype", np.dtype(value))
    raise TypeError(f"not a static option: {t}")
