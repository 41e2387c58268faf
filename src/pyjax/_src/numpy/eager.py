"""Eager fast paths for jax.numpy functions of arrays with static options.

Eagerly, `jnp.sum(x)` or `jnp.mean(x, axis=0)` would redo all of jax.numpy's
Python work (argument checks, promotion, axis canonicalisation) and bind
each primitive through the evaluation trace, on every call. Their result
only depends on the arrays' avals, the static options and the
configuration, so once a call has been seen twice under one such key, the
function is traced into a jaxpr and compiled by the jit compiler, and later
calls run the compiled program: the same primitives, parameters and impls
as the slow path, hence the same values, dtypes and weak types, minus the
Python overhead. (The first call of a key takes the ordinary path, so code
that meets many shapes once each pays no compilation.)

A program over small arrays is then specialised further (`_specialise`):
equations on literals alone are folded once, and when a single equation is
left it runs as one direct NumPy call (`ufunc.reduce`, `ndarray.dot`,
`np.where`, or the eval trace's eager plan), checked bitwise against the
compiled program on the call that built it.

Each jnp function owns a `Site`: its plans are keyed by the arrays' avals,
the config id and the option values as given. Equal values of other types
(`0`, `0.0`, `False`) hash alike, so a caller adds a type tag for every
option where the type changes the outcome (`axis_tag`; a Python scalar's
type): elsewhere JAX treats them alike (`keepdims=0` is `keepdims=False`).

A function whose trace fails or warns keeps the ordinary path for that key
(it raises or warns there, as it should); so do traced calls and any
non-Array input.
"""

from __future__ import annotations

import functools
import operator
import types
import warnings
from collections.abc import Callable

import numpy as np

from pyjax._src import config, core
from pyjax._src.array import Array
from pyjax._src.cache_key import remember_after, typed_key
from pyjax._src import dispatch as _dispatch
from pyjax._src.dispatch import EvalTrace
from pyjax._src.jaxpr import Literal
from pyjax._src.jaxpr import Var as _Var
from pyjax._src.jit import jit_p
from pyjax._src.lax import dot as lax_dot
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.numpy.scalar_types import _ScalarMeta

_NOT_REPLAYABLE = object()
_MAX_PLANS = 4096  # a bound on a site's cache for programs called with many different keys
# Specialise only programs whose every value has fewer elements than this:
# below it the backend's impls make exactly the direct calls used here
# (no split across threads, select_n's plain np.where).
_SMALL = 4096


class _Program:
    """A jaxpr with one output, compiled by the default backend: `run`
    maps the input buffers to the output buffer. `direct` is the direct
    NumPy call it runs (see `_specialise`), or None; where the backend gave
    the program a native tier, `run` counts calls towards it and becomes
    the native code once that is live."""

    __slots__ = ("direct", "out_aval", "run")

    def __init__(self, closed, args):
        from pyjax._src.jit import compile_for_backend

        # Op by op in JAX: its top-level equations are separate computations.
        compiled = compile_for_backend(closed, fused=False)
        self.out_aval = closed.jaxpr.outvars[0].aval
        self.direct = direct = _specialise(closed, compiled, [a._value for a in args])
        native = getattr(compiled, "native", None)
        python = direct or _first_output(compiled)
        self.run = python if native is None else self._tiering(python, native, counts=direct is not None)

    def _tiering(self, python, native, counts: bool):
        # `python` until the program's native tier (backends/numpy/native/)
        # is live, then the native code's one-output callable. A direct call
        # (`counts`) reports to the tier itself; the compiled program does so
        # in its own code.
        steps = native.steps_per_call

        def run(*buffers):
            if counts:
                native.run(*buffers)  # (a checked call's native outputs wait in the tier)
            out = python(*buffers)
            if counts:
                native.check(steps, out)
            if native.live or native.dead:
                self.run = native.call1 if native.live and native.call1 is not None else python
            return out

        return run


# The type of a site's compiled plan, for the hottest call sites that read
# `Site.plans` themselves (jnp.sum with every default).
Program = _Program


def _first_output(compiled):
    return lambda *buffers: compiled(*buffers)[0]


