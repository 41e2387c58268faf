"""gather and the scatter family. A gather in FILL_OR_DROP mode is JAX's
expansion (a mask of in-bounds index vectors, the gather, a select against
the fill value); scatter's out-of-bounds updates are dropped by the op itself."""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.stablehlo.builder import Builder, print_generic
from pyjax._src.backends.stablehlo.ir import Block, TensorType, i64_array, int_list
from pyjax._src.backends.stablehlo.lowering import LoweringError, register_lowering
from pyjax._src.backends.stablehlo.rules.reductions import reduce_monoid, region_return



def _gather_dnums(dn, index_vector_dim: int) -> str:
    fields = [("offset_dims", dn.offset_dims), ("collapsed_slice_dims", dn.collapsed_slice_dims),
              ("operand_batching_dims", dn.operand_batching_dims),
              ("start_indices_batching_dims", dn.start_indices_batching_dims), ("start_index_map", dn.start_index_map)]
    parts = [f"{name} = {int_list(v)}" for name, v in fields if len(v)]
    # (MLIR leaves out an index_vector_dim of 0, the attribute's default)
    return "#stablehlo.gather<" + ", ".join(parts + [f"index_vector_dim = {index_vector_dim}"] * bool(index_vector_dim)) + ">"


def _scatter_dnums(dn, index_vector_dim: int) -> str:
    fields = [("update_window_dims", dn.update_window_dims), ("inserted_window_dims", dn.inserted_window_dims),
              ("input_batching_dims", dn.operand_batching_dims),
              ("scatter_indices_batching_dims", dn.scatter_indices_batching_dims),
              ("scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims)]
    parts = [f"{name} = {int_list(v)}" for name, v in fields if len(v)]
    return "#stablehlo.scatter<" + ", ".join(parts + [f"index_vector_dim = {index_vector_dim}"] * bool(index_vector_dim)) + ">"


def _mode_name(mode) -> str:
    return getattr(mode, "name", str(mode)).upper()


def _emit_gather(b: Builder, x, idx, dn, slice_sizes, indices_are_sorted, out_type):
    if any(hasattr(d, "get_vars") for d in slice_sizes):
        # Symbolic slice sizes: the sizes are an operand (JAX's dynamic_gather).
        from pyjax._src.backends.stablehlo import dynamic

        sizes = dynamic.shape_tensor(b, slice_sizes)
        props = (f"dimension_numbers = {_gather_dnums(dn, len(idx.shape) - 1)}, indices_are_sorted = "
                 f"{'true' if indices_are_sorted else 'false'}")
        return b.emit1("stablehlo.dynamic_gather", [x, idx, sizes], [out_type], print_generic, props=props)
    props = (f"dimension_numbers = {_gather_dnums(dn, len(idx.shape) - 1)}, indices_are_sorted = "
             f"{'true' if indices_are_sorted else 'false'}, slice_sizes = {i64_array(slice_sizes)}")
    return b.emit1("stablehlo.gather", [x, idx], [out_type], print_generic, props=props)


def _fill_value(dtype, fill_value):
    dtype = np.dtype(dtype)
    if fill_value is not None:
        return np.array(fill_value, dtype)
    if dtype == np.bool_:
        return np.array(True)
    if dtype.kind == "i":
        return np.array(np.iinfo(dtype).min, dtype)
    if dtype.kind == "u":
        return np.array(np.iinfo(dtype).max, dtype)
    return np.array(np.nan, dtype)


def _gather(ctx, x, idx, *, dimension_numbers, slice_sizes, unique_indices, indices_are_sorted, mode,
            fill_value=None):
    b = ctx.b
    out = ctx.out_types[0]
    dn = dimension_numbers
    if _mode_name(mode) != "FILL_OR_DROP":
        return [_emit_gather(b, x, idx, dn, slice_sizes, indices_are_sorted, out)]
    if any(hasattr(d, "get_vars") for a in ctx.avals_in + ctx.avals_out for d in a.shape) or \
            any(hasattr(d, "get_vars") for d in slice_sizes):
        return _FILL_POLY(ctx, x, idx, dimension_numbers=dn, slice_sizes=slice_sizes, unique_indices=unique_indices,
                          indices_are_sorted=indices_are_sorted, fill_value=fill_value,
                          output_shape=ctx.avals_out[0].shape)
    # The in-bounds mask of each index vector: 0 <= i <= dim - slice size
    upper = np.array([x.shape[d] - slice_sizes[d] for d in dn.start_index_map], idx.dtype)
    upper_v = b.constant(upper)
    zeros = b.broadcast_in_dim(b.constant(np.zeros((), idx.dtype)), idx.shape, [])
    ge = b.compare("GE", idx, zeros)
    rank = len(idx.shape)
    expanded = b.broadcast_in_dim(upper_v, (1,) * (rank - 1) + upper.shape, [rank - 1])
    le = b.compare("LE", idx, b.broadcast_to(expanded, idx.shape))
    ok = b.elementwise("stablehlo.and", [ge, le])
    mask = reduce_monoid(b, ok, [rank - 1], "and", "true", TensorType(idx.shape[:-1], np.bool_))
    gathered = _emit_gather(b, x, idx, dn, slice_sizes, indices_are_sorted, out)
    batch_dims = [d for d in range(len(out.shape)) if d not in dn.offset_dims]
    if mask.shape != out.shape:
        mask = b.broadcast_in_dim(mask, out.shape, batch_dims)
    fill = b.broadcast_in_dim(b.constant(_fill_value(out.dtype, fill_value)), out.shape, [])
    return [b.select(mask, gathered, fill)]


def _gather_fill_traced(operand, indices, *, dimension_numbers, slice_sizes, unique_indices, indices_are_sorted,
                        fill_value, output_shape):
    # On symbolic shapes JAX traces its expansion: the bounds are computed
    # from the shape's values (`shape_as_value`), indexed as arrays.
    from pyjax import lax
    from pyjax._src import dtypes

    dn = dimension_numbers
    shape = tuple(operand.shape)
    index_dtype = np.dtype(dtypes.canonicalize_dtype(np.int64)) if any(hasattr(d, "get_vars") for d in shape) else \
        np.dtype(np.int32 if all(d <= np.iinfo(np.int32).max for d in shape) else np.int64)
    where = np.array(dn.start_index_map, dtype=index_dtype)
    dims = lax.shape_as_value(shape)
    indices = lax.convert_element_type(indices, index_dtype)
    batch = len(indices.shape) - 1
    upper = dims[where] - lax.shape_as_value(slice_sizes)[where]
    mask = lax.bitwise_and(lax.ge(indices, index_dtype.type(0)),
                           lax.le(indices, lax.expand_dims(upper, tuple(range(batch)))))
    mask = lax.reduce_and(mask, [batch])
    out_rank = batch + len(dn.offset_dims)
    batch_dims = [d for d in range(out_rank) if d not in dn.offset_dims]
    got = lax.gather(operand, indices, dn, slice_sizes, indices_are_sorted=indices_are_sorted,
                     mode=lax.GatherScatterMode.PROMISE_IN_BOUNDS)
    return lax.select(lax.broadcast_in_dim(mask, output_shape, batch_dims), got,
                      lax.full_like(got, _fill_value(got.dtype, fill_value)))


def _fill_poly(ctx, *args, **params):
    from pyjax._src.backends.stablehlo.lowering import lower_fun

    return lower_fun(_gather_fill_traced, multiple_results=False)(ctx, *args, **params)


_FILL_POLY = _fill_poly


_COMBINE = {"scatter": None, "scatter-add": "add", "scatter-sub": "subtract", "scatter-mul": "multiply",
            "scatter-min": "minimum", "scatter-max": "maximum"}


def _scatter(kind):
    def rule(ctx, x, idx, upd, *, dimension_numbers, indices_are_sorted, unique_indices, mode, update_jaxpr=None,
             update_consts=(), **params):
        b = ctx.b
        if _mode_name(mode) == "CLIP":
            raise LoweringError("scatter with mode=CLIP is not lowered to StableHLO yet")
        scalar = TensorType((), x.dtype)
        block = Block([scalar, scalar])
        rb = Builder(block)
        op = _COMBINE[kind]
        if op is None:
            region_return(rb, [block.args[1]])
        else:
            region_return(rb, [rb.elementwise("stablehlo." + op, block.args)])
        props = (f"indices_are_sorted = {'true' if indices_are_sorted else 'false'}, scatter_dimension_numbers = "
                 f"{_scatter_dnums(dimension_numbers, len(idx.shape) - 1)}, unique_indices = "
                 f"{'true' if unique_indices else 'false'}")
        return [b.emit1("stablehlo.scatter", [x, idx, upd], [x.type], print_generic, regions=[block], props=props)]

    return rule


def register(prims: dict) -> None:
    register_lowering(prims["gather"], _gather)
    for kind in _COMBINE:
        if kind in prims:
            register_lowering(prims[kind], _scatter(kind))
