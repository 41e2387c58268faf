"""jax.ref programs (mutable array references), recorded from JAX 0.11.0 in
``refs.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py refs
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

# --- eager
program("eager_new_ref_repr", "text", "result = repr(jax.new_ref(jnp.arange(3.0)))")
program("eager_new_ref_weak_scalar_repr", "text", "result = repr(jax.new_ref(1.0))")
program("eager_typeof", "text", "result = str(jax.typeof(jax.new_ref(jnp.ones((2, 3), jnp.int32))))")
program("eager_read_write", "value", """
r = jax.new_ref(jnp.arange(3.0))
r[...] = r[...] + 1
r[0] = 10.0
result = r[...]
""")
program("eager_addupdate_swap", "value", """
r = jax.new_ref(jnp.arange(4.0))
jax.ref.addupdate(r, 1, 5.0)
old = jax.ref.swap(r, 2, 7.0)
result = jnp.concatenate([jax.freeze(r), old[None]])
""")
program("eager_slices", "value", """
r = jax.new_ref(jnp.arange(16.0).reshape(4, 4))
r[1:3, :2] = jnp.zeros((2, 2))
result = jnp.concatenate([r[-1], r[jax.ds(1, 2), 0], r[1:, 2], r[::2, 3]])
""")
program("eager_dynamic_index_clamps", "value", """
r = jax.new_ref(jnp.arange(16.0).reshape(4, 4))
result = r[jnp.array([1, 5])]
""")
program("eager_scatter_duplicates", "value", """
r = jax.new_ref(jnp.arange(4.0))
r[jnp.array([0, 0, 1])] = jnp.array([5.0, 6.0, 7.0])
jax.ref.addupdate(r, jnp.array([0, 0]), jnp.array([1.0, 1.0]))
result = jax.freeze(r)
""")
program("eager_int_ref", "value", """
r = jax.new_ref(jnp.int32(3))
r[...] = 4
result = r[...]
""")
program("eager_get_function", "value", """
r = jax.new_ref(jnp.arange(6.0).reshape(2, 3))
result = jax.ref.get(r, (1, jax.ds(1, 2)))
""")
program("error_set_dtype", "error", "r = jax.new_ref(jnp.int32(3)); r[...] = 4.5")
program("error_set_shape", "error", "r = jax.new_ref(jnp.int32(3)); r[...] = jnp.ones(2, jnp.int32)")
program("error_addupdate_shape", "error", "r = jax.new_ref(jnp.zeros(3)); jax.ref.addupdate(r, ..., 2.0)")
program("error_out_of_bound_index", "error", "r = jax.new_ref(jnp.zeros((4, 4))); result = r[5]")
program("error_too_many_indices", "error", "r = jax.new_ref(jnp.zeros((4, 4))); result = r[1, 2, 3]")
program("error_out_of_bound_ds", "error", "r = jax.new_ref(jnp.zeros(4)); result = r[jax.ds(3, 2)]")
program("error_ref_arithmetic", "error", "result = jax.new_ref(jnp.zeros(3)) + 1")
program("error_ref_method", "error", "result = jax.new_ref(jnp.zeros(3)).sum()")

# --- jaxprs
program("jaxpr_get_set_addupdate_swap_freeze", "jaxpr", """
def f(x):
    r = jax.new_ref(x)
    r[...] += 1.
    r[0] = 5.
    y = r[1:]
    jax.ref.addupdate(r, ..., jnp.full(3, 2.))
    o = jax.ref.swap(r, 2, 7.)
    return jax.freeze(r), o, y
result = jax.make_jaxpr(f)(jnp.arange(3.))
""")
program("jaxpr_indexing_notation", "jaxpr", """
def f(x, i):
    r = jax.new_ref(x)
    outs = [r[...], r[:], r[1:3], r[::2], r[jax.ds(i, 2)], r[jax.ds(1, 2)], r[2, 1:3], r[i, 0], r[(0, 1)],
            r[jnp.int32(1)], r[-1], jax.ref.get(r, ()), jax.ref.get(r, None)]
    r[1:3, :2] = jnp.zeros((2, 2))
    jax.ref.swap(r, (0,), jnp.ones(4))
    jax.ref.set(r, None, jnp.ones((4, 4)))
    return outs
result = jax.make_jaxpr(f)(jnp.ones((4, 4)), 1)
""")
program("jaxpr_unused_reads", "jaxpr", """
def f(x, i):
    r = jax.new_ref(x)
    r[i] = jnp.zeros(4)
    y = r[1:, i]
    z = r[:, 0]
    return jax.freeze(r), y
result = jax.make_jaxpr(f)(jnp.ones((3, 4)), 1)
""")
program("jaxpr_jvp_empty_ref_free_ref", "jaxpr", """
def f(x):
    r = jax.empty_ref(jax.ShapeDtypeStruct((3,), jnp.float32))
    r[...] = x * 2
    y = r[...]
    jax.free_ref(r)
    return y.sum()
