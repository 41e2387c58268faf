"""Builders for StableHLO (and `func`, `chlo`) operations, each with its
custom assembly format as MLIR prints it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pyjax._src.backends.stablehlo.ir import (Block, Op, TensorType, Value, dense_attr, i64_array, int_list)

# ---------------------------------------------------------------------------
# Printers (op, printer, indent, in_func) -> text after `%r = `


def _types_sig(operands: Sequence[Value], results: Sequence[Value]) -> str:
    return f"({', '.join(str(v.type) for v in operands)}) -> " + (
        str(results[0].type) if len(results) == 1 else f"({', '.join(str(v.type) for v in results)})")


def print_same_type(op, p, indent, in_func):
    """`stablehlo.add %a, %b : T`, or `: (T1, T2) -> R` when the types differ."""
    types = [v.type for v in op.operands] + [op.results[0].type]
    if all(t == types[-1] for t in types):
        ty = str(types[-1])
    else:
        ty = _types_sig(op.operands, op.results)
    return f"{op.name} {p.vs(op.operands)} : {ty}"


def print_functional(op, p, indent, in_func):
    """`stablehlo.convert %a : (T) -> R`."""
    return f"{op.name} {p.vs(op.operands)} : {_types_sig(op.operands, op.results)}"


def print_chlo(op, p, indent, in_func):
    """`chlo.erf %a : T -> R` (chlo's `type($operand) -> type($result)`)."""
    ins = ", ".join(str(v.type) for v in op.operands)
    return f"{op.name} {p.vs(op.operands)} : {ins} -> {op.results[0].type}"


def print_with_attr(op, p, indent, in_func):
    """`stablehlo.transpose %a, dims = [1, 0] : (T) -> R` and its kin."""
    return f"{op.name} {p.vs(op.operands)}, {op.attrs['text']} : {_types_sig(op.operands, op.results)}"


def print_with_attr_same(op, p, indent, in_func):
    """`stablehlo.reverse %a, dims = [0] : T` (same operand and result type)."""
    types = [v.type for v in op.operands] + [op.results[0].type]
    ty = str(types[-1]) if all(t == types[-1] for t in types) else _types_sig(op.operands, op.results)
    return f"{op.name} {p.vs(op.operands)}, {op.attrs['text']} : {ty}"


def print_constant(op, p, indent, in_func):
    return f"stablehlo.constant {op.attrs['value']} : {op.results[0].type}"


def print_generic(op, p, indent, in_func):
    """MLIR's generic form: `"stablehlo.op"(%a, %b) <{props}> ({regions}) : (T...) -> R`."""
    text = f'"{op.name}"({p.vs(op.operands)})'
    if op.attrs.get("props"):
        text += f" <{{{op.attrs['props']}}}>"
    if op.regions:
        text += " (" + ", ".join(p.region(r, indent, header=bool(r.args)) for r in op.regions) + ")"
    if op.attrs.get("attr_dict"):
        text += f" {{{op.attrs['attr_dict']}}}"
    return text + " : " + _types_sig(op.operands, op.results)


def print_return(op, p, indent, in_func):
    name = "return" if in_func else "stablehlo.return"
    if not op.operands:
        return name
    return f"{name} {p.vs(op.operands)} : {', '.join(str(v.type) for v in op.operands)}"


def print_call(op, p, indent, in_func):
    from pyjax._src.backends.stablehlo.ir import _symbol

    name = "call" if in_func else "func.call"
    return f"{name} {_symbol(op.attrs['callee'])}({p.vs(op.operands)}) : {_types_sig(op.operands, op.results)}"


def print_select(op, p, indent, in_func):
    # StableHLO's form is always `pred type, result type` (a select of
    # booleans too: one type does not parse).
    pred, on_true = op.operands[0].type, op.results[0].type
    return f"stablehlo.select {p.vs(op.operands)} : {pred}, {on_true}"


def print_compare(op, p, indent, in_func):
    return (f"stablehlo.compare {op.attrs['direction']}, {p.vs(op.operands)}, {op.attrs['kind']} : "
            + _types_sig(op.operands, op.results))


def print_iota(op, p, indent, in_func):
    return f"stablehlo.iota dim = {op.attrs['dim']} : {op.results[0].type}"


def print_complex(op, p, indent, in_func):
    return f"stablehlo.complex {p.vs(op.operands)} : {op.results[0].type}"


def print_reduce(op, p, indent, in_func):
    """`stablehlo.reduce`: the compact `applies` form when the body is one
    binary op of the element type on the block's arguments, else the
    `reducer(...)` form."""
    n = len(op.operands) // 2
    inputs, inits = op.operands[:n], op.operands[n:]
    dims = int_list(op.attrs["dimensions"])
    body = op.regions[0]
    sig = _types_sig(op.operands, op.results)
    compact = op.attrs.get("compact")
    if compact is not None:
        return (f"stablehlo.reduce({p.v(inputs[0])} init: {p.v(inits[0])}) applies {compact} across dimensions = "
                f"{dims} : {sig}")
    pairs = ", ".join(f"({p.v(x)} init: {p.v(i)})" for x, i in zip(inputs, inits))
    args = body.args
    reducer = " ".join(f"({p.v(args[k])}: {args[k].type}, {p.v(args[k + n])}: {args[k + n].type})" for k in range(n))
    head = f"stablehlo.reduce{pairs} across dimensions = {dims} : {sig}"
    body_lines = p.block_body(body, indent + 2)
    return head + "\n" + " " * indent + f" reducer{reducer}  {{\n" + "\n".join(body_lines) + "\n" + " " * indent + "}"


# ---------------------------------------------------------------------------
# The builder


class Builder:
    """Appends operations to one block."""

    def __init__(self, block: Block):
        self.block = block

    def emit(self, name: str, operands: Sequence[Value], result_types: Sequence[TensorType], printer,
             regions: Sequence[Block] = (), hint: str | None = None, **attrs) -> list[Value]:
        op = Op(name, operands, result_types, printer, regions, hint, **attrs)
        self.block.ops.append(op)
        return op.results

    def emit1(self, *args, **kwargs) -> Value:
        return self.emit(*args, **kwargs)[0]

    # --- constants and elementwise
    def constant(self, value, dtype=None) -> Value:
        array = np.asarray(value, dtype=dtype)
        hint = "cst" if array.dtype.kind in "fcV" or array.dtype.name == "bfloat16" or array.dtype.kind not in "biu" else "c"
        return self.emit1("stablehlo.constant", [], [TensorType(array.shape, array.dtype)], print_constant,
                          hint=hint, value=dense_attr(array))

    def elementwise(self, name: str, operands: Sequence[Value], out: TensorType | None = None) -> Value:
        return self.emit1(name, operands, [out or operands[0].type], print_same_type)

    def chlo(self, name: str, operands: Sequence[Value], out: TensorType | None = None) -> Value:
        return self.emit1(name, operands, [out or operands[0].type], print_chlo)

    def convert(self, x: Value, dtype) -> Value:
        return self.emit1("stablehlo.convert", [x], [TensorType(x.shape, dtype)], print_same_type)

    def bitcast_convert(self, x: Value, out: TensorType) -> Value:
        return self.emit1("stablehlo.bitcast_convert", [x], [out], print_functional)

    def compare(self, direction: str, a: Value, b: Value, kind: str | None = None) -> Value:
        if kind is None:
            kind = compare_kind(a.dtype)
        return self.emit1("stablehlo.compare", [a, b], [TensorType(a.shape, np.bool_)], print_compare,
                          direction=direction, kind=kind)

    def select(self, pred: Value, on_true: Value, on_false: Value) -> Value:
        return self.emit1("stablehlo.select", [pred, on_true, on_false], [on_true.type], print_select)

    def complex(self, re: Value, im: Value, dtype) -> Value:
        return self.emit1("stablehlo.complex", [re, im], [TensorType(re.shape, dtype)], print_complex)

    # --- shapes
    def broadcast_in_dim(self, x: Value, shape: Sequence[int], dims: Sequence[int]) -> Value:
        if _symbolic(shape):
            return _dynamic().dynamic_broadcast_in_dim(self, x, shape, dims)
        return self.emit1("stablehlo.broadcast_in_dim", [x], [TensorType(shape, x.dtype)], print_with_attr,
                          text=f"dims = {int_list(dims)}")

    def broadcast_to(self, x: Value, shape: Sequence[int]) -> Value:
        """x broadcast to `shape` (size-1 and leading axes), as JAX's
        `multi_broadcast_in_dim` does: nothing when the shape is already right."""
        shape = tuple(shape)
        if x.shape == shape:
            return x
        offset = len(shape) - len(x.shape)
        return self.broadcast_in_dim(x, shape, list(range(offset, len(shape))))

    def reshape(self, x: Value, shape: Sequence[int]) -> Value:
        if _symbolic(shape):
            return _dynamic().dynamic_reshape(self, x, shape)
        return self.emit1("stablehlo.reshape", [x], [TensorType(shape, x.dtype)], print_functional)

    def transpose(self, x: Value, perm: Sequence[int]) -> Value:
        shape = [x.shape[i] for i in perm]
        return self.emit1("stablehlo.transpose", [x], [TensorType(shape, x.dtype)], print_with_attr,
                          text=f"dims = {int_list(perm)}")

    def iota(self, shape: Sequence[int], dtype, dim: int) -> Value:
        if _symbolic(shape):
            return _dynamic().dynamic_iota(self, shape, dtype, dim)
        return self.emit1("stablehlo.iota", [], [TensorType(shape, dtype)], print_iota, dim=dim)

    def slice(self, x: Value, start: Sequence[int], limit: Sequence[int], strides: Sequence[int] | None = None) -> Value:
        strides = list(strides) if strides is not None else [1] * len(start)
        if _symbolic(list(start) + list(limit)):
            return _dynamic().real_dynamic_slice(self, x, start, limit, strides)
        parts = [f"{s}:{l}" if st == 1 else f"{s}:{l}:{st}" for s, l, st in zip(start, limit, strides)]
        shape = [max(0, -(-(l - s) // st)) for s, l, st in zip(start, limit, strides)]
        return self.emit1("stablehlo.slice", [x], [TensorType(shape, x.dtype)], _print_slice,
                          text="[" + ", ".join(parts) + "]")

    def call(self, callee: str, args: Sequence[Value], result_types: Sequence[TensorType]) -> list[Value]:
        return self.emit("func.call", args, result_types, print_call, callee=callee)

    def ret(self, values: Sequence[Value]) -> None:
        self.emit("func.return", values, [], print_return)

    def reduce_region(self, arg_types: Sequence[TensorType]) -> tuple[Block, Builder]:
        block = Block(arg_types)
        return block, Builder(block)


def _symbolic(shape) -> bool:
    return any(type(d) is not int and hasattr(d, "get_vars") for d in shape)


def _dynamic():
    # (dynamic.py builds on this module: imported when a shape is symbolic)
    from pyjax._src.backends.stablehlo import dynamic

    return dynamic


def _print_slice(op, p, indent, in_func):
    return f"stablehlo.slice {p.v(op.operands[0])} {op.attrs['text']} : {_types_sig(op.operands, op.results)}"


def compare_kind(dtype) -> str:
    """The `compare` type JAX gives a dtype: FLOAT (float and complex),
    SIGNED, UNSIGNED (unsigned and bool)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_ or dtype.kind == "u":
        return "UNSIGNED"
    if dtype.kind == "i":
        return "SIGNED"
    return "FLOAT"


def scalar_type(dtype) -> TensorType:
    return TensorType((), dtype)


__all__ = ["Builder", "compare_kind", "i64_array", "int_list", "scalar_type"]
