"""What `jax.interpreters.partial_eval` exports, on pyjax's staging and
partial-evaluation traces.

`trace_to_jaxpr_dynamic` stages a wrapped function into a jaxpr;
`trace_to_jaxpr_nounits` splits one by which inputs are known
(`PartialVal`s), computing the known part at once. The rule dictionaries
(`dce_rules`, `partial_eval_jaxpr_custom_rules`, `custom_partial_eval_rules`)
are views of attributes of each primitive: `dce_rule`, which pyjax's
dead-code elimination reads, and two rule attributes pyjax keeps but does
not run (see below).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyjax._src import core
from pyjax._src.avals import AbstractValue
from pyjax._src.extend_rules import _SlotView
from pyjax._src.interpreters import dce as _dce
from pyjax._src.interpreters.partial_eval import PartialEvalTrace
from pyjax._src.interpreters.staging import DynamicJaxprTrace, DynamicJaxprTracer
from pyjax._src.jaxpr import Jaxpr, JaxprEqn

JaxprTracer = DynamicJaxprTracer  # pyjax's partial evaluation records unknowns as staged tracers
Val = Any


class PartialVal(tuple):
    """A value of partial evaluation: known (`PartialVal.known(value)`) or
    unknown, with only its abstract value (`PartialVal.unknown(aval)`)."""

    def __new__(cls, xs: tuple[AbstractValue | None, Any]):
        pv, const = xs
        return tuple.__new__(cls, xs)

    @classmethod
    def known(cls, const) -> PartialVal:
        return PartialVal((None, const))

    @classmethod
    def unknown(cls, aval: AbstractValue) -> PartialVal:
        return PartialVal((aval, None))

    def is_known(self) -> bool:
        return self[0] is None

    def get_known(self):
        """The value if known, else None."""
        return self[1] if self[0] is None else None

    def get_aval(self) -> AbstractValue:
        """The abstract value, known or not."""
        known = self.get_known()
        return core.get_aval(known) if self[0] is None else self[0]


def _call(fun, *args):
    return fun.call_wrapped(*args) if hasattr(fun, "call_wrapped") else fun(*args)


def trace_to_jaxpr_dynamic(fun, in_avals: Sequence[AbstractValue], *, keep_inputs: list[bool] | None = None,
                           lower: bool = False, auto_dce: bool = False) -> tuple[Jaxpr, list[AbstractValue], list[Any]]:
    """Stages `fun` (a WrappedFun, or a function of flat arrays returning a
    list of them) on inputs of `in_avals`. Returns the jaxpr (its constvars
    stand for `consts`), its output avals and the constant values."""
    keep = [True] * len(in_avals) if keep_inputs is None else list(keep_inputs)
    trace = DynamicJaxprTrace(getattr(fun, "debug_info", None))
    try:
        tracers = [trace.new_arg(a) for a in in_avals]
        trace.invars = [v for v, k in zip(trace.invars, keep, strict=True) if k]
        with core.set_current_trace(trace):
            outs = _call(fun, *[t for t, k in zip(tracers, keep, strict=True) if k])
        jaxpr = trace.to_jaxpr(list(outs))
    finally:
        trace.valid = False
    if auto_dce:
        jaxpr, _ = _dce.dce_jaxpr(jaxpr)
    consts = list(jaxpr.consts)
    return jaxpr, [v.aval for v in jaxpr.outvars], consts


def trace_to_jaxpr_nounits(fun, pvals: Sequence[PartialVal], instantiate: bool | Sequence[bool] = False
                           ) -> tuple[Jaxpr, list[PartialVal], list[Any]]:
    """Partially evaluates `fun` on `pvals`: operations on known values run
    now, those on unknown ones are recorded. Returns the jaxpr of the
    unknown part (its inputs the unknown values; its constvars the known
    values it reads, `consts`), each output as a PartialVal, and the
    constants. Outputs flagged in `instantiate` are outputs of the jaxpr
    even when known."""
    inst = [] if isinstance(instantiate, bool) else list(instantiate)
    trace = PartialEvalTrace(core.current_trace(), getattr(fun, "debug_info", None))
    try:
        args = [pv.get_known() if pv.is_known() else trace.new_arg(pv[0]) for pv in pvals]
        with core.set_current_trace(trace):
            outs = list(_call(fun, *args))
        if isinstance(instantiate, bool):
            inst = [instantiate] * len(outs)
        out_pvals, unknown_outs = [], []
        for out, i in zip(outs, inst, strict=True):
            if trace.is_unknown(out):
                out_pvals.append(PartialVal.unknown(out.aval))
                unknown_outs.append(out)
            elif i:  # a known output made an output of the jaxpr (a constvar or literal of it)
                out_pvals.append(PartialVal.unknown(core.get_aval(out)))
                unknown_outs.append(out)
            else:
                out_pvals.append(PartialVal.known(out))
        jaxpr = trace.to_jaxpr(unknown_outs)
    finally:
        trace.valid = False
    return jaxpr, out_pvals, list(jaxpr.consts)


def dce_jaxpr(jaxpr: Jaxpr, used_outputs: bool | Sequence[bool], instantiate: bool | Sequence[bool] = False
              ) -> tuple[Jaxpr, list[bool]]:
    """Removes the equations no used output needs, and the unused inputs
    (those flagged in `instantiate` stay). Returns the jaxpr and which
    inputs it still has."""
    n_out, n_in = len(jaxpr.outvars), len(jaxpr.invars)
    used = [used_outputs] * n_out if isinstance(used_outputs, bool) else list(used_outputs)
    inst = [instantiate] * n_in if isinstance(instantiate, bool) else list(instantiate)
    pruned, used_inputs = _dce.dce_jaxpr(jaxpr, used, prune_bodies=True)
    keep = [u or i for u, i in zip(used_inputs, inst, strict=True)]
    return pruned.replace(invars=[v for v, k in zip(jaxpr.invars, keep, strict=True) if k]), keep


def dce_jaxpr_consts(jaxpr: Jaxpr, used_outputs: Sequence[bool], instantiate: bool | Sequence[bool] = False
                     ) -> tuple[Jaxpr, list[bool], list[bool]]:
    """dce_jaxpr, also reporting which constvars are still used (the jaxpr
    keeps only those)."""
    used_consts = _used_constvars(jaxpr, used_outputs)
    new, used_inputs = dce_jaxpr(jaxpr, used_outputs, instantiate)
    return new, used_consts, used_inputs


def _used_constvars(jaxpr: Jaxpr, used_outputs) -> list[bool]:
    pruned, _ = _dce.dce_jaxpr(jaxpr, list(used_outputs))
    live = set(pruned.constvars)
    return [v in live for v in jaxpr.constvars]


def dce_jaxpr_call_rule(used_outputs: list[bool], eqn: JaxprEqn) -> tuple[list[bool], JaxprEqn | None]:
    """The DCE rule of a call whose `jaxpr` param is its body (jit's)."""
    if not any(used_outputs) and not eqn.effects:
        return [False] * len(eqn.invars), None
    new = _dce.call_dce_rule(eqn, list(used_outputs))
    kept = {id(v) for v in new.invars}
    return [id(v) in kept for v in eqn.invars], new


dce_jaxpr_closed_call_rule = dce_jaxpr_call_rule


class DCERules(_SlotView):
    """`partial_eval.dce_rules`: `rule(used_outputs, eqn) -> (used_inputs,
    new_eqn or None)` — JAX's convention; pyjax's slot holds
    `rule(eqn, used_outputs) -> eqn`, converted either way."""

    slot = "dce_rule"

    def _read(self, primitive):
        rule = getattr(primitive, "dce_rule", None)
        if rule is None:
            return None
        jax_rule = getattr(rule, "jax_rule", None)
        if jax_rule is not None:
            return jax_rule

        def as_jax(used_outputs, eqn):
            new = rule(eqn, list(used_outputs))
            kept = {id(v) for v in new.invars}
            return [id(v) in kept for v in eqn.invars], new

        return as_jax

    def _write(self, primitive, rule) -> None:
        def as_pyjax(eqn, used_outputs):
            used_inputs, new = rule(list(used_outputs), eqn)
            if new is None:  # the whole equation goes: keep it trivially (pyjax's DCE drops unused outputs itself)
                return eqn
            return new

        as_pyjax.jax_rule = rule
        primitive.dce_rule = as_pyjax


class _AttributeView(_SlotView):
    """A dict of rules stored on an attribute of each primitive, as they are."""

    def __init__(self, slot: str):
        self.slot = slot

    def _write(self, primitive, rule) -> None:
        setattr(primitive, self.slot, rule)


dce_rules = DCERules()
# pyjax splits a higher-order primitive for remat and linearize with its own
# hooks (`partial_eval_custom`, `partial_eval`; interpreters/partial_eval.py),
# whose conventions differ from JAX's. A rule a library registers here is
# kept on the primitive and read back, but pyjax's partial evaluation does
# not run it: it treats the primitive's equations as first-order ones
# (docs/extending.md lists this gap).
partial_eval_jaxpr_custom_rules = _AttributeView("partial_eval_jaxpr_custom_rule")
custom_partial_eval_rules = _AttributeView("custom_partial_eval_rule")


__all__ = ["DynamicJaxprTracer", "JaxprTracer", "PartialVal", "Val", "custom_partial_eval_rules", "dce_jaxpr",
           "dce_jaxpr_call_rule", "dce_jaxpr_closed_call_rule", "dce_jaxpr_consts", "dce_rules",
           "partial_eval_jaxpr_custom_rules", "trace_to_jaxpr_dynamic", "trace_to_jaxpr_nounits"]
