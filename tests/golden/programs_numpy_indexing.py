"""jax.numpy indexing programs (x[idx], .at[idx], take, take_along_axis, ...)
whose JAX 0.11.0 behaviour is recorded in numpy_indexing.json (see
programs_core.py for the format; record with
`record_core.py numpy_indexing`)."""

from programs_core import program_set

PROGRAMS, program = program_set()


def jaxpr(name: str, body: str, *args: str) -> None:
    program(name, "jaxpr", f"result = jax.make_jaxpr({body})({', '.join(args)})")


X3 = "jnp.ones((4, 5, 6))"

# ---- getitem: static slices, dynamic slices, gathers
jaxpr("static_int", "lambda x: x[1]", X3)
jaxpr("static_negative_int", "lambda x: x[-1]", X3)
jaxpr("static_slices", "lambda x: x[1:3, ::2, -1]", X3)
jaxpr("static_negative_step", "lambda x: x[::-2, 1:4]", X3)
jaxpr("static_none_ellipsis", "lambda x: x[None, ..., 2, None]", X3)
jaxpr("static_trivial", "lambda x: x[:, :]", X3)
jaxpr("static_out_of_bounds_int", "lambda x: x[10]", X3)
jaxpr("dynamic_scalar_tracer", "lambda x, i: x[i]", X3, "1")
jaxpr("dynamic_tracer_and_slice", "lambda x, i: x[1:3, i]", X3, "jnp.int32(2)")
jaxpr("dynamic_reversed_unit_slice", "lambda x, i: x[::-1, i]", X3, "2")
jaxpr("dynamic_array_scalar", "lambda x: x[jnp.array(2)]", X3)
jaxpr("gather_int_array", "lambda x: x[jnp.array([0, 2])]", X3)
jaxpr("gather_numpy_array", "lambda x: x[np.array([0, 2])]", X3)
jaxpr("gather_traced_indices", "lambda x, i: x[:, i]", X3, "jnp.array([[0, 1], [2, 3]])")
jaxpr("gather_mixed", "lambda x: x[1:3, jnp.array([0, 2]), 2]", X3)
jaxpr("gather_non_contiguous", "lambda x: x[jnp.array([0, 2]), :, jnp.array([1, 1])]", X3)
jaxpr("gather_strided_slice", "lambda x: x[:, ::2, jnp.array([1])]", X3)
jaxpr("gather_negative_strided_slice", "lambda x: x[::-2, jnp.array([1])]", X3)
jaxpr("gather_newaxis", "lambda x: x[None, jnp.array([1]), ..., None]", X3)
jaxpr("gather_boolean_mask", "lambda x: x[np.array([True, False, True, False])]", X3)
jaxpr("gather_boolean_2d_mask", "lambda x: x[np.ones((4, 5), bool)]", X3)
jaxpr("gather_scalar_bool", "lambda x: x[True]", X3)
jaxpr("gather_scalar_false", "lambda x: x[False, 1]", X3)
jaxpr("gather_list_in_tuple", "lambda x: x[:, [0, 1]]", X3)
jaxpr("gather_uint_indices", "lambda x, i: x[i]", X3, "jnp.array([0, 1], jnp.uint8)")
jaxpr("gather_broadcast_indices", "lambda x, i, j: x[i, j]", X3, "jnp.zeros((2, 1), int)", "jnp.zeros(3, int)")
jaxpr("gather_empty_result", "lambda x: x[jnp.zeros((0,), int)]", X3)
program("error_traced_bool_scalar_index", "error", "result = jax.make_jaxpr(lambda x, b: x[b])(jnp.ones(3), True)")

# ---- values (eager)
program("value_gather_2d", "value", "result = jnp.arange(12).reshape(3, 4)[jnp.array([2, 0]), 1:]")
program("value_negative_indices", "value", "result = jnp.arange(10)[jnp.array([-1, -3, 2])]")
program("value_boolean_mask", "value", "x = jnp.arange(6.0); result = x[x > 2]")
program("value_mixed_advanced", "value", "result = jnp.arange(24).reshape(2, 3, 4)[:, jnp.array([0, 2]), jnp.array([1, 3])]")
program("value_non_contiguous_advanced", "value", "result = jnp.arange(24).reshape(2, 3, 4)[jnp.array([1, 0]), :, jnp.array([3, 0])]")
program("value_out_of_bounds_clamps", "value", "result = jnp.arange(5)[jnp.array([7, -9])]")
program("value_static_out_of_bounds_clamps", "value", "result = jnp.arange(5)[10]")
program("value_scalar_bool", "value", "result = jnp.arange(3)[True]")
program("value_empty_index_array", "value", "result = jnp.arange(3.0)[jnp.array([], int)]")

