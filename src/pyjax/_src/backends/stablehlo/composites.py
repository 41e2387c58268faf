"""CHLO ops as JAX's exported module holds them.

`jit(f).lower()` prints `chlo.sinh`, `chlo.top_k`, ...; the text of
`Exported.mlir_module()` is what MLIR's portable-artifact round trip leaves:
some CHLO ops become a `stablehlo.composite "chlo.<op>"` whose
`decomposition` is a private function `@chlo.<op>.impl` holding CHLO's own
expansion (sinh, cosh, asin, acos, asinh, acosh, atanh, erf, top_k); atan
(`atan2(x, 1)`), next_after, erf_inv, erfc, lgamma, digamma, bessel_i1e,
zeta and polygamma are expanded in place. The round trip visits the
functions last to first, each one's ops in order; every composite gets its
own function (named with one counter of its own: `@chlo.sinh.impl`,
`@chlo.sinh.impl_0`), put right after the function that calls it.

Every expansion makes each constant where CHLO makes it (`_like`: a splat
of the operand's shape, or on symbolic shapes a scalar broadcast to the
sizes `get_dimension_size` reads); the folder model of export_module then
hoists them as the round trip does (an in-place one's after the
function's own). Narrow floats (bfloat16, float16, float8s) are expanded
in float32 between two converts, except asin, acos, asinh, acosh, atanh,
atan and next_after, which CHLO expands in the operand's own type.
Not reproduced (their chlo op is kept): erf, erfc and bessel_i1e on
float8 (JAX's lowering refuses those).
"""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.stablehlo.builder import Builder, print_functional, print_generic, print_same_type
from pyjax._src.backends.stablehlo.ir import Block, Module, TensorType, _symbol


def _finfo(dtype):
    from pyjax._src import dtypes

    return dtypes.finfo(dtype)  # (ml_dtypes' finfo: NumPy's refuses bfloat16 and the float8s)


# The operand an in-place expansion's constants are shaped like (CHLO's
# `getConstantLike(value, operand)`): the expansion's first operand.
_LIKE: list = []


def _consts(b: Builder, t: TensorType, *values) -> list:
    return [_like(b, _LIKE[-1] if _LIKE else None, t, v) for v in values]


def _cmp(b: Builder, direction: str, x, y):
    # (CHLO's expansions give no comparison type: none is printed)
    return b.emit1("stablehlo.compare", [x, y], [TensorType(x.shape, np.bool_)], _print_untyped_compare,
                   direction=direction)


def _print_untyped_compare(op, p, indent, in_func):
    from pyjax._src.backends.stablehlo.builder import _types_sig

    return f"stablehlo.compare {op.attrs['direction']}, {p.vs(op.operands)} : {_types_sig(op.operands, op.results)}"


def _ew(b: Builder, name: str, *args):
    return b.elementwise("stablehlo." + name, list(args))


def _like(b: Builder, x, t: TensorType, value):
    """CHLO's `getConstantLike(value, x)`, made where the expansion makes it:
    a splat constant, or on a shape with symbolic dimensions a scalar
    constant broadcast to `x`'s shape read with `get_dimension_size`."""
    if all(isinstance(d, int) for d in t.shape):
        return b.constant(np.full(t.shape, value, t.dtype))
    from pyjax._src.backends.stablehlo import dynamic
    from pyjax._src.backends.stablehlo.builder import _types_sig
    from pyjax._src.backends.stablehlo.export_module import _print_dim_size

    scalar = b.constant(np.asarray(value, t.dtype))
    parts = []
    for i in range(len(t.shape)):
        size = b.emit1("stablehlo.get_dimension_size", [x], [TensorType((), np.int32)], _print_dim_size, dim=i)
        parts.append(b.reshape(size, (1,)))
    target = dynamic.concatenate(b, parts, 0)  # (of one piece too, as CHLO's shape computation leaves it)

    def printer(op, p, indent, in_func):
        sig = _types_sig(op.operands, op.results)
        return f"stablehlo.dynamic_broadcast_in_dim {p.vs(op.operands)}, dims = [] : {sig}"

    return b.emit1("stablehlo.dynamic_broadcast_in_dim", [scalar, target], [TensorType(t.shape, t.dtype)], printer)


def _sinh(b, x, t):
    log_half = _ew(b, "log", _like(b, x, t, 0.5))
    large = _ew(b, "subtract", _ew(b, "exponential", _ew(b, "add", x, log_half)),
                _ew(b, "exponential", _ew(b, "subtract", log_half, x)))
    m = _ew(b, "exponential_minus_one", x)
    one, half = _like(b, x, t, 1.0), _like(b, x, t, 0.5)
    small = _ew(b, "multiply", half, _ew(b, "add", m, _ew(b, "divide", m, _ew(b, "add", m, one))))
    return [b.select(_cmp(b, "LT", _ew(b, "abs", x), one), small, large)]


def _cosh(b, x, t):
    log_half = _ew(b, "log", _like(b, x, t, 0.5))
    return [_ew(b, "add", _ew(b, "exponential", _ew(b, "add", x, log_half)),
                _ew(b, "exponential", _ew(b, "subtract", log_half, x)))]


def _root_one_minus_square(b, x, one):
    return _ew(b, "sqrt", _ew(b, "multiply", _ew(b, "subtract", one, x), _ew(b, "add", one, x)))


def _asin(b, x, t):
    one = _like(b, x, t, 1.0)
    half_angle = _ew(b, "atan2", x, _ew(b, "add", one, _root_one_minus_square(b, x, one)))
    return [_ew(b, "add", half_angle, half_angle)]


def _acos(b, x, t):
    return [_ew(b, "atan2", _root_one_minus_square(b, x, _like(b, x, t, 1.0)), x)]


