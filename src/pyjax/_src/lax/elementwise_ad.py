"""Autodiff rules of the elementwise primitives (JVP; transpose of the
linear ones), written as JAX 0.11 writes them so that gradient jaxprs print
the same equations in the same order.

(Kept beside elementwise.py while that file is being extended; they belong
to the primitives defined there.)
"""

from __future__ import annotations

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.ad_util import Zero, add_any_p
from pyjax._src.interpreters.jvp import (
    defjvp,
    defjvp2,
    defjvp_with_output,
    defjvp_zero,
    deflinear,
)
from pyjax._src.interpreters.transpose import is_undefined_primal
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import shapes, sharding_rules
from pyjax._src.rules import unimplemented


def _const(x, value):
    """A scalar constant of x's dtype (written inline as a literal).

    As lax._const: for a weakly typed scalar ``x`` the constant is a Python
    scalar when that scalar's canonical dtype is x's, so arithmetic with it
    keeps x's weak type (``grad(lambda z: z**2)(3.)`` is weakly typed).
    """
    if dtypes.is_weakly_typed_scalar(x):
        scalar = dtypes.scalar_type_of(x)(value)
        if dtypes.dtype(scalar, canonicalize=True) == core.get_aval(x).dtype:
            return scalar
    return np.asarray(value, core.get_aval(x).dtype)[()]


def _full_like(x, value):
    # lax.full_like: a constant of x's dtype and weak type (a broadcast unless scalar)
    aval = core.get_aval(x)
    scalar = ew._convert_element_type(value, aval.dtype, weak_type=aval.weak_type)
    return shapes.broadcast_in_dim(scalar, aval.shape, ()) if aval.shape else scalar


def _replace_zero(x):
    # x with its zeros replaced by ones (a safe divisor)
    return ew.select(ew.eq(x, _const(x, 0)), _full_like(x, 1), x)


def _unbroadcast(aval, ct):
    # lax broadcasts size-1 axes and rank-0 operands; the cotangent of such an
    # operand sums over the axes it was broadcast along.
    ct_shape = core.get_aval(ct).shape
    if ct_shape == aval.shape:
        return ct
    from pyjax._src.lax.reductions import reduce_sum

    if not aval.shape:
        return reduce_sum(ct, tuple(range(len(ct_shape))))
    axes = tuple(i for i, (a, b) in enumerate(zip(aval.shape, ct_shape, strict=True)) if a == 1 and b != 1)
    # (Placed as the operand: JAX's out_sharding.)
    return shapes.reshape(reduce_sum(ct, axes), aval.shape, out_sharding=sharding_rules.typed_sharding(aval))


mul, div, neg, sub, add = ew.mul_p.bind, ew.div_p.bind, ew.neg_p.bind, ew.sub_p.bind, ew.add_p.bind

# --- linear: add, sub, neg, add_any, convert_element_type, copy, real/imag/conj


def _add_jvp(primals, tangents):
    x, y = primals
    out = add(x, y)
    tx, ty = tangents
    if type(tx) is Zero:
        return out, _broadcast_tangent(ty, out)
    if type(ty) is Zero:
        return out, _broadcast_tangent(tx, out)
    return out, add(tx, ty)


def _sub_jvp(primals, tangents):
    x, y = primals
    out = sub(x, y)
    tx, ty = tangents
    if type(tx) is Zero:
        return out, _broadcast_tangent(neg(ty), out)
    if type(ty) is Zero:
        return out, _broadcast_tangent(tx, out)
    return out, sub(tx, ty)


def _maybe_broadcast(shape, x):
    # lax._maybe_broadcast: x (a tangent of a broadcast operand) widened to the
    # result shape; its size-1 axes are squeezed out first.
    x_shape = core.get_aval(x).shape
    if x_shape == tuple(shape):
        return x
    if not x_shape:
        return shapes.broadcast_in_dim(x, shape, ())
    dims = [i for i, (a, b) in enumerate(zip(x_shape, shape, strict=True)) if a == b]
    return shapes.broadcast_in_dim(shapes.reshape(x, tuple(x_shape[i] for i in dims)), shape, dims)


def _broadcast_tangent(t, out):
    return _maybe_broadcast(core.get_aval(out).shape, t)


def _add_transpose(ct, x, y):
    return [_unbroadcast(x.aval, ct) if is_undefined_primal(x) else None,
            _unbroadcast(y.aval, ct) if is_undefined_primal(y) else None]


def _sub_transpose(ct, x, y):
    return [_unbroadcast(x.aval, ct) if is_undefined_primal(x) else None,
            _unbroadcast(y.aval, neg(ct)) if is_undefined_primal(y) else None]


