"""Autodiff rules of the elementwise primitives (JVP; transpose of the
linear ones), written as JAX 0.11 writes them so that gradient jaxprs print
the same equations in the same order.

(Kept beside elementwise.py while that file is being extended; they belong
to the primitives defined there.)
"""

from __future__ import annotations

import numpy as np

from pyjax._src import core
from pyjax._src.ad_util import Zero, add_any_p, instantiate
from pyjax._src.interpreters.jvp import defjvp, defjvp2, defjvp_with_output, defjvp_zero, deflinear
from pyjax._src.interpreters.transpose import is_undefined_primal
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import shapes


def _const(x, value):
    """A scalar constant of x's dtype (written inline as a literal)."""
    return np.asarray(value, core.get_aval(x).dtype)[()]


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
    return shapes.reshape(reduce_sum(ct, axes), aval.shape)


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


def _broadcast_tangent(t, out):
    shape = core.get_aval(out).shape
    if core.get_aval(t).shape == shape:
        return t
    t_shape = core.get_aval(t).shape
    if not t_shape:
        return shapes.broadcast_in_dim(t, shape, ())
    return shapes.broadcast_in_dim(shapes.reshape(t, tuple(d for d in t_shape)), shape, tuple(range(len(shape))))


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
deflinear(ew.copy_p, lambda ct, x: [ct])
deflinear(ew.real_p, lambda ct, x: [ew.complex_p.bind(ct, ew._convert_element_type(np.zeros((), core.get_aval(ct).dtype)[()], core.get_aval(ct).dtype)) if hasattr(ew, "complex_p") else ct])
def _conj_transpose(ct, x, **params):
    # conj of a real operand made a complex result: its cotangent is the real part.
    input_dtype = params.get("input_dtype")
    if input_dtype is not None and not np.issubdtype(input_dtype, np.complexfloating):
        return [ew.real_p.bind(ct)]
    return [ew.conj_p.bind(ct, **params)]


deflinear(ew.conj_p, _conj_transpose)


def _convert_jvp(primals, tangents, *, new_dtype, weak_type, sharding):
    (x,), (g,) = primals, tangents
    out = ew.convert_element_type_p.bind(x, new_dtype=new_dtype, weak_type=weak_type, sharding=sharding)
    in_dtype = core.get_aval(x).dtype
    if not np.issubdtype(in_dtype, np.inexact) or not np.issubdtype(new_dtype, np.inexact):
        from pyjax._src.ad_util import tangent_aval

        return out, Zero(tangent_aval(core.get_aval(out)))
    return out, ew.convert_element_type_p.bind(g, new_dtype=new_dtype, weak_type=weak_type, sharding=sharding)


def _convert_transpose(ct, x, *, new_dtype, weak_type, sharding):
    return [ew.convert_element_type_p.bind(ct, new_dtype=x.aval.dtype, weak_type=x.aval.weak_type, sharding=None)]


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
    return out, ew.select_n_p.bind(which, *[instantiate(t) for t in case_tangents])


def _select_n_transpose(ct, which, *cases):
    zeros = shapes.broadcast_in_dim(_const(ct, 0), core.get_aval(ct).shape, ()) if core.get_aval(ct).shape else _const(ct, 0)
    return [None] + [
        ew.select_n_p.bind(which, *[ct if j == i else zeros for j in range(len(cases))]) if is_undefined_primal(case) else None
        for i, case in enumerate(cases)
    ]


ew.select_n_p.def_jvp(_select_n_jvp)
ew.select_n_p.def_transpose(_select_n_transpose)

# --- zero derivatives
for _p in (ew.sign_p, ew.floor_p, ew.ceil_p, ew.round_p, ew.is_finite_p, ew.stop_gradient_p, ew.eq_p, ew.ne_p,
           ew.lt_p, ew.le_p, ew.gt_p, ew.ge_p, ew.and_p, ew.or_p, ew.xor_p, ew.not_p, ew.population_count_p,
           ew.clz_p, ew.shift_left_p, ew.shift_right_arithmetic_p, ew.shift_right_logical_p, ew.nextafter_p):
    defjvp_zero(_p)

