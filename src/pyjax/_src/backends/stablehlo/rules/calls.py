"""Calls: a nested jit is a private function and a `call`; custom_jvp and
custom_vjp calls and checkpoint are inlined, as JAX lowers them."""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.stablehlo.ir import TOKEN
from pyjax._src.backends.stablehlo.lowering import call_jaxpr, inline_jaxpr, register_lowering
from pyjax._src.backends.stablehlo.lowering import call_jaxpr as call_jaxpr_fn


def _jit(ctx, *args, jaxpr, name, **params):
    return call_jaxpr(ctx, jaxpr, name, args)


def _closed_call(ctx, *args, call_jaxpr, **params):
    return call_jaxpr_fn(ctx, call_jaxpr, "closed_call", args)


def _inline_call(ctx, *args, call_jaxpr, **params):
    return inline_jaxpr(ctx, call_jaxpr, args)


def _remat(ctx, *args, jaxpr, prevent_cse, differentiated, **params):
    if differentiated and prevent_cse:  # JAX keeps the recomputation from being CSE'd with the forward pass
        args = ctx.b.emit("stablehlo.optimization_barrier", list(args), [a.type for a in args], _print_barrier)
    return inline_jaxpr(ctx, jaxpr, args)


def _print_barrier(op, p, indent, in_func):
    return f"stablehlo.optimization_barrier {p.vs(op.operands)} : {', '.join(str(v.type) for v in op.operands)}"


def _remat_opt(ctx, *args, fwd_jaxpr, **params):
    # custom_vjp's remat optimisation: its forward rule, in line (JAX lowers its impl)
    return inline_jaxpr(ctx, fwd_jaxpr, args)


def _custom_remat(ctx, *args, jaxpr, **params):
    # jax.custom_remat: the wrapped function, in line (JAX expands it)
    return inline_jaxpr(ctx, jaxpr, args)


def _linear_solve(ctx, *args, const_lengths, jaxprs):
    # custom_linear_solve: its solve jaxpr in line on (solve's constants, b), as JAX lowers its impl
    start = const_lengths.matvec + const_lengths.vecmat  # (grouped: matvec, vecmat, solve, transpose_solve)
    solve_consts = list(args[start:start + const_lengths.solve])
    return inline_jaxpr(ctx, jaxprs.solve, solve_consts + list(args[sum(const_lengths):]))


def _custom_vmap(ctx, *args, call, **params):
    # custom_vmap outside vmap: the function itself, in line (JAX lowers its impl)
    return inline_jaxpr(ctx, call, args)


def _linear_call(ctx, *args, callee, **params):
    # linear_call: the callee on all its operands, in line (JAX lowers its impl)
    return inline_jaxpr(ctx, callee, args)


def _no_tokens_for_iree(ctx) -> None:
    if not getattr(ctx.mod, "xla_ops", True):
        from pyjax._src.backends.stablehlo.lowering import LoweringError

        raise LoweringError(f"primitive '{ctx.eqn.primitive.name}' makes a !stablehlo.token, which IREE does not "
                            "compile (it has no token values)")


def _create_token(ctx):
    _no_tokens_for_iree(ctx)
    return [ctx.b.emit1("stablehlo.create_token", [], [TOKEN], _print_token_op)]


def _after_all(ctx, *tokens):
    _no_tokens_for_iree(ctx)
    return [ctx.b.emit1("stablehlo.after_all", list(tokens), [TOKEN], _print_token_op)]


def _print_token_op(op, p, indent, in_func):
    # (MLIR prints `after_all` of no operands with two spaces: an empty operand list)
    if op.name == "stablehlo.create_token":
        return "stablehlo.create_token : !stablehlo.token"
    return f"stablehlo.after_all {p.vs(op.operands)} : !stablehlo.token"


def _empty2(ctx, **params):
    # a branch's stand-in for a residual another branch computes: JAX's zeros of its (physical) type
    out = ctx.out_types[0]
    return [ctx.b.constant(np.zeros(out.shape, out.dtype))]


def _identity(ctx, x, **params):
    # key-reuse markers: JAX lowers them to their operand
    return [x]


def register(prims: dict) -> None:
    for name in ("consume", "assert_consumed_value", "to_edtype", "from_edtype"):
        if name in prims:
            register_lowering(prims[name], _identity)
    register_lowering(prims["jit"], _jit)
    for name, rule in (("custom_vmap_call", _custom_vmap), ("linear_call", _linear_call),
                       ("create_token", _create_token), ("after_all", _after_all), ("empty2", _empty2)):
        if name in prims:
            register_lowering(prims[name], rule)
    if "custom_linear_solve" in prims:
        register_lowering(prims["custom_linear_solve"], _linear_solve)
    register_lowering(prims["custom_jvp_call"], _inline_call)
    register_lowering(prims["custom_vjp_call"], _inline_call)
    register_lowering(prims["remat2"], _remat)
    if "custom_remat" in prims:
        register_lowering(prims["custom_remat"], _custom_remat)
    if "remat_opt" in prims:
        register_lowering(prims["remat_opt"], _remat_opt)
    if "closed_call" in prims:  # JAX's core.closed_call: a private @closed_call and a call
        register_lowering(prims["closed_call"], _closed_call)
