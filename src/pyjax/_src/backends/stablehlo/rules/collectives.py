"""shard_map and the collectives inside it, as JAX 0.11 lowers them with
Shardy: `sdy.manual_computation` (the operands' and results' shardings from
in_specs/out_specs, the newly manual axes, the per-device body), and in its
body the collectives over mesh axes with replica groups naming the axes
(`#stablehlo.replica_group_mesh_axes` over a second declaration of the mesh,
`@mesh_0`), channel handle 1: psum/pmax/pmin as
`all_reduce`, `all_gather`, psum_scatter as `reduce_scatter`, `all_to_all`,
ppermute as `collective_permute` (device-id pairs), axis_index from
`partition_id`. The varying-axes casts (pvary, pbroadcast) are identities.
"""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np

from pyjax._src.backends.stablehlo.builder import Builder, print_generic
from pyjax._src.backends.stablehlo.ir import Block, TensorType, dense_attr
from pyjax._src.backends.stablehlo.lowering import LoweringError, aval_type, lower_jaxpr, register_lowering
from pyjax._src.backends.stablehlo.rules.reductions import region_return
from pyjax._src.backends.stablehlo.sharding import constrain, dims_text, mesh_decl, use_mesh


def _axis_names(mesh) -> list:
    return list(mesh.axis_names)


def _print_manual(op, p, indent, in_func):
    block = op.regions[0]
    args = ", ".join(f"{p.v(a)}: {a.type}" for a in block.args)
    lines = [f"sdy.manual_computation({p.vs(op.operands)}) in_shardings=[{', '.join(op.attrs['ins'])}] "
             f"out_shardings=[{', '.join(op.attrs['outs'])}] manual_axes={{{op.attrs['axes']}}} ({args}) {{"]
    lines += p.block_body(block, indent + 2)
    ins = ", ".join(str(v.type) for v in op.operands)
    outs = [str(v.type) for v in op.results]
    res = outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")"
    lines.append(" " * indent + f"}} : ({ins}) -> {res}")
    return "\n".join(lines)


def _print_sdy_return(op, p, indent, in_func):
    return f"sdy.return {p.vs(op.operands)} : {', '.join(str(v.type) for v in op.operands)}"


def _shard_map(ctx, *args, mesh, in_specs, out_specs, jaxpr, newly_manual_axes=None, **params):
    if not ctx.mod.shardings:
        raise LoweringError("primitive 'shard_map' lowers with Shardy only (its program runs per device)")
    if jaxpr.effects and any(True for _ in jaxpr.effects):
        from pyjax._src.backends.stablehlo.lowering import ordered_effects

        if ordered_effects(jaxpr.effects):
            raise LoweringError("pyjax does not lower a shard_map with ordered effects")
    module = ctx.mod.module
    name = use_mesh(module, mesh)
    manual = newly_manual_axes if newly_manual_axes is not None else set(mesh.axis_names)
    axes = ", ".join(f'"{a}"' for a in _axis_names(mesh) if a in manual)
    ins = [f"<@{name}, {dims_text(s, len(a.shape))}>" for s, a in zip(in_specs, ctx.avals_in)]
    outs = [f"<@{name}, {dims_text(s, len(a.shape))}>" for s, a in zip(out_specs, ctx.avals_out)]
    block = Block([aval_type(a) for a in jaxpr.in_avals])
    body_outs = lower_jaxpr(ctx.mod, Builder(block), jaxpr, block.args)
    Builder(block).emit("sdy.return", body_outs, [], _print_sdy_return)
    return ctx.b.emit("sdy.manual_computation", list(args), ctx.out_types, _print_manual, regions=[block],
                      ins=ins, outs=outs, axes=axes)


def _collective_mesh(ctx) -> str:
    """The symbol of the mesh the replica groups name: JAX declares the
    mesh a second time (`@mesh_0`) for them."""
    mod = ctx.mod
    name = getattr(mod, "collective_mesh", None)
    if name is None:
        mesh = _current_mesh(ctx)
        use_mesh(mod.module, mesh)
        name = mod.collective_mesh = "mesh_0"
        mod.module.preamble.insert(1, mesh_decl(name, mesh))
    return name


def _current_mesh(ctx):
    mesh = getattr(ctx.mod, "manual_mesh", None)
    if mesh is None:
        raise LoweringError(f"primitive '{ctx.eqn.primitive.name}' outside shard_map: no mesh to lower it over")
    return mesh


def _groups(ctx, axes) -> str:
    axes = (axes,) if isinstance(axes, str) else tuple(axes)
    refs = ", ".join(f'#stablehlo.axis_ref<name = "{a}">' for a in axes)
    return f"replica_groups = #stablehlo.replica_group_mesh_axes<mesh = @{_collective_mesh(ctx)}, axes = [{refs}]>"


def _handle(ctx) -> str:
    # (JAX gives every collective the same channel, 1, device to device: the
    # partitions are the devices)
    return "channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>"


def _reducer(ctx, dtype, op_name: str) -> Block:
    t = TensorType((), dtype)
    block = Block([t, t])
    rb = Builder(block)
    out = rb.elementwise("stablehlo." + op_name, list(block.args))
    typed = _typed_scalar(ctx)
    if typed is not None:  # (a partly manual mesh: JAX's reducer constrains its scalar)
        out = constrain(ctx.mod, rb, out, None, typed)
    region_return(rb, [out])
    return block


def _typed_scalar(ctx):
    from pyjax._src.backends.stablehlo.sharding import typed_sharding

    s = typed_sharding(ctx.avals_out[0])
    return None if s is None else SimpleNamespace(mesh=s.mesh, spec=())


