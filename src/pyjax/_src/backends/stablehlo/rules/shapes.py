"""Shape ops: broadcast_in_dim, reshape, transpose, squeeze, rev, pad,
concatenate, slice, split, dynamic_slice, dynamic_update_slice, iota."""

from __future__ import annotations

from pyjax._src.backends.stablehlo.builder import print_with_attr, print_with_attr_same
from pyjax._src.backends.stablehlo.ir import int_list
from pyjax._src.backends.stablehlo.lowering import register_lowering


def _broadcast_in_dim(ctx, x, *dyn, shape, broadcast_dimensions, **params):
    return [ctx.b.broadcast_in_dim(x, shape, broadcast_dimensions)]


def _reshape(ctx, x, *dyn, new_sizes, dimensions, **params):
    if dimensions is not None and tuple(dimensions) != tuple(range(len(x.shape))):
        x = ctx.b.transpose(x, dimensions)
    return [ctx.b.reshape(x, ctx.avals_out[0].shape)]


def _squeeze(ctx, x, *, dimensions):
    return [ctx.b.reshape(x, ctx.avals_out[0].shape)]


def _transpose(ctx, x, *, permutation):
    return [ctx.b.transpose(x, permutation)]


def _rev(ctx, x, *, dimensions):
    return [ctx.b.emit1("stablehlo.reverse", [x], [x.type], print_with_attr_same, text=f"dims = {int_list(dimensions)}")]


def _pad(ctx, x, value, *, padding_config):
    lo, hi, interior = zip(*padding_config) if padding_config else ((), (), ())
    text = f"low = {int_list(lo)}, high = {int_list(hi)}, interior = {int_list(interior)}"
    return [ctx.b.emit1("stablehlo.pad", [x, value], ctx.out_types, print_with_attr, text=text)]


def _concatenate(ctx, *xs, dimension):
    return [ctx.b.emit1("stablehlo.concatenate", list(xs), ctx.out_types, print_with_attr, text=f"dim = {dimension}")]


def _slice(ctx, x, *, start_indices, limit_indices, strides):
    return [ctx.b.slice(x, start_indices, limit_indices, strides)]


def _split(ctx, x, *, sizes, axis):
    outs = []
    start = 0
    for size in sizes:
        lo = [0] * len(x.shape)
        hi = list(x.shape)
        lo[axis], hi[axis] = start, start + int(size)
        outs.append(ctx.b.slice(x, lo, hi))
        start += int(size)
    return outs


def _dynamic_slice(ctx, x, *idx, slice_sizes):
    if any(hasattr(d, "get_vars") for d in slice_sizes):
        from pyjax._src.backends.stablehlo import dynamic

        return [dynamic.dynamic_slice(ctx.b, x, idx, slice_sizes, ctx.out_types[0])]
    return [ctx.b.emit1("stablehlo.dynamic_slice", [x, *idx], ctx.out_types, print_with_attr,
                        text=f"sizes = {int_list(slice_sizes)}")]


def _print_dus(op, p, indent, in_func):
    from pyjax._src.backends.stablehlo.builder import _types_sig

    return f"stablehlo.dynamic_update_slice {p.vs(op.operands)} : {_types_sig(op.operands, op.results)}"


def _dynamic_update_slice(ctx, x, update, *idx):
    return [ctx.b.emit1("stablehlo.dynamic_update_slice", [x, update, *idx], [x.type], _print_dus)]


def _iota(ctx, *dyn, dtype, shape, dimension, **params):
    return [ctx.b.iota(shape, dtype, dimension)]


def _stack(ctx, *xs, axis):
    # jnp.stack as JAX traces it: each operand gains the axis, then one concatenate
    shape = list(xs[0].shape)
    shape.insert(axis, 1)
    dims = [d for d in range(len(shape)) if d != axis]
    parts = [ctx.b.broadcast_in_dim(x, shape, dims) for x in xs]
    return [ctx.b.emit1("stablehlo.concatenate", parts, ctx.out_types, print_with_attr, text=f"dim = {axis}")]


def _unstack(ctx, x, *, axis):
    outs = []
    for i in range(x.shape[axis]):
        lo = [0] * len(x.shape)
        hi = list(x.shape)
        lo[axis], hi[axis] = i, i + 1
        piece = ctx.b.slice(x, lo, hi)
        outs.append(ctx.b.reshape(piece, [d for k, d in enumerate(x.shape) if k != axis]))
    return outs


def _tile(ctx, x, *, reps):
    # jnp.tile as JAX traces it: interleave size-1 axes, broadcast them to the
    # repeat counts, merge each pair (reshapes and broadcasts that change nothing are skipped)
    b = ctx.b
    reps = tuple(int(r) for r in reps)
    shape = (1,) * (len(reps) - len(x.shape)) + tuple(x.shape)
    reps = (1,) * (len(shape) - len(reps)) + reps
    if shape != x.shape:
        x = b.reshape(x, shape)
    interleaved = [k for s in shape for k in (1, s)]
    target = [k for pair in zip(reps, shape) for k in pair]
    final = [r * s for r, s in zip(reps, shape)]
    from pyjax._src.backends.stablehlo import dynamic

    if dynamic.is_symbolic(shape):  # (JAX's three ops, on shape tensors)
        x = dynamic.dynamic_reshape(b, x, interleaved)
        x = dynamic.dynamic_broadcast_in_dim(b, x, target, list(range(len(target))))
        return [dynamic.dynamic_reshape(b, x, final)]
    if tuple(interleaved) != x.shape:
        x = b.reshape(x, interleaved)
    x = b.broadcast_to(x, target)
    if tuple(final) != x.shape:
        x = b.reshape(x, final)
    return [x]


def _dim_as_value(ctx, *, dim):
    from pyjax._src.backends.stablehlo import dynamic

    return [dynamic.dim_value(ctx.b, dim, ctx.avals_out[0].dtype)]


def register(prims: dict) -> None:
    register_lowering(prims["dim_as_value"], _dim_as_value)
    register_lowering(prims["stack"], _stack)
    register_lowering(prims["unstack"], _unstack)
    register_lowering(prims["tile"], _tile)
    register_lowering(prims["broadcast_in_dim"], _broadcast_in_dim)
    register_lowering(prims["reshape"], _reshape)
    register_lowering(prims["squeeze"], _squeeze)
    register_lowering(prims["transpose"], _transpose)
    register_lowering(prims["rev"], _rev)
    register_lowering(prims["pad"], _pad)
    register_lowering(prims["concatenate"], _concatenate)
    register_lowering(prims["slice"], _slice)
    register_lowering(prims["split"], _split)
    register_lowering(prims["dynamic_slice"], _dynamic_slice)
    register_lowering(prims["dynamic_update_slice"], _dynamic_update_slice)
    register_lowering(prims["iota"], _iota)
