"""custom_jvp / custom_vjp programs whose JAX 0.11.0 behaviour is recorded in
custom_derivatives.json: the staged equations (custom_jvp_call,
custom_vjp_call, custom_lin) under make_jaxpr, jit, grad, vmap and their
compositions, values and gradients, and the errors for malformed rules
(record with `record_core.py custom_derivatives`)."""

from programs_core import program_set

PROGRAMS, program = program_set()

# Shared definitions, pasted at the top of the programs that use them.
SIN_MUL_JVP = """
@jax.custom_jvp
def g(x, y):
  return jnp.sin(x) * y
@g.defjvp
def g_jvp(primals, tangents):
  x, y = primals
  tx, ty = tangents
  return g(x, y), jnp.cos(x) * tx * y + jnp.sin(x) * ty
"""
SIN_MUL_VJP = """
@jax.custom_vjp
def f(x, y):
  return jnp.sin(x) * y
def f_fwd(x, y):
  return f(x, y), (jnp.cos(x), jnp.sin(x), y)
def f_bwd(res, g):
  cos_x, sin_x, y = res
  return (cos_x * g * y, sin_x * g)
f.defvjp(f_fwd, f_bwd)
"""
CLIP_GRAD = """
@jax.custom_vjp
def clip_gradient(x):
  return x
def clip_fwd(x):
  return x, None
def clip_bwd(_, g):
  return (jnp.clip(g, -0.5, 0.5),)
clip_gradient.defvjp(clip_fwd, clip_bwd)
"""

