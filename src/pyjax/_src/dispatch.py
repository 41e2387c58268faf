"""Eager execution: the eval trace, which runs each primitive at once.

There is no per-op compilation: `bind` under the eval trace looks up the
output aval (memoised abstract evaluation), calls the backend's impl on the
NumPy buffers and wraps the result. That is the whole eager path, which is
why an eager op costs little more than the NumPy call it makes.

The end of the module is the eager dispatch API jax.numpy calls (and
nothing else of core, dispatch or a backend): `active_trace`, the eval
trace's plans (`exact_plan`, `apply_unary`, `apply_with_scalar`), and
`Site`/`fast_path`, which run a function of arrays and static options as
a program compiled once per avals and options.
"""

from __future__ import annotations

import functools
import types
import warnings
from collections.abc import Callable
from contextvars import ContextVar

import numpy as np

from pyjax._src import config, core, dtypes, errors
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray, check_allocatable
from pyjax._src.cache_key import params_storable, remember_after, typed_key
from pyjax._src.core import python_scalar_aval
from pyjax._src.rules import missing_rule_error
from pyjax._src.tokens import AbstractToken, Token
from pyjax._src.sharding.mesh import eager_mesh
from pyjax._src.sharding.sharded_array import (
    ShardedArray, place_result, place_typed, relayout_auto, type_on_context_mesh,
)

_SCALAR_TYPES = (bool, int, float, complex)

# Inside jax.ensure_compile_time_eval: the trace that was current when it was
# entered (the eval trace runs meanwhile, so concrete values compute at once).
compile_time_outer: ContextVar = ContextVar("pyjax_compile_time_outer", default=None)
_MAX_PLANS = 8192


class _PlainMode:
    """The floating-point mode of a backend that sets none."""

    @staticmethod
    def run(fn, *args):
        return fn(*args)


# The default backend's floating-point mode: `fp_mode.run(fn, *args)` is
# `fn(*args)` computed as the backend computes (the NumPy backend's fpenv:
# XLA:CPU's denormal flushing). Every eager computation runs through it;
# `run` is looked up per call, as a backend may rebind it.
fp_mode = _PlainMode


def set_fp_mode(mode) -> None:
    """Installs the default backend's floating-point mode (an object with `run`)."""
    global fp_mode
    fp_mode = mode


# Loads the default backend, which fills the eval trace's table, sets the
# floating-point mode and registers its tiers: called by the first eager call
# that finds no impl (backends.wire_numpy sets it; None once loaded).
_backend_loader: list = [None]


def set_backend_loader(load) -> None:
    """Installs `load()`, called once when an impl is first missing."""
    _backend_loader[0] = load


def load_backend() -> bool:
    """Loads the default backend if it is not yet; whether it was called."""
    load = _backend_loader[0]
    if load is None:
        return False
    load()  # (a second thread waits in the import until the first has loaded it)
    _backend_loader[0] = None
    return True


def constant_on_context_mesh(x: Any) -> Any:
    """An eager Array made from a host value, under `set_mesh` typed on its
    mesh and placed replicated (``P()``), as JAX puts constants there."""
    if eager_mesh[0] is None:
        return x
    return type_on_context_mesh(x, replicated=True)


# An eager operation with a placed operand, run per device (spmd_eager.py
# installs it; NotImplemented: computed on the assembled value).
PLACED_EAGER: list = [lambda primitive, args, params: NotImplemented]


