"""jax.numpy.fft programs whose JAX 0.11.0 behaviour is recorded in ``jnp_fft.json``.

Same format and runner as ``programs_core.py`` (see its docstring). Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py jnp_fft

The jaxprs show the axis moves, crops and pads around lax.fft and the
normalisation; values and errors pin the numerics and JAX's messages.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()


def jaxpr(name: str, call: str, shape: str = "(3, 4)") -> None:
  program(f"jaxpr_{name}", "jaxpr", f"result = jax.make_jaxpr(lambda x: {call})(jnp.ones({shape}))")


jaxpr("fft", "jnp.fft.fft(x)")
jaxpr("fft_axis0_n", "jnp.fft.fft(x, n=5, axis=0)")
jaxpr("fft_crop", "jnp.fft.fft(x, n=2)")
jaxpr("ifft_ortho", "jnp.fft.ifft(x, norm='ortho')")
jaxpr("ifft_forward", "jnp.fft.ifft(x, norm='forward')")
jaxpr("rfft", "jnp.fft.rfft(x)")
jaxpr("rfft_backward", "jnp.fft.rfft(x, norm='backward')")
jaxpr("irfft", "jnp.fft.irfft(x)")
jaxpr("irfft_n", "jnp.fft.irfft(x, n=7)")
jaxpr("hfft", "jnp.fft.hfft(x)")
jaxpr("ihfft", "jnp.fft.ihfft(x)")
jaxpr("fft2", "jnp.fft.fft2(x)", "(2, 3, 4)")
jaxpr("ifft2_axes", "jnp.fft.ifft2(x, axes=(0, 2))", "(2, 3, 4)")
jaxpr("rfft2", "jnp.fft.rfft2(x)")
jaxpr("irfft2_s", "jnp.fft.irfft2(x, s=(3, 6))")
jaxpr("fftn", "jnp.fft.fftn(x)", "(2, 3, 4)")
jaxpr("fftn_4d", "jnp.fft.fftn(x)", "(2, 2, 2, 2)")
jaxpr("ifftn_4d", "jnp.fft.ifftn(x)", "(2, 2, 2, 2)")
jaxpr("rfftn_s", "jnp.fft.rfftn(x, s=(2, 6))", "(2, 3, 4)")
jaxpr("irfftn", "jnp.fft.irfftn(x)", "(2, 3, 4)")
jaxpr("fftshift", "jnp.fft.fftshift(x)")
jaxpr("ifftshift_axis", "jnp.fft.ifftshift(x, axes=1)")
program("jaxpr_fftfreq", "jaxpr", "result = jax.make_jaxpr(lambda: jnp.fft.fftfreq(5, 0.1))()")
program("jaxpr_rfftfreq", "jaxpr", "result = jax.make_jaxpr(lambda: jnp.fft.rfftfreq(6))()")
program("jaxpr_grad_rfft", "jaxpr", "result = jax.make_jaxpr(jax.grad(lambda x: jnp.fft.rfft(x).real.sum()))(jnp.ones(4))")

# ---- values ----

X = "jnp.array([1.0, -2.0, 0.5, 3.0, 0.0, -1.0])"


def value(name: str, call: str) -> None:
  program(f"value_{name}", "value", f"x = {X}\nresult = {call}")


value("fft_real", "jnp.fft.fft(x).real")
value("fft_imag", "jnp.fft.fft(x).imag")
value("rfft_ortho_abs", "jnp.abs(jnp.fft.rfft(x, norm='ortho'))")
value("irfft_roundtrip", "jnp.fft.irfft(jnp.fft.rfft(x), n=6)")
value("irfft_odd", "jnp.fft.irfft(jnp.fft.rfft(x[:5]), n=5)")
value("hfft", "jnp.fft.hfft(x[:4])")
value("ihfft_imag", "jnp.fft.ihfft(x).imag")
value("fft2_abs", "jnp.abs(jnp.fft.fft2(x.reshape(2, 3)))")
value("fftn_4d_real", "jnp.fft.fftn(jnp.arange(16.0).reshape(2, 2, 2, 2)).real")
value("irfftn_4d", "jnp.fft.irfftn(jnp.fft.rfftn(jnp.arange(16.0).reshape(2, 2, 2, 2)))")
value("fftfreq", "jnp.fft.fftfreq(6, 0.5)")
value("fftfreq_odd", "jnp.fft.fftfreq(7)")
value("rfftfreq", "jnp.fft.rfftfreq(7, 2.0)")
value("fftshift", "jnp.fft.fftshift(jnp.arange(12).reshape(3, 4))")
value("ifftshift", "jnp.fft.ifftshift(jnp.arange(12).reshape(3, 4), axes=(0,))")
value("int_input", "jnp.fft.fft(jnp.arange(4)).real")
value("grad_fft_norm", "jax.grad(lambda x: jnp.abs(jnp.fft.fft(x, norm='forward')).sum())(x)")

# ---- errors ----

program("error_negative_shape", "error", "result = jnp.fft.fftn(jnp.ones((2, 2)), s=(2, 0))")
program("error_shape_axes", "error", "result = jnp.fft.fftn(jnp.ones((2, 2)), s=(2, 2), axes=(0,))")
program("error_repeated_axes", "error", "result = jnp.fft.fftn(jnp.ones((2, 2)), axes=(0, 0))")
program("error_1d_multiple_axes", "error", "result = jnp.fft.fft(jnp.ones((2, 2)), axis=(0, 1))")
program("error_2d_axes", "error", "result = jnp.fft.fft2(jnp.ones((2, 2, 2)), axes=(0,))")
program("error_norm", "error", "result = jnp.fft.fft(jnp.ones(4), norm='unitary')")
program("error_rfft_complex", "error", "result = jnp.fft.rfft(jnp.ones(4, jnp.complex64))")
program("error_fftfreq_list", "error", "result = jnp.fft.fftfreq([4])")
program("error_rfftfreq_d_list", "error", "result = jnp.fft.rfftfreq(4, d=[1.0])")
