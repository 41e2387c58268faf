"""jax.dlpack programs, recorded from JAX 0.11.0 in ``dlpack.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py dlpack
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

program("from_numpy_float64_canonical", "value", "result = jax.dlpack.from_dlpack(np.arange(3.0))")
program("from_numpy_int64_canonical", "value", "result = jax.dlpack.from_dlpack(np.arange(3, dtype=np.int64))")
program("from_numpy_bool_scalar", "value", "result = jax.dlpack.from_dlpack(np.array(True))")
program("from_numpy_uint8_2d", "value",
        "result = jax.dlpack.from_dlpack(np.arange(6, dtype=np.uint8).reshape(2, 3))")
program("from_numpy_complex64", "value",
        "result = jnp.real(jax.dlpack.from_dlpack(np.array([1 + 2j, 3j], np.complex64)))")
program("from_numpy_float16", "value", "result = jax.dlpack.from_dlpack(np.array([0.5, 1.5], np.float16))")
program("from_jax_array", "value", "result = jax.dlpack.from_dlpack(jnp.arange(4.0) * 2)")
program("from_numpy_is_a_copy", "value", """
a = np.arange(3, dtype=np.float32)
b = jax.dlpack.from_dlpack(a, copy=True)
a[0] = 9
result = b
""")
program("numpy_reads_a_jax_array", "text", "result = repr(np.from_dlpack(jnp.arange(4.0).reshape(2, 2)))")
program("numpy_reads_int8", "text", "result = repr(np.from_dlpack(jnp.arange(3, dtype=jnp.int8)))")
program("dlpack_device", "text", "result = str(tuple(int(v) for v in jnp.ones(2).__dlpack_device__()))")
program("from_dlpack_not_an_array", "error", "result = jax.dlpack.from_dlpack([1, 2])")
program("is_supported_dtype", "text", """
result = str([jax.dlpack.is_supported_dtype(d) for d in
              (np.float32, np.float64, np.int8, np.uint64, np.bool_, np.complex64, np.complex128, jnp.bfloat16,
               np.float16, jnp.float8_e4m3fn, jnp.int4, 'float32', np.int16, np.uint32)])
""")
program("from_dlpack_under_jit_input", "value", """
x = jax.dlpack.from_dlpack(np.ones(3, np.float32))
result = jax.jit(lambda v: v * 2)(x)
""")