class EvalTrace(core.Trace):
    """Runs primitives on concrete values with a backend's impl table."""

    def __init__(self, impls: dict):
        self.impls = impls
        for primitive, impl in _pending_impls.items():  # (def_impl before any backend was installed)
            impls.setdefault(primitive, _impl_on_buffers(primitive, impl))

    def impl_of(self, primitive):
        """The table's impl of `primitive` (None: it has none), the default
        backend loaded first when it is not yet."""
        impl = self.impls.get(primitive)
        if impl is None and load_backend():
            impl = self.impls.get(primitive)
        return impl

    # Eager plans. A call on one or two Arrays is keyed by the operands' avals
    # and the param values in `primitive.eager_plans`; the plan holds the
    # NumPy call (the ufunc itself where the impl is one or only drops
    # params), the output aval, and whether the call is known to return that
    # dtype already. A hit is one dict lookup, the NumPy call and the Array
    # wrapper: the same impl and abstract evaluation as the general path.

    def process_primitive(self, primitive, args, params):
        n = len(args)
        if n == 2:
            x, y = args
            if type(x) is Array and type(y) is Array:
                key = (x.aval, y.aval, *params.values()) if params else (x.aval, y.aval)
                plan = self._cached_plan(primitive, key, (x.aval, y.aval), params)
                if plan:
                    call, out_aval, exact = plan
                    return _wrap(fp_mode.run(call, x._value, y._value), out_aval, exact)
        elif n == 1 and type(args[0]) is Array:
            return self.apply_unary(primitive, args[0], params)
        avals = []
        arrays = False
        for x in args:
            tx = type(x)
            if tx is Array:
                avals.append(x.aval)
                arrays = True
            elif tx in _SCALAR_TYPES:
                avals.append(python_scalar_aval(tx))
            else:
                return self._process_general(primitive, args, params)
        if not arrays and args:  # Python scalars alone (`lax.sin(1.0)`): see _process_general
            return self._process_general(primitive, args, params)
        avals = tuple(avals)
        try:
            out_aval = primitive._abstract_eval_cache[(avals, *params.values()) if params else avals]
            impl = self.impls[primitive]
            if eager_mesh[0] is not None:
                raise KeyError  # (under set_mesh: typed on it by the general path)
        except (KeyError, TypeError):
            return self._run(primitive, avals, [x._value if type(x) is Array else x for x in args], params)
        out = fp_mode.run(functools.partial(impl, **params) if params else impl,
                            *[x._value if type(x) is Array else x for x in args])
        if primitive.multiple_results:
            outs = [Array(v, a) for v, a in zip(out, out_aval, strict=True)]
            return [_typed(o) for o in outs] if _names_placement(out_aval) else outs
        dtype = getattr(out, "dtype", None)
        if dtype is not out_aval.dtype and dtype != out_aval.dtype:
            out = np.asarray(out, out_aval.dtype)
        if getattr(out_aval, "sharding", None) is not None or getattr(out_aval, "memory_space", None) is not None:
            return place_typed(Array(out, out_aval))  # (a result whose type names its devices)
        return Array(out, out_aval)

    def apply_unary(self, primitive, x: Array, params: dict):
        """`primitive(x, **params)` for an Array `x`, through the eager plans."""
        key = (x.aval, *params.values()) if params else (x.aval,)
        plan = self._cached_plan(primitive, key, (x.aval,), params)
        if not plan:
            return self._process_general(primitive, (x,), params)
        call, out_aval, exact = plan
        return _wrap(fp_mode.run(call, x._value), out_aval, exact)

    def _cached_plan(self, primitive, key, avals: tuple, params: dict):
        """The plan memoised under `key`, built on a miss; False where there is
        none (multiple results, no impl, or an unhashable param value). A
        plan built here is memoised by its first call, once that returned:
        a call that raises leaves no plan behind for its key."""
        try:
            plan = primitive.eager_plans.get(key)
        except TypeError:  # an unhashable param: the general path runs
            return False
        if plan is not None:
            return plan
        plan = self.make_plan(primitive, avals, params)
        plans = primitive.eager_plans
        if params and not params_storable(params.values()):
            return plan  # for this call only: its key would equal an int-valued one's
        if len(plans) >= _MAX_PLANS:  # programs with ever-new shapes: start afresh
            plans.clear()
        if not plan:
            plans[key] = plan  # (the general path, which checks everything, runs)
            return plan
        call = plan[0]
        return (lambda *buffers: remember_after(plans, key, plan, call, *buffers)), plan[1], plan[2]

    def make_plan(self, primitive, avals: tuple, params: dict):
        """The plan of `primitive` on `avals` (False: none), not memoised:
        (NumPy call, out aval, whether the call returns that dtype). Abstract
        evaluation runs here, so a bad call raises its error exactly as the
        slow path."""
        impl = self.impl_of(primitive)
        if impl is None or eager_mesh[0] is not None:
            # (no impl: the general path names it first, as JAX's eager bind;
            # under set_mesh, the general path types the result on the mesh)
            return False
        out_aval = primitive.out_avals(avals, params)
        check_allocatable(out_aval)  # (a view of a huge shape would spin later, not fail)
        if primitive.multiple_results or _names_placement(out_aval):
            return False  # (a placed result is split over its devices by the general path)
        ufunc = impl if isinstance(impl, np.ufunc) else getattr(impl, "ufunc", None)
        if ufunc is not None and out_aval.dtype in getattr(impl, "exact_dtypes", ()):
            ufunc = None  # the impl computes this dtype as XLA does, not as the ufunc
        if ufunc is not None and any(isinstance(a.dtype, dtypes.ExtendedDType) for a in avals):
            ufunc = None  # a ufunc has no loop for key buffers; the impl knows them (eq, ne)
        if ufunc is not None:
            # A ufunc's result dtype depends on its operands' dtypes alone:
            # one call on empty operands tells whether it is already right.
            empties = [np.empty(0, a.dtype) for a in avals]
            return (ufunc, out_aval, ufunc(*empties).dtype == out_aval.dtype)
        # An impl may declare that it always returns the promised dtype.
        exact = getattr(impl, "dtype_exact", False)
        return (functools.partial(impl, **params) if params else impl, out_aval, exact)

    def apply_with_scalar(self, primitive, x: Array, scalar, scalar_aval, scalar_first: bool):
        """`primitive(x, scalar)` (or reversed) for a param-free binary primitive,
        through the eager plans: jax.numpy's binary functions call this for the
        most common eager operation there is, `array + 1.0`. `scalar_aval` is
        the weak aval the scalar has next to `x`."""
        avals = (scalar_aval, x.aval) if scalar_first else (x.aval, scalar_aval)
        plan = self._cached_plan(primitive, avals, avals, {})
        if not plan:
            return self._run(primitive, avals, [scalar, x._value] if scalar_first else [x._value, scalar], {})
        call, out_aval, exact = plan
        run = fp_mode.run
        return _wrap(run(call, scalar, x._value) if scalar_first else run(call, x._value, scalar), out_aval, exact)

    def _process_general(self, primitive, args, params):
        values, avals = [], []
        placed = False
        for x in args:
            tx = type(x)
            if tx is Array:
                value, aval = x._value, x.aval
            elif tx is ShardedArray:
                if not placed:  # (per device where it can: spmd_eager.py)
                    out = PLACED_EAGER[0](primitive, args, params)
                    if out is not NotImplemented:
                        return out
                # Else computed on its assembled value, the result placed as
                # JAX places it.
                value, aval = x._value, x.aval
                placed = True
            elif tx in _SCALAR_TYPES:
                value, aval = x, python_scalar_aval(tx)
            else:
                outer = compile_time_outer.get()
                if outer is not None and isinstance(x, core.Tracer):
                    # ensure_compile_time_eval: an op on a traced value is staged as usual.
                    with core.set_current_trace(outer):
                        return outer.process_primitive(primitive, args, params)
                value, aval = _concrete(x)
            values.append(value)
            avals.append(aval)
        if values and all(type(x) in _SCALAR_TYPES for x in args):
            values = _scalar_buffers(args, avals)
        if placed:
            out = place_result(self._run(primitive, tuple(avals), values, params), args)
            return relayout_auto(out, primitive, params, avals, args)
        return self._run(primitive, tuple(avals), values, params)

    def _run(self, primitive, avals, values, params):
        if eager_mesh[0] is not None:
            return type_on_context_mesh(self._run_plain(primitive, avals, values, params))
        return self._run_plain(primitive, avals, values, params)

    def _run_plain(self, primitive, avals, values, params):
        impl = self.impl_of(primitive)
        if impl is None:  # (before abstract evaluation: JAX's eager bind calls the impl first)
            raise missing_rule_error("impl", primitive.name)
        out_aval = primitive.out_avals(avals, params)
        check_allocatable(out_aval)
        out = fp_mode.run(functools.partial(impl, **params) if params else impl, *values)
        if primitive.multiple_results:
            outs = [Array(v, a) for v, a in zip(out, out_aval, strict=True)]
            return [_typed(o) for o in outs] if _names_placement(out_aval) else outs
        dtype = getattr(out, "dtype", None)
        if dtype is not out_aval.dtype and dtype != out_aval.dtype:
            out = np.asarray(out, out_aval.dtype)  # e.g. NumPy returned a Python scalar
        if out_aval.sharding is not None or out_aval.memory_space is not None:
            return place_typed(Array(out, out_aval))  # (a result whose type names its devices)
        return Array(out, out_aval)


