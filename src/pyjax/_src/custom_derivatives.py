"""custom_jvp: functions that bring their own differentiation rule.

Outside any transformation a custom_jvp function just runs. Under a trace it
is one `custom_jvp_call` equation holding the traced body (`call_jaxpr`) and
the rule; the autodiff interpreters use the rule, everything else the body.
"""

from __future__ import annotations

import functools
from typing import Callable

from pyjax._src import core
from pyjax._src.core import Primitive
from pyjax._src.jaxpr import Jaxpr
from pyjax._src.tree_util import tree_unflatten

custom_jvp_call_p = Primitive("custom_jvp_call", multiple_results=True)
custom_jvp_call_p.pp_param_order = ("name", "call_jaxpr", "jvp", "symbolic_zeros")
custom_jvp_call_p.pp_hidden = lambda key, value: key == "num_consts"


@custom_jvp_call_p.def_abstract_eval
def _custom_jvp_call_abstract_eval(*avals, call_jaxpr: Jaxpr, **params):
    return call_jaxpr.out_avals


class _RuleRef:
    """The JVP rule as an equation param: compared by identity, printed `jvp`."""

    __slots__ = ("rule",)

    def __init__(self, rule):
        self.rule = rule

    def __str__(self):
        return getattr(self.rule, "__name__", "jvp")


class custom_jvp:
    """Set up a JAX-transformable function for a custom JVP rule definition.

    Example:
      >>> @custom_jvp
      ... def f(x): return x ** 2
      >>> f.defjvp(lambda primals, tangents: (f(*primals), 2 * primals[0] * tangents[0]))
    """

    def __init__(self, fun: Callable, nondiff_argnums: tuple = ()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp = None
        self.symbolic_zeros = False

    def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
        self.jvp = jvp
        self.symbolic_zeros = symbolic_zeros
        return jvp

    def defjvps(self, *jvps: Callable | None) -> None:
        def jvp(primals, tangents):
            out = self(*primals)
            tangent_out = None
            for rule, t in zip(jvps, tangents, strict=True):
                if rule is None:
                    continue
                contribution = rule(t, out, *primals)
                tangent_out = contribution if tangent_out is None else tangent_out + contribution
            return out, tangent_out

        self.defjvp(jvp)

    def __call__(self, *args, **kwargs):
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {self.__name__} using defjvp.")
        if kwargs:
            raise NotImplementedError("custom_jvp functions take positional arguments only in pyjax for now")
        if core.current_trace() is core._default_trace[0]:
            return self.fun(*args)
        from pyjax._src.jit import trace_flat

        jaxpr, _, out_tree, flat_args = trace_flat(self.fun, args, {}, ())
        outs = custom_jvp_call_p.bind(
            *jaxpr.consts, *flat_args,
            call_jaxpr=_open(jaxpr), jvp=_RuleRef(self.jvp), num_consts=len(jaxpr.consts),
            symbolic_zeros=self.symbolic_zeros, name=self.__name__,
        ) if jaxpr.consts and any(isinstance(c, core.Tracer) for c in jaxpr.consts) else custom_jvp_call_p.bind(
            *flat_args, call_jaxpr=jaxpr, jvp=_RuleRef(self.jvp), num_consts=0,
            symbolic_zeros=self.symbolic_zeros, name=self.__name__,
        )
        return tree_unflatten(out_tree, outs)


def _open(jaxpr: Jaxpr) -> Jaxpr:
    return jaxpr.replace(constvars=[], consts=[], invars=jaxpr.constvars + jaxpr.invars)




def _custom_jvp_call_jvp(primals, tangents, *, call_jaxpr, jvp, num_consts, symbolic_zeros, name):
    from pyjax._src.ad_util import instantiate
    from pyjax._src.tree_util import tree_flatten

    primals = primals[num_consts:]
    tangents = [instantiate(t) for t in tangents[num_consts:]]
    primal_out, tangent_out = jvp.rule(tuple(primals), tuple(tangents))
    flat_primal, _ = tree_flatten(primal_out)
    flat_tangent, _ = tree_flatten(tangent_out)
    return flat_primal, flat_tangent


custom_jvp_call_p.def_jvp(_custom_jvp_call_jvp)


def _custom_jvp_call_batch(axis_data, args, dims, *, call_jaxpr, jvp, num_consts, symbolic_zeros, name):
    # Batched by running the body under vmap (the rule is used by autodiff
    # traces inside the vmap; differentiating outside a vmap of a custom_jvp
    # function differentiates the body).
    from pyjax._src.jit import batch_jaxpr

    body, out_dims = batch_jaxpr(call_jaxpr, axis_data, dims)
    from pyjax._src.jaxpr import eval_jaxpr

    return eval_jaxpr(body, body.consts, *args), out_dims


custom_jvp_call_p.def_batch(_custom_jvp_call_batch)
