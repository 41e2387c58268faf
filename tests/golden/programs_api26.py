"""Issue 26 names (lax.rng_uniform, dce_sink, stage, select_and_scatter_p,
jax.experimental.xla_metadata, jax.default_prng_impl), recorded from JAX
0.11.0 in ``api26.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py api26
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

# -- rng_uniform: XLA's stateful RNG (values unspecified: shapes, types, errors)
program("rng_uniform_jaxpr", "jaxpr", "result = jax.make_jaxpr(lambda a, b: lax.rng_uniform(a, b, (2, 3)))(0., 1.)")
program("rng_uniform_int_jaxpr", "jaxpr", "result = jax.make_jaxpr(lambda a, b: lax.rng_uniform(a, b, (4,)))(0, 5)")
program("rng_uniform_in_range", "value", """
u = lax.rng_uniform(2., 3., (100,))
result = jnp.stack([jnp.all(u >= 2.), jnp.all(u < 3.)])
""")
program("rng_uniform_aval", "text", "result = str(jax.typeof(lax.rng_uniform(jnp.float32(0), jnp.float32(1), (5, 2))))")
program("rng_uniform_not_scalar", "error", "result = lax.rng_uniform(jnp.zeros(2), 1., (3,))")
program("rng_uniform_mixed_dtypes", "error", "result = lax.rng_uniform(0., jnp.int32(1), (3,))")
program("rng_uniform_grad", "error", "result = jax.grad(lambda a: lax.rng_uniform(a, 2., ()))(1.)")
program("rng_uniform_vmap", "error", "result = jax.vmap(lambda a: lax.rng_uniform(a, 2., (2,)))(jnp.zeros(3))")
# -- dce_sink
program("dce_sink_eager", "text", "result = str(lax.dce_sink(jnp.ones(3)))")
program("dce_sink_jaxpr", "jaxpr", "result = jax.make_jaxpr(lambda x: (lax.dce_sink(x), x * 2)[1])(1.)")
program("dce_sink_pytree_prevent", "jaxpr", """
result = jax.make_jaxpr(lambda x: (lax.dce_sink({'a': x, 'b': (x, x + 1)}, prevent_mlir_dce=True), x)[1])(1.)
""")
program("dce_sink_keeps_dead_work_under_jit", "jaxpr", """
def f(x):
    y = jnp.sin(x)
    lax.dce_sink(y)
    return x * 2
result = jax.make_jaxpr(jax.jit(f))(1.)
""")
program("dce_sink_jit_value", "value", "result = jax.jit(lambda x: (lax.dce_sink(jnp.cos(x)), x * 2)[1])(1.)")
program("dce_sink_grad_jaxpr", "jaxpr", "result = jax.make_jaxpr(jax.grad(lambda x: (lax.dce_sink(x), x * 2)[1]))(1.)")
program("dce_sink_grad_value", "value", "result = jax.grad(lambda x: (lax.dce_sink(x * x), x * 3)[1])(1.)")
program("dce_sink_vmap_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lambda x: (lax.dce_sink((x, x)), x * 2)[1]))(jnp.ones(3))
""")
# -- stage
program("stage_scalar", "value", "result = lax.stage(1.0)")
program("stage_numpy", "value", "result = lax.stage(np.arange(3, dtype=np.int32))")
program("stage_in_jaxpr", "jaxpr", "result = jax.make_jaxpr(lambda x: lax.stage(2.0) + lax.stage(np.arange(3.)) + x)(1.)")
program("stage_p_bind_tracer", "jaxpr", "result = jax.make_jaxpr(lambda x: lax.stage_p.bind(x))(1.)")
program("stage_p_grad", "jaxpr", "result = jax.make_jaxpr(jax.grad(lambda x: lax.stage_p.bind(x) * 2))(1.)")
program("stage_p_bind_int", "value", "result = lax.stage_p.bind(3)")
# -- select_and_scatter_p (JAX's private _select_and_scatter binds it)
_SAS = """
from {mod} import _select_and_scatter
x = jnp.array([[1., 5, 2, 8], [3, 4, 9, 0], [7, 6, 1, 2]])
src = jnp.array([[10., 20], [30, 40]])
f = lambda x, s: _select_and_scatter(x, lax.ge, (2, 2), (1, 2), ((0, 0), (0, 0)), s, jnp.float32(0), lax.add)
"""


def _sas(body: str) -> str:
    # The helper's module differs (jax._src.lax.windowed_reductions in JAX).
    return ("mod = 'pyjax._src.lax.select_and_scatter' if jax.__name__ == 'pyjax' else "
            "'jax._src.lax.windowed_reductions'\n"
            "exec(" + repr(_SAS) + ".format(mod=mod))\n" + body)


