"""Programs for the windowed family, recorded from JAX 0.11.0 into ``windowed.json``.

Same format and runner as ``programs_core.py`` (see its docstring): each
program is source text run with ``jax``, ``jnp``, ``lax`` and ``np`` bound,
assigning ``result`` or raising. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py windowed

The set covers the jaxprs of the windowed reductions (the monoid dispatch of
lax.reduce_window to reduce_window_sum/max/min, the general reduce_window
with its traced computation), of lax.reduce (monoid dispatch to reduce_sum
and friends, the general reduce with its computation param, shared
computation jaxprs) and of the cumulative reductions; eager values (padding
and dilation, NaN propagation, XLA's fold order with a non-identity initial
value) and the errors.
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


# ---- reduce_window jaxprs ----

program("reduce_window_sum_valid", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.reduce_window(x, 0., lax.add, (2, 2), (2, 2), 'VALID'))(
    jnp.ones((4, 6)))
""")

program("reduce_window_max_same_strided", "jaxpr", """
result = jax.make_jaxpr(
    lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), 'SAME'))(
    jnp.ones((2, 7, 6, 3)))
""")

program("reduce_window_min_dilations_explicit_padding", "jaxpr", """
def f(x):
  return lax.reduce_window(x, jnp.inf, lax.min, (2, 3), (1, 2), ((1, 0), (2, 1)),
                           base_dilation=(2, 1), window_dilation=(1, 2))
result = jax.make_jaxpr(f)(jnp.ones((5, 9)))
""")

program("reduce_window_int_sum_and_max", "jaxpr", """
def f(x):
  return (lax.reduce_window(x, 0, lax.add, (2,), (1,), 'VALID'),
          lax.reduce_window(x, jnp.iinfo(jnp.int32).min, lax.max, (2,), (1,), 'SAME_LOWER'))
result = jax.make_jaxpr(f)(jnp.arange(5))
""")

program("reduce_window_general_mul", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.reduce_window(x, 1., lax.mul, (2, 2), (1, 1), 'SAME'))(
    jnp.ones((3, 4)))
""")

program("reduce_window_max_non_identity_init_is_general", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.reduce_window(x, 0., lax.max, (3,), (1,), 'VALID'))(
    jnp.ones(6))
""")

program("reduce_window_variadic_tree", "jaxpr", """
def f(x, y):
  return lax.reduce_window((x, y), (0., 1.), lambda a, b: (a[0] + b[0], a[1] * b[1]),
                           (2,), (1,), 'VALID')
result = jax.make_jaxpr(f)(jnp.ones(5), jnp.ones(5))
""")

program("reduce_window_traced_init_value", "jaxpr", """
result = jax.make_jaxpr(lambda x, t: lax.reduce_window(x, t, lax.add, (2,), (1,), 'VALID'))(
    jnp.ones(4), 0.)
""")

program("reduce_window_computation_with_numpy_scalar", "jaxpr", """
result = jax.make_jaxpr(
    lambda x: lax.reduce_window(x, 0., lambda a, b: a + b * np.float32(2), (2,), (1,), 'VALID'))(
    jnp.ones(3))
""")

program("reduce_window_shared_computation_jaxpr", "jaxpr", """
def f(x):
  return (lax.reduce_window(x, 1., lax.mul, (2,), (1,), 'VALID'),
          lax.reduce_window(x, 1., lax.mul, (3,), (1,), 'VALID'))
result = jax.make_jaxpr(f)(jnp.ones(6))
""")

# ---- reduce jaxprs ----

program("reduce_monoids_dispatch", "jaxpr", """
def f(x, b, i):
  return (lax.reduce(x, 0., lax.add, (0,)), lax.reduce(x, 1., lax.mul, (1,)),
          lax.reduce(x, -jnp.inf, lax.max, (0, 1)), lax.reduce(x, jnp.inf, lax.min, (1,)),
          lax.reduce(b, False, lax.bitwise_or, (0,)), lax.reduce(b, True, lax.bitwise_and, (0,)),
          lax.reduce(i, 0, lax.bitwise_xor, (0,)))
result = jax.make_jaxpr(f)(jnp.ones((2, 3)), jnp.ones(3, bool), jnp.arange(4))
""")

program("reduce_custom_computation", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.reduce(x, 1., lambda a, b: a * b + 1, (1,)))(
    jnp.ones((2, 3)))
""")

program("reduce_non_identity_add_is_general", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.reduce(x, 10., lax.add, (0,)))(jnp.ones((2, 3)))
""")