def _atanh(b, x, t):
    ax = _ew(b, "abs", x)
    outside = _cmp(b, "GT", ax, _like(b, x, t, 1.0))
    nan = _like(b, x, t, np.nan)
    diff = _ew(b, "subtract", _ew(b, "log_plus_one", x), _ew(b, "log_plus_one", _ew(b, "negate", x)))
    return [b.select(outside, nan, _ew(b, "multiply", diff, _like(b, x, t, 0.5)))]


def _asinh(b, x, t):
    sign, ax = _ew(b, "sign", x), _ew(b, "abs", x)
    large = _cmp(b, "GE", ax, _ew(b, "sqrt", _like(b, x, t, _finfo(t.dtype).max)))
    log_large = _ew(b, "add", _ew(b, "log", _like(b, x, t, 2.0)), _ew(b, "log", ax))
    sq = _ew(b, "multiply", ax, ax)
    one = _like(b, x, t, 1.0)
    ratio = _ew(b, "divide", sq, _ew(b, "add", one, _ew(b, "sqrt", _ew(b, "add", one, sq))))
    small = _ew(b, "log_plus_one", _ew(b, "add", ax, ratio))
    return [_ew(b, "multiply", sign, b.select(large, log_large, small))]


def _acosh(b, x, t):
    big, two = _like(b, x, t, _finfo(t.dtype).max), _like(b, x, t, 2.0)
    large = _cmp(b, "GE", x, _ew(b, "divide", big, two))
    log_large = _ew(b, "add", _ew(b, "log", two), _ew(b, "log", x))
    one = _like(b, x, t, 1.0)
    below = _ew(b, "sqrt", _ew(b, "subtract", x, one))
    above = _ew(b, "sqrt", _ew(b, "add", x, one))
    small = _ew(b, "log_plus_one", _ew(b, "multiply", below, _ew(b, "add", above, below)))
    return [b.select(large, log_large, small)]


# erf on float32: a rational approximation on x clamped to [-4, 4].
_ERF_ALPHA = ("-2.72614237E-10", "2.77068146E-8", "-2.10102394E-6", "-5.69250624E-5", "-7.34990637E-4",
              "-2.954600e-03", "-0.0160960332")
_ERF_BETA = ("-1.45660715E-5", "-2.13374049E-4", "-0.00168282702", "-0.00737332925", "-0.0142647391")


def _horner(b, coeffs, sq, make=lambda c: c):
    # (`make` turns a coefficient into its constant, made right before its use, as CHLO makes it)
    acc = _ew(b, "multiply", make(coeffs[0]), sq)
    for k, c in enumerate(coeffs[1:]):
        acc = _ew(b, "add", acc, make(c))
        if k < len(coeffs) - 2:
            acc = _ew(b, "multiply", acc, sq)
    return acc


def _clamp(b, lo, x, hi):
    return b.emit1("stablehlo.clamp", [lo, x, hi], [x.type], print_same_type)


def _erf(b, x, t):
    if np.dtype(t.dtype) == np.float64:
        return _erf64(b, x, t)
    def like(v, y=x):
        return _like(b, y, t, np.float32(v))

    clamped = _clamp(b, like(-4.0), x, like(4.0))
    sq = _ew(b, "multiply", clamped, clamped)
    p = _horner(b, _ERF_ALPHA, sq, lambda v: like(v, sq))
    q = _horner(b, _ERF_BETA, sq, lambda v: like(v, sq))
    ratio = _ew(b, "divide", _ew(b, "multiply", clamped, p), q)
    return [_clamp(b, like(-1.0, clamped), ratio, like(1.0, clamped))]


def _top_k(b, x, t, k):
    last = len(t.shape) - 1
    index = TensorType(t.shape, np.int32)
    iota = b.iota(t.shape, np.int32, last)
    values, indices = _sort_descending(b, x, iota, t, index, last)
    limit = list(t.shape[:-1]) + [k]
    return [b.slice(values, [0] * len(limit), limit), b.slice(indices, [0] * len(limit), limit)]


def _sort_descending(b, x, iota, t, index, last: int):
    # top_k's stable sort of (values, iota) along the last dimension, largest
    # first (floats in total order, as CHLO compares them).
    from pyjax._src.backends.stablehlo.rules.reductions import region_return

    block = Block([TensorType((), t.dtype)] * 2 + [TensorType((), np.int32)] * 2)
    cb = Builder(block)
    if np.dtype(t.dtype).kind == "f" or _narrow_float(np.dtype(t.dtype)):
        region_return(cb, [cb.compare("GT", block.args[0], block.args[1], "TOTALORDER")])
    else:
        region_return(cb, [_cmp(cb, "GT", block.args[0], block.args[1])])
    return b.emit("stablehlo.sort", [x, iota], [t, index], print_generic, regions=[block],
                  props=f"dimension = {last} : i64, is_stable = true")


