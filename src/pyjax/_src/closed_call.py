"""`closed_call`: a call of a closed jaxpr (JAX's `core.closed_call_p`).

pyjax stages calls as `jit` equations and makes this one only where JAX
does (remat's known part of a scan, remat_opt); it also serves libraries
that build such equations or look for them
(`eqn.primitive is closed_call_p`, then `eqn.params["call_jaxpr"]`). It is
defined through the extension API: its impl evaluates the body, its JVP
and transpose rules transform the body in line, and batching gives a
`closed_call` of the batched body (as JAX's does).
"""

from __future__ import annotations

from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.dce import dce_jaxpr
from pyjax._src.interpreters.jvp import jvp_flat
from pyjax._src.interpreters.transpose import backward_pass
from pyjax._src.jaxpr import body_effects, eval_jaxpr
from pyjax._src.rules import SHARDING_OF_CALL

closed_call_p = Primitive("closed_call", multiple_results=True).declare(body_params=("call_jaxpr",),
                                                                         call_body="call_jaxpr")
closed_call_p.declare(sharding_reason=SHARDING_OF_CALL)
closed_call_p.effects_of = body_effects("call_jaxpr")


def _body(call_jaxpr):
    return lambda *args: eval_jaxpr(call_jaxpr, call_jaxpr.consts, *args)


# (`name`, which batching adds as JAX's does, changes nothing.)
closed_call_p.def_abstract_eval(lambda *avals, call_jaxpr, **_: list(call_jaxpr.out_avals))
closed_call_p.def_impl(lambda *args, call_jaxpr, **_: eval_jaxpr(call_jaxpr, call_jaxpr.consts, *args))
closed_call_p.def_jvp(lambda primals, tangents, *, call_jaxpr, **_: jvp_flat(_body(call_jaxpr), primals, tangents))
closed_call_p.def_transpose(lambda cts, *args, call_jaxpr, **_: backward_pass(call_jaxpr, call_jaxpr.consts, cts, args))


def _batch(axis_data, args, dims, *, call_jaxpr, name="eval_jaxpr"):
    # A closed_call of the batched body, named as JAX's batching names it
    # (after the function it wraps, JAX's eval_jaxpr).
    body, out_dims = batching.batch_jaxpr_axes(call_jaxpr, axis_data, dims)
    return closed_call_p.bind(*args, call_jaxpr=body, name=name), out_dims


closed_call_p.def_batch(_batch)


def _dce(eqn, used_outputs: list):
    # The body is pruned to the used outputs (as JAX's closed_call rule does;
    # remat's known part of a scan is such a call).
    body, used_inputs = dce_jaxpr(eqn.params["call_jaxpr"], used_outputs, prune_invars=True, prune_bodies=True)
    return eqn.replace(invars=[v for v, u in zip(eqn.invars, used_inputs, strict=True) if u],
                       outvars=[v for v, u in zip(eqn.outvars, used_outputs, strict=True) if u],
                       params=dict(eqn.params, call_jaxpr=body))


closed_call_p.dce_rule = _dce

__all__ = ["closed_call_p"]
