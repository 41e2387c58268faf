"""Programs for issue 24 ("seeing inside compiled code"): io_callback and
its effects, ordered callbacks in loops and across jitted calls, their
errors under vmap and autodiff, effects_barrier, jax_debug_nans /
jax_debug_infs messages and leaked-tracer reports. Recorded in
debugging.json (see programs_core.py for the format; record with
`/tmp/jax-ref/bin/python tests/golden/record_core.py debugging`).

pyjax's FloatingPointError messages go beyond JAX's: they add
" at FILE:LINE (in FUNCTION)" and the equation. The debug_nans programs
therefore record the message up to that addition (`_head`), which must be
JAX's whole message."""

from programs_core import program_set

PROGRAMS, program = program_set()

_IO = "io_callback = jax.experimental.io_callback\n"
_HEAD = """
def _head(f, *args):
  try:
    f(*args)
  except FloatingPointError as e:
    return "FloatingPointError: " + str(e).split(" at ")[0].split(chr(10))[0]
  return "no error"
"""

# --- io_callback: jaxprs
program("io_callback_jaxpr", "jaxpr", _IO + """
def host(a): return a
result = jax.make_jaxpr(lambda a: io_callback(host, jax.ShapeDtypeStruct(a.shape, a.dtype), a))(jnp.ones(3))
""")
program("io_callback_ordered_jaxpr", "jaxpr", _IO + """
def host(a): return a
result = jax.make_jaxpr(lambda a: io_callback(host, jax.ShapeDtypeStruct(a.shape, a.dtype), a, ordered=True))(jnp.ones(3))
""")
program("io_callback_in_jit_jaxpr", "jaxpr", _IO + """
def host(a): return a
inner = jax.jit(lambda a: io_callback(host, jax.ShapeDtypeStruct(a.shape, a.dtype), a, ordered=True))
result = jax.make_jaxpr(lambda a: inner(a) * 2.0)(jnp.ones(3))
""")
program("io_callback_no_results_in_scan_jaxpr", "jaxpr", _IO + """
def host(a): pass
def body(c, x):
  io_callback(host, None, x, ordered=True)
  return c + x, None
result = jax.make_jaxpr(lambda xs: lax.scan(body, 0.0, xs)[0])(jnp.ones(3))
""")
program("io_callback_in_cond_jaxpr", "jaxpr", _IO + """
def host(a): pass
result = jax.make_jaxpr(lambda a: lax.cond(a > 0, lambda: io_callback(host, None, a, ordered=True), lambda: None))(1.0)
""")
program("io_callback_in_while_jaxpr", "jaxpr", _IO + """
def step(c): return c + 1
sds = jax.ShapeDtypeStruct((), jnp.float32)
result = jax.make_jaxpr(lambda a: lax.while_loop(lambda c: c < 3, lambda c: io_callback(step, sds, c, ordered=True), a))(1.0)
""")
program("io_callback_unordered_vmap_is_scan", "jaxpr", _IO + """
def host(a): return a
sds = jax.ShapeDtypeStruct((), jnp.float32)
result = jax.make_jaxpr(jax.vmap(lambda a: io_callback(host, sds, a)))(jnp.arange(3.0))
""")
program("io_callback_unordered_vmap_with_unbatched_arg", "jaxpr", _IO + """
def host(a, b): return a * b
sds = jax.ShapeDtypeStruct((2,), jnp.float32)
result = jax.make_jaxpr(jax.vmap(lambda a, b: io_callback(host, sds, a, b), in_axes=(0, None)))(jnp.ones((3, 2)), jnp.ones(2))
""")

