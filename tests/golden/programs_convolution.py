"""Programs for the convolution family, recorded from JAX 0.11.0 into ``convolution.json``.

Same format and runner as ``programs_core.py`` (see its docstring): each
program is source text run with ``jax``, ``jnp``, ``lax`` and ``np`` bound,
assigning ``result`` or raising. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py convolution

The set covers the jaxprs of conv_general_dilated as its wrappers build them
(string paddings resolved, dimension-number strings turned into
permutations, precision canonicalised, groups, dilations, 1-D to 3-D), eager
values (groups, dilations, transposed convolutions, patches, integer
accumulation) and the shape/dtype/dimension-number errors.
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


# ---- jaxprs ----

program("conv1d_valid_default_layout", "jaxpr", """
result = jax.make_jaxpr(lambda x, w: lax.conv(x, w, (1,), 'VALID'))(
    jnp.ones((2, 3, 10)), jnp.ones((4, 3, 3)))
""")

program("conv2d_same_strided", "jaxpr", """
result = jax.make_jaxpr(lambda x, w: lax.conv(x, w, (2, 2), 'SAME'))(
    jnp.ones((1, 3, 9, 8)), jnp.ones((5, 3, 3, 3)))
""")

program("conv2d_nhwc_hwio_explicit_padding_dilations", "jaxpr", """
def f(x, w):
  return lax.conv_general_dilated(
      x, w, window_strides=(1, 2), padding=((1, 2), (0, 1)),
      lhs_dilation=(2, 1), rhs_dilation=(1, 2),
      dimension_numbers=('NHWC', 'HWIO', 'NHWC'))
result = jax.make_jaxpr(f)(jnp.ones((2, 7, 8, 3)), jnp.ones((3, 2, 3, 6)))
""")

program("conv2d_mixed_layouts_out_nchw", "jaxpr", """
def f(x, w):
  return lax.conv_general_dilated(x, w, (1, 1), 'VALID',
                                  dimension_numbers=('NHWC', 'OIHW', 'NCHW'))
result = jax.make_jaxpr(f)(jnp.ones((2, 6, 5, 3)), jnp.ones((4, 3, 2, 2)))
""")

program("conv_depthwise_feature_groups", "jaxpr", """
def f(x, w):
  return lax.conv_general_dilated(x, w, (1,), 'SAME', feature_group_count=4)
result = jax.make_jaxpr(f)(jnp.ones((2, 4, 9)), jnp.ones((8, 1, 3)))
""")

program("conv_batch_groups", "jaxpr", """
def f(x, w):
  return lax.conv_general_dilated(x, w, (1,), 'VALID', batch_group_count=2)
result = jax.make_jaxpr(f)(jnp.ones((4, 3, 9)), jnp.ones((6, 3, 3)))
""")

program("conv_precision_and_preferred_type", "jaxpr", """
def f(x, w):
  return (lax.conv(x, w, (1,), 'VALID', precision=lax.Precision.HIGHEST),
          lax.conv(x, w, (1,), 'VALID', precision='high'),
          lax.conv(x, w, (1,), 'VALID',
                   precision=(lax.Precision.DEFAULT, lax.Precision.HIGHEST)),
          lax.conv(x.astype(jnp.float16), w.astype(jnp.float16), (1,), 'VALID',
                   preferred_element_type=jnp.float32))
result = jax.make_jaxpr(f)(jnp.ones((1, 2, 6)), jnp.ones((3, 2, 2)))
""")

program("conv_int8_preferred_int32", "jaxpr", """
def f(x, w):
  return lax.conv(x, w, (1, 1), 'VALID', preferred_element_type=jnp.int32)
result = jax.make_jaxpr(f)(jnp.ones((1, 2, 4, 4), jnp.int8), jnp.ones((3, 2, 2, 2), jnp.int8))
""")

program("conv_with_general_padding_lhs_dilation", "jaxpr", """
def f(x, w):
  return lax.conv_with_general_padding(x, w, (1, 1), ((2, 2), (1, 0)), (2, 2), None)
result = jax.make_jaxpr(f)(jnp.ones((1, 2, 5, 5)), jnp.ones((3, 2, 3, 3)))
""")

program("conv_transpose_same_nhwc", "jaxpr", """
result = jax.make_jaxpr(lambda x, w: lax.conv_transpose(x, w, (2, 2), 'SAME'))(
    jnp.ones((1, 5, 6, 2)), jnp.ones((3, 3, 2, 4)))
""")

program("conv3d_same_lower_rhs_dilation", "jaxpr", """
def f(x, w):
  return lax.conv_general_dilated(x, w, (1, 2, 1), 'SAME_LOWER', rhs_dilation=(2, 1, 1))
