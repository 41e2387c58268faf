"""lax.ragged_all_to_all with axis_index_groups under JAX 0.11: the jaxpr
(the groups as a param), JAX's checks of the groups (made when it lowers for
devices), and what vmap and reverse mode do with them. XLA:CPU cannot run a
ragged all-to-all at all, so values are not recorded: tests/test_ragged_groups.py
checks pyjax's against the documented semantics.

`PRELUDE` runs first; each case is an expression whose record is `str()` of
its value or the class and message of what it raised (first line). Recorded
by record_ragged_groups.py under JAX 0.11.0.
"""

from __future__ import annotations

from case_runner import run_case_first_line as run_case  # noqa: F401

PRELUDE = '''
import jax
jax.config.update("jax_num_cpu_devices", 8)
import jax.numpy as jnp
from jax import lax
from jax.sharding import Mesh, PartitionSpec as P

mesh = Mesh(jax.devices()[:4], ("x",))

def ragged(groups):
    def f(op, out, io, ss, oo, rs):
        return lax.ragged_all_to_all(op, out, io, ss, oo, rs, axis_name="x", axis_index_groups=groups)
    return jax.shard_map(f, mesh=mesh, in_specs=(P("x"),) * 6, out_specs=P("x"))

op = jnp.arange(16.0).reshape(16, 1)
out = jnp.zeros((16, 1))
io = jnp.array([0, 2] * 4, jnp.int32)
ss = jnp.array([2, 2] * 4, jnp.int32)
oo = jnp.array([0, 2] * 4, jnp.int32)
args = (op, out, io, ss, oo, ss)
batched = [jnp.stack([a, a]) for a in args]
halves = [a.reshape(2, -1, *a.shape[1:]) for a in args]
quarters = [a.reshape(2, 2, -1, *a.shape[1:]) for a in args]
'''

CASES: dict[str, str] = {
    "jaxpr": "jax.make_jaxpr(ragged([[0, 1], [2, 3]]))(*args)",
    "params_interleaved": "jax.make_jaxpr(ragged([[0, 2], [1, 3]]))(*args).eqns[0].params['jaxpr'].eqns[-1].params",
    "jit_unequal": "jax.jit(ragged([[0, 1, 2], [3]]))(*args)",
    "eager_unequal": "ragged([[0, 1, 2], [3]])(*args)",
    "jit_out_of_range": "jax.jit(ragged([[0, 5], [2, 3]]))(*args)",
    "vmap": "jax.make_jaxpr(jax.vmap(ragged([[0, 1], [2, 3]])))(*batched)",
    "vmap_named": "jax.make_jaxpr(jax.vmap(lambda *a: lax.ragged_all_to_all(*a, axis_name='i', "
                  "axis_index_groups=[[0, 1]]), axis_name='i'))(*halves)",
    "vmap_other_name": "jax.make_jaxpr(jax.vmap(jax.vmap(lambda *a: lax.ragged_all_to_all(*a, axis_name='i', "
                       "axis_index_groups=[[0, 1]]), axis_name='j'), axis_name='i'))(*quarters)",
    "grad_jaxpr": "jax.make_jaxpr(jax.grad(lambda op: ragged([[0, 1], [2, 3]])(op, *args[1:]).sum()))(op)",
    "jvp_jaxpr": "jax.make_jaxpr(lambda op, t: jax.jvp(lambda o: ragged([[0, 1], [2, 3]])(o, *args[1:]), (op,), "
                 "(t,)))(op, op)",
}
