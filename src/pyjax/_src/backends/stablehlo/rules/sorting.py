"""sort (its comparator region as JAX builds it: floats canonicalised, -0.0
to 0.0 and every NaN to one NaN, then a total-order `LT`) and top_k (chlo)."""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.stablehlo.builder import Builder, print_generic
from pyjax._src.backends.stablehlo.ir import Block, TensorType
from pyjax._src.backends.stablehlo.lowering import LoweringError, register_lowering
from pyjax._src.backends.stablehlo.rules import sorting_network
from pyjax._src.backends.stablehlo.rules.reductions import region_return


def _is_float(dtype) -> bool:
    dtype = np.dtype(dtype)
    return dtype.kind in "fc" or dtype.name == "bfloat16" or dtype.name.startswith("float8")


def _splat(b: Builder, value, like):
    # (a scalar constant, broadcast when `like` is a tensor: the network sort's comparisons)
    return b.broadcast_to(b.constant(np.array(value, like.dtype)), like.shape)


def _canonical(b: Builder, x):
    zero = _splat(b, 0, x)
    is_zero = b.compare("EQ", x, zero)
    x2 = b.select(is_zero, _splat(b, 0, x), x)
    is_nan = b.compare("NE", x, x)
    return b.select(is_nan, _splat(b, np.nan, x), x2)


def _less(b: Builder, x, y):
    if _is_float(x.dtype):
        return b.compare("LT", _canonical(b, x), _canonical(b, y), "TOTALORDER")
    return b.compare("LT", x, y)


def keys_less(b: Builder, pairs):
    """x < y over the keys' (x, y) pairs, lexicographic: x < y, or x == y and the
    rest decide (scalars in the comparator region, whole tensors in the network)."""
    result = None
    for x, y in reversed(pairs):
        lt = _less(b, x, y)
        if result is None:
            result = lt
        else:
            eq = b.compare("EQ", x, y, "TOTALORDER" if _is_float(x.dtype) else None)
            result = b.elementwise("stablehlo.or", [lt, b.elementwise("stablehlo.and", [eq, result])])
    return result


def comparator(operand_types, num_keys: int) -> Block:
    args = []
    for t in operand_types:
        scalar = TensorType((), t.dtype)
        args += [scalar, scalar]
    block = Block(args)
    b = Builder(block)
    pairs = [(block.args[2 * k], block.args[2 * k + 1]) for k in range(len(operand_types))]
    region_return(b, [keys_less(b, pairs[:num_keys])])
    return block


def _sort(ctx, *operands, dimension, is_stable, num_keys):
    props = f"dimension = {dimension} : i64, is_stable = {'true' if is_stable else 'false'}"
    operands = list(operands)
    for_iree = getattr(ctx.mod, "stable_sort_iota", False)
    if for_iree and operands[0].shape[dimension] >= sorting_network.NETWORK_MIN:
        return sorting_network.bitonic_sort(ctx.b, operands, num_keys, dimension)
    if not (is_stable and for_iree):
        emit = _sort_for_iree if for_iree else _emit_sort
        return emit(ctx.b, operands, comparator([o.type for o in operands], num_keys), props)
    # (for IREE 3.13, whose stable sort permutes equal keys: the positions, an iota along
    # the dimension, as the last key; docs/iree.md. An operand that is already that iota,
    # argsort's, becomes the key; else a new one is added and its result dropped. Two
    # equal iotas would be one value to IREE, sorted as two operands in place: wrong.)
    found = [i for i in range(num_keys, len(operands)) if _is_positions(operands[i], dimension)]
    order = list(range(num_keys)) + found[:1] + [i for i in range(num_keys, len(operands)) if i not in found[:1]]
    keyed = [operands[i] for i in order]
    if not found:
        keyed.insert(num_keys, ctx.b.iota(operands[0].shape, np.int32, dimension))
    outs = _sort_for_iree(ctx.b, keyed, comparator([o.type for o in keyed], num_keys + 1), props)
    if not found:
        return outs[:num_keys] + outs[num_keys + 1:]
    return [outs[order.index(i)] for i in range(len(operands))]


def _is_positions(value, dimension: int) -> bool:
    # an iota of signed integers along the sorted dimension, large enough to count its length
    op = value.op
    dtype = np.dtype(value.dtype)
    return (op is not None and op.name == "stablehlo.iota" and op.attrs.get("dim") == dimension
            and dtype.kind == "i" and value.shape[dimension] <= np.iinfo(dtype).max)


def _emit_sort(b: Builder, operands, region: Block, props: str):
    return b.emit("stablehlo.sort", operands, [o.type for o in operands], print_generic, regions=[region], props=props)


def _sort_for_iree(b: Builder, operands, region: Block, props: str):
    """The sort with its results passed through a barrier, so that IREE 3.13
    sees every result used. It sorts in place, and an operand whose result is
    dead is bound read-only and sorted in a copy on the dispatch's stack: past
    IREE's 32 KiB stack limit (a row of 4096 floats and its positions) the
    module fails to compile. (A barrier on the operands too would also keep a
    slice of an input from being sorted in a stack copy, but IREE then sorts
    in place a buffer it shares with another result: wrong values.)"""
    from pyjax._src.backends.stablehlo.rules.elementwise import _print_barrier

    types = [o.type for o in operands]
    outs = _emit_sort(b, operands, region, props)
    return b.emit("stablehlo.optimization_barrier", list(outs), types, _print_barrier)


