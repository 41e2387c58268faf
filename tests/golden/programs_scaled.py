"""Block-scaled products: jax.nn.scaled_matmul / scaled_dot_general /
get_scaled_dot_general_config and lax.scaled_dot, recorded from JAX 0.11.0
in ``scaled.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py scaled

mxfp8 and nvfp4 quantization (the same quantized values as JAX, so the same
products), their custom VJP, batchless operands, the global scale, float8
inputs, and the shape errors.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

# float32 products of the same quantized values: only the summation order differs.
TOLERANCE = (1e-5, 1e-5)

DATA = """
rng = np.random.default_rng(0)
lhs = jnp.asarray(rng.normal(size=(2, 32, 64)).astype(np.float32))
rhs = jnp.asarray(rng.normal(size=(2, 32, 64)).astype(np.float32))
dn = (((2,), (2,)), ((0,), (0,)))
"""

program("scaled_matmul_basic", "value", """
a = jnp.array([1, 2, 3.]).reshape((1, 1, 3))
b = jnp.array([4, 5, 6.]).reshape((1, 1, 3))
s = jnp.array([0.5]).reshape((1, 1, 1))
result = jax.nn.scaled_matmul(a, b, s, s)
""")
program("scaled_matmul_blocks", "value", DATA + """
result = jax.nn.scaled_matmul(lhs, rhs, jnp.full((2, 32, 4), 0.5), jnp.arange(256.0).reshape(2, 32, 4) / 64)
""")
program("scaled_matmul_float8", "value", DATA + """
result = jax.nn.scaled_matmul(lhs.astype(jnp.float8_e4m3fn), rhs.astype(jnp.float8_e4m3fn),
                              jnp.ones((2, 32, 2), jnp.float8_e8m0fnu), jnp.full((2, 32, 2), 2, jnp.float8_e8m0fnu))
""")
program("scaled_matmul_bfloat16_out", "value", DATA + """
result = jax.nn.scaled_matmul(lhs, rhs, jnp.ones((2, 32, 2)), jnp.ones((2, 32, 2)), preferred_element_type=jnp.bfloat16)
""")
for mode in ("mxfp8", "nvfp4"):
  program(f"scaled_dot_general_{mode}", "value", DATA + f"""
configs = [jax.nn.get_scaled_dot_general_config({mode!r})] * 3
result = jax.nn.scaled_dot_general(lhs, rhs, dn, configs=configs)
""")
  program(f"scaled_dot_general_{mode}_grad_lhs", "value", DATA + f"""
configs = [jax.nn.get_scaled_dot_general_config({mode!r})] * 3
result = jax.grad(lambda l, r: (jax.nn.scaled_dot_general(l, r, dn, configs=configs) ** 2).sum())(lhs, rhs)
""")
  program(f"scaled_dot_general_{mode}_grad_rhs", "value", DATA + f"""
configs = [jax.nn.get_scaled_dot_general_config({mode!r})] * 3
result = jax.grad(lambda l, r: jax.nn.scaled_dot_general(l, r, dn, configs=configs).sum(), argnums=1)(lhs, rhs)
""")
  program(f"scaled_dot_general_{mode}_no_batch_bf16", "value", DATA + f"""
configs = [jax.nn.get_scaled_dot_general_config({mode!r})] * 3
out = jax.nn.scaled_dot_general(lhs[0], rhs[0].T, (((1,), (0,)), ((), ())), configs=configs,
                                preferred_element_type=jnp.bfloat16)
result = out.astype(jnp.float32)
""")
  program(f"scaled_dot_general_{mode}_jit", "value", DATA + f"""
