"""Autodiff of gather and the scatters, recorded from JAX 0.11.0 into
``gather_ad.json``: gradient and JVP jaxprs (gather's transpose is a
scatter-add; scatter-add/-sub transpose to gathers; scatter-mul, scatter-min/
-max and scatter (with its id trick for repeated indices) as JAX writes
them), a few values and JAX's refusals. Same format and runner as
``programs_core.py``; record with

    /tmp/jax-ref/bin/python tests/golden/record_core.py gather_ad
"""

from __future__ import annotations

import textwrap

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


_POINT = """
idx = jnp.array([[0], [2], [2]])
dn = lax.ScatterDimensionNumbers((), (0,), (0,))
"""


def scatter_program(name: str, expect: str, body: str) -> None:
  program(name, expect, _POINT + textwrap.dedent(body))


# ---- gather ----

program("grad_gather_repeated", "jaxpr", """
idx = jnp.array([[0], [2], [2]])
dn = lax.GatherDimensionNumbers((), (0,), (0,))
result = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(lax.gather(x, idx, dn, (1,)) ** 2)))(jnp.ones(4))
""")

program("jvp_gather_fill_mode", "jaxpr", """
idx = jnp.array([[0], [2], [5]])
dn = lax.GatherDimensionNumbers((), (0,), (0,))
f = lambda x: lax.gather(x, idx, dn, (1,), mode='fill')
result = jax.make_jaxpr(lambda x: jax.jvp(f, (x,), (x,)))(jnp.ones(4))
""")

program("grad_gather_fill_mode", "jaxpr", """
idx = jnp.array([[0], [2], [5]])
dn = lax.GatherDimensionNumbers((), (0,), (0,))
result = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(lax.gather(x, idx, dn, (1,), mode='fill'))))(jnp.ones(4))
""")

program("grad_gather_clip_windows", "jaxpr", """
idx = jnp.array([[1, 0], [3, 2]])
dn = lax.GatherDimensionNumbers((1, 2), (), (0, 1))
f = lambda m: jnp.sum(jnp.sin(lax.gather(m, idx, dn, (2, 2), mode='clip')))
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((4, 5)))
""")

program("grad_gather_batching_dims", "jaxpr", """
idx = jnp.array([[4], [0], [1], [1]])
dn = lax.GatherDimensionNumbers((), (1,), (1,), (0,), (0,))
f = lambda m: jnp.sum(lax.gather(m, idx, dn, (1, 1)) ** 2)
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((4, 5)))
""")

program("vjp_gather", "jaxpr", """
idx = jnp.array([[1], [1]])
dn = lax.GatherDimensionNumbers((), (0,), (0,))
def f(x, ct):
  _, pullback = jax.vjp(lambda x: lax.gather(x, idx, dn, (1,)), x)
  return pullback(ct)
result = jax.make_jaxpr(f)(jnp.ones(3), jnp.ones(2))
""")

program("value_grad_gather_repeated", "value", """
idx = jnp.array([[0], [2], [2]])
dn = lax.GatherDimensionNumbers((), (0,), (0,))
result = jax.grad(lambda x: jnp.sum(lax.gather(x, idx, dn, (1,)) * jnp.arange(3.0)))(jnp.ones(4))
""")

# ---- scatter-add, scatter-sub ----

scatter_program("grad_scatter_add_sub_windows", "jaxpr", """
dn = lax.ScatterDimensionNumbers((1,), (0,), (0,))
f = lambda x, u: jnp.sum(lax.scatter_sub(lax.scatter_add(x, idx, u, dn), idx, u * 2, dn) ** 2)
result = jax.make_jaxpr(jax.grad(f, (0, 1)))(jnp.ones((4, 5)), jnp.ones((3, 5)))
""")

scatter_program("jvp_scatter_add_updates_only", "jaxpr", """
f = lambda u: lax.scatter_add(jnp.zeros(4), idx, u, dn)
result = jax.make_jaxpr(lambda u: jax.jvp(f, (u,), (u,)))(jnp.ones(3))
""")

