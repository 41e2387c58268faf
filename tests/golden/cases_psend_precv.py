"""lax.psend / lax.precv under JAX 0.11: their jaxprs inside shard_map (the
token, precv's invariant result, the pvary JAX inserts), their effects,
their errors outside shard_map, under vmap and under differentiation, and
what a jitted call raises on CPU.

`PRELUDE` runs first; each case is an expression whose record is `str()` of
its value or the class and message of what it raised (first line). Recorded
by record_psend_precv.py under JAX 0.11.0; compared under pyjax by
tests/test_psend_precv.py (which also runs them: JAX 0.11 cannot on CPU).
"""

from __future__ import annotations

from case_runner import run_case_first_line as run_case  # noqa: F401

PRELUDE = '''
import numpy as np
import jax
jax.config.update("jax_num_cpu_devices", 8)
import jax.numpy as jnp
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(jax.devices()[:4], ("x",))
mesh2 = Mesh(np.array(jax.devices()).reshape(2, 4), ("x", "y"))
perm = [(0, 1), (1, 2), (2, 3), (3, 0)]
sds = jax.ShapeDtypeStruct((2,), jnp.float32)
x = jnp.arange(8.0)

def ring(x):
    token = lax.psend(x, "x", perm)
    return lax.precv(token, jax.ShapeDtypeStruct(x.shape, x.dtype), "x", perm)

def smap(f, i=P("x"), o=P("x"), **kw):
    return jax.shard_map(f, mesh=mesh, in_specs=i, out_specs=o, **kw)

def effects(j):
    inner = j.eqns[0].params["jaxpr"]
    return (sorted(map(str, j.effects)), sorted(map(str, j.eqns[0].effects)),
            [sorted(str(e) for e in eqn.effects if "NamedAxis" not in repr(e)) for eqn in inner.eqns])
'''

CASES: dict[str, str] = {
    "ring_jaxpr": "jax.make_jaxpr(smap(ring))(x)",
    "ring_no_check": "jax.make_jaxpr(smap(ring, check_vma=False))(x)",
    "ring_invariant_in": "jax.make_jaxpr(smap(ring, i=P(), o=P()))(x)",
    "two_axes": "jax.make_jaxpr(jax.shard_map(lambda x: lax.precv(lax.psend(x, ('x', 'y'), [(0, 1)]), "
                "jax.ShapeDtypeStruct((1,), jnp.int32), 'y', [(1, 0)]), mesh=mesh2, in_specs=P(('x', 'y')), "
                "out_specs=P()))(x)",
    "pytree_send": "jax.make_jaxpr(smap(lambda x: (lax.psend({'a': x, 'b': (x * 2,)}, 'x', perm), x)[1]))(x)",
    "scalar_send": "jax.make_jaxpr(smap(lambda x: (lax.psend(1.0, 'x', perm), x)[1]))(x)",
    "recv_unused": "jax.make_jaxpr(smap(lambda x: (lax.precv(lax.create_token(), sds, 'x', perm), x)[1]))(x)",
    "recv_int8": "jax.make_jaxpr(smap(lambda x: lax.precv(lax.create_token(), jax.ShapeDtypeStruct((2, 3), "
                 "'int8'), ['x'], [[0, 1]]), o=P()))(x)",
    "recv_any_token": "jax.make_jaxpr(smap(lambda x: lax.precv(x, sds, 'x', perm), o=P()))(x)",
    "unchecked_perm": "jax.make_jaxpr(smap(lambda x: lax.precv(lax.psend(x, 'x', [(0, 5)]), sds, 'x', "
                      "[(0, 1), (0, 2)]), o=P()))(x)",
    "jit_keeps_send": "jax.jit(smap(lambda x: (lax.psend(x, 'x', perm), x)[1])).trace(x).jaxpr",
    "effects": "effects(jax.make_jaxpr(smap(ring))(x))",
    "effect_str": "sorted(map(str, jax.make_jaxpr(smap(ring))(x).eqns[0].params['jaxpr'].eqns[0].effects))[-1]",
    "pmap": "jax.make_jaxpr(jax.pmap(lambda x: lax.precv(lax.psend(x, 'i', perm), "
            "jax.ShapeDtypeStruct((), jnp.float32), 'i', perm), axis_name='i'))(jnp.ones(4))",
    # Errors.
    "eager_send": "lax.psend(x, 'x', perm)",
    "eager_recv": "lax.precv(lax.create_token(), sds, 'x', perm)",
    "send_unbound": "jax.make_jaxpr(lambda x: lax.psend(x, 'x', perm))(x)",
    "recv_outside": "jax.make_jaxpr(lambda t: lax.precv(t, sds, 'x', perm))(lax.create_token())",
    "recv_list_shape": "jax.make_jaxpr(smap(lambda x: lax.precv(lax.psend(x, 'x', perm), [sds], 'x', perm), "
                       "o=P()))(x)",
    "grad": "jax.grad(lambda x: smap(ring)(x).sum())(x)",
    "jvp": "jax.jvp(smap(ring), (x,), (x,))",
    "vmap_recv": "jax.make_jaxpr(jax.vmap(ring, axis_name='x'))(jnp.ones((4, 2)))",
    "vmap_send_named": "jax.make_jaxpr(jax.vmap(lambda x: lax.psend(x, 'x', perm), axis_name='x'))(jnp.ones((4, 2)))",
    "vmap_send_other": "jax.make_jaxpr(jax.vmap(lambda x: lax.psend(x, 'x', perm), axis_name='y'))(jnp.ones((3, 8)))",
    "vmap_over_shard_map": "jax.make_jaxpr(jax.vmap(smap(lambda x: (lax.psend(x, 'x', perm), x)[1])))"
                           "(jnp.ones((3, 8)))",
    "scan_carry": "jax.make_jaxpr(smap(lambda x: lax.scan(lambda c, _: (ring(c), None), x, None, length=2)[0]))(x)",
    "jit_on_cpu": "jax.jit(smap(ring))(x)",
    "jit_recv_only_cpu": "jax.jit(smap(lambda x: lax.precv(lax.create_token(), sds, 'x', perm), o=P()))(x)",
    "lower_on_cpu": "jax.jit(smap(ring)).lower(x)",
    "jit_recv_outside": "jax.jit(lambda t: lax.precv(t, sds, 'x', perm))(lax.create_token())",
}