program("reduce_variadic_argmax_like", "jaxpr", """
def select_max(a, b):
  take_b = b[0] > a[0]
  return (lax.select(take_b, b[0], a[0]), lax.select(take_b, b[1], a[1]))
def f(x):
  idx = lax.broadcasted_iota(jnp.int32, x.shape, 1)
  return lax.reduce((x, idx), (-jnp.inf, 0), select_max, (1,))
result = jax.make_jaxpr(f)(jnp.ones((2, 5)))
""")

program("reduce_shared_computation_jaxpr", "jaxpr", """
g = lambda a, b: a * b + 1
result = jax.make_jaxpr(lambda x: (lax.reduce(x, 1., g, (0,)), lax.reduce(x, 1., g, (1,))))(
    jnp.ones((3, 4)))
""")

program("reduce_weak_operand_strong_init_converts", "jaxpr", """
result = jax.make_jaxpr(lambda s: lax.reduce(s, np.float32(0), lax.add, ()))(2.0)
""")

program("reduce_traced_init_is_general", "jaxpr", """
result = jax.make_jaxpr(lambda x, t: lax.reduce(x, t, lax.add, (0,)))(jnp.ones(3), 0.)
""")

program("reduce_closure_over_array_const", "jaxpr", """
c = jnp.arange(3.)
result = jax.make_jaxpr(lambda x: lax.reduce(x, 0., lambda a, b: a + b * c[1], (0,)))(jnp.ones(3))
""")

# ---- cumulative jaxprs ----

program("cumulative_reductions", "jaxpr", """
def f(x):
  return (lax.cumsum(x), lax.cumsum(x, 1, reverse=True), lax.cumprod(x, axis=1),
          lax.cummax(x, 0, True), lax.cummin(x), lax.cumlogsumexp(x, axis=1))
result = jax.make_jaxpr(f)(jnp.ones((2, 3)))
""")

program("cumsum_int", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.cumsum(x, reverse=True))(jnp.arange(5))
""")

# ---- values ----

program("reduce_window_sum_value_padding_strides", "value", """
x = jnp.arange(20, dtype=jnp.float32).reshape(4, 5)
result = lax.reduce_window(x, 0., lax.add, (2, 3), (2, 1), ((1, 0), (1, 1)))
""")

program("reduce_window_max_value_nan_and_dilations", "value", """
x = jnp.array([[1., 5., jnp.nan, 2.], [0., -1., 3., 4.], [7., 2., 2., 9.]])
result = lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 1), 'SAME',
                           base_dilation=(1, 2), window_dilation=(2, 1))
""")

program("reduce_window_min_value_int", "value", """
x = jnp.array([5, 3, 8, -2, 7, 1], jnp.int32)
result = lax.reduce_window(x, jnp.iinfo(jnp.int32).max, lax.min, (3,), (2,), 'SAME')
""")

program("reduce_window_general_fold_order_skips_padding", "value", """
x = jnp.array([1., 2., 3., 4.])
result = lax.reduce_window(x, 5., lambda a, b: a * 10 + b, (3,), (1,), ((1, 1),))
""")

program("reduce_window_general_base_dilation_holes", "value", """
result = lax.reduce_window(jnp.array([1., 2., 3.]), 10., lax.add, (2,), (1,), 'VALID',
                           base_dilation=(2,))
""")

program("reduce_window_general_2d_row_major", "value", """
x = jnp.arange(1., 7.).reshape(2, 3)
result = lax.reduce_window(x, 0., lambda a, b: a * 10 + b, (2, 2), (1, 1), 'VALID')
""")

program("reduce_window_variadic_value", "value", """
x = jnp.arange(12.).reshape(3, 4)
s, p = lax.reduce_window((x, x + 1), (0., 1.), lambda a, b: (a[0] + b[0], a[1] * b[1]),
                         (1, 2), (1, 1), 'VALID')
result = jnp.stack([s, p])
""")

program("reduce_value_fold_order", "value", """
result = lax.reduce(jnp.array([[1., 2., 3., 4.], [4., 3., 2., 1.]]), 5., lambda a, b: a * 10 + b, (1,))
""")

program("reduce_value_variadic_argmax", "value", """
def select_max(a, b):
  take_b = b[0] > a[0]
  return (lax.select(take_b, b[0], a[0]), lax.select(take_b, b[1], a[1]))
