"""Programs for the extension API (jax.extend, jax.interpreters, jax.core):
primitives defined only through the public extension surface, the way a
library defines them, and expressions that use them under every
transformation.

`PRELUDE` runs first (under JAX 0.11.0 by record_extend.py, under pyjax by
tests/test_extend_golden.py); each case is an expression evaluated in its
namespace. The recording is `str()` of the value, or the class and message
of what it raised.
"""

from __future__ import annotations

from case_runner import run_case  # noqa: F401

PRELUDE = '''
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax
import jax.core as jcore
from jax.extend.core import Primitive
from jax.interpreters import ad, batching, mlir

# scale: x * c, linear in x (its own JVP and transpose).
scale_p = Primitive("scale")
def _scale_impl(x, *, c):
    return x * c
scale_p.def_impl(_scale_impl)
scale_p.def_abstract_eval(lambda x, *, c: jcore.ShapedArray(x.shape, x.dtype))
mlir.register_lowering(scale_p, mlir.lower_fun(_scale_impl, multiple_results=False))
def scale(x, c):
    return scale_p.bind(x, c=c)
def _scale_jvp(primals, tangents, *, c):
    (x,), (t,) = primals, tangents
    return scale(x, c), scale(ad.instantiate_zeros(t), c)
ad.primitive_jvps[scale_p] = _scale_jvp
def _scale_transpose(ct, x, *, c):
    assert ad.is_undefined_primal(x)
    return [scale(ct, c)]
ad.primitive_transposes[scale_p] = _scale_transpose
def _scale_batch(args, dims, *, c):
    return scale(args[0], c), dims[0]
batching.primitive_batchers[scale_p] = _scale_batch

# scaled_sin: alpha * sin(x); its tangent goes through scale.
scaled_sin_p = Primitive("scaled_sin")
def _scaled_sin_impl(x, *, alpha):
    return alpha * jnp.sin(x)
scaled_sin_p.def_impl(_scaled_sin_impl)
@scaled_sin_p.def_abstract_eval
def _scaled_sin_abstract(x, *, alpha):
    return jcore.ShapedArray(x.shape, x.dtype)
mlir.register_lowering(scaled_sin_p, mlir.lower_fun(_scaled_sin_impl, multiple_results=False))
def scaled_sin(x, alpha=2.0):
    return scaled_sin_p.bind(x, alpha=alpha)
def _scaled_sin_jvp(primals, tangents, *, alpha):
    (x,), (t,) = primals, tangents
    y = scaled_sin(x, alpha)
    if type(t) is ad.Zero:
        return y, ad.Zero(jax.typeof(y).to_tangent_aval())
    return y, scale(jnp.cos(x) * t, alpha)
ad.primitive_jvps[scaled_sin_p] = _scaled_sin_jvp
def _scaled_sin_batch(args, dims, *, alpha):
    (x,), (d,) = args, dims
    return scaled_sin(x, alpha), d
batching.primitive_batchers[scaled_sin_p] = _scaled_sin_batch

# sincos: two results.
sincos_p = Primitive("sincos")
sincos_p.multiple_results = True
def _sincos_impl(x):
    return [jnp.sin(x), jnp.cos(x)]
sincos_p.def_impl(_sincos_impl)
sincos_p.def_abstract_eval(lambda x: [jcore.ShapedArray(x.shape, x.dtype)] * 2)
mlir.register_lowering(sincos_p, mlir.lower_fun(_sincos_impl, multiple_results=True))
def _sincos_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    s, c = sincos_p.bind(x)
    t = ad.instantiate_zeros(t)
    return [s, c], [c * t, -s * t]
ad.primitive_jvps[sincos_p] = _sincos_jvp
def _sincos_batch(args, dims):
    return sincos_p.bind(args[0]), [dims[0], dims[0]]
batching.primitive_batchers[sincos_p] = _sincos_batch

# axpy: a * x + y, where a per-example x may meet an unbatched y.
axpy_p = Primitive("axpy")
def _axpy_impl(x, y, *, a):
    return a * x + y
axpy_p.def_impl(_axpy_impl)
axpy_p.def_abstract_eval(lambda x, y, *, a: jcore.ShapedArray(x.shape, x.dtype))
mlir.register_lowering(axpy_p, mlir.lower_fun(_axpy_impl, multiple_results=False))
def axpy(a, x, y):
    return axpy_p.bind(x, y, a=a)
def _axpy_batch(args, dims, *, a):
    (x, y), (dx, dy) = args, dims
    size = next(v.shape[d] for v, d in zip(args, dims) if d is not None)
    x = batching.bdim_at_front(x, dx, size)
    y = batching.bdim_at_front(y, dy, size)
    return axpy_p.bind(x, y, a=a), 0
batching.primitive_batchers[axpy_p] = _axpy_batch
ad.defjvp(axpy_p, lambda g, x, y, *, a: scale(g, a), lambda g, x, y, *, a: g)

# bare: abstract eval and impl only.
bare_p = Primitive("bare")
bare_p.def_impl(lambda x: x + 1)
bare_p.def_abstract_eval(lambda x: jcore.ShapedArray(x.shape, x.dtype))
mlir.register_lowering(bare_p, mlir.lower_fun(lambda x: x + 1, multiple_results=False))

x3 = np.array([0.5, 1.0, 2.0], np.float32)
m23 = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
'''

