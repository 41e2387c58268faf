"""Control flow: `while` as `stablehlo.while` (its constants carried in the
loop state, as JAX does), `cond` as `stablehlo.case`, and `scan` as JAX
lowers it on the CPU (a while loop over an index, slicing the inputs and
updating the stacked outputs through private functions)."""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.stablehlo.builder import Builder, print_generic
from pyjax._src.backends.stablehlo.ir import Block, TensorType
from pyjax._src.backends.stablehlo.lowering import lower_jaxpr, register_lowering
from pyjax._src.backends.stablehlo.rules.reductions import reduce_monoid, region_return


def print_while(op, p, indent, in_func):
    cond, body = op.regions
    inits = ", ".join(f"{p.v(a)} = {p.v(x)}" for a, x in zip(cond.args, op.operands))
    types = ", ".join(str(v.type) for v in op.operands)
    pad = " " * indent
    cond_lines = "\n".join(p.block_body(cond, indent + 2))
    body_lines = "\n".join(p.block_body(body, indent + 2))
    return (f"stablehlo.while({inits}) : {types}\n{pad}cond {{\n{cond_lines}\n{pad}}} do {{\n{body_lines}\n{pad}}}")


def emit_while(ctx, inits, cond_fn, body_fn):
    """A `stablehlo.while` over `inits`: `cond_fn(b, values) -> pred`,
    `body_fn(b, values) -> new values`."""
    types = [v.type for v in inits]
    cond = Block(types, "iterArg")
    body = Block(types, "iterArg")
    cb = Builder(cond)
    region_return(cb, [cond_fn(cb, cond.args)])
    bb = Builder(body)
    region_return(bb, body_fn(bb, body.args))
    return ctx.b.emit("stablehlo.while", list(inits), types, print_while, regions=[cond, body])


def _while(ctx, *args, cond_nconsts, cond_jaxpr, body_nconsts, body_jaxpr):
    cconsts, bconsts, carry = args[:cond_nconsts], args[cond_nconsts:cond_nconsts + body_nconsts], \
        args[cond_nconsts + body_nconsts:]
    nc, nb = cond_nconsts, body_nconsts

    def cond_fn(b, vals):
        (pred,) = lower_jaxpr(ctx.mod, b, cond_jaxpr, list(vals[:nc]) + list(vals[nc + nb:]))
        if pred.shape:  # a batched predicate: any lane still running
            pred = reduce_monoid(b, pred, range(len(pred.shape)), "or", "false", TensorType((), np.bool_))
        return pred

    def body_fn(b, vals):
        new = lower_jaxpr(ctx.mod, b, body_jaxpr, list(vals[nc:nc + nb]) + list(vals[nc + nb:]))
        return list(vals[:nc + nb]) + new

    outs = emit_while(ctx, list(cconsts) + list(bconsts) + list(carry), cond_fn, body_fn)
    return outs[nc + nb:]


def _cond(ctx, index, *ops, branches):
    blocks = []
    for branch in branches:
        block = Block()
        bb = Builder(block)
        region_return(bb, lower_jaxpr(ctx.mod, bb, branch, ops))
        blocks.append(block)
    return ctx.b.emit("stablehlo.case", [index], ctx.out_types, print_generic, regions=blocks)


def register(prims: dict) -> None:
    register_lowering(prims["while"], _while)
    register_lowering(prims["cond"], _cond)
