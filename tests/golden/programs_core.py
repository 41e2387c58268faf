"""Programs whose behaviour under JAX 0.11.0 is recorded in ``core.json``.

Each :class:`Program` is a small piece of JAX user code kept as source text.
The source runs with four names bound: ``jax``, ``jnp``, ``lax`` (the
implementation under test — real JAX when recording, pyjax when testing)
and ``np`` (NumPy). It must assign a variable ``result``, or raise.

``expect`` says what the program produces, and therefore what is recorded:

``"jaxpr"``  ``result`` is a jaxpr (usually ``jax.make_jaxpr(f)(*args)``);
             recorded as ``str(result)``, compared byte for byte.
``"value"``  ``result`` is an array (or scalar); recorded as shape, dtype,
             weak type (``jax.typeof(result).weak_type``) and the values as
             nested lists.
``"text"``   ``result`` is a ``str`` (a repr, an aval printed, ...).
``"error"``  running the source raises; recorded as the exception class
             name and ``str(e)``, normalised by :func:`normalise_message`.

Whatever the source prints to stdout is recorded too (key ``stdout``), so a
program can show what a tracer looks like from inside a traced function.

This module also holds the one function that runs a program and turns its
outcome into a JSON-able record (:func:`run_program`), shared by the recorder
(``record_core.py``) and the test (``tests/test_golden_core.py``), so both
sides encode and normalise in exactly the same way.
"""

from __future__ import annotations

import contextlib
import io
import re
import textwrap
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

KINDS = ("jaxpr", "value", "text", "error")


@dataclass(frozen=True)
class Program:
  """One recorded program: a unique name, its source, and its expected kind."""
  name: str
  source: str
  expect: str

  def __post_init__(self):
    if self.expect not in KINDS:
      raise ValueError(f"{self.name}: expect must be one of {KINDS}")

  @property
  def filename(self) -> str:
    """The pseudo file name the source is compiled under (shows in errors)."""
    return f"<golden-core:{self.name}>"


# --------------------------------------------------------------------------
# Normalising messages that carry source locations.
#
# Tracer errors name the traced function's location ("f at /path/x.py:10"),
# and UnexpectedTracerError lists frames as "path:line:column (function)".
# Python tracebacks use 'File "path", line N'. The path and the numbers
# depend on where the program ran, not on the behaviour being tested, so
# both the recording and the comparison replace them:
#     'File "/a/b.py", line 12'     ->  'File "<file>", line <N>'
#     '/a/b.py:12' '/a/b.py:12:6'   ->  '<file>:<N>'
#     '<golden-core:x>:3:6'         ->  '<file>:<N>'
# Everything else in the message must match exactly.

_PY_TRACEBACK_LOCATION = re.compile(r'File "[^"\n]*", line \d+')
_PATH_LINE_COLUMN = re.compile(
    r'(?:<[^<>\s]+>|[^\s"\'()<>,]+\.py):\d+(?::\d+)?')


def normalise_message(message: str) -> str:
  """Replaces file paths, line and column numbers in ``message``."""
  message = _PY_TRACEBACK_LOCATION.sub('File "<file>", line <N>', message)
  return _PATH_LINE_COLUMN.sub("<file>:<N>", message)


# --------------------------------------------------------------------------
# Running a program.

def _encode_value(value: Any, jax_module) -> dict:
  weak_type = None
  typeof = getattr(jax_module, "typeof", None)
  if typeof is not None and not isinstance(value, (np.ndarray, np.generic)):
    try:
      weak_type = bool(typeof(value).weak_type)
    except Exception:  # a Python scalar or an object without an aval
      weak_type = None
  array = np.asarray(value)
  dtype = str(array.dtype)
  if array.dtype.kind == "f" and array.dtype.itemsize < 4 or dtype == "bfloat16":
    listed = array.astype(np.float64).tolist()  # bfloat16/float16 -> floats
  else:
    listed = array.tolist()
  return {"kind": "value", "shape": list(array.shape), "dtype": dtype,
          "weak_type": weak_type, "value": listed}


