"""Eager execution: the eval trace, which runs each primitive at once.

There is no per-op compilation: `bind` under the eval trace looks up the
output aval (memoised abstract evaluation), calls the backend's impl on the
NumPy buffers and wraps the result. That is the whole eager path, which is
why an eager op costs little more than the NumPy call it makes.
"""

from __future__ import annotations

import functools
from contextvars import ContextVar

import numpy as np

from pyjax._src import config, core, dtypes, errors
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray, check_allocatable
from pyjax._src.cache_key import params_storable, remember_after
from pyjax._src.core import python_scalar_aval
from pyjax._src.rules import missing_rule_error
from pyjax._src.sharding.sharded_array import ShardedArray, place_result, place_typed

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


class EvalTrace(core.Trace):
    """Runs primitives on concrete values with a backend's impl table."""

    def __init__(self, impls: dict):
        self.impls = impls
        for primitive, impl in _pending_impls.items():  # (def_impl before any backend was installed)
            impls.setdefault(primitive, _impl_on_buffers(primitive, impl))

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
        except (KeyError, TypeError):
            return self._run(primitive, avals, [x._value if type(x) is Array else x for x in args], params)
        out = fp_mode.run(functools.partial(impl, **params) if params else impl,
                            *[x._value if type(x) is Array else x for x in args])
        if primitive.multiple_results:
            outs = [Array(v, a) for v, a in zip(out, out_aval, strict=True)]
            return [place_typed(o) for o in outs] if _names_placement(out_aval) else outs
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
        plan = self._plan(key, primitive, avals, params)
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

    def _plan(self, key, primitive, avals: tuple, params: dict):
        """The plan for `key` (False: none), not memoised. Abstract
        evaluation runs here, so a bad call raises its error exactly as the
        slow path."""
        impl = self.impls.get(primitive)
        if impl is None:
            return False  # (the general path names the missing impl first, as JAX's eager bind)
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
                # A placed operand: computed on its assembled value for now,
                # the result placed as JAX places it.
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
            return place_result(self._run(primitive, tuple(avals), values, params), args)
        return self._run(primitive, tuple(avals), values, params)

    def _run(self, primitive, avals, values, params):
        impl = self.impls.get(primitive)
        if impl is None:  # (before abstract evaluation: JAX's eager bind calls the impl first)
            raise missing_rule_error("impl", primitive.name)
        out_aval = primitive.out_avals(avals, params)
        check_allocatable(out_aval)
        out = fp_mode.run(functools.partial(impl, **params) if params else impl, *values)
        if primitive.multiple_results:
            outs = [Array(v, a) for v, a in zip(out, out_aval, strict=True)]
            return [place_typed(o) for o in outs] if _names_placement(out_aval) else outs
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
        impl = self.impls.get(primitive)
        if impl is None:  # (before abstract evaluation: JAX's eager bind calls the impl first)
            raise missing_rule_error("impl", primitive.name)
        out_aval = primitive.out_avals(avals, params)
        check_allocatable(out_aval)
        out = fp_mode.run(functools.partial(impl, **params) if params else impl, *values)
        if primitive.multiple_results:
            out = list(out)
            check_outputs(primitive.name, params, list(out_aval), *out)
            outs = [Array(v, a) for v, a in zip(out, out_aval, strict=True)]
            return [place_typed(o) for o in outs] if _names_placement(out_aval) else outs
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
    # Whether an abstract-eval result names devices (a sharding or a memory space).
    for a in (out if isinstance(out, (list, tuple)) else (out,)):
        if getattr(a, "sharding", None) is not None or getattr(a, "memory_space", None) is not None:
            return True
    return False


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