# --- nonlinear unary


def _accuracy_free(fn):
    return lambda g, ans, x, **params: fn(g, ans, x)


defjvp_with_output(ew.exp_p, _accuracy_free(lambda g, ans, x: mul(g, ans)))
defjvp_with_output(ew.exp2_p, _accuracy_free(lambda g, ans, x: mul(g, mul(_const(x, np.log(2)), ans))))
defjvp(ew.log_p, lambda g, x, **p: div(g, x))
defjvp(ew.log1p_p, lambda g, x, **p: div(g, add(x, _const(x, 1))))
defjvp_with_output(ew.expm1_p, _accuracy_free(lambda g, ans, x: mul(g, add(ans, _const(ans, 1)))))
defjvp(ew.sin_p, lambda g, x, **p: mul(g, ew.cos_p.bind(x, accuracy=None)))
defjvp(ew.cos_p, lambda g, x, **p: neg(mul(g, ew.sin_p.bind(x, accuracy=None))))
defjvp_with_output(ew.tan_p, _accuracy_free(lambda g, ans, x: mul(g, add(_const(x, 1), ew.integer_pow_p.bind(ans, y=2)))))
defjvp_with_output(ew.tanh_p, _accuracy_free(lambda g, ans, x: mul(add(g, mul(g, ans)), sub(_const(x, 1), ans))))
defjvp_with_output(ew.logistic_p, _accuracy_free(lambda g, ans, x: mul(g, mul(ans, sub(_const(x, 1), ans)))))
defjvp_with_output(ew.sqrt_p, _accuracy_free(lambda g, ans, x: mul(g, div(_const(x, 0.5), ans))))
defjvp_with_output(ew.rsqrt_p, _accuracy_free(lambda g, ans, x: mul(g, mul(_const(x, -0.5), div(ans, x)))))
defjvp_with_output(ew.cbrt_p, _accuracy_free(lambda g, ans, x: mul(g, mul(_const(x, 1 / 3), ew.integer_pow_p.bind(ans, y=-2)))))
defjvp(ew.asin_p, lambda g, x: mul(g, ew.rsqrt_p.bind(sub(_const(x, 1), ew.integer_pow_p.bind(x, y=2)), accuracy=None)))
defjvp(ew.acos_p, lambda g, x: mul(g, neg(ew.rsqrt_p.bind(sub(_const(x, 1), ew.integer_pow_p.bind(x, y=2)), accuracy=None))))
defjvp(ew.atan_p, lambda g, x: div(g, add(_const(x, 1), ew.integer_pow_p.bind(x, y=2))))
defjvp(ew.sinh_p, lambda g, x: mul(g, ew.cosh_p.bind(x)))
defjvp(ew.cosh_p, lambda g, x: mul(g, ew.sinh_p.bind(x)))
defjvp(ew.asinh_p, lambda g, x: mul(g, ew.rsqrt_p.bind(add(ew.integer_pow_p.bind(x, y=2), _const(x, 1)), accuracy=None)))
defjvp(ew.acosh_p, lambda g, x: mul(g, div(ew.rsqrt_p.bind(sub(ew.integer_pow_p.bind(x, y=2), _const(x, 1)), accuracy=None), _const(x, 1))))
defjvp(ew.atanh_p, lambda g, x: mul(ew.integer_pow_p.bind(sub(_const(x, 1), ew.integer_pow_p.bind(x, y=2)), y=-1), g))
defjvp(ew.abs_p, lambda g, x: mul(ew.sign_p.bind(x), g) if not np.issubdtype(core.get_aval(x).dtype, np.complexfloating) else mul(g, x))
defjvp(ew.square_p, lambda g, x: mul(g, mul(_const(x, 2), x)))


