"""jax.image programs whose JAX 0.11.0 behaviour is recorded in ``image.json``.

Same format and runner as ``programs_core.py`` (see its docstring). Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py image

resize with every method (up and down, antialiased or not, 1-D, 2-D,
with batch and channel axes, integer and float16 inputs), scale_and_translate
(scales, translations, traced under jit, gradients with respect to the image
and the scale), ResizeMethod and its string names, and the errors.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

# The weights go through sin (Lanczos) and every value through a contraction;
# XLA's sin and its dot's summation order differ from NumPy's by float32 ulps,
# a few units in the sixth digit of the largest value.
TOLERANCE = (1e-5, 2e-5)

IMG = "(jnp.arange(35.0).reshape(5, 7) % 6 - 2.5) ** 2"
METHODS = ("nearest", "linear", "cubic", "lanczos3", "lanczos5", "cubic-pytorch", "area")

for m in METHODS:
  tag = m.replace("-", "_")
  program(f"resize_{tag}_up", "value", f"result = jax.image.resize({IMG}, (9, 11), '{m}')")
  program(f"resize_{tag}_down", "value", f"result = jax.image.resize({IMG}, (3, 4), '{m}')")
  program(f"resize_{tag}_down_no_antialias", "value",
          f"result = jax.image.resize({IMG}, (3, 4), '{m}', antialias=False)")
  program(f"resize_{tag}_mixed", "value", f"result = jax.image.resize({IMG}, (2, 13), '{m}')")
  program(f"resize_{tag}_1d", "value", f"result = jax.image.resize(jnp.array([1.0, 4.0, 2.0, 8.0]), (7,), '{m}')")
  program(f"resize_{tag}_int_input", "value",
          f"result = jax.image.resize(jnp.arange(12).reshape(3, 4), (5, 3), '{m}')")

program("resize_nhwc", "value",
        "result = jax.image.resize(jnp.arange(2 * 4 * 4 * 3.0).reshape(2, 4, 4, 3), (2, 6, 3, 3), 'linear')")
program("resize_float16", "value",
        f"result = jax.image.resize(({IMG}).astype(jnp.float16), (4, 9), 'cubic')")
program("resize_same_shape", "value", f"result = jax.image.resize({IMG}, (5, 7), 'lanczos3')")
program("resize_to_zero", "value", f"result = jax.image.resize({IMG}, (0, 7), 'linear')")
program("resize_enum_method", "value", f"result = jax.image.resize({IMG}, (6, 6), jax.image.ResizeMethod.LANCZOS5)")
program("resize_aliases", "value", f"""
result = jnp.stack([jax.image.resize({IMG}, (6, 6), m) for m in ('bilinear', 'trilinear', 'triangle', 'bicubic',
                                                                   'tricubic', 'bicubic-pytorch')])
""")
program("resize_jit", "value", f"result = jax.jit(jax.image.resize, static_argnums=(1, 2))({IMG}, (4, 4), 'linear')")
program("resize_grad", "value", f"""
result = jax.grad(lambda x: jnp.sum(jax.image.resize(x, (8, 3), 'cubic') ** 2))({IMG})
""")
program("resize_vmap", "value", f"""
result = jax.vmap(lambda x: jax.image.resize(x, (3, 3), 'lanczos3'))(jnp.stack([{IMG}, -{IMG}]))
""")
program("resize_shape_length_error", "error", f"result = jax.image.resize({IMG}, (3,), 'linear')")
program("resize_unknown_method_error", "error", f"result = jax.image.resize({IMG}, (3, 3), 'spline')")
program("resize_method_enum_members", "text",
        "result = repr([(m.name, m.value) for m in jax.image.ResizeMethod])")
program("resize_method_from_string", "text", """
names = ['nearest', 'linear', 'bilinear', 'trilinear', 'triangle', 'lanczos3', 'lanczos5', 'cubic', 'bicubic',
         'tricubic', 'cubic-pytorch', 'bicubic-pytorch', 'area']
result = repr([jax.image.ResizeMethod.from_string(n) for n in names])
""")
program("resize_method_from_string_error", "error", "result = jax.image.ResizeMethod.from_string('Linear')")

ST = "jax.image.scale_and_translate"
program("scale_translate_linear", "value",
        f"result = {ST}({IMG}, (6, 8), (0, 1), jnp.array([1.3, 0.8]), jnp.array([0.4, -1.2]), 'linear')")
program("scale_translate_cubic_no_antialias", "value",
        f"result = {ST}({IMG}, (4, 4), (0, 1), jnp.array([0.5, 0.6]), jnp.array([1.0, 0.5]), 'cubic', antialias=False)")
program("scale_translate_lanczos3_one_dim", "value",
        f"result = {ST}({IMG}, (5, 10), (1,), jnp.array([1.5]), jnp.array([-0.25]), 'lanczos3')")
program("scale_translate_negative_axis", "value",
        f"result = {ST}({IMG}, (5, 10), (-1,), jnp.array([1.5]), jnp.array([-0.25]), 'lanczos5')")
program("scale_translate_area", "value",
        f"result = {ST}({IMG}, (3, 3), (0, 1), jnp.array([0.6, 0.45]), jnp.array([0.0, 0.2]), 'area')")
program("scale_translate_pytorch_edge", "value",
        f"result = {ST}({IMG}, (8, 9), (0, 1), jnp.array([1.6, 1.3]), jnp.array([0.0, 0.3]), 'cubic-pytorch', antialias=False)")
program("scale_translate_no_dims", "value", f"result = {ST}({IMG}, (5, 7), (), jnp.array([]), jnp.array([]), 'linear')")
program("scale_translate_jit_traced_scale", "value", f"""
f = jax.jit(lambda x, s, t: {ST}(x, (6, 6), (0, 1), s, t, 'linear'))
result = f({IMG}, jnp.array([1.2, 0.9]), jnp.array([0.1, 0.2]))
""")
program("scale_translate_grad_scale", "value", f"""
result = jax.grad(lambda s: jnp.sum({ST}({IMG}, (6, 6), (0, 1), s, jnp.array([0.1, 0.2]), 'cubic')))(jnp.array([1.2, 0.9]))
""")
program("scale_translate_nearest_error", "error",
        f"result = {ST}({IMG}, (6, 6), (0, 1), jnp.array([1.0, 1.0]), jnp.array([0.0, 0.0]), 'nearest')")
program("scale_translate_shape_error", "error",
        f"result = {ST}({IMG}, (6,), (0,), jnp.array([1.0]), jnp.array([0.0]), 'linear')")
