"""Programs for the slicing family, recorded from JAX 0.11.0 into ``slicing.json``.

Same format and runner as ``programs_core.py`` (see its docstring): each
program is source text run with ``jax``, ``jnp``, ``lax`` and ``np`` bound,
assigning ``result`` or raising. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py slicing

The set covers the jaxprs of dynamic_slice, dynamic_update_slice, gather,
the scatters, pad and split as the lax wrappers build them (index
normalisation, default modes and fill values, shared combiner jaxprs), some
eager values for XLA's out-of-bounds semantics, and the shape/dtype errors.
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


# ---- dynamic_slice / dynamic_update_slice and their one-axis wrappers ----

program("dynamic_slice_static_and_traced_starts", "jaxpr", """
def f(x, i):
  return lax.dynamic_slice(x, (i, -1), (2, 2))
result = jax.make_jaxpr(f)(jnp.ones((5, 3)), jnp.int32(1))
""")

program("dynamic_slice_weak_python_int_start", "jaxpr", """
result = jax.make_jaxpr(lambda x, i: lax.dynamic_slice(x, (i, 0), (2, 3)))(jnp.ones((5, 3)), 1)
""")

program("dynamic_slice_unsigned_start_kept", "jaxpr", """
result = jax.make_jaxpr(lambda x, i: lax.dynamic_slice(x, (i,), (2,)))(jnp.ones(5), jnp.uint8(3))
""")

program("dynamic_update_slice_traced_start", "jaxpr", """
def f(x, u, i):
  return lax.dynamic_update_slice(x, u, (0, i))
result = jax.make_jaxpr(f)(jnp.zeros((4, 6)), jnp.ones((4, 2)), jnp.int32(3))
""")

program("dynamic_slice_in_dim_and_update_slice_in_dim", "jaxpr", """
def f(x, i):
  s = lax.dynamic_slice_in_dim(x, i, 2, axis=1)
  return lax.dynamic_update_slice_in_dim(x, s * 2.0, i, 1)
result = jax.make_jaxpr(f)(jnp.ones((3, 5)), jnp.int32(2))
""")

program("dynamic_index_in_dim_is_a_jit", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.dynamic_index_in_dim(x, 2, 1, keepdims=False))(jnp.ones((5, 3)))
""")

program("dynamic_update_index_in_dim_is_a_jit", "jaxpr", """
def f(x, i):
  return lax.dynamic_update_index_in_dim(x, jnp.ones(3), i, 0)
result = jax.make_jaxpr(f)(jnp.zeros((5, 3)), jnp.int32(4))
""")

program("slice_in_dim_and_index_in_dim", "jaxpr", """
def f(x):
  return lax.slice_in_dim(x, 1, -1, 2, 0), lax.index_in_dim(x, -1, 1, keepdims=False)
result = jax.make_jaxpr(f)(jnp.ones((6, 3)))
""")

program("dynamic_slice_clamps_values", "value", """
x = jnp.arange(10)
result = jnp.stack([lax.dynamic_slice(x, (jnp.int32(i),), (3,)) for i in (-20, -2, 0, 8, 9, 100)])
""")

program("dynamic_update_slice_clamps_values", "value", """
x = jnp.zeros((4, 4), jnp.int32)
result = lax.dynamic_update_slice(x, jnp.arange(1, 5, dtype=jnp.int32).reshape(2, 2), (jnp.int32(3), jnp.int32(-1)))
""")

# ---- gather ----

program("gather_default_mode_promise_in_bounds", "jaxpr", """
dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
result = jax.make_jaxpr(lambda x, i: lax.gather(x, i, dn, (1, 3)))(jnp.ones((5, 3)), jnp.ones((2, 1), jnp.int32))
""")

program("gather_modes_and_fill_values", "jaxpr", """
dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
def f(x, n, i):
  return (lax.gather(x, i, dn, (1, 2), mode="clip"),
          lax.gather(x, i, dn, (1, 2), mode="fill"),
          lax.gather(n, i, dn, (1, 2), mode=lax.GatherScatterMode.FILL_OR_DROP),
          lax.gather(x, i, dn, (1, 2), mode="drop", fill_value=-1.0, indices_are_sorted=True,
                     unique_indices=True))
result = jax.make_jaxpr(f)(jnp.ones((5, 3)), jnp.ones((5, 3), jnp.int32), jnp.ones((4, 1), jnp.int32))
""")

program("gather_batching_dims", "jaxpr", """
dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,),
                                operand_batching_dims=(0,), start_indices_batching_dims=(0,))
result = jax.make_jaxpr(lambda x, i: lax.gather(x, i, dn, (1, 1)))(jnp.ones((4, 5)), jnp.ones((4, 1), jnp.int32))
""")