def _top_k_dynamic(b, x, t, k):
    # CHLO's top_k on a symbolic shape: the operand's shape and the slices'
    # limit (the shape with k last) as i64 tensors, a dynamic_iota, the
    # sort, and two real_dynamic_slices from 0 by 1.
    from pyjax._src.backends.stablehlo import dynamic
    from pyjax._src.backends.stablehlo.builder import _types_sig, print_functional
    from pyjax._src.backends.stablehlo.export_module import _print_dim_size

    def piece(i, d):
        if isinstance(d, int):
            return b.reshape(b.constant(np.asarray(d, np.int64)), (1,))
        size = b.emit1("stablehlo.get_dimension_size", [x], [TensorType((), np.int32)], _print_dim_size, dim=i)
        return b.reshape(b.convert(size, np.int64), (1,))

    rank, last = len(t.shape), len(t.shape) - 1
    pieces = [piece(i, d) for i, d in enumerate(t.shape)]
    shape = dynamic.concatenate(b, pieces, 0)
    limit = dynamic.concatenate(b, pieces[:-1] + [piece(last, k)], 0)
    index = TensorType(t.shape, np.int32)

    def print_iota(op, p, indent, in_func):
        return f"stablehlo.dynamic_iota {p.v(op.operands[0])}, dim = {last} : {_types_sig(op.operands, op.results)}"

    iota = b.emit1("stablehlo.dynamic_iota", [shape], [index], print_iota)
    values, indices = _sort_descending(b, x, iota, t, index, last)
    start, stride = b.constant(np.zeros(rank, np.int64)), b.constant(np.ones(rank, np.int64))
    out = list(t.shape[:-1]) + [k]
    return [b.emit1("stablehlo.real_dynamic_slice", [v, start, limit, stride], [TensorType(out, v.dtype)],
                    print_functional) for v in (values, indices)]


def _atan(b, x, t):
    (one,) = _consts(b, t, 1.0)
    return _ew(b, "atan2", x, one)


# erf_inv on float32 (Giles' approximation): a polynomial in w = -log1p(-x*x),
# with the coefficients (one pair per degree) chosen by w < 5.
_ERF_INV_COEFFS = (("2.81022636E-8", "-2.00214257E-4"), ("3.43273939E-7", "1.00950558E-4"),
                   ("-3.5233877E-6", "0.00134934322"), ("-4.39150654E-6", "-0.00367342844"),
                   ("2.1858087E-4", "0.00573950773"), ("-0.00125372503", "-0.0076224613"),
                   ("-0.00417768164", "0.00943887047"), ("0.246640727", "1.00167406"),
                   ("1.50140941", "2.83297682"))


# erf_inv on float64 (Giles): three polynomials in w (shifted by 3.125 below
# 6.25, of sqrt(w) less 3.25 below 16, less 5 above), Horner steps taken
# together while all three have terms.
_ERF_INV64 = (
    (-3.6444120640178197E-21, -1.6850591381820166E-19, 1.28584807152564E-18, 1.1157877678025181E-17,
     -1.3331716628546209E-16, 2.0972767875968562E-17, 6.6376381343583238E-15, -4.0545662729752069E-14,
     -8.1519341976054721E-14, 2.6335093153082323E-12, -1.2975133253453532E-11, -5.4154120542946279E-11,
     1.0512122733215323E-9, -4.1126339803469837E-9, -2.9070369957882005E-8, 4.2347877827932404E-7,
     -1.3654692000834679E-6, -1.3882523362786469E-5, 1.8673420803405714E-4, -7.4070253416626698E-4,
     -0.0060336708714301491, 0.24015818242558962, 1.6536545626831027),
    (2.2137376921775787E-9, 9.075656193888539E-8, -2.7517406297064545E-7, 1.8239629214389228E-8,
     1.5027403968909828E-6, -4.013867526981546E-6, 2.9234449089955446E-6, 1.2475304481671779E-5,
     -4.7318229009055734E-5, 6.8284851459573175E-5, 2.4031110387097894E-5, -3.5503752036284748E-4,
     9.5328937973738049E-4, -0.0016882755560235047, 0.0024914420961078508, -0.0037512085075692412,
     0.0053709145535900636, 1.0052589676941592, 3.0838856104922208),
    (-2.7109920616438573E-11, -2.5556418169965252E-10, 1.5076572693500548E-9, -3.789465440126737E-9,
     7.6157012080783394E-9, -1.496002662714924E-8, 2.9147953450901081E-8, -6.7711997758452339E-8,
     2.2900482228026655E-7, -9.9298272942317003E-7, 4.5260625972231537E-6, -1.9681778105531671E-5,
     7.5995277030017761E-5, -2.1503011930044477E-4, -1.3871931833623122E-4, 1.0103004648645344,
     4.8499064014085844))


def _erf_inv64(b, x, t):
    c = _typed(b, t)
    w = _ew(b, "negate", _ew(b, "log_plus_one", _ew(b, "multiply", x, _ew(b, "negate", x))))
    lt_625, lt_16 = _cmp(b, "LT", w, c(6.25)), _cmp(b, "LT", w, c(16.0))
    root = _ew(b, "sqrt", w)
    shifted = _ew(b, "subtract", w, c(3.125))
    def like_w(v):  # (CHLO shapes these two like w)
        return _like(b, w, t, np.asarray(v, t.dtype))

    w = b.select(lt_625, shifted, _ew(b, "subtract", root, b.select(lt_16, like_w(3.25), like_w(5.0))))
    first, second, third = _ERF_INV64

    def coefficient(i):
        return b.select(lt_16, b.select(lt_625, c(first[i]), c(second[i])), c(third[i]))

    p = coefficient(0)
    for i in range(1, len(first)):
        if i < len(third):
            p = _ew(b, "add", coefficient(i), _ew(b, "multiply", p, w))
        elif i < len(second):  # (the third polynomial is done: lanes past 16 keep theirs)
            step = _ew(b, "add", b.select(lt_625, c(first[i]), c(second[i])), _ew(b, "multiply", p, w))
            p = b.select(lt_16, step, p)
        else:
            p = b.select(lt_625, _ew(b, "add", c(first[i]), _ew(b, "multiply", p, w)), p)
    result = _ew(b, "multiply", p, x)
    at_one = _cmp(b, "EQ", _ew(b, "abs", x), c(1.0))
    return b.select(at_one, _ew(b, "multiply", x, c(np.inf)), result)


