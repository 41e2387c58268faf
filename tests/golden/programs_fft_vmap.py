"""vmap of fft, recorded from JAX 0.11.0 into ``fft_vmap.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py fft_vmap

The transform acts on trailing axes, so the batch axis moves to the front;
JAX calls its jitted `fft` from the rule, so a vmapped transform stages a
jit inside the batched jit.
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


program("fft_in_axes_1", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: lax.fft(x, 'fft', (4,)), in_axes=1))(jnp.ones((4, 3), jnp.complex64))
""")

program("rfft2_batch_last", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: lax.fft(x, lax.FftType.RFFT, (2, 6)), in_axes=2))(jnp.ones((2, 6, 3)))
""")

program("irfft_batch_first", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: lax.fft(x, 'irfft', (8,))))(jnp.ones((3, 5), jnp.complex64))
""")

program("jnp_fft_ifft_roundtrip", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: jnp.fft.ifft(jnp.fft.fft(x)), in_axes=1))(jnp.ones((4, 3)))
""")

program("value_rfft_per_column", "value", """
x = jnp.arange(12.).reshape(4, 3)
result = jax.vmap(lambda c: lax.real(lax.fft(c, 'rfft', (4,))), in_axes=1)(x)
""")