# ---------------------------------------------------------------------------
# jax_enable_checks: every impl's output checked against its abstract value.
#
# The mode selects code instead of being read per call: while it is on, the
# default trace is a CheckingEvalTrace (it makes no eager plans, so every
# call, jax.numpy's fast paths included, reaches its checked `_run`), and
# compiled code carries a check line after each equation (compile.py; the
# jit cache key holds the option). Off, nothing of it runs.


class ImplCheckError(AssertionError):
    """An impl returned a value its primitive's abstract evaluation did not promise."""


_SCALAR_KINDS = {bool: "b", int: "iu", float: "f", complex: "c"}


def _describe(value) -> str:
    dtype = getattr(value, "dtype", None)
    if dtype is None:
        return f"{type(value).__name__} {value!r:.60}"
    return f"{dtype}{list(np.shape(value))}".replace(" ", "")


def _matches(value, aval) -> bool:
    dtype = aval.dtype
    if not isinstance(dtype, np.dtype):  # an extended dtype (PRNG keys): the buffer's leading dims
        return np.shape(value)[:len(aval.shape)] == aval.shape
    tv = type(value)
    if tv in _SCALAR_KINDS:  # a Python scalar stands for a 0-d value of its kind
        return not aval.shape and dtype.kind in _SCALAR_KINDS[tv]
    return getattr(value, "dtype", None) == dtype and np.shape(value) == aval.shape


