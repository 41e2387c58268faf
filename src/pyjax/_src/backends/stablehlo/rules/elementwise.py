"""Elementwise ops, comparisons, select, clamp, convert and bitcast."""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.stablehlo.ir import TensorType
from pyjax._src.backends.stablehlo.lowering import aval_type, register_lowering
from pyjax._src.backends.stablehlo.sharding import constrain

# pyjax primitive -> StableHLO op (same operand and result types, or the
# result type the abstract eval gives: is_finite, real, imag, abs of complex)
STABLEHLO_UNARY = {
    "neg": "negate", "sin": "sine", "cos": "cosine", "exp": "exponential", "log": "log", "tanh": "tanh",
    "sqrt": "sqrt", "rsqrt": "rsqrt", "cbrt": "cbrt", "tan": "tan", "abs": "abs", "floor": "floor",
    "ceil": "ceil", "sign": "sign", "expm1": "exponential_minus_one", "log1p": "log_plus_one", "not": "not",
    "is_finite": "is_finite", "real": "real", "imag": "imag", "population_count": "popcnt",
    "clz": "count_leading_zeros", "copy": None, "optimization_barrier": None,
}
STABLEHLO_BINARY = {
    "add": "add", "add_any": "add", "sub": "subtract", "mul": "multiply", "div": "divide", "max": "maximum",
    "min": "minimum", "pow": "power", "atan2": "atan2", "rem": "remainder", "and": "and", "or": "or",
    "xor": "xor", "shift_left": "shift_left", "shift_right_arithmetic": "shift_right_arithmetic",
    "shift_right_logical": "shift_right_logical",
}
CHLO_UNARY = {
    "erf": "erf", "erfc": "erfc", "erf_inv": "erf_inv", "lgamma": "lgamma", "digamma": "digamma",
    "square": "square", "asin": "asin", "acos": "acos", "atan": "atan", "sinh": "sinh", "cosh": "cosh",
    "asinh": "asinh", "acosh": "acosh", "atanh": "atanh", "bessel_i1e": "bessel_i1e",
}
CHLO_BINARY = {"nextafter": "next_after", "polygamma": "polygamma", "zeta": "zeta", "mulhi": "mulhi"}
COMPARISONS = {"eq": "EQ", "ne": "NE", "lt": "LT", "le": "LE", "gt": "GT", "ge": "GE"}
TOTAL_ORDER = {"eq_to": "EQ", "lt_to": "LT", "le_to": "LE"}


def _unary(op_name):
    def rule(ctx, x, **params):
        return [ctx.b.elementwise("stablehlo." + op_name, [x], ctx.out_types[0])]

    return rule


def _broadcast_all(ctx, args):
    # A broadcast operand (or one of another sharding) is constrained to the
    # result's sharding, as JAX's multi_broadcast_in_dim does.
    out = ctx.avals_out[0]
    outs = []
    for a, aval in zip(args, ctx.avals_in):
        x = ctx.b.broadcast_to(a, out.shape)
        if x is not a or getattr(aval, "sharding", None) != getattr(out, "sharding", None):
            x = constrain(ctx.mod, ctx.b, x, out)
        outs.append(x)
    return outs


def _binary(op_name, dialect="stablehlo"):
    def rule(ctx, *args, **params):
        args = _broadcast_all(ctx, args)
        if dialect == "chlo":
            return [ctx.b.chlo("chlo." + op_name, args, ctx.out_types[0])]
        return [ctx.b.elementwise("stablehlo." + op_name, args, ctx.out_types[0])]

    return rule


def _chlo_unary(op_name):
    def rule(ctx, x, **params):
        return [ctx.b.chlo("chlo." + op_name, [x], ctx.out_types[0])]

    return rule


def _compare(direction, total=False):
    def rule(ctx, a, b, **params):
        a, b = _broadcast_all(ctx, [a, b])
        kind = "TOTALORDER" if total and np.dtype(a.dtype).kind in "fc" else None
        return [ctx.b.compare(direction, a, b, kind)]

    return rule


def _identity(ctx, *args, **params):
    return list(args)


def _optimization_barrier(ctx, *args, **params):
    return ctx.b.emit("stablehlo.optimization_barrier", list(args), [a.type for a in args], _print_barrier)


def _print_barrier(op, p, indent, in_func):
    return f"stablehlo.optimization_barrier {p.vs(op.operands)} : {', '.join(str(v.type) for v in op.operands)}"


def _round(ctx, x, *, rounding_method, **params):
    method = getattr(rounding_method, "name", str(rounding_method))
    name = "round_nearest_even" if "EVEN" in method.upper() or str(rounding_method) in ("1",) else "round_nearest_afz"
    return [ctx.b.elementwise("stablehlo." + name, [x])]


def _logistic(ctx, x, **params):
    b = ctx.b
    c = lambda v: constrain(ctx.mod, b, v, ctx.avals_out[0])  # noqa: E731  (JAX's lower_fun: each op's rule constrains)
    neg = c(b.elementwise("stablehlo.negate", [x]))
    e = c(b.elementwise("stablehlo.exponential", [neg]))
    one = c(b.broadcast_to(b.constant(1, x.dtype), x.shape))
    den = c(b.elementwise("stablehlo.add", [one, e]))
    one2 = c(b.broadcast_to(b.constant(1, x.dtype), x.shape))
    return [c(b.elementwise("stablehlo.divide", [one2, den]))]