# --- io_callback: when it runs
program("io_callback_ordered_in_scan_runs_in_order", "value", _IO + """
def show(x): print("step", x)
def body(c, x):
  io_callback(show, None, x, ordered=True)
  return c + x, c
f = jax.jit(lambda xs: lax.scan(body, 0.0, xs))
carry, ys = f(jnp.arange(4.0))
io_callback(show, None, 100.0, ordered=True)
f(jnp.arange(2.0) + 10)
jax.effects_barrier()
result = ys
""")
program("io_callback_unused_result_still_runs", "value", _IO + """
def show(x):
  print("called with", x)
  return x
f = jax.jit(lambda a: (io_callback(show, jax.ShapeDtypeStruct(a.shape, a.dtype), a), a * 2)[1])
result = f(jnp.arange(3.0))
jax.effects_barrier()
""")
program("io_callback_in_while_runs_each_iteration", "value", _IO + """
def step(c):
  print("iteration", c)
  return c + 1
sds = jax.ShapeDtypeStruct((), jnp.float32)
result = jax.jit(lambda a: lax.while_loop(lambda c: c < 3, lambda c: io_callback(step, sds, c, ordered=True), a))(0.0)
jax.effects_barrier()
""")
program("io_callback_in_cond_runs_taken_branch", "value", _IO + """
def show(x): print("branch", x)
f = jax.jit(lambda a: lax.cond(a > 0, lambda: io_callback(show, None, a, ordered=True), lambda: None))
f(1.0); f(-1.0); f(2.0)
jax.effects_barrier()
result = jnp.zeros(())
""")
program("io_callback_unordered_vmap_values", "value", _IO + """
def host(a):
  print("example", a)
  return a * 2
sds = jax.ShapeDtypeStruct((), jnp.float32)
result = jax.vmap(lambda a: io_callback(host, sds, a))(jnp.arange(3.0))
jax.effects_barrier()
""")
program("io_callback_pytree_results", "value", _IO + """
def host(a): return {"x": a + 1, "y": (a * 2,)}
sds = jax.ShapeDtypeStruct((2,), jnp.float32)
out = jax.jit(lambda a: io_callback(host, {"x": sds, "y": (sds,)}, a))(jnp.ones(2))
result = out["x"] + out["y"][0]
""")
program("effects_barrier_returns_none", "text", """
result = repr(jax.effects_barrier())
""")

# --- io_callback: errors
program("io_callback_ordered_vmap_error", "error", _IO + """
sds = jax.ShapeDtypeStruct((), jnp.float32)
jax.vmap(lambda a: io_callback(lambda a: a, sds, a, ordered=True))(jnp.ones(2))
""")
program("io_callback_grad_error", "error", _IO + """
sds = jax.ShapeDtypeStruct((), jnp.float32)
jax.grad(lambda a: io_callback(lambda a: a, sds, a))(1.0)
""")
program("io_callback_jvp_error", "error", _IO + """
sds = jax.ShapeDtypeStruct((), jnp.float32)
jax.jvp(lambda a: io_callback(lambda a: a, sds, a), (1.0,), (1.0,))
""")
program("io_callback_transpose_error", "error", _IO + """
sds = jax.ShapeDtypeStruct((), jnp.float32)
jax.linear_transpose(lambda a: io_callback(lambda a: a, sds, a), 1.0)(1.0)
""")
program("io_callback_x64_result_error", "error", _IO + """
io_callback(lambda a: a, jax.ShapeDtypeStruct((), np.float64), 1.0)
""")

# --- ordered debug prints under vmap run per example (no error)
program("ordered_debug_print_under_vmap", "value", """
jax.vmap(lambda a: jax.debug.print("a={}", a, ordered=True))(jnp.arange(2.0))
jax.effects_barrier()
result = jnp.zeros(())
""")

# --- jax_debug_nans / jax_debug_infs: JAX's message (pyjax adds the location)
program("debug_nans_messages", "text", _HEAD + """
with jax.debug_nans(True):
  lines = [
    _head(jnp.log, -1.0),
    _head(jnp.log, jnp.array([-1.0, 2.0])),
    _head(lambda: jnp.zeros(2) / 0.0),
    _head(jax.jit(lambda x: jnp.log(x) * 2), -1.0),
    _head(jax.grad(jnp.sqrt), -1.0),
    _head(jnp.log, 2.0),
    _head(jax.jit(lambda x: jnp.log(x) * 2), 2.0),
  ]
result = "\\n".join(lines)
""")
program("debug_infs_messages", "text", _HEAD + """
with jax.debug_infs(True):
  lines = [
    _head(jnp.log, 0.0),
    _head(jnp.exp, 1000.0),
    _head(jax.jit(lambda x: jnp.exp(x) + 1.0), jnp.float32(1000.0)),
    _head(jnp.log, -1.0),
  ]
result = "\\n".join(lines)
""")
program("debug_nans_off_computes_nan", "value", """
with jax.debug_nans(True):
  pass
result = jax.jit(lambda x: jnp.log(x) * 2)(-1.0)
""")