program("gather_out_of_bounds_values", "value", """
x = jnp.arange(10.0)
dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(), start_index_map=(0,))
i = jnp.array([[8], [7], [-1], [3]])
result = jnp.stack([lax.gather(x, i, dn, (3,)), lax.gather(x, i, dn, (3,), mode="clip"),
                    lax.gather(x, i, dn, (3,), mode="fill"),
                    lax.gather(x, i, dn, (3,), mode="fill", fill_value=-5.0)])
""")

program("gather_fill_default_per_dtype", "value", """
dn = lax.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,))
i = jnp.array([[1], [9]])
u = lax.gather(jnp.arange(5, dtype=jnp.uint8), i, dn, (1,), mode="fill")
s = lax.gather(jnp.arange(5, dtype=jnp.int16), i, dn, (1,), mode="fill")
b = lax.gather(jnp.arange(5) > 2, i, dn, (1,), mode="fill")
result = jnp.stack([u.astype(jnp.int32), s.astype(jnp.int32), b.astype(jnp.int32)])
""")

program("gather_batching_values", "value", """
x = jnp.arange(60.0).reshape(3, 4, 5)
i = jnp.array([[[1], [2], [0]], [[4], [3], [1]]])
dn = lax.GatherDimensionNumbers(offset_dims=(2,), collapsed_slice_dims=(2,), start_index_map=(2,),
                                operand_batching_dims=(0,), start_indices_batching_dims=(1,))
result = lax.gather(x, i, dn, (1, 4, 1))
""")

program("index_take_wraps_indices", "value", """
x = jnp.arange(12.0).reshape(3, 4)
result = lax.index_take(x, (jnp.array([0, -1, 5]), jnp.array([1, 2, -3])), (0, 1))
""")

# ---- scatter ----

program("scatter_replace_has_no_update_jaxpr", "jaxpr", """
dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
f = lambda x, i, u: lax.scatter(x, i, u, dn, mode="promise_in_bounds")
result = jax.make_jaxpr(f)(jnp.zeros((5, 3)), jnp.ones((2, 1), jnp.int32), jnp.ones((2, 3)))
""")

program("scatter_add_twice_shares_its_jaxpr", "jaxpr", """
dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
def f(x, i, u):
  return lax.scatter_add(lax.scatter_add(x, i, u, dn), i, u, dn, mode="clip")
result = jax.make_jaxpr(f)(jnp.zeros((5, 3)), jnp.ones((2, 1), jnp.int32), jnp.ones((2, 3)))
""")

program("scatter_mul_min_max_sub", "jaxpr", """
dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
def f(x, i, u):
  return (lax.scatter_mul(x, i, u, dn), lax.scatter_min(x, i, u, dn, indices_are_sorted=True),
          lax.scatter_max(x, i, u, dn, unique_indices=True), lax.scatter_sub(x, i, u, dn))
result = jax.make_jaxpr(f)(jnp.ones(5, jnp.int32), jnp.ones((3, 1), jnp.int32), jnp.ones(3, jnp.int32))
""")

program("scatter_apply_jaxpr", "jaxpr", """
dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
f = lambda x, i: lax.scatter_apply(x, i, jnp.sin, dn, update_shape=(2,))
result = jax.make_jaxpr(f)(jnp.ones(5), jnp.ones((2, 1), jnp.int32))
""")

program("scatter_add_duplicates_accumulate", "value", """
dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
i = jnp.array([[1], [3], [1], [1]])
u = jnp.arange(8.0).reshape(4, 2)
result = lax.scatter_add(jnp.ones((5, 2)), i, u, dn)
""")

program("scatter_combiners_with_duplicates", "value", """
dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
i = jnp.array([[0], [2], [2], [4], [4], [4]])
u = jnp.array([5, -1, 7, 2, 3, -4], jnp.int32)
x = jnp.full(5, 2, jnp.int32)
result = jnp.stack([lax.scatter_mul(x, i, u, dn), lax.scatter_min(x, i, u, dn),
                    lax.scatter_max(x, i, u, dn), lax.scatter_sub(x, i, u, dn)])
""")

program("scatter_out_of_bounds_windows", "value", """
dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(), scatter_dims_to_operand_dims=(0,))
i = jnp.array([[4], [1], [-1]])
u = jnp.array([[1.0, 2.0], [10.0, 20.0], [100.0, 200.0]])
x = jnp.zeros(6)
result = jnp.stack([lax.scatter_add(x, i, u, dn), lax.scatter_add(x, i, u, dn, mode="clip"),
                    lax.scatter_add(x, i, u, dn, mode="promise_in_bounds"),
                    lax.scatter(x, i, u, dn, mode="clip")])
""")

