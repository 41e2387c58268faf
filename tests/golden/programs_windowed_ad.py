"""Autodiff programs for the windowed and cumulative reductions and the
general reduce, recorded from JAX 0.11.0 into ``windowed_ad.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py windowed_ad

The set covers reduce_window_sum's transpose (pad the cotangent, reduce it
again), reduce_window_max/min's JVP (select_and_gather_add) and its
transpose (select_and_scatter_add, with base dilation), the general
reduce_window's JVP (a reduce_window of primal/tangent pairs), the general
reduce's JVP (a balanced tree of the vmapped computation), cumsum's
transpose and the JVPs of cumprod, cummax, cummin and cumlogsumexp (a
parallel prefix scan), plus values of gradients.
"""

from __future__ import annotations

import textwrap

from programs_core import Program, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS: list[Program] = []

# Programs whose jaxprs differ from JAX's only through rules outside this
# family, kept here (not recorded) until those are fixed: pad's transpose
# writes its padding config and slice bounds as ints where JAX's are
# np.int64 (slicing.py), and custom_jvp_call prints its rule as `jvp`
# where JAX prints the rule's name, `_logaddexp_jvp` (custom_derivatives.py).
# Move them to PROGRAMS (and re-record) once both print as JAX does.
PENDING: list[Program] = []


def program(name: str, expect: str, source: str, pending: str = "") -> None:
  if any(p.name == name for p in PROGRAMS + PENDING):
    raise ValueError(f"duplicate program name {name!r}")
  (PENDING if pending else PROGRAMS).append(Program(name, textwrap.dedent(source).strip("\n") + "\n", expect))


# ---- reduce_window_sum ----

program("grad_reduce_window_sum_1d", "jaxpr", """
f = lambda x: lax.reduce_window(x, 0., lax.add, (3,), (2,), 'VALID').sum()
result = jax.make_jaxpr(jax.grad(f))(jnp.ones(9))
""")

program("grad_reduce_window_sum_dilations_padding", "jaxpr", """
f = lambda x: lax.reduce_window(x, 0., lax.add, (2, 3), (2, 1), ((1, 0), (0, 2)),
                                base_dilation=(1, 2), window_dilation=(2, 1)).sum()
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((5, 4)))
""")

program("jvp_reduce_window_sum", "jaxpr", """
f = lambda x: lax.reduce_window(x, 0., lax.add, (2, 2), (1, 1), 'SAME')
result = jax.make_jaxpr(lambda x: jax.jvp(f, (x,), (x,)))(jnp.ones((3, 4)))
""")

program("grad_avg_pool_nhwc", "jaxpr", """
def f(x):
  return jnp.sum(lax.reduce_window(x, 0., lax.add, (1, 2, 2, 1), (1, 2, 2, 1), 'VALID') / 4.0)
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((2, 4, 6, 3)))
""")

# ---- reduce_window_max / min ----

program("grad_reduce_window_max_1d", "jaxpr", """
f = lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (3,), (2,), ((1, 0),)).sum()
result = jax.make_jaxpr(jax.grad(f))(jnp.arange(10.))
""")

program("jvp_reduce_window_max", "jaxpr", """
f = lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (3,), (2,), ((1, 0),)).sum()
result = jax.make_jaxpr(lambda x: jax.jvp(f, (x,), (x,)))(jnp.arange(10.))
""")

program("grad_max_pool_2d", "jaxpr", """
def f(x):
  return jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 3, 3), (1, 1, 2, 2), 'SAME') ** 2)
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((1, 2, 5, 6)))
""")

program("grad_reduce_window_min_base_dilation", "jaxpr", """
f = lambda x: lax.reduce_window(x, jnp.inf, lax.min, (2, 2), (1, 1), 'SAME', base_dilation=(2, 1)).sum()
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((5, 4)))
""")

program("jvp_of_vjp_max_pool", "jaxpr", """
def g(x):
  y, vjp_fun = jax.vjp(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2,), (1,), 'VALID'), x)
  return jax.jvp(vjp_fun, (y,), (y,))
result = jax.make_jaxpr(g)(jnp.arange(10.))
""")

