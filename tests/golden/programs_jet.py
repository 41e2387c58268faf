"""jax.experimental.jet (Taylor-mode autodiff), recorded from JAX 0.11.0 in
``jet.json``: values of jet on elementwise, reduction, linear and bilinear
primitives at orders 1-4, both scalings, composition with jit, vmap, grad,
and nested jet, staged jaxprs, and the errors
(a primitive without a rule, ill-formed series).

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py jet

Each value program packs the primal output and its terms with
``pack(out) = jnp.stack([primal, *terms])``.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

# XLA's lgamma (a Lanczos sum) is an ulp or two off at integers, so JAX's
# `fact(k) = exp(lgamma(k + 1))` is k!(1 + ~2e-7) where pyjax's is exact, and
# XLA's sin/cos differ from NumPy's by an ulp: factorial-scaled terms agree to
# ~1e-6 relative, less after cancellation in a small term.
TOLERANCE = (1e-5, 1e-6)

_PRELUDE = """\
_jet_module = __import__(jax.__name__ + '.experimental.jet', fromlist=['jet'])
jet, jet2 = _jet_module.jet, _jet_module.jet2
def pack(out):
    primal, terms = out
    return jnp.stack([jnp.asarray(primal), *[jnp.asarray(t) for t in terms]])
x = jnp.array([0.3, 0.7, 1.2], dtype=jnp.float32)
y = jnp.array([1.5, -0.4, 0.9], dtype=jnp.float32)
ones = jnp.ones(3, jnp.float32)
s1, s2, s3, s4 = ones, 0.5 * ones, jnp.array([0.2, -0.1, 0.3]), jnp.array([-0.3, 0.25, 0.1])
"""


def jet_program(name: str, expect: str, body: str) -> None:
    program(name, expect, _PRELUDE + body.strip("\n") + "\n")


# -- elementwise, one argument (series of orders 1-4)
for _name, _fun, _order, _arg in [
        ("sin", "jnp.sin", 4, "x"), ("cos", "jnp.cos", 3, "x"), ("exp", "jnp.exp", 4, "x"),
        ("log", "jnp.log", 4, "x"), ("log1p", "jnp.log1p", 3, "x"), ("expm1", "jnp.expm1", 3, "x"),
        ("tanh", "jnp.tanh", 4, "x"), ("logistic", "lax.logistic", 3, "x"), ("sqrt", "jnp.sqrt", 4, "x"),
        ("rsqrt", "lax.rsqrt", 3, "x"), ("square", "jnp.square", 3, "y"), ("sinh", "jnp.sinh", 3, "y"),
        ("cosh", "jnp.cosh", 3, "y"), ("erf", "lax.erf", 3, "y"), ("erfc", "lax.erfc", 2, "y"),
        ("erf_inv", "lax.erf_inv", 4, "0.5 * y"), ("asinh", "jnp.arcsinh", 3, "y"),
        ("acosh", "jnp.arccosh", 3, "1. + x"), ("atanh", "jnp.arctanh", 3, "0.5 * y"),
        ("abs", "jnp.abs", 3, "y"), ("sign", "jnp.sign", 2, "y"), ("neg", "lax.neg", 2, "y"),
        ("floor", "jnp.floor", 2, "y"), ("cube", "lambda v: v ** 3", 4, "y"),
        ("inverse_square", "lambda v: v ** -2", 3, "y"), ("power_zero", "lambda v: lax.integer_pow(v, 0)", 2, "y"),
        ("sigmoid_of_sin", "lambda v: jax.nn.sigmoid(jnp.sin(v))", 4, "x")]:
    _series = ", ".join(f"s{k + 1}" for k in range(_order))
    jet_program(f"jet_{_name}_order{_order}", "value", f"result = pack(jet({_fun}, ({_arg},), (({_series},),)))")
jet_program("jet_order1_is_jvp", "value", """
a = pack(jet(lambda v: jnp.exp(jnp.sin(v)) / (1. + v * v), (x,), ((s3,),)))
b = jax.jvp(lambda v: jnp.exp(jnp.sin(v)) / (1. + v * v), (x,), (s3,))
result = jnp.stack([a[1], b[1]])
""")
# -- two arguments
for _name, _fun in [("mul", "lambda a, b: a * b"), ("div", "lambda a, b: a / b"), ("pow", "lambda a, b: a ** b"),
                    ("atan2", "jnp.arctan2"), ("max", "jnp.maximum"), ("min", "jnp.minimum"),
                    ("sub_add", "lambda a, b: (a - b) + 2. * a"), ("rem", "lambda a, b: lax.rem(a, b)")]:
    jet_program(f"jet_binary_{_name}", "value",
                f"result = pack(jet({_fun}, (x + 1., y + 2.), ((s1, s2, s3), (s4, s3, s2))))")
jet_program("jet_max_ties_average", "value", """
result = pack(jet(jnp.maximum, (x, x), ((s1, s2), (s3, s4))))
""")
# (JAX's min rule selects without broadcasting: a scalar bound fails)
jet_program("jet_clamp_scalar_bound", "error", "result = pack(jet(lambda v: jnp.clip(v, 0.5, 1.0), (x,), ((s1, s2, s3),)))")
jet_program("jet_where_select", "value", """
result = pack(jet(lambda v: jnp.where(v > 0.5, jnp.sin(v), v * v), (x,), ((s1, s2, s3),)))
""")
# -- reductions, linear algebra, shapes
jet_program("jet_reduce_sum", "value", "result = pack(jet(lambda v: jnp.sum(jnp.sin(v) * v), (x,), ((s1, s2, s3),)))")
jet_program("jet_reduce_max_ties", "value", """
v0 = jnp.array([1., 3., 3., 2.])
result = pack(jet(jnp.max, (v0,), ((jnp.array([1., 2., 4., 8.]), jnp.array([0.5, 1., -1., 3.])),)))
""")
jet_program("jet_reduce_min_axis", "value", """
m = jnp.array([[1., 3.], [0.5, 2.]])
result = pack(jet(lambda v: jnp.min(v, axis=1), (m,), ((jnp.ones((2, 2)), jnp.eye(2)),)))
""")
jet_program("jet_matmul_tanh", "value", """
W = jnp.array([[0.5, -1.0, 0.25], [2.0, 0.1, -0.3]])
result = pack(jet(lambda v: W @ jnp.tanh(v), (x,), ((s1, s2, s3, s4),)))
""")
jet_program("jet_dot_both_live", "value", """
result = pack(jet(jnp.dot, (x, y), ((s1, s2), (s3, s4))))
""")
jet_program("jet_shapes", "value", """
def f(v):
    m = jnp.reshape(jnp.concatenate([v, v * v]), (2, 3))
    return jnp.squeeze(jnp.transpose(m)[1:2, :], 0) + jnp.broadcast_to(v[0], (2,))