def run_program(program: Program, jax_module, jnp_module, lax_module) -> dict:
  """Runs ``program`` against the given implementation; returns its record.

  The record is a JSON-able dict with ``kind`` (what actually happened, which
  may differ from ``program.expect`` when the implementation misbehaves)
  and the kind's fields; ``stdout`` is present when the program printed.
  """
  namespace = {"jax": jax_module, "jnp": jnp_module, "lax": lax_module,
               "np": np, "__name__": f"golden_core_{program.name}"}
  code = compile(textwrap.dedent(program.source), program.filename, "exec")
  captured = io.StringIO()
  record: dict
  try:
    with contextlib.redirect_stdout(captured):
      exec(code, namespace)
  except Exception as e:  # the program's outcome, recorded as data
    raw = str(e)
    record = {"kind": "error", "type": type(e).__name__,
              "message": normalise_message(raw)}
  else:
    if "result" not in namespace:
      raise RuntimeError(f"program {program.name!r} did not assign `result`")
    result = namespace["result"]
    if program.expect == "jaxpr":
      record = {"kind": "jaxpr", "text": str(result)}
    elif program.expect == "text" or isinstance(result, str):
      record = {"kind": "text", "text": str(result)}
    else:
      record = _encode_value(result, jax_module)
  out = captured.getvalue()
  if out:
    record["stdout"] = normalise_message(out)
  return record


# --------------------------------------------------------------------------
# The programs.

def program_set() -> tuple[list[Program], Callable[[str, str, str], None]]:
  """A new, empty program list and the `program(name, expect, source)` that
  adds to it. Every program set (programs_<set>.py) makes its own:
  ``PROGRAMS, program = program_set()``. Sources are dedented and end with
  one newline, so the recording and the test see the same text."""
  programs: list[Program] = []

  def program(name: str, expect: str, source: str) -> None:
    if any(p.name == name for p in programs):
      raise ValueError(f"duplicate program name {name!r}")
    programs.append(Program(name, textwrap.dedent(source).strip("\n") + "\n", expect))

  return programs, program


PROGRAMS, program = program_set()


# ---- the five seed programs (their text is known; must match verbatim) ----

program("seed_scalar_relu_affine", "jaxpr", """
result = jax.make_jaxpr(lambda x: jnp.maximum(x * 2.0 + 1.0, 0.0))(jnp.float32(3.0))
""")

program("seed_dense_layer", "jaxpr", """
def layer(x, W, b): return jnp.maximum(x @ W + b, 0.0)
result = jax.make_jaxpr(layer)(jnp.ones((4, 8)), jnp.ones((8, 16)), jnp.zeros(16))
""")

program("seed_attention_softmax", "jaxpr", """
def attend(q, k): return jax.nn.softmax(q @ k.T)
result = jax.make_jaxpr(attend)(jnp.ones((4, 8)), jnp.ones((4, 8)))
""")

program("seed_closed_over_array_const", "jaxpr", """
c = jnp.arange(3.0)
result = jax.make_jaxpr(lambda x: x + c)(jnp.ones(3))
""")

program("seed_tuple_output_add_sum_astype", "jaxpr", """
result = jax.make_jaxpr(lambda x: (x + 1, x.sum(), x.astype(jnp.int32)))(jnp.ones((2, 3)))
""")

program("seed_static_argnums_jit_broadcast_to", "jaxpr", """
from functools import partial
@partial(jax.jit, static_argnums=0)
def g(n, x): return jnp.broadcast_to(x, (n, n))
result = jax.make_jaxpr(g, static_argnums=0)(3, jnp.float32(7.0))
""")

# ---- lax primitives, one family per program ----

program("lax_binary_arithmetic", "jaxpr", """
def f(x, y):
  return (lax.add(x, y), lax.sub(x, y), lax.mul(x, y), lax.div(x, y),
          lax.neg(x), lax.max(x, y), lax.min(x, y))
result = jax.make_jaxpr(f)(jnp.ones((2, 3)), jnp.ones((2, 3)))
""")

program("lax_unary_transcendental", "jaxpr", """
def f(x):
  return (lax.exp(x), lax.log(x), lax.sin(x), lax.cos(x), lax.tanh(x),
          lax.logistic(x))
result = jax.make_jaxpr(f)(jnp.ones((2, 3)))
""")

program("lax_integer_pow", "jaxpr", """
result = jax.make_jaxpr(
    lambda x: (lax.integer_pow(x, 3), lax.integer_pow(x, -2), x ** 2))(jnp.ones(3))
""")

program("lax_comparisons", "jaxpr", """
def f(x, y):
  return (lax.eq(x, y), lax.ne(x, y), lax.lt(x, y), lax.le(x, y),
          lax.gt(x, y), lax.ge(x, y))
result = jax.make_jaxpr(f)(jnp.ones((2, 3)), jnp.zeros((2, 3)))
""")

program("lax_comparison_int_operators", "jaxpr", """
result = jax.make_jaxpr(lambda i: (i == 2, i != 2, i < 2, i >= 2))(jnp.arange(4))
""")