def _erf_inv(b, x, t):
    if np.dtype(t.dtype) == np.float64:
        return _erf_inv64(b, x, t)
    w = _ew(b, "negate", _ew(b, "log_plus_one", _ew(b, "multiply", x, _ew(b, "negate", x))))
    small = _cmp(b, "LT", w, *_consts(b, t, 5.0))
    shifted_small = _ew(b, "subtract", w, *_consts(b, t, 2.5))
    shifted_large = _ew(b, "subtract", _ew(b, "sqrt", w), *_consts(b, t, 3.0))
    w = b.select(small, shifted_small, shifted_large)

    def coefficient(pair):
        return b.select(small, *_consts(b, t, *(np.float32(v) for v in pair)))

    p = coefficient(_ERF_INV_COEFFS[0])
    for pair in _ERF_INV_COEFFS[1:]:
        c = coefficient(pair)
        p = _ew(b, "add", c, _ew(b, "multiply", p, w))
    result = _ew(b, "multiply", p, x)
    at_one = _cmp(b, "EQ", _ew(b, "abs", x), *_consts(b, t, 1.0))
    return b.select(at_one, _ew(b, "multiply", x, *_consts(b, t, np.inf)), result)


def _horner_at_use(b, t, coeffs, z):
    # A polynomial in z, each coefficient's constant made where it is first used (shaped like z).
    acc = _ew(b, "multiply", _like(b, z, t, np.asarray(float(coeffs[0])).astype(t.dtype)), z)
    for k, v in enumerate(coeffs[1:]):
        acc = _ew(b, "add", acc, _like(b, z, t, np.asarray(float(v)).astype(t.dtype)))
        if k < len(coeffs) - 2:
            acc = _ew(b, "multiply", acc, z)
    return acc


# erfc on float32: erf's polynomial below |x| < 1, else exp(-x^2)/|x| times a
# rational function of 1/x^2 (one of two by |x| < 2), reflected for x < 0.
_ERFC_P = ("2.326820e-02", "-0.138703942", "0.368742466", "-0.582473278", "0.621000468", "-0.494451523",
           "3.404880e-01", "-0.274112701", "0.563825965")
_ERFC_Q = ("-10.477664", "1.297720e+01", "-7.49551868", "2.92101908", "-1.01526523", "0.42184633",
           "-0.282076746", "0.564189494")
_ERF_SMALL = ("7.85386146E-5", "-8.0101937E-4", "0.00518832775", "-0.0268538129", "0.112835854", "-0.37612626",
              "1.12837911")


# erfc on float64 (Cephes): P/Q below |x| < 8, R/S above, both times exp(-x^2);
# 1 - x T(x^2)/U(x^2) below |x| < 1.
_ERFC64_P = (2.4619698147353052E-10, 0.56418956483106886, 7.4632105644226989, 48.637197098568137,
             196.5208329560771, 526.44519499547732, 934.52852717195765, 1027.5518868951572, 557.53533536939938)
_ERFC64_Q = (1.0, 13.228195115474499, 86.707214088598973, 354.93777888781989, 975.70850174320549,
             1823.9091668790973, 2246.3376081871097, 1656.6630919416134, 557.53534081772773)
_ERFC64_R = (0.56418958354775506, 1.275366707599781, 5.0190504225118051, 6.160210979930536, 7.4097426995044895,
             2.9788666537210022)
_ERFC64_S = (1.0, 2.2605286322011726, 9.3960352493800147, 12.048953980809666, 17.081445074756591,
             9.6089680906328585, 3.3690764510008151)
_ERF64_T = (9.6049737398705161, 90.026019720384269, 2232.0053459468431, 7003.3251411280507, 55592.301301039493)
_ERF64_U = (1.0, 33.561714164750313, 521.35794978015269, 4594.3238297098014, 22629.000061389095,
            49267.394260863592)


def _erf64_ratio(b, x, t):
    sq = _ew(b, "multiply", x, x)
    return _ew(b, "divide", _ew(b, "multiply", x, _horner_at_use(b, t, _ERF64_T, sq)),
               _horner_at_use(b, t, _ERF64_U, sq))


def _erfc64_tail(b, x, t):
    c = _typed(b, t)
    neg_sq = _ew(b, "negate", _ew(b, "multiply", x, x))
    e = _ew(b, "exponential", neg_sq)
    ax = _ew(b, "abs", x)
    near = _ew(b, "divide", _ew(b, "multiply", e, _horner_at_use(b, t, _ERFC64_P, ax)),
               _horner_at_use(b, t, _ERFC64_Q, ax))
    far = _ew(b, "divide", _ew(b, "multiply", e, _horner_at_use(b, t, _ERFC64_R, ax)),
              _horner_at_use(b, t, _ERFC64_S, ax))
    tail = b.select(_cmp(b, "LT", ax, c(8.0)), near, far)
    underflow = _cmp(b, "LT", neg_sq, c(-709.78271289338397))
    zero = c(0.0)
    tail = b.select(underflow, zero, tail)
    return b.select(_cmp(b, "LT", x, zero), _ew(b, "subtract", c(2.0), tail), tail)


def _erfc64(b, x, t):
    tail = _erfc64_tail(b, x, t)
    (one,) = _consts(b, t, 1.0)  # (made before the ratio, as CHLO makes it)
    erf = _erf64_ratio(b, x, t)
    small = _ew(b, "subtract", one, erf)
    return b.select(_cmp(b, "LT", _ew(b, "abs", x), one), small, tail)


def _erf64(b, x, t):
    erf = _erf64_ratio(b, x, t)
    (one,) = _consts(b, t, 1.0)  # (made before the tail, as CHLO makes it)
    tail = _erfc64_tail(b, x, t)
    large = _ew(b, "subtract", one, tail)
    return [b.select(_cmp(b, "LT", _ew(b, "abs", x), one), erf, large)]


