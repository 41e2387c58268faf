"""Control-flow programs whose JAX 0.11.0 behaviour is recorded in
control_flow.json (see programs_core.py for the format; record with
`record_core.py control_flow`): cond, switch, while_loop, fori_loop, scan,
map and associative_scan, their jaxprs (params printed as JAX prints them,
ft_in/ft_out included), grads, JVPs, vmaps, values and error messages."""

from programs_core import program_set

PROGRAMS, program = program_set()


# ---- the seed programs ----
program("seed_cond_abs", "jaxpr", """
def good(x): return lax.cond(x > 0, lambda v: v, lambda v: -v, x)
result = jax.make_jaxpr(good)(jnp.float32(1.0))
""")
program("seed_scan_1000", "jaxpr", """
def body(c, x): return c + x, c
result = jax.make_jaxpr(lambda c, xs: lax.scan(body, c, xs))(jnp.float32(0.), jnp.arange(1000, dtype=jnp.float32))
""")
program("seed_vmap_cond_select", "jaxpr", """
f = lambda x: lax.cond(x > 0, lambda v: v * 10, lambda v: v - 10, x)
result = jax.make_jaxpr(jax.vmap(f))(jnp.arange(4, dtype=jnp.float32))
""")
program("side_effects_both_branches_traced", "text", """
traced = []
def true_fun(x):
    traced.append('true'); return x + 1
def false_fun(x):
    traced.append('false'); return x - 1
jax.make_jaxpr(lambda x: lax.cond(x > 0, true_fun, false_fun, x))(1.0)
def body(c, x):
    traced.append('body'); return c + x, c
jax.make_jaxpr(lambda xs: lax.scan(body, jnp.float32(0), xs))(jnp.ones(1000))
result = str(traced)
""")

# ---- scan ----
program("scan_invariant_carry_becomes_const", "jaxpr", """
xs = jnp.arange(5, dtype=jnp.float32)
result = jax.make_jaxpr(lambda xs: lax.scan(lambda c, x: ((c[0] + x, c[1]), {'a': c[0]}), (0., 1.0), xs))(xs)
""")
program("scan_pytree_carry_forwarded_ys", "jaxpr", """
xs = jnp.arange(5, dtype=jnp.float32)
result = jax.make_jaxpr(lambda xs: lax.scan(lambda c, x: ((c[0] + x, c[1] * x), {'a': c[0], 'b': (x, x)}), (0., 1.0), xs))(xs)
""")
program("scan_closed_over_array_no_ys", "jaxpr", """
W = jnp.ones((3,))
result = jax.make_jaxpr(lambda xs: lax.scan(lambda c, x: (c * W + x, None), jnp.zeros(3), xs))(jnp.ones((4, 3)))
""")
program("scan_length_without_xs", "jaxpr", """
result = jax.make_jaxpr(lambda c: lax.scan(lambda c, x: (c * 2, c), c, None, length=3))(1.0)
""")
program("scan_reverse_unroll_true", "jaxpr", """
result = jax.make_jaxpr(lambda c, xs: lax.scan(lambda c, x: (c + x, c), c, xs, reverse=True, unroll=True))(1.0, jnp.ones(5))
""")
program("scan_long_body_printed_up_front", "jaxpr", """
def body(c, x):
    for _ in range(6): c = jnp.sin(c) + x
    return c, c
result = jax.make_jaxpr(lambda c, xs: lax.scan(body, c, xs))(1.0, jnp.ones(5))
""")
program("map_basic", "jaxpr", """
result = jax.make_jaxpr(lambda xs: lax.map(lambda x: x * 2, xs))(jnp.ones(5))
""")
program("map_batch_size_remainder", "jaxpr", """
result = jax.make_jaxpr(lambda xs: lax.map(lambda x: x * 2, xs, batch_size=2))(jnp.ones(5))
""")
program("associative_scan_add", "jaxpr", """
result = jax.make_jaxpr(lambda xs: lax.associative_scan(jnp.add, xs))(jnp.ones(5))
""")