def _print_top_k(op, p, indent, in_func):
    outs = ", ".join(str(r.type) for r in op.results)
    return f"chlo.top_k({p.v(op.operands[0])}, k = {op.attrs['k']}) : {op.operands[0].type} -> ({outs})"


def _top_k(ctx, x, *, k, axis=-1, **params):
    if axis not in (-1, len(x.shape) - 1):
        raise LoweringError("top_k over an axis other than the last is not lowered")
    return ctx.b.emit("chlo.top_k", [x], ctx.out_types, _print_top_k, k=k, result_hints=("values", "indices"))


def _approx_top_k(ctx, x, *, k, reduction_dimension, recall_target, is_max_k, reduction_input_size_override,
                  aggregate_to_topk):
    """approx_top_k as JAX lowers it off TPU: XLA's `ApproxTopK` custom call
    with `is_fallback` (an exact top-k by sorting), the positions an iota,
    its comparator a function put first in the module."""
    from pyjax._src.backends.stablehlo.builder import _types_sig
    from pyjax._src.backends.stablehlo.ir import _symbol, format_float
    from pyjax._src.backends.stablehlo.rules.reductions import identity

    b = ctx.b
    dim = reduction_dimension % len(x.shape)
    direction = "GT" if is_max_k else "LT"
    if not getattr(ctx.mod, "xla_ops", True):
        return _exact_top_k(ctx, x, dim, direction)
    scalar, index = TensorType((), x.dtype), TensorType((), np.int32)
    module = ctx.mod.module
    name = f"top_k_{direction.lower()}_{str(scalar)[len('tensor<'):-1]}_comparator"
    func = module.add_func(name, [scalar, scalar, index, index])
    module.funcs.remove(func)
    module.funcs.insert(module.head, func)
    func.public = None  # (printed without a visibility)
    fb = Builder(func.body)
    # (XLA's comparator: a compare without its `compare_type`)
    region_return(fb, [fb.emit1("stablehlo.compare", func.args[:2], [TensorType((), np.bool_)], _print_untyped_compare,
                                direction=direction)])
    func.result_types, func.result_attrs = [TensorType((), np.bool_)], [None]
    iota = b.iota(x.shape, np.int32, dim)
    minus_one = b.constant(np.int32(-1))
    init = b.constant(identity("lowest" if is_max_k else "highest", x.dtype))
    config = (f"aggregate_to_topk = {str(bool(aggregate_to_topk)).lower()}, is_fallback = true, recall_target = "
              f"{format_float(recall_target, np.float32)} : f32, reduction_dim = {dim} : i64, "
              f"reduction_input_size_override = {reduction_input_size_override} : i64, top_k = {k} : i64")

    def printer(op, p, indent, in_func):
        return (f"stablehlo.custom_call @ApproxTopK({p.vs(op.operands)}) {{backend_config = \"\", called_computations = "
                f"[{_symbol(func.name)}], mhlo.backend_config = {{{config}}}}} : {_types_sig(op.operands, op.results)}")

    return b.emit("stablehlo.custom_call", [x, iota, init, minus_one], ctx.out_types, printer)


def _exact_top_k(ctx, x, dim: int, direction: str):
    """What XLA's CPU fallback computes, for IREE (which has no `ApproxTopK`):
    (values, positions) sorted along `dim` by the IEEE comparison, equal
    values in their order (the positions break ties), cut to the result's size."""
    b = ctx.b
    iota = b.iota(x.shape, np.int32, dim)
    scalar, index = TensorType((), x.dtype), TensorType((), np.int32)
    block = Block([scalar, scalar, index, index])
    rb = Builder(block)
    xa, xb, ia, ib = block.args
    first = rb.compare(direction, xa, xb)
    tie = rb.elementwise("stablehlo.and", [rb.compare("EQ", xa, xb), rb.compare("LT", ia, ib)])
    region_return(rb, [rb.elementwise("stablehlo.or", [first, tie])])
    props = f"dimension = {dim} : i64, is_stable = true"
    outs = _sort_for_iree(b, [x, iota], block, props)
    size = ctx.out_types[0].shape[dim]
    limit = list(x.shape)
    limit[dim] = size
    return [b.slice(o, [0] * len(x.shape), limit) for o in outs]


def _print_untyped_compare(op, p, indent, in_func):
    from pyjax._src.backends.stablehlo.builder import _types_sig

    return f"stablehlo.compare {op.attrs['direction']}, {p.vs(op.operands)} : {_types_sig(op.operands, op.results)}"


def register(prims: dict) -> None:
    register_lowering(prims["sort"], _sort)
    if "approx_top_k" in prims:
        register_lowering(prims["approx_top_k"], _approx_top_k)
    register_lowering(prims["top_k"], _top_k)
