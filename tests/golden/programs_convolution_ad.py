"""Autodiff programs for the convolution family, recorded from JAX 0.11.0
into ``convolution_ad.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py convolution_ad

The set covers the JVP of conv_general_dilated (one convolution per nonzero
tangent, summed with add_any) and its two transposes as grad builds them:
the lhs cotangent (a convolution of the cotangent with the reversed kernel,
lhs_dilation and window_strides swapped, the padding that gives the input
back) and the rhs cotangent (a convolution of lhs with the cotangent), for
1-D to 3-D, strides, paddings, both dilations, feature and batch groups,
layouts, preferred_element_type, and a few gradient values.
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


# ---- JVPs ----

program("jvp_conv1d_both_tangents", "jaxpr", """
f = lambda x, w: lax.conv(x, w, (1,), 'SAME')
result = jax.make_jaxpr(lambda x, w: jax.jvp(f, (x, w), (x, w)))(jnp.ones((2, 3, 8)), jnp.ones((4, 3, 3)))
""")

program("jvp_conv2d_lhs_tangent_only", "jaxpr", """
def f(x):
  return lax.conv_general_dilated(x, jnp.ones((4, 3, 2, 2)), (2, 1), ((1, 0), (0, 1)))
result = jax.make_jaxpr(lambda x: jax.jvp(f, (x,), (x,)))(jnp.ones((1, 3, 6, 5)))
""")

program("linearize_conv_rhs", "jaxpr", """
def f(x, w, t):
  y, f_jvp = jax.linearize(lambda w: lax.conv(x, w, (1, 1), 'VALID'), w)
  return y, f_jvp(t)
result = jax.make_jaxpr(f)(jnp.ones((2, 3, 5, 5)), jnp.ones((4, 3, 3, 3)), jnp.ones((4, 3, 3, 3)))
""")

# ---- gradients ----

program("grad_conv1d_strided_padded_rhs_dilated", "jaxpr", """
f = lambda x, w: lax.conv_general_dilated(x, w, (2,), ((1, 1),), rhs_dilation=(2,)).sum()
result = jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(jnp.ones((2, 3, 8)), jnp.ones((4, 3, 3)))
""")

program("grad_conv2d_same", "jaxpr", """
f = lambda x, w: jnp.sum(lax.conv(x, w, (1, 1), 'SAME') ** 2)
result = jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(jnp.ones((2, 3, 5, 6)), jnp.ones((4, 3, 3, 3)))
""")

program("grad_conv2d_strided_valid_lhs_only", "jaxpr", """
f = lambda x, w: lax.conv(x, w, (2, 3), 'VALID').sum()
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((1, 2, 9, 10)), jnp.ones((3, 2, 3, 2)))
""")

program("grad_conv2d_nhwc_hwio_dilations", "jaxpr", """
def f(x, w):
  return lax.conv_general_dilated(
      x, w, window_strides=(1, 2), padding=((1, 2), (0, 1)),
      lhs_dilation=(2, 1), rhs_dilation=(1, 2),
      dimension_numbers=('NHWC', 'HWIO', 'NHWC')).sum()
result = jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(jnp.ones((2, 7, 8, 3)), jnp.ones((3, 2, 3, 6)))
""")

program("grad_conv_mixed_layouts", "jaxpr", """
def f(x, w):
  return lax.conv_general_dilated(x, w, (1, 1), 'VALID',
                                  dimension_numbers=('NHWC', 'OIHW', 'NCHW')).sum()
result = jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(jnp.ones((2, 6, 5, 3)), jnp.ones((4, 3, 2, 2)))
""")

program("grad_conv1d_feature_groups", "jaxpr", """
f = lambda x, w: lax.conv_general_dilated(x, w, (1,), 'SAME', feature_group_count=2).sum()
result = jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(jnp.ones((2, 4, 8)), jnp.ones((6, 2, 3)))
""")

program("grad_conv2d_depthwise_nhwc", "jaxpr", """
def f(x, w):
  return lax.conv_general_dilated(x, w, (1, 1), 'SAME', feature_group_count=3,
                                  dimension_numbers=('NHWC', 'HWIO', 'NHWC')).sum()
result = jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(jnp.ones((1, 5, 5, 3)), jnp.ones((3, 3, 1, 6)))
""")

program("grad_conv1d_batch_groups", "jaxpr", """
f = lambda x, w: lax.conv_general_dilated(x, w, (1,), 'VALID', batch_group_count=2).sum()
result = jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(jnp.ones((4, 3, 7)), jnp.ones((6, 3, 2)))
""")

program("grad_conv2d_batch_groups_nhwc", "jaxpr", """
def f(x, w):
  return lax.conv_general_dilated(x, w, (2, 1), ((0, 1), (1, 0)), batch_group_count=3,
                                  dimension_numbers=('NHWC', 'HWIO', 'NHWC')).sum()
result = jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(jnp.ones((3, 5, 4, 2)), jnp.ones((2, 2, 2, 6)))
""")

program("grad_conv3d", "jaxpr", """
f = lambda x, w: lax.conv(x, w, (1, 2, 1), 'SAME').sum()
result = jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(jnp.ones((1, 2, 4, 5, 3)), jnp.ones((2, 2, 2, 3, 2)))
""")

program("grad_conv_transpose", "jaxpr", """
f = lambda x, w: lax.conv_transpose(x, w, (2, 2), 'SAME').sum()
result = jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(jnp.ones((1, 4, 4, 2)), jnp.ones((3, 3, 2, 5)))
""")

program("grad_conv_precision_highest", "jaxpr", """
f = lambda x, w: lax.conv(x, w, (1,), 'VALID', precision=lax.Precision.HIGHEST).sum()
result = jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(jnp.ones((1, 2, 6)), jnp.ones((3, 2, 2)))
""")

program("grad_conv_preferred_element_type", "jaxpr", """
f = lambda x, w: lax.conv(x, w, (1,), 'VALID', preferred_element_type=jnp.float32).sum()
result = jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(
    jnp.ones((1, 2, 6), jnp.bfloat16), jnp.ones((3, 2, 2), jnp.bfloat16))
""")

program("vjp_conv2d", "jaxpr", """
def f(x, w, ct):
  out, vjp_fun = jax.vjp(lambda x, w: lax.conv(x, w, (1, 2), 'SAME'), x, w)
  return vjp_fun(ct)
result = jax.make_jaxpr(f)(jnp.ones((2, 3, 6, 7)), jnp.ones((4, 3, 3, 2)), jnp.ones((2, 4, 6, 4)))
""")

program("grad_of_grad_conv", "jaxpr", """
f = lambda x, w: jnp.sum(lax.conv(x, w, (1,), 'SAME') ** 2)
g = lambda x, w: jnp.sum(jax.grad(f)(x, w))
result = jax.make_jaxpr(jax.grad(g, argnums=1))(jnp.ones((1, 2, 5)), jnp.ones((2, 2, 3)))
""")

program("grad_conv_patches", "jaxpr", """
f = lambda x: lax.conv_general_dilated_patches(x, (2, 2), (1, 1), 'VALID').sum()
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((1, 2, 3, 3)))
""")

program("grad_conv_under_jit", "jaxpr", """
f = jax.jit(lambda x, w: lax.conv(x, w, (1,), 'VALID').sum())
result = jax.make_jaxpr(jax.grad(f, argnums=(0, 1)))(jnp.ones((1, 2, 5)), jnp.ones((3, 2, 2)))
""")

# ---- values ----

program("value_grad_conv2d_lhs", "value", """
x = jnp.arange(2 * 3 * 5 * 4, dtype=jnp.float32).reshape(2, 3, 5, 4) / 500
w = jnp.arange(4 * 3 * 3 * 2, dtype=jnp.float32).reshape(4, 3, 3, 2) / 300 + 0.05
f = lambda x, w: jnp.sum(jnp.sin(lax.conv_general_dilated(x, w, (2, 1), ((1, 1), (0, 1)), rhs_dilation=(1, 2))))
result = jax.grad(f)(x, w)
""")

program("value_grad_conv2d_rhs", "value", """
x = jnp.arange(2 * 3 * 5 * 4, dtype=jnp.float32).reshape(2, 3, 5, 4) / 500
w = jnp.arange(4 * 3 * 3 * 2, dtype=jnp.float32).reshape(4, 3, 3, 2) / 300 + 0.05
f = lambda x, w: jnp.sum(jnp.sin(lax.conv_general_dilated(x, w, (2, 1), ((1, 1), (0, 1)), rhs_dilation=(1, 2))))
result = jax.grad(f, argnums=1)(x, w)
""")

program("value_grad_conv_feature_groups", "value", """
x = jnp.arange(2 * 4 * 7, dtype=jnp.float32).reshape(2, 4, 7) / 20
w = jnp.arange(6 * 2 * 3, dtype=jnp.float32).reshape(6, 2, 3) / 10 - 1
f = lambda x, w: jnp.sum(lax.conv_general_dilated(x, w, (1,), 'SAME', feature_group_count=2) ** 2)
g = jax.grad(f, argnums=(0, 1))(x, w)
result = jnp.concatenate([g[0].ravel(), g[1].ravel()])
""")

program("value_grad_conv_batch_groups", "value", """
x = jnp.arange(4 * 3 * 7, dtype=jnp.float32).reshape(4, 3, 7) / 20
w = jnp.arange(6 * 3 * 2, dtype=jnp.float32).reshape(6, 3, 2) / 10 - 1
f = lambda x, w: jnp.sum(lax.conv_general_dilated(x, w, (2,), ((1, 0),), batch_group_count=2) ** 2)
g = jax.grad(f, argnums=(0, 1))(x, w)
result = jnp.concatenate([g[0].ravel(), g[1].ravel()])
""")

program("value_jvp_conv_transpose", "value", """
x = jnp.arange(1 * 4 * 4 * 2, dtype=jnp.float32).reshape(1, 4, 4, 2) / 10
w = jnp.arange(3 * 3 * 2 * 5, dtype=jnp.float32).reshape(3, 3, 2, 5) / 40
f = lambda x, w: lax.conv_transpose(x, w, (2, 2), 'SAME')
result = jax.jvp(f, (x, w), (jnp.ones_like(x), w))[1]
""")