def _erfc(b, x, t):
    if np.dtype(t.dtype) == np.float64:
        return _erfc64(b, x, t)
    sq = _ew(b, "multiply", x, x)
    neg_sq = _ew(b, "negate", sq)
    ax = _ew(b, "abs", x)
    (one,) = _consts(b, t, 1.0)
    z = _ew(b, "divide", one, sq)
    scale = _ew(b, "multiply", _ew(b, "exponential", neg_sq), _ew(b, "divide", one, ax))
    (two,) = _consts(b, t, 2.0)
    near = _cmp(b, "LT", ax, two)
    p = _horner_at_use(b, t, _ERFC_P, z)
    q = _horner_at_use(b, t, _ERFC_Q, z)
    tail = _ew(b, "multiply", scale, b.select(near, p, q))
    underflow = _cmp(b, "LT", neg_sq, *_consts(b, t, np.float32("-88.7228394")))
    (zero,) = _consts(b, t, 0.0)
    tail = b.select(underflow, zero, tail)
    tail = b.select(_cmp(b, "LT", x, zero), _ew(b, "subtract", two, tail), tail)
    (one,) = _consts(b, t, 1.0)  # (CHLO makes the small branch's own)
    sq2 = _ew(b, "multiply", x, x)
    small = _ew(b, "subtract", one, _ew(b, "multiply", x, _horner_at_use(b, t, _ERF_SMALL, sq2)))
    return b.select(_cmp(b, "LT", _ew(b, "abs", x), one), small, tail)


# lgamma on float32: Lanczos' approximation (g = 7), reflected for x < 1/2.
_LANCZOS = (676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
            -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7)
_LANCZOS_BASE = 0.99999999999980993
_LOG_LANCZOS_G_HALF = 2.0149030205422647  # log(7.5 + 0.5)
_LOG_ROOT_TWO_PI = 0.91893853320467266
_LOG_PI = 1.1447298858494002


def _typed(b, t):
    # A constant maker in the operand's type (CHLO's double constants, rounded).
    def c(v):
        return _consts(b, t, np.asarray(float(v)).astype(t.dtype))[0]

    return c


def _lgamma(b, x, t):
    c = _typed(b, t)
    half = c(0.5)  # (half and one made once and used again, as CHLO does)
    reflect = _cmp(b, "LT", x, half)
    minus_x = _ew(b, "negate", x)
    one = c(1.0)
    z = b.select(reflect, minus_x, _ew(b, "subtract", x, one))
    acc = c(_LANCZOS_BASE)
    for i, coeff in enumerate(_LANCZOS):
        k = c(coeff)  # (each coefficient made before its index)
        acc = _ew(b, "add", acc, _ew(b, "divide", k, _ew(b, "add", z, c(i + 1))))
    g = c(7.5)
    tz = _ew(b, "add", g, z)
    log_t = _ew(b, "add", c(_LOG_LANCZOS_G_HALF), _ew(b, "log_plus_one", _ew(b, "divide", z, g)))
    ratio = _ew(b, "divide", tz, log_t)
    tail = _ew(b, "multiply", _ew(b, "subtract", _ew(b, "add", z, half), ratio), log_t)
    log_acc = _ew(b, "log", acc)
    result = _ew(b, "add", _ew(b, "add", c(_LOG_ROOT_TWO_PI), tail), log_acc)
    ax = _ew(b, "abs", x)
    frac = _ew(b, "subtract", ax, _ew(b, "floor", ax))
    frac = b.select(_cmp(b, "LT", half, frac), _ew(b, "subtract", one, frac), frac)
    log_sin = _ew(b, "log", _ew(b, "sine", _ew(b, "multiply", c(np.pi), frac)))
    reflected = _ew(b, "subtract", _ew(b, "subtract", c(_LOG_PI), log_sin), result)
    finite = b.emit1("stablehlo.is_finite", [log_sin], [TensorType(t.shape, np.bool_)], print_same_type)
    result = b.select(reflect, b.select(finite, reflected, _ew(b, "negate", log_sin)), result)
    ax = _ew(b, "abs", x)
    infinite = _cmp(b, "EQ", ax, _like(b, ax, t, np.inf))
    return b.select(infinite, c(np.inf), result)


def _digamma(b, x, t):
    # The derivative of lgamma's Lanczos form, reflected (pi cot(pi x)) for
    # x < 1/2; NaN at the non-positive integers.
    c = _typed(b, t)
    reflect = _cmp(b, "LT", x, c(0.5))
    z = b.select(reflect, _ew(b, "negate", x), _ew(b, "subtract", x, c(1.0)))
    zero = c(0.0)
    num, denom = zero, c(_LANCZOS_BASE)
    for i, coeff in enumerate(_LANCZOS):
        k = c(coeff)
        zi = _ew(b, "add", z, c(i + 1))
        num = _ew(b, "subtract", num, _ew(b, "divide", k, _ew(b, "multiply", zi, zi)))
        denom = _ew(b, "add", denom, _ew(b, "divide", k, zi))
    g = c(7.5)
    tz = _ew(b, "add", g, z)
    log_t = _ew(b, "add", c(_LOG_LANCZOS_G_HALF), _ew(b, "log_plus_one", _ew(b, "divide", z, g)))
    ratio = _ew(b, "divide", num, denom)
    shift = _ew(b, "divide", c(7.5 - 0.5), tz)
    result = _ew(b, "subtract", _ew(b, "add", log_t, ratio), shift)
    shifted = _ew(b, "add", x, _ew(b, "abs", _ew(b, "floor", _ew(b, "add", x, c(0.5)))))
    pi = c(np.pi)
    angle = _ew(b, "multiply", pi, shifted)
    cos, sin = _ew(b, "cosine", angle), _ew(b, "sine", angle)
    cot = _ew(b, "divide", _ew(b, "multiply", pi, cos), sin)
    result = b.select(reflect, _ew(b, "subtract", result, cot), result)
    pole = b.elementwise("stablehlo.and", [_cmp(b, "LE", x, zero), _cmp(b, "EQ", x, _ew(b, "floor", x))],
                         TensorType(t.shape, np.bool_))
    return b.select(pole, c(np.nan), result)