# ---- fori_loop and while_loop ----
program("fori_loop_static_is_scan", "jaxpr", """
result = jax.make_jaxpr(lambda c: lax.fori_loop(0, 4, lambda i, c: c * 2, c))(1.0)
""")
program("fori_loop_traced_is_while", "jaxpr", """
result = jax.make_jaxpr(lambda c, n: lax.fori_loop(0, n, lambda i, c: c * 2, c))(1.0, 4)
""")
program("fori_loop_weak_int_init_retraced", "jaxpr", """
result = jax.make_jaxpr(lambda: lax.fori_loop(0, 3, lambda i, c: c + 0.5, 0))()
""")
program("while_basic", "jaxpr", """
result = jax.make_jaxpr(lambda c: lax.while_loop(lambda c: c < 10, lambda c: c * 2, c))(1.0)
""")
program("while_closure_body_const", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.while_loop(lambda c: c < 3, lambda c: c + x, 0))(1.5)
""")

# ---- cond and switch ----
program("switch_three_branches_clamped", "jaxpr", """
result = jax.make_jaxpr(lambda i, x: lax.switch(i, [lambda x: x + 1, lambda x: x * 2, jnp.sin], x))(1, 1.0)
""")
program("cond_closed_over_array_shared", "jaxpr", """
W = jnp.ones((3,))
result = jax.make_jaxpr(lambda p, x: lax.cond(p, lambda x: x + W, lambda x: x * 2, x))(True, jnp.ones(3))
""")
program("cond_int_predicate", "jaxpr", """
result = jax.make_jaxpr(lambda p, x: lax.cond(p, lambda a, b: a * b, lambda a, b: a - b, x, x))(3, 1.0)
""")
program("cond_pytree_operand", "jaxpr", """
f = lambda p, x: lax.cond(p, lambda d: {'a': d['a'] + 1, 'b': d['b']}, lambda d: {'a': d['b'], 'b': d['a']}, {'a': x, 'b': x * 2})
result = jax.make_jaxpr(f)(True, 1.0)
""")

# ---- autodiff ----
program("grad_scan_residuals_stacked", "jaxpr", """
def f(c, xs):
    c, ys = lax.scan(lambda c, x: (jnp.sin(c) * x, c), c, xs)
    return c
result = jax.make_jaxpr(jax.grad(f))(1.0, jnp.arange(5, dtype=jnp.float32))
""")
program("grad_rnn_scan", "jaxpr", """
def g(W, h, xs):
    h, _ = lax.scan(lambda h, x: (jnp.tanh(W @ h + x), None), h, xs)
    return h.sum()
result = jax.make_jaxpr(jax.grad(g))(jnp.ones((3, 3)), jnp.ones(3), jnp.ones((4, 3)))
""")
program("grad_scan_hoists_loop_invariant_residuals", "jaxpr", """
W = jnp.ones((3, 3))
def g(W, h, xs):
    h, _ = lax.scan(lambda h, x: (jnp.tanh(W @ h + x) + jnp.cos(W).sum(), None), h, xs)
    return h.sum()
result = jax.make_jaxpr(jax.grad(g))(W, jnp.ones(3), jnp.ones((4, 3)))
""")
program("jvp_scan", "jaxpr", """
xs = jnp.arange(5, dtype=jnp.float32)
def f(c, xs):
    c, ys = lax.scan(lambda c, x: (jnp.sin(c) * x, c), c, xs)
    return c, ys
