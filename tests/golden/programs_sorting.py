"""Programs for the sorting family, recorded from JAX 0.11.0 into ``sorting.json``.

Same format and runner as ``programs_core.py`` (see its docstring). Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py sorting

The set covers the jaxprs of sort (one and several operands, num_keys),
sort_key_val, top_k and approx_max_k/approx_min_k (including the output size
of aggregate_to_topk=False), the float orders each primitive uses (NaN,
-0.0, ties), and the wrappers' and abstract evaluations' errors.
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


# ---- jaxprs ----

program("sort_single_operand_params", "jaxpr", """
def f(x):
  return lax.sort(x), lax.sort(x, dimension=0, is_stable=False)
result = jax.make_jaxpr(f)(jnp.ones((3, 4)))
""")

program("sort_several_operands_num_keys", "jaxpr", """
def f(x, i):
  return lax.sort((x, i), num_keys=1), lax.sort([x, i, x], num_keys=2, dimension=-2)
result = jax.make_jaxpr(f)(jnp.ones((3, 4)), jnp.ones((3, 4), jnp.int32))
""")

program("sort_key_val_jaxpr", "jaxpr", """
result = jax.make_jaxpr(lambda k, v: lax.sort_key_val(k, v, dimension=0))(
    jnp.ones((3, 4)), jnp.ones((3, 4), jnp.int32))
""")

program("sort_weak_operand_keeps_weak_type", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.sort(x * 2.0))(jnp.arange(4.0))
""")

program("top_k_default_and_axis", "jaxpr", """
def f(x):
  return lax.top_k(x, 2), lax.top_k(x, 1, axis=0, is_stable=False)
result = jax.make_jaxpr(f)(jnp.ones((3, 4)))
""")

program("approx_max_min_k_jaxpr", "jaxpr", """
def f(x):
  return (lax.approx_max_k(x, 2),
          lax.approx_min_k(x, 3, reduction_dimension=0, recall_target=0.9,
                           aggregate_to_topk=False))
result = jax.make_jaxpr(f)(jnp.ones((5, 4)))
""")

program("approx_top_k_unaggregated_output_size", "jaxpr", """
def f(x, y):
  return (lax.approx_max_k(x, 10, recall_target=0.9, aggregate_to_topk=False),
          lax.approx_min_k(y, 4, aggregate_to_topk=False, reduction_input_size_override=90000),
          lax.approx_max_k(x, 1, aggregate_to_topk=False))
result = jax.make_jaxpr(f)(jnp.ones((2, 5000)), jnp.ones(3000))
""")

# ---- values ----

program("sort_float_order_nan_zero_stable", "value", """
nan = np.float32(np.nan)
x = np.array([3, -nan, -np.inf, 0.0, -0.0, nan, 1, np.inf, -0.0, 0.0], np.float32)
k, v = lax.sort_key_val(x, np.arange(10, dtype=np.int32))
result = np.stack([np.asarray(v), np.signbit(np.asarray(k)).astype(np.int32)])
""")

program("sort_complex_lexicographic", "value", """
c = np.array([1+2j, 1+1j, 2-1j, -1+5j, 1+1j, 1-3j], np.complex64)
k, v = lax.sort_key_val(c, np.arange(6, dtype=np.int32))
result = v
""")

program("sort_two_keys_values", "value", """
a = np.array([[2, 1, 2, 1, 0], [0, 0, 1, 1, 0]], np.int32)
b = np.array([[0.5, 0.1, 0.2, 0.3, 9], [3, 2, 1, 0, 5]], np.float32)
result = lax.sort((a, b, np.arange(10, dtype=np.int32).reshape(2, 5)), num_keys=2)[2]
""")

program("sort_bool_and_uint", "value", """
result = np.stack([np.asarray(lax.sort(np.array([True, False, True, False]))).astype(np.uint8),
                   np.asarray(lax.sort(np.array([200, 3, 255, 0], np.uint8)))])
""")

program("top_k_total_order_values", "value", """
nan = np.float32(np.nan)
x = np.array([3, -nan, -np.inf, 0.0, -0.0, nan, 1, np.inf, -0.0, 0.0], np.float32)
values, indices = lax.top_k(x, 10)
result = indices
""")

program("top_k_ties_keep_order_2d", "value", """
x = np.array([[1, 3, 3, 2, 3], [5, 5, 4, 4, 6]], np.int32)
values, indices = lax.top_k(x, 3)
result = np.stack([np.asarray(values), np.asarray(indices)])
""")

program("approx_min_k_unaggregated_values", "value", """
x = np.arange(10.0, 0.0, -1.0, dtype=np.float32)
values, indices = lax.approx_min_k(x, 3, aggregate_to_topk=False)
result = np.stack([np.asarray(values), np.asarray(indices, np.float32)])
""")

program("approx_max_k_values_ties", "value", """
values, indices = lax.approx_max_k(np.array([1, 2, 2, 1, 3, -0.0, 0.0], np.float32), 7)
result = np.stack([np.asarray(values), np.asarray(indices, np.float32)])
""")

# ---- errors ----

program("sort_unequal_shapes_error", "error", """
lax.sort((jnp.ones(3), jnp.ones(4)))
""")

program("sort_num_keys_error", "error", """
lax.sort([jnp.ones(3)], num_keys=2)
""")

program("sort_single_operand_num_keys_error", "error", """
lax.sort(jnp.ones(3), num_keys=2)
""")

program("sort_empty_sequence_error", "error", """
lax.sort([])
""")

program("sort_dimension_out_of_bounds_error", "error", """
lax.sort(jnp.ones((2, 3)), dimension=2)
""")

program("top_k_complex_error", "error", """
lax.top_k(jnp.ones(3, jnp.complex64), 1)
""")

program("top_k_k_too_large_error", "error", """
lax.top_k(jnp.ones((2, 3)), 4)
""")

program("top_k_negative_k_error", "error", """
lax.top_k(jnp.ones(3), -1)
""")

program("approx_max_k_int_error", "error", """
lax.approx_max_k(jnp.ones(3, jnp.int32), 2)
""")

program("approx_min_k_k_too_large_error", "error", """
lax.approx_min_k(jnp.ones(3), 4)
""")

program("approx_max_k_scalar_error", "error", """
lax.approx_max_k(jnp.float32(1), 1)
""")
