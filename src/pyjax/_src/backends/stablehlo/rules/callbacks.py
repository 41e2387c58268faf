"""Host callbacks (jax.debug.print / debug.callback, io_callback,
pure_callback) as JAX lowers them for the CPU: a
`stablehlo.custom_call @xla_ffi_python_cpu_callback` whose
`mhlo.backend_config` holds the callback's index among the module's
callbacks, with the operands' and results' layouts; side effects marked
`has_side_effect`. An ordered effect threads its `!stablehlo.token`: the
call takes it first and returns the next one first. Outside shard_map a
callback runs once on device 0 (JAX's maximal `sdy.sharding`), except an
ordered debug callback, which JAX leaves unannotated.

The module records only an index: pyjax runs such programs on the NumPy
backend, and the IREE backend refuses them (it lowers with
`host_callbacks=False`, so the error names the primitive).
"""

from __future__ import annotations

from pyjax._src.backends.stablehlo.ir import TOKEN, TensorType
from pyjax._src.backends.stablehlo.lowering import LoweringError, ordered_effects, register_lowering, token_for

_MESH = "sdy.mesh @maximal_mesh_0 = <[], device_ids=[0]> {stablehlo.mesh = {axes = [], device_ids = dense<0> : tensor<1xi64>}}"


def _layout(t) -> str:
    # The default major-to-minor layout: dims rank-1 ... 0.
    rank = len(t.shape) if isinstance(t, TensorType) else 0
    if rank == 0:
        return "dense<> : tensor<0xindex>"
    dims = list(range(rank - 1, -1, -1))
    body = str(dims[0]) if rank == 1 else "[" + ", ".join(map(str, dims)) + "]"
    return f"dense<{body}> : tensor<{rank}xindex>"


def _printer(op, p, indent, in_func):
    attrs = ['backend_config = ""']
    if op.attrs["side_effect"]:
        attrs.append("has_side_effect = true")
    attrs.append(f"mhlo.backend_config = {{index = {op.attrs['index']} : ui64}}")
    attrs.append("operand_layouts = [" + ", ".join(_layout(v.type) for v in op.operands) + "]")
    attrs.append("result_layouts = [" + ", ".join(_layout(v.type) for v in op.results) + "]")
    if op.attrs["sharded"]:
        per_value = ", ".join(["<@maximal_mesh_0, []>"] * max(1, len(op.results)))
        attrs.append(f"sdy.sharding = #sdy.sharding_per_value<[{per_value}]>")
    ins = ", ".join(str(v.type) for v in op.operands)
    outs = [str(v.type) for v in op.results]
    res = outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")"
    return (f"stablehlo.custom_call @xla_ffi_python_cpu_callback({p.vs(op.operands)}) {{{', '.join(attrs)}}} : "
            f"({ins}) -> {res}")


def _callback_rule(side_effect: bool, debug: bool):
    def rule(ctx, *args, **params):
        name = ctx.eqn.primitive.name
        if not ctx.mod.host_callbacks:
            raise LoweringError(f"primitive '{name}' is a host callback: a Python function the compiled module "
                                "cannot call on this backend")
        ordered = ordered_effects(ctx.eqn.effects)
        operands = list(args)
        result_types = list(ctx.out_types)
        if ordered:
            operands.insert(0, token_for(ctx, ordered[0]))
            result_types.insert(0, TOKEN)
        index = ctx.mod.callback_index
        ctx.mod.callback_index += 1
        sharded = not (debug and ordered)  # (JAX annotates every callback but an ordered debug one)
        if sharded and _MESH not in ctx.mod.module.preamble:
            ctx.mod.module.preamble.append(_MESH)
        results = ctx.b.emit("stablehlo.custom_call", operands, result_types, _printer, index=index,
                             side_effect=side_effect, sharded=sharded)
        if ordered:
            ctx.tokens[ordered[0]] = results[0]
            results = results[1:]
        return list(results)

    return rule


def register(prims: dict) -> None:
    register_lowering(prims["debug_callback"], _callback_rule(True, True))
    register_lowering(prims["debug_print"], _callback_rule(True, True))
    register_lowering(prims["io_callback"], _callback_rule(True, False))
    register_lowering(prims["pure_callback"], _callback_rule(False, False))