def _params_text(params: dict) -> str:
    return ", ".join(f"{k}={v!r:.120}" for k, v in params.items())


def check_outputs(name: str, params: dict, out_avals: list, *outs) -> None:
    """Raises ImplCheckError unless each of `outs` has the shape and dtype of
    its abstract value (weak types do not apply to buffers). `name` names the
    primitive (or region) that computed them."""
    if len(outs) != len(out_avals):
        raise ImplCheckError(f"jax_enable_checks: {name} returned {len(outs)} outputs, but its abstract "
                             f"evaluation gives {len(out_avals)}; params: {_params_text(params)}")
    for k, (out, aval) in enumerate(zip(outs, out_avals)):
        if not _matches(out, aval):
            expected = aval.str_short(short_dtypes=False) if hasattr(aval, "str_short") else str(aval)
            raise ImplCheckError(
                f"jax_enable_checks: {name} returned {_describe(out)} for output {k}, but its abstract "
                f"evaluation gives {expected}; params: {_params_text(params)}")


class CheckingEvalTrace(EvalTrace):
    """The eval trace of `jax_enable_checks`: no eager plans, and each impl's
    output is checked against the primitive's abstract value."""

    def __init__(self, plain: EvalTrace):
        super().__init__(plain.impls)
        self.plain = plain  # the trace to restore when the mode goes off

    def process_primitive(self, primitive, args, params):
        return self._process_general(primitive, args, params)

    def apply_unary(self, primitive, x: Array, params: dict):
        return self._process_general(primitive, (x,), params)

    def apply_with_scalar(self, primitive, x: Array, scalar, scalar_aval, scalar_first: bool):
        avals = (scalar_aval, x.aval) if scalar_first else (x.aval, scalar_aval)
        return self._run(primitive, avals, [scalar, x._value] if scalar_first else [x._value, scalar], {})

    def _cached_plan(self, primitive, key, avals: tuple, params: dict):
        return False

    def _run(self, primitive, avals, values, params):
        if eager_mesh[0] is not None:
            return type_on_context_mesh(self._run_plain(primitive, avals, values, params))
        return self._run_plain(primitive, avals, values, params)

    def _run_plain(self, primitive, avals, values, params):
        impl = self.impl_of(primitive)
        if impl is None:  # (before abstract evaluation: JAX's eager bind calls the impl first)
            raise missing_rule_error("impl", primitive.name)
        out_aval = primitive.out_avals(avals, params)
        check_allocatable(out_aval)
        out = fp_mode.run(functools.partial(impl, **params) if params else impl, *values)
        if primitive.multiple_results:
            out = list(out)
            check_outputs(primitive.name, params, list(out_aval), *out)
            outs = [Array(v, a) for v, a in zip(out, out_aval, strict=True)]
            return [_typed(o) for o in outs] if _names_placement(out_aval) else outs
        check_outputs(primitive.name, params, [out_aval], out)
        if getattr(out, "dtype", None) != out_aval.dtype:
            out = np.asarray(out, out_aval.dtype)  # a Python scalar
        if out_aval.sharding is not None or out_aval.memory_space is not None:
            return place_typed(Array(out, out_aval))
        return Array(out, out_aval)