program("grad_of_grad_max_pool", "jaxpr", """
f = lambda x: jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (2,), (1,), 'VALID') ** 2)
result = jax.make_jaxpr(jax.grad(lambda x: jnp.sum(jax.grad(f)(x) ** 2)))(jnp.arange(6.))
""")

program("grad_max_pool_window_dilation_error", "error", """
f = lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2,), (1,), 'VALID', window_dilation=(2,)).sum()
result = jax.grad(f)(jnp.arange(6.))
""")

# ---- the general reduce_window ----

program("jvp_reduce_window_mul", "jaxpr", """
f = lambda x: lax.reduce_window(x, 1., lax.mul, (2,), (1,), 'VALID')
result = jax.make_jaxpr(lambda x: jax.jvp(f, (x,), (x,)))(jnp.arange(1., 7.))
""")

program("jvp_reduce_window_variadic", "jaxpr", """
def f(x, y):
  return lax.reduce_window((x, y), (0., 1.), lambda a, b: (a[0] + b[0], a[1] * b[1]),
                           (2, 2), (1, 2), ((0, 1), (1, 0)))
result = jax.make_jaxpr(lambda x, y: jax.jvp(f, (x, y), (y, x)))(jnp.ones((3, 4)), jnp.ones((3, 4)))
""")

# ---- the general reduce ----

program("jvp_reduce_variadic", "jaxpr", """
f = lambda x: lax.reduce((x, x), (0., 1.), lambda a, b: (a[0] + b[0], a[1] * b[1]), (0,))
result = jax.make_jaxpr(lambda x: jax.jvp(f, (x,), (x,)))(jnp.ones((5, 2)))
""")

program("grad_reduce_mul_non_identity", "jaxpr", """
f = lambda x: lax.reduce(x, 2., lax.mul, (1,)).sum()
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((2, 3)))
""", pending="pad transpose")

program("grad_reduce_two_axes", "jaxpr", """
f = lambda x: lax.reduce(x, 0., lambda a, b: a * 0.5 + b, (0, 2)).sum()
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((3, 2, 2)))
""", pending="pad transpose")

# ---- cumulative reductions ----

program("grad_cumsum", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.cumsum(x).sum()))(jnp.arange(1., 6.))
""")

program("grad_cumsum_reverse_axis1", "jaxpr", """
f = lambda x: jnp.sum(lax.cumsum(x, axis=1, reverse=True) ** 2)
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((2, 4)))
""")

program("jvp_cumprod", "jaxpr", """
result = jax.make_jaxpr(lambda x: jax.jvp(lax.cumprod, (x,), (x,)))(jnp.arange(1., 6.))
""")

program("jvp_cummax_axis1", "jaxpr", """
f = lambda x: lax.cummax(x, axis=1)
result = jax.make_jaxpr(lambda x: jax.jvp(f, (x,), (x,)))(jnp.ones((2, 4)))
""")

program("jvp_cummin_reverse", "jaxpr", """
f = lambda x: lax.cummin(x, reverse=True)
result = jax.make_jaxpr(lambda x: jax.jvp(f, (x,), (x,)))(jnp.ones(3))
""")

program("linearize_cumprod", "jaxpr", """
def f(x, t):
  y, f_jvp = jax.linearize(lax.cumprod, x)
  return y, f_jvp(t)
result = jax.make_jaxpr(f)(jnp.ones(4), jnp.ones(4))
""")

program("linearize_cummax", "jaxpr", """
def f(x, t):
  y, f_jvp = jax.linearize(lambda x: lax.cummax(x, axis=0), x)
  return y, f_jvp(t)
result = jax.make_jaxpr(f)(jnp.ones((3, 2)), jnp.ones((3, 2)))
""")

program("vjp_cumsum_under_jit", "jaxpr", """
def f(x, ct):
  out, vjp_fun = jax.vjp(jax.jit(lambda x: lax.cumsum(x, axis=1)), x)
  return vjp_fun(ct)
