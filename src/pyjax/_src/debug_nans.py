"""`jax_debug_nans` / `jax_debug_infs`: raise `FloatingPointError` where a
NaN (or an infinity) first appears.

Eagerly, while either option is on, the eval trace is `FloatCheckingEvalTrace`:
no eager plans, and every primitive's floating outputs are checked as it
returns (JAX checks every eager op too). A jitted function's compiled code
is the code it has with the options off; only its outputs are checked after
each call (JAX does the same). When one holds an invalid value, JAX re-runs
the function op by op; pyjax instead compiles the function's jaxpr once more
with a `float_check` equation after every equation with floating outputs,
inside loop, branch and call bodies too, and runs it on the same inputs: the
first check that fails names the primitive, its equation and the user's
source line that staged it. With both options off nothing here runs: the
jit cache entries and the code they compile are unchanged.

Beyond JAX, messages carry the location:
``invalid value (nan) encountered in log at model.py:42 (in loss)``.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import config, core, dispatch
from pyjax._src.rules import unimplemented
from pyjax._src.core import Primitive
from pyjax._src.debugging import debug_effect
from pyjax._src.interpreters import staging
from pyjax._src.jaxpr import Jaxpr, JaxprEqn, Literal, Var

__all__ = ["FloatCheckingEvalTrace", "check_compiled_outputs", "float_check_p", "instrument"]

def _kinds() -> tuple[bool, bool]:
    return config.debug_nans.value, config.debug_infs.value


def _where(source_info) -> str:
    if source_info is None:
        return ""
    code, line, _ = source_info
    return f" at {code.co_filename}:{line} (in {code.co_name})"


def _bad(value, nans: bool, infs: bool) -> str | None:
    """'nan' or 'inf' when the buffer holds one that is being checked for."""
    arr = np.asarray(value)
    if arr.dtype.kind not in "fc":
        if "float" not in arr.dtype.name:  # (ml_dtypes' bfloat16 and friends are checked as float32)
            return None
        arr = arr.astype(np.float32)
    # One pass, no temporary: a finite sum means every element is finite
    # (an inf or a NaN anywhere makes the sum inf or NaN; overflow is rechecked).
    if arr.size and np.isfinite(arr.sum()):
        return None
    if nans and np.isnan(arr).any():
        return "nan"
    if infs and np.isinf(arr).any():
        return "inf"
    return None


def _message(kind: str, name: str, source_info, eqn_text: str | None = None) -> str:
    text = f"invalid value ({kind}) encountered in {name}{_where(source_info)}"
    return text + (f"\n  equation: {eqn_text}" if eqn_text else "")


def check_values(values, name: str, source_info=None, eqn_text: str | None = None) -> None:
    """Raises FloatingPointError when a value holds a NaN (or inf) being checked for."""
    nans, infs = _kinds()
    for value in values:
        kind = _bad(value, nans, infs)
        if kind is not None:
            raise FloatingPointError(_message(kind, name, source_info, eqn_text))


# ---------------------------------------------------------------------------
# The check equation compiled into an instrumented program.

float_check_p = Primitive("float_check", multiple_results=True)
float_check_p.declare(sharding_reason='a check with no results (debug_nans)')
# An effect keeps it from dead-code elimination (it has no outputs).
float_check_p.effects_of = lambda params: frozenset({debug_effect})
_NOT_TRANSFORMED = unimplemented("float_check lives only in the instrumented program jax_debug_nans compiles")
float_check_p.def_jvp(_NOT_TRANSFORMED)
float_check_p.def_batch(_NOT_TRANSFORMED)


@float_check_p.def_abstract_eval
def _float_check_abstract_eval(*avals, name, source_info, eqn_text):
    return []


def float_check_impl(*values, name, source_info, eqn_text) -> list:
    """Raises FloatingPointError at the first invalid value of an instrumented program."""
    nans, infs = _kinds()
    if any(_bad(v, nans, infs) for v in values):
        _announce()  # (JAX's de-optimized run prints again at the eager operation)
        check_values(values, name, source_info, eqn_text)
    return []


def _is_floating(aval) -> bool:
    dtype = getattr(aval, "dtype", None)
    return dtype is not None and (np.dtype(dtype).kind in "fc" if isinstance(dtype, np.dtype) else
                                  "float" in str(dtype))


def _eqn_text(eqn: JaxprEqn) -> str:
    from pyjax._src.pretty import pp_eqn_str

    if eqn.primitive.body_params:  # (a call or loop: its body would fill the message)
        outs = " ".join(f"{v.aval.str_short()}" for v in eqn.outvars)
        return f"{outs} = {eqn.primitive.name}[...]"
    return pp_eqn_str(eqn)


def _instrument_param(value):
    if type(value) is Jaxpr:
        return instrument(value)
    if type(value) is tuple and any(type(v) is Jaxpr for v in value):
        return tuple(instrument(v) if type(v) is Jaxpr else v for v in value)
    return value


def instrument(jaxpr: Jaxpr) -> Jaxpr:
    """`jaxpr` with a `float_check` equation after each equation that has
    floating outputs, in its call, loop and branch bodies too."""
    eqns = []
    for eqn in jaxpr.eqns:
        if eqn.primitive.body_params:
            params = {k: _instrument_param(v) if k in eqn.primitive.body_params else v
                      for k, v in eqn.params.items()}
            eqn = eqn.replace(params=params, effects=eqn.effects | {debug_effect})
        eqns.append(eqn)
        checked = [v for v in eqn.outvars if type(v) is not Literal and _is_floating(v.aval)]
        if checked:
            params = dict(name=eqn.primitive.name, source_info=eqn.source_info, eqn_text=_eqn_text(eqn))
            eqns.append(JaxprEqn(float_check_p, checked, [], params, frozenset({debug_effect}), eqn.source_info))
    return Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, eqns, jaxpr.consts,
                 effects=jaxpr.effects | {debug_effect}, debug_info=jaxpr.debug_info)


def check_compiled_outputs(jaxpr: Jaxpr, name: str, flat_args, outs) -> None:
    """After a jitted call: if an output holds an invalid value, re-runs the
    jaxpr instrumented to raise at the equation that made the first one."""
    nans, infs = _kinds()
    kind = next((k for k in (_bad(o, nans, infs) for o in outs) if k is not None), None)
    if kind is None:
        return
    _announce()
    _rerun_instrumented(jaxpr, flat_args)
    raise FloatingPointError(
        f"invalid value ({kind}) encountered in jit({name}). Because jax_config.debug_nans.value and/or "
        "config.jax_debug_infs is set, the de-optimized function (i.e., the function as if the `jit` "
        "decorator were removed) was called in an attempt to get a more precise error message. However, "
        "the de-optimized function did not produce invalid values during its execution. This behavior "
        "can result from `jit` optimizations causing the invalid value to be produced. It may also arise "
        "from having nan/inf literals as inputs or outputs, like `jax.jit(lambda ...: jax.numpy.nan)(...)`.")


def _announce() -> None:
    # JAX prints this (to stdout, "nan" whatever was found) before it re-runs
    # a computation, eager operations included: each is a jitted call there.
    print("Invalid nan value encountered in the output of a jax.jit function. Calling the de-optimized version.")


def _rerun_instrumented(jaxpr: Jaxpr, flat_args) -> None:
    from pyjax._src.jit import compile_for_backend

    compiled = compile_for_backend(instrument(jaxpr))
    run = getattr(compiled, "fn", compiled)
    from pyjax._src.jit import _to_numpy

    dispatch.fp_mode.run(run, *[_to_numpy(x) for x in flat_args])


def _locate_in_body(primitive, avals, values, params, source_info) -> None:
    # An eager call, loop or branch whose output is invalid: its bodies are
    # run again instrumented, as one-equation program.
    invars = [Var(a) for a in avals]
    out = primitive.out_avals(tuple(avals), params)
    outvars = [Var(a) for a in (out if primitive.multiple_results else [out])]
    eqn = JaxprEqn(primitive, invars, outvars, params, frozenset(), source_info)
    _rerun_instrumented(Jaxpr([], invars, outvars, [eqn]), values)


# ---------------------------------------------------------------------------
# Eager: the checking eval trace.

class FloatCheckingEvalTrace(dispatch.EvalTrace):
    """The eval trace while jax_debug_nans or jax_debug_infs is on: no eager
    plans, and each primitive's floating outputs are checked as it returns."""

    def __init__(self, plain: dispatch.EvalTrace):
        super().__init__(plain.impls)
        self.plain = plain  # the trace to restore when both options go off

    def process_primitive(self, primitive, args, params):
        return self._process_general(primitive, args, params)

    def apply_unary(self, primitive, x, params: dict):
        return self._process_general(primitive, (x,), params)

    def apply_with_scalar(self, primitive, x, scalar, scalar_aval, scalar_first: bool):
        avals = (scalar_aval, x.aval) if scalar_first else (x.aval, scalar_aval)
        return self._run(primitive, avals, [scalar, x._value] if scalar_first else [x._value, scalar], {})

    def _cached_plan(self, primitive, key, avals: tuple, params: dict):
        return False

    def _run(self, primitive, avals, values, params):
        out = self.plain._run(primitive, avals, values, params)
        outs = out if primitive.multiple_results else [out]
        if primitive is float_check_p:
            return out
        values_out = [o._value for o in outs if hasattr(o, "_value")]
        nans, infs = _kinds()
        if any(_bad(v, nans, infs) for v in values_out):
            source_info = staging.user_source_info()
            if primitive.body_params:  # (raises at the body's equation when it finds it)
                _locate_in_body(primitive, avals, values, params, source_info)
            _announce()
            check_values(values_out, primitive.name, source_info)
        return out


def sync() -> None:
    """Installs the checking eval trace while either option is on (called on
    every change of jax_debug_nans or jax_debug_infs)."""
    from pyjax._src import jit

    on = any(_kinds())
    jit.FLOAT_CHECKS[0] = check_compiled_outputs if on else None
    trace = core._default_trace[0]
    if trace is None:
        return
    if on and type(trace) is not FloatCheckingEvalTrace:
        core.set_default_trace(FloatCheckingEvalTrace(trace))
    elif not on and type(trace) is FloatCheckingEvalTrace:
        core.set_default_trace(trace.plain)


config.debug_nans.add_change_hook(sync)
config.debug_infs.add_change_hook(sync)
