"""jax.checkpoint / jax.remat programs whose JAX 0.11.0 behaviour is recorded
in checkpoint.json: remat2 jaxprs (plain, under grad with each policy, jvp,
vmap, jit), checkpoint_name, print_saved_residuals output (stdout), values
and errors (see programs_core.py; record with `record_core.py checkpoint`)."""

from programs_core import program_set

# Programs reach jax.ad_checkpoint with __import__: the module is not an
# attribute of `jax` until imported, and the name `jax` is bound per run.

PROGRAMS, program = program_set()

program("make_jaxpr_checkpoint", "jaxpr", """
def f(x):
  return jnp.sin(jnp.sin(x)) * x
result = jax.make_jaxpr(jax.checkpoint(f))(1.0)
""")
program("grad_checkpoint_default_policy", "jaxpr", """
def f(x):
  return jnp.sin(jnp.sin(x)) * x
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f)))(1.0)
""")
program("grad_everything_saveable", "jaxpr", """
def f(x):
  return jnp.sin(jnp.sin(x)) * x
policy = jax.checkpoint_policies.everything_saveable
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f, policy=policy)))(1.0)
""")
program("grad_nothing_saveable_vector", "jaxpr", """
def f(x):
  return jnp.sum(jnp.tanh(jnp.exp(x)) * x)
policy = jax.checkpoint_policies.nothing_saveable
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f, policy=policy)))(jnp.ones(3))
""")
program("grad_dots_saveable", "jaxpr", """
def f(w, x):
  return jnp.sum(jnp.sin(jnp.dot(w, x)))
policy = jax.checkpoint_policies.dots_saveable
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f, policy=policy)))(jnp.ones((2, 3)), jnp.ones(3))
""")
program("grad_checkpoint_dots_alias", "jaxpr", """
def f(w, x):
  return jnp.sum(jnp.cos(w @ x))
policy = jax.checkpoint_policies.checkpoint_dots
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f, policy=policy), argnums=(0, 1)))(jnp.ones((2, 2)), jnp.ones((2, 2)))
""")
program("grad_dots_with_no_batch_dims_saveable", "jaxpr", """
def f(a, b):
  batched = jnp.einsum('bij,bjk->bik', a, b)
  plain = jnp.dot(a[0], b[0])
  return jnp.sum(jnp.sin(batched)) + jnp.sum(jnp.sin(plain))
policy = jax.checkpoint_policies.dots_with_no_batch_dims_saveable
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f, policy=policy)))(jnp.ones((2, 2, 2)), jnp.ones((2, 2, 2)))
""")
program("checkpoint_name_jaxpr", "jaxpr", """
ad = __import__(jax.__name__ + ".ad_checkpoint", fromlist=["checkpoint_name"])
def g(x):
  return jnp.sin(ad.checkpoint_name(jnp.sin(x), "y"))
result = jax.make_jaxpr(g)(1.0)
""")
program("grad_save_only_these_names", "jaxpr", """
ad = __import__(jax.__name__ + ".ad_checkpoint", fromlist=["checkpoint_name"])
def g(x):
  y = ad.checkpoint_name(jnp.sin(x), "y")
  z = ad.checkpoint_name(jnp.sin(y), "z")
  return jnp.sin(z)
policy = jax.checkpoint_policies.save_only_these_names("y")
result = jax.make_jaxpr(jax.grad(jax.checkpoint(g, policy=policy)))(1.0)
""")
program("grad_save_any_names_but_these", "jaxpr", """
ad = __import__(jax.__name__ + ".ad_checkpoint", fromlist=["checkpoint_name"])
def g(x):
  y = ad.checkpoint_name(jnp.sin(x), "y")
  z = ad.checkpoint_name(jnp.cos(y), "z")
  return jnp.sin(z) * jnp.exp(x)
policy = jax.checkpoint_policies.save_any_names_but_these("y")
result = jax.make_jaxpr(jax.grad(jax.checkpoint(g, policy=policy)))(1.0)
""")
program("grad_save_from_both_policies", "jaxpr", """
ad = __import__(jax.__name__ + ".ad_checkpoint", fromlist=["checkpoint_name"])
def g(w, x):
  y = ad.checkpoint_name(jnp.sin(x), "y")
  return jnp.sum(jnp.tanh(w @ y))
policy = jax.checkpoint_policies.save_from_both_policies(
    jax.checkpoint_policies.dots_saveable, jax.checkpoint_policies.save_only_these_names("y"))
result = jax.make_jaxpr(jax.grad(jax.checkpoint(g, policy=policy)))(jnp.ones((2, 2)), jnp.ones(2))
""")
program("jvp_of_checkpoint", "jaxpr", """
def f(x):
  return jnp.sin(jnp.sin(x)) * x
cf = jax.checkpoint(f)
result = jax.make_jaxpr(lambda x: jax.jvp(cf, (x,), (x,)))(1.0)
""")
program("vmap_of_checkpoint", "jaxpr", """
def f(x, y):
  return jnp.sin(x) * y
result = jax.make_jaxpr(jax.vmap(jax.checkpoint(f), in_axes=(0, None)))(jnp.ones((3, 2)), jnp.ones(2))
""")
program("grad_of_vmap_of_checkpoint", "jaxpr", """
def f(x):
  return jnp.sin(jnp.cos(x))
g = lambda x: jnp.sum(jax.vmap(jax.checkpoint(f))(x))
result = jax.make_jaxpr(jax.grad(g))(jnp.ones(3))
""")
program("grad_jit_inside_checkpoint", "jaxpr", """
@jax.jit
def inner(x):
  return jnp.sin(jnp.sin(x))
def f(x):
  return inner(x) * x
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f)))(1.0)
""")
program("grad_checkpoint_inside_jit", "jaxpr", """
cf = jax.checkpoint(lambda x: jnp.sin(jnp.cos(x)))
result = jax.make_jaxpr(jax.jit(jax.grad(cf)))(1.0)
""")
program("grad_grad_checkpoint", "jaxpr", """
cf = jax.checkpoint(lambda x: jnp.sin(x) * x)
result = jax.make_jaxpr(jax.grad(jax.grad(cf)))(1.0)
""")
program("grad_grad_checkpoint_value", "value", """
cf = jax.checkpoint(lambda x: jnp.sin(x) * jnp.exp(x))
result = jax.grad(jax.grad(cf))(0.7)
""")
program("checkpoint_static_argnums", "jaxpr", """
def f(x, n):
  for _ in range(n):
    x = jnp.sin(x)
  return x
result = jax.make_jaxpr(lambda x: jax.grad(jax.checkpoint(f, static_argnums=(1,)))(x, 2))(1.0)
""")
program("remat_alias_prevent_cse_false", "jaxpr", """
result = jax.make_jaxpr(jax.remat(lambda x: jnp.exp(jnp.exp(x)), prevent_cse=False))(1.0)
""")
program("checkpoint_closure_constant_pytree", "jaxpr", """
w = jnp.arange(3.0)
def f(p):
  return {"out": jnp.sin(p["a"]) * w + p["b"]}
result = jax.make_jaxpr(jax.grad(lambda p: jnp.sum(jax.checkpoint(f)(p)["out"])))({"a": jnp.ones(3), "b": 2.0})
""")
program("nested_checkpoint_grad", "jaxpr", """
inner = jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)))
outer = jax.checkpoint(lambda x: inner(x) * jnp.cos(x), policy=jax.checkpoint_policies.everything_saveable)
result = jax.make_jaxpr(jax.grad(outer))(1.0)
""")
program("checkpoint_value_and_grad", "value", """
def f(x):
  return jnp.sum(jnp.tanh(x) ** 2)
x = jnp.array([0.1, -0.5, 2.0])
a = jax.grad(jax.checkpoint(f))(x)
b = jax.jit(jax.grad(jax.checkpoint(f, policy=jax.checkpoint_policies.everything_saveable)))(x)
result = jnp.stack([a, b])
""")
program("print_saved_residuals_policies", "text", """
ad = __import__(jax.__name__ + ".ad_checkpoint", fromlist=["checkpoint_name"])
def f(x):
  y = ad.checkpoint_name(jnp.sin(x), "y")
  return jnp.sin(y) * x
ad.print_saved_residuals(f, 1.0)
print("--")
ad.print_saved_residuals(jax.checkpoint(f), 1.0)
print("--")
ad.print_saved_residuals(jax.checkpoint(f, policy=jax.checkpoint_policies.save_only_these_names("y")), 1.0)
print("--")
ad.print_saved_residuals(jax.checkpoint(f, policy=jax.checkpoint_policies.everything_saveable), 1.0)
result = "done"
""")
program("print_saved_residuals_dots", "text", """
ad = __import__(jax.__name__ + ".ad_checkpoint", fromlist=["checkpoint_name"])
def f(w, x):
  h = jnp.tanh(w @ x)
  return jnp.sum(jnp.sin(w @ h))
w, x = jnp.ones((4, 4)), jnp.ones(4)
ad.print_saved_residuals(f, w, x)
print("--")
ad.print_saved_residuals(jax.checkpoint(f, policy=jax.checkpoint_policies.dots_saveable), w, x)
print("--")
ad.print_saved_residuals(jax.checkpoint(f), w, x=x)
result = "done"
""")
program("offload_policy_value", "value", """
ad = __import__(jax.__name__ + ".ad_checkpoint", fromlist=["checkpoint_name"])
def f(x):
  y = ad.checkpoint_name(jnp.sin(x), "y")
  return jnp.sum(jnp.cos(y) * x)
policy = jax.checkpoint_policies.save_and_offload_only_these_names(
    names_which_can_be_saved=(), names_which_can_be_offloaded=("y",),
    offload_src="device", offload_dst="pinned_host")
result = jax.grad(jax.checkpoint(f, policy=policy))(jnp.arange(3.0))
""")
program("offload_policy_names_intersect_error", "error", """
jax.checkpoint_policies.save_and_offload_only_these_names(
    names_which_can_be_saved=("b",), names_which_can_be_offloaded=("b",),
    offload_src="device", offload_dst="pinned_host")
""")
program("static_argnums_out_of_range_error", "error", """
jax.checkpoint(lambda x: x, static_argnums=(3,))(1.0)
""")
program("static_argnums_bad_type_error", "error", """
jax.checkpoint(lambda x: x, static_argnums=[0])(1.0)
""")
program("concretization_error_hint", "error", """
def f(x, n):
  return x * 2 if n > 0 else x
jax.grad(jax.checkpoint(f))(1.0, 3.0)
""")
program("policy_bad_return_error", "error", """
jax.grad(jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)), policy=lambda *_, **__: "yes"))(1.0)
""")
program("grad_prevent_cse_tuple", "jaxpr", """
f = jax.checkpoint(lambda x, y: jnp.sin(x) * y, prevent_cse=(False, True))
result = jax.make_jaxpr(jax.grad(f))(0.5, 2.0)
""")
# A scan inside a checkpoint under grad: scan's partial_eval_custom rule
# splits it into a known closed_call and a staged scan.
_SCAN_F = """
def f(x):
  def body(c, a):
    return jnp.sin(c) * a, c * a
  return jax.lax.scan(body, 1.0, x)[0]
"""
program("grad_checkpoint_scan", "jaxpr", _SCAN_F + """
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f)))(jnp.arange(3.0))
""")
program("grad_jit_checkpoint_scan", "jaxpr", _SCAN_F + """
result = jax.make_jaxpr(jax.grad(jax.jit(jax.checkpoint(f))))(jnp.arange(3.0))
""")
program("grad_checkpoint_scan_nothing_saveable", "jaxpr", _SCAN_F + """
policy = jax.checkpoint_policies.nothing_saveable
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f, policy=policy)))(jnp.arange(3.0))
""")
program("grad_checkpoint_scan_everything_saveable", "jaxpr", _SCAN_F + """
policy = jax.checkpoint_policies.everything_saveable
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f, policy=policy)))(jnp.arange(3.0))
""")
program("grad_checkpoint_scan_const_everything_saveable", "jaxpr", """
def f(x, y):
  def body(c, a):
    return jnp.sin(c) * a * y, c * a
  return jax.lax.scan(body, 1.0, x)[0]
policy = jax.checkpoint_policies.everything_saveable
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f, policy=policy), argnums=(0, 1)))(jnp.arange(3.0), 2.0)
""")
program("grad_checkpoint_scan_ys", "jaxpr", """
def f(x):
  def body(c, a):
    return jnp.sin(c) * a, c * a
  return jax.lax.scan(body, 1.0, x)[1].sum()
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f)))(jnp.arange(3.0))
""")
program("grad_checkpoint_fori_loop", "jaxpr", """
def f(x):
  return jax.lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * x, x)
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f)))(2.0)
""")
program("grad_checkpoint_scan_value", "value", _SCAN_F + """
result = jax.grad(jax.checkpoint(f))(jnp.arange(3.0))
""")
# A cond inside a checkpoint under grad: cond's partial_eval_custom rule
# splits it into a known cond returning residuals and a staged cond.
program("grad_checkpoint_cond", "jaxpr", """
def f(x):
  return jax.lax.cond(x > 0, jnp.sin, jnp.cos, x)
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f)))(2.0)
""")
_COND_F = """
def f(x, y):
  return jax.lax.cond(x > 0, lambda a, b: jnp.sin(a) * b, lambda a, b: jnp.cos(jnp.exp(a)) + b, x, y)
policy = jax.checkpoint_policies.everything_saveable
"""
program("grad_checkpoint_cond_everything_saveable", "jaxpr", _COND_F + """
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f, policy=policy)))(2.0, 3.0)
""")
program("grad_jit_checkpoint_cond_everything_saveable", "jaxpr", _COND_F + """
result = jax.make_jaxpr(jax.grad(jax.jit(jax.checkpoint(f, policy=policy)), argnums=(0, 1)))(2.0, 3.0)
""")
program("grad_checkpoint_scan_of_cond", "jaxpr", """
def f(x):
  def body(c, a):
    return jax.lax.cond(a > 1, jnp.sin, jnp.cos, c) * a, c
  return jax.lax.scan(body, 1.0, x)[0]
policy = jax.checkpoint_policies.everything_saveable
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f, policy=policy)))(jnp.arange(3.0))
""")
# A while inside a checkpoint under grad: its known carries run in a loop of
# their own and the staged part recomputes the whole loop.
_WHILE_F = """
def f(x, n):
  y = jax.lax.fori_loop(0, n, lambda i, c: c * jax.lax.stop_gradient(x) + 1.0, 0.5)
  return jnp.sin(x) * y
"""
program("grad_checkpoint_while_everything_saveable", "jaxpr", _WHILE_F + """
policy = jax.checkpoint_policies.everything_saveable
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f, policy=policy)))(2.0, 3)
""")
program("grad_checkpoint_while", "jaxpr", _WHILE_F + """
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f)))(2.0, 3)
""")
program("grad_checkpoint_jit_scan", "jaxpr", _SCAN_F + """
result = jax.make_jaxpr(jax.grad(jax.checkpoint(jax.jit(f))))(jnp.arange(3.0))
""")
program("grad_checkpoint_jit_scan_ys", "jaxpr", """
def f(x):
  def body(c, a):
    return jnp.sin(c) * a, c * a
  return jax.lax.scan(body, 1.0, x)[1].sum()
result = jax.make_jaxpr(jax.grad(jax.checkpoint(jax.jit(f))))(jnp.arange(3.0))
""")
program("vmap_grad_checkpoint_scan", "jaxpr", _SCAN_F + """
result = jax.make_jaxpr(jax.vmap(jax.grad(jax.checkpoint(f))))(jnp.ones((2, 3)))
""")
program("grad_checkpoint_scan_dots_saveable", "jaxpr", """
def f(x, w):
  def body(c, a):
    return jnp.tanh(c @ w) * a, jnp.sum(c) * a
  return jax.lax.scan(body, jnp.ones(2), x)[0].sum()
policy = jax.checkpoint_policies.dots_saveable
result = jax.make_jaxpr(jax.grad(jax.checkpoint(f, policy=policy), argnums=(0, 1)))(jnp.arange(3.0), jnp.eye(2))
""")