# --- custom_jvp
program("jvp_call_staged", "jaxpr", SIN_MUL_JVP + """
result = jax.make_jaxpr(g)(1.0, 2.0)
""")
program("jvp_call_under_jit", "jaxpr", SIN_MUL_JVP + """
result = jax.make_jaxpr(jax.jit(g))(jnp.ones(3), jnp.ones(3))
""")
program("jvp_forward", "jaxpr", SIN_MUL_JVP + """
result = jax.make_jaxpr(lambda x, y: jax.jvp(g, (x, y), (x, y)))(1.0, 2.0)
""")
program("jvp_grad", "jaxpr", SIN_MUL_JVP + """
result = jax.make_jaxpr(jax.grad(g))(1.0, 2.0)
""")
program("jvp_grad_of_jit", "jaxpr", SIN_MUL_JVP + """
result = jax.make_jaxpr(jax.grad(jax.jit(g)))(1.0, 2.0)
""")
program("jvp_vmap_keeps_call", "jaxpr", SIN_MUL_JVP + """
result = jax.make_jaxpr(jax.vmap(g))(jnp.ones(3), jnp.ones(3))
""")
program("jvp_grad_of_vmap_uses_rule", "jaxpr", SIN_MUL_JVP + """
result = jax.make_jaxpr(jax.grad(lambda a: jax.vmap(g)(a, a).sum()))(jnp.ones(3))
""")
program("jvp_vmap_of_grad", "jaxpr", SIN_MUL_JVP + """
result = jax.make_jaxpr(jax.vmap(jax.grad(g)))(jnp.ones(3), jnp.ones(3))
""")
program("jvp_vmap_in_axes", "jaxpr", SIN_MUL_JVP + """
result = jax.make_jaxpr(jax.vmap(g, in_axes=(1, None)))(jnp.ones((2, 3)), 2.0)
""")
program("jvp_nondiff_argnums", "jaxpr", """
from functools import partial
@partial(jax.custom_jvp, nondiff_argnums=(0,))
def power(n, x):
  return x ** n
@power.defjvp
def power_jvp(n, primals, tangents):
  x, = primals
  t, = tangents
  return power(n, x), n * x ** (n - 1) * t
result = jax.make_jaxpr(jax.grad(lambda x: power(3, x)))(2.0)
""")
program("jvp_nondiff_callable_value", "value", """
from functools import partial
@partial(jax.custom_jvp, nondiff_argnums=(0,))
def app(fn, x):
  return fn(x)
@app.defjvp
def app_jvp(fn, primals, tangents):
  x, = primals
  t, = tangents
  return app(fn, x), 10.0 * t
result = jax.grad(lambda x: app(jnp.sin, x))(1.0)
""")
program("jvp_defjvps", "jaxpr", """
@jax.custom_jvp
def k(x, y):
  return x * y
k.defjvps(lambda t, ans, x, y: t * y, lambda t, ans, x, y: x * t)
result = jax.make_jaxpr(lambda x, y: jax.jvp(k, (x, y), (x, y)))(1.0, 2.0)
""")
program("jvp_kwargs_and_default", "jaxpr", """
@jax.custom_jvp
def kw(x, y=3.0):
  return x * y
kw.defjvp(lambda p, t: (kw(*p), t[0] * p[1]))
result = jax.make_jaxpr(lambda x: kw(x) + kw(x, y=x))(1.0)
""")
program("jvp_symbolic_zeros", "jaxpr", """
from functools import partial
@jax.custom_jvp
def sz(x, y):
  return x * y
@partial(sz.defjvp, symbolic_zeros=True)
def sz_jvp(p, t):
  x, y = p
  tx, ty = t
  assert type(ty).__name__ == "SymbolicZero"
  return sz(x, y), tx * y
result = jax.make_jaxpr(jax.grad(sz))(1.0, 2.0)
""")
program("jvp_closed_over_array", "jaxpr", """
c = jnp.arange(3.0)
@jax.custom_jvp
def scale(x):
  return x * c
scale.defjvp(lambda p, t: (scale(*p), t[0] * c))
result = jax.make_jaxpr(scale)(jnp.ones(3))
""")
program("jvp_closed_over_tracer", "jaxpr", """
def outer(z):
  @jax.custom_jvp
  def h(x):
    return x * z
  h.defjvp(lambda p, t: (h(*p), t[0] * z))
  return h(z)
result = jax.make_jaxpr(outer)(1.0)
""")
program("jvp_pytree_io", "jaxpr", """
@jax.custom_jvp
def tr(d):
  return {"s": jnp.sin(d["a"]), "p": d["a"] * d["b"]}
@tr.defjvp
def tr_jvp(p, t):
  d, = p
  td, = t
  return tr(d), {"s": jnp.cos(d["a"]) * td["a"], "p": td["a"] * d["b"] + d["a"] * td["b"]}
result = jax.make_jaxpr(jax.grad(lambda a, b: sum(tr({"a": a, "b": b}).values())))(1.0, 2.0)
""")
program("jvp_values_grad", "value", SIN_MUL_JVP + """
result = jnp.stack([jax.grad(g)(1.0, 2.0), jax.jit(jax.grad(g, 1))(1.0, 2.0), g(1.0, 2.0)])
""")
program("jvp_error_not_pair", "error", """
@jax.custom_jvp
def h(x): return jnp.sin(x)
h.defjvp(lambda p, t: (1, 2, 3))
result = jax.jvp(h, (1.0,), (1.0,))
""")
program("jvp_error_tree_mismatch", "error", """
@jax.custom_jvp
def h(x): return jnp.sin(x)
h.defjvp(lambda p, t: (h(p[0]), (t[0],)))
result = jax.jvp(h, (1.0,), (1.0,))
""")
program("jvp_error_tangent_shape", "error", """
@jax.custom_jvp
def h(x): return jnp.sin(x)
h.defjvp(lambda p, t: (h(p[0]), jnp.ones(3)))
result = jax.jvp(h, (1.0,), (1.0,))
""")
program("jvp_error_tangent_dtype", "error", """
@jax.custom_jvp
def h(x): return jnp.sin(x)
h.defjvp(lambda p, t: (h(p[0]), jnp.zeros((), jnp.float16)))
result = jax.jvp(h, (1.0,), (1.0,))
""")
program("jvp_error_no_rule", "error", """
@jax.custom_jvp
def h(x): return jnp.sin(x)
result = h(1.0)
""")
program("jvp_error_unresolved_kwarg", "error", """
def v(*args, **kwargs): return args[0]
v = jax.custom_jvp(v)
v.defjvp(lambda p, t: (p[0], t[0]))
result = v(1.0, z=2.0)
""")

