"""vmap of clamp, complex, bitcast_convert_type, reduce_precision, mulhi and
the total-order comparisons, recorded from JAX 0.11.0 into
``elementwise_vmap.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py elementwise_vmap

The binary ones broadcast like add; clamp keeps x's batch axis for scalar
bounds and otherwise aligns the bounds with x, batch axis first.
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


program("clamp_scalar_bounds", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: lax.clamp(0., x, 1.), in_axes=1))(jnp.ones((2, 3)))
""")

program("clamp_per_example_bounds", "jaxpr", """
f = lambda lo, x, hi: lax.clamp(lo, x, hi)
result = jax.make_jaxpr(jax.vmap(f))(jnp.zeros(3), jnp.ones((3, 4)), jnp.ones(3))
""")

program("clamp_mixed_bounds", "jaxpr", """
f = lambda lo, x, hi: lax.clamp(lo, x, hi)
result = jax.make_jaxpr(jax.vmap(f, in_axes=(None, 1, 0)))(jnp.zeros(4), jnp.ones((4, 3)), jnp.ones(3))
""")

program("clamp_unbatched_scalar_x", "jaxpr", """
f = lambda lo, x: lax.clamp(lo, x, 2.)
result = jax.make_jaxpr(jax.vmap(f, in_axes=(0, None)))(jnp.zeros(3), 1.)
""")

program("complex_unbatched_real", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lax.complex, in_axes=(None, 1)))(jnp.ones(4), jnp.ones((4, 3)))
""")

program("mulhi_batched_pair", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lax.mulhi, in_axes=(1, 1)))(jnp.ones((4, 3), jnp.uint32), jnp.ones((4, 3), jnp.uint32))
""")

program("total_order_comparisons", "jaxpr", """
f = lambda x, y: (lax.eq_to_p.bind(x, y), lax.lt_to_p.bind(x, y), lax.le_to_p.bind(x, 0.5))
result = jax.make_jaxpr(jax.vmap(f, in_axes=(0, 0)))(jnp.ones((3, 4)), jnp.ones((3, 4)))
""")

program("bitcast_narrowing_batched", "jaxpr", """
f = lambda x: lax.bitcast_convert_type(x, jnp.uint16)
result = jax.make_jaxpr(jax.vmap(f, in_axes=1))(jnp.ones((2, 3), jnp.float32))
""")

program("reduce_precision_batched", "jaxpr", """
f = lambda x: lax.reduce_precision(x, 5, 10)
result = jax.make_jaxpr(jax.vmap(f, in_axes=1))(jnp.ones((2, 3)))
""")

program("value_clamp_per_example", "value", """
x = jnp.arange(12.).reshape(3, 4)
result = jax.vmap(lax.clamp)(jnp.array([1., 2., 9.]), x, jnp.array([2., 6., 10.]))
""")

program("value_bitcast_widening", "value", """
x = jnp.arange(12, dtype=jnp.uint8).reshape(3, 4)
result = jax.vmap(lambda r: lax.bitcast_convert_type(r, jnp.uint32))(x)
""")