def _integer_pow(ctx, x, *, y):
    b = ctx.b
    if y == 0:
        return [b.broadcast_to(b.constant(1, x.dtype), x.shape)]
    if y == 3:  # JAX's direct forms for 3 and -1; other powers by squaring with `acc * x`
        return [b.elementwise("stablehlo.multiply", [b.elementwise("stablehlo.multiply", [x, x]), x])]
    if y == -1:  # the 1 broadcast even to a scalar's own shape
        return [b.elementwise("stablehlo.divide", [b.broadcast_in_dim(b.constant(1, x.dtype), x.shape, []), x])]
    reciprocal = y < 0
    y = -y if reciprocal else y
    acc = None
    while y > 0:
        if y & 1:
            acc = x if acc is None else b.elementwise("stablehlo.multiply", [acc, x])
        y >>= 1
        if y > 0:
            x = b.elementwise("stablehlo.multiply", [x, x])
    if reciprocal:
        one = b.broadcast_to(b.constant(1, acc.dtype), acc.shape)
        acc = b.elementwise("stablehlo.divide", [one, acc])
    return [acc]


def _exp2(ctx, x, **params):
    b = ctx.b
    log2 = b.broadcast_to(b.constant(np.log(2), x.dtype), x.shape)
    return [b.elementwise("stablehlo.exponential", [b.elementwise("stablehlo.multiply", [log2, x])])]


def _convert(ctx, x, *, new_dtype, **params):
    b = ctx.b
    out = ctx.out_types[0]
    if np.dtype(x.dtype).kind == "c" and out.dtype.kind != "c":
        x = b.elementwise("stablehlo.real", [x], TensorType(x.shape, np.dtype(f"f{x.dtype.itemsize // 2}")))
    if out.dtype == np.bool_:  # (JAX compares with a broadcast 0 even for a bool or scalar operand)
        zero = b.broadcast_in_dim(b.constant(0, x.dtype), x.shape, [])
        x = b.compare("NE", x, zero)
    return [b.convert(x, out.dtype)]


def _bitcast(ctx, x, **params):
    return [ctx.b.bitcast_convert(x, ctx.out_types[0])]


def _select_n(ctx, which, *cases):
    b = ctx.b
    if len(cases) == 1:
        return [cases[0]]
    if which.dtype == np.bool_:
        assert len(cases) == 2
        return [b.select(which, cases[1], cases[0])]

    def tree(lo, hi):  # cases[lo:hi] chosen by `which`, as a balanced tree of selects
        if hi - lo == 1:
            return cases[lo]
        mid = (lo + hi) // 2
        pivot = b.broadcast_in_dim(b.constant(mid, which.dtype), which.shape, [])
        pred = b.compare("LT", which, pivot)
        return b.select(pred, tree(lo, mid), tree(mid, hi))

    return [tree(0, len(cases))]


def _clamp(ctx, lo, x, hi):
    b = ctx.b
    lo = b.broadcast_to(lo, x.shape)
    hi = b.broadcast_to(hi, x.shape)
    return [b.emit1("stablehlo.clamp", [lo, x, hi], [x.type], _print_same)]


def _print_same(op, p, indent, in_func):
    from pyjax._src.backends.stablehlo.builder import print_same_type

    return print_same_type(op, p, indent, in_func)


def _complex(ctx, re, im):
    re, im = _broadcast_all(ctx, [re, im])
    return [ctx.b.complex(re, im, ctx.out_types[0].dtype)]


def _conj(ctx, x, **params):
    b = ctx.b
    out = ctx.out_types[0]
    part = TensorType(x.shape, np.dtype(f"f{out.dtype.itemsize // 2}"))
    if x.dtype.kind != "c":
        x = b.convert(x, out.dtype)
    re = b.elementwise("stablehlo.real", [x], part)
    im = b.elementwise("stablehlo.imag", [x], part)
    return [b.complex(re, b.elementwise("stablehlo.negate", [im]), out.dtype)]


def _reduce_precision(ctx, x, *, exponent_bits, mantissa_bits):
    return [ctx.b.emit1("stablehlo.reduce_precision", [x], [x.type], _print_reduce_precision,
                        fmt=f"e{exponent_bits}m{mantissa_bits}")]


def _print_reduce_precision(op, p, indent, in_func):
    return f"stablehlo.reduce_precision {p.v(op.operands[0])}, format = {op.attrs['fmt']} : {op.results[0].type}"


def register(prims: dict) -> None:
    for name, op in STABLEHLO_UNARY.items():
        if name in prims and op is not None:
            register_lowering(prims[name], _unary(op))
    for name, op in STABLEHLO_BINARY.items():
        if name in prims:
            register_lowering(prims[name], _binary(op))
    for name, op in CHLO_UNARY.items():
        if name in prims:
            register_lowering(prims[name], _chlo_unary(op))
    for name, op in CHLO_BINARY.items():
        if name in prims:
            register_lowering(prims[name], _binary(op, "chlo"))
    for name, d in COMPARISONS.items():
        register_lowering(prims[name], _compare(d))
    for name, d in TOTAL_ORDER.items():
        if name in prims:
            register_lowering(prims[name], _compare(d, total=True))
    for name in ("copy", "stop_gradient", "pbroadcast", "reshard", "sharding_constraint", "device_put"):
        if name in prims:
            register_lowering(prims[name], _identity)
    register_lowering(prims["optimization_barrier"], _optimization_barrier)
    register_lowering(prims["round"], _round)
    register_lowering(prims["logistic"], _logistic)
    register_lowering(prims["integer_pow"], _integer_pow)
    register_lowering(prims["exp2"], _exp2)
    register_lowering(prims["convert_element_type"], _convert)
    register_lowering(prims["bitcast_convert_type"], _bitcast)
    register_lowering(prims["select_n"], _select_n)
    register_lowering(prims["clamp"], _clamp)
    register_lowering(prims["complex"], _complex)
    register_lowering(prims["conj"], _conj)
    register_lowering(prims["reduce_precision"], _reduce_precision)