program("lax_select_n_bool_predicate", "jaxpr", """
result = jax.make_jaxpr(lambda p, x, y: lax.select_n(p, x, y))(
    jnp.ones((2, 3), bool), jnp.ones((2, 3)), jnp.zeros((2, 3)))
""")

program("lax_select_n_int32_three_cases", "jaxpr", """
result = jax.make_jaxpr(lambda i, x, y, z: lax.select_n(i, x, y, z))(
    jnp.zeros(4, jnp.int32), jnp.ones(4), jnp.ones(4), jnp.ones(4))
""")

program("lax_convert_element_type_dtypes", "jaxpr", """
def f(x):
  return (lax.convert_element_type(x, jnp.int32),
          lax.convert_element_type(x, jnp.bfloat16),
          x.astype(jnp.float16), x.astype(bool), x.astype(jnp.uint8))
result = jax.make_jaxpr(f)(jnp.ones((2, 3)))
""")

program("lax_convert_element_type_weak_to_strong", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.convert_element_type(x, jnp.float32))(3.0)
""")

program("lax_broadcast_in_dim", "jaxpr", """
def f(x, s):
  return (lax.broadcast_in_dim(x, (4, 2, 3), (1, 2)),
          lax.broadcast_in_dim(x, (2, 3, 5), (0, 1)),
          lax.broadcast_in_dim(s, (2, 2), ()))
result = jax.make_jaxpr(f)(jnp.ones((2, 3)), jnp.float32(1.0))
""")

program("lax_reshape", "jaxpr", """
def f(x):
  return (lax.reshape(x, (3, 2)), lax.reshape(x, (6,)), x.reshape(3, 2),
          x.reshape(-1), jnp.reshape(x, (1, 6)))
result = jax.make_jaxpr(f)(jnp.ones((2, 3)))
""")

program("lax_transpose", "jaxpr", """
result = jax.make_jaxpr(
    lambda x: (lax.transpose(x, (2, 0, 1)), x.T, jnp.transpose(x, (0, 2, 1))))(
    jnp.ones((2, 3, 4)))
""")

program("lax_reductions", "jaxpr", """
def f(x):
  return (lax.reduce_sum(x, (0,)), lax.reduce_max(x, (1,)),
          lax.reduce_min(x, (0, 1)))
result = jax.make_jaxpr(f)(jnp.ones((2, 3)))
""")

program("lax_stop_gradient", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.stop_gradient(x) * x)(jnp.ones((2, 3)))
""")

program("lax_iota_no_operands_trailing_space", "jaxpr", """
result = jax.make_jaxpr(
    lambda: (lax.iota(jnp.int32, 5), lax.iota(jnp.float32, 3),
             lax.broadcasted_iota(jnp.int32, (2, 3), 1)))()
""")

program("lax_iota_alone_flat", "jaxpr", """
result = jax.make_jaxpr(lambda: lax.iota(jnp.int32, 4))()
""")

program("lax_dot_general_default_precision", "jaxpr", """
dn = (((1,), (0,)), ((), ()))
result = jax.make_jaxpr(lambda x, y: lax.dot_general(x, y, dn))(
    jnp.ones((2, 3)), jnp.ones((3, 4)))
""")

program("lax_dot_general_preferred_element_type_bf16", "jaxpr", """
dn = (((1,), (0,)), ((), ()))
f = lambda x, y: lax.dot_general(x, y, dn, preferred_element_type=jnp.float32)
result = jax.make_jaxpr(f)(jnp.ones((2, 3), jnp.bfloat16), jnp.ones((3, 4), jnp.bfloat16))
""")

program("lax_dot_general_batch_dims", "jaxpr", """
dn = (((2,), (1,)), ((0,), (0,)))
result = jax.make_jaxpr(lambda x, y: lax.dot_general(x, y, dn))(
    jnp.ones((5, 2, 3)), jnp.ones((5, 3, 4)))
""")

program("lax_dot_general_precision_highest", "jaxpr", """
dn = (((1,), (0,)), ((), ()))
f = lambda x, y: lax.dot_general(x, y, dn, precision=lax.Precision.HIGHEST)
result = jax.make_jaxpr(f)(jnp.ones((2, 3)), jnp.ones((3, 4)))
""")

program("lax_dot_general_int32", "jaxpr", """
dn = (((1,), (0,)), ((), ()))
result = jax.make_jaxpr(lambda x, y: lax.dot_general(x, y, dn))(
    jnp.ones((2, 3), jnp.int32), jnp.ones((3, 4), jnp.int32))
""")