_check_hooks: list = []  # called on every switch (control_flow.py drops its compiled bodies)


def sync_checks() -> None:
    """Installs the checking eval trace while `jax_enable_checks` is on, the
    plain one while it is off (called on every change of the option)."""
    trace = core._default_trace[0]
    if trace is None:
        return
    on = config.enable_checks.value
    if on and type(trace) is EvalTrace:
        core.set_default_trace(CheckingEvalTrace(trace))
    elif not on and type(trace) is CheckingEvalTrace:
        core.set_default_trace(trace.plain)
    else:
        return
    for hook in _check_hooks:
        hook()


config.enable_checks.add_change_hook(sync_checks)


def _scalar_buffers(args, avals) -> list:
    # Operands that are all Python scalars become NumPy scalars of their
    # (weak) dtypes first, as JAX converts them and as compiled code holds
    # literals: the impl then computes in float32, not in float64 from the
    # unrounded value, and an int out of int32's range raises OverflowError
    # instead of wrapping around.
    out = []
    for x, aval in zip(args, avals, strict=True):
        if type(x) is int:
            dtypes.scalar_type_to_dtype(int, x)  # raises JAX's OverflowError
        out.append(np.asarray(x, aval.dtype)[()])
    return out


def _names_placement(out) -> bool:
    # Whether an abstract-eval result names devices (a sharding or a memory
    # space) or holds a token (which _typed makes a Token).
    for a in (out if isinstance(out, (list, tuple)) else (out,)):
        if getattr(a, "sharding", None) is not None or getattr(a, "memory_space", None) is not None \
                or type(a) is AbstractToken:
            return True
    return False


def _typed(out: Array):
    # One result of a multiple-results primitive (jit, cond, scan...): a token is a Token.
    return Token(out._value) if type(out.aval) is AbstractToken else place_typed(out)


def _wrap(out, out_aval, exact: bool) -> Array:
    # The plan's result as an Array of the promised dtype.
    if not exact and out.dtype != out_aval.dtype:
        out = np.asarray(out, out_aval.dtype)
    return Array(out, out_aval)


def _concrete(x):
    if isinstance(x, core.Tracer):
        raise errors.escaped_tracer_error(x)
    if isinstance(x, (np.ndarray, np.generic)):
        dtype = dtypes.canonicalize_array_dtype(x.dtype)  # (TypeError for a non-native byte order)
        value = x if x.dtype == dtype else x.astype(dtype)
        return value, ShapedArray(x.shape, dtype, False)
    if isinstance(x, Array):  # a subclass
        return x._value, x.aval
    raise TypeError(f"Value {x!r} of type {type(x)} is not a valid JAX type")


# ---------------------------------------------------------------------------
# Primitive.def_impl: a library's impl, run by the default backend.
#
# A backend calls its impls on buffers and expects buffers back; a library's
# impl (JAX's def_impl) takes and returns Arrays and is written with
# jax.numpy. The adapter wraps the buffers, runs the impl under the eval
# trace (compiled code may run while another trace is current) and unwraps
# what it returns.


def _impl_on_buffers(primitive, impl):
    def run(*buffers, **params):
        args = [Array(b, _buffer_aval(b)) for b in buffers]
        token = core._trace_ctx.set(None)  # the default (eval) trace
        try:
            out = impl(*args, **params)
        finally:
            core._trace_ctx.reset(token)
        if primitive.multiple_results:
            return [_to_buffer(primitive, o) for o in out]
        return _to_buffer(primitive, out)

    run.user_impl = impl
    return run


