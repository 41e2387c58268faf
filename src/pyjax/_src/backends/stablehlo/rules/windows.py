"""conv_general_dilated, the reduce_window family and
select_and_scatter_add (as JAX lowers it: the operand padded with the
select's identity, `select_and_scatter`, the padding sliced off)."""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.stablehlo.builder import Builder, print_generic, print_with_attr
from pyjax._src.backends.stablehlo.ir import Block, TensorType, dense_attr, i64_array, int_list
from pyjax._src.backends.stablehlo.lowering import lower_jaxpr, register_lowering
from pyjax._src.backends.stablehlo.rules.reductions import identity, reduce_window, region_return


def _layout(spec, letters) -> str:
    roles = {spec[0]: letters[0], spec[1]: letters[1]}
    for i, d in enumerate(spec[2:]):
        roles[d] = str(i)
    return "[" + ", ".join(roles[d] for d in range(len(spec))) + "]"


def _precision(p) -> str:
    name = "DEFAULT" if p is None else getattr(p, "name", str(p)).upper()
    return f"#stablehlo<precision {name}>"


def _print_conv(op, p, indent, in_func):
    from pyjax._src.backends.stablehlo.builder import _types_sig

    return (f"stablehlo.convolution({p.vs(op.operands)}) {op.attrs['text']} : {_types_sig(op.operands, op.results)}")


def _conv(ctx, lhs, rhs, *, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
          feature_group_count, batch_group_count, precision=None, preferred_element_type=None, **params):
    dn = dimension_numbers
    dims = (f"dim_numbers = {_layout(dn.lhs_spec, 'bf')}x{_layout(dn.rhs_spec, 'oi')}->{_layout(dn.out_spec, 'bf')}")
    n = len(window_strides)
    pads = "[" + ", ".join(f"[{lo}, {hi}]" for lo, hi in padding) + "]"
    window = (f"window = {{stride = {int_list(window_strides)}, pad = {pads}, lhs_dilate = {int_list(lhs_dilation)}, "
              f"rhs_dilate = {int_list(rhs_dilation)}, reverse = [{', '.join(['false'] * n)}]}}")
    precs = precision if isinstance(precision, tuple) else (precision, precision)
    attrs = (f"{{batch_group_count = {batch_group_count} : i64, feature_group_count = {feature_group_count} : i64, "
             f"precision_config = [{_precision(precs[0])}, {_precision(precs[1])}]}}")
    return [ctx.b.emit1("stablehlo.convolution", [lhs, rhs], ctx.out_types, _print_conv,
                        text=f"{dims}, {window} {attrs}")]


_MONOID_WINDOWS = {"reduce_window_sum": ("add", "zero"), "reduce_window_max": ("maximum", "lowest"),
                   "reduce_window_min": ("minimum", "highest")}


def _monoid_window(op_name, kind):
    def rule(ctx, x, *, window_dimensions, window_strides, padding, base_dilation, window_dilation):
        b = ctx.b
        init = b.broadcast_in_dim(b.constant(identity(kind, x.dtype)), (), [])
        return [reduce_window(b, x, init, op_name, window_dimensions, window_strides, padding, base_dilation,
                              window_dilation, ctx.out_types[0])]

    return rule


def _window_props(n, window_dimensions, window_strides, padding, base_dilation, window_dilation) -> str:
    pad = np.asarray(padding, np.int64).reshape(n, 2)
    return (f"base_dilations = {i64_array(base_dilation)}, padding = {dense_attr(pad)} : tensor<{n}x2xi64>, "
            f"window_dilations = {i64_array(window_dilation)}, window_dimensions = {i64_array(window_dimensions)}, "
            f"window_strides = {i64_array(window_strides)}")


def _reduce_window(ctx, *args, jaxpr, consts, window_dimensions, window_strides, padding, base_dilation,
                   window_dilation):
    n_in = len(args) // 2
    operands, inits = args[:n_in], args[n_in:]
    scalars = [TensorType((), x.dtype) for x in operands]
    block = Block(scalars + scalars)
    rb = Builder(block)
    region_return(rb, lower_jaxpr(ctx.mod, rb, jaxpr, block.args))
    props = _window_props(len(operands[0].shape), window_dimensions, window_strides, padding, base_dilation,
                          window_dilation)
    return ctx.b.emit("stablehlo.reduce_window", list(args), ctx.out_types, print_generic, regions=[block],
                      props=props)


def _select_and_scatter_add(ctx, source, operand, *, select_prim, window_dimensions, window_strides, padding):
    b = ctx.b
    ge = select_prim.name in ("ge", "gt")
    init = b.constant(identity("lowest" if ge else "highest", operand.dtype))
    lo = [p[0] for p in padding]
    hi = [p[1] for p in padding]
    padded_shape = [d + l + h for d, l, h in zip(operand.shape, lo, hi)]
    text = f"low = {int_list(lo)}, high = {int_list(hi)}, interior = {int_list([0] * len(lo))}"
    padded = b.emit1("stablehlo.pad", [operand, init], [TensorType(padded_shape, operand.dtype)], print_with_attr,
                     text=text)
    zero = b.constant(np.zeros((), operand.dtype))
    if not ctx.mod.select_and_scatter_op:
        out = _unrolled_select_and_scatter(b, padded, source, zero, select_prim.name.upper(), window_dimensions,
                                           window_strides)
        return [b.slice(out, lo, [l + d for l, d in zip(lo, operand.shape)])]
    scalar = TensorType((), operand.dtype)
    select = Block([scalar, scalar])
    sb = Builder(select)
    region_return(sb, [sb.compare(select_prim.name.upper(), *select.args)])
    scatter = Block([scalar, scalar])
    cb = Builder(scatter)
    region_return(cb, [cb.elementwise("stablehlo.add", scatter.args)])
    n = len(operand.shape)
    props = (f"padding = {dense_attr(np.zeros((n, 2), np.int64))} : tensor<{n}x2xi64>, window_dimensions = "
             f"{i64_array(window_dimensions)}, window_strides = {i64_array(window_strides)}")
    out = b.emit1("stablehlo.select_and_scatter", [padded, source, zero], [padded.type], print_generic,
                  regions=[select, scatter], props=props)
    return [b.slice(out, lo, [l + d for l, d in zip(lo, operand.shape)])]


