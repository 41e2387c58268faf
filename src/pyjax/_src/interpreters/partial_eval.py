"""Partial evaluation: split a computation into what is known now and a
linear program over what is not.

`PartialEvalTrace` is a staging trace that records only equations with at
least one unknown input (one of its own tracers). An equation whose inputs
are all known is handed to the parent trace at once — executed eagerly, or
staged into the enclosing jaxpr. Known values an unknown equation needs
become constvars of the recorded jaxpr: the residuals.

`linearize` runs the JVP trace under a PartialEvalTrace whose unknowns are
the input tangents: primal computations are known and happen now; tangent
computations are recorded. The result is the primal output and a linear
jaxpr from input tangents to output tangents — which transpose.py turns
into a VJP.
"""

from __future__ import annotations

from typing import Callable, Sequence

from pyjax._src import core
from pyjax._src.ad_util import Zero, instantiate, tangent_aval
from pyjax._src.interpreters.jvp import JVPTrace, JVPTracer
from pyjax._src.interpreters.staging import DynamicJaxprTrace, DynamicJaxprTracer
from pyjax._src.jaxpr import Jaxpr


class PartialEvalTrace(DynamicJaxprTrace):
    """Records equations on unknown values; forwards the known ones."""

    def __init__(self, parent: core.Trace, debug_info=None):
        super().__init__(debug_info)
        self.parent = parent

    def process_primitive(self, primitive, args, params):
        for x in args:
            if type(x) is DynamicJaxprTracer and x._trace is self:
                return super().process_primitive(primitive, args, params)
        with core.set_current_trace(self.parent):
            return primitive.bind(*args, **params)

    def lift_constant(self, value, aval):
        # A constant made during linearization is known: it belongs to the parent.
        lift = getattr(self.parent, "lift_constant", None)
        if lift is not None:
            return lift(value, aval)
        from pyjax._src.array import Array

        return Array(value, aval)


def linearize_flat(fun: Callable, primals: Sequence, aux_store: list | None = None) -> tuple[list, Jaxpr, list]:
    """(primal outputs, linear jaxpr, which outputs have nonzero tangents).

    The linear jaxpr takes one tangent per primal input; its constvars are
    the residuals (values of the enclosing trace); its outputs are the output
    tangents (symbolic zeros are left out and reported as False)."""
    parent = core.current_trace()
    pe_trace = PartialEvalTrace(parent)
    tangent_ins = [pe_trace.new_arg(tangent_aval(core.get_aval(p))) for p in primals]
    jvp_trace = JVPTrace(pe_trace)
    try:
        ins = [JVPTracer(jvp_trace, p, t) for p, t in zip(primals, tangent_ins, strict=True)]
        with core.set_current_trace(jvp_trace):
            outs = fun(*ins)
        pairs = [jvp_trace.to_primal_tangent(o) for o in outs]
        primal_outs = [p for p, _ in pairs]
        nonzero = [type(t) is not Zero for _, t in pairs]
        with core.set_current_trace(pe_trace):
            tangent_outs = [instantiate(t) for t, nz in ((t, nz) for (_, t), nz in zip(pairs, nonzero, strict=True)) if nz]
        linear = pe_trace.to_jaxpr(tangent_outs)
        if aux_store:
            # Auxiliary outputs are returned as primal values, not tracers.
            from pyjax._src.tree_util import tree_map

            out_tree, aux = aux_store[0]
            aux_store[0] = (out_tree, tree_map(lambda x: jvp_trace.to_primal_tangent(x)[0], aux))
    finally:
        jvp_trace.valid = False
        pe_trace.valid = False
    return primal_outs, linear, nonzero


__all__ = ["PartialEvalTrace", "linearize_flat"]