class Site:
    """The eager fast path of one jax.numpy function.

    `fn(*arrays, **dict(zip(names, options)))` is the ordinary call; a
    caller passes the option values in `names` order, then any type tags
    (key parts only)."""

    __slots__ = ("fn", "name", "names", "plans")

    def __init__(self, name: str, fn, *names: str):
        self.name, self.fn, self.names = name, fn, names
        self.plans = core.eager_memo()  # dropped with the default trace

    def one(self, x: Array, *options):
        """The result for one eager Array `x`, or None: run the ordinary path."""
        try:
            plan = self.plans.get((x.aval, config.trace_context_id(), *options))
        except TypeError:  # an option that is not static: no fast path
            return None
        if type(plan) is _Program:
            return Array(_dispatch.fp_mode.run(plan.run, x._value), plan.out_aval)
        return self._miss((x,), (x.aval, config.trace_context_id(), *options), plan, options)

    def two(self, x: Array, y: Array, *options):
        """The result for two eager Arrays, or None (see `one`)."""
        try:
            plan = self.plans.get((x.aval, y.aval, config.trace_context_id(), *options))
        except TypeError:
            return None
        if type(plan) is _Program:
            return Array(_dispatch.fp_mode.run(plan.run, x._value, y._value), plan.out_aval)
        return self._miss((x, y), (x.aval, y.aval, config.trace_context_id(), *options), plan, options)

    def three(self, x: Array, y: Array, z: Array, *options):
        """The result for three eager Arrays, or None (see `one`)."""
        try:
            key = (x.aval, y.aval, z.aval, config.trace_context_id(), *options)
            plan = self.plans.get(key)
        except TypeError:
            return None
        if type(plan) is _Program:
            return Array(_dispatch.fp_mode.run(plan.run, x._value, y._value, z._value), plan.out_aval)
        return self._miss((x, y, z), key, plan, options)

    def _miss(self, arrays, key, plan, options):
        kwargs = dict(zip(self.names, options))  # options past the names are tags
        return _miss(self.plans, key, plan, arrays, lambda *a: self.fn(*a, **kwargs))


def _miss(plans: dict, key, plan, arrays, fn) -> Array | None:
    # A key without a program: its first sight takes the ordinary path (None)
    # and is remembered; the second builds the program of `fn(*arrays)` and
    # runs it (or finds there is none: None again, from then on). A program
    # is stored only once its first run returned (cache_key.remember_after).
    if type(core._default_trace[0]) is not EvalTrace or plan is _NOT_REPLAYABLE:
        return None
    if plan is None:
        if len(plans) >= _MAX_PLANS:
            plans.clear()
        plans[key] = 1
        return None
    plan = _dispatch.fp_mode.run(_build, fn, arrays)  # (its checks compute as the program will)
    if plan is _NOT_REPLAYABLE:  # (the ordinary path runs for this key: it raises or warns itself)
        plans[key] = plan
        return None
    return Array(_dispatch.fp_mode.run(remember_after, plans, key, plan, plan.run, *[a._value for a in arrays]), plan.out_aval)


def fast_path(fn: Callable) -> Callable:
    """`fn` (a jax.numpy function of arrays and static options) with the
    eager fast path of a `Site`: called eagerly with Arrays, or lists or
    tuples of them, in any positional or keyword argument and static
    values (ints, floats, bools, strings, None, dtypes, slices and tuples
    or lists of these) everywhere else, the second call with the same
    avals, options and configuration traces `fn` once, and later ones run
    the compiled program. Anything else calls `fn` itself."""
    plans = core.eager_memo()  # (avals, options, config id) -> plan, as a Site's

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if core._trace_ctx.get() is not None:
            return fn(*args, **kwargs)
        if not kwargs and len(args) == 1 and type(args[0]) is Array:  # f(x): its key, without the general walk
            x = args[0]
            plan = plans.get((x.aval, None, config.trace_context_id()))
            if type(plan) is _Program:
                return Array(_dispatch.fp_mode.run(plan.run, x._value), plan.out_aval)
        arrays: list = []
        try:
            key = (*[_key_part(a, arrays) for a in args], _key_part(kwargs, arrays) if kwargs else None,
                   config.trace_context_id())
            plan = plans.get(key)
        except TypeError:  # an option that is not static, or a non-Array array
            return fn(*args, **kwargs)
        if type(plan) is _Program:
            return Array(_dispatch.fp_mode.run(plan.run, *[a._value for a in arrays]), plan.out_aval)

        def call(*tracers):
            it = iter(tracers)
            return fn(*_substitute(args, it), **_substitute(kwargs, it))

        out = _miss(plans, key, plan, arrays, call)
        return fn(*args, **kwargs) if out is None else out

    # A jitted function (jnp.cumsum, as in JAX) keeps its stages API.
    for name in ("trace", "lower", "eval_shape", "clear_cache"):
        if hasattr(fn, name):
            setattr(wrapper, name, getattr(fn, name))
    return wrapper