# --- leaked tracers (jax.checking_leaks)
_LEAK = """
import re
leaked = []
def f(x):
  leaked.append(x)
  return x + 1
def _leak_message(run):
  try:
    with jax.checking_leaks():
      run()
  except Exception as e:
    return type(e).__name__ + ": " + re.sub(r"\\d{6,}", "ID", str(e))
  return "no error"
"""
program("leak_under_jit_message", "text", _LEAK + """
result = _leak_message(lambda: jax.jit(f)(1.0))
""")
program("leak_under_make_jaxpr_message", "text", _LEAK + """
result = _leak_message(lambda: jax.make_jaxpr(f)(1.0))
""")
program("no_leak_no_error", "text", _LEAK + """
result = _leak_message(lambda: jax.jit(lambda x: x * 2)(1.0))
""")

# --- jax.experimental.checkify
_CK = """
import importlib
checkify = importlib.import_module(jax.__name__ + ".experimental.checkify")
def f(x):
  checkify.check(x > 0, "x must be positive, got {}", x)
  return jnp.log(x)
"""
program("checkify_user_check_messages", "text", _CK + """
lines = [repr(checkify.checkify(f)(jnp.float32(-1.0))[0].get()),
         repr(checkify.checkify(f)(jnp.float32(1.0))[0].get()),
         repr(jax.jit(checkify.checkify(f))(jnp.float32(-2.0))[0].get()),
         repr(checkify.checkify(jax.jit(f))(jnp.float32(-3.0))[0].get()),
         repr(checkify.checkify(jax.grad(f))(jnp.float32(-4.0))[0].get()),
         repr(jax.vmap(checkify.checkify(f))(jnp.array([1.0, -1.0, -2.0]))[0].get())]
result = "\\n".join(lines)
""")
program("checkify_value_of_output", "value", _CK + """
err, result = checkify.checkify(f)(jnp.float32(2.0))
""")
program("checkify_throw", "error", _CK + """
err, out = checkify.checkify(f)(jnp.float32(-1.0))
err.throw()
""")
program("checkify_no_error_repr", "text", _CK + """
err, out = checkify.checkify(f, errors=checkify.all_checks)(jnp.float32(1.0))
result = repr(err.get()) + " " + repr(err.throw())
""")
program("checkify_automatic_checks", "text", """
import importlib
checkify = importlib.import_module(jax.__name__ + ".experimental.checkify")
lines = [
  repr(checkify.checkify(lambda x: jnp.log(x), errors=checkify.nan_checks)(jnp.float32(-1.0))[0].get()),
  repr(checkify.checkify(lambda x, y: x // y, errors=checkify.div_checks)(jnp.int32(1), jnp.int32(0))[0].get()),
  repr(checkify.checkify(lambda x, i: x[i], errors=checkify.index_checks)(jnp.ones(3), jnp.int32(5))[0].get()),
  repr(checkify.checkify(lambda x, i: x[i], errors=checkify.index_checks)(jnp.ones(3), jnp.int32(1))[0].get()),
  repr(checkify.checkify(lambda x: jnp.exp(x), errors=checkify.float_checks)(jnp.float32(1000.0))[0].get()),
  repr(checkify.checkify(lambda x: jnp.log(x), errors=checkify.user_checks)(jnp.float32(-1.0))[0].get()),
]
result = "\\n".join(lines)
""")
program("checkify_in_control_flow", "text", """
import importlib
checkify = importlib.import_module(jax.__name__ + ".experimental.checkify")
def body(c, x):
  checkify.check(x < 2, "too big {x}", x=x)
  return c + x, None
lines = [
  repr(checkify.checkify(lambda xs: lax.scan(body, 0.0, xs))(jnp.arange(4.0))[0].get()),
  repr(checkify.checkify(lambda xs: lax.scan(body, 0.0, xs))(jnp.arange(2.0))[0].get()),
  repr(checkify.checkify(lambda x: lax.cond(x > 0, lambda: checkify.check(x > 5, "cond {}", x), lambda: None))(jnp.float32(1.0))[0].get()),
  repr(checkify.checkify(lambda x: lax.while_loop(lambda c: c < 5, lambda c: (checkify.check(c < 3, "loop {}", c), c + 1)[1], x))(jnp.float32(0.0))[0].get()),
  repr(jax.jit(checkify.checkify(lambda xs: lax.scan(body, 0.0, xs)))(jnp.arange(4.0))[0].get()),
]
result = "\\n".join(lines)
""")
program("checkify_check_eager_raises", "error", """
import importlib
checkify = importlib.import_module(jax.__name__ + ".experimental.checkify")
checkify.check(jnp.float32(-1.0) > 0, "bad {}", jnp.float32(-1.0))
""")
program("checkify_check_staged_without_checkify_error", "error", """
import importlib
checkify = importlib.import_module(jax.__name__ + ".experimental.checkify")
def g(x):
  checkify.check(x > 0, "bad")
  return x
jax.jit(g)(jnp.float32(1.0))
""")
program("checkify_check_non_array_format_arg_error", "error", """
import importlib
checkify = importlib.import_module(jax.__name__ + ".experimental.checkify")
checkify.checkify(lambda x: checkify.check(x > 0, "x={}", 1.5))(jnp.float32(1.0))
""")
program("checkify_check_true_with_non_str_message", "text", """
import importlib
checkify = importlib.import_module(jax.__name__ + ".experimental.checkify")
result = repr(checkify.check(True, 3))
""")

