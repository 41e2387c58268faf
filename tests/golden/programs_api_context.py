"""jax.ensure_compile_time_eval, named_scope and named_call, recorded in ``api_context.json``.

Same format and runner as ``programs_core.py`` (see its docstring). Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py api_context

Inside ensure_compile_time_eval concrete values compute at once (they are
Arrays, usable in Python control flow, and enter the jaxpr as constants)
while traced values are still staged, under jit, grad and vmap; named_scope
and named_call change no jaxpr and no value; JAX's errors.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

program("ctev_jaxpr", "jaxpr", """
def f(x):
  with jax.ensure_compile_time_eval():
    y = jnp.sin(3.0) * 2
    z = jnp.arange(3) + 1
    w = x + 1
  return x + y + z
result = jax.make_jaxpr(f)(jnp.ones(3))
""")
program("ctev_types_inside_jit", "text", """
seen = []
def f(x):
  with jax.ensure_compile_time_eval():
    y = jnp.cos(1.0)
    seen.append(isinstance(y, jax.core.Tracer) if hasattr(jax, 'core') else type(y).__name__ == 'DynamicJaxprTracer')
    seen.append(isinstance(x * 2, jax.Array))
  return x
jax.jit(f)(1.0)
result = repr(seen)
""")
program("ctev_python_control_flow", "value", """
@jax.jit
def f(x):
  with jax.ensure_compile_time_eval():
    positive = jnp.sin(3.0) > 0
  if positive:
    return jnp.sin(x)
  return jnp.cos(x)
result = f(1.0)
""")
program("ctev_int_conversion", "jaxpr", """
def f(x):
  with jax.ensure_compile_time_eval():
    n = int(jnp.sum(jnp.arange(4)))
  return jnp.tile(x, n)
result = jax.make_jaxpr(f)(jnp.ones(2))
""")
program("ctev_under_grad", "value", """
def f(x):
  with jax.ensure_compile_time_eval():
    c = jnp.exp(1.0)
    y = x * c
  return y ** 2
result = jax.grad(f)(2.0)
""")
program("ctev_under_vmap", "value", """
def f(x):
  with jax.ensure_compile_time_eval():
    c = jnp.arange(3.0) * 2
    y = x + c
  return y
result = jax.vmap(f)(jnp.ones((2, 3)))
""")
program("ctev_eager_grad_inside", "value", """
with jax.ensure_compile_time_eval():
  result = jax.grad(lambda x: x ** 3)(2.0)
""")
program("ctev_jit_inside_jit", "jaxpr", """
g = jax.jit(lambda a: a * 3)
def f(x):
  with jax.ensure_compile_time_eval():
    c = g(jnp.float32(2.0))
  return x + c
result = jax.make_jaxpr(f)(1.0)
""")
program("ctev_tracer_to_bool_still_errors", "error", """
@jax.jit
def f(x):
  with jax.ensure_compile_time_eval():
    if x > 0:
      return x
  return -x
result = f(1.0)
""")
program("named_scope_jaxpr_unchanged", "jaxpr", """
def f(x):
  with jax.named_scope('outer'):
    with jax.named_scope('inner'):
      y = jnp.sin(x)
    return y * 2
result = jax.make_jaxpr(f)(1.0)
""")
program("named_scope_as_decorator", "value", """
@jax.named_scope('scaled')
def f(x):
  return x * 3
result = jax.jit(f)(2.0)
""")
program("named_scope_not_a_string", "error", "result = jax.named_scope(3)")
program("named_call_jaxpr", "jaxpr", """
def g(x):
  return jax.named_call(lambda a: a * 2, name='dbl')(x) + 1
result = jax.make_jaxpr(g)(1.0)
""")
program("named_call_keeps_name", "text", """
def double(a):
  return a * 2
result = repr((jax.named_call(double).__name__, jax.named_call(double, name='x').__name__))
""")
program("named_call_grad", "value", "result = jax.grad(lambda x: jax.named_call(jnp.sin, name='s')(x))(1.0)")
program("named_call_name_keyword_only", "error", "result = jax.named_call(jnp.sin, 's')")
