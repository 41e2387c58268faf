"""Dead-code elimination of a jaxpr.

An equation stays when one of its outputs is used or it has effects. With
`prune_bodies`, a kept equation whose primitive declares a `dce_rule` is
also pruned inside: the rule, `dce_rule(eqn, used_outputs) -> eqn`, returns
the equation with its unused outputs (and the operands its body no longer
reads) dropped. Call-like primitives (jit, remat) declare `call_dce_rule`
where they are defined; a primitive without a rule is kept whole.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyjax._src.jaxpr import Jaxpr, JaxprEqn, Literal


def dce_jaxpr(jaxpr: Jaxpr, used_outputs: Sequence[bool] | None = None, *,
              prune_invars: bool = False, prune_bodies: bool = False) -> tuple[Jaxpr, list[bool]]:
    """Removes equations whose results nobody uses.

    Keeps only the outputs marked used (all when `used_outputs` is None) and
    the constvars still referenced. The invars stay unless `prune_invars`
    (then the unused ones go too); `prune_bodies` applies the primitives'
    DCE rules to the equations kept. Returns the new jaxpr and, per original
    invar, whether it is still used.
    """
    if used_outputs is None:
        used_outputs = [True] * len(jaxpr.outvars)
    outvars = [v for v, used in zip(jaxpr.outvars, used_outputs, strict=True) if used]
    live = {v for v in outvars if type(v) is not Literal}
    kept = []
    for eqn in reversed(jaxpr.eqns):
        used = [v in live for v in eqn.outvars]
        if not any(used) and not eqn.effects:
            continue
        rule = getattr(eqn.primitive, "dce_rule", None) if prune_bodies else None
        if rule is not None:
            eqn = rule(eqn, used)
        kept.append(eqn)
        live.update(v for v in eqn.invars if type(v) is not Literal)
    kept.reverse()
    used_inputs = [v in live for v in jaxpr.invars]
    keep_consts = [v in live for v in jaxpr.constvars]
    invars = [v for v, u in zip(jaxpr.invars, used_inputs, strict=True) if u] if prune_invars else jaxpr.invars
    new = jaxpr.replace(
        eqns=kept, outvars=outvars, invars=invars,
        constvars=[v for v, k in zip(jaxpr.constvars, keep_consts, strict=True) if k],
        consts=[c for c, k in zip(jaxpr.consts, keep_consts, strict=True) if k],
    )
    return new, used_inputs


def call_dce_rule(eqn: JaxprEqn, used_outputs: list[bool]) -> JaxprEqn:
    """The DCE rule of a call whose `jaxpr` param is its body (jit, remat):
    the body is pruned to the used outputs, and the operands it no longer
    reads go (unless `keep_unused`), with their per-operand params."""
    body, used_inputs = dce_jaxpr(eqn.params["jaxpr"], used_outputs, prune_invars=True, prune_bodies=True)
    if eqn.params.get("keep_unused"):
        body = body.replace(invars=eqn.params["jaxpr"].invars)
        used_inputs = [True] * len(used_inputs)
    params = dict(eqn.params, jaxpr=body)
    for key in ("donated_invars", "prevent_cse"):
        if isinstance(params.get(key), tuple):
            params[key] = tuple(p for p, u in zip(params[key], used_inputs, strict=True) if u)
    return eqn.replace(
        invars=[v for v, u in zip(eqn.invars, used_inputs, strict=True) if u],
        outvars=[v for v, u in zip(eqn.outvars, used_outputs, strict=True) if u],
        params=params,
    )


__all__ = ["call_dce_rule", "dce_jaxpr"]
