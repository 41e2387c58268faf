"""Direct linearization of a closed jaxpr (JAX's `ad.linearize_jaxpr`).

The body is re-run under linearize (the JVP trace over partial evaluation,
inside a fresh staging trace for the primal side), so each equation splits
by its own rule: a scan or cond inside is split by its linearize rule,
rather than its JVP being formed first and then partially evaluated by the
generic rule (which gives other residuals and other ft_in/ft_out). jit
(jit_ad.py) splits itself this way, as JAX's jit linearize rule does.
"""

from __future__ import annotations

from typing import Sequence

from pyjax._src import core
from pyjax._src.ad_util import Zero, instantiate as instantiate_zeros, tangent_aval
from pyjax._src.interpreters.dce import dce_jaxpr
from pyjax._src.interpreters.partial_eval import linearize_flat
from pyjax._src.interpreters.staging import DynamicJaxprTracer, trace_to_jaxpr
from pyjax._src.jaxpr import Jaxpr, eval_jaxpr


class _UnknownPrimal(Exception):
    pass


def linearize_jaxpr_direct(jaxpr: Jaxpr, nonzeros: Sequence[bool], instantiate: Sequence[bool] | None = None,
                           allow_fwds: Sequence[bool] | None = None):
    """Splits `jaxpr` by linearizing it as it is traced.

    Returns (primal_jaxpr, num_res_out, out_nonzeros, fwds, tangent_jaxpr):
    primal_jaxpr maps the primals to the primal outputs followed by the
    computed residuals (dead code removed with the primitives' DCE rules,
    its consts kept); tangent_jaxpr maps (residuals, nonzero tangents) to
    the nonzero output tangents. `fwds` has one entry per residual: None
    for a computed one (in order), else its index in (jaxpr.consts,
    primals): a residual that is one of those is passed as it is. None
    when some primal output is not known after the split (pyjax's remat
    stages a scan whole): the caller then splits the JVP jaxpr instead.
    `instantiate` flags outputs whose (zero) tangent the tangent jaxpr makes
    anyway; `allow_fwds` (per primal, with no consts) the inputs a residual
    may be forwarded from (the control-flow rules' conventions).
    """
    found: dict = {}

    def forward(*xs):
        outs, linear, out_nz = linearize_flat(lambda *a: eval_jaxpr(jaxpr, jaxpr.consts, *a), list(xs),
                                              nonzeros=list(nonzeros))
        here = core.current_trace()
        if any(type(o) is DynamicJaxprTracer and o._trace is not here for o in outs):
            raise _UnknownPrimal  # (a primal output the split left unknown: a remat of a scan)
        linear, _ = dce_jaxpr(linear, prune_bodies=True)  # (a residual only a dead tangent read goes)
        allowed = [True] * len(jaxpr.consts) + (list(allow_fwds) if allow_fwds is not None else [True] * len(xs))
        index = {id(x): i for i, (x, a) in enumerate(zip([*jaxpr.consts, *xs], allowed, strict=True)) if a}
        fwds = [index.get(id(c)) for c in linear.consts]
        # (the tangent jaxpr holds no tracer of this trace: its residuals are inputs)
        found.update(tangent=linear.replace(constvars=[], consts=[], invars=[*linear.constvars, *linear.invars]),
                     out_nz=out_nz, fwds=fwds)
        return list(outs) + [c for c, f in zip(linear.consts, fwds, strict=True) if f is None]

    try:
        primal, _ = trace_to_jaxpr(forward, jaxpr.in_avals, jaxpr.debug_info)
    except _UnknownPrimal:
        return None
    primal, _ = dce_jaxpr(primal, prune_bodies=True)
    fwds, out_nz, tangent = found["fwds"], list(found["out_nz"]), found["tangent"]
    if instantiate is not None and any(i and not nz for i, nz in zip(instantiate, out_nz, strict=True)):
        tangent, out_nz = _instantiated(tangent, jaxpr.out_avals, out_nz, instantiate)
    return primal, sum(f is None for f in fwds), out_nz, fwds, tangent


def _instantiated(tangent: Jaxpr, out_avals, out_nz: list, instantiate) -> tuple[Jaxpr, list]:
    # Zero tangents asked for are made by the tangent jaxpr itself, after its equations.
    want = [a or b for a, b in zip(out_nz, instantiate, strict=True)]

    def tangent_fun(*args):
        outs = iter(eval_jaxpr(tangent, tangent.consts, *args))
        return [next(outs) if nz else instantiate_zeros(Zero(tangent_aval(a)))
                for a, nz, w in zip(out_avals, out_nz, want, strict=True) if w]

    return trace_to_jaxpr(tangent_fun, [v.aval for v in tangent.invars], tangent.debug_info)[0], want


__all__ = ["linearize_jaxpr_direct"]
