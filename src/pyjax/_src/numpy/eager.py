"""Eager fast paths for jax.numpy functions of one array with static options.

Eagerly, `jnp.sum(x)` or `jnp.mean(x, axis=0)` would redo all of jax.numpy's
Python work (argument checks, promotion, axis canonicalisation) and bind
each primitive through the evaluation trace, on every call. Their result
only depends on the array's aval, the static options and the
configuration, so once a call has been seen twice under one such key, the
function is traced into a jaxpr and compiled by the jit compiler, and later
calls run the compiled program: the same primitives, parameters and impls
as the slow path, hence the same values, dtypes and weak types, minus the
Python overhead. (The first call of a key takes the ordinary path, so code
that meets many shapes once each pays no compilation.)

A function whose trace fails or warns keeps the ordinary path for that key
(it raises or warns there, as it should); so do traced calls and any
non-Array input.
"""

from __future__ import annotations

import warnings

import numpy as np

from pyjax._src import config, core
from pyjax._src.array import Array
from pyjax._src.dispatch import EvalTrace

_NOT_REPLAYABLE = object()
_PLANS: dict = {}  # (name, aval, options, config id) -> 1 (seen once), _Program or _NOT_REPLAYABLE
_MAX_PLANS = 4096  # a bound on the cache for programs called with many different keys


class _Program:
    """A jaxpr with one output, compiled by the default backend."""

    __slots__ = ("compiled", "out_aval")

    def __init__(self, closed):
        from pyjax._src.jit import compile_for_backend

        self.compiled = compile_for_backend(closed)
        self.out_aval = closed.jaxpr.outvars[0].aval


def options_key(options: tuple):
    """`options` (a tuple of static option values) as part of a cache key:
    the values with their types (so `0`, `0.0` and `False` differ), lists
    made tuples. Raises TypeError for anything unhashable (arrays)."""
    key = (options, tuple(map(type, options)))
    try:
        hash(key)
        return key
    except TypeError:
        return tuple(hashable(v) for v in options)


def call(name: str, fn, *arrays, **options):
    """`fn(*arrays, **options)` for eager Arrays, from the program cached
    under (name, the arrays' avals, options); None when there is no fast
    path (yet): the caller then runs its ordinary code."""
    if type(core._default_trace[0]) is not EvalTrace:
        return None
    one = len(arrays) == 1  # the commonest case (reductions), without the list building
    try:
        avals = arrays[0].aval if one else tuple([a.aval for a in arrays])
        key = (name, avals, options_key(tuple(options.values())), config.trace_context_id())
    except TypeError:  # an option that is not static: no fast path
        return None
    program = _PLANS.get(key)
    if type(program) is not _Program:
        program = _first_calls(key, program, fn, arrays, options)
        if program is None:
            return None
    out = program.compiled(arrays[0]._value) if one else program.compiled(*[a._value for a in arrays])
    return Array(out[0], program.out_aval)


def _first_calls(key, program, fn, args, options):
    # The first sight of a key takes the ordinary path and is remembered;
    # the second builds the program (or finds there is none).
    if program is None:
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        _PLANS[key] = 1
        return None
    if program == 1:
        program = _PLANS[key] = _build(lambda *a: fn(*a, **options), args)
    return None if program is _NOT_REPLAYABLE else program


def _build(fn, args):
    from pyjax._src.api import make_jaxpr

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            closed = make_jaxpr(fn)(*args)
        except Exception:  # noqa: BLE001  (whatever it is, the ordinary path raises it to the user)
            return _NOT_REPLAYABLE
    if caught:
        # A call that warns keeps warning on every call: no fast path.
        return _NOT_REPLAYABLE
    if len(closed.jaxpr.outvars) != 1:
        return _NOT_REPLAYABLE
    return _Program(closed)


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
