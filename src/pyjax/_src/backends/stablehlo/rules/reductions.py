"""Reductions (`stablehlo.reduce` with its region), argmax/argmin, the
cumulative ops as JAX lowers them on the CPU (a `reduce_window` over a
padded window, in a private function named for the primitive), and
dot_general."""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src.backends.stablehlo.builder import Builder, print_generic, print_reduce
from pyjax._src.backends.stablehlo.ir import Block, Module, TensorType, dense_attr, i64_array, int_list
from pyjax._src.backends.stablehlo.lowering import aval_type, register_lowering
from pyjax._src.backends.stablehlo.sharding import constrain

_MONOIDS = {  # primitive -> (stablehlo op, identity kind)
    "reduce_sum": ("add", "zero"), "reduce_prod": ("multiply", "one"), "reduce_max": ("maximum", "lowest"),
    "reduce_min": ("minimum", "highest"), "reduce_and": ("and", "true"), "reduce_or": ("or", "false"),
    "reduce_xor": ("xor", "zero"),
}


def identity(kind: str, dtype) -> np.ndarray:
    """The reduction's initial value in `dtype`."""
    dtype = np.dtype(dtype)
    if kind == "zero":
        return np.zeros((), dtype)
    if kind == "one":
        return np.ones((), dtype)
    if kind in ("true", "false"):
        return np.array(kind == "true", dtype)
    if dtype == np.bool_:
        return np.array(kind == "highest", dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.array(info.min if kind == "lowest" else info.max, dtype)
    return np.array(-np.inf if kind == "lowest" else np.inf, dtype)


def scalar_body(op_name: str, dtype) -> Block:
    """The region `^bb0(%a, %b): %r = op %a, %b; return %r` over scalars."""
    t = TensorType((), dtype)
    block = Block([t, t])
    b = Builder(block)
    r = b.elementwise("stablehlo." + op_name, block.args)
    b.emit("stablehlo.return", [r], [], _print_region_return)
    return block


def _print_region_return(op, p, indent, in_func):
    return f"stablehlo.return {p.vs(op.operands)} : {', '.join(str(v.type) for v in op.operands)}"


def region_return(b: Builder, values) -> None:
    b.emit("stablehlo.return", list(values), [], _print_region_return)


def reduce_monoid(b: Builder, x, axes, op_name: str, init_kind: str, out_type: TensorType):
    init = b.constant(identity(init_kind, x.dtype))
    return b.emit1("stablehlo.reduce", [x, init], [out_type], print_reduce, regions=[scalar_body(op_name, x.dtype)],
                   dimensions=list(axes), compact="stablehlo." + op_name)


def _reduction(op_name, init_kind):
    def rule(ctx, x, *, axes, **params):
        kind = init_kind
        if x.dtype == np.bool_ and op_name in ("maximum", "minimum"):
            return [reduce_monoid(ctx.b, x, axes, "or" if op_name == "maximum" else "and",
                                  "false" if op_name == "maximum" else "true", ctx.out_types[0])]
        return [reduce_monoid(ctx.b, x, axes, op_name, kind, ctx.out_types[0])]

    return rule


def _arg_reduce(which):
    def lower_body(ctx, x, axes, index_dtype):
        b = ctx.b
        (axis,) = axes
        idx = constrain(ctx.mod, b, b.iota(x.shape, index_dtype, axis), ctx.avals_in[0])
        init = b.constant(identity("lowest" if which == "max" else "highest", x.dtype))
        zero = b.constant(np.zeros((), index_dtype))
        tv, ti = TensorType((), x.dtype), TensorType((), index_dtype)
        block = Block([tv, ti, tv, ti])
        rb = Builder(block)
        av, ai, bv, bi = block.args
        # (a NaN wins, for every dtype: JAX's comparator does not ask)
        pick = rb.compare("GT" if which == "max" else "LT", av, bv)
        pick = rb.elementwise("stablehlo.or", [pick, rb.compare("NE", av, av)])
        eq = rb.compare("EQ", av, bv)
        lt = rb.compare("LT", ai, bi)
        take_index = rb.elementwise("stablehlo.or", [pick, rb.elementwise("stablehlo.and", [eq, lt])])
        v = rb.select(pick, av, bv)
        i = rb.select(take_index, ai, bi)
        region_return(rb, [v, i])
        out_shape = ctx.avals_out[0].shape
        outs = b.emit("stablehlo.reduce", [x, idx, init, zero], [TensorType(out_shape, x.dtype), TensorType(out_shape, index_dtype)],
                      print_reduce, regions=[block], dimensions=[axis])
        return [constrain(ctx.mod, b, o, ctx.avals_out[0]) for o in outs][1:]

    def rule(ctx, x, *, axes, index_dtype):
        return cached_private(ctx, "arg" + which, (x.type, tuple(axes), np.dtype(index_dtype).name), [x],
                              lambda c, xs: lower_body(c, xs[0], axes, index_dtype))

    return rule


def cached_private(ctx, name: str, key, args, body) -> list:
    """JAX lowers some primitives as a cached private function named for
    the primitive (`@argmax`, `@cumsum`): the function is emitted once per
    module and operand types, and called."""
    from pyjax._src.backends.stablehlo.lowering import dim_operands, private_func

    cache = ctx.mod.func_cache
    full_key = ("private", name, key)
    hit = cache.get(full_key)
    if hit is None:
        hit = cache[full_key] = private_func(ctx.mod, name, [a.type for a in args],
                                             lambda fb, fargs: body(ctx.with_builder(fb), fargs), dim_attrs=False)
    return ctx.b.call(hit, dim_operands(ctx.mod) + list(args), ctx.out_types)


def reduce_window(b: Builder, x, init, op_name: str, window, strides, padding, base_dilation=None,
                  window_dilation=None, out_type=None, body: Block | None = None):
    n = len(x.shape)
    base_dilation = base_dilation or [1] * n
    window_dilation = window_dilation or [1] * n
    pad = np.asarray(padding, np.int64).reshape(n, 2)
    props = (f"base_dilations = {i64_array(base_dilation)}, padding = {dense_attr(pad)} : tensor<{n}x2xi64>, "
             f"window_dilations = {i64_array(window_dilation)}, window_dimensions = {i64_array(window)}, "
             f"window_strides = {i64_array(strides)}")
    return b.emit1("stablehlo.reduce_window", [x, init], [out_type or x.type], print_generic,
                   regions=[body or scalar_body(op_name, x.dtype)], props=props)


def dynamic_reduce_window(ctx, x, init, op_name: str, reducer_name: str, window, strides, padding,
                          base_dilation=None, window_dilation=None):
    """A reduce_window whose window or padding is symbolic, as JAX emits it: a
    `stablehlo.dynamic_reduce_window` custom call with the sizes as tensors
    (the padding an `Nx2` one, built first) and the reducer a function
    inserted at the top of the module."""
    from pyjax._src.backends.stablehlo import dynamic

    b = ctx.b
    n = len(x.shape)
    rows = [b.reshape(dynamic.shape_tensor(b, pair), (1, 2)) for pair in padding]
    pads = dynamic.concatenate(b, rows, 0)  # (one row too: JAX's concatenate of one)
    scalar = TensorType((), x.dtype)
    module = ctx.mod.module
    func = module.add_func(reducer_name, [scalar, scalar])
    module.funcs.remove(func)
    module.funcs.insert(module.head, func)
    func.public = None  # (printed without a visibility)
    fb = Builder(func.body)
    out = fb.elementwise("stablehlo." + op_name, func.args)
    func.result_types, func.result_attrs = [scalar], [None]
    fb.ret([out])
    sizes = [dynamic.shape_tensor(b, s) for s in (window, strides, base_dilation or [1] * n,
                                                  window_dilation or [1] * n)]

    def printer(op, p, indent, in_func):
        from pyjax._src.backends.stablehlo.builder import _types_sig
        from pyjax._src.backends.stablehlo.ir import _symbol

        return (f"stablehlo.custom_call @stablehlo.dynamic_reduce_window({p.vs(op.operands)}) {{api_version = 2 : i32, "
                f"called_computations = [{_symbol(func.name)}]}} : {_types_sig(op.operands, op.results)}")

    return b.emit1("stablehlo.custom_call", [x, init, *sizes, pads], [x.type], printer)


_CUMULATIVE = {"cumsum": ("add", "zero", True), "cumprod": ("multiply", "one", False),
               "cummax": ("maximum", "lowest", True), "cummin": ("minimum", "highest", True)}


def _cumulative(name):
    op_name, init_kind, broadcast_init = _CUMULATIVE[name]

    def inner(ctx, xs, axis, reverse):
        b = ctx.b
        (x,) = xs
        kind = init_kind
        if x.dtype == np.bool_ and op_name in ("maximum", "minimum"):
            kind = "false" if op_name == "maximum" else "true"
        init = b.constant(identity(kind, x.dtype))
        if broadcast_init:
            init = b.broadcast_in_dim(init, (), [])
        n = x.shape[axis]
        window = [1] * len(x.shape)
        window[axis] = n
        padding = [[0, 0] for _ in x.shape]
        padding[axis] = [0, n - 1] if reverse else [n - 1, 0]
        if hasattr(n, "get_vars"):
            reducer = f"reduce_window_{np.dtype(x.dtype).name}_reducer" if broadcast_init else \
                "generic_reduce_window_reducer"
            return [dynamic_reduce_window(ctx, x, init, op_name, reducer, window, [1] * len(x.shape), padding)]
        return [reduce_window(b, x, init, op_name, window, [1] * len(x.shape), padding)]

    def rule(ctx, x, *, axis, reverse):
        return cached_private(ctx, name, (x.type, axis, reverse), [x], lambda c, xs: inner(c, xs, axis, reverse))

    return rule


def _logaddexp_body(dtype) -> Block:
    """cumlogsumexp's window body as JAX traces its `logaddexp` (the sum
    where the difference is NaN: both infinite alike, or a NaN operand)."""
    t = TensorType((), dtype)
    block = Block([t, t])
    b = Builder(block)
    x, y = block.args
    big = b.elementwise("stablehlo.maximum", [x, y])
    delta = b.elementwise("stablehlo.subtract", [x, y])
    nan = b.compare("NE", delta, delta)
    total = b.elementwise("stablehlo.add", [x, y])
    tail = b.elementwise("stablehlo.exponential", [b.elementwise("stablehlo.negate",
                                                                 [b.elementwise("stablehlo.abs", [delta])])])
    out = b.elementwise("stablehlo.add", [big, b.elementwise("stablehlo.log_plus_one", [tail])])
    region_return(b, [b.select(nan, total, out)])
    return block


def _cumlogsumexp(ctx, x, *, axis, reverse):
    def inner(c, xs):
        (x,) = xs
        n = x.shape[axis]
        window = [1] * len(x.shape)
        window[axis] = n
        padding = [[0, 0] for _ in x.shape]
        padding[axis] = [0, n - 1] if reverse else [n - 1, 0]
        init = c.b.constant(identity("lowest", x.dtype))
        return [reduce_window(c.b, x, init, "", window, [1] * len(x.shape), padding, body=_logaddexp_body(x.dtype))]

    if hasattr(x.shape[axis], "get_vars"):
        from pyjax._src.backends.stablehlo.lowering import LoweringError

        raise LoweringError("cumlogsumexp over a symbolic dimension: not lowered yet")
    return cached_private(ctx, "cumlogsumexp", (x.type, axis, reverse), [x], inner)


_COMMUTATIVE = {"stablehlo." + n for n in ("add", "multiply", "maximum", "minimum", "and", "or", "xor")}


def _reduce(ctx, *args, computation, jaxpr, dimensions):
    """lax.reduce with the user's computation: its jaxpr is the region (the
    accumulators first, then the elements), printed in MLIR's compact form
    when the body is one commutative op on the two arguments in order."""
    from pyjax._src.backends.stablehlo.lowering import lower_jaxpr

    n = len(args) // 2
    scalars = [TensorType((), x.dtype) for x in args[:n]]
    block = Block(scalars + scalars)
    rb = Builder(block)
    region_return(rb, lower_jaxpr(ctx.mod, rb, jaxpr, block.args))
    ops = block.ops
    compact = None
    if (n == 1 and len(ops) == 2 and ops[0].name in _COMMUTATIVE and ops[0].operands == block.args
            and ops[1].operands == ops[0].results):
        compact = ops[0].name
    return ctx.b.emit("stablehlo.reduce", list(args), ctx.out_types, print_reduce, regions=[block],
                      dimensions=list(dimensions), compact=compact)


def _precision_name(p) -> str:
    if p is None:
        return "DEFAULT"
    name = getattr(p, "name", str(p))
    return name.upper()


def _dot_general(ctx, lhs, rhs, *, dimension_numbers, precision=None, preferred_element_type=None, **params):
    (lc, rc), (lb, rb) = dimension_numbers
    parts = []
    if lb:
        parts.append(f"batching_dims = {int_list(lb)} x {int_list(rb)}")
    parts.append(f"contracting_dims = {int_list(lc)} x {int_list(rc)}")
    if isinstance(precision, tuple):
        precs = [_precision_name(p) for p in precision]
    else:
        precs = [_precision_name(precision)] * 2
    parts.append(f"precision = [{', '.join(precs)}]")
    out = ctx.out_types[0]
    b = ctx.b
    # (JAX converts mixed operand dtypes to the result's before the dot)
    return [b.emit1("stablehlo.dot_general", [lhs, rhs], [out], _print_dot, text=", ".join(parts))]


def _print_dot(op, p, indent, in_func):
    from pyjax._src.backends.stablehlo.builder import _types_sig

    return f"stablehlo.dot_general {p.vs(op.operands)}, {op.attrs['text']} : {_types_sig(op.operands, op.results)}"


def register(prims: dict) -> None:
    for name, (op, kind) in _MONOIDS.items():
        register_lowering(prims[name], _reduction(op, kind))
    register_lowering(prims["argmax"], _arg_reduce("max"))
    register_lowering(prims["argmin"], _arg_reduce("min"))
    for name in _CUMULATIVE:
        register_lowering(prims[name], _cumulative(name))
    register_lowering(prims["dot_general"], _dot_general)
    register_lowering(prims["cumlogsumexp"], _cumlogsumexp)
    register_lowering(prims["reduce"], _reduce)