ew.add_p.def_jvp(_add_jvp)
ew.add_p.def_transpose(_add_transpose)
ew.sub_p.def_jvp(_sub_jvp)
ew.sub_p.def_transpose(_sub_transpose)
deflinear(ew.neg_p, lambda ct, x: [neg(ct)])
deflinear(add_any_p, lambda ct, x, y: [ct, ct])
deflinear(ew.copy_p, lambda ct, x: [ew.copy_p.bind(ct)])


def _real_transpose(ct, x):
    # ct: real -> complex with a zero imaginary part
    return [ew.complex(ct, np.zeros((), core.get_aval(ct).dtype))]


def _imag_transpose(ct, x):
    # imag(x) = Re(-i x): its cotangent is -i ct, i.e. complex(0, -ct)
    return [ew.complex(np.zeros((), core.get_aval(ct).dtype), neg(ct))]


def _complex_transpose(ct, x, y):
    # complex(x, y) = x + i y; each part broadcasts (rank 0 or size 1) like any
    # binary op, so its cotangent sums back to the part's shape.
    return [_unbroadcast(x.aval, ew.real(ct)) if is_undefined_primal(x) else None,
            _unbroadcast(y.aval, ew.imag(neg(ct))) if is_undefined_primal(y) else None]


deflinear(ew.real_p, _real_transpose)
deflinear(ew.imag_p, _imag_transpose)
deflinear(ew.complex_p, _complex_transpose)
# reduce_precision: JAX treats it as linear (tangents and cotangents are rounded alike).
deflinear(ew.reduce_precision_p, lambda ct, x, **params: [ew.reduce_precision_p.bind(ct, **params)])


def _conj_transpose(ct, x, **params):
    # conj of a real operand made a complex result: its cotangent is the real part.
    input_dtype = params.get("input_dtype")
    if input_dtype is not None and not dtypes.issubdtype(input_dtype, np.complexfloating):
        return [ew.real_p.bind(ct)]
    return [ew.conj_p.bind(ct, **params)]


deflinear(ew.conj_p, _conj_transpose)


def _convert(x, new_dtype, weak_type, sharding):
    # JAX's convert_element_type_p.bind folds host constants (a NumPy or
    # Python scalar cotangent becomes a converted literal, no equation), and
    # its staging trace forwards a conversion to the operand's own type.
    aval = core.get_aval(x)
    if sharding is None and aval.dtype == new_dtype and aval.weak_type == weak_type:
        return x
    if sharding is None and (type(x) in (bool, int, float, complex) or isinstance(x, (np.ndarray, np.generic))):
        return ew._convert_element_type(x, new_dtype, weak_type=weak_type)
    return ew.convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type, sharding=sharding)


def _convert_jvp(primals, tangents, *, new_dtype, weak_type, sharding):
    (x,), (g,) = primals, tangents
    out = ew.convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type, sharding=sharding)
    in_dtype = core.get_aval(x).dtype
    if not dtypes.issubdtype(in_dtype, np.inexact) or not dtypes.issubdtype(new_dtype, np.inexact):
        from pyjax._src.ad_util import tangent_aval

        return out, Zero(tangent_aval(core.get_aval(out)))
    return out, _convert(g, new_dtype, weak_type, sharding)


def _convert_transpose(ct, x, *, new_dtype, weak_type, sharding):
    # ct: back to the operand's dtype and weak type
    return [_convert(ct, x.aval.dtype, x.aval.weak_type, None)]


ew.convert_element_type_p.def_jvp(_convert_jvp)
ew.convert_element_type_p.def_transpose(_convert_transpose)

# --- mul and div: linear in one operand at a time


def _mul_transpose(ct, x, y):
    if is_undefined_primal(x):
        return [_unbroadcast(x.aval, mul(ct, y)), None]
    return [None, _unbroadcast(y.aval, mul(x, ct))]


defjvp(ew.mul_p, lambda g, x, y: mul(g, y), lambda g, x, y: mul(x, g))
ew.mul_p.def_transpose(_mul_transpose)


def _div_transpose(ct, x, y):
    return [_unbroadcast(x.aval, div(ct, y)), None]


defjvp(ew.div_p,
       lambda g, x, y: div(g, y),
       lambda g, x, y: mul(mul(neg(g), x), ew.integer_pow_p.bind(y, y=-2)))
ew.div_p.def_transpose(_div_transpose)

# --- select_n: linear in the cases