def _key_part(value, arrays: list):
    # The cache-key part of an argument; Arrays are keyed by aval and
    # collected in order. Raises TypeError for anything not static. Values
    # equal across types (1, 1.0, True; 0.0 and -0.0) are told apart by
    # their type and bits (cache_key.typed_key).
    t = type(value)
    if t is Array:
        arrays.append(value)
        return value.aval
    if t in _PLAIN_KEYS:
        return t, value
    if t is tuple or t is list:
        if tuple(map(type, value)).count(int) == len(value):  # a shape, axes: the common case
            return t, value
        return (t, *[_key_part(v, arrays) for v in value])
    if t is float or t is complex:
        return typed_key(value)
    if t is dict:
        return (dict, *[(typed_key(k), _key_part(v, arrays)) for k, v in value.items()])
    if t is _ScalarMeta:  # jnp.float32 and the like
        return ("dtype", np.dtype(value.dtype))
    if t is types.FunctionType or t is types.BuiltinFunctionType:  # (lax.scatter for .at[].set): by identity
        return ("function", value)
    if isinstance(value, (np.ndarray, np.generic)):  # values, not options: the ordinary path
        raise TypeError("an array argument that is not an Array")
    return hashable(value)


_PLAIN_KEYS = frozenset({int, bool, str, type(None)})


def _substitute(value, tracers):
    # `value` with its Arrays replaced, in order, by the next tracers.
    t = type(value)
    if t is Array:
        return next(tracers)
    if t is tuple or t is list:
        return t(_substitute(v, tracers) for v in value)
    if t is dict:
        return {k: _substitute(v, tracers) for k, v in value.items()}
    return value


def axis_tag(axis):
    """The key tag of an `axis` option: its type (an int axis works, an
    equal float raises), per element for a tuple."""
    t = type(axis)
    return tuple(map(type, axis)) if t is tuple else t


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
    aval = closed.jaxpr.outvars[0].aval
    if getattr(aval, "sharding", None) is not None or getattr(aval, "memory_space", None) is not None:
        return _NOT_REPLAYABLE  # (a placed result: the ordinary path splits it over its devices)
    return _Program(closed, args)


# --- specialisation of small programs


_VAR = object()  # in an operand layout: a variable operand (the others are constant buffers)


class _Arg:
    """In a `_Call`'s arguments: the k-th variable operand."""

    __slots__ = ("k",)

    def __init__(self, k: int):
        self.k = k


_ARG = [_Arg(k) for k in range(8)]


class _Call:
    """`fn(*args)`: an argument is an `_Arg`, a nested `_Call` or a constant."""

    __slots__ = ("args", "fn")

    def __init__(self, fn, args: tuple):
        self.fn, self.args = fn, args


def _function(call: _Call, n_inputs: int):
    """`call` as one Python function of the inputs: the bare callable when
    it takes exactly the inputs in order, else generated source that nests
    the calls directly (no lambda per call: ~0.15 us each)."""
    if len(call.args) == n_inputs and all(a is _ARG[k] for k, a in enumerate(call.args)):
        return call.fn
    namespace: dict = {}

    def expr(c) -> str:
        if type(c) is _Arg:
            return f"x{c.k}"
        if type(c) is _Call:
            name = f"f{len(namespace)}"
            namespace[name] = c.fn
            return f"{name}({', '.join(expr(a) for a in c.args)})"
        name = f"c{len(namespace)}"
        namespace[name] = c
        return name

    params = ", ".join(f"x{k}" for k in range(n_inputs))
    exec(f"def run({params}):\n    return {expr(call)}\n", namespace)  # noqa: S102 (our own source)
    return namespace["run"]


def _bound(fn, layout: tuple) -> _Call:
    # `fn` over the layout's operands: variables numbered in order.
    k = iter(range(len(layout)))
    return _Call(fn, tuple(_ARG[next(k)] if v is _VAR else v for v in layout))


# Primitives whose impl is one ufunc for these output dtype kinds only
# (integer division needs XLA's rounding and division-by-zero rules; float
# division XLA's reciprocals).
_INEXACT_UFUNCS = {(lax_ew.div_p, "c"): np.true_divide}  # (float division: `_division_call`)
_BLAS_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))