scatter_program("value_grad_scatter_sub", "value", """
f = lambda x, u: jnp.sum(lax.scatter_sub(x, idx, u, dn) * jnp.arange(4.0))
result = jax.grad(f, 1)(jnp.ones(4), jnp.ones(3))
""")

# ---- scatter-mul ----

scatter_program("jvp_scatter_mul_unique", "jaxpr", """
f = lambda x, u: lax.scatter_mul(x, idx, u, dn, unique_indices=True)
result = jax.make_jaxpr(lambda x, u: jax.jvp(f, (x, u), (x, u)))(jnp.ones(4), jnp.ones(3))
""")

scatter_program("grad_scatter_mul_unique", "jaxpr", """
f = lambda x, u: lax.scatter_mul(x, idx, u, dn, unique_indices=True).sum()
result = jax.make_jaxpr(jax.grad(f, (0, 1)))(jnp.ones(4), jnp.ones(3))
""")

scatter_program("error_jvp_scatter_mul_repeated", "error", """
f = lambda u: lax.scatter_mul(jnp.ones(4), idx, u, dn)
result = jax.jvp(f, (jnp.ones(3),), (jnp.ones(3),))
""")

# ---- scatter-min, scatter-max ----

scatter_program("jvp_scatter_max", "jaxpr", """
f = lambda x, u: lax.scatter_max(x, idx, u, dn)
result = jax.make_jaxpr(lambda x, u: jax.jvp(f, (x, u), (x, u)))(jnp.ones(4), jnp.ones(3))
""")

scatter_program("grad_scatter_min", "jaxpr", """
f = lambda x, u: jnp.sum(lax.scatter_min(x, idx, u, dn))
result = jax.make_jaxpr(jax.grad(f, (0, 1)))(jnp.ones(4), jnp.ones(3))
""")

program("value_jvp_scatter_max_ties", "value", """
dn = lax.ScatterDimensionNumbers((), (0,), (0,))
idx = jnp.array([[0], [0]])
f = lambda x, u: lax.scatter_max(x, idx, u, dn)
result = jax.jvp(f, (jnp.array([1.0, 0.0]), jnp.array([1.0, 1.0])),
                 (jnp.array([3.0, 5.0]), jnp.array([6.0, 9.0])))[1]
""")

# ---- scatter ----

scatter_program("grad_scatter_repeated", "jaxpr", """
f = lambda x, u: jnp.sum(lax.scatter(x, idx, u, dn) ** 2)
result = jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(jnp.ones(4), jnp.ones(3))
""")

scatter_program("jvp_scatter_repeated", "jaxpr", """
f = lambda x, u: lax.scatter(x, idx, u, dn)
result = jax.make_jaxpr(lambda x, u: jax.jvp(f, (x, u), (x, u)))(jnp.ones(4), jnp.ones(3))
""")

scatter_program("jvp_scatter_repeated_windows", "jaxpr", """
dn = lax.ScatterDimensionNumbers((1,), (0,), (0,))
f = lambda x, u: lax.scatter(x, idx, u, dn)
result = jax.make_jaxpr(lambda x, u: jax.jvp(f, (x, u), (x, u)))(jnp.ones((4, 5)), jnp.ones((3, 5)))
""")

program("grad_scatter_unique", "jaxpr", """
dn = lax.ScatterDimensionNumbers((), (0,), (0,))
idx = jnp.array([[0], [2]])
f = lambda x, u: jnp.sum(lax.scatter(x, idx, u, dn, unique_indices=True) ** 2)
result = jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(jnp.ones(4), jnp.ones(2))
""")

scatter_program("value_grad_scatter_repeated_operand", "value", """
f = lambda x, u: jnp.sum(lax.scatter(x, idx, u, dn) * jnp.arange(4.0))
result = jax.grad(f)(jnp.ones(4), jnp.ones(3))
""")

scatter_program("error_jvp_scatter_apply", "error", """
f = lambda x: lax.scatter_apply(x, idx, jnp.sin, dn)
result = jax.jvp(f, (jnp.ones(4),), (jnp.ones(4),))
""")
