"""Autodiff of sort, top_k and approx_top_k, recorded from JAX 0.11.0 into
``sorting_ad.json``: sort carries an iota to learn its permutation and
gathers the tangents with it; top_k gathers at its indices; approx_top_k
uses jnp.take_along_axis (a jit); the transposes are scatter-adds. Same
format and runner as ``programs_core.py``; record with

    /tmp/jax-ref/bin/python tests/golden/record_core.py sorting_ad
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


# ---- sort ----

program("grad_sort_vector", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(lax.sort(x) * jnp.arange(4.0))))(jnp.ones(4))
""")

program("grad_sort_axis0_batching_dims", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(lax.sort(x, dimension=0) * 2)))(jnp.ones((3, 4)))
""")

program("jvp_sort_two_operands", "jaxpr", """
f = lambda k, v: lax.sort((k, v), num_keys=1)
result = jax.make_jaxpr(lambda k, v: jax.jvp(f, (k, v), (k, v)))(jnp.ones((3, 4)), jnp.ones((3, 4)))
""")

program("jvp_sort_two_keys_rank3", "jaxpr", """
f = lambda k1, k2: lax.sort((k1, k2), dimension=1, num_keys=2)
result = jax.make_jaxpr(lambda k1, k2: jax.jvp(f, (k1, k2), (k1, k2)))(jnp.ones((2, 3, 4)), jnp.ones((2, 3, 4)))
""")

program("grad_sort_key_val_int_keys", "jaxpr", """
f = lambda k, v: jnp.sum(lax.sort_key_val(k, v)[1] ** 2)
result = jax.make_jaxpr(jax.grad(f, 1))(jnp.ones(4, jnp.int32), jnp.ones(4))
""")

program("linearize_sort", "jaxpr", """
def f(x, t):
  y, f_jvp = jax.linearize(lax.sort, x)
  return y, f_jvp(t)
result = jax.make_jaxpr(f)(jnp.ones(3), jnp.ones(3))
""")

program("value_grad_sort", "value", """
result = jax.grad(lambda x: jnp.sum(lax.sort(x) * jnp.arange(4.0)))(jnp.array([3.0, 1.0, 4.0, 2.0]))
""")

program("value_jvp_sort_key_val", "value", """
f = lambda k, v: lax.sort_key_val(k, v)[1]
result = jax.jvp(lambda v: f(jnp.array([2, 0, 1]), v), (jnp.ones(3),), (jnp.array([10.0, 20.0, 30.0]),))[1]
""")

# ---- top_k ----

program("jvp_top_k", "jaxpr", """
result = jax.make_jaxpr(lambda x: jax.jvp(lambda x: lax.top_k(x, 2)[0], (x,), (x,)))(jnp.ones((3, 4)))
""")

program("grad_top_k_axis0", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(lax.top_k(x, 2, axis=0)[0] ** 2)))(jnp.ones((3, 4)))
""")

program("grad_top_k_vector", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(lax.top_k(x, 3)[0])))(jnp.ones(5))
""")

program("value_grad_top_k", "value", """
result = jax.grad(lambda x: jnp.sum(lax.top_k(x, 2)[0] * jnp.array([1.0, 10.0])))(jnp.array([0.5, 3.0, -1.0, 2.0]))
""")

# ---- approx_top_k ----

program("jvp_approx_max_k", "jaxpr", """
result = jax.make_jaxpr(lambda x: jax.jvp(lambda x: lax.approx_max_k(x, 2)[0], (x,), (x,)))(jnp.ones((3, 4)))
""")

program("grad_approx_min_k_dimension0", "jaxpr", """
f = lambda x: jnp.sum(lax.approx_min_k(x, 2, reduction_dimension=0)[0] ** 2)
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((3, 4)))
""")

program("grad_approx_max_k_vector", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(lax.approx_max_k(x, 2)[0])))(jnp.ones(5))
""")

program("value_grad_approx_min_k", "value", """
f = lambda x: jnp.sum(lax.approx_min_k(x, 2)[0] * jnp.array([1.0, 10.0]))
result = jax.grad(f)(jnp.array([0.5, 3.0, -1.0, 2.0]))
""")