def _buffer_aval(buffer) -> ShapedArray:
    if type(buffer) in _SCALAR_TYPES:
        return python_scalar_aval(type(buffer))
    aval = getattr(buffer, "aval", None)  # a key buffer keeps its aval
    return aval if aval is not None else ShapedArray(np.shape(buffer), buffer.dtype, False)


def _to_buffer(primitive, out):
    if isinstance(out, core.Tracer):  # (checked first: a tracer is an instance of Array too)
        raise TypeError(f"the impl of primitive '{primitive.name}' returned a tracer ({out}); an impl must "
                        "compute a concrete value")
    if isinstance(out, Array):
        return out._value
    return np.asarray(out)


# Impls defined before the default backend is installed, for its table.
_pending_impls: dict = {}


def _register_impl(primitive, impl) -> None:
    # Every eval trace installed shares its impl table with compiled code
    # (the compiler is given the same dict), so one entry serves both.
    if getattr(getattr(impl, "func", impl), "defers_to_lowering", False):
        return  # partial(xla.apply_primitive, p): the lowering's function is the evaluation rule
    trace = core._default_trace[0]
    if trace is None:
        _pending_impls[primitive] = impl
        return
    trace.impls[primitive] = _impl_on_buffers(primitive, impl)
    primitive.eager_plans.clear()


core._impl_hooks.append(_register_impl)


# ---------------------------------------------------------------------------
# The eager dispatch API: the one way jax.numpy (and the libraries above it)
# run eagerly. `active_trace()` is None while nothing is traced; the entry
# points below reach the eval trace's plans; a `Site` (or `fast_path`) runs
# a jax.numpy function of arrays and static options as a program compiled
# once per avals and options. Whatever a backend does to run such a program
# faster (direct NumPy calls, a native tier) stays behind `EagerProgram.run`.

active_trace = core.active_trace
eager_memo = core.eager_memo


def eval_trace() -> EvalTrace:
    """The default (eval) trace: the one `bind` uses when nothing is traced."""
    return core._default_trace[0]


def exact_plan(primitive, key: tuple):
    """The eval trace's memoised plan of `primitive` under `key` (the
    operands' avals, then the param values) as (NumPy call, out aval),
    when its call already returns the promised dtype; else None."""
    plan = primitive.eager_plans.get(key)
    return plan if plan and plan[2] else None


def apply_unary(primitive, x: Array, params: dict):
    """`primitive.bind(x, **params)` for an eager Array `x`, through the eval trace's plans."""
    return core._default_trace[0].apply_unary(primitive, x, params)


def apply_with_scalar(primitive, x: Array, scalar, scalar_aval, scalar_first: bool):
    """`primitive(x, scalar)` (or reversed) for an eager Array and a Python
    scalar of weak aval `scalar_aval` next to it (EvalTrace.apply_with_scalar)."""
    return core._default_trace[0].apply_with_scalar(primitive, x, scalar, scalar_aval, scalar_first)


class EagerProgram:
    """An eager call's program with one output, compiled once for its key:
    `run(*buffers)` computes the output buffer. The backend that compiled
    it fills `run` (and `direct`, the direct NumPy call it makes, if any)
    and may rebind `run` later (a native tier going live)."""

    __slots__ = ("direct", "out_aval", "run")

    def __init__(self, out_aval):
        self.out_aval, self.direct, self.run = out_aval, None, None


# (trace, compile), installed by api.py: trace(fn, arrays) is make_jaxpr's
# closed jaxpr of fn(*arrays); compile(closed, buffers, program) fills
# `program` with the backend's code (dispatch sits below both).
_eager_compiler: list = [None, None]


def set_eager_compiler(trace: Callable, compile: Callable) -> None:
    """Installs how eager sites trace a function and compile its jaxpr."""
    _eager_compiler[:] = [trace, compile]


_NOT_REPLAYABLE = object()
_MAX_SITE_PLANS = 4096  # a bound on a site's cache for programs called with many different keys