def _select_and_scatter(ctx, operand, source, init, *, select_jaxpr, select_consts, scatter_jaxpr, scatter_consts,
                        window_dimensions, window_strides, padding):
    # (the primitive itself, with the user's select and scatter; IREE 3.13's op rejects overlapping
    # windows and breaks ties unlike XLA: refused there, naming the primitive)
    if not ctx.mod.select_and_scatter_op:
        from pyjax._src.backends.stablehlo.lowering import LoweringError

        raise LoweringError("primitive 'select_and_scatter' with a user's select and scatter is not lowered for IREE")
    scalar = TensorType((), operand.dtype)
    regions = []
    for jaxpr in (select_jaxpr, scatter_jaxpr):
        block = Block([scalar, scalar])
        rb = Builder(block)
        region_return(rb, lower_jaxpr(ctx.mod, rb, jaxpr, block.args))
        regions.append(block)
    n = len(operand.shape)
    props = (f"padding = {dense_attr(np.asarray(padding, np.int64).reshape(n, 2))} : tensor<{n}x2xi64>, "
             f"window_dimensions = {i64_array(window_dimensions)}, window_strides = {i64_array(window_strides)}")
    return ctx.b.emit("stablehlo.select_and_scatter", [operand, source, init], ctx.out_types, print_generic,
                      regions=regions, props=props)


def _select_and_gather_add(ctx, tangents, operand, *, select_prim, window_dimensions, window_strides, padding,
                           base_dilation, window_dilation):
    """The JVP of max/min pooling, as JAX lowers it off TPU and GPU: a
    reduce_window over (operand, tangent) pairs keeping the pair whose
    operand the select prefers; the tangent half is the result."""
    b = ctx.b
    ge = select_prim.name in ("ge", "gt")
    inits = [b.constant(identity("lowest" if ge else "highest", operand.dtype)),
             b.constant(np.zeros((), tangents.dtype))]
    scalars = [TensorType((), operand.dtype), TensorType((), tangents.dtype)]
    block = Block(scalars + scalars)
    rb = Builder(block)
    ka, va, kb, vb = block.args
    which = rb.compare(select_prim.name.upper(), ka, kb)
    region_return(rb, [rb.select(which, ka, kb), rb.select(which, va, vb)])
    props = _window_props(len(operand.shape), window_dimensions, window_strides, padding, base_dilation,
                          window_dilation)
    out_type = ctx.out_types[0]
    outs = b.emit("stablehlo.reduce_window", [operand, tangents, *inits],
                  [TensorType(out_type.shape, operand.dtype), out_type], print_generic, regions=[block], props=props)
    return [outs[1]]


def _unrolled_select_and_scatter(b, padded, source, zero, direction, window, strides):
    """`select_and_scatter` (add) from slices, selects and pads, one window
    position at a time in the row-major order XLA visits them. IREE 3.13
    legalizes the op only when no two windows overlap, and then sends a tie
    to the last equal element where XLA picks the first."""
    import itertools

    out_shape = list(source.shape)
    span = [(o - 1) * s + 1 for o, s in zip(out_shape, strides)]
    offsets = list(itertools.product(*(range(w) for w in window)))
    best = idx = None
    for k, start in enumerate(offsets):
        cand = b.slice(padded, start, [a + n for a, n in zip(start, span)], strides)
        if best is None:
            best, idx = cand, b.broadcast_to(b.constant(np.int32(0)), out_shape)
            continue
        keep = b.compare(direction, best, cand)  # (the select region: True keeps the current choice)
        best = b.select(keep, best, cand)
        idx = b.select(keep, idx, b.broadcast_to(b.constant(np.int32(k)), out_shape))
    result = b.broadcast_to(zero, padded.shape)
    for k, start in enumerate(offsets):
        chosen = b.compare("EQ", idx, b.broadcast_to(b.constant(np.int32(k)), out_shape))
        part = b.select(chosen, source, b.broadcast_to(zero, out_shape))
        hi = [p - a - n for p, a, n in zip(padded.shape, start, span)]
        text = f"low = {int_list(list(start))}, high = {int_list(hi)}, interior = {int_list([s - 1 for s in strides])}"
        spread = b.emit1("stablehlo.pad", [part, zero], [padded.type], print_with_attr, text=text)
        result = b.elementwise("stablehlo.add", [result, spread])
    return result


def register(prims: dict) -> None:
    register_lowering(prims["conv_general_dilated"], _conv)
    for name, (op, kind) in _MONOID_WINDOWS.items():
        register_lowering(prims[name], _monoid_window(op, kind))
    register_lowering(prims["reduce_window"], _reduce_window)
    register_lowering(prims["select_and_scatter_add"], _select_and_scatter_add)
    register_lowering(prims["select_and_gather_add"], _select_and_gather_add)
    if "select_and_scatter" in prims:
        register_lowering(prims["select_and_scatter"], _select_and_scatter)