x = jnp.array([[3., 9., 1., 9.], [-1., -5., -0.5, -2.]])
idx = lax.broadcasted_iota(jnp.int32, x.shape, 1)
result = lax.reduce((x, idx), (-jnp.inf, 0), select_max, (1,))[1]
""")

program("reduce_value_empty_keeps_init", "value", """
result = lax.reduce(jnp.ones((0, 3)), 7., lambda a, b: a * b, (0,))
""")

program("cumsum_value_reverse_int", "value", """
result = lax.cumsum(jnp.arange(12, dtype=jnp.int32).reshape(3, 4), axis=1, reverse=True)
""")

program("cumprod_value_axis0", "value", """
result = lax.cumprod(jnp.arange(1., 7.).reshape(3, 2) / 2, axis=0)
""")

program("cummax_cummin_value_nan", "value", """
x = jnp.array([1., 3., jnp.nan, 2., 5.])
result = jnp.stack([lax.cummax(x), lax.cummin(x, reverse=True)])
""")

program("cumlogsumexp_value", "value", """
result = lax.cumlogsumexp(jnp.array([[0., 1., 2.], [100., 100., -100.]]), axis=1)
""")

program("cumsum_value_float16", "value", """
result = lax.cumsum(jnp.arange(8, dtype=jnp.float16) / 4)
""")

# ---- errors ----

program("reduce_window_error_wrong_window_rank", "error", """
lax.reduce_window(jnp.ones((3, 4)), 0., lax.add, (2,), (1,), 'VALID')
""")

program("reduce_window_error_inconsistent_strides", "error", """
lax.reduce_window(jnp.ones((3, 4)), 0., lax.add, (2, 2), (1,), 'VALID')
""")

program("reduce_window_error_zero_window", "error", """
lax.reduce_window(jnp.ones((3, 4)), 0., lax.add, (0, 2), (1, 1), 'VALID')
""")

program("reduce_window_error_zero_dilation", "error", """
lax.reduce_window(jnp.ones((3, 4)), 0., lax.add, (1, 2), (1, 1), 'VALID', window_dilation=(1, 0))
""")

program("reduce_window_error_inconsistent_base_dilation", "error", """
lax.reduce_window(jnp.ones((3, 4)), 0., lax.add, (1, 2), (1, 1), 'VALID', base_dilation=(1,))
""")

program("reduce_window_error_general_dtypes", "error", """
lax.reduce_window(jnp.ones((3, 4)), 1, lax.mul, (2, 2), (1, 1), 'VALID')
""")

program("reduce_window_error_nonscalar_init", "error", """
lax.reduce_window(jnp.ones((3, 4)), jnp.ones(2), lax.mul, (1, 2), (1, 1), 'VALID')
""")

program("reduce_window_error_tree_mismatch", "error", """
x = jnp.ones(4)
lax.reduce_window((x, x), 0., lax.mul, (2,), (1,), 'VALID')
""")

program("reduce_window_error_sum_of_bools", "error", """
lax.reduce_window(jnp.array([True, False, True]), False, lax.add, (2,), (1,), 'VALID')
""")

program("reduce_window_error_unhashable_consts", "error", """
c = jnp.arange(3.)
jax.make_jaxpr(lambda x: lax.reduce_window(x, 0., lambda a, b: a + b * c[1], (2,), (1,), 'VALID'))(
    jnp.ones(3))
""")

program("reduce_error_dtype_mismatch", "error", """
lax.reduce(jnp.ones((3, 4)), 2, lax.mul, (0,))
""")

program("reduce_error_nonscalar_init", "error", """
lax.reduce(jnp.ones((3, 4)), jnp.ones(4), lambda a, b: a * b, (0,))
""")

program("reduce_error_monoid_axis_out_of_bounds", "error", """
lax.reduce(jnp.ones((3, 4)), 0., lax.add, (2,))
""")

program("reduce_error_general_axis_out_of_bounds", "error", """
lax.reduce(jnp.ones((3, 4)), 1., lambda a, b: a * b, (2,))
""")

program("reduce_error_tree_mismatch", "error", """
x = jnp.ones(3)
lax.reduce((x, x), 0., lax.add, (0,))
""")

program("reduce_error_computation_returns_string", "error", """
lax.reduce(jnp.ones(3), 0., lambda a, b: 'sum', (0,))
""")

program("cumsum_error_bool", "error", """
lax.cumsum(jnp.array([True, False]))
""")

program("cumprod_error_negative_axis", "error", """
lax.cumprod(jnp.ones(3), axis=-1)
""")

program("cummax_error_axis_out_of_bounds", "error", """
lax.cummax(jnp.ones((2, 3)), axis=2)
""")

program("reduce_value_no_dimensions_is_identity", "value", """
result = lax.reduce(jnp.array([1., 2.]), 5., lambda a, b: a * 10 + b, ())
""")
