"""Programs for the fft primitive, recorded from JAX 0.11.0 into ``fft.json``.

Same format and runner as ``programs_core.py`` (see its docstring). Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py fft

The set covers the jaxprs of lax.fft for the four FftTypes (it is a jitted
function, so a `jit[name=fft]` wraps the primitive; the input is converted to
complex or real first), a few values, and the wrapper's and the abstract
evaluation's errors.
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


# ---- jaxprs ----

program("fft_complex_forward_and_inverse", "jaxpr", """
def f(x):
  return lax.fft(x, lax.FftType.FFT, (4,)), lax.fft(x, lax.FftType.IFFT, (3, 4))
result = jax.make_jaxpr(f)(jnp.ones((2, 3, 4), jnp.complex64))
""")

program("fft_rfft_irfft_shapes", "jaxpr", """
def f(x, c):
  return lax.fft(x, lax.FftType.RFFT, (3, 4)), lax.fft(c, "irfft", (3, 6))
result = jax.make_jaxpr(f)(jnp.ones((3, 4)), jnp.ones((3, 4), jnp.complex64))
""")

program("fft_string_types", "jaxpr", """
def f(c):
  return lax.fft(c, "fft", (5,)), lax.fft(c, "IFFT", (5,))
result = jax.make_jaxpr(f)(jnp.ones(5, jnp.complex64))
""")

program("fft_real_input_converted_to_complex", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.fft(x, lax.FftType.FFT, (4,)))(jnp.ones((3, 4)))
""")

program("fft_int_input_rfft_converted_to_float", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.fft(x, lax.FftType.RFFT, (8,)))(jnp.ones(8, jnp.int32))
""")

program("fft_empty_lengths_is_identity", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.fft(x, lax.FftType.FFT, ()))(jnp.ones(3))
""")

program("fft_type_enum_repr", "text", """
result = repr([lax.FftType.FFT, lax.FftType.IRFFT]) + " " + str(lax.FftType.RFFT) + " " + str(int(lax.FftType.IFFT))
""")

# ---- values ----

program("fft_values_small", "value", """
x = np.array([1, 2, 3, 4], np.complex64)
y = np.asarray(lax.fft(x, lax.FftType.FFT, (4,)))
result = np.stack([y.real, y.imag])  # complex values do not go into JSON
""")

program("rfft_values_float32_to_complex64", "value", """
x = np.array([[1, 0, 2, 0], [0, 1, 0, 1]], np.float32)
y = lax.fft(x, lax.FftType.RFFT, (2, 4))
print(y.dtype)
y = np.asarray(y)
result = np.stack([y.real, y.imag])
""")

program("irfft_values_roundtrip", "value", """
c = np.array([10, -2 + 2j, -2], np.complex64)
result = lax.fft(c, lax.FftType.IRFFT, (4,))
""")

program("ifft_values_2d", "value", """
x = np.array([[4, 0], [0, 0]], np.complex64)
y = np.asarray(lax.fft(x, lax.FftType.IFFT, (2, 2)))
result = np.stack([y.real, y.imag])
""")

# ---- errors ----

program("rfft_of_complex_error", "error", """
lax.fft(jnp.ones(4, jnp.complex64), lax.FftType.RFFT, (4,))
""")

program("fft_unknown_type_string_error", "error", """
lax.fft(jnp.ones(4, jnp.complex64), "dct", (4,))
""")

program("fft_unknown_type_value_error", "error", """
lax.fft(jnp.ones(4, jnp.complex64), 7, (4,))
""")

program("fft_lengths_mismatch_error", "error", """
lax.fft(jnp.ones((2, 4), jnp.complex64), lax.FftType.FFT, (5,))
""")

program("rfft_lengths_mismatch_error", "error", """
lax.fft(jnp.ones((2, 4)), lax.FftType.RFFT, (2, 5))
""")

program("irfft_lengths_mismatch_error", "error", """
lax.fft(jnp.ones((2, 3), jnp.complex64), lax.FftType.IRFFT, (3, 4))
""")

program("fft_too_many_lengths_error", "error", """
lax.fft(jnp.ones(4, jnp.complex64), lax.FftType.FFT, (1, 4))
""")

program("fft_list_lengths_not_hashable_error", "error", """
lax.fft(jnp.ones(4, jnp.complex64), lax.FftType.FFT, [4])
""")

program("rfft_float16_error", "error", """
lax.fft(jnp.ones(4, jnp.float16), lax.FftType.RFFT, (4,))
""")