def _next_after(b, x, y, t):
    # On the bit patterns: one step towards y (the smallest subnormal with
    # y's sign from zero); NaN when either is NaN, y when they are equal.
    ints = np.dtype(f"int{8 * np.dtype(t.dtype).itemsize}")
    it = TensorType(t.shape, ints)
    info = np.iinfo(ints)

    def bits(v):
        return b.emit1("stablehlo.bitcast_convert", [v], [it if v.dtype != ints else t], print_functional)

    xi, yi = bits(x), bits(y)

    def c(v):  # (shaped like x's bits)
        return _like(b, xi, it, np.asarray(v, ints))

    nan = b.elementwise("stablehlo.or", [_cmp(b, "NE", x, x), _cmp(b, "NE", y, y)])
    nan_bits = bits(*_consts(b, t, np.nan))
    sign_mask, abs_mask = c(info.min), c(info.max)
    ax, ay = _ew(b, "and", xi, abs_mask), _ew(b, "and", yi, abs_mask)
    equal = _cmp(b, "EQ", x, y)
    zero = c(0)
    x_zero, y_zero = _cmp(b, "EQ", ax, zero), _cmp(b, "EQ", ay, zero)
    sx, sy = _ew(b, "and", xi, sign_mask), _ew(b, "and", yi, sign_mask)
    one = c(1)
    from_zero = _ew(b, "or", sy, one)
    signs_differ = _cmp(b, "NE", sx, sy)
    away = b.elementwise("stablehlo.or", [_cmp(b, "GT", ax, ay), signs_differ])
    step = _ew(b, "add", xi, b.select(away, c(-1), one))
    out = b.select(nan, nan_bits, b.select(equal, yi, b.select(x_zero, b.select(y_zero, yi, from_zero), step)))
    return bits(out)


# bessel_i1e (Cephes): Chebyshev series in |x|/2 - 2 up to 8, in 32/|x| - 2
# above; float32 takes the last 17 and 7 terms.
_I1E_A = (2.7779141127610464E-18, -2.111421214358166E-17, 1.5536319577362005E-16, -1.1055969477353862E-15,
          7.6006842947354077E-15, -5.0421855047279118E-14, 3.2237933659455748E-13, -1.9839743977649436E-12,
          1.1736186298890901E-11, -6.6634897235020271E-11, 3.6255902815521172E-10, -1.8872497517228294E-9,
          9.3815373864957726E-9, -4.4450591287963281E-8, 2.0032947535521353E-7, -8.5687202646954547E-7,
          3.4702513081376785E-6, -1.3273163656039436E-5, 4.7815651075500542E-5, -1.6176081582589674E-4,
          5.1228595616857576E-4, -0.0015135724506312532, 0.0041564229443128882, -0.010564084894626197,
          0.024726449030626516, -0.052945981208094989, 0.10264365868984709, -0.17641651835783406,
          0.25258718644363365)
_I1E_B = (7.5172963108421052E-18, 4.4143483230717077E-18, -4.6503053684893586E-17, -3.2095259219934238E-17,
          2.9626289976459501E-16, 3.3082023109209285E-16, -1.8803547755107825E-15, -3.8144030724370075E-15,
          1.0420276984128802E-14, 4.272440016711951E-14, -2.1015418427726643E-14, -4.0835511110921974E-13,
          -7.1985517762459084E-13, 2.0356285441470896E-12, 1.4125807436613782E-11, 3.2526035830154884E-11,
          -1.8974958123505413E-11, -5.5897434621965838E-10, -3.835380385964237E-9, -2.6314688468895196E-8,
          -2.5122362378702088E-7, -3.8825648088776906E-6, -1.1058893876262371E-4, -0.0097610974913614687,
          0.7785762350182801)


def _bessel_i1e(b, x, t):
    c = _typed(b, t)
    wide = np.dtype(t.dtype) == np.float64
    a_terms, b_terms = (_I1E_A, _I1E_B) if wide else (_I1E_A[-17:], _I1E_B[-7:])

    def chebyshev(z, coeffs):
        # Clenshaw's recurrence: b0 = z*b1 - b2 + c; the series is (b0 - b2) / 2.
        def like_z(v):  # (CHLO shapes the recurrence's constants like z)
            return _like(b, z, t, np.asarray(float(v)).astype(t.dtype))

        b0 = like_z(0.0)
        b1 = like_z(0.0)
        for v in coeffs:
            b2, b1 = b1, b0
            b0 = _ew(b, "add", _ew(b, "subtract", _ew(b, "multiply", z, b1), b2), like_z(v))
        return _ew(b, "multiply", _ew(b, "subtract", b0, b2), like_z(0.5))

    ax = _ew(b, "abs", x)
    half, two, thirty_two, eight = c(0.5), c(2.0), c(32.0), c(8.0)
    small = _ew(b, "multiply", ax, chebyshev(_ew(b, "subtract", _ew(b, "multiply", half, ax), two), a_terms))
    large = chebyshev(_ew(b, "subtract", _ew(b, "divide", thirty_two, ax), two), b_terms)
    large = _ew(b, "divide", large, _ew(b, "sqrt", ax))
    result = b.select(_cmp(b, "LE", ax, eight), small, large)
    return _ew(b, "multiply", _ew(b, "sign", x), result)