def _select_n_jvp(primals, tangents):
    which, *cases = primals
    out = ew.select_n_p.bind(which, *cases)
    case_tangents = tangents[1:]
    if all(type(t) is Zero for t in case_tangents):
        return out, case_tangents[0]
    # JAX makes the zeros from the first nonzero tangent whether or not a case
    # needs them (an unused broadcast when every case has a tangent).
    zeros = _full_like(next(t for t in case_tangents if type(t) is not Zero), 0)
    return out, ew.select_n_p.bind(which, *[zeros if type(t) is Zero else t for t in case_tangents])


def _select_n_transpose(ct, which, *cases):
    # ct: each linear case gets ct where it was chosen, zeros elsewhere
    zeros = _full_like(ct, 0)
    if core.get_aval(which).dtype == np.bool_:
        return [None,
                ew.select_n_p.bind(which, ct, zeros) if is_undefined_primal(cases[0]) else None,
                ew.select_n_p.bind(which, zeros, ct) if is_undefined_primal(cases[1]) else None]
    # an integer `which`: one boolean select per case
    return [None] + [
        ew.select(ew.eq(which, _const(which, i)), ct, zeros) if is_undefined_primal(case) else None
        for i, case in enumerate(cases)
    ]


ew.select_n_p.def_jvp(_select_n_jvp)
ew.select_n_p.def_transpose(_select_n_transpose)

# --- zero derivatives
for _p in (ew.sign_p, ew.floor_p, ew.ceil_p, ew.round_p, ew.is_finite_p, ew.stop_gradient_p, ew.eq_p, ew.ne_p,
           ew.lt_p, ew.le_p, ew.gt_p, ew.ge_p, ew.and_p, ew.or_p, ew.xor_p, ew.not_p, ew.population_count_p,
           ew.clz_p, ew.shift_left_p, ew.shift_right_arithmetic_p, ew.shift_right_logical_p,
           ew.eq_to_p, ew.le_to_p, ew.lt_to_p, ew.mulhi_p, ew.bitcast_convert_type_p):
    defjvp_zero(_p)
# JAX 0.11 registers no derivative for nextafter: its own message, nothing appended.
ew.nextafter_p.def_jvp(unimplemented(""))

# --- nonlinear unary


def _on_mesh(c, aval):
    # As lax._one/_zero: a typed x's constant is resharded onto its mesh (replicated).
    if aval.sharding is None:
        return c
    from pyjax._src.sharding.api import reshard_p
    from pyjax._src.sharding.named import abstract_sharding

    return reshard_p.bind(c, dst_sharding=abstract_sharding(aval.sharding.mesh, ()))


def _one(x):
    # lax._one: a rank-0 one of x's dtype and weak type
    aval = core.get_aval(x)
    return _on_mesh(ew._convert_element_type(1, aval.dtype, weak_type=aval.weak_type), aval)


def _zero(x):
    # lax._zero: a rank-0 zero of x's dtype and weak type
    aval = core.get_aval(x)
    return _on_mesh(ew._convert_element_type(0, aval.dtype, weak_type=aval.weak_type), aval)


def _accuracy_free(fn):
    return lambda g, ans, x, **params: fn(g, ans, x)