# ---- jax.numpy on the first primitive set ----

program("jnp_maximum_minimum", "jaxpr", """
result = jax.make_jaxpr(lambda x, y: (jnp.maximum(x, y), jnp.minimum(x, 0.5)))(
    jnp.ones(3), jnp.zeros(3))
""")

program("jnp_reductions_keepdims_axis", "jaxpr", """
def f(x):
  return (jnp.sum(x), jnp.max(x), jnp.min(x, axis=0),
          jnp.sum(x, axis=1, keepdims=True), x.max(axis=-1))
result = jax.make_jaxpr(f)(jnp.ones((2, 3)))
""")

program("jnp_mean", "jaxpr", """
result = jax.make_jaxpr(lambda x: (jnp.mean(x), jnp.mean(x, axis=0)))(jnp.ones((2, 3)))
""")

program("jnp_matmul_dot_vector", "jaxpr", """
result = jax.make_jaxpr(lambda m, v: (jnp.dot(m, v), jnp.matmul(m, v), m @ v, v @ v))(
    jnp.ones((2, 3)), jnp.ones(3))
""")

program("jnp_creation_inside_trace", "jaxpr", """
def f(x):
  return (jnp.ones((2,)), jnp.zeros((2, 2), jnp.int32), jnp.arange(4),
          jnp.arange(1.0, 4.0), jnp.asarray(x), x + jnp.array(2.0))
result = jax.make_jaxpr(f)(jnp.ones(3))
""")

program("jnp_list_constants_become_constvars", "jaxpr", """
result = jax.make_jaxpr(lambda x: x * jnp.asarray([1.0, 2.0]) + jnp.array([3, 4]))(
    jnp.ones(2))
""")

program("jnp_elementwise_unary", "jaxpr", """
result = jax.make_jaxpr(
    lambda x: jnp.tanh(jnp.cos(jnp.sin(jnp.log(jnp.exp(x))))))(jnp.ones(3))
""")

program("jnp_where_arrays", "jaxpr", """
result = jax.make_jaxpr(lambda c, x, y: jnp.where(c, x, y))(
    jnp.ones(3, bool), jnp.ones(3), jnp.zeros(3))
""")

program("jnp_where_scalar_neg_inf_literal", "jaxpr", """
result = jax.make_jaxpr(lambda x: jnp.where(x > 0, x, -jnp.inf))(jnp.ones(3))
""")

program("jnp_where_bool_literals", "jaxpr", """
result = jax.make_jaxpr(lambda x: jnp.where(x > 0, True, False))(jnp.ones(3))
""")

program("jnp_reshape_broadcast_to_expand_dims", "jaxpr", """
def f(x):
  return (jnp.reshape(x, (3, 2)), jnp.broadcast_to(x, (4, 2, 3)),
          jnp.expand_dims(x, 0))
result = jax.make_jaxpr(f)(jnp.ones((2, 3)))
""")

program("jnp_broadcast_add_rank_promotion", "jaxpr", """
result = jax.make_jaxpr(lambda x, b: x + b)(jnp.ones((4, 3)), jnp.ones(3))
""")

program("nn_relu_custom_jvp", "jaxpr", """
result = jax.make_jaxpr(jax.nn.relu)(jnp.ones((2, 3)))
""")

program("nn_softmax_axis0", "jaxpr", """
result = jax.make_jaxpr(lambda x: jax.nn.softmax(x, axis=0))(jnp.ones((3, 2)))
""")

# ---- jit inside make_jaxpr ----

program("jit_nested_lambda", "jaxpr", """
result = jax.make_jaxpr(lambda x: jax.jit(lambda y: y * 2)(x))(jnp.ones(3))
""")

program("jit_nested_two_levels", "jaxpr", """
@jax.jit
def g1(x): return x + 1.0
@jax.jit
def g2(x): return g1(x) * 2.0
result = jax.make_jaxpr(g2)(1.0)
""")

program("jit_same_subjit_twice_shared", "jaxpr", """
@jax.jit
def inner(x): return jnp.sin(x) * 2.0
result = jax.make_jaxpr(lambda x: inner(x) + inner(x + 1.0))(jnp.ones(3))
""")

program("jit_shared_name_skips_var_letter", "jaxpr", """
@jax.jit
def b(x): return x - 1.0
result = jax.make_jaxpr(lambda x: b(b(x)))(1.0)
""")

program("jit_shared_two_lambdas_unique_names", "jaxpr", """
f1 = jax.jit(lambda x: x + 1.0)
f2 = jax.jit(lambda x: x * 2.0)
result = jax.make_jaxpr(lambda x: f2(f1(f1(x))) + f2(x))(1.0)
""")