configs = [jax.nn.get_scaled_dot_general_config({mode!r})] * 3
result = jax.jit(lambda l, r: jax.nn.scaled_dot_general(l, r, dn, configs=configs))(lhs * 100, rhs)
""")
program("scaled_dot_general_nvfp4_global_scale", "value", DATA + """
c = jax.nn.get_scaled_dot_general_config('nvfp4', jnp.array([0.5], jnp.float32))
result = jax.nn.scaled_dot_general(lhs, rhs, dn, configs=[c] * 3)
""")
program("scaled_dot_general_no_configs", "value", DATA + "result = jax.nn.scaled_dot_general(lhs, rhs, dn)")
program("scaled_dot_general_configs_repr", "text", """
result = str([jax.nn.get_scaled_dot_general_config('mxfp8'), jax.nn.get_scaled_dot_general_config('nvfp4').block_size])
""")
program("scaled_dot_general_bad_mode", "error", "jax.nn.get_scaled_dot_general_config('int8')")
program("scaled_dot_general_bad_out_type", "error", DATA + """
jax.nn.scaled_dot_general(lhs, rhs, dn, preferred_element_type=jnp.int32,
                          configs=[jax.nn.get_scaled_dot_general_config('mxfp8')] * 3)
""")
program("scaled_matmul_error_rank", "error", "jax.nn.scaled_matmul(jnp.ones((1, 3)), jnp.ones((1, 1, 3)), jnp.ones((1, 1, 1)), jnp.ones((1, 1, 1)))")
program("scaled_matmul_error_contract", "error", "jax.nn.scaled_matmul(jnp.ones((1, 1, 3)), jnp.ones((1, 1, 6)), jnp.ones((1, 1, 1)), jnp.ones((1, 1, 1)))")
program("scaled_matmul_error_scales", "error", "jax.nn.scaled_matmul(jnp.ones((1, 2, 4)), jnp.ones((1, 1, 4)), jnp.ones((1, 1, 2)), jnp.ones((1, 1, 2)))")

SD = """
rng = np.random.default_rng(1)
lhs = jnp.asarray(rng.normal(size=(2, 4, 8)).astype(np.float32))
rhs = jnp.asarray(rng.normal(size=(2, 8, 3)).astype(np.float32))
ls = jnp.asarray(rng.uniform(1, 2, size=(2, 4, 2)).astype(np.float32))
rs = jnp.asarray(rng.uniform(1, 2, size=(2, 2, 3)).astype(np.float32))
"""
program("lax_scaled_dot_default", "value", SD + "result = lax.scaled_dot(lhs, rhs).astype(jnp.float32)")
program("lax_scaled_dot_dtype", "text", SD + "result = str(lax.scaled_dot(lhs, rhs).dtype)")
program("lax_scaled_dot_float8_scales", "value", SD + """
result = lax.scaled_dot(lhs.astype(jnp.float8_e4m3fn), rhs.astype(jnp.float8_e4m3fn),
                        lhs_scale=ls.astype(jnp.float8_e8m0fnu), rhs_scale=rs.astype(jnp.float8_e8m0fnu),
                        preferred_element_type=jnp.float32)
""")
program("lax_scaled_dot_2d_float_scales", "value", SD + """
result = lax.scaled_dot(lhs[0], rhs[0], lhs_scale=ls[0], rhs_scale=rs[0], preferred_element_type=jnp.float32)
""")
program("lax_scaled_dot_vmap", "value", SD + """
result = jax.vmap(lambda a, b: lax.scaled_dot(a, b, preferred_element_type=jnp.float32))(lhs, rhs)
""")
program("lax_scaled_dot_jit_dimension_numbers", "value", SD + """
result = jax.jit(lambda a, b: lax.scaled_dot(a, b, dimension_numbers=(((1,), (1,)), ((), ())),
                                             preferred_element_type=jnp.float32))(lhs[0], rhs[0].T)
""")
for i, bad in enumerate(["lax.scaled_dot(jnp.ones(3), jnp.ones(3))",
                         "lax.scaled_dot(lhs, rhs, lhs_scale=jnp.ones((2, 4, 3)))",
                         "lax.scaled_dot(lhs, rhs, lhs_scale=jnp.ones((2, 4, 8)))",
                         "lax.scaled_dot(lhs, rhs, lhs_scale=jnp.ones((2, 3, 2)))",
                         "lax.scaled_dot(lhs, rhs[:, :4])",
                         "lax.scaled_dot(lhs, rhs, lhs_scale=jnp.ones((4, 2)))"]):
  program(f"lax_scaled_dot_error_{i}", "error", SD + bad)
