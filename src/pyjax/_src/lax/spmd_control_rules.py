"""Partition rules of typed control flow: `scan`, `while` and `cond` over
Explicit-sharded values run per device, their bodies partitioned too
(interpreters/spmd_partition.py; docs/spmd.md).

A body jaxpr is typed on the mesh like the program around it. Its
per-device form is traced at the local types its operands have once laid
out as the body's binders say, and the primitive is bound again on local
values with that per-device body:

- a carry keeps the placement its binder names on every iteration (the
  body's carry results are laid out back into it);
- a scanned operand loses only its leading dimension, which stays whole
  (each device steps through all iterations of its own block);
- every branch of a `cond` returns its results laid out as the equation's
  types say, so that the branches agree on their local types;
- a `while`'s predicate is a replicated scalar in its type: its partitioned
  form already holds the reduction (`psum`, `pmax`, ...) its types imply,
  so every device reads the same predicate and the loop stays in lockstep;
- a batched predicate (a vmapped loop, `bool[8@x]`) becomes a scalar one:
  each device ORs its own lanes and a `pmax` over the predicate's axes ORs
  the devices, so all run until every lane of every device is done; the
  body masks each device's lanes (a lane that is done keeps its carry),
  which is what the unsharded loop computes.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from pyjax._src import core
from pyjax._src.interpreters import spmd_partition as sp
from pyjax._src.interpreters import staging
from pyjax._src.interpreters.spmd_partition import Context, spec_of
from pyjax._src.jaxpr import Jaxpr, JaxprEqn
from pyjax._src.lax.control_flow import common
from pyjax._src.lax.control_flow import flattree as ft
from pyjax._src.lax import elementwise, reductions
from pyjax._src.lax.control_flow.cond import _bcast_select_n, cond_p
from pyjax._src.lax.control_flow.loops import while_p
from pyjax._src.lax.control_flow.scan import scan_p

_DEBUG = staging.DebugInfo("spmd", "<partitioned body>", None)


def _specs(avals_or_vars) -> list:
    return [spec_of(getattr(v, "aval", v)) for v in avals_or_vars]


def _laid_out(ctx: Context, xs: Sequence, src: Sequence, dst: Sequence) -> list:
    return [ctx.reshard(x, s, d) for x, s, d in zip(xs, src, dst, strict=True)]


def local_body(ctx: Context, body: Jaxpr, in_avals: Sequence, in_specs: Sequence, out_specs: Sequence):
    """The per-device form of `body` traced at the local types `in_avals`
    (operands laid out as `in_specs`; results laid out as `out_specs`):
    (jaxpr, consts), the jaxpr taking the consts it closes over first."""

    def fn(*xs):
        xs = _laid_out(ctx, xs, in_specs, _specs(body.invars))
        outs = ctx.run(body, xs)
        return _laid_out(ctx, outs, _specs(body.outvars), out_specs)

    return _traced(fn, in_avals)


def _traced(fn, in_avals: Sequence):
    # (jaxpr, consts) of a per-device function, the jaxpr taking its consts first.
    jaxpr, _ = staging.trace_to_jaxpr(fn, list(in_avals), _DEBUG)
    return common.separate_consts(jaxpr)


def _avals(xs) -> list:
    return [core.get_aval(x) for x in xs]


def scan_rule(ctx: Context, eqn: JaxprEqn, args: list) -> list:
    """Each device scans its own blocks: consts and carries laid out as the
    body's binders, the scanned operands split as one step of them is."""
    p = eqn.params
    body = p["jaxpr"]
    consts_t, carry_t, xs_t = p["ft_in"].unpack()
    nc, nk = len(consts_t), len(carry_t)
    body_in = _specs(body.invars)
    step_specs = body_in[nc + nk:]
    in_specs = _specs(eqn.invars)
    consts = _laid_out(ctx, args[:nc], in_specs[:nc], body_in[:nc])
    carry = _laid_out(ctx, args[nc:nc + nk], in_specs[nc:nc + nk], body_in[nc:nc + nk])
    xs = _laid_out(ctx, args[nc + nk:], in_specs[nc + nk:], [((),) + tuple(s) for s in step_specs])
    step_avals = [a.update(shape=a.shape[1:]) for a in _avals(xs)]
    y_specs = _specs(body.outvars[nk:])
    local, extra = local_body(ctx, body, _avals(consts) + _avals(carry) + step_avals, body_in,
                              body_in[nc:nc + nk] + y_specs)
    outs = scan_p.bind(*extra, *consts, *carry, *xs, reverse=p["reverse"], length=p["length"], jaxpr=local,
                       ft_in=ft.pack((ft.nones(len(extra) + nc), carry_t, xs_t)), ft_out=p["ft_out"],
                       unroll=p["unroll"])
    out_specs = _specs(eqn.outvars)
    carry_out = _laid_out(ctx, outs[:nk], body_in[nc:nc + nk], out_specs[:nk])
    ys = _laid_out(ctx, outs[nk:], [((),) + tuple(s) for s in y_specs], out_specs[nk:])
    return carry_out + ys