program("jit_shared_inside_and_outside", "jaxpr", """
@jax.jit
def g1(x): return x + 1.0
@jax.jit
def g2(x): return g1(x) * 2.0
result = jax.make_jaxpr(lambda x: g2(x) + g1(x))(1.0)
""")

program("jit_distinct_identical_lambdas_not_shared", "jaxpr", """
result = jax.make_jaxpr(
    lambda x: (jax.jit(lambda y: y * 2)(x), jax.jit(lambda y: y * 2)(x)))(jnp.ones(3))
""")

program("jit_eleven_eqns_hoisted", "jaxpr", """
def big(x):
  for i in range(11):
    x = x + float(i)
  return x
result = jax.make_jaxpr(lambda x: jax.jit(big)(x))(jnp.ones(3))
""")

program("jit_ten_eqns_inline", "jaxpr", """
def big10(x):
  for i in range(10):
    x = x + float(i)
  return x
result = jax.make_jaxpr(lambda x: jax.jit(big10)(x))(jnp.ones(3))
""")

program("jit_unused_output_dropvar_suggested", "jaxpr", """
result = jax.make_jaxpr(lambda x: jax.jit(lambda y: (y + 1.0, y * 2.0))(x)[0])(1.0)
""")

program("jit_nested_unused_value_keeps_name", "jaxpr", """
def f(x):
  a = jnp.sin(x)
  b = jnp.cos(x)
  return b
result = jax.make_jaxpr(lambda x: jax.jit(f)(x))(1.0)
""")

program("jit_returns_its_input", "jaxpr", """
result = jax.make_jaxpr(lambda x: jax.jit(lambda a: (a, a * 2.0))(x))(1.0)
""")

program("jit_repeated_operand", "jaxpr", """
result = jax.make_jaxpr(lambda x: jax.jit(lambda a, b: a + b)(x, x))(1.0)
""")

program("jit_literal_operand", "jaxpr", """
result = jax.make_jaxpr(lambda x: jax.jit(lambda a, b: a * b)(x, 2.0))(1.0)
""")

program("jit_keep_unused_true_shown", "jaxpr", """
f = jax.jit(lambda a, b: a * 2.0, keep_unused=True)
result = jax.make_jaxpr(f)(1.0, 2.0)
""")

program("jit_unused_argument_kept", "jaxpr", """
result = jax.make_jaxpr(lambda x, y: jax.jit(lambda a, b: a * 2.0)(x, y))(1.0, 2.0)
""")

program("jit_donate_argnums_shown", "jaxpr", """
f = jax.jit(lambda a: a * 2.0, donate_argnums=0)
result = jax.make_jaxpr(lambda x: f(x))(1.0)
""")

program("jit_inline_true_vanishes", "jaxpr", """
f = jax.jit(lambda a: a * 2.0, inline=True)
g = jax.jit(lambda a: a * 3.0)
result = jax.make_jaxpr(lambda x: f(x) + g(x))(1.0)
""")

program("jit_closure_const_inside_inner_jaxpr", "jaxpr", """
c = jnp.arange(3.0)
result = jax.make_jaxpr(lambda x: jax.jit(lambda y: y + c)(x))(jnp.ones(3))
""")

program("jit_static_argnums_inner", "jaxpr", """
from functools import partial
@partial(jax.jit, static_argnums=1)
def scale(x, n): return x * n
result = jax.make_jaxpr(lambda x: scale(x, 3) + scale(x, 4))(jnp.ones(2))
""")

program("jit_long_params_wrap_in_nested", "jaxpr", """
@jax.jit
def proj(x, w): return jnp.tanh(x @ w)
result = jax.make_jaxpr(lambda x, w: proj(x, w).sum())(jnp.ones((8, 16)), jnp.ones((16, 32)))
""")

# ---- make_jaxpr options and pytrees ----

program("make_jaxpr_static_argnums_plain_function", "jaxpr", """
result = jax.make_jaxpr(lambda n, x: x * n, static_argnums=0)(3, 1.0)
""")

program("make_jaxpr_static_argnums_tuple_last", "jaxpr", """
result = jax.make_jaxpr(lambda x, n: jnp.broadcast_to(x, (n,)), static_argnums=(1,))(
    1.0, 4)
""")

program("make_jaxpr_return_shape", "text", """
jaxpr, shapes = jax.make_jaxpr(lambda x: (x + 1, {"a": x.sum()}), return_shape=True)(
    jnp.ones(3))
result = str(jaxpr) + "\\n" + str(shapes)
""")