def _specialise(closed, compiled, buffers):
    """A direct call computing `closed`'s output from its input buffers, or
    None (the compiled program runs). `jit` equations are inlined and
    literal-only equations folded here; then one or two equations must be
    left, the first reading every input once, in order, the second only the
    first's result. The call is checked against `compiled` on `buffers`
    (the inputs of the call that built it): same dtype, shape and bits, or
    it is not used."""
    jaxpr = closed.jaxpr
    trace = core._default_trace[0]
    if any(v.aval.size >= _SMALL for v in (*jaxpr.invars, *jaxpr.outvars)):
        return None
    live: list = []  # (eqn, operands): an operand is a Var (computed per call) or a constant buffer
    env = {v: _buffer(c) for v, c in zip(jaxpr.constvars, closed.consts, strict=True)}
    env.update((v, v) for v in jaxpr.invars)
    if not _flatten(trace, jaxpr, env, live):
        return None
    out = env.get(jaxpr.outvars[0]) if type(jaxpr.outvars[0]) is not Literal else None
    if not 1 <= len(live) <= 2 or out is not live[-1][0].outvars[0]:
        return None
    (eqn, operands), *rest = live
    if [v for v in operands if type(v) is _Var] != list(jaxpr.invars):
        return None
    spec = _direct_call(trace, eqn, operands)
    if rest and spec is not None:
        then_eqn, then_operands = rest[0]
        variables = [v for v in then_operands if type(v) is _Var]
        then = _direct_call(trace, then_eqn, then_operands) if variables == [eqn.outvars[0]] else None
        spec = None if then is None else _Call(then.fn, tuple(spec if a is _ARG[0] else a for a in then.args))
    if spec is None:
        return None
    run = _function(spec, len(jaxpr.invars))
    try:
        with np.errstate(all="ignore"):  # the call being built warns as it runs, not here too
            mine, theirs = run(*buffers), compiled(*buffers)[0]
    except Exception:  # noqa: BLE001  (the compiled program stays in charge)
        return None
    mine, theirs = np.asarray(mine), np.asarray(theirs)
    if mine.dtype != theirs.dtype or mine.shape != theirs.shape or mine.tobytes() != theirs.tobytes():
        return None
    return run


def _flatten(trace, jaxpr, env: dict, live: list) -> bool:
    """Appends `jaxpr`'s equations to `live` with `env` (Var -> Var or
    constant buffer) applied, inlining `jit` bodies and computing
    equations on constants alone at once; False for anything else than
    small single-result equations without effects."""
    for eqn in jaxpr.eqns:
        operands = [_literal(v) if type(v) is Literal else env[v] for v in eqn.invars]
        if eqn.primitive is jit_p:
            body = eqn.params["jaxpr"]
            inner = {v: _buffer(c) for v, c in zip(body.jaxpr.constvars, body.consts, strict=True)}
            inner.update(zip(body.jaxpr.invars, operands, strict=True))
            if not _flatten(trace, body.jaxpr, inner, live):
                return False
            for outer, v in zip(eqn.outvars, body.jaxpr.outvars, strict=True):
                env[outer] = _literal(v) if type(v) is Literal else inner[v]
            continue
        if ((eqn.primitive.multiple_results and len(eqn.outvars) != 1) or eqn.effects
                or any(v.aval.size >= _SMALL for v in eqn.outvars)):
            return False
        if any(type(v) is _Var for v in operands):
            live.append((eqn, operands))
            env[eqn.outvars[0]] = eqn.outvars[0]
            continue
        impl = trace.impls.get(eqn.primitive)
        if impl is None:
            return False
        out = impl(*operands, **eqn.params)
        env[eqn.outvars[0]] = np.asarray(out[0] if eqn.primitive.multiple_results else out, eqn.outvars[0].aval.dtype)
    return True


_FIRST = operator.itemgetter(0)


def _buffer(value):
    return value._value if type(value) is Array else np.asarray(value)


def _literal(literal: Literal):
    # A 0-d array of the literal's dtype: NumPy treats it as that dtype, as
    # compiled code's NumPy scalar, and takes its quickest path for it.
    return np.asarray(literal.val, literal.aval.dtype)


