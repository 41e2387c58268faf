"""Taylor-mode autodiff: the jet trace (jax.experimental.jet).

A JetTracer carries a primal and its truncated Taylor series, as the
coefficients x_1..x_K of x(t) = x_0 + x_1 t + ... + x_K t^K (not scaled by
factorials: the public `jet` scales at its boundary). Processing a primitive
unpacks the pairs (values of other traces have `zero_series`), and if any
series is live, instantiates the zero terms and runs the primitive's rule
from `jet_rules` under the parent trace, so the rule's own operations go
wherever the enclosing computation goes. The rules need lax, so lax's side
(`pyjax._src.jet`) fills the table and `zeros_like_hook`; this module knows
no library.

Rule signature (JAX's): `rule(primals_in, series_in, **params) ->
(primal_out, series_out)`, series_out a list of K terms per output, or
`zero_series`.
"""

from __future__ import annotations

from typing import Any, Callable

from pyjax._src import core
from pyjax._src.tree_util import register_pytree_node


class ZeroTerm:
    """The type of `zero_term`: one Taylor coefficient known to be zero."""


def _leafless(singleton):
    # Registers `singleton`'s class as a pytree with no children that always
    # rebuilds to that very singleton.
    register_pytree_node(type(singleton), lambda _node: ((), None), lambda _aux, _kids: singleton)
    return singleton


zero_term = _leafless(ZeroTerm())


class ZeroSeries:
    """The type of `zero_series`: a series whose every coefficient is zero."""


zero_series = _leafless(ZeroSeries())

# What a JetTracer's `terms` may be.
_TERMS_KINDS = (ZeroSeries, list, tuple)

# primitive -> rule(primals_in, series_in, **params); filled by pyjax._src.jet.
jet_rules: dict = {}
# Call primitives whose custom rules jet ignores, running their body instead
# (JAX: process_custom_jvp_call/process_custom_vjp_call call the function).
inlined_calls: set = set()
# x -> zeros of x's shape and (strong) dtype, set by pyjax._src.jet: the
# instantiated zero term of a live operand without a series.
zeros_like_hook: list[Callable[[Any], Any]] = []


class JetTracer(core.Tracer):
    """A primal with its Taylor coefficients (`terms`: a list, or zero_series)."""

    __slots__ = ("primal", "terms")

    def __init__(self, trace: JetTrace, primal, terms):
        assert type(terms) in _TERMS_KINDS
        self._trace = trace
        self.primal = primal
        self.terms = terms

    @property
    def aval(self):
        return core.get_aval(self.primal)

    def full_lower(self):
        coeffs = self.terms
        if coeffs is zero_series or all(c is zero_term for c in coeffs):
            return self.primal
        return self

    def __repr__(self):
        return f"JetTracer(primal={self.primal!r}, terms={self.terms!r})"


class JetTrace(core.Trace):
    """Pushes truncated Taylor series of order `order` through every primitive."""

    def __init__(self, tag, parent_trace: core.Trace, order: int):
        self.tag = tag
        self.parent_trace = parent_trace
        self.parent = parent_trace  # (the name pyjax's trace chain follows)
        self.order = order
        self.valid = True

    def to_primal_terms_pair(self, val):
        """(primal, terms) of `val`; a value of another trace has zero_series."""
        if isinstance(val, JetTracer) and self.tag is val._trace.tag:
            return val.primal, val.terms
        return val, zero_series

    def process_primitive(self, primitive, tracers, params):
        if primitive in inlined_calls:
            # The custom rule is ignored: the body runs under this trace.
            from pyjax._src.jaxpr import eval_jaxpr

            body = params[primitive.call_body]
            with core.set_current_trace(self):
                return eval_jaxpr(body, body.consts, *tracers)
        order = self.order
        pairs = [self.to_primal_terms_pair(x) for x in tracers]
        primals_in = [p for p, _ in pairs]
        series_in = [s for _, s in pairs]
        if all(s is zero_series for s in series_in):
            out = primitive.bind_with_trace(self.parent_trace, primals_in, params)
            if primitive.multiple_results:
                return [JetTracer(self, p, zero_series) for p in out]
            return JetTracer(self, out, zero_series)
        rule = jet_rules[primitive]  # a missing rule: JAX's KeyError naming the primitive
        parent = self.parent_trace
        with core.set_current_trace(parent):
            zeros = zeros_like_hook[0]
            series_in = [[zeros(x)] * order if s is zero_series else
                         [zeros(x) if t is zero_term else t for t in s]
                         for x, s in zip(primals_in, series_in, strict=True)]
            out_val, out_coeffs = rule(primals_in, series_in, **params)
        if primitive.multiple_results:
            return [JetTracer(self, p, ts) for p, ts in zip(out_val, out_coeffs, strict=True)]
        return JetTracer(self, out_val, out_coeffs)

    def lift_constant(self, value, aval):
        # A constant made under this trace has no series: it belongs to the parent.
        lift = getattr(self.parent_trace, "lift_constant", None)
        if lift is not None:
            return lift(value, aval)
        from pyjax._src.array import Array

        return Array(value, aval)


def jet_flat(fun: Callable, order: int, primals: list, series: list, tag=None) -> tuple[list, list]:
    """Runs `fun(*primals)` (flat in, flat out) with the given (unscaled)
    series; returns the primal outputs and each output's terms (or zero_series)."""
    trace = JetTrace(tag if tag is not None else object(), core.current_trace(), order)
    try:
        ins = [JetTracer(trace, p, s) for p, s in zip(primals, series, strict=True)]
        with core.set_current_trace(trace):
            outs = fun(*ins)
        pairs = [trace.to_primal_terms_pair(o) for o in outs]
    finally:
        trace.valid = False
    return [p for p, _ in pairs], [s for _, s in pairs]