# --- leaked tracers: vmap (appended after the checkify programs)
program("leak_under_vmap_message", "text", _LEAK + """
result = _leak_message(lambda: jax.vmap(f)(jnp.ones(2)))
""")
program("no_leak_under_grad", "text", _LEAK + """
result = _leak_message(lambda: jax.grad(f)(1.0))
""")

# --- jax.debug.breakpoint: a scripted jdb session (its stdin and stdout given)
program("breakpoint_scripted_session", "text", """
import io
out = io.StringIO()
def inner(x):
  y = x * 2.0
  jax.debug.breakpoint(stdin=io.StringIO("p y\\nx + 1\\nup\\np z\\nup\\ndown\\ndown\\nfoo\\nc\\n"), stdout=out)
  return y
def outer(x):
  z = x + 1
  return inner(z)
jax.jit(outer)(jnp.arange(3.0))
jax.effects_barrier()
result = out.getvalue()
""")

# --- effects printed with the jaxpr (Jaxpr.pretty_print(print_effects=True))
program("print_effects_io_in_jit_and_top", "text", _IO + """
sds = jax.ShapeDtypeStruct((), jnp.float32)
inner = jax.jit(lambda y: io_callback(lambda y: y, sds, y, ordered=True))
result = jax.make_jaxpr(lambda x: inner(x) * 2.0)(1.0).pretty_print(print_effects=True)
""")
program("print_effects_debug_in_scan_and_cond", "text", """
def body(c, x):
  jax.debug.print("{}", x)
  return c + x, None
def f(xs):
  s = lax.scan(body, 0.0, xs)[0]
  lax.cond(s > 0, lambda: jax.debug.print("positive {}", s), lambda: None)
  return s
result = jax.make_jaxpr(f)(jnp.ones(3)).pretty_print(print_effects=True)
""")
program("print_effects_none", "text", """
result = jax.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(1.0).pretty_print(print_effects=True)
""")