program("make_jaxpr_return_shape_weak", "text", """
jaxpr, shape = jax.make_jaxpr(lambda x: x * 2, return_shape=True)(1.0)
result = str(jaxpr) + "\\n" + repr(shape)
""")

program("pytree_dict_and_tuple_argument", "jaxpr", """
result = jax.make_jaxpr(lambda d: d["b"] * d["a"][0] + d["a"][1])(
    {"b": 1.0, "a": (2.0, jnp.ones(2))})
""")

program("pytree_pair_argument", "jaxpr", """
result = jax.make_jaxpr(lambda p: p[0] + p[1])((jnp.ones(2), jnp.zeros(2)))
""")

program("pytree_two_arguments", "jaxpr", """
result = jax.make_jaxpr(lambda x, y: x + y)(jnp.ones(2), jnp.zeros(2))
""")

program("pytree_nested_outputs_dict_sorted", "jaxpr", """
result = jax.make_jaxpr(lambda x: {"z": x, "a": (x * 2.0, [x + 1.0])})(1.0)
""")

program("pytree_none_leaves_and_list_argument", "jaxpr", """
result = jax.make_jaxpr(lambda xs, unused: [x * 2.0 for x in xs])(
    [jnp.ones(2), jnp.ones(3)], None)
""")

program("make_jaxpr_in_out_avals", "text", """
j = jax.make_jaxpr(lambda x, y: (x + y, (x * y).sum()))(jnp.ones((2, 3)), 1.0)
result = str(j.in_avals) + " -> " + str(j.out_avals)
""")

# ---- constants, literals, weak types ----

program("closed_over_scalar_kinds", "jaxpr", """
c0 = jnp.asarray(2.5)
c1 = jnp.int32(4)
c2 = np.array(3.0)
c3 = np.float32(0.5)
result = jax.make_jaxpr(lambda x: x * c0 + c1 + c2 + c3 + 7)(jnp.ones(3))
""")

program("closed_over_numpy_array_constvar", "jaxpr", """
c = np.array([1.0, 2.0, 3.0], np.float32)
result = jax.make_jaxpr(lambda x: x + c)(jnp.ones(3))
""")

program("weak_int_array_plus_float", "jaxpr", """
result = jax.make_jaxpr(lambda x: x + 1.0)(jnp.ones(3, jnp.int32))
""")

program("weak_float_array_plus_int", "jaxpr", """
result = jax.make_jaxpr(lambda x: x + 2)(jnp.ones(3))
""")

program("weak_int32_times_float", "jaxpr", """
result = jax.make_jaxpr(lambda x: x * 2.5)(jnp.arange(3))
""")

program("weak_bool_arithmetic", "jaxpr", """
result = jax.make_jaxpr(lambda b, x: (b + b, b * 2, x * True, b & True))(
    jnp.ones(3, bool), jnp.ones(3))
""")

program("weak_python_scalar_arguments", "jaxpr", """
result = jax.make_jaxpr(lambda x, i, y: (x + i, x * y))(1.0, 2, jnp.ones(3, jnp.float16))
""")

program("weak_small_dtypes_keep_dtype", "jaxpr", """
result = jax.make_jaxpr(lambda b, u: (b + 1.0, u + 1.0, u + np.uint8(3)))(
    jnp.ones(3, jnp.bfloat16), jnp.ones(3, jnp.uint8))
""")

program("literal_float_reprs", "jaxpr", """
result = jax.make_jaxpr(lambda x: x * 1e-10 + 1e20 + 0.1 + jnp.nan)(jnp.ones(3))
""")

program("literal_int_and_negative", "jaxpr", """
result = jax.make_jaxpr(lambda i: (i + 2, i * -3, i - 7))(jnp.arange(3))
""")

program("literal_output_no_args", "jaxpr", """
result = jax.make_jaxpr(lambda: 1.0)()
""")

program("unused_top_level_values_dropvar", "jaxpr", """
def f(x):
  a = jnp.sin(x)
  b = jnp.cos(x)
  c = a * b
  return b
result = jax.make_jaxpr(f)(1.0)
""")

# ---- empty bodies ----

program("empty_body_identity", "jaxpr", """
result = jax.make_jaxpr(lambda x: x)(jnp.ones(3))
""")

program("empty_body_unused_arg_and_duplicate_output", "jaxpr", """
result = jax.make_jaxpr(lambda x, y: (x, x))(jnp.ones(3), 2.0)
""")

