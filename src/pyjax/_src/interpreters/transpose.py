"""Reverse mode: transposing a linear jaxpr (the backward pass).

`backward_pass(jaxpr, consts, cts_out)` walks the linear jaxpr's equations
in reverse. Each equation's linear inputs are `UndefinedPrimal`s; its
transpose rule, given the output cotangent, returns one cotangent per input
(None or Zero for the non-linear ones). Cotangents reaching the same value
are summed with `add_any`. Every operation the rules perform is bound under
the current trace, so a VJP inside jit (or inside another grad) is itself
staged (or differentiated).

Rule signature (rules.py): `transpose(ct, *operands, **params) -> cts`, one
per operand; `ct` may be a symbolic Zero only if the rule says it handles it
(the pass skips equations whose output cotangent is zero).
"""

from __future__ import annotations

from typing import Callable, Sequence

from pyjax._src.ad_util import Zero, add_tangents, instantiate
from pyjax._src.avals import ShapedArray
from pyjax._src.interpreters.partial_eval import partial_eval_jaxpr, set_linearizing
from pyjax._src.interpreters.staging import trace_to_jaxpr
from pyjax._src.jaxpr import Jaxpr, Literal, eval_jaxpr


class UndefinedPrimal:
    """A linear input of the equation being transposed: only its type is known."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray):
        self.aval = aval

    def __repr__(self):
        return f"UndefinedPrimal({self.aval})"


def is_undefined_primal(x) -> bool:
    return type(x) is UndefinedPrimal


def backward_pass(jaxpr: Jaxpr, consts: Sequence, cts_out: Sequence, args: Sequence | None = None) -> list:
    """Cotangents of `jaxpr`'s invars given its output cotangents.

    By default every invar is a linear input. With `args`, an invar whose
    arg is an UndefinedPrimal is linear and the others are known values
    (residuals); their cotangents come back as Zero.
    """
    known: dict = dict(zip(jaxpr.constvars, consts, strict=True))
    if args is None:
        linear_vars = set(jaxpr.invars)
    else:
        linear_vars = {v for v, a in zip(jaxpr.invars, args, strict=True) if is_undefined_primal(a)}
        known.update((v, a) for v, a in zip(jaxpr.invars, args, strict=True) if not is_undefined_primal(a))
    # Forward-evaluate equations that use no linear input (they may appear
    # when a rule computes something from residuals only).
    linear_eqns = []
    for eqn in jaxpr.eqns:
        if any(type(v) is not Literal and v in linear_vars for v in eqn.invars):
            linear_vars.update(eqn.outvars)
            linear_eqns.append(eqn)
        else:
            ins = [v.val if type(v) is Literal else known[v] for v in eqn.invars]
            outs = eqn.primitive.bind(*ins, **eqn.params)
            known.update(zip(eqn.outvars, outs if eqn.primitive.multiple_results else [outs], strict=True))
    cts: dict = {}

    def add_ct(var, ct):
        if type(var) is Literal or var not in linear_vars or ct is None or type(ct) is Zero:
            return
        cts[var] = add_tangents(cts[var], ct) if var in cts else ct

    for var, ct in zip(jaxpr.outvars, cts_out, strict=True):
        add_ct(var, ct)
    for eqn in reversed(linear_eqns):
        outs_ct = [cts.pop(v, None) for v in eqn.outvars]
        if all(ct is None for ct in outs_ct):
            continue
        operands = [
            v.val if type(v) is Literal else (UndefinedPrimal(v.aval) if v in linear_vars else known[v])
            for v in eqn.invars
        ]
        rule = eqn.primitive.rule("transpose")
        if eqn.primitive.multiple_results:
            ct_arg = [Zero(v.aval) if ct is None else ct for v, ct in zip(eqn.outvars, outs_ct, strict=True)]
        else:
            ct_arg = outs_ct[0]
        in_cts = rule(ct_arg, *operands, **eqn.params)
        for var, ct in zip(eqn.invars, in_cts, strict=True):
            add_ct(var, ct)
    return [cts.get(v, Zero(v.aval)) if v in linear_vars else Zero(v.aval) for v in jaxpr.invars]


def transpose_jaxpr(jaxpr: Jaxpr, linear_avals: Sequence[ShapedArray | None], res_avals: Sequence[ShapedArray],
                    ct_nonzero: Sequence[bool], ct_avals: Sequence[ShapedArray], *,
                    instantiate_cts: bool | Sequence[bool] = True, recompute: bool = False,
                    evaluate: Callable = eval_jaxpr) -> tuple[Jaxpr, list[bool]]:
    """The transpose of a closed jaxpr in its linear inputs, as a jaxpr.

    `linear_avals` has, per input of `jaxpr`, the aval of a linear input
    (an UndefinedPrimal's) or None for a residual. The new jaxpr's inputs are the residuals (the non-linear inputs, of `res_avals`)
    followed by the output cotangents marked in `ct_nonzero` (of
    `ct_avals`); the others are symbolic zeros. Its outputs are the
    cotangents of the linear inputs: all of them (zeros instantiated) when
    `instantiate_cts` is True, those it flags (instantiated) when it is a
    sequence, or only those that are not symbolic zeros when False. With
    `recompute` (remat), the non-linear part is first split off and
    recomputed from the residuals by `evaluate`, as JAX does, so the
    backward pass transposes only a linear jaxpr. Returns the jaxpr and,
    per linear input, whether it has a cotangent output.
    """
    num_res = len(res_avals)
    linear = [a is not None for a in linear_avals]
    in_nonzero: list = []

    def transposed(*res_and_cts):
        residuals, ct_it = res_and_cts[:num_res], iter(res_and_cts[num_res:])
        full_cts = [next(ct_it) if nz else Zero(a) for a, nz in zip(jaxpr.out_avals, ct_nonzero, strict=True)]
        if recompute:
            with set_linearizing(False):  # (a standalone split, as JAX's remat transpose makes)
                known, lin_jaxpr, out_unknowns, sources = partial_eval_jaxpr(jaxpr, linear)
            known_outs = evaluate(known, known.consts, *residuals)
            computed = known_outs[len(out_unknowns) - sum(out_unknowns):]
            lin_res = [residuals[i] if kind == "in" else computed[i] for kind, i in sources]
            lin_cts = [ct for ct, u in zip(full_cts, out_unknowns, strict=True) if u]
            lin_args = lin_res + [UndefinedPrimal(a) for a in linear_avals if a is not None]
            in_cts = backward_pass(lin_jaxpr, lin_jaxpr.consts, lin_cts, lin_args)[len(lin_res):]
        else:
            res_it = iter(residuals)
            args = [next(res_it) if a is None else UndefinedPrimal(a) for a in linear_avals]
            in_cts = [ct for ct, lin in zip(backward_pass(jaxpr, jaxpr.consts, full_cts, args), linear, strict=True) if lin]
        if instantiate_cts is False:
            in_nonzero[:] = [type(ct) is not Zero for ct in in_cts]
            return [ct for ct in in_cts if type(ct) is not Zero]
        inst = [True] * len(in_cts) if instantiate_cts is True else list(instantiate_cts)
        in_nonzero[:] = inst
        return [instantiate(ct) for ct, i in zip(in_cts, inst, strict=True) if i]

    body, _ = trace_to_jaxpr(transposed, [*res_avals, *ct_avals], jaxpr.debug_info)
    return body, list(in_nonzero)


__all__ = ["UndefinedPrimal", "backward_pass", "is_undefined_primal", "transpose_jaxpr"]
