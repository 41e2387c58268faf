"""Top-level jax names (config guards, float0, Inline, fwd_and_bwd,
make_user_context, softmax_custom_jvp), recorded from JAX 0.11.0 in ``toplevel.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py toplevel
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

program("float0", "text", "result = repr(jax.float0)")
program("float0_grad_of_int", "text",
        "result = str(jax.grad(lambda x, n: x * n, argnums=1, allow_int=True)(2.0, 3).dtype == jax.float0)")
program("inline_members", "text", "result = str([m.name for m in jax.Inline] + [jax.Inline.AUTO.value])")
program("inline_jax_early_jaxpr", "jaxpr",
        "result = jax.make_jaxpr(lambda x: jax.jit(lambda y: jnp.sin(y) * 2, inline=jax.Inline.JAX_EARLY)(x))(1.0)")
program("inline_xla_early_jaxpr", "jaxpr",
        "result = jax.make_jaxpr(lambda x: jax.jit(lambda y: jnp.sin(y) * 2, inline=jax.Inline.XLA_EARLY)(x))(1.0)")
program("fwd_and_bwd", "value", """
fwd, bwd = jax.fwd_and_bwd(lambda x, W: jnp.tanh(x @ W), argnums=(0, 1))
x = jnp.arange(4.0).reshape(2, 2) / 4
W = jnp.ones((2, 2)) / 2
y, residuals = fwd(x, W)
cot_x, cot_W = bwd(residuals, jnp.ones((2, 2)))
result = jnp.concatenate([y.ravel(), cot_x.ravel(), cot_W.ravel()])
""")
program("fwd_and_bwd_has_aux_int_argnums", "value", """
fwd, bwd = jax.fwd_and_bwd(lambda x, y: (x * y, x + y), argnums=0, has_aux=True, jitted=False)
y, res, aux = fwd(2.0, 3.0)
result = jnp.stack([y, aux, bwd(res, 1.0)])
""")
program("no_tracing_refuses_a_trace", "error", """
with jax.no_tracing(True):
  jax.jit(lambda x: x + 1)(1.0)
""")
program("no_tracing_allows_a_cache_hit", "value", """
f = jax.jit(lambda x: x * 2)
f(1.0)
with jax.no_tracing(True):
  result = f(2.0)
""")
program("no_tracing_default_context_value", "text", """
with jax.no_tracing():
  result = str(jax.config.jax_no_tracing)
""")
program("no_execution_refuses_a_call", "error", """
f = jax.jit(lambda x: x * 2)
with jax.no_execution(True):
  f(3.0)
""")
program("no_execution_allows_tracing", "jaxpr", """
with jax.no_execution(True):
  result = jax.make_jaxpr(lambda x: x * 2)(1.0)
""")
for level in ("allow", "log", "disallow", "log_explicit", "disallow_explicit"):
  program(f"transfer_guard_{level}_sets_all_three", "text", f"""
with jax.transfer_guard({level!r}):
  result = str([jax.config.jax_transfer_guard_host_to_device, jax.config.jax_transfer_guard_device_to_host,
                jax.config.jax_transfer_guard_device_to_device])
""")
program("transfer_guard_default", "text",
        "result = str([jax.config.jax_transfer_guard_host_to_device, jax.config.jax_transfer_guard])")
program("transfer_guard_bad_level", "error", "jax.transfer_guard_host_to_device('nope')")
program("transfer_guard_needs_a_value", "error", "jax.transfer_guard_device_to_host()")
program("transfer_guard_device_to_device_allows", "value", """
with jax.transfer_guard_device_to_device('disallow'):
  result = jax.device_put(jnp.ones(2), jax.devices()[0])
""")
program("array_gc_guard_levels", "text", """
out = []
for v in ('allow', 'log', 'fatal', None):
  with jax.array_garbage_collection_guard(v):
    out.append(jax.config.jax_array_garbage_collection_guard)
result = str(out)
""")
program("array_gc_guard_bad", "error", "jax.array_garbage_collection_guard('bad')")
program("thread_guard_single_process", "value", """
import threading
out = []
with jax.thread_guard(True):
  t = threading.Thread(target=lambda: out.append(jax.jit(lambda x: x + 5)(1.0)))
  t.start(); t.join()