def while_rule(ctx: Context, eqn: JaxprEqn, args: list) -> list:
    """Each device loops on its own blocks of the carry; the predicate,
    replicated in its type, is the same on every device."""
    p = eqn.params
    cond, body = p["cond_jaxpr"], p["body_jaxpr"]
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    if getattr(cond.out_avals[0], "shape", ()) != ():
        return _batched_while_rule(ctx, eqn, args)
    in_specs = _specs(eqn.invars)
    cond_in, body_in = _specs(cond.invars), _specs(body.invars)
    carry_specs = body_in[nb:]
    cconsts = _laid_out(ctx, args[:nc], in_specs[:nc], cond_in[:nc])
    bconsts = _laid_out(ctx, args[nc:nc + nb], in_specs[nc:nc + nb], body_in[:nb])
    carry = _laid_out(ctx, args[nc + nb:], in_specs[nc + nb:], carry_specs)
    local_cond, cextra = local_body(ctx, cond, _avals(cconsts) + _avals(carry), cond_in[:nc] + carry_specs, [()])
    local_step, bextra = local_body(ctx, body, _avals(bconsts) + _avals(carry), body_in, carry_specs)
    outs = while_p.bind(*cextra, *cconsts, *bextra, *bconsts, *carry, cond_nconsts=len(cextra) + nc,
                        cond_jaxpr=local_cond, body_nconsts=len(bextra) + nb, body_jaxpr=local_step)
    return _laid_out(ctx, outs, carry_specs, _specs(eqn.outvars))


def _batched_while_rule(ctx: Context, eqn: JaxprEqn, args: list) -> list:
    """A vmapped loop (its predicate one bool per lane, a prefix of every
    carry's shape) as a loop with a scalar predicate, the same on every
    device: any lane of any device still running. The body runs on every
    device each iteration (its collectives pair the devices up) and a lane
    that is done keeps its carry."""
    p = eqn.params
    cond, body = p["cond_jaxpr"], p["body_jaxpr"]
    nc, nb = p["cond_nconsts"], p["body_nconsts"]
    in_specs = _specs(eqn.invars)
    cond_in, body_in = _specs(cond.invars), _specs(body.invars)
    carry_specs = body_in[nb:]
    pred_spec = spec_of(cond.out_avals[0])
    rank = len(pred_spec)
    names = tuple(n for s in pred_spec for n in s)
    cconsts = _laid_out(ctx, args[:nc], in_specs[:nc], cond_in[:nc])
    bconsts = _laid_out(ctx, args[nc:nc + nb], in_specs[nc:nc + nb], body_in[:nb])
    carry = _laid_out(ctx, args[nc + nb:], in_specs[nc + nb:], carry_specs)

    def lanes(cc, xs):  # this device's lanes of the predicate, laid out as its type says
        return ctx.run(cond, _laid_out(ctx, [*cc, *xs], cond_in[:nc] + carry_specs, cond_in))[0]

    def any_lane(*xs):
        mine = reductions.reduce_or(lanes(xs[:nc], xs[nc:]), tuple(range(rank)))
        if not names:  # (the lanes are the same on every device)
            return [mine]
        votes = sp.OPS["pmax"](elementwise.convert_element_type(mine, np.int32), names)
        return [elementwise.gt(votes, np.int32(0))]

    def masked_step(*xs):
        cc, bc, old = xs[:nc], xs[nc:nc + nb], xs[nc + nb:]
        running = lanes(cc, old)
        new = _laid_out(ctx, ctx.run(body, [*bc, *old]), _specs(body.outvars), carry_specs)
        return [_bcast_select_n(ctx.reshard(running, pred_spec, tuple(s[:rank])), o, n)
                for o, n, s in zip(old, new, carry_specs, strict=True)]

    local_cond, cextra = _traced(any_lane, _avals(cconsts) + _avals(carry))
    local_step, bextra = _traced(masked_step, _avals(cconsts) + _avals(bconsts) + _avals(carry))
    outs = while_p.bind(*cextra, *cconsts, *bextra, *cconsts, *bconsts, *carry, cond_nconsts=len(cextra) + nc,
                        cond_jaxpr=local_cond, body_nconsts=len(bextra) + nc + nb, body_jaxpr=local_step)
    return _laid_out(ctx, outs, carry_specs, _specs(eqn.outvars))


def cond_rule(ctx: Context, eqn: JaxprEqn, args: list) -> list:
    """Every branch runs on the operands as they are laid out and returns
    its results laid out as the equation's types say; the index, replicated
    in its type, picks the same branch on every device."""
    index, ops = args[0], args[1:]
    if spec_of(eqn.invars[0].aval):
        raise sp.Unpartitionable("a cond's index must be a scalar (vmap selects between the branches instead)")
    in_specs, out_specs = _specs(eqn.invars[1:]), _specs(eqn.outvars)
    traced = [local_body(ctx, branch, _avals(ops), in_specs, out_specs) for branch in eqn.params["branches"]]
    branches, consts = common.merge_common_consts([j for j, _ in traced], [c for _, c in traced])
    return list(cond_p.bind(index, *consts, *ops, branches=tuple(branches)))


def install() -> None:
    sp.register_rule(scan_p, scan_rule)
    sp.register_rule(while_p, while_rule)
    sp.register_rule(cond_p, cond_rule)


install()