result = jax.make_jaxpr(f)(jnp.ones((1, 2, 6, 5, 4)), jnp.ones((3, 2, 2, 3, 2)))
""")

program("conv1d_negative_padding", "jaxpr", """
result = jax.make_jaxpr(lambda x, w: lax.conv_general_dilated(x, w, (1,), [(-1, 2)]))(
    jnp.ones((1, 1, 8)), jnp.ones((1, 1, 3)))
""")

program("conv_general_dilated_patches_jaxpr", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.conv_general_dilated_patches(x, (2,), (1,), 'VALID'))(
    jnp.ones((1, 2, 5)))
""")

# ---- values ----

program("conv1d_value_strided_dilated_grouped", "value", """
x = jnp.arange(2 * 4 * 9, dtype=jnp.float32).reshape(2, 4, 9) / 10
w = jnp.arange(6 * 2 * 3, dtype=jnp.float32).reshape(6, 2, 3) / 7 - 2
result = lax.conv_general_dilated(x, w, (2,), [(1, 2)], lhs_dilation=(2,), rhs_dilation=(2,),
                                  feature_group_count=2)
""")

program("conv2d_value_nhwc_same", "value", """
x = jnp.arange(2 * 5 * 4 * 3, dtype=jnp.float32).reshape(2, 5, 4, 3) / 11
w = jnp.arange(3 * 2 * 3 * 2, dtype=jnp.float32).reshape(3, 2, 3, 2) / 5 - 1
result = lax.conv_general_dilated(x, w, (2, 1), 'SAME', dimension_numbers=('NHWC', 'HWIO', 'NHWC'))
""")

program("conv2d_value_batch_groups", "value", """
x = jnp.arange(4 * 3 * 5 * 4, dtype=jnp.float32).reshape(4, 3, 5, 4) / 13
w = jnp.arange(6 * 3 * 2 * 2, dtype=jnp.float32).reshape(6, 3, 2, 2) / 9 - 1
result = lax.conv_general_dilated(x, w, (1, 1), 'VALID', batch_group_count=2)
""")

program("conv_transpose_value_transpose_kernel", "value", """
x = jnp.arange(1 * 4 * 3 * 2, dtype=jnp.float32).reshape(1, 4, 3, 2)
w = jnp.arange(3 * 2 * 4 * 2, dtype=jnp.float32).reshape(3, 2, 4, 2) / 10
result = lax.conv_transpose(x, w, (2, 1), 'VALID', transpose_kernel=True)
""")

program("conv_value_int8_wraps", "value", """
x = jnp.full((1, 2, 5), 100, jnp.int8)
w = jnp.ones((3, 2, 2), jnp.int8)
result = lax.conv(x, w, (1,), 'VALID')
""")

program("conv_value_bool", "value", """
x = jnp.array([[[True, False, False, True, False]]])
w = jnp.array([[[True, True]]])
result = lax.conv(x, w, (1,), 'VALID')
""")

program("conv_general_dilated_patches_value", "value", """
x = jnp.arange(2 * 2 * 4 * 3, dtype=jnp.float32).reshape(2, 2, 4, 3)
result = lax.conv_general_dilated_patches(x, (2, 2), (1, 1), 'SAME')
""")

program("conv_value_zero_size_output", "value", """
result = lax.conv(jnp.ones((2, 3, 2)), jnp.ones((4, 3, 3)), (1,), 'VALID')
""")

# ---- helpers printed ----

program("conv_dimension_numbers_repr", "text", """
dn = lax.conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 8), ('NHWC', 'HWIO', 'NHWC'))
result = repr(dn) + ' ' + repr(lax.conv_dimension_numbers((1, 3, 5), (2, 3, 2), None))
""")

program("padtype_to_pads_modes", "text", """
result = repr([lax.padtype_to_pads((5, 6), (3, 3), (2, 2), p)
               for p in ('SAME', 'SAME_LOWER', 'VALID', 'same')])
""")

# ---- errors ----

program("conv_error_mixed_dtypes", "error", """
lax.conv(jnp.ones((1, 2, 5)), jnp.ones((3, 2, 2), jnp.int32), (1,), 'VALID')
""")

program("conv_error_rank_mismatch", "error", """
lax.conv(jnp.ones((1, 2, 5)), jnp.ones((3, 2, 2, 2)), (1,), 'VALID')
""")

program("conv_error_feature_group_divides", "error", """
lax.conv_general_dilated(jnp.ones((2, 4, 8)), jnp.ones((6, 2, 3)), (1,), 'VALID',
                         feature_group_count=3)
""")