def _integer_pow_tangent(g, x, *, y):
    if y == 0:
        return shapes.broadcast_in_dim(_const(g, 0), core.get_aval(g).shape, ()) if core.get_aval(g).shape else _const(g, 0)
    factor = x if y - 1 == 1 else (_const(x, 1) if y - 1 == 0 else ew.integer_pow_p.bind(x, y=y - 1))
    return mul(g, mul(_const(x, y), factor))


defjvp(ew.integer_pow_p, _integer_pow_tangent)


def _pow_tangent_x(g, x, y):
    return mul(g, mul(y, ew.pow_p.bind(x, sub(y, _const(y, 1)))))


def _pow_tangent_y(g, x, y):
    ans = ew.pow_p.bind(x, y)
    log_x = ew.log_p.bind(ew.select_n_p.bind(ew.eq_p.bind(x, _const(x, 0)), x, shapes.broadcast_in_dim(_const(x, 1), core.get_aval(x).shape, ()) if core.get_aval(x).shape else _const(x, 1)), accuracy=None)
    return mul(g, mul(log_x, ans))


defjvp(ew.pow_p, _pow_tangent_x, _pow_tangent_y)


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
       lambda g, x, y: mul(g, div(y, add(ew.integer_pow_p.bind(x, y=2), ew.integer_pow_p.bind(y, y=2)))),
       lambda g, x, y: mul(g, div(neg(x), add(ew.integer_pow_p.bind(x, y=2), ew.integer_pow_p.bind(y, y=2)))))
defjvp(ew.rem_p,
       lambda g, x, y: _broadcast_tangent(g, ew.rem_p.bind(x, y)),
       lambda g, x, y: mul(neg(g), mul(ew.sign_p.bind(div(x, y)), ew.floor_p.bind(ew.abs_p.bind(div(x, y))))))


# ---------------------------------------------------------------------------
# Batching rules (vmap)

from pyjax._src.interpreters import batching  # noqa: E402
from pyjax._src.lax import batching_util  # noqa: E402

for _p in (ew.neg_p, ew.sign_p, ew.abs_p, ew.floor_p, ew.ceil_p, ew.round_p, ew.is_finite_p, ew.square_p,
           ew.not_p, ew.population_count_p, ew.clz_p, ew.real_p, ew.imag_p, ew.conj_p, ew.exp_p, ew.exp2_p,
           ew.log_p, ew.log1p_p, ew.expm1_p, ew.sqrt_p, ew.rsqrt_p, ew.cbrt_p, ew.sin_p, ew.cos_p, ew.tan_p,
           ew.asin_p, ew.acos_p, ew.atan_p, ew.sinh_p, ew.cosh_p, ew.tanh_p, ew.asinh_p, ew.acosh_p, ew.atanh_p,
           ew.logistic_p, ew.integer_pow_p, ew.convert_element_type_p, ew.stop_gradient_p, ew.copy_p):
    batching_util.vectorized(_p)

for _p in (ew.add_p, ew.sub_p, ew.mul_p, ew.div_p, ew.rem_p, ew.pow_p, ew.max_p, ew.min_p, ew.atan2_p,
           ew.nextafter_p, ew.and_p, ew.or_p, ew.xor_p, ew.shift_left_p, ew.shift_right_arithmetic_p,
           ew.shift_right_logical_p, ew.eq_p, ew.ne_p, ew.lt_p, ew.le_p, ew.gt_p, ew.ge_p, add_any_p):
    batching_util.broadcasting(_p)


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
    case_shape = None
    moved_cases = []
    for c, d in zip(cases, case_dims, strict=True):
        c = batching_util.broadcast_batch(c, size, 0) if d is batching.not_mapped else batching_util.moveaxis(c, d, 0)
        case_shape = core.get_aval(c).shape
        moved_cases.append(c)
    which = batching_util.bdim_at_front(which, which_dim, size)
    if core.get_aval(which).shape != case_shape:
        # a per-example scalar predicate: broadcast it over the case shape
        which = shapes.broadcast_in_dim(which, case_shape, (0,))
    return ew.select_n_p.bind(which, *moved_cases), 0


ew.select_n_p.def_batch(_select_n_batch)