program("scatter_batching_values", "value", """
dn = lax.ScatterDimensionNumbers(update_window_dims=(2,), inserted_window_dims=(2,), scatter_dims_to_operand_dims=(2,),
                                 operand_batching_dims=(0,), scatter_indices_batching_dims=(1,))
i = jnp.array([[[1], [2], [0]], [[4], [1], [1]]])
result = lax.scatter_add(jnp.zeros((3, 4, 5)), i, jnp.arange(24.0).reshape(2, 3, 4), dn)
""")

program("scatter_apply_repeats_per_duplicate", "value", """
dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
result = lax.scatter_apply(jnp.full(5, 2.0, jnp.float32), jnp.array([[1], [1], [3], [1]]), lambda v: v * v, dn, update_shape=(4,))
""")

# ---- pad and split ----

program("pad_negative_and_interior", "jaxpr", """
f = lambda x: lax.pad(x, 0.0, [(1, -1, 2), (-2, 3, 0)])
result = jax.make_jaxpr(f)(jnp.ones((4, 5)))
""")

program("pad_weak_operand_and_value", "jaxpr", """
f = lambda x: lax.pad(x * 2, 1, ((0, 0, 1),))
result = jax.make_jaxpr(f)(jnp.ones(3, jnp.int32))
""")

program("pad_values", "value", """
x = jnp.arange(1, 7, dtype=jnp.int32).reshape(2, 3)
result = lax.pad(x, jnp.int32(-1), [(-1, 2, 1), (1, -2, 2)])
""")

program("split_jaxpr", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.split(x, (1, 0, 3), axis=-1))(jnp.ones((2, 4)))
""")

program("split_values", "value", """
a, b, c = lax.split(jnp.arange(12).reshape(3, 4), [2, 1, 1], axis=1)
result = jnp.concatenate([a, b * 10, c * 100], axis=1)
""")

# ---- errors ----

program("error_dynamic_slice_index_dtypes", "error", """
result = lax.dynamic_slice(jnp.ones((3, 3)), (jnp.int32(1), jnp.int16(0)), (2, 2))
""")

program("error_dynamic_slice_size_too_big", "error", """
result = lax.dynamic_slice(jnp.ones((3, 3)), (1, 0), (4, 2))
""")

program("error_dynamic_slice_wrong_number_of_starts", "error", """
result = lax.dynamic_slice(jnp.ones((3, 3)), (1,), (2, 2))
""")

program("error_dynamic_update_slice_rank", "error", """
result = lax.dynamic_update_slice(jnp.ones((3, 3)), jnp.ones(2), (0, 0))
""")

program("error_dynamic_update_slice_dtypes", "error", """
result = lax.dynamic_update_slice(jnp.ones((3, 3)), jnp.ones((1, 1), jnp.int32), (0, 0))
""")

program("error_pad_negative_result", "error", """
result = lax.pad(jnp.arange(5.0), 0.0, [(-4, -3, 0)])
""")

program("error_pad_dtypes", "error", """
result = lax.pad(jnp.arange(5.0), jnp.int32(0), [(1, 1, 0)])
""")

program("error_split_sizes_sum", "error", """
result = lax.split(jnp.arange(5.0), [2, 2])
""")

program("error_gather_start_index_map_length", "error", """
dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0, 1))
result = lax.gather(jnp.ones((4, 5)), jnp.ones((3, 1), jnp.int32), dn, (1, 5))
""")

program("error_gather_unknown_mode", "error", """
dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
result = lax.gather(jnp.ones((4, 5)), jnp.ones((3, 1), jnp.int32), dn, (1, 5), mode="wrap")
""")

program("error_scatter_updates_rank", "error", """
dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
result = lax.scatter_add(jnp.zeros(5), jnp.array([[1]]), jnp.ones((2,)), dn)
""")

program("error_scatter_float_indices", "error", """
dn = lax.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
result = lax.scatter(jnp.zeros(5), jnp.array([[1.0]]), jnp.ones((1,)), dn)
""")

program("error_scatter_window_bounds", "error", """
dn = lax.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
result = lax.scatter_max(jnp.ones((4, 5)), jnp.ones((3, 1), jnp.int32), jnp.ones((3, 6)), dn)
""")

program("error_index_in_dim_out_of_bounds", "error", """
result = lax.index_in_dim(jnp.ones((2, 3)), 3, 1)
""")