# --- effects in the jaxprs of jit, cond, scan and while (issue 24: "exactly as JAX prints them")
program("print_effects_debug_print_in_jit", "text", """
f = jax.jit(lambda x: (jax.debug.print("x={}", x), x * 2)[1])
result = jax.make_jaxpr(lambda x: f(x) + 1)(1.0).pretty_print(print_effects=True)
""")
program("debug_print_in_jit_jaxpr", "jaxpr", """
f = jax.jit(lambda x: (jax.debug.print("x={}", x), x * 2)[1])
result = jax.make_jaxpr(lambda x: f(x) + 1)(1.0)
""")
program("print_effects_ordered_debug_in_cond_branches", "text", """
def f(p, x):
  return lax.cond(p, lambda x: (jax.debug.print("a {}", x, ordered=True), x)[1], lambda x: x + 1, x)
result = jax.make_jaxpr(f)(True, 1.0).pretty_print(print_effects=True)
""")
program("ordered_debug_in_cond_jaxpr", "jaxpr", """
def f(p, x):
  return lax.cond(p, lambda x: (jax.debug.print("a {}", x, ordered=True), x)[1], lambda x: x + 1, x)
result = jax.make_jaxpr(f)(True, 1.0)
""")
program("print_effects_io_in_scan_body", "text", _IO + """
def body(c, x):
  io_callback(lambda a: None, None, x)
  return c + x, None
result = jax.make_jaxpr(lambda xs: lax.scan(body, 0.0, xs)[0])(jnp.ones(3)).pretty_print(print_effects=True)
""")
program("print_effects_io_in_while_body", "text", _IO + """
sds = jax.ShapeDtypeStruct((), jnp.float32)
f = lambda a: lax.while_loop(lambda c: c < 3, lambda c: io_callback(lambda c: c + 1, sds, c), a)
result = jax.make_jaxpr(f)(1.0).pretty_print(print_effects=True)
""")
program("print_effects_debug_in_while_cond_fun", "text", """
def cond(c):
  jax.debug.print("c {}", c)
  return c < 3
result = jax.make_jaxpr(lambda a: lax.while_loop(cond, lambda c: c + 1, a))(1.0).pretty_print(print_effects=True)
""")
program("print_effects_ordered_jit_in_scan", "text", """
g = jax.jit(lambda x: (jax.debug.print("{}", x, ordered=True), x)[1])
f = lambda xs: lax.scan(lambda c, x: (c + g(x), None), 0.0, xs)[0]
result = jax.make_jaxpr(f)(jnp.ones(2)).pretty_print(print_effects=True)
""")
program("print_effects_debug_under_grad", "text", """
def f(x):
  jax.debug.print("x {}", x)
  return jnp.sin(x)
result = jax.make_jaxpr(jax.grad(f))(1.0).pretty_print(print_effects=True)
""")
program("print_effects_debug_under_vmap", "text", """
def f(x):
  jax.debug.print("x {}", x)
  return x * 2
result = jax.make_jaxpr(jax.vmap(f))(jnp.ones(2)).pretty_print(print_effects=True)
""")
program("print_effects_of_jit_trace", "text", """
f = jax.jit(lambda x: (jax.debug.print("x={}", x, ordered=True), x * 2)[1])
result = f.trace(1.0).jaxpr.pretty_print(print_effects=True)
""")
program("effects_of_jaxpr_and_eqns", "text", """
f = jax.jit(lambda x: (jax.debug.print("x={}", x, ordered=True), x * 2)[1])
jp = jax.make_jaxpr(lambda x: lax.cond(x > 0, f, lambda x: x, x))(1.0)
result = repr([str(e) for e in jp.effects]) + " " + repr([[str(x) for x in eqn.effects] for eqn in jp.eqns])
""")

