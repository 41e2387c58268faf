"""`jax.pmap(..., donate_argnums=...)`, recorded from JAX 0.11.0 with 8 CPU
devices into ``pmap_donation.json`` (issue 22): the jaxpr's
`donated_invars`, which arguments an eager call deletes, using a deleted
array, and the argument checks.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_pmap_donation.py
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, _program = program_set()

PRELUDE = """
import warnings
warnings.simplefilter('ignore')  # (JAX: "Some donated buffers were not usable")
placed = lambda v: jax.pmap(lambda u: u)(jnp.asarray(v))  # laid out as a pmap splits it
"""


def program(name: str, expect: str, source: str) -> None:
    _program(name, expect, PRELUDE + source)


program("donate_jaxpr", "jaxpr", """
result = jax.make_jaxpr(jax.pmap(lambda a, b: a + b, donate_argnums=(1,)))(np.ones(8, np.float32),
                                                                          np.ones(8, np.float32))
""")
program("donate_jaxpr_tree_and_static", "jaxpr", """
f = jax.pmap(lambda t, s, b: t['p'] * s + t['q'] - b, static_broadcasted_argnums=1, donate_argnums=(0,))
v = np.ones((8, 2), np.float32)
result = jax.make_jaxpr(lambda t, b: f(t, 2.0, b))({'p': v, 'q': v}, v)
""")
program("donate_value_and_deleted", "text", """
f = jax.pmap(lambda x, y: x * 2 + y, donate_argnums=0)
x, y = placed(np.arange(8.)), placed(np.ones(8))
out = f(x, y)
result = str((out.tolist(), x.is_deleted(), y.is_deleted()))
""")
program("donate_plain_array_not_deleted", "text", """
f = jax.pmap(lambda x: x * 2, donate_argnums=0)
x = jnp.arange(8.)
out = f(x)
result = str((out.tolist(), x.is_deleted()))
""")
program("donate_broadcast_from_first_device", "text", """
f = jax.pmap(lambda a, b: a + b, in_axes=(0, None), donate_argnums=1)
a, b = placed(np.arange(8.)), jnp.ones(())
out = f(a, b)
result = str((out.tolist(), a.is_deleted(), b.is_deleted()))
""")
program("donate_replicated_too_big", "text", """
mesh = jax.sharding.Mesh(np.array(jax.devices()[:8]), ('_internal_pmap_axis_name',))
c = jax.device_put(jnp.ones(8), jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec()))
out = jax.pmap(lambda a, c: a + c.sum(), in_axes=(0, None), donate_argnums=1)(placed(np.arange(8.)), c)
result = str((out.tolist(), c.is_deleted()))
""")
program("donate_other_axis_name", "text", """
w = placed(np.ones(8))
out = jax.pmap(lambda w: w - lax.pmean(w, 'i'), axis_name='i', donate_argnums=0)(w)
result = str((out.tolist(), w.is_deleted()))
""")
program("donate_use_after", "error", """
f = jax.pmap(lambda x: x * 2, donate_argnums=0)
x = placed(np.arange(8.))
f(x)
x + 1
""")
program("donate_read_after", "error", """
f = jax.pmap(lambda x: x - 1, donate_argnums=(0,))
x = placed(np.arange(16.).reshape(8, 2))
f(x)
np.asarray(x)
""")
program("donate_tree_one_result", "text", """
h = jax.pmap(lambda t: t['a'] + t['b'], donate_argnums=0)
t = {'a': placed(np.arange(8.)), 'b': placed(np.arange(8.))}
h(t)
result = str((t['a'].is_deleted(), t['b'].is_deleted()))
""")
program("donate_two_results", "text", """
h = jax.pmap(lambda a, b: (a * b, a.astype(jnp.int32)), donate_argnums=(0, 1))
a, b = placed(np.arange(8.)), placed(np.arange(8.))
h(a, b)
result = str((a.is_deleted(), b.is_deleted()))
""")
program("donate_keyword_never", "text", """
h = jax.pmap(lambda a, b: a + b, donate_argnums=(0, 1))
a, b = placed(np.arange(8.)), placed(np.arange(8.))
h(a, b=b)
result = str((a.is_deleted(), b.is_deleted()))
""")
program("donate_shape_mismatch", "text", """
h = jax.pmap(lambda a: a.sum(), donate_argnums=0)
a = placed(np.arange(24.).reshape(8, 3))
out = h(a)
result = str((out.tolist(), a.is_deleted()))
""")
program("donate_after_static", "text", """
g = jax.pmap(lambda a, s, b: a * s + b, static_broadcasted_argnums=1, donate_argnums=2)
a, b = placed(np.arange(8.)), placed(np.arange(8.))
out = g(a, 3.0, b)
result = str((out.tolist(), a.is_deleted(), b.is_deleted()))
""")
program("donate_identity", "text", """
h = jax.pmap(lambda a: a, donate_argnums=0)
a = placed(np.arange(8.))
out = h(a)
result = str((out.tolist(), a.is_deleted(), out.is_deleted()))
""")
program("donate_out_of_range", "text", """
h = jax.pmap(lambda a: a + 1, donate_argnums=3)
a = placed(np.arange(8.))
out = h(a)
result = str((out.tolist(), a.is_deleted()))
""")
program("donate_under_jit", "text", """
a = placed(np.arange(8.))
out = jax.jit(lambda v: jax.pmap(lambda u: u * 2, donate_argnums=0)(v))(a)
result = str((out.tolist(), a.is_deleted()))
""")
program("donate_debug_nans", "text", """
a = placed(np.arange(8.))
with jax.debug_nans(True):
  out = jax.pmap(lambda u: u * 2, donate_argnums=0)(a)
result = str((out.tolist(), a.is_deleted()))
""")
program("donate_static_intersect", "error", """
jax.pmap(lambda a, s: a + s, static_broadcasted_argnums=1, donate_argnums=(0, 1))
""")
program("donate_not_an_int", "error", """
jax.pmap(lambda a: a, donate_argnums='a')
""")
program("donate_float", "error", """
jax.pmap(lambda a: a, donate_argnums=1.5)
""")
program("donate_tuple_with_str", "error", """
jax.pmap(lambda a: a, donate_argnums=(0, 'x'))
""")