program("empty_body_constvar_output", "jaxpr", """
c = jnp.ones(2)
result = jax.make_jaxpr(lambda x: (c, x))(1.0)
""")

program("empty_body_no_outputs", "jaxpr", """
result = jax.make_jaxpr(lambda x: ())(1.0)
""")

# ---- layout: long jaxprs, widths, wrapping ----

program("long_chain_50_eqns", "jaxpr", """
def f(x):
  for i in range(50):
    x = jnp.sin(x) if i % 2 == 0 else x * 1.5
  return x
result = jax.make_jaxpr(f)(1.0)
""")

program("width_one_line_80_chars", "jaxpr", """
result = jax.make_jaxpr(lambda a, b, c: a + 1.0)(jnp.ones(2), jnp.ones(2), jnp.ones(22))
""")

program("width_81_chars_breaks", "jaxpr", """
result = jax.make_jaxpr(lambda a, b, c: a + 1.0)(jnp.ones(2), jnp.ones(2), jnp.ones(222))
""")

program("width_params_end_at_col_80_flat", "jaxpr", """
dn = (((1,), (0,)), ((), ()))
n = 222222
result = jax.make_jaxpr(lambda a, b: lax.dot_general(a, b, dn))(
    jnp.ones((n, 3)), jnp.ones((3, n)))
""")

program("width_operands_wrap_after_col_80", "jaxpr", """
dn = (((1,), (0,)), ((), ()))
n = 22222
result = jax.make_jaxpr(lambda a, b: lax.dot_general(a, b, dn))(
    jnp.ones((n, 3)), jnp.ones((3, n)))
""")

program("width_params_break_one_per_line", "jaxpr", """
dn = (((1,), (0,)), ((), ()))
n = 2222222
result = jax.make_jaxpr(lambda a, b: lax.dot_general(a, b, dn))(
    jnp.ones((n, 3)), jnp.ones((3, n)))
""")

program("width_many_invars_fill", "jaxpr", """
result = jax.make_jaxpr(lambda *xs: xs[0] * 2.0)(*[jnp.ones((2, 3))] * 14)
""")

program("width_many_outvars_fill", "jaxpr", """
result = jax.make_jaxpr(lambda x: tuple(x * float(i) for i in range(30)))(jnp.ones((2, 3)))
""")

program("width_many_operands_select_n", "jaxpr", """
result = jax.make_jaxpr(lambda i, *xs: lax.select_n(i, *xs))(
    jnp.zeros((16, 16), jnp.int32), *[jnp.ones((16, 16))] * 12)
""")

# ---- errors ----

program("error_add_incompatible_shapes", "error", """
result = jnp.ones(3) + jnp.ones(4)
""")

program("error_add_incompatible_shapes_traced", "error", """
result = jax.make_jaxpr(lambda x, y: x + y)(jnp.ones((2, 3)), jnp.ones((3, 2)))
""")

program("error_matmul_shape_mismatch", "error", """
result = jnp.ones((2, 3)) @ jnp.ones((4, 5))
""")

program("error_reshape_wrong_size", "error", """
result = jnp.ones(6).reshape(4)
""")

program("error_bool_conversion_make_jaxpr", "error", """
def f(x):
  if x > 0:
    return x
  return -x
result = jax.make_jaxpr(f)(1.0)
""")

program("error_bool_conversion_jit", "error", """
@jax.jit
def f(x):
  if x > 0:
    return x
  return -x
result = f(1.0)
""")

program("error_int_of_tracer", "error", """
result = jax.make_jaxpr(lambda x: int(x))(1.0)
""")

program("error_float_of_tracer", "error", """
result = jax.make_jaxpr(lambda x: float(x) * 2)(jnp.float32(1.0))
""")

program("error_numpy_asarray_of_tracer", "error", """
result = jax.make_jaxpr(lambda x: np.asarray(x))(jnp.ones(3))
""")

program("error_range_of_tracer", "error", """
result = jax.make_jaxpr(lambda n: list(range(n)))(3)
""")

program("error_index_of_tracer", "error", """
result = jax.make_jaxpr(lambda n: n.__index__())(jnp.int32(3))
""")

program("error_leaked_tracer", "error", """
leaked = []
def f(x):
  y = x * 2.0
  leaked.append(y)
  return y
jax.make_jaxpr(f)(1.0)
result = leaked[0] + 1.0
""")

program("error_bool_of_nonscalar_array", "error", """
result = bool(jnp.ones(3))
""")

# ---- what a tracer looks like from inside (stdout), reprs and typeof ----