program("conv_error_in_features", "error", """
lax.conv(jnp.ones((2, 4, 8)), jnp.ones((6, 3, 3)), (1,), 'VALID')
""")

program("conv_error_both_group_counts", "error", """
lax.conv_general_dilated(jnp.ones((4, 4, 8)), jnp.ones((6, 2, 3)), (1,), 'VALID',
                         batch_group_count=2, feature_group_count=2)
""")

program("conv_error_batch_group_divides", "error", """
lax.conv_general_dilated(jnp.ones((3, 4, 8)), jnp.ones((6, 4, 3)), (1,), 'VALID',
                         batch_group_count=2)
""")

program("conv_error_strides_rank", "error", """
lax.conv_general_dilated(jnp.ones((2, 4, 8)), jnp.ones((6, 4, 3)), (1, 1), 'VALID')
""")

program("conv_error_pads_count", "error", """
lax.conv_general_dilated(jnp.ones((2, 4, 8)), jnp.ones((6, 4, 3)), (1,), [(0, 0), (1, 1)])
""")

program("conv_error_negative_padding_too_large", "error", """
lax.conv_general_dilated(jnp.ones((2, 4, 8)), jnp.ones((6, 4, 3)), (1,), [(-5, -5)])
""")

program("conv_error_bad_padding_pairs", "error", """
lax.conv_general_dilated(jnp.ones((2, 4, 8)), jnp.ones((6, 4, 3)), (1,), [(0, 0, 1)])
""")

program("conv_error_unknown_padding_string", "error", """
lax.conv(jnp.ones((2, 4, 8)), jnp.ones((6, 4, 3)), (1,), 'FULL')
""")

program("conv_error_string_padding_lhs_dilation", "error", """
lax.conv_general_dilated(jnp.ones((2, 4, 8)), jnp.ones((6, 4, 3)), (1,), 'SAME', lhs_dilation=(2,))
""")

program("conv_error_zero_dilation", "error", """
lax.conv_general_dilated(jnp.ones((2, 4, 8)), jnp.ones((6, 4, 3)), (1,), [(0, 0)], rhs_dilation=(0,))
""")

program("conv_error_dimension_numbers_chars", "error", """
lax.conv_general_dilated(jnp.ones((2, 4, 8)), jnp.ones((6, 4, 3)), (1,), 'VALID',
                         dimension_numbers=('NCH', 'OIW', 'NCH'))
""")

program("conv_error_dimension_numbers_missing_batch", "error", """
lax.conv_general_dilated(jnp.ones((2, 4, 8)), jnp.ones((6, 4, 3)), (1,), 'VALID',
                         dimension_numbers=('XCH', 'OIH', 'NCH'))
""")

program("conv_error_dimension_numbers_length", "error", """
lax.conv_general_dilated(jnp.ones((2, 4, 8)), jnp.ones((6, 4, 3)), (1,), 'VALID',
                         dimension_numbers=('NCHW', 'OIHW', 'NCHW'))
""")

program("conv_error_dimension_numbers_type", "error", """
lax.conv_general_dilated(jnp.ones((2, 4, 8)), jnp.ones((6, 4, 3)), (1,), 'VALID',
                         dimension_numbers=5)
""")

program("conv_error_preferred_narrower", "error", """
lax.conv(jnp.ones((1, 2, 5)), jnp.ones((3, 2, 2)), (1,), 'VALID', preferred_element_type=jnp.float16)
""")

program("conv_error_preferred_incompatible", "error", """
lax.conv(jnp.ones((1, 2, 5)), jnp.ones((3, 2, 2)), (1,), 'VALID', preferred_element_type=jnp.int32)
""")

# ---- conv_general_dilated_local ----

program("conv_general_dilated_local_jaxpr", "jaxpr", """
def f(x, w):
  return lax.conv_general_dilated_local(x, w, (1, 1), 'SAME', (3, 2),
                                        dimension_numbers=('NHWC', 'HWIO', 'NWHC'))
result = jax.make_jaxpr(f)(jnp.ones((2, 6, 5, 3)), jnp.ones((6, 5, 18, 4)))
""")

program("conv_general_dilated_local_value", "value", """
x = jnp.arange(2 * 3 * 6 * 5, dtype=jnp.float32).reshape(2, 3, 6, 5) / 17
w = jnp.arange(4 * 12 * 5 * 2, dtype=jnp.float32).reshape(4, 12, 5, 2) / 100
result = lax.conv_general_dilated_local(x, w, (1, 2), 'VALID', (2, 2))
""")