result = jax.make_jaxpr(lambda x, t: jax.jvp(f, (x,), (t,)))(jnp.ones(3), jnp.ones(3))
""")
program("jaxpr_ref_argument", "jaxpr", """
def g(r, x):
    r[...] = r[...] * x
    return x
result = jax.make_jaxpr(g)(jax.new_ref(jnp.ones(3)), 2.)
""")
program("jaxpr_closed_over_ref", "jaxpr", """
r = jax.new_ref(jnp.arange(3.))
def f():
    r[...] += 1
    return r[0]
result = jax.make_jaxpr(f)()
""")
program("jaxpr_jvp", "jaxpr", """
def g(x):
    r = jax.new_ref(0.)
    r[...] += x * x
    jax.ref.addupdate(r, (), jnp.sin(x))
    return r[...]
result = jax.make_jaxpr(lambda x: jax.jvp(g, (x,), (jnp.float32(1.),)))(jnp.float32(2.))
""")
program("jaxpr_vmap", "jaxpr", """
def g(x):
    r = jax.new_ref(0.)
    r[...] += x * x
    jax.ref.addupdate(r, (), jnp.sin(x))
    return r[...]
result = jax.make_jaxpr(jax.vmap(g))(jnp.ones(3))
""")

# --- jit
program("jit_mutates_argument", "value", """
r = jax.new_ref(jnp.ones(3))
@jax.jit
def g(r, x):
    r[...] = r[...] * x
    return x
g(r, 2.)
g(r, 3.)
result = jax.freeze(r)
""")
program("jit_mutates_closed_over", "value", """
r = jax.new_ref(jnp.arange(3.))
def f():
    r[...] += 1
    return r[0]
a = jax.jit(f)()
result = jnp.concatenate([r[...], a[None]])
""")
program("jit_internal_ref", "value", """
def f(x):
    r = jax.new_ref(x)
    r[...] += 1.
    r[0] = 5.
    jax.ref.addupdate(r, ..., jnp.full(3, 2.))
    o = jax.ref.swap(r, 2, 7.)
    return jnp.concatenate([jax.freeze(r), o[None]])
result = jax.jit(f)(jnp.arange(3.))
""")
program("jit_loop_accumulates", "value", """
def f(xs):
    acc = jax.new_ref(jnp.zeros(2))
    for k in range(3):
        jax.ref.addupdate(acc, ..., xs[k])
    return acc[...]
result = jax.jit(f)(jnp.arange(6.0).reshape(3, 2))
""")
program("jit_dynamic_slice_write", "value", """
def f(x, i):
    r = jax.new_ref(x)
    r[jax.ds(i, 2)] = jnp.zeros(2)
    return jax.freeze(r)
result = jax.jit(f)(jnp.arange(5.0), 2)
""")
program("error_jit_returns_new_ref", "error", "result = jax.jit(lambda x: jax.new_ref(x))(1.)")
program("error_jit_returns_argument_ref", "error", "result = jax.jit(lambda r: r)(jax.new_ref(jnp.ones(3)))")
program("error_jit_aliased_refs", "error", """
r = jax.new_ref(jnp.ones(3))
result = jax.jit(lambda a, b: (a[...], b[...]))(r, r)
""")

# --- transformations
program("jvp_values", "value", """
def g(x):
    r = jax.new_ref(0.)
    r[...] += x * x
    jax.ref.addupdate(r, (), jnp.sin(x))
    return r[...]
p, t = jax.jvp(g, (jnp.float32(2.),), (jnp.float32(1.),))
result = jnp.stack([p, t])
""")
program("vmap_values", "value", """
def g(x):
    r = jax.new_ref(0.)
    r[...] += x * x
    jax.ref.addupdate(r, (), jnp.sin(x))
    return r[...]
result = jax.vmap(g)(jnp.arange(3.0))
""")
program("vmap_indexed_write", "value", """
def g(x):
    r = jax.new_ref(x)
    r[1] = x[0] * 10
    return jax.freeze(r)
result = jax.vmap(g)(jnp.arange(6.0).reshape(2, 3))
""")
program("vmap_batched_ref_argument", "value", """
r = jax.new_ref(jnp.zeros((2, 3)))
def h(r, x):
    r[...] += x
jax.vmap(h)(r, jnp.ones((2, 3)))
result = jax.freeze(r)
""")
program("error_vmap_unbatched_ref", "error", """
r = jax.new_ref(jnp.zeros(3))
def h(r, x):
    r[...] += x
jax.vmap(h, in_axes=(None, 0))(r, jnp.ones((2, 3)))
""")
program("error_jvp_undifferentiated_ref", "error", """
r = jax.new_ref(jnp.zeros(3))
def h(x):
    r[...] += x
    return r[...]
jax.jvp(h, (jnp.ones(3),), (jnp.ones(3),))
""")