result = jax.make_jaxpr(lambda c, t: jax.jvp(f, (c, xs), (t, xs)))(1.0, 1.0)
""")
program("grad_fori_loop_static", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * x, x)))(2.0)
""")
program("jvp_fori_loop_static", "jaxpr", """
result = jax.make_jaxpr(lambda x, t: jax.jvp(lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, x), (x,), (t,)))(2.0, 1.0)
""")
program("jvp_while", "jaxpr", """
f = lambda x: lax.while_loop(lambda c: c < 10, lambda c: c * x, 1.0)
result = jax.make_jaxpr(lambda x, t: jax.jvp(f, (x,), (t,)))(2.0, 1.0)
""")
program("grad_cond_empty_residual_fillers", "jaxpr", """
g = lambda x: lax.cond(x > 0, lambda v: jnp.sin(v), lambda v: v * 3, x)
result = jax.make_jaxpr(jax.grad(g))(1.0)
""")
program("jvp_cond", "jaxpr", """
g = lambda x: lax.cond(x > 0, lambda v: jnp.sin(v), lambda v: v * 3, x)
result = jax.make_jaxpr(lambda x, t: jax.jvp(g, (x,), (t,)))(1.0, 1.0)
""")
program("grad_cond_two_operands", "jaxpr", """
f = lambda x, y: lax.cond(x > 0, lambda v, w: v * w, lambda v, w: v + w, x, y)
result = jax.make_jaxpr(jax.grad(f))(1.0, 2.0)
""")
program("grad_switch_three_branches", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.switch(1, [jnp.sin, jnp.cos, lambda x: x * x], x)))(1.0)
""")
program("grad_cond_pytree_output", "jaxpr", """
f = lambda x: lax.cond(x > 0, lambda v: (v, v * 2), lambda v: (v * 3, jnp.exp(v)), x)[1]
result = jax.make_jaxpr(jax.grad(f))(1.0)
""")
program("grad_cond_closed_over_matrix", "jaxpr", """
W = jnp.ones((2, 2))
f = lambda x: lax.cond(x.sum() > 0, lambda v: (W @ v).sum(), lambda v: v.sum(), x)
result = jax.make_jaxpr(jax.grad(f))(jnp.ones(2))
""")
program("jvp_of_jit_of_scan", "jaxpr", """
f = jax.jit(lambda x: lax.scan(lambda c, _: (jnp.sin(c), None), x, None, length=3)[0])
result = jax.make_jaxpr(lambda x, t: jax.jvp(f, (x,), (t,)))(1.0, 1.0)
""")

# ---- vmap ----
program("vmap_scan_batched_carry_and_xs", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda c, xs: lax.scan(lambda c, x: (c + x, c * x), c, xs)))(jnp.ones(3), jnp.ones((3, 5)))
""")
program("vmap_scan_unbatched_init", "jaxpr", """
f = jax.vmap(lambda c, xs: lax.scan(lambda c, x: (c + x, c * x), c, xs), in_axes=(None, 0))
result = jax.make_jaxpr(f)(1.0, jnp.ones((3, 5)))
""")
program("vmap_while_batched_predicate", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: lax.while_loop(lambda c: c < 10, lambda c: c * 2, x)))(jnp.arange(1., 4.))
""")
program("vmap_while_unbatched_predicate", "jaxpr", """
f = lambda x, y: lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * y), (0, x))
result = jax.make_jaxpr(jax.vmap(f, in_axes=(0, None)))(jnp.arange(1., 4.), 2.0)
""")
program("vmap_cond_unbatched_predicate", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda p, x: lax.cond(p, jnp.sin, jnp.cos, x), in_axes=(None, 0)))(True, jnp.ones(3))
""")
program("vmap_grad_cond", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(jax.grad(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x))))(jnp.ones(3))
""")

# ---- values ----
program("value_scan_ys", "value", """
result = lax.scan(lambda c, x: (c + x, c * x), 1.0, jnp.arange(4.))[1]
""")
program("value_jit_scan_carry", "value", """
result = jax.jit(lambda c, xs: lax.scan(lambda c, x: (c * 0.5 + x, c), c, xs))(1.0, jnp.arange(6.))[0]
""")
program("value_while_pytree", "value", """
result = jax.jit(lambda x: lax.while_loop(lambda c: c[0] < 10, lambda c: (c[0] + 1, c[1] * x), (0, 1.0)))(1.5)[1]
""")
program("value_fori_weak_int_init", "value", """
result = lax.fori_loop(0, 3, lambda i, c: c + 0.5, 0)
""")
program("value_vmap_while_lanes", "value", """
result = jax.vmap(lambda x: lax.while_loop(lambda c: c < 10, lambda c: c * 2, x))(jnp.arange(1., 4.))
""")
program("value_vmap_cond", "value", """
result = jax.vmap(lambda x: lax.cond(x > 0, lambda v: v * 10, lambda v: v - 10, x))(jnp.arange(-2., 2.))
""")
program("value_grad_rnn", "value", """
def g(W, h, xs):
    h, _ = lax.scan(lambda h, x: (jnp.tanh(W @ h + x), None), h, xs)
    return h.sum()