def _direct_call(trace, eqn, operands: list):
    """The NumPy call of `eqn` on its variable operands (in order) with its
    constant operands bound; None when there is none."""
    primitive, params = eqn.primitive, eqn.params
    avals = [v.aval for v in eqn.invars]
    out_aval = eqn.outvars[0].aval
    layout = tuple(_VAR if type(v) is _Var else v for v in operands)
    n_vars = sum(v is _VAR for v in layout)
    impl = trace.impls.get(primitive)
    ufunc = getattr(impl, "reduce_ufunc", None)  # a reduction whose impl is `ufunc.reduce` (impls.py)
    if ufunc is not None and n_vars == 1 and avals[0].ndim and avals[0].size:
        own_dtype = impl.reduce_in_own_dtype
        axes, dtype = params["axes"], avals[0].dtype
        # A float max/min orders its zeros after `ufunc.reduce` (impls.py `reduce_call`).
        reduce = impl.reduce_call if dtype.kind in "fV" and hasattr(impl, "reduce_call") else ufunc.reduce
        # NumPy sums floats in their own dtype anyway; it widens small ints and bools.
        dtype = dtype if own_dtype and dtype.kind not in "fc" else None
        if dtype is None and axes == (0,) and avals[0].ndim == 1:
            return _Call(reduce, (_ARG[0],))  # its defaults: axis 0, NumPy's dtype
        return _Call(reduce, (_ARG[0], axes[0] if len(axes) == 1 else axes, dtype))
    if primitive is lax_dot.dot_general_p and n_vars == 2:
        (lc, rc), (lb, _) = params["dimension_numbers"]
        lhs, rhs = avals
        if (not lb and len(lc) == 1 and lhs.ndim in (1, 2) and rhs.ndim in (1, 2)
                and lc[0] == lhs.ndim - 1 and rc[0] == 0
                and lhs.dtype == rhs.dtype == out_aval.dtype and lhs.dtype in _BLAS_DTYPES):
            return _Call(np.ndarray.dot, (_ARG[0], _ARG[1]))  # as compiled code calls it (`a.dot(b)`)
    if primitive.multiple_results:
        # One result by signature (a sort of one operand): as the impl says it
        # computes that result alone, else the first of the impl's results.
        if impl is None:
            return None
        single = getattr(impl, "single_result", None)
        if single is not None:
            return _bound(functools.partial(single, **params), layout)
        return _Call(_FIRST, (_bound(functools.partial(impl, **params), layout),))
    if primitive is lax_ew.select_n_p and len(layout) == 3 and avals[0].dtype == np.bool_ and avals[0].ndim:
        return _where_call(*layout)
    if primitive is lax_ew.div_p and out_aval.dtype.kind == "f":
        return _division_call(layout, avals, out_aval)
    if len(avals) in (1, 2):
        key = (*avals, *params.values())
        try:  # (the bare plan: a memoised one, or one built for this program alone)
            plan = primitive.eager_plans.get(key) or trace._plan(key, primitive, tuple(avals), params)
        except TypeError:
            return None
        if plan and plan[1] == out_aval:
            call = plan[0] if plan[2] else _INEXACT_UFUNCS.get((primitive, out_aval.dtype.kind))
            if call is not None:
                return _bound(call, layout)
    return None


def _division_call(layout, avals, out_aval):
    # As XLA divides (backends/numpy/xla/rewrite.py): elementwise, a division;
    # by a scalar constant broadcast over the result, a product with its
    # reciprocal. Anything else (a broadcast or full-shape constant divisor,
    # whose treatment depends on whether JAX fuses the equations) is left
    # to the compiled program.
    dividend, divisor = layout
    if dividend is not _VAR:
        return None
    if divisor is _VAR:
        return _Call(np.true_divide, (_ARG[0], _ARG[1])) if avals[1].shape == out_aval.shape else None
    if np.ndim(divisor) or not out_aval.ndim:
        return None
    reciprocal = np.true_divide(np.ones((), out_aval.dtype), divisor)
    return _Call(np.multiply, (_ARG[0], reciprocal))


def _where_call(which, false_case, true_case):
    # select_n(which, false_case, true_case) is np.where(which, true, false).
    if which is not _VAR:
        return None
    k = iter(range(1, 3))
    false_arg = _ARG[next(k)] if false_case is _VAR else false_case
    true_arg = _ARG[next(k)] if true_case is _VAR else true_case
    if false_case is not _VAR and true_case is not _VAR:
        return None
    return _Call(np.where, (_ARG[0], true_arg, false_arg))


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
    triples; scalars typed, as `cache_key.typed_key`), or raises TypeError
    for anything unsuitable (arrays, ...)."""
    t = type(value)
    if value is None or t in _SCALARS or value is Ellipsis:
        return (t, typed_key(value))
    if t is slice:
        return ("slice", hashable(value.start), hashable(value.stop), hashable(value.step))
    if t in (tuple, list):
        return (t, *(hashable(v) for v in value))
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return ("dtype", np.dtype(value))
    raise TypeError(f"not a static option: {t}")


_SCALARS = frozenset({int, bool, str, float, complex})