result = out[0]
""")
program("config_defaults", "text", """
names = ['jax_allow_f16_reductions', 'jax_array_garbage_collection_guard', 'jax2tf_associative_scan_reductions',
         'jax_no_tracing', 'jax_no_execution', 'jax_thread_guard', 'jax_check_tracer_leaks', 'jax_debug_key_reuse',
         'jax_softmax_custom_jvp', 'jax_enable_custom_prng', 'jax_threefry_partitionable']
result = str([getattr(jax.config, n) for n in names])
""")
program("config_states_are_context_managers", "text", """
out = []
for cm, name in [(jax.check_tracer_leaks, 'jax_check_tracer_leaks'), (jax.debug_key_reuse, 'jax_debug_key_reuse'),
                 (jax.softmax_custom_jvp, 'jax_softmax_custom_jvp'), (jax.enable_custom_prng, 'jax_enable_custom_prng'),
                 (jax.allow_f16_reductions, 'jax_allow_f16_reductions'), (jax.threefry_partitionable, 'jax_threefry_partitionable'),
                 (jax.jax2tf_associative_scan_reductions, 'jax2tf_associative_scan_reductions')]:
  with cm(True):
    a = getattr(jax.config, name)
  with cm(False):
    b = getattr(jax.config, name)
  out.append((a, b))
result = str(out)
""")
program("legacy_prng_key_error", "error", """
with jax.legacy_prng_key('error'):
  jax.random.normal(jax.random.PRNGKey(0))
""")
program("make_user_context", "text", """
ctx = jax.make_user_context(default_value=5)
out = [ctx.value, ctx.get_global()]
with ctx(7):
  out.append(ctx.value)
out.append(ctx.value)
ctx.set_global(6)
out.append(ctx.value)
result = str(out)
""")
program("make_user_context_retraces", "text", """
traces = []
@jax.jit
def f(x):
  traces.append(1)
  return x * 2
ctx = jax.make_user_context()
f(1.0)
with ctx(1):
  f(1.0)
with ctx(2):
  f(1.0)
with ctx(1):
  f(1.0)
f(1.0)
result = str(len(traces))
""")
program("softmax_custom_jvp_jaxpr", "jaxpr", """
with jax.softmax_custom_jvp(True):
  result = jax.make_jaxpr(jax.nn.softmax)(jnp.ones(3))
""")
program("softmax_custom_jvp_grad", "value", """
x = jnp.array([1.0, 2.0, 3.0])
with jax.softmax_custom_jvp(True):
  result = jax.jacrev(jax.nn.softmax)(x)
""")
program("softmax_custom_jvp_inf_grad", "value", """
x = jnp.array([1.0, -jnp.inf, 3.0])
with jax.softmax_custom_jvp(True):
  result = jax.grad(lambda x: jax.nn.softmax(x)[0])(x)
""")
program("softmax_default_grad_jaxpr", "jaxpr", "result = jax.make_jaxpr(jax.grad(lambda x: jax.nn.softmax(x)[0]))(jnp.ones(3))")
program("softmax_custom_jvp_grad_jaxpr", "jaxpr", """
with jax.softmax_custom_jvp(True):
  result = jax.make_jaxpr(jax.grad(lambda x: jax.nn.softmax(x)[0]))(jnp.ones(3))
""")
program("allow_f16_reductions_false", "error", """
with jax.allow_f16_reductions(False):
  lax.reduce_sum(jnp.ones(3, jnp.float16), (0,))
""")
program("allow_f16_reductions_false_size_one_axis", "value", """
with jax.allow_f16_reductions(False):
  result = lax.reduce_sum(jnp.ones((1, 3), jnp.float16), (0,))
""")
program("print_environment_info_returns_string", "text",
        "result = str(jax.print_environment_info(return_string=True).splitlines()[0].split(':')[0])")
program("check_tracer_leaks_clean_programs", "value", """
with jax.check_tracer_leaks():
  a = jax.jit(lambda x: x * 3)(2.0)
  b = jax.grad(lambda x: jax.jit(lambda y: y * y)(x))(3.0)
  c, ys = lax.scan(lambda c, x: (c + x, c), 0.0, jnp.arange(3.0))
  d = lax.cond(True, lambda x: x + 1, lambda x: x - 1, 1.0)
  e = jax.vmap(jax.jit(jnp.sin))(jnp.ones(2))
  result = jnp.concatenate([jnp.stack([a, b, c, d]), ys, e])
""")
