"""The `remat2` primitive behind `jax.checkpoint`, and policy-driven partial
evaluation.

`remat2[jaxpr=... differentiated=... policy=... prevent_cse=...]` calls a
constant-free jaxpr. It evaluates like a call; what makes it a checkpoint is
its partial-evaluation rule. When some inputs are unknown (linearize, grad),
the body is split by `partial_eval_jaxpr_custom` (interpreters/partial_eval.py): an equation whose inputs
are all known runs now (in the enclosing trace, outside the remat), and the
policy decides whether its outputs may be saved as residuals; those it may
not save are also staged into the unknown part, i.e. recomputed in the
backward pass. The unknown part is one `remat2[differentiated=True]`
equation. Its JVP is a remat of the JVP body, its transpose a remat of the
transposed body, its batching a remat of the batched body, as in JAX 0.11.

A policy is called as `policy(primitive, *in_avals, **params)` and returns
a bool or one of `Saveable`, `Recompute`, `Offloadable(src, dst)`; this
single-memory backend treats `Offloadable` as `Saveable`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.ad_util import Zero, tangent_aval
from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching
from pyjax._src.interpreters.dce import call_dce_rule, dce_jaxpr
from pyjax._src.interpreters.jvp import jvp_jaxpr
from pyjax._src.interpreters.partial_eval import call_partial_eval_custom_rule, partial_eval_jaxpr_custom
from pyjax._src.interpreters.staging import DynamicJaxprTrace
from pyjax._src.interpreters.transpose import is_undefined_primal, transpose_jaxpr
from pyjax._src.interpreters import key_reuse as _key_reuse
from pyjax._src.jaxpr import Jaxpr, JaxprEqn, Literal, Var, body_effects
from pyjax._src.rules import SHARDING_OF_CALL

# ---------------------------------------------------------------------------
# What a policy may answer


class RecomputeType:
    def __repr__(self):
        return "Recompute"


class SaveableType:
    def __repr__(self):
        return "Saveable"


class Offloadable(NamedTuple):
    src: str
    dst: str


Recompute = RecomputeType()
Saveable = SaveableType()


def ensure_enum(case) -> RecomputeType | SaveableType | Offloadable:
    """A policy's answer as one of the three cases (JAX's TypeError otherwise)."""
    if isinstance(case, bool):
        return Saveable if case else Recompute
    if isinstance(case, (RecomputeType, SaveableType, Offloadable)):
        return case
    # Anything else is a bug in the policy.
    msg = ("Value returned by a remat policy should be a bool or"
           " `ad_checkpoint.Recompute`, `ad_checkpoint.Saveable` or"
           " `ad_checkpoint.Offloadable(...)`."
           f" Got {case} of type {type(case)}.")
    if case is Offloadable:
        msg += "Did you return `Offloadable` instead of an instantiated `Offloadable(...)`?"
    raise TypeError(msg)


def nothing_saveable(*_, **__) -> bool:
    """Policy: keep no intermediate value; recompute all of them in the backward pass.

    ``jax.checkpoint`` uses it when no ``policy`` is given."""
    return False


def everything_saveable(*_, **__) -> bool:
    """Policy: keep every intermediate value, which is what plain autodiff does
    without ``jax.checkpoint``."""
    return True


def saveable_by(policy: Callable) -> Callable[..., bool]:
    """The policy as partial evaluation asks it: whether an equation's outputs
    may be saved (an offload is a save on this single-memory backend)."""

    def saveable(primitive, *avals, **params) -> bool:
        return not isinstance(ensure_enum(policy(primitive, *avals, **params)), RecomputeType)

    return saveable


# ---------------------------------------------------------------------------
# The primitive

remat_p = Primitive("remat2", multiple_results=True).declare(body_params=("jaxpr",), call_body="jaxpr")
remat_p.declare(key_reuse=_key_reuse.remat_signature)
remat_p.declare(sharding_reason=SHARDING_OF_CALL)
remat_p.effects_of = body_effects("jaxpr")
remat_p.dce_rule = call_dce_rule
remat_p.partial_eval_custom = functools.partial(call_partial_eval_custom_rule, differentiated=True)


@remat_p.def_abstract_eval
def _remat_abstract_eval(*avals, jaxpr: Jaxpr, **params):
    return jaxpr.out_avals


def bind_closed(jaxpr: Jaxpr, args: Sequence, **params) -> list:
    """Binds remat_p on a closed jaxpr: its consts become leading operands
    (a remat body has no constvars, as in JAX)."""
    if jaxpr.constvars:
        consts = list(jaxpr.consts)
        jaxpr = jaxpr.replace(constvars=[], consts=[], invars=jaxpr.constvars + jaxpr.invars)
        prevent_cse = params["prevent_cse"]
        if isinstance(prevent_cse, tuple):
            params = dict(params, prevent_cse=(False,) * len(consts) + prevent_cse)
        args = consts + list(args)
    return remat_p.bind(*args, jaxpr=jaxpr, **params)


def eval_jaxpr_keeping_source(jaxpr: Jaxpr, consts: Sequence, *args) -> list:
    """eval_jaxpr, but the equations it stages keep the source line of the
    equation they come from (the user's line inside the checkpointed
    function), which print_saved_residuals reports."""
    staging = core.current_trace()
    while staging is not None and not isinstance(staging, DynamicJaxprTrace):
        staging = getattr(staging, "parent", None)
    env: dict = dict(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, args, strict=True))
    for eqn in jaxpr.eqns:
        start = len(staging.eqns) if staging is not None else 0
        ins = [v.val if type(v) is Literal else env[v] for v in eqn.invars]
        outs = eqn.primitive.bind(*ins, **eqn.params)
        env.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs], strict=True))
        if staging is not None and eqn.source_info is not None:
            for new in staging.eqns[start:]:
                new.source_info = eqn.source_info
    return [v.val if type(v) is Literal else env[v] for v in jaxpr.outvars]


# ---------------------------------------------------------------------------
# JVP: a remat of the JVP body


def _remat_jvp(primals, tangents, *, jaxpr, prevent_cse, differentiated, policy):
    nonzeros = [type(t) is not Zero for t in tangents]
    body, out_nonzeros = jvp_jaxpr(jaxpr, nonzeros, evaluate=eval_jaxpr_keeping_source)
    nonzero_tangents = [t for t in tangents if type(t) is not Zero]
    if isinstance(prevent_cse, tuple):
        prevent_cse = prevent_cse + (True,) * len(nonzero_tangents)
    outs = bind_closed(body, [*primals, *nonzero_tangents], prevent_cse=prevent_cse,
                       differentiated=differentiated, policy=policy)
    n_out = len(jaxpr.outvars)
    primal_outs, it = outs[:n_out], iter(outs[n_out:])
    tangent_outs = [next(it) if nz else Zero(tangent_aval(a)) for a, nz in zip(jaxpr.out_avals, out_nonzeros, strict=True)]
    return primal_outs, tangent_outs


remat_p.def_jvp(_remat_jvp)


def insert_reduce_precision(jaxpr: Jaxpr, num_res: int) -> Jaxpr:
    """Rounds each floating residual the known jaxpr also uses itself with an
    explicit reduce_precision, so the forward and backward passes see the
    same value whatever excess precision a compiler keeps (JAX does this)."""
    from pyjax._src.lax.elementwise import reduce_precision_p

    res_vars = jaxpr.outvars[-num_res:] if num_res else []
    used = {x for e in jaxpr.eqns for x in e.invars if type(x) is Var}
    invars, eqns = list(jaxpr.invars), list(jaxpr.eqns)
    for v in res_vars:
        if type(v) is not Var or not dtypes.issubdtype(v.aval.dtype, np.inexact) or v not in used:
            continue
        finfo = dtypes.finfo(v.aval.dtype)
        params = {"exponent_bits": int(finfo.nexp), "mantissa_bits": int(finfo.nmant)}
        fresh = Var(v.aval)
        if v in invars:
            invars[invars.index(v)] = fresh
            eqns.insert(0, JaxprEqn(reduce_precision_p, [fresh], [v], params))
            continue
        index, producer = next((i, e) for i, e in enumerate(eqns) if v in e.outvars)
        if producer.primitive is reduce_precision_p and producer.params == params:
            continue
        eqns[index] = producer.replace(outvars=[fresh if o is v else o for o in producer.outvars])
        eqns.insert(index + 1, JaxprEqn(reduce_precision_p, [fresh], [v], params, source_info=producer.source_info))
    return jaxpr.replace(invars=invars, eqns=eqns)


# ---------------------------------------------------------------------------
# Partial evaluation of a remat equation (linearize / grad)


def _remat_partial_eval(trace, args, params):
    jaxpr = params["jaxpr"]
    policy = params["policy"] or nothing_saveable
    unknowns = [trace.is_unknown(x) for x in args]
    known, staged, out_unknowns, out_inst, num_res = partial_eval_jaxpr_custom(
        jaxpr, unknowns, [True] * len(unknowns), saveable_by(policy))
    # The staged part computes the unknown outputs among those it has.
    staged, in_used_staged = dce_jaxpr(staged, [u for i, u in zip(out_inst, out_unknowns, strict=True) if i],
                                       prune_invars=True, prune_bodies=True)
    used_res, in_used_staged = in_used_staged[:num_res], in_used_staged[num_res:]
    n_known_outs = len(out_unknowns) - sum(out_unknowns)
    known, in_used_known = dce_jaxpr(known, [True] * n_known_outs + used_res, prune_invars=True, prune_bodies=True)
    num_res = sum(used_res)
    known = insert_reduce_precision(known, num_res)

    known_args = [x for x, u in zip(args, unknowns, strict=True) if not u]
    known_args = [x for x, used in zip(known_args, in_used_known, strict=True) if used]
    # The known part is hoisted out of the remat: it runs in the enclosing trace.
    with core.set_current_trace(trace.parent):
        known_outs = eval_jaxpr_keeping_source(known, known.consts, *known_args)
    out_knowns, residuals = known_outs[:n_known_outs], known_outs[n_known_outs:]
    staged_args = [x for x, used in zip(args, in_used_staged, strict=True) if used]
    prevent_cse = params["prevent_cse"]
    if isinstance(prevent_cse, tuple):
        prevent_cse = (True,) * len(residuals) + tuple(
            p for p, used in zip(prevent_cse, in_used_staged, strict=True) if used)
    unknown_outs = []
    if staged.outvars:
        # JAX linearizes a remat by its JVP and partial evaluation, then DCEs
        # that tangent jaxpr: the staged body is pruned once more (a scan's
        # flattree params show it).
        staged, _ = dce_jaxpr(staged, [True] * len(staged.outvars), prune_bodies=True)
        new_params = dict(params, jaxpr=staged, differentiated=True, prevent_cse=prevent_cse)
        unknown_outs = trace.record(remat_p, [*residuals, *staged_args], new_params)
    known_it, unknown_it = iter(out_knowns), iter(unknown_outs)
    return [next(unknown_it) if u else next(known_it) for u in out_unknowns]


remat_p.partial_eval = _remat_partial_eval


# ---------------------------------------------------------------------------
# Transpose: a remat of the transposed body


def _remat_transpose(cts, *args, jaxpr, prevent_cse, differentiated, policy):
    # As JAX does: the body first recomputes its non-linear part (calls split
    # into a known and a linear call), then transposes the linear jaxpr.
    linear = [is_undefined_primal(x) for x in args]
    residuals = [x for x, lin in zip(args, linear, strict=True) if not lin]
    nonzero_cts = [ct for ct in cts if type(ct) is not Zero]
    body, in_nonzero = transpose_jaxpr(
        jaxpr, [x.aval if lin else None for x, lin in zip(args, linear, strict=True)],
        [core.get_aval(r) for r in residuals], [type(ct) is not Zero for ct in cts],
        [core.get_aval(ct) for ct in nonzero_cts],
        instantiate_cts=False, recompute=True, evaluate=eval_jaxpr_keeping_source)
    if isinstance(prevent_cse, tuple):
        prevent_cse = tuple(p for p, lin in zip(prevent_cse, linear, strict=True) if not lin) + (True,) * len(nonzero_cts)
    outs = iter(bind_closed(body, [*residuals, *nonzero_cts], prevent_cse=prevent_cse,
                            differentiated=differentiated, policy=policy))
    nonzero_it = iter(in_nonzero)
    return [(next(outs) if next(nonzero_it) else None) if lin else None for lin in linear]


remat_p.def_transpose(_remat_transpose)


# ---------------------------------------------------------------------------
# Batching: a remat of the batched body


def _remat_batch(axis_data, args, dims, *, jaxpr, **params):
    # Batched outputs come out with their batch axis first.
    body, out_dims = batching.batch_jaxpr_axes(
        jaxpr, axis_data, dims, lambda natural: [d if d is batching.not_mapped else 0 for d in natural])
    return bind_closed(body, args, **params), out_dims


remat_p.def_batch(_remat_batch)


__all__ = [
    "Offloadable", "Recompute", "Saveable", "bind_closed", "ensure_enum", "everything_saveable",
    "insert_reduce_precision", "nothing_saveable", "remat_p", "saveable_by",
]