# zeta(x, q) on float32 (Euler-Maclaurin): ten terms of the sum, then the
# tail's series in 1/w^2 (Bernoulli numbers over factorials), nested.
_ZETA_A = (-1.3954464685812522E-19, 5.5090028283602295E-18, -2.1748686985580617E-16, 8.5860620562778452E-15,
           -3.3896802963225832E-13, 1.3382536530684679E-11, -5.2841901386874932E-10, 2.08767569878681E-8,
           -8.2671957671957675E-7, 3.3068783068783071E-5, -0.0013888888888888889)


def _zeta(b, x, q, t):
    def c(v):  # (CHLO shapes zeta's constants like q)
        return _like(b, q, t, np.asarray(float(v)).astype(t.dtype))

    zero, one = c(0.0), c(1.0)  # (made first, before any op)
    minus_x = _ew(b, "negate", x)
    acc = _ew(b, "power", q, minus_x)
    a = q
    for _ in range(9):
        a = _ew(b, "add", a, one)
        acc = _ew(b, "add", acc, _ew(b, "power", a, minus_x))
    w = _ew(b, "add", a, one)
    last = _ew(b, "power", w, minus_x)
    def cx(v):  # (these like x)
        return _like(b, x, t, np.asarray(float(v)).astype(t.dtype))

    one_again = cx(1.0)  # (CHLO makes another)
    integral = _ew(b, "divide", _ew(b, "multiply", last, w), _ew(b, "subtract", x, one_again))
    inv_sq = _ew(b, "divide", one, _ew(b, "multiply", w, w))
    series = zero
    for k, coeff in enumerate(_ZETA_A):
        hi, lo = 2 * (len(_ZETA_A) - k), 2 * (len(_ZETA_A) - k) - 1
        pair = _ew(b, "multiply", _ew(b, "add", x, cx(hi)), _ew(b, "add", x, cx(lo)))
        coeff_w = _like(b, w, t, np.asarray(float(coeff)).astype(t.dtype))
        series = _ew(b, "multiply", pair, _ew(b, "multiply", inv_sq, _ew(b, "add", series, coeff_w)))
    def like(y, v):  # (shaped like y, as CHLO makes it)
        return _like(b, y, t, np.asarray(float(v)).astype(t.dtype))

    half = like(last, 0.5)
    ratio = _ew(b, "divide", x, w)
    series = _ew(b, "add", half, _ew(b, "multiply", ratio, _ew(b, "add", like(w, 0.083333333333333329), series)))
    tail = _ew(b, "multiply", last, series)
    total = _ew(b, "add", _ew(b, "add", acc, integral), tail)
    small_last, abs_acc = _ew(b, "abs", last), _ew(b, "abs", acc)
    tiny = like(w, _finfo(t.dtype).smallest_subnormal)
    total = b.select(_cmp(b, "LT", small_last, _ew(b, "multiply", abs_acc, tiny)), acc, total)
    nan = cx(np.nan)
    total = b.select(_cmp(b, "LT", x, one_again), nan, total)
    q_nonpositive = _cmp(b, "LE", q, zero)
    x_fractional = _cmp(b, "NE", x, _ew(b, "floor", x))
    total = b.select(_ew(b, "and", q_nonpositive, x_fractional), nan, total)
    inf = cx(np.inf)
    q_pole = _ew(b, "and", q_nonpositive, _cmp(b, "EQ", q, _ew(b, "floor", q)))
    two = cx(2.0)
    x_integral = _cmp(b, "EQ", x, _ew(b, "floor", x))
    x_even = _ew(b, "and", x_integral, _cmp(b, "EQ", _ew(b, "remainder", x, two), zero))
    total = b.select(q_pole, b.select(x_even, inf, nan), total)
    return b.select(_cmp(b, "EQ", x, one), inf, total)


def _nested(like, expand, *args):
    # An expansion inside another: its constants are shaped like its own first operand.
    _LIKE.append(like)
    try:
        return expand(*args)
    finally:
        _LIKE.pop()


def _polygamma(b, n, x, t):
    # (-1)^(n+1) n! zeta(n + 1, x), digamma at n = 0, NaN unless n is a
    # non-negative integer.
    def c(v):  # (CHLO shapes polygamma's own constants like x)
        return _like(b, x, t, np.asarray(float(v)).astype(t.dtype))

    one, two = c(1.0), c(2.0)  # (made first, before any op)
    sign = _ew(b, "subtract", _ew(b, "multiply", two, _ew(b, "remainder", n, two)), one)
    n1 = _ew(b, "add", n, one)
    factorial = _ew(b, "exponential", _nested(n1, _lgamma, b, n1, t))
    zeta = _zeta(b, n1, x, t)
    result = _ew(b, "multiply", _ew(b, "multiply", sign, factorial), zeta)
    zero = c(0.0)
    is_zero = _cmp(b, "EQ", n, zero)
    result = b.select(is_zero, _nested(x, _digamma, b, x, t), result)
    bad = b.elementwise("stablehlo.or", [_cmp(b, "NE", n, _ew(b, "floor", n)), _cmp(b, "LT", n, zero)])
    return b.select(bad, c(np.nan), result)


_IN_PLACE = {"chlo.polygamma": _polygamma, "chlo.zeta": _zeta, "chlo.bessel_i1e": _bessel_i1e, "chlo.next_after": _next_after, "chlo.atan": _atan, "chlo.erf_inv": _erf_inv, "chlo.erfc": _erfc, "chlo.lgamma": _lgamma,
             "chlo.digamma": _digamma}