# --- tokens: lax.create_token, lax.after_all and the token type
_TOK = "t = lax.create_token()\n"
program("token_create_jaxpr", "jaxpr", """
result = jax.make_jaxpr(lambda: lax.create_token())()
""")
program("token_create_ignores_argument_jaxpr", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.create_token(x))(1.0)
""")
program("token_after_all_jaxpr", "jaxpr", """
result = jax.make_jaxpr(lambda: lax.after_all(lax.create_token(), lax.create_token()))()
""")
program("token_after_all_no_operands_jaxpr", "jaxpr", """
result = jax.make_jaxpr(lambda: lax.after_all())()
""")
program("token_argument_jaxpr", "jaxpr", _TOK + """
result = jax.make_jaxpr(lambda t: lax.after_all(t, t))(t)
""")
program("token_jit_argument_and_result_jaxpr", "jaxpr", _TOK + """
result = jax.make_jaxpr(jax.jit(lambda t, x: (lax.after_all(t), x)))(t, 1.0)
""")
program("token_jit_trace_jaxpr", "jaxpr", _TOK + """
result = jax.jit(lambda t: lax.after_all(t, lax.create_token())).trace(t).jaxpr
""")
program("token_unused_kept_in_traced_jaxpr", "jaxpr", """
result = jax.jit(lambda x: (lax.create_token(), x)[1]).trace(1.0).jaxpr
""")
program("token_in_while_carry_jaxpr", "jaxpr", _TOK + """
body = lambda c: (lax.after_all(c[0]), c[1] + 1)
result = jax.make_jaxpr(lambda t: lax.while_loop(lambda c: c[1] < 3, body, (t, 0)))(t)
""")
program("token_under_grad_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: (lax.after_all(lax.create_token(x)), x * 2.)[1]))(1.0)
""")
program("token_under_vmap_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: (lax.after_all(lax.create_token(x)), x * 2)[1]))(jnp.ones(3))
""")
program("token_print_effects", "text", """
result = jax.make_jaxpr(lambda: lax.create_token())().pretty_print(print_effects=True)
""")
program("token_values", "text", _TOK + """
a = lax.after_all(t, t)
j = jax.jit(lambda t: lax.after_all(t, lax.create_token()))(t)
aval = jax.typeof(t)
result = repr([type(x).__name__ for x in (t, a, j, lax.create_token(1.0))]) + " " + repr(aval) + " " + str(aval) \\
    + " " + aval.str_short() + " " + repr(jax.typeof(a) is aval) + " " + repr(t.block_until_ready()) \\
    + " " + repr(jax.block_until_ready(t) is t) + " " + repr(jax.tree.leaves(t) == [t]) \\
    + " " + repr(jax.eval_shape(lambda: lax.create_token()))
""")
program("token_grad_and_vmap_values", "value", _TOK + """
g = jax.grad(lambda x, t: (lax.after_all(t), x * 2.)[1])(1.0, t)
v = jax.vmap(lambda x, t: (lax.after_all(t), x * 2.)[1], in_axes=(0, None))(jnp.ones(3), t)
result = v + g
""")
program("token_after_all_array_error", "error", """
lax.after_all(jnp.ones(3))
""")
program("token_after_all_scalar_error", "error", _TOK + """
lax.after_all(t, 1.0)
""")
program("token_jnp_error", "text", _TOK + """
import re
try:
  jnp.add(t, 1)
  result = "no error"
except TypeError as e:  # (the class's module is the implementation's own)
  result = re.sub(r"<class '[\\w.]+[.](\\w+)'>", r"<class \\1>", str(e))
""")
program("token_vmap_in_axis_error", "error", _TOK + """
jax.vmap(lambda x, t: x * 2., in_axes=(0, 0))(jnp.ones(3), t)
""")

# --- pure_callback: the vmap_methods the new_primitives set leaves out
for _method in ("sequential_unrolled", "broadcast_all", "legacy_vectorized"):
  program(f"pure_callback_vmap_{_method}_jaxpr", "jaxpr", f"""
def host(a, b): return np.asarray(a) + np.asarray(b)
sds = jax.ShapeDtypeStruct((2,), jnp.float32)
f = jax.vmap(lambda a: jax.pure_callback(host, sds, a, jnp.ones(2), vmap_method="{_method}"))
result = jax.make_jaxpr(f)(jnp.ones((3, 2)))
""")
  program(f"pure_callback_vmap_{_method}_shapes", "value", f"""
def host(a, b):
  print("shapes", np.shape(a), np.shape(b))
  return np.asarray(a) + np.asarray(b)
sds = jax.ShapeDtypeStruct((2,), jnp.float32)
result = jax.vmap(lambda a: jax.pure_callback(host, sds, a, jnp.ones(2), vmap_method="{_method}"))(jnp.arange(6.0).reshape(3, 2))
""")