# ---- errors
program("error_nonconcrete_mask", "error", "result = jax.jit(lambda x: x[x > 0])(jnp.ones(3))")
program("error_mask_shape", "error", "result = jnp.ones((3, 4))[np.array([True, False])]")
program("error_list_index", "error", "result = jnp.ones(4)[[0, 1], ]; result = jnp.ones(4)[[0, slice(None)]]")
program("error_list_of_ints", "error", "result = jnp.ones((4, 4)).at[[[0, 1], [1, 2]]].get(); result = jnp.ones(4)[[[0, 1]]]")
program("error_float_index", "error", "result = jnp.ones(4)[1.0]")
program("error_float_array_index", "error", "result = jnp.ones(4)[jnp.array([1.0])]")
program("error_too_many_indices", "error", "result = jnp.ones((2, 3))[0, 0, 0]")
program("error_two_ellipses", "error", "result = jnp.ones((2, 3))[..., ...]")
program("error_string_index", "error", "result = jnp.ones(3)['a']")
program("error_traced_slice", "error", "result = jax.jit(lambda x, i: x[i:])(jnp.ones(3), 1)")
program("error_dict_index", "error", "result = jnp.ones(3)[{'a': 1}]")
program("error_setitem", "error", "x = jnp.ones(3)\nx[0] = 1.0")

# ---- .at[]
jaxpr("at_set_array", "lambda x: x.at[jnp.array([0, 2])].set(1.0)", X3)
jaxpr("at_add_static_int", "lambda x: x.at[1].add(2.0)", X3)
jaxpr("at_subtract_slice", "lambda x, y: x.at[1:3].subtract(y)", X3, "jnp.ones((2, 5, 6))")
jaxpr("at_multiply_column", "lambda x: x.at[:, 1].multiply(2.0)", X3)
jaxpr("at_divide", "lambda x: x.at[0].divide(2.0)", X3)
jaxpr("at_power", "lambda x: x.at[0, 1].power(3.0)", X3)
jaxpr("at_min_max", "lambda x, i: x.at[i].min(0.5).at[i].max(0.25)", X3, "jnp.array([1, 1])")
jaxpr("at_get_fill", "lambda x: x.at[jnp.array([0, 7])].get(mode='fill', fill_value=0)", X3)
jaxpr("at_get_clip", "lambda x, i: x.at[i].get(mode='clip')", X3, "jnp.array([5])")
jaxpr("at_apply_sin", "lambda x: x.at[0].apply(jnp.sin)", X3)
jaxpr("at_set_mode_clip", "lambda x, i: x.at[i].set(0.0, mode='clip')", "jnp.ones(5)", "jnp.array([9])")
jaxpr("at_set_promise", "lambda x, i, y: x.at[i].set(y, mode='promise_in_bounds', indices_are_sorted=True, unique_indices=True)",
      "jnp.ones(5)", "jnp.array([1, 3])", "jnp.ones(2)")
