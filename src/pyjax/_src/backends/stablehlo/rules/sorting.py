"""sort (its comparator region as JAX builds it: floats canonicalised, -0.0
to 0.0 and every NaN to one NaN, then a total-order `LT`) and top_k (chlo)."""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.stablehlo.builder import Builder, print_generic
from pyjax._src.backends.stablehlo.ir import Block, TensorType
from pyjax._src.backends.stablehlo.lowering import LoweringError, register_lowering
from pyjax._src.backends.stablehlo.rules.reductions import region_return


def _is_float(dtype) -> bool:
    dtype = np.dtype(dtype)
    return dtype.kind in "fc" or dtype.name == "bfloat16" or dtype.name.startswith("float8")


def _canonical(b: Builder, x):
    zero = b.constant(np.zeros((), x.dtype))
    is_zero = b.compare("EQ", x, zero)
    x2 = b.select(is_zero, b.constant(np.zeros((), x.dtype)), x)
    is_nan = b.compare("NE", x, x)
    return b.select(is_nan, b.constant(np.array(np.nan, x.dtype)), x2)


def _less(b: Builder, x, y):
    if _is_float(x.dtype):
        return b.compare("LT", _canonical(b, x), _canonical(b, y), "TOTALORDER")
    return b.compare("LT", x, y)


def comparator(operand_types, num_keys: int) -> Block:
    args = []
    for t in operand_types:
        scalar = TensorType((), t.dtype)
        args += [scalar, scalar]
    block = Block(args)
    b = Builder(block)
    pairs = [(block.args[2 * k], block.args[2 * k + 1]) for k in range(len(operand_types))]
    if num_keys == 1:
        result = _less(b, *pairs[0])
    else:  # lexicographic over the keys: x < y, or x == y and the rest decide
        result = None
        for x, y in reversed(pairs[:num_keys]):
            lt = _less(b, x, y)
            if result is None:
                result = lt
            else:
                eq = b.compare("EQ", x, y, "TOTALORDER" if _is_float(x.dtype) else None)
                result = b.elementwise("stablehlo.or", [lt, b.elementwise("stablehlo.and", [eq, result])])
    region_return(b, [result])
    return block


def _sort(ctx, *operands, dimension, is_stable, num_keys):
    props = f"dimension = {dimension} : i64, is_stable = {'true' if is_stable else 'false'}"
    operands = list(operands)
    tie_break = is_stable and getattr(ctx.mod, "stable_sort_iota", False)
    if tie_break:
        # (for IREE 3.13, whose stable sort permutes equal keys: the positions, an iota
        # along the dimension, as the last key; its result is dropped; docs/iree.md)
        operands.insert(num_keys, ctx.b.iota(operands[0].shape, np.int32, dimension))
        num_keys += 1
    outs = ctx.b.emit("stablehlo.sort", operands, [o.type for o in operands], print_generic,
                      regions=[comparator([o.type for o in operands], num_keys)], props=props)
    return outs[:num_keys - 1] + outs[num_keys:] if tie_break else outs


def _print_top_k(op, p, indent, in_func):
    outs = ", ".join(str(r.type) for r in op.results)
    return f"chlo.top_k({p.v(op.operands[0])}, k = {op.attrs['k']}) : {op.operands[0].type} -> ({outs})"


def _top_k(ctx, x, *, k, axis=-1, **params):
    if axis not in (-1, len(x.shape) - 1):
        raise LoweringError("top_k over an axis other than the last is not lowered")
    return ctx.b.emit("chlo.top_k", [x], ctx.out_types, _print_top_k, k=k, result_hints=("values", "indices"))


def register(prims: dict) -> None:
    register_lowering(prims["sort"], _sort)
    register_lowering(prims["top_k"], _top_k)
