"""vmap of conv_general_dilated, recorded from JAX 0.11.0 into
``convolution_vmap.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py convolution_vmap

A batched lhs is folded into the image batch (inside the batch groups, if
any); a batched kernel into its output features (inside the feature or
batch groups); both batched, every example becomes a feature group (or a
batch group when the convolution groups its batch). The batch is split out
of the result again.
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


program("batched_images_nchw", "jaxpr", """
f = lambda x: lax.conv_general_dilated(x, jnp.ones((4, 3, 3, 3)), (1, 1), 'SAME')
result = jax.make_jaxpr(jax.vmap(f, in_axes=1))(jnp.ones((2, 5, 3, 6, 6)))
""")

program("batched_kernels_nhwc", "jaxpr", """
f = lambda k: lax.conv_general_dilated(jnp.ones((2, 6, 6, 3)), k, (2, 2), 'VALID',
                                       dimension_numbers=('NHWC', 'HWIO', 'NHWC'))
result = jax.make_jaxpr(jax.vmap(f, in_axes=3))(jnp.ones((3, 3, 3, 5, 4)))
""")

program("both_batched_feature_groups", "jaxpr", """
f = lambda x, k: lax.conv_general_dilated(x, k, (1,), ((1, 1),), feature_group_count=2)
result = jax.make_jaxpr(jax.vmap(f))(jnp.ones((3, 2, 4, 7)), jnp.ones((3, 6, 2, 3)))
""")

program("both_batched_batch_groups", "jaxpr", """
f = lambda x, k: lax.conv_general_dilated(x, k, (1,), 'VALID', batch_group_count=2)
result = jax.make_jaxpr(jax.vmap(f, in_axes=(2, 0)))(jnp.ones((4, 3, 5, 6)), jnp.ones((5, 4, 3, 2)))
""")

program("lhs_batched_batch_groups", "jaxpr", """
f = lambda x: lax.conv_general_dilated(x, jnp.ones((4, 3, 2)), (1,), 'VALID', batch_group_count=2)
result = jax.make_jaxpr(jax.vmap(f, in_axes=2))(jnp.ones((4, 3, 5, 6)))
""")

program("rhs_batched_feature_groups", "jaxpr", """
f = lambda k: lax.conv_general_dilated(jnp.ones((2, 4, 7)), k, (1,), 'SAME', feature_group_count=2)
result = jax.make_jaxpr(jax.vmap(f, in_axes=1))(jnp.ones((6, 3, 2, 3)))
""")

program("rhs_batched_batch_groups", "jaxpr", """
f = lambda k: lax.conv_general_dilated(jnp.ones((4, 3, 7)), k, (1,), 'VALID', batch_group_count=2)
result = jax.make_jaxpr(jax.vmap(f))(jnp.ones((5, 4, 3, 2)))
""")

program("per_example_conv_grads", "jaxpr", """
def loss(k, x):
  return jnp.sum(lax.conv_general_dilated(x[None], k, (1, 1), 'SAME') ** 2)
result = jax.make_jaxpr(jax.vmap(jax.grad(loss), in_axes=(None, 0)))(jnp.ones((2, 3, 3, 3)), jnp.ones((4, 3, 5, 5)))
""")

program("value_both_batched_dilated", "value", """
x = jnp.arange(2 * 1 * 2 * 6, dtype=jnp.float32).reshape(2, 1, 2, 6)
k = jnp.arange(2 * 3 * 2 * 2, dtype=jnp.float32).reshape(2, 3, 2, 2) / 10
f = lambda x, k: lax.conv_general_dilated(x, k, (1,), ((2, 1),), lhs_dilation=(2,), rhs_dilation=(2,))
result = jax.vmap(f)(x, k)
""")