# --- custom_vjp
program("vjp_call_staged", "jaxpr", SIN_MUL_VJP + """
result = jax.make_jaxpr(f)(1.0, 2.0)
""")
program("vjp_call_under_jit", "jaxpr", SIN_MUL_VJP + """
result = jax.make_jaxpr(jax.jit(f))(1.0, 2.0)
""")
program("vjp_grad", "jaxpr", SIN_MUL_VJP + """
result = jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(1.0, 2.0)
""")
program("vjp_linearize_custom_lin", "jaxpr", SIN_MUL_VJP + """
result = jax.make_jaxpr(lambda x, y: jax.linearize(f, x, y)[1](1.0, 1.0))(1.0, 2.0)
""")
program("vjp_jvp_staged_custom_lin", "jaxpr", SIN_MUL_VJP + """
result = jax.make_jaxpr(lambda x, y: jax.jvp(f, (x, y), (x, y)))(1.0, 2.0)
""")
program("vjp_vmap_keeps_call", "jaxpr", SIN_MUL_VJP + """
result = jax.make_jaxpr(jax.vmap(f))(jnp.ones(3), jnp.ones(3))
""")
program("vjp_vmap_of_grad", "jaxpr", SIN_MUL_VJP + """
result = jax.make_jaxpr(jax.vmap(jax.grad(f)))(jnp.ones(3), jnp.ones(3))
""")
program("vjp_grad_of_vmap", "jaxpr", SIN_MUL_VJP + """
result = jax.make_jaxpr(jax.grad(lambda x: jax.vmap(f, in_axes=(0, None))(x, 2.0).sum()))(jnp.ones(3))
""")
program("vjp_vmap_in_axes", "jaxpr", SIN_MUL_VJP + """
result = jax.make_jaxpr(jax.vmap(f, in_axes=(1, None)))(jnp.ones((2, 3)), 2.0)
""")
program("vjp_grad_of_vmap_in_axes", "jaxpr", SIN_MUL_VJP + """
result = jax.make_jaxpr(jax.grad(lambda x: jax.vmap(f, in_axes=(1, 0))(x, x.T).sum()))(jnp.ones((2, 3)))
""")
program("vjp_grad_of_jit", "jaxpr", SIN_MUL_VJP + """
result = jax.make_jaxpr(jax.grad(jax.jit(f)))(1.0, 2.0)
""")
program("vjp_clip_gradient", "jaxpr", CLIP_GRAD + """
result = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(clip_gradient(x) * 3.0)))(jnp.ones(3))
""")
program("vjp_clip_gradient_value", "value", CLIP_GRAD + """
result = jax.grad(lambda x: jnp.sum(clip_gradient(x) * 3.0))(jnp.array([1.0, -2.0, 0.25]))
""")
program("vjp_nondiff_argnums", "jaxpr", """
from functools import partial
@partial(jax.custom_vjp, nondiff_argnums=(0,))
def app(fn, x):
  return fn(x)
def app_fwd(fn, x):
  return fn(x), x
def app_bwd(fn, x, g):
  return (fn(x) * g,)
app.defvjp(app_fwd, app_bwd)
result = jax.make_jaxpr(jax.grad(lambda x: app(jnp.cos, x)))(1.0)
""")
program("vjp_pytree_io_and_residuals", "jaxpr", """
@jax.custom_vjp
def tr(d, s):
  return {"out": d["a"] * s, "aux": d["b"]}
def tr_fwd(d, s):
  return tr(d, s), {"r": (d["a"], s)}
def tr_bwd(res, g):
  a, s = res["r"]
  return ({"a": g["out"] * s, "b": g["aux"]}, g["out"] * a)
tr.defvjp(tr_fwd, tr_bwd)
def loss(a, b, s):
  o = tr({"a": a, "b": b}, s)
  return o["out"] + 2.0 * o["aux"]
result = jax.make_jaxpr(jax.grad(loss, argnums=(0, 1, 2)))(1.0, 2.0, 3.0)
""")
program("vjp_bwd_none", "jaxpr", """
@jax.custom_vjp
def m(x, y):
  return x * y
m.defvjp(lambda x, y: (m(x, y), x), lambda x, g: (None, g * x))
result = jax.make_jaxpr(jax.grad(m, argnums=(0, 1)))(1.0, 2.0)
""")
program("vjp_grad_of_grad", "jaxpr", """
@jax.custom_vjp
def s(x):
  return jnp.sin(x)
s.defvjp(lambda x: (s(x), jnp.cos(x)), lambda c, g: (c * g,))
result = jax.make_jaxpr(jax.grad(jax.grad(s)))(1.0)
""")
program("vjp_grad_of_grad_value", "value", """
@jax.custom_vjp
def s(x):
  return jnp.sin(x)
s.defvjp(lambda x: (s(x), jnp.cos(x)), lambda c, g: (3.0 * c * g,))
result = jnp.stack([jax.grad(s)(0.5), jax.grad(jax.grad(s))(0.5)])
""")
program("vjp_values", "value", SIN_MUL_VJP + """
gx, gy = jax.grad(f, argnums=(0, 1))(1.0, 2.0)
vx = jax.vmap(jax.grad(f))(jnp.arange(3.0), jnp.ones(3))
result = jnp.concatenate([jnp.stack([f(1.0, 2.0), jax.jit(f)(1.0, 2.0), gx, gy]), vx])
""")
program("vjp_vmap_grad_unbatched_input_value", "value", SIN_MUL_VJP + """
result = jax.vmap(jax.grad(f, argnums=1), in_axes=(0, None))(jnp.arange(3.0), 2.0)
""")
program("vjp_symbolic_zeros", "value", """
from functools import partial
@jax.custom_vjp
def m(x, y):
  return x * y, x + y
def m_fwd(x, y):
  assert type(x).__name__ == "CustomVJPPrimal"
  return m(x.value, y.value), (x.value, y.value, x.perturbed, y.perturbed)
def m_bwd(res, g):
  x, y, px, py = res
  g1, g2 = g
  assert type(g2).__name__ == "SymbolicZero"
  return (g1 * y, g1 * x)
m.defvjp(m_fwd, m_bwd, symbolic_zeros=True)
result = jax.grad(lambda x, y: m(x, y)[0])(3.0, 4.0)
""")
program("vjp_error_forward_mode", "error", SIN_MUL_VJP + """
result = jax.jvp(f, (1.0, 2.0), (1.0, 1.0))
""")
program("vjp_error_forward_mode_jit", "error", SIN_MUL_VJP + """
result = jax.jit(lambda x, y: jax.jvp(f, (x, y), (x, y)))(1.0, 2.0)
""")
program("vjp_error_no_rule", "error", """
@jax.custom_vjp
def h(x): return x
result = jax.make_jaxpr(h)(1.0)
""")
program("vjp_error_bwd_structure", "error", """
@jax.custom_vjp
def m(x, y): return x * y
m.defvjp(lambda x, y: (m(x, y), (x, y)), lambda r, g: (g * r[1],))
result = jax.grad(m)(1.0, 2.0)
""")
program("vjp_error_bwd_not_tuple", "error", """
@jax.custom_vjp
def m(x, y): return x * y
m.defvjp(lambda x, y: (m(x, y), (x, y)), lambda r, g: g * r[1])
result = jax.grad(m)(1.0, 2.0)
""")
program("vjp_error_bwd_shape", "error", """
@jax.custom_vjp
def m(x, y): return x * y
m.defvjp(lambda x, y: (m(x, y), (x, y)), lambda r, g: (jnp.ones(3), g))
result = jax.grad(m)(1.0, 2.0)
""")
program("vjp_error_fwd_not_pair", "error", """
@jax.custom_vjp
def m(x, y): return x * y
m.defvjp(lambda x, y: m(x, y), lambda r, g: (g, g))
result = jax.grad(m)(1.0, 2.0)
""")
program("vjp_error_nondiff_tracer", "error", """
from functools import partial
@partial(jax.custom_vjp, nondiff_argnums=(1,))
def h(x, n):
  return x * n
h.defvjp(lambda x, n: (h(x, n), None), lambda n, r, g: (g * n,))
result = jax.grad(lambda x: h(x, x))(2.0)
""")

# --- inside control flow and jit-of-vmap under grad
program("both_in_cond_under_grad", "jaxpr", SIN_MUL_VJP + SIN_MUL_JVP + """
result = jax.make_jaxpr(jax.grad(lambda x: lax.cond(x > 0, lambda x: f(x, 2.0), lambda x: g(x, 3.0), x)))(1.0)
""")
program("vjp_grad_of_jit_of_vmap", "jaxpr", SIN_MUL_VJP + """
result = jax.make_jaxpr(jax.grad(lambda x: jax.jit(jax.vmap(lambda x: f(x, 2.0)))(x).sum()))(jnp.ones(3))
""")
program("jvp_grad_of_grad", "jaxpr", SIN_MUL_JVP + """
result = jax.make_jaxpr(jax.grad(jax.grad(g)))(1.0, 2.0)
""")
program("both_in_scan_grad_value", "value", SIN_MUL_VJP + SIN_MUL_JVP + """
def scanned(x):
  def body(c, a):
    return f(c, a) + g(c, a), c
  return lax.scan(body, x, jnp.arange(3.0))[0]
result = jax.grad(scanned)(jnp.float32(1.0))
""")