result = pack(jet(f, (x,), ((s1, s2, s3),)))
""")
jet_program("jet_gather_and_scatter_add", "value", """
f = lambda v: jnp.zeros(4).at[jnp.array([0, 2, 2])].add(jnp.exp(v)[jnp.array([2, 0, 1])])
result = pack(jet(f, (x,), ((s1, s2, s3),)))
""")
jet_program("jet_dynamic_slice", "value", """
f = lambda v: lax.dynamic_update_slice(v * v, lax.dynamic_slice(jnp.sin(v), (1,), (2,)), (0,))
result = pack(jet(f, (x,), ((s1, s2),)))
""")
jet_program("jet_cumsum_cumprod", "value", """
result = pack(jet(lambda v: jnp.cumsum(v * v) + jnp.cumprod(v), (x,), ((s1, s2, s3),)))
""")
jet_program("jet_cummax", "value", """
result = pack(jet(lambda v: lax.cummax(v), (jnp.array([1., 3., 2., 5.]),), ((jnp.arange(4.), jnp.ones(4)),)))
""")
jet_program("jet_convert_element_type", "value", """
result = pack(jet(lambda v: (v.astype(jnp.float16) * 2).astype(jnp.float32), (x,), ((s1, s2),)))
""")
# -- scaling, structure
jet_program("jet2_unscaled", "value", "result = pack(jet2(jnp.exp, (x,), ((s1, s2, s3),)))")
jet_program("jet_scalar_python_floats", "value", "result = pack(jet(jnp.sin, (0.5,), ((1.0, 0.0, 0.0),)))")
jet_program("jet_tuple_output", "text", """
out = jet(lambda v: (v, jnp.sin(v)), (x,), ((s1, s2),))
result = repr(jax.tree.map(lambda a: (a.shape, str(a.dtype), jax.typeof(a).weak_type), out))
""")
jet_program("jet_constant_output", "text", """
out = jet(lambda v: jnp.float32(3.), (x,), ((s1, s2),))
result = repr(jax.tree.map(lambda a: (a.tolist(), str(a.dtype)), out))
""")
jet_program("jet_two_args_one_live", "value", """
result = pack(jet(lambda a, b: a * jnp.sin(b), (x, y), ((s1, s2), (jnp.zeros(3), jnp.zeros(3)))))
""")
# -- composition
jet_program("jet_of_jit", "value", """
f = jax.jit(lambda v: jnp.exp(v) * jnp.cos(v))
result = pack(jet(f, (x,), ((s1, s2, s3),)))
""")
jet_program("jit_of_jet", "value", """
g = jax.jit(lambda v, t1, t2: jet(jnp.tanh, (v,), ((t1, t2),)))
result = pack(g(x, s1, s2))
""")
jet_program("jet_of_vmap", "value", """
f = jax.vmap(lambda v: jnp.sin(v) * v)
result = pack(jet(f, (x,), ((s1, s2, s3),)))
""")
jet_program("vmap_of_jet", "value", """
f = lambda v, t: jet(jnp.log, (v,), ((t, t),))
result = pack(jax.vmap(f)(x + 1., s3))
""")
jet_program("jet_of_grad", "value", """
f = jax.grad(lambda v: jnp.sin(v) * v * v)
result = pack(jet(f, (0.7,), ((1.0, 0.5, 0.0),)))
""")
jet_program("jvp_of_jet", "value", """
f = lambda v: jet(jnp.exp, (v,), ((1.0, 0.0),))[1][1]
result = jnp.stack(jax.jvp(f, (0.7,), (1.0,)))
""")
jet_program("jet_of_jet", "value", """
inner = lambda v: jet(jnp.sin, (v,), ((1.0,),))[1][0]
result = pack(jet(inner, (0.4,), ((1.0, 0.0),)))
""")
# -- staged
jet_program("jet_jaxpr_sin", "jaxpr", "result = jax.make_jaxpr(lambda v, t: jet(jnp.sin, (v,), ((t, t),)))(x, s1)")
jet_program("jet_jaxpr_jit_body", "jaxpr", """
f = jax.jit(lambda v: v * jnp.exp(v))
result = jax.make_jaxpr(lambda v, t: jet(f, (v,), ((t, t),)))(x, s1)
""")
jet_program("jet_jaxpr_unscaled_div", "jaxpr", """
result = jax.make_jaxpr(lambda a, b, t: jet2(lax.div, (a, b), ((t, t), (t, t))))(x, y, s1)
""")
# -- errors
jet_program("jet_missing_rule_tan", "error", "result = jet(jnp.tan, (x,), ((s1, s2),))")
jet_program("jet_missing_rule_cumlogsumexp", "error", "result = jet(lax.cumlogsumexp, (x,), ((s1,),))")
jet_program("jet_missing_rule_fori_loop_scan", "error", """
result = jet(lambda v: lax.fori_loop(0, 3, lambda i, c: c * v, v), (x,), ((s1,),))
""")
jet_program("jet_missing_rule_asin", "error", "result = jet(jnp.arcsin, (0.5 * x,), ((s1,),))")
jet_program("jet_inconsistent_lengths", "error", "result = jet(jnp.multiply, (x, y), ((s1,), (s1, s2)))")
jet_program("jet_primal_not_array", "error", "result = jet(lambda p: p[0], ((x, y),), ((s1,),))")
jet_program("jet_term_not_array", "error", "result = jet(jnp.sin, (x,), (((s1, s2),),))")
# (explicit zero terms are live: the rule is still needed)
jet_program("jet_missing_rule_zero_terms", "error", """
result = pack(jet(lambda a, b: jnp.tan(b) * a, (x, y), ((s1, s2), (jnp.zeros(3), jnp.zeros(3)))))
""")
