"""Autodiff of fft, recorded from JAX 0.11.0 into ``fft_ad.json``: the JVP
transforms the tangent; the transposes are FFT->FFT, IFFT->IFFT, RFFT->
`_rfft_transpose` (a jit: IRFFT of the masked, conjugated cotangent) and
IRFFT->RFFT with the Hermitian mask, for odd and even lengths and several
axes. Same format and runner as ``programs_core.py``; record with

    /tmp/jax-ref/bin/python tests/golden/record_core.py fft_ad
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


program("grad_rfft_even", "jaxpr", """
f = lambda x: jnp.sum(lax.real(lax.fft(x, 'rfft', (6,))) ** 2)
result = jax.make_jaxpr(jax.grad(f))(jnp.arange(1.0, 7.0))
""")

program("grad_rfft_odd_two_axes", "jaxpr", """
f = lambda x: jnp.sum(lax.real(lax.fft(x, 'rfft', (3, 5))))
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((2, 3, 5)))
""")

program("grad_irfft_even", "jaxpr", """
f = lambda x: jnp.sum(lax.fft(x, 'irfft', (6,)) ** 2)
result = jax.make_jaxpr(jax.grad(f))(jnp.ones(4, jnp.complex64))
""")

program("grad_irfft_odd_two_axes", "jaxpr", """
f = lambda x: jnp.sum(lax.fft(x, 'irfft', (3, 5)))
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((2, 3, 3), jnp.complex64))
""")

program("grad_fft_complex", "jaxpr", """
f = lambda x: jnp.sum(lax.real(lax.fft(x, 'fft', (4,))))
result = jax.make_jaxpr(jax.grad(f))(jnp.ones(4, jnp.complex64))
""")

program("grad_ifft_of_real_input", "jaxpr", """
f = lambda x: jnp.sum(lax.real(lax.fft(x, 'ifft', (2, 4))))
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((2, 4)))
""")

program("jvp_ifft", "jaxpr", """
f = lambda x: lax.fft(x, 'ifft', (2, 4))
result = jax.make_jaxpr(lambda x: jax.jvp(f, (x,), (x,)))(jnp.ones((2, 4), jnp.complex64))
""")

program("jvp_rfft", "jaxpr", """
f = lambda x: lax.fft(x, 'rfft', (8,))
result = jax.make_jaxpr(lambda x, t: jax.jvp(f, (x,), (t,)))(jnp.ones(8), jnp.ones(8))
""")

program("vjp_rfft", "jaxpr", """
def f(x, ct):
  _, pullback = jax.vjp(lambda x: lax.fft(x, 'rfft', (8,)), x)
  return pullback(ct)
result = jax.make_jaxpr(f)(jnp.ones(8), jnp.ones(5, jnp.complex64))
""")

program("vjp_irfft_odd", "jaxpr", """
def f(x, ct):
  _, pullback = jax.vjp(lambda x: lax.fft(x, 'irfft', (7,)), x)
  return pullback(ct)
result = jax.make_jaxpr(f)(jnp.ones(4, jnp.complex64), jnp.ones(7))
""")

program("grad_frequency_filter", "jaxpr", """
w = jnp.array([1.0, 0.5, 0.25, 0.0, 0.0], jnp.complex64)
f = lambda x: jnp.sum(lax.fft(lax.fft(x, 'rfft', (8,)) * w, 'irfft', (8,)) ** 2)
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((3, 8)))
""")

program("linearize_fft", "jaxpr", """
def f(x, t):
  y, f_jvp = jax.linearize(lambda x: lax.fft(x, 'fft', (3,)), x)
  return y, f_jvp(t)
result = jax.make_jaxpr(f)(jnp.ones(3, jnp.complex64), jnp.ones(3, jnp.complex64))
""")

program("value_grad_rfft", "value", """
f = lambda x: jnp.sum(lax.real(lax.fft(x, 'rfft', (6,))) * jnp.arange(4.0))
result = jax.grad(f)(jnp.arange(1.0, 7.0))
""")

program("value_vjp_irfft", "value", """
_, pullback = jax.vjp(lambda x: lax.fft(x, 'irfft', (6,)), jnp.ones(4, jnp.complex64))
ct = pullback(jnp.arange(6.0))[0]
result = jnp.stack([lax.real(ct), lax.imag(ct)])
""")

program("value_vjp_fft", "value", """
_, pullback = jax.vjp(lambda x: lax.fft(x, 'fft', (4,)), jnp.ones(4, jnp.complex64))
ct = pullback(jnp.array([1.0, 2.0j, 3.0, -1.0j], jnp.complex64))[0]
result = jnp.stack([lax.real(ct), lax.imag(ct)])
""")