defjvp_with_output(ew.exp_p, _accuracy_free(lambda g, ans, x: mul(g, ans)))
defjvp_with_output(ew.exp2_p, _accuracy_free(lambda g, ans, x: mul(ew.log(_const(x, 2)), mul(g, ans))))
defjvp(ew.log_p, lambda g, x, **p: div(g, x))
defjvp(ew.log1p_p, lambda g, x, **p: div(g, add(x, _one(x))))
defjvp_with_output(ew.expm1_p, _accuracy_free(lambda g, ans, x: mul(g, add(ans, _one(ans)))))
defjvp(ew.sin_p, lambda g, x, **p: mul(g, ew.cos_p.bind(x, accuracy=None)))
defjvp(ew.cos_p, lambda g, x, **p: neg(mul(g, ew.sin_p.bind(x, accuracy=None))))
defjvp_with_output(ew.tan_p, _accuracy_free(lambda g, ans, x: mul(g, add(_const(x, 1), ew.square(ans)))))
defjvp_with_output(ew.tanh_p, _accuracy_free(lambda g, ans, x: mul(add(g, mul(g, ans)), sub(_one(x), ans))))
defjvp_with_output(ew.logistic_p, _accuracy_free(lambda g, ans, x: mul(g, mul(ans, sub(_one(ans), ans)))))
defjvp_with_output(ew.sqrt_p, _accuracy_free(lambda g, ans, x: mul(g, div(_const(x, 0.5), ans))))
defjvp_with_output(ew.rsqrt_p, _accuracy_free(lambda g, ans, x: mul(g, mul(_const(x, -0.5), div(ans, x)))))
defjvp_with_output(ew.cbrt_p, _accuracy_free(lambda g, ans, x: mul(g, mul(_const(x, 1 / 3), ew.integer_pow_p.bind(ans, y=-2)))))
defjvp(ew.asin_p, lambda g, x: mul(g, ew.rsqrt(sub(_const(x, 1), ew.square(x)))))
defjvp(ew.acos_p, lambda g, x: mul(g, neg(ew.rsqrt(sub(_const(x, 1), ew.square(x))))))
defjvp(ew.atan_p, lambda g, x: div(g, add(_const(x, 1), ew.square(x))))
defjvp(ew.sinh_p, lambda g, x: mul(g, ew.cosh_p.bind(x)))
defjvp(ew.cosh_p, lambda g, x: mul(g, ew.sinh_p.bind(x)))
defjvp(ew.asinh_p, lambda g, x: mul(g, ew.rsqrt(add(ew.square(x), _one(x)))))
# x^2 - 1 rather than (x + 1)(x - 1): the domain is x >= 1, away from the cancellation
defjvp(ew.acosh_p, lambda g, x: mul(g, ew.rsqrt(sub(ew.square(x), _one(x)))))
defjvp(ew.atanh_p, lambda g, x: mul(ew.reciprocal(add(_one(x), x)), div(g, sub(_one(x), x))))


def _abs_tangent(g, ans, x):
    dtype = core.get_aval(x).dtype
    if dtypes.issubdtype(dtype, np.complexfloating):
        # d|x| = Re(g conj(x) / |x|), with |x| = 0 giving 0
        return ew.real(mul(g, div(ew.conj(x), _replace_zero(ew.convert_element_type(ans, dtype)))))
    # the sign picked by a select, not sign(x) * g: the derivative at 0 is +g
    return ew.select(ew.ge(x, _zero(x)), g, neg(g))


defjvp2(ew.abs_p, _abs_tangent)
defjvp(ew.square_p, lambda g, x: mul(g, mul(_const(x, 2), x)))


def _integer_pow_tangent(g, x, *, y):
    if y == 0:
        return _full_like(g, 0)
    if y == 1:
        return g
    if y == 2:
        return mul(g, mul(_const(x, y), x))
    return mul(g, mul(_const(x, y), ew.integer_pow(x, y - 1)))


defjvp(ew.integer_pow_p, _integer_pow_tangent)


def _pow_tangent_x(g, ans, x, y):
    # d x^y / dx = y x^(y-1); an integer exponent is converted to x's dtype,
    # and y = 0 gives 0 (not 0 * x^-1, NaN at x = 0).
    y_dtype = core.get_aval(y).dtype
    result_dtype, _ = dtypes.lattice_result_type(x, y)
    if result_dtype == np.bool_:
        result_dtype = np.dtype(np.int32)
    x = ew.convert_element_type(x, result_dtype)
    y = ew.convert_element_type(y, result_dtype)
    if dtypes.issubdtype(y_dtype, np.integer):
        x_shape, y_shape = core.get_aval(x).shape, core.get_aval(y).shape
        if x_shape != y_shape:
            shape = ew.broadcasting_shape("pow", (core.get_aval(x), core.get_aval(y)))
            x = _maybe_broadcast(shape, x)
            y = _maybe_broadcast(shape, y)
        jac = ew.select(ew.eq(y, _const(y, 0)), _full_like(y, 0),
                        mul(_replace_zero(y), ew.pow(x, sub(y, _full_like(y, 1)))))
    else:
        jac = mul(y, ew.pow(x, sub(y, _full_like(y, 1))))
    return mul(g, jac)


def _pow_tangent_y(g, ans, x, y):
    # d x^y / dy = log(x) x^y, with log(1) standing in at x = 0
    return ew.convert_element_type(mul(g, mul(ew.log(_replace_zero(x)), ans)), core.get_aval(y).dtype)


defjvp2(ew.pow_p, _pow_tangent_x, _pow_tangent_y)


def _balanced_eq(x, z, y):
    # 1 where x alone attains the extremum z, 1/2 where x and y tie, 0 elsewhere:
    # select(x == z, 1, 0) / select(y == z, 2, 1).
    shape = core.get_aval(z).shape

    def full(value):
        scalar = _const(z, value)
        return shapes.broadcast_in_dim(scalar, shape, ()) if shape else scalar

    x_is_z = ew.eq_p.bind(x, z)
    ones, zeros = full(1), full(0)
    numerator = ew.select_n_p.bind(x_is_z, zeros, ones)
    y_is_z = ew.eq_p.bind(y, z)
    twos, ones = full(2), full(1)
    return div(numerator, ew.select_n_p.bind(y_is_z, ones, twos))