program("print_tracer_inside_make_jaxpr", "jaxpr", """
def f(x):
  print(type(x).__name__, "|", x.aval, "|", jax.typeof(x), "|", x.dtype, x.shape, x.ndim)
  y = x * 2.0
  print(type(y).__name__, "|", y.aval)
  return y
result = jax.make_jaxpr(f)(jnp.ones((2, 3)))
""")

program("print_weak_scalar_tracer", "jaxpr", """
def f(x):
  print(type(x).__name__, "|", x.aval, "|", jax.typeof(x).weak_type)
  return x
result = jax.make_jaxpr(f)(1.0)
""")

program("print_tracer_inside_jit", "value", """
@jax.jit
def f(x):
  print(type(x).__name__, "|", x.aval)
  return x + 1
result = f(jnp.arange(3))
""")

program("repr_eager_arrays", "text", """
result = "\\n".join([
    repr(jnp.ones(2)),
    repr(jnp.arange(3)),
    repr(jnp.array([True, False])),
    repr(jnp.ones((2, 3))),
    repr(jnp.float32(1.0)),
    repr(jnp.asarray(1.0)),
    repr(jnp.asarray(3)),
    repr(jnp.arange(3) + 1.0),
    repr(jnp.zeros((0, 3))),
    repr(jnp.array([1.5, -2.25, 1e-3])),
    repr(jnp.ones((2, 2), jnp.int32) * 7),
])
""")

program("str_eager_arrays", "text", """
result = "\\n".join([
    str(jnp.ones(2)),
    str(jnp.arange(3)),
    str(jnp.asarray(1.0)),
    str(jnp.array([True, False])),
    str(jnp.ones((2, 3))),
])
""")

program("typeof_strings", "text", """
result = " | ".join([
    str(jax.typeof(jnp.ones((2, 3)))),
    str(jax.typeof(jnp.asarray(1.0))),
    str(jax.typeof(jnp.arange(4))),
    str(jax.typeof(jnp.array([True]))),
    repr(jax.typeof(jnp.ones((2, 3)))),
    repr(jax.typeof(jnp.asarray(1.0))),
])
""")

# ---- eager values ----

program("value_int_array_plus_float_weak", "value", """
result = jnp.arange(3) + 1.0
""")

program("value_float_array_plus_int", "value", """
result = jnp.ones(3) + 2
""")

program("value_bool_add_is_or", "value", """
result = jnp.array([True, False, False]) + jnp.array([True, True, False])
""")

program("value_int32_scalar_times_float_weak", "value", """
result = jnp.int32(2) * 2.5
""")

program("value_asarray_python_float_weak", "value", """
result = jnp.asarray(1.0)
""")

program("value_float32_scalar_strong", "value", """
result = jnp.float32(3.0) * 2
""")

program("value_softmax", "value", """
result = jax.nn.softmax(jnp.array([[1.0, 2.0, 3.0], [0.0, 0.0, -1.0]]))
""")

program("value_dense_layer", "value", """
x = jnp.arange(6.0).reshape(2, 3)
W = jnp.arange(12.0).reshape(3, 4) / 10
result = jnp.maximum(x @ W - 2.0, 0.0)
""")

program("value_sum_mean_max", "value", """
x = jnp.arange(6.0).reshape(2, 3)
result = x.sum(axis=0) + 10 * x.mean(axis=0) + 100 * x.max(axis=0)
""")

program("value_lax_div_int_truncates", "value", """
result = lax.div(jnp.array([-7, 7, -1]), jnp.array([2, 2, 3]))
""")

program("value_integer_pow_and_logistic", "value", """
x = jnp.array([-2.0, 0.0, 0.5, 3.0])
result = lax.integer_pow(x, 3) + lax.logistic(x) + jnp.tanh(x)
""")

program("value_where_and_comparisons", "value", """
x = jnp.array([-1.0, 0.0, 2.0])
result = jnp.where(x > 0, x, -jnp.inf)
""")

program("value_jit_eager_call", "value", """
result = jax.jit(lambda x, y: x * y + 1)(jnp.arange(4), 3)
""")

program("value_bfloat16_convert", "value", """
result = jnp.array([1.0, 2.5, 1.0 / 3.0]).astype(jnp.bfloat16)
""")

program("value_iota_transpose", "value", """
result = lax.iota(jnp.int32, 6).reshape(2, 3).T
""")

program("value_reduce_max_all_neg_inf_bool", "value", """
result = jnp.max(jnp.array([[1, 5], [3, 2]]), axis=1) > 2
""")