CASES: dict[str, str] = {
    # values
    "eager_scaled_sin": "np.asarray(scaled_sin(x3)).tolist()",
    "eager_sincos": "[np.asarray(v).tolist() for v in sincos_p.bind(x3)]",
    "eager_dtype": "str(scaled_sin(x3).dtype)",
    "jit_scaled_sin": "np.asarray(jax.jit(scaled_sin)(x3)).tolist()",
    "jit_axpy": "np.asarray(jax.jit(lambda x, y: axpy(3.0, x, y))(x3, x3)).tolist()",
    "grad_scaled_sin": "np.asarray(jax.grad(lambda x: scaled_sin(x).sum())(x3)).tolist()",
    "grad_jit": "np.asarray(jax.grad(jax.jit(lambda x: scaled_sin(x, 3.0).sum()))(x3)).tolist()",
    "grad_sincos": "np.asarray(jax.grad(lambda x: (sincos_p.bind(x)[0] * sincos_p.bind(x)[1]).sum())(x3)).tolist()",
    "vmap_scaled_sin": "np.asarray(jax.vmap(scaled_sin)(m23)).tolist()",
    "vmap_axis1": "np.asarray(jax.vmap(scaled_sin, in_axes=1)(m23)).tolist()",
    "vmap_axpy_unbatched_y": "np.asarray(jax.vmap(lambda x, y: axpy(2.0, x, y), in_axes=(0, None))(m23, x3)).tolist()",
    "vmap_grad": "np.asarray(jax.vmap(jax.grad(lambda x: scaled_sin(x)))(x3)).tolist()",
    "jvp_scaled_sin": "[np.asarray(v).tolist() for v in jax.jvp(scaled_sin, (x3,), (jnp.ones(3),))]",
    "jacfwd_jacrev": "np.asarray(jax.jacfwd(jax.jacrev(lambda x: scaled_sin(x).sum()))(x3)).tolist()",
    "grad_axpy": "[np.asarray(v).tolist() for v in jax.grad(lambda x, y: axpy(3.0, x, y).sum(), (0, 1))(x3, x3)]",
    # jaxpr text
    "jaxpr_eager": "jax.make_jaxpr(scaled_sin)(x3)",
    "jaxpr_jit": "jax.make_jaxpr(jax.jit(lambda x: scaled_sin(x) + 1))(x3)",
    "jaxpr_params": "jax.make_jaxpr(lambda x: scale(scaled_sin(x, 0.5), 3))(x3)",
    "jaxpr_grad": "jax.make_jaxpr(jax.grad(lambda x: scaled_sin(x).sum()))(x3)",
    "jaxpr_jvp": "jax.make_jaxpr(lambda x, t: jax.jvp(scaled_sin, (x,), (t,)))(x3, x3)",
    "jaxpr_vmap": "jax.make_jaxpr(jax.vmap(scaled_sin))(m23)",
    "jaxpr_vmap_axis1": "jax.make_jaxpr(jax.vmap(scaled_sin, in_axes=1))(m23)",
    "jaxpr_vmap_axpy": "jax.make_jaxpr(jax.vmap(lambda x, y: axpy(2.0, x, y), in_axes=(0, None)))(m23, x3)",
    "jaxpr_sincos": "jax.make_jaxpr(lambda x: sincos_p.bind(x))(x3)",
    "jaxpr_vmap_sincos": "jax.make_jaxpr(jax.vmap(lambda x: sincos_p.bind(x)))(m23)",
    "jaxpr_grad_sincos": "jax.make_jaxpr(jax.grad(lambda x: sincos_p.bind(x)[0].sum()))(x3)",
    "jaxpr_vjp_scale": "jax.make_jaxpr(lambda x, ct: jax.vjp(lambda v: scale(v, 2.0), x)[1](ct))(x3, x3)",
    "jaxpr_linear_transpose": "jax.make_jaxpr(jax.linear_transpose(lambda v: scale(v, 5.0), x3))(x3)",
    "jaxpr_grad_axpy": "jax.make_jaxpr(jax.grad(lambda x, y: axpy(3.0, x, y).sum(), (0, 1)))(x3, x3)",
    # the tables as a library reads them
    "jvp_table_roundtrip": "ad.primitive_jvps[scaled_sin_p] is _scaled_sin_jvp",
    "transpose_table_roundtrip": "ad.primitive_transposes[scale_p] is _scale_transpose",
    "jvp_table_contains": "scale_p in ad.primitive_jvps",
    "transpose_table_missing": "scaled_sin_p in ad.primitive_transposes",
    "fancy_contains": "scaled_sin_p in batching.fancy_primitive_batchers",
    "builtin_jvp_contains": "lax.sin_p in ad.primitive_jvps",
    "builtin_transpose_contains": "lax.neg_p in ad.primitive_transposes",
    "builtin_sin_transpose_missing": "lax.sin_p in ad.primitive_transposes",
    "builtin_batch_contains": "lax.sin_p in batching.fancy_primitive_batchers",
    "get_primitive_transpose_missing": "ad.get_primitive_transpose(scaled_sin_p)",
    "primitive_repr": "repr(scaled_sin_p)",
    "primitive_name": "scaled_sin_p.name",
    "multiple_results_default": "scale_p.multiple_results",
    "isinstance_builtin": "isinstance(lax.sin_p, Primitive)",
    "zero_repr": "repr(ad.Zero(jcore.ShapedArray((3,), np.float32)))",
    "undefined_primal_repr": "repr(ad.UndefinedPrimal(jcore.ShapedArray((3,), np.float32)))",
    "is_undefined_primal_value": "ad.is_undefined_primal(1.0)",
    "shaped_array_is_abstract_value": "isinstance(jcore.ShapedArray((2,), np.float32), jcore.AbstractValue)",
    "tracer_is_jcore_tracer": "jax.jit(lambda x: isinstance(x, jcore.Tracer) and 1)(1.0)",
    "to_tangent_aval_int": "repr(jcore.ShapedArray((3,), np.int32).to_tangent_aval())",
    "grad_symbolic_zero_branch": "np.asarray(jax.grad(lambda x, y: (scaled_sin(y) * x).sum())(x3, x3)).tolist()",
    "instantiate_zeros": "np.asarray(ad.instantiate_zeros(ad.Zero(jcore.ShapedArray((2,), np.float32)))).tolist()",
    "zeros_like_aval": "repr(ad.zeros_like_aval(jcore.ShapedArray((2,), np.int32)))",
    "add_tangents": "np.asarray(ad.add_tangents(x3, ad.Zero(jcore.ShapedArray((3,), np.float32)))).tolist()",
    # what is missing raises JAX's errors
    "vmap_missing_rule": "jax.vmap(lambda x: bare_p.bind(x))(m23)",
    "jvp_missing_rule": "jax.jvp(lambda x: bare_p.bind(x), (x3,), (x3,))",
    "grad_missing_transpose": "jax.grad(lambda x: scaled_sin_p.bind(x, alpha=1.0).sum() + ad_only(x))(x3)",
    "jaxpr_bare": "jax.make_jaxpr(lambda x: bare_p.bind(x) * 2)(x3)",
    "bare_eager": "np.asarray(bare_p.bind(x3)).tolist()",
    "no_impl": "Primitive('noimpl').bind(x3)",
}