result = jax.make_jaxpr(f)(jnp.ones((2, 3)), jnp.ones((2, 3)))
""")

program("grad_max_pool_under_jit", "jaxpr", """
f = jax.jit(lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (2, 2), 'VALID').sum())
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((4, 4)))
""")

program("grad_cummax_reverse", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.cummax(x, reverse=True).sum()))(jnp.arange(1., 6.))
""", pending="pad transpose")

program("grad_cumprod", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.cumprod(x).sum()))(jnp.arange(1., 5.))
""", pending="pad transpose")

program("grad_cumlogsumexp", "jaxpr", """
result = jax.make_jaxpr(jax.grad(lambda x: lax.cumlogsumexp(x).sum()))(jnp.arange(1., 4.))
""", pending="pad transpose, custom_jvp rule name")

# ---- values ----

program("value_grad_max_pool_ties", "value", """
x = jnp.array([[1., 3., 3., 0.], [2., 3., 1., 5.], [4., 4., 0., 5.]])
f = lambda x: jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (2, 2), (1, 1), 'SAME') * jnp.arange(12.).reshape(3, 4))
result = jax.grad(f)(x)
""")

program("value_grad_min_pool_strided_padded", "value", """
x = jnp.sin(jnp.arange(30.)).reshape(5, 6)
f = lambda x: jnp.sum(lax.reduce_window(x, jnp.inf, lax.min, (3, 2), (2, 2), ((1, 1), (0, 1))) ** 2)
result = jax.grad(f)(x)
""")

program("value_grad_max_pool_base_dilation", "value", """
x = jnp.cos(jnp.arange(12.)).reshape(3, 4)
f = lambda x: jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (2, 3), (1, 2), 'SAME', base_dilation=(2, 1)) ** 2)
result = jax.grad(f)(x)
""")

program("value_grad_reduce_window_sum", "value", """
x = jnp.cos(jnp.arange(20.)).reshape(4, 5)
f = lambda x: jnp.sum(jnp.sin(lax.reduce_window(x, 0., lax.add, (2, 3), (1, 2), ((1, 0), (1, 1)),
                                                base_dilation=(2, 1), window_dilation=(1, 2))))
result = jax.grad(f)(x)
""")

program("value_jvp_reduce_window_mul", "value", """
x = jnp.arange(1., 7.)
f = lambda x: lax.reduce_window(x, 1., lax.mul, (3,), (1,), 'SAME')
result = jax.jvp(f, (x,), (jnp.sin(x),))[1]
""")

program("value_grad_cumprod_with_zero", "value", """
x = jnp.array([2., 0., 3., 1.5, -1.])
result = jax.grad(lambda x: jnp.sum(lax.cumprod(x) * jnp.arange(5.)))(x)
""")

program("value_grad_cummax_ties", "value", """
x = jnp.array([1., 3., 2., 3., 5., 0.])
result = jax.grad(lambda x: jnp.sum(lax.cummax(x) * jnp.arange(6.)))(x)
""")

program("value_grad_cummin_reverse", "value", """
x = jnp.array([[1., -3., 2.], [0.5, 0.25, 4.]])
result = jax.grad(lambda x: jnp.sum(lax.cummin(x, axis=1, reverse=True) ** 3))(x)
""")

program("value_grad_cumlogsumexp", "value", """
x = jnp.array([0.5, -1., 2., 0., 1.])
result = jax.grad(lambda x: jnp.sum(lax.cumlogsumexp(x) * jnp.arange(1., 6.)))(x)
""")

program("value_grad_cumsum_reverse", "value", """
x = jnp.arange(6.).reshape(2, 3)
result = jax.grad(lambda x: jnp.sum(lax.cumsum(x, axis=0, reverse=True) ** 2))(x)
""")

program("value_grad_reduce_variadic_argmax", "value", """
def f(x):
  idx = jnp.cos(x)  # both operands carry tangents (JAX fails on a zero one)
  def pick(a, b):
    keep = a[0] >= b[0]
    return lax.select(keep, a[0], b[0]), lax.select(keep, a[1], b[1])
  vals, _ = lax.reduce((x, idx), (-jnp.inf, 0.), pick, (1,))
  return jnp.sum(vals ** 2)
result = jax.grad(f)(jnp.array([[1., 4., 2., 3.], [0., -1., 5., 5.]]))
""")