program("select_and_scatter_value", "value", _sas("result = f(x, src)"))
program("select_and_scatter_jaxpr", "jaxpr", _sas("result = jax.make_jaxpr(f)(x, src)"))
program("select_and_scatter_jit", "value", _sas("result = jax.jit(f)(x, src)"))
program("select_and_scatter_padded_mul_le", "value", _sas("""
g = lambda x, s: _select_and_scatter(x, lax.le, (2, 2), (1, 1), ((1, 0), (0, 1)), s, jnp.float32(1), lax.mul)
result = g(x, jnp.arange(12.).reshape(3, 4) + 1)
"""))
program("select_and_scatter_overlapping_add", "value", _sas("""
y = jnp.array([[0.1, 0.7, 0.3, 0.9, 0.2], [0.6, 0.4, 0.8, 0.5, 0.05]])
s = jnp.array([[1., 2., 3., 4.]]) * 0.1
result = _select_and_scatter(y, lax.ge, (2, 2), (1, 1), ((0, 0), (0, 0)), s, jnp.float32(0.5), lax.add)
"""))
program("select_and_scatter_grad", "error", _sas("result = jax.grad(lambda x: f(x, src).sum())(x)"))
program("select_and_scatter_vmap", "error", _sas("result = jax.vmap(f)(x[None], src[None])"))
program("select_and_scatter_bad_strides", "error", _sas("""
result = _select_and_scatter(x, lax.ge, (2, 2), (1,), ((0, 0), (0, 0)), src, jnp.float32(0), lax.add)
"""))
# -- jax.experimental.xla_metadata
_XM = "import importlib\nxm = importlib.import_module(jax.__name__ + '.experimental.xla_metadata')\n"
program("xla_metadata_context_jaxpr", "jaxpr", _XM + """
with xm.set_xla_metadata(a=1, b="x"):
    result = jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(1.)
""")
program("xla_metadata_value_jaxpr", "jaxpr", _XM + """
result = jax.make_jaxpr(lambda x: xm.set_xla_metadata(jnp.sin(x), b=2, a=1) * 2)(1.)
""")
program("xla_metadata_value_eager", "value", _XM + "result = xm.set_xla_metadata(jnp.arange(3.), a=1)")
program("xla_metadata_value_grad", "value", _XM + """
result = jax.grad(lambda x: xm.set_xla_metadata(x * x, a=1) * 2)(3.)
""")
program("xla_metadata_call_jaxpr", "jaxpr", _XM + """
result = jax.make_jaxpr(xm.xla_metadata_call(lambda x, y: (jnp.sin(x) * y, y), a=1, flag=True, r=0.5))(1., 2.)
""")
program("xla_metadata_call2_jaxpr", "jaxpr", _XM + """
result = jax.make_jaxpr(xm.xla_metadata_call2(lambda x: jnp.cos(x), {'k': 'v'}, ad_metadata='drop'))(1.)
""")
program("must_fuse_call_jaxpr", "jaxpr", _XM + """
result = jax.make_jaxpr(lambda x: xm.must_fuse_call('1')(lambda v: jnp.square(v).sum())(x))(jnp.ones(3))
""")
program("xla_metadata_call_values", "value", _XM + """
f = xm.xla_metadata_call(lambda x: x * x + 1., a=1)
result = jnp.stack([f(2.), jax.jit(f)(3.), jax.grad(f)(2.), *jax.vmap(f)(jnp.arange(2.))])
""")
program("xla_metadata_call_bad_value", "error", _XM + "result = xm.xla_metadata_call(lambda x: x, a=[1])(1.)")
program("xla_metadata_call2_bad_ad", "error", _XM + "result = xm.xla_metadata_call2(lambda x: x, ad_metadata=3)(1.)")
program("xla_metadata_call2_not_callable", "error", _XM + "result = xm.xla_metadata_call2(3, {'a': 1})")
program("fuse_limit_jaxpr", "jaxpr", _XM + """
with xm.fuse_limit():
    result = jax.make_jaxpr(lambda x: x + 1)(1.)
""")
# -- jax.default_prng_impl
program("default_prng_impl_rbg", "text", """
with jax.default_prng_impl("rbg"):
    k = jax.random.key(0)
result = str(jax.random.key_impl(k)) + " " + str(jax.typeof(k))
""")
program("default_prng_impl_bad", "error", "result = jax.default_prng_impl('bad')")