_EXPANSIONS = {"chlo.sinh": _sinh, "chlo.cosh": _cosh, "chlo.asin": _asin, "chlo.acos": _acos,
               "chlo.atanh": _atanh, "chlo.asinh": _asinh, "chlo.acosh": _acosh, "chlo.erf": _erf}


_WIDE = (np.float32, np.float64)
# (CHLO expands these in the operand's own type, narrow floats too; the others in float32)
_ANY_FLOAT = frozenset({"chlo.atan", "chlo.next_after", "chlo.asin", "chlo.acos", "chlo.asinh", "chlo.acosh",
                        "chlo.atanh"})


def _supported(op) -> bool:
    t = op.operands[0].type
    if not isinstance(t, TensorType):
        return False
    dtype = np.dtype(t.dtype)
    if op.name == "chlo.top_k":
        return dtype.kind in "fiu" or _narrow_float(dtype)
    if op.name in _NO_FLOAT8 and dtype.itemsize == 1:
        return False  # (JAX's lowering fails on these: "failed to legalize operation 'chlo.erf'")
    return (op.name in _EXPANSIONS or op.name in _IN_PLACE) and (dtype in _WIDE or _narrow_float(dtype))


_NO_FLOAT8 = frozenset({"chlo.erf", "chlo.erfc", "chlo.bessel_i1e"})


def _narrow_float(dtype) -> bool:
    from pyjax._src import dtypes

    return dtype not in _WIDE and dtypes.issubdtype(dtype, np.floating) and dtype.itemsize <= 2


def _expand(b: Builder, name: str, expand, operands, t: TensorType):
    """The expansion of `name` on `operands` of type `t`; a narrow float
    (bfloat16, float16, float8s) is computed in float32 between two converts,
    as CHLO's expansions upcast it."""
    dtype = np.dtype(t.dtype)
    if dtype in _WIDE or name in _ANY_FLOAT:
        _LIKE.append(operands[0])
        try:
            return expand(b, *operands, t)
        finally:
            _LIKE.pop()
    wide = [b.convert(x, np.float32) for x in operands]
    _LIKE.append(wide[0])
    try:
        out = expand(b, *wide, TensorType(t.shape, np.float32))
    finally:
        _LIKE.pop()
    if isinstance(out, list):
        return [b.convert(o, dtype) for o in out]
    return b.convert(out, dtype)


def _print_composite(op, p, indent, in_func):
    attrs = op.attrs["composite_attributes"]
    head = f"composite_attributes = {{{attrs}}}, " if attrs else ""
    outs = [str(r.type) for r in op.results]
    res = outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")"
    return (f'stablehlo.composite "{op.attrs["composite"]}" {p.vs(op.operands)} {{{head}decomposition = '
            f"{_symbol(op.attrs['decomposition'])}, version = 1 : i32}} : ({op.operands[0].type}) -> {res}")


class _Symbols:
    # The round trip's symbol table: names unique in the module, one counter.
    def __init__(self, module: Module):
        self.names = {f.name for f in module.funcs}
        self.counter = 0

    def unique(self, name: str) -> str:
        candidate = name
        while candidate in self.names:
            candidate = f"{name}_{self.counter}"
            self.counter += 1
        self.names.add(candidate)
        return candidate


def to_composites(module: Module) -> None:
    """Rewrites the module's CHLO ops as JAX's exported module holds them
    (see the module docstring)."""
    symbols = _Symbols(module)
    for func in list(reversed(module.funcs)):
        made = []
        _rewrite_block(func.body, module, symbols, made)
        at = module.funcs.index(func) + 1
        for impl in made:  # (each put right after the caller: the last made comes first)
            module.funcs.insert(at, impl)


def _rewrite_block(block: Block, module: Module, symbols: _Symbols, made: list) -> None:
    for op in list(block.ops):
        for region in op.regions:
            _rewrite_block(region, module, symbols, made)
        if not op.name.startswith("chlo.") or not _supported(op):
            continue
        if op.name in _IN_PLACE:
            _expand_in_place(block, op, _IN_PLACE[op.name])
            continue
        made.append(_decomposition(op, module, symbols))


def _expand_in_place(block: Block, op, expand) -> None:
    # The expansion's ops go before `op`, which becomes the last of them
    # (its result keeps its uses); constants are made where they are used.
    scratch = Block()
    t = op.operands[0].type
    _expand(Builder(scratch), op.name, expand, op.operands, t)
    *ops, last = scratch.ops
    for made in ops:
        made.attrs["late"] = True
    at = block.ops.index(op)
    block.ops[at:at] = ops
    op.name, op.operands, op.printer, op.attrs = last.name, last.operands, last.printer, last.attrs


def _decomposition(op, module: Module, symbols: _Symbols):
    from pyjax._src.backends.stablehlo.ir import Func

    t = op.operands[0].type
    name = symbols.unique(f"{op.name}.impl")
    impl = Func(name, [t])
    b = Builder(impl.body)
    (x,) = impl.args
    if op.name == "chlo.top_k":
        symbolic = any(not isinstance(d, int) for d in t.shape)
        outs = (_top_k_dynamic if symbolic else _top_k)(b, x, t, op.attrs["k"])
        attrs = f"is_stable = true, k = {op.attrs['k']} : i64"
    else:
        outs = _expand(b, op.name, _EXPANSIONS[op.name], [x], t)
        attrs = ""
    impl.result_types, impl.result_attrs = [o.type for o in outs], [None] * len(outs)
    b.ret(outs)
    composite = op.name
    op.name, op.printer = "stablehlo.composite", _print_composite
    op.attrs = {"composite": composite, "decomposition": name, "composite_attributes": attrs}
    for r in op.results:
        r.hint = None
    return impl