defjvp2(ew.max_p,
        lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
        lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)))
defjvp2(ew.min_p,
        lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
        lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)))
defjvp(ew.atan2_p,
       lambda g, x, y: mul(g, div(y, add(ew.square(x), ew.square(y)))),
       lambda g, x, y: mul(g, div(neg(x), add(ew.square(x), ew.square(y)))))
defjvp(ew.rem_p,
       lambda g, x, y: _maybe_broadcast(ew.broadcasting_shape("rem", (core.get_aval(x), core.get_aval(y))), g),
       lambda g, x, y: mul(neg(g), mul(ew.sign_p.bind(div(x, y)), ew.floor_p.bind(ew.abs_p.bind(div(x, y))))))


# clamp: the tangent of whichever operand is the result (JAX's select-based
# rule; each select takes x's shape, so scalar bounds with an array operand
# only differentiate where the shapes agree, as in JAX).
defjvp(ew.clamp_p,
       lambda g, lo, x, hi: ew.select(ew.bitwise_and(ew.gt(lo, x), ew.lt(lo, hi)), g, _full_like(x, 0)),
       lambda g, lo, x, hi: ew.select(ew.bitwise_and(ew.gt(x, lo), ew.lt(x, hi)), g, _full_like(x, 0)),
       lambda g, lo, x, hi: ew.select(ew.lt(hi, x), g, _full_like(x, 0)))



# ---------------------------------------------------------------------------
# Batching rules (vmap)

from pyjax._src.interpreters import batching
from pyjax._src.lax import batching_util

# The unary and n-ary builders register the vectorized and broadcast
# batchers themselves; these are the elementwise primitives defined directly.
for _p in (ew.integer_pow_p, ew.convert_element_type_p, ew.stop_gradient_p, ew.copy_p):
    batching_util.vectorized(_p)


def _add_any_batch(axis_data, args, dims):
    # add_any does not broadcast (its operands share one aval), so an
    # unbatched operand is materialised at the batch size, as JAX's
    # add_batched does: a cotangent accumulated from a batched and an
    # unbatched use.
    x, y = args
    if dims[0] == dims[1]:
        return add_any_p.bind(x, y), dims[0]

    def front(v, d):
        if d is batching.not_mapped:
            return batching_util.broadcast_batch(v, axis_data.size, 0)
        return batching_util.moveaxis(v, d, 0)

    return add_any_p.bind(front(x, dims[0]), front(y, dims[1])), 0


add_any_p.def_batch(_add_any_batch)


def _select_n_batch(axis_data, args, dims):
    which, *cases = args
    which_dim, case_dims = dims[0], dims[1:]
    which_ndim = core.get_aval(which).ndim
    if which_dim is batching.not_mapped and which_ndim == 0:
        # A scalar predicate: only the cases are batched; align them.
        size = axis_data.size
        first = next(d for d in case_dims if d is not batching.not_mapped)
        if all(d == first for d in case_dims):
            return ew.select_n_p.bind(which, *cases), first
        cases = [batching_util.bdim_at_front(c, d, size) for c, d in zip(cases, case_dims, strict=True)]
        return ew.select_n_p.bind(which, *cases), 0
    size = axis_data.size
    case_ndims = {core.get_aval(c).ndim for c in cases}
    if (which_dim is not batching.not_mapped and all(d == which_dim for d in case_dims)
            and case_ndims == {which_ndim}):
        return ew.select_n_p.bind(which, *cases), which_dim  # all batched alike: nothing to move
    which = (batching_util.broadcast_batch(which, size, 0) if which_dim is batching.not_mapped
             else batching_util.moveaxis(which, which_dim, 0))
    case_shape = None
    moved_cases = []
    for c, d in zip(cases, case_dims, strict=True):
        c = batching_util.broadcast_batch(c, size, 0) if d is batching.not_mapped else batching_util.moveaxis(c, d, 0)
        case_shape = core.get_aval(c).shape
        moved_cases.append(c)
    if core.get_aval(which).shape != case_shape:
        # a per-example scalar predicate: broadcast it over the case shape
        which = shapes.broadcast_in_dim(which, case_shape, (0,))
    return ew.select_n_p.bind(which, *moved_cases), 0


ew.select_n_p.def_batch(_select_n_batch)