jaxpr("at_set_no_wrap", "lambda x: x.at[-1].set(9.0, wrap_negative_indices=False, mode='drop')", "jnp.ones(5)")
jaxpr("at_set_int_operand", "lambda x: x.at[2].set(7)", "jnp.ones(5, int)")
jaxpr("at_add_scalar_operand", "lambda x: x.at[()].add(1)", "1.0")
jaxpr("at_set_newaxis_reversed", "lambda x, y: x.at[None, ::-1, 1].set(y)", X3, "jnp.ones((4, 6))")
jaxpr("at_set_boolean_mask", "lambda x: x.at[np.array([True, False, True, False, True])].set(0.0)", "jnp.ones(5)")
jaxpr("at_set_scalar_bool", "lambda x: x.at[True].set(0.0)", "jnp.ones(3)")
jaxpr("at_add_broadcast_update", "lambda x, y: x.at[jnp.array([0, 1]), 2:4].add(y)", X3, "jnp.ones((2, 1, 6))")
program("value_at_add_repeated", "value", "result = jnp.zeros(4).at[jnp.array([1, 1, 3])].add(1.0)")
program("value_at_set_dropped", "value", "result = jnp.arange(5.0).at[10].set(99.0)")
program("value_at_get_fill_nan", "value", "result = jnp.arange(5.0).at[jnp.array([1, 20])].get(mode='fill')")
program("value_at_mul_int", "value", "result = jnp.arange(6).at[::2].multiply(3)")
program("value_at_divide_int", "value", "result = jnp.arange(6).at[1].divide(2)")
program("value_at_apply_repeated", "value", "result = jnp.ones(3).at[jnp.array([0, 0, 2])].apply(lambda v: v * 2)")
program("value_at_min", "value", "result = jnp.arange(5.0).at[jnp.array([0, 4])].min(jnp.array([-1.0, 9.0]))")
program("error_at_traced_fill_value", "error",
        "result = jax.jit(lambda x, f: x.at[jnp.array([9])].get(mode='fill', fill_value=f))(jnp.ones(3), 1.0)")
program("error_at_set_mask_jit", "error", "result = jax.jit(lambda x: x.at[x > 0].set(0.0))(jnp.ones(3))")

# ---- take / take_along_axis / put_along_axis / put / place
jaxpr("take_axis", "lambda x, i: jnp.take(x, i, axis=1)", "jnp.ones((3, 4))", "jnp.array([0, 1])")
jaxpr("take_flat_clip", "lambda x, i: jnp.take(x, i, mode='clip')", "jnp.ones((3, 4))", "jnp.array([[0, 20]])")
jaxpr("take_wrap", "lambda x, i: jnp.take(x, i, axis=0, mode='wrap')", "jnp.ones((3, 4))", "jnp.array([5])")
jaxpr("take_along_axis", "lambda x, i: jnp.take_along_axis(x, i, axis=1)", "jnp.ones((3, 4))", "jnp.zeros((3, 2), int)")
jaxpr("take_along_axis_broadcast", "lambda x, i: jnp.take_along_axis(x, i, axis=0)", "jnp.ones((3, 4, 5))", "jnp.zeros((2, 1, 5), int)")
jaxpr("take_along_axis_none", "lambda x, i: jnp.take_along_axis(x, i, axis=None)", "jnp.ones((3, 4))", "jnp.zeros(5, int)")
jaxpr("put_along_axis", "lambda x, i: jnp.put_along_axis(x, i, 9.0, axis=1, inplace=False)", "jnp.ones((3, 4))", "jnp.zeros((3, 1), int)")
program("value_take_fill", "value", "result = jnp.take(jnp.arange(4.0), jnp.array([1, 7, -1]))")
program("value_take_along_axis", "value", """
x = jnp.array([[5, 3, 4], [2, 7, 6]])
result = jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1)
""")
program("value_put_along_axis", "value", """
a = jnp.array([[10, 30, 20], [60, 40, 50]])
result = jnp.put_along_axis(a, jnp.argmax(a, axis=1, keepdims=True), 99, axis=1, inplace=False)
""")
program("value_put", "value", "result = jnp.put(jnp.zeros((3, 5), int), jnp.array([0, 7, 14]), jnp.array([10, 20, 30]), inplace=False)")
program("value_put_wrap", "value", "result = jnp.put(jnp.zeros(5, int), jnp.array([0, 2, 6]), jnp.array([10, 20, 30]), mode='wrap', inplace=False)")
program("value_place", "value", """
x = jnp.zeros((3, 5), dtype=int)
mask = (jnp.arange(x.size) % 3 == 0).reshape(x.shape)
result = jnp.place(x, mask, jnp.array([1, 3, 5]), inplace=False)
""")
program("error_put_inplace", "error", "result = jnp.put(jnp.zeros(3), jnp.array([0]), 1.0)")
program("error_take_along_axis_rank", "error", "result = jnp.take_along_axis(jnp.ones((3, 4)), jnp.zeros(3, int), axis=0)")
program("error_take_along_axis_float", "error", "result = jnp.take_along_axis(jnp.ones((3, 4)), jnp.zeros((3, 4)), axis=0)")
program("error_take_mode", "error", "result = jnp.take(jnp.ones(3), jnp.array([0]), mode='bad')")