result = jax.grad(g)(jnp.eye(3) * 0.5, jnp.ones(3) * 0.1, jnp.arange(12.).reshape(4, 3) / 6 - 1)
""")
program("value_grad_cond", "value", """
result = jax.grad(lambda x: lax.cond(x > 0, lambda v: jnp.sin(v), lambda v: v * 3, x))(1.0)
""")
program("value_associative_scan", "value", """
result = lax.associative_scan(jnp.add, jnp.arange(7.))
""")
program("value_switch_clamped_jit", "value", """
result = jax.jit(lambda i, x: lax.switch(i, [lambda x: x + 1, lambda x: x * 2, lambda x: x * 3], x))(5, 1.0)
""")
program("value_map_batched", "value", """
result = lax.map(lambda x: (x * 2).sum(), jnp.arange(10.).reshape(5, 2), batch_size=2)
""")

# ---- errors ----
program("error_scan_carry_dtype", "error", """
result = lax.scan(lambda c, x: (c.astype(jnp.int32), x), jnp.float32(0.), jnp.arange(3.))
""")
program("error_scan_carry_shape_in_pytree", "error", """
result = lax.scan(lambda c, x: ({'a': c['a'], 'b': c['b'].astype(jnp.int32)}, x), {'a': 1., 'b': jnp.float32(0.)}, jnp.arange(3.))
""")
program("error_scan_carry_two_mismatches", "error", """
result = lax.scan(lambda c, x: ((c[0].astype(jnp.int32), jnp.ones(3)), x), (jnp.float32(0.), jnp.float32(1.)), jnp.arange(3.))
""")
program("error_while_carry_dtype", "error", """
result = lax.while_loop(lambda c: c < 3, lambda c: (c + 1.5).astype(jnp.int32).astype(jnp.float32), jnp.int32(0))
""")
program("error_while_cond_not_bool", "error", """
result = lax.while_loop(lambda c: c, lambda c: c, 1.0)
""")
program("error_while_cond_pytree", "error", """
result = lax.while_loop(lambda c: (c < 1, c < 2), lambda c: c, 1.0)
""")
program("error_cond_branch_types", "error", """
def true_fun(x): return x
def false_fun(x): return x.astype(jnp.int32)
result = lax.cond(True, true_fun, false_fun, 1.0)
""")
program("error_cond_branch_structures", "error", """
def true_fun(x): return x, x
def false_fun(x): return x
result = lax.cond(True, true_fun, false_fun, 1.0)
""")
program("error_switch_branch_shapes", "error", """
def b0(x): return x
def b1(x): return x * 2
def b2(x): return jnp.ones(3)
result = lax.switch(1, [b0, b1, b2], 1.0)
""")
program("error_scan_length_disagrees", "error", """
result = lax.scan(lambda c, x: (c, x), 0., jnp.arange(3.), length=4)
""")
program("error_scan_different_lengths", "error", """
result = lax.scan(lambda c, x: (c, x), 0., (jnp.arange(3.), jnp.arange(4.)))
""")
program("error_scan_no_length", "error", """
result = lax.scan(lambda c, x: (c, x), 0., None)
""")
program("error_scan_body_not_pair", "error", """
result = lax.scan(lambda c, x: c, 0., jnp.arange(3.))
""")
program("error_scan_traced_length", "error", """
result = jax.jit(lambda n: lax.scan(lambda c, x: (c, x), 0., None, length=n))(3)
""")
program("error_grad_while", "error", """
result = jax.grad(lambda x: lax.while_loop(lambda c: c < 3, lambda c: c * 2, x))(1.0)
""")
program("error_grad_fori_traced_bounds", "error", """
result = jax.jit(jax.grad(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 2, x)))(1.0, 3)
""")
program("error_cond_pred_not_scalar", "error", """
result = lax.cond(jnp.ones(2) > 0, lambda x: x, lambda x: x, 1.0)
""")
program("error_switch_float_index", "error", """
result = lax.switch(1.0, [lambda x: x], 1.0)
""")
program("error_switch_index_not_scalar", "error", """
result = lax.switch(jnp.ones(2, jnp.int32), [lambda x: x], 1.0)
""")
program("error_fori_mixed_index_dtypes", "error", """
result = lax.fori_loop(jnp.int8(0), jnp.int16(3), lambda i, c: c + i, 0.0)
""")
program("error_fori_unroll_traced_bounds", "error", """
result = jax.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c + i, 0.0, unroll=2))(3)
""")
program("error_scan_negative_unroll", "error", """
result = lax.scan(lambda c, x: (c, x), 0., jnp.arange(3.), unroll=-1)
""")

# --- issue 7: scan under grad (custom_jvp in the known body, weak carries)

program("grad_scan_custom_jvp_known_body", "jaxpr", """
@jax.custom_jvp
def f(x):
  return jnp.sin(x)
f.defjvp(lambda p, t: (f(p[0]), 2.0 * t[0]))
result = jax.make_jaxpr(jax.grad(lambda x: lax.scan(lambda c, _: (f(c) * c, None), x, None, length=2)[0]))(1.)
""")
program("grad_scan_relu_known_body", "jaxpr", """
def body(c, _):
  return jax.nn.relu(c) * 2.0 + jnp.sin(c), c
result = jax.make_jaxpr(jax.grad(lambda x: lax.scan(body, x, None, length=3)[0]))(1.)
""")
program("grad_scan_weak_carry_strong_xs_jaxpr", "jaxpr", """
f = lambda x: lax.scan(lambda c, y: (c * y, None), x, jnp.arange(1., 3.))[0]
result = jax.make_jaxpr(jax.grad(f))(1.)
""")
program("value_grad_scan_weak_carry_strong_xs", "value", """
result = jax.grad(lambda x: lax.scan(lambda c, y: (c * y, None), x, jnp.arange(1., 3.))[0])(1.)
""")
program("value_grad_scan_weak_carry_stays_weak", "value", """
result = jax.grad(lambda x: lax.scan(lambda c, _: (c * 2.0, None), x, None, length=2)[0])(1.)
""")
program("value_grad_fori_relu", "value", """
result = jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: jax.nn.relu(c) + c, x))(1.)
""")
