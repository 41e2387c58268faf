"""jax.ops programs whose JAX 0.11.0 behaviour is recorded in ``ops.json``.

Same format and runner as ``programs_core.py`` (see its docstring). Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py ops

segment_sum/prod/max/min: values and dtypes (ints, bools, floats; empty
segments get the reduction's identity), num_segments inferred or given,
out-of-range and negative ids dropped (FILL_OR_DROP) or clipped (mode),
bucket_size, multi-dimensional data, under jit (static num_segments) and grad,
the jaxpr, and the errors.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

DATA = "jnp.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])"
IDS = "jnp.array([0, 0, 2, 2, 2, 3])"

for op in ("sum", "prod", "max", "min"):
  program(f"segment_{op}_float", "value", f"result = jax.ops.segment_{op}({DATA}, {IDS})")
  program(f"segment_{op}_num_segments", "value", f"result = jax.ops.segment_{op}({DATA}, {IDS}, num_segments=6)")
  program(f"segment_{op}_int", "value",
          f"result = jax.ops.segment_{op}(jnp.arange(6), {IDS}, 5)")
  program(f"segment_{op}_int8", "value",
          f"result = jax.ops.segment_{op}(jnp.arange(6, dtype=jnp.int8), {IDS}, 5)")
  if op in ("max", "min"):  # (sum/prod refuse bools; JAX's message lists dtypes in set order)
    program(f"segment_{op}_bool", "value",
            f"result = jax.ops.segment_{op}(jnp.array([True, False, True, True, False, False]), {IDS}, 5)")
  program(f"segment_{op}_2d", "value",
          f"result = jax.ops.segment_{op}(jnp.arange(12.0).reshape(6, 2) - 5, {IDS}, 4)")
  program(f"segment_{op}_out_of_range_dropped", "value",
          f"result = jax.ops.segment_{op}({DATA}, jnp.array([0, -1, 1, 7, 1, 2]), 3)")
  program(f"segment_{op}_clip", "value",
          f"result = jax.ops.segment_{op}({DATA}, jnp.array([0, -1, 1, 7, 1, 2]), 3, mode='clip')")
  program(f"segment_{op}_bucket", "value",
          f"result = jax.ops.segment_{op}({DATA}, {IDS}, 4, bucket_size=4)")
  program(f"segment_{op}_bucket_int", "value",
          f"result = jax.ops.segment_{op}(jnp.arange(6, dtype=jnp.int16), {IDS}, 4, bucket_size=2)")
  program(f"segment_{op}_jit", "value",
          f"result = jax.jit(jax.ops.segment_{op}, static_argnums=2)({DATA}, {IDS}, 4)")
  program(f"segment_{op}_sorted_unique_flags", "value",
          f"result = jax.ops.segment_{op}({DATA}, jnp.arange(6), 6, indices_are_sorted=True, unique_indices=True)")
  program(f"jaxpr_segment_{op}", "jaxpr",
          f"result = jax.make_jaxpr(lambda d, i: jax.ops.segment_{op}(d, i, 4))({DATA}, {IDS})")

program("jaxpr_segment_sum_bucket", "jaxpr",
        f"result = jax.make_jaxpr(lambda d, i: jax.ops.segment_sum(d, i, 4, bucket_size=4))({DATA}, {IDS})")
program("jaxpr_segment_sum_flags", "jaxpr",
        f"result = jax.make_jaxpr(lambda d, i: jax.ops.segment_sum(d, i, 4, indices_are_sorted=True, "
        f"unique_indices=True, mode='promise_in_bounds'))({DATA}, {IDS})")
program("segment_sum_weak_python_data", "value", "result = jax.ops.segment_sum(jnp.array(2.0) * 1, jnp.array(0), 2)")
program("segment_sum_numpy_inputs", "value",
        "result = jax.ops.segment_sum(np.arange(4.0), np.array([1, 1, 0, 0]))")
program("segment_sum_zero_segments", "value", f"result = jax.ops.segment_sum({DATA}, {IDS}, 0)")
program("segment_sum_grad", "value", f"""
result = jax.grad(lambda d: jnp.sum(jax.ops.segment_sum(d, {IDS}, 4) ** 2))({DATA})
""")
program("segment_max_grad", "value", f"""
result = jax.grad(lambda d: jnp.sum(jax.ops.segment_max(d, {IDS}, 4)))({DATA})
""")
program("segment_sum_vmap", "value", f"""
result = jax.vmap(lambda d: jax.ops.segment_sum(d, {IDS}, 4))(jnp.stack([{DATA}, 2 * {DATA}]))
""")
program("segment_sum_negative_num_segments", "error", f"result = jax.ops.segment_sum({DATA}, {IDS}, -1)")
program("segment_sum_list_data", "error", f"result = jax.ops.segment_sum([1.0, 2.0], jnp.array([0, 1]))")
program("segment_sum_jit_no_num_segments", "error", f"result = jax.jit(jax.ops.segment_sum)({DATA}, {IDS})")
program("segment_sum_traced_num_segments", "error", f"""
result = jax.jit(lambda d, i, n: jax.ops.segment_sum(d, i, n))({DATA}, {IDS}, 4)
""")