def _all_reduce(op_name):
    def rule(ctx, *xs, axes, **params):
        if params.get("axis_index_groups") is not None:
            raise LoweringError("pyjax does not lower collectives with axis_index_groups")
        outs = []
        for x in xs:
            props = f"{_handle(ctx)}, {_groups(ctx, axes)}, use_global_device_ids"
            outs.append(ctx.b.emit1("stablehlo.all_reduce", [x], [x.type], print_generic,
                                    regions=[_reducer(ctx, x.dtype, op_name)], props=props))
        return outs

    return rule


def _all_gather(ctx, x, *, all_gather_dimension, axis_name, tiled, axis_index_groups=None, **params):
    b = ctx.b
    if not tiled:  # (a unit dimension inserted at the gathered axis first)
        shape = list(x.shape)
        shape.insert(all_gather_dimension, 1)
        x = b.broadcast_in_dim(x, shape, [d for d in range(len(shape)) if d != all_gather_dimension])
    props = (f"all_gather_dim = {all_gather_dimension} : i64, {_handle(ctx)}, {_groups(ctx, axis_name)}, "
             "use_global_device_ids")
    return [b.emit1("stablehlo.all_gather", [x], ctx.out_types, print_generic, props=props)]


def _reduce_scatter(ctx, x, *, scatter_dimension, axis_name, tiled, **params):
    if not tiled:
        raise LoweringError("pyjax lowers psum_scatter with tiled=True only")
    props = (f"{_handle(ctx)}, {_groups(ctx, axis_name)}, scatter_dimension = {scatter_dimension} : i64, "
             "use_global_device_ids")
    return [ctx.b.emit1("stablehlo.reduce_scatter", [x], ctx.out_types, print_generic,
                        regions=[_reducer(ctx, x.dtype, "add")], props=props)]


def _all_to_all(ctx, x, *, split_axis, concat_axis, axis_name, tiled, **params):
    if not tiled and (split_axis != concat_axis or ctx.out_types[0] != x.type):
        # (untiled over one axis is the same op; JAX reshapes around it otherwise)
        raise LoweringError("pyjax lowers an untiled all_to_all only with split_axis == concat_axis")
    mesh = _current_mesh(ctx)
    names = (axis_name,) if isinstance(axis_name, str) else tuple(axis_name)
    count = int(np.prod([dict(zip(mesh.axis_names, mesh.axis_sizes))[n] for n in names]))
    props = (f"{_handle(ctx)}, concat_dimension = {concat_axis} : i64, {_groups(ctx, names)}, "
             f"split_count = {count} : i64, split_dimension = {split_axis} : i64")
    return [ctx.b.emit1("stablehlo.all_to_all", [x], ctx.out_types, print_generic, props=props)]


def _ppermute(ctx, x, *, axis_name, perm):
    mesh = _current_mesh(ctx)
    names = (axis_name,) if isinstance(axis_name, str) else tuple(axis_name)
    sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
    others = [a for a in mesh.axis_names if a not in names]
    strides = {a: int(np.prod([sizes[b] for b in mesh.axis_names[i + 1:]])) for i, a in enumerate(mesh.axis_names)}

    def device(fixed: dict, index: int) -> int:
        coords = dict(fixed)
        for a in reversed(names):  # (the permuted axes' combined index, row-major)
            coords[a] = index % sizes[a]
            index //= sizes[a]
        return sum(coords[a] * strides[a] for a in mesh.axis_names)

    pairs = []
    for combo in itertools.product(*[range(sizes[a]) for a in others]):
        fixed = dict(zip(others, combo))
        pairs += [[device(fixed, s), device(fixed, t)] for s, t in perm]
    table = np.asarray(pairs, np.int64).reshape(len(pairs), 2)
    props = f"{_handle(ctx)}, source_target_pairs = {dense_attr(table)} : tensor<{len(pairs)}x2xi64>"
    return [ctx.b.emit1("stablehlo.collective_permute", [x], [x.type], print_generic, props=props)]


def _axis_index(ctx, *, axis_name):
    mesh = _current_mesh(ctx)
    b = ctx.b
    i = list(mesh.axis_names).index(axis_name)
    stride = int(np.prod(mesh.axis_sizes[i + 1:]))
    c_stride = b.constant(np.array(stride, np.uint32))
    c_size = b.constant(np.array(mesh.axis_sizes[i], np.uint32))
    pid = b.emit1("stablehlo.partition_id", [], [TensorType((), np.uint32)], _print_partition_id)
    q = b.elementwise("stablehlo.divide", [pid, c_stride])
    r = b.elementwise("stablehlo.remainder", [q, c_size])
    return [b.convert(r, np.int32)]


def _print_partition_id(op, p, indent, in_func):
    return f"stablehlo.partition_id : {op.results[0].type}"


def _identity(ctx, *args, **params):
    return list(args)


def _with_mesh(rule):
    # The body's collectives read the shard_map's mesh (axis sizes, device ids).
    def wrapped(ctx, *args, mesh, **params):
        saved = getattr(ctx.mod, "manual_mesh", None)
        ctx.mod.manual_mesh = mesh
        try:
            return rule(ctx, *args, mesh=mesh, **params)
        finally:
            ctx.mod.manual_mesh = saved

    return wrapped


def register(prims: dict) -> None:
    table = {
        "shard_map": _with_mesh(_shard_map), "psum": _all_reduce("add"), "psum_invariant": _all_reduce("add"),
        "pmax": _all_reduce("maximum"), "pmin": _all_reduce("minimum"), "all_gather": _all_gather,
        "reduce_scatter": _reduce_scatter, "all_to_all": _all_to_all, "ppermute": _ppermute,
        "axis_index": _axis_index, "pvary": _identity, "pbroadcast": _identity,
    }
    for name, rule in table.items():
        if name in prims:
            register_lowering(prims[name], rule)