class Site:
    """The eager fast path of one jax.numpy function of arrays and static options.

    Its plans are keyed by the arrays' avals, the config id and the option
    values as given. `fn(*arrays, **dict(zip(names, options)))` is the
    ordinary call; a caller passes the option values in `names` order, then
    any type tags (key parts only) where the type of an equal value changes
    the outcome (`axis_tag`; a Python scalar's type). From the second call
    of a key, `fn` is traced once and compiled by the backend, and later
    calls run the program; a key whose trace fails or warns keeps the
    ordinary path (it raises or warns there)."""

    __slots__ = ("fn", "name", "names", "plans")

    def __init__(self, name: str, fn: Callable, *names: str):
        self.name, self.fn, self.names = name, fn, names
        self.plans = core.eager_memo()  # dropped with the default trace

    def one(self, x: Array, *options) -> Array | None:
        """The result for one eager Array `x`, or None: run the ordinary path."""
        try:
            plan = self.plans.get((x.aval, config.trace_context_id(), *options))
        except TypeError:  # an option that is not static: no fast path
            return None
        if type(plan) is EagerProgram:
            return Array(fp_mode.run(plan.run, x._value), plan.out_aval)
        return self._miss((x,), (x.aval, config.trace_context_id(), *options), plan, options)

    def two(self, x: Array, y: Array, *options) -> Array | None:
        """The result for two eager Arrays, or None (see `one`)."""
        try:
            plan = self.plans.get((x.aval, y.aval, config.trace_context_id(), *options))
        except TypeError:
            return None
        if type(plan) is EagerProgram:
            return Array(fp_mode.run(plan.run, x._value, y._value), plan.out_aval)
        return self._miss((x, y), (x.aval, y.aval, config.trace_context_id(), *options), plan, options)

    def three(self, x: Array, y: Array, z: Array, *options) -> Array | None:
        """The result for three eager Arrays, or None (see `one`)."""
        try:
            key = (x.aval, y.aval, z.aval, config.trace_context_id(), *options)
            plan = self.plans.get(key)
        except TypeError:
            return None
        if type(plan) is EagerProgram:
            return Array(fp_mode.run(plan.run, x._value, y._value, z._value), plan.out_aval)
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
        if len(plans) >= _MAX_SITE_PLANS:
            plans.clear()
        plans[key] = 1
        return None
    plan = fp_mode.run(_build, fn, arrays)  # (its checks compute as the program will)
    if plan is _NOT_REPLAYABLE:  # (the ordinary path runs for this key: it raises or warns itself)
        plans[key] = plan
        return None
    return Array(fp_mode.run(remember_after, plans, key, plan, plan.run, *[a._value for a in arrays]), plan.out_aval)


def _build(fn, args):
    trace, compile_program = _eager_compiler
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            closed = trace(fn, args)
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
    program = EagerProgram(aval)
    compile_program(closed, [a._value for a in args], program)
    return program


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
        if active_trace() is not None:
            return fn(*args, **kwargs)
        if not kwargs and len(args) == 1 and type(args[0]) is Array:  # f(x): its key, without the general walk
            x = args[0]
            plan = plans.get((x.aval, None, config.trace_context_id()))
            if type(plan) is EagerProgram:
                return Array(fp_mode.run(plan.run, x._value), plan.out_aval)
        arrays: list = []
        try:
            key = (*[_key_part(a, arrays) for a in args], _key_part(kwargs, arrays) if kwargs else None,
                   config.trace_context_id())
            plan = plans.get(key)
        except TypeError:  # an option that is not static, or a non-Array array
            return fn(*args, **kwargs)
        if type(plan) is EagerProgram:
            return Array(fp_mode.run(plan.run, *[a._value for a in arrays]), plan.out_aval)

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


# Types of static options a library above keys by a function of the value
# (jax.numpy's scalar types, such as jnp.float32, by their dtype).
_KEYED_TYPES: dict = {}


def register_static_option_type(t: type, key: Callable) -> None:
    """`fast_path` keys an option of type `t` by `key(value)`."""
    _KEYED_TYPES[t] = key


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
    key = _KEYED_TYPES.get(t)
    if key is not None:
        return key(value)
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