# A case of the grad_missing_transpose kind needs a primitive with a JVP
# whose tangent is a primitive without a transpose rule.
PRELUDE += '''
lin_p = Primitive("lin_no_transpose")
lin_p.def_impl(lambda t: t * 2)
lin_p.def_abstract_eval(lambda t: jcore.ShapedArray(t.shape, t.dtype))
mlir.register_lowering(lin_p, mlir.lower_fun(lambda t: t * 2, multiple_results=False))
ad_only_p = Primitive("ad_only")
ad_only_p.def_impl(lambda x: x * 2)
ad_only_p.def_abstract_eval(lambda x: jcore.ShapedArray(x.shape, x.dtype))
mlir.register_lowering(ad_only_p, mlir.lower_fun(lambda x: x * 2, multiple_results=False))
ad.primitive_jvps[ad_only_p] = lambda p, t: (ad_only_p.bind(*p), lin_p.bind(ad.instantiate_zeros(t[0])))
def ad_only(x):
    return ad_only_p.bind(x).sum()
'''

# jax.custom_derivatives.linear_call: a linear function with its own transpose.
PRELUDE += '''
lc = jax.custom_derivatives.linear_call
def scaled(r, x):
    return lc(lambda r, x: r * x, lambda r, ct: r * ct, r, x)
def pair_fun(r, xs):
    return lc(lambda r, xs: (r * xs[0], xs[1] - xs[0]), lambda r, ct: (r * ct[0] - ct[1], ct[1]), r, xs)
def bad_transpose(r, x):
    return lc(lambda r, x: r * x, lambda r, ct: (ct, ct), r, x)
'''
CASES.update({
    "linear_call_value": "float(scaled(2.0, 3.0))",
    "linear_call_jit": "float(jax.jit(scaled)(2.0, 3.0))",
    "linear_call_jaxpr": "jax.make_jaxpr(scaled)(2.0, 3.0)",
    "linear_call_grad": "float(jax.grad(lambda x: scaled(2.0, x))(3.0))",
    "linear_call_grad_jaxpr": "jax.make_jaxpr(jax.grad(lambda x: scaled(2.0, x)))(3.0)",
    "linear_call_jvp": "[float(v) for v in jax.jvp(lambda x: scaled(2.0, x), (3.0,), (1.0,))]",
    "linear_call_transpose_twice": "float(jax.linear_transpose(lambda c: jax.linear_transpose(lambda x: scaled(5.0, x), 1.0)(c)[0], 1.0)(2.0)[0])",
    "linear_call_pytrees": "[np.asarray(v).tolist() for v in jax.vjp(lambda xs: pair_fun(3.0, xs), (x3, x3))[1]((x3, x3))[0]]",
    "linear_call_bad_transpose": "jax.grad(lambda x: bad_transpose(2.0, x))(3.0)",
    "linear_call_vmap": "jax.vmap(lambda x: scaled(2.0, x))(x3)",
    "linear_call_custom_transpose_used": "float(jax.grad(lambda x: lc(lambda r, x: r * x, lambda r, ct: 10 * ct, 2.0, x))(3.0))",
})

# partial_eval.dce_jaxpr through scan's DCE rule: a carry stays while its next value is read.
PRELUDE += '''
from jax.interpreters import partial_eval as pe
def _chain_body(c, x):
    a, b, k = c
    return (a + b, b * 2.0, k + 1), (a * x, x + 1.0)
chain_jaxpr = jax.make_jaxpr(lambda xs: jax.lax.scan(_chain_body, (0.0, 1.0, 0), xs))(x3).jaxpr
fori_jaxpr = jax.make_jaxpr(lambda x: jax.lax.fori_loop(0, 3, lambda i, c: c * 2.0, x))(x3).jaxpr
'''
CASES.update({
    "dce_scan_first_carry": "pe.dce_jaxpr(chain_jaxpr, [True, False, False, False, False])",
    "dce_scan_one_ys": "pe.dce_jaxpr(chain_jaxpr, [False, False, False, False, True])",
    "dce_scan_carry_and_ys": "pe.dce_jaxpr(chain_jaxpr, [False, True, False, True, False])",
    "dce_scan_nothing_used": "pe.dce_jaxpr(chain_jaxpr, [False] * 5)",
    "dce_fori_loop_counter": "pe.dce_jaxpr(fori_jaxpr, [True])",
})
