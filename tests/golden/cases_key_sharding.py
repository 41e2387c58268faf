"""Typed PRNG key arrays placed on meshes under JAX 0.11 (issue 22's
leftover): device_put / reshard / jit in_shardings and out_shardings of
key arrays (new-style and raw uint32 keys), their `.sharding`, types and
shards, key_data / wrap_key_data, the random primitives' types under an
Explicit mesh (split keys give split results), vmapped samplers over split
keys eagerly and under jit, shard_map over key arrays, the values (bit for
bit those of the unsharded keys) and JAX's refusals.

`PRELUDE` runs first; each case is an expression whose record is `str()` of
its value or the class and message of what it raised. Recorded by
``record_cases.py key_sharding`` under JAX 0.11.0; compared under pyjax by
tests/random/test_key_sharding.py.
"""

from __future__ import annotations

from case_runner import run_case  # noqa: F401

PRELUDE = '''
import numpy as np
import jax
jax.config.update("jax_num_cpu_devices", 8)
import jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P, AxisType

mesh = jax.make_mesh((8,), ("x",), axis_types=(AxisType.Explicit,))
mesh2 = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Explicit))
keys = jax.random.split(jax.random.key(0), 8)
raw = jax.random.split(jax.random.PRNGKey(0), 8)
k = jax.device_put(keys, NamedSharding(mesh, P("x")))
r = jax.device_put(raw, NamedSharding(mesh, P("x")))
k2 = jax.device_put(keys, NamedSharding(mesh2, P(("x", "y"))))
kk = jax.device_put(jax.random.split(jax.random.key(1), (4, 2)), NamedSharding(mesh2, P("x", "y")))
d8 = jax.device_put(jnp.arange(8, dtype=jnp.uint32), NamedSharding(mesh, P("x")))

def on(m, f):
    with jax.sharding.set_mesh(m):
        return f()

def data(x):
    return np.asarray(jax.random.key_data(x)).tolist()

def values(x):
    return np.asarray(x).tolist()

def shards(x):
    return [(s.device.id, s.index, s.replica_id, str(jax.typeof(s.data))) for s in x.addressable_shards]

unif = jax.vmap(lambda q: jax.random.uniform(q, (3,)))
norm = jax.vmap(lambda q: jax.random.normal(q))
norm3 = jax.vmap(lambda q: jax.random.normal(q, (3,)))
bits2 = jax.vmap(lambda q: jax.random.bits(q, (2,)))
bits8 = jax.vmap(lambda q: jax.random.bits(q, (5,), dtype=jnp.uint8))
split3 = jax.vmap(lambda q: jax.random.split(q, 3))
fold = jax.vmap(lambda q, m: jax.random.fold_in(q, m))
smap_unif = jax.shard_map(lambda q: unif(q), mesh=mesh, in_specs=P("x"), out_specs=P("x"))
'''

CASES = {
    # placement
    "put_typeof": "jax.typeof(k)",
    "put_sharding": "k.sharding",
    "put_data": "data(k) == data(keys)",
    "put_shards": "shards(k)[:3]",
    "put_shard_repr": "repr(k2.addressable_shards[1])",
    "put_addressable_data": "(jax.typeof(k.addressable_data(2)), data(k.addressable_data(2)))",
    "put_xy": "(jax.typeof(k2), k2.sharding.spec, data(k2) == data(keys))",
    "put_2d_spec": "jax.device_put(keys, NamedSharding(mesh2, P('x', 'y')))",
    "put_raw": "(jax.typeof(r), r.sharding.spec)",
    "put_grid": "(jax.typeof(kk), shards(kk)[:2])",
    "put_to_device": "jax.typeof(jax.device_put(k, jax.devices()[3]))",
    "put_back_replicated": "jax.typeof(jax.device_put(k, NamedSharding(mesh, P())))",
    "device_get": "(jax.typeof(jax.device_get(k)), data(jax.device_get(k)) == data(keys))",
    "from_callback": "jax.typeof(jax.make_array_from_callback((8,), NamedSharding(mesh, P('x')), lambda i: keys[i]))",
    "from_single_device": "jax.typeof(jax.make_array_from_single_device_arrays((8,), NamedSharding(mesh, P('x')), "
                          "[s.data for s in k.addressable_shards]))",
    "np_asarray": "np.asarray(k)",
    "key_data_type": "(jax.typeof(jax.random.key_data(k)), jax.random.key_data(k).sharding.spec)",
    "key_data_shards": "[s.data.shape for s in jax.random.key_data(k2).addressable_shards][:2]",
    "wrap_key_data_type": "jax.typeof(jax.random.wrap_key_data(jax.random.key_data(k)))",
    "impl": "jax.random.key_impl(k)",
    # reshard and jit placement
    "reshard_type": "on(mesh2, lambda: jax.typeof(jax.sharding.reshard(k2, P('y'))))",
    "reshard_unplaced": "on(mesh2, lambda: jax.typeof(jax.sharding.reshard(keys, P('y'))))",
    "reshard_values": "on(mesh2, lambda: data(jax.sharding.reshard(k2, P(('y', 'x')))) == data(keys))",
    "reshard_jaxpr": "on(mesh2, lambda: jax.make_jaxpr(lambda q: jax.sharding.reshard(q, P('y')))(k2))",
    "jit_in_shardings": "on(mesh, lambda: jax.typeof(jax.jit(lambda q: q, in_shardings=P('x'))(keys)))",
    "jit_out_shardings": "on(mesh, lambda: jax.typeof(jax.jit(lambda q: q, out_shardings=P())(k)))",
    "jit_in_shardings_rank": "on(mesh, lambda: jax.jit(lambda q: q, in_shardings=P('x', None))(keys))",
    "jit_in_shardings_other": "on(mesh, lambda: jax.jit(lambda q: q, in_shardings=P())(k))",
    "jit_shardings_jaxpr": "on(mesh, lambda: jax.make_jaxpr(jax.jit(jax.random.key_data, in_shardings=P('x'), "
                           "out_shardings=P('x')))(keys))",
    "jit_raw_in_shardings": "on(mesh, lambda: jax.typeof(jax.jit(jax.random.wrap_key_data, in_shardings=P('x'))(raw)))",
    # the random primitives' types
    "split_jaxpr": "on(mesh, lambda: jax.make_jaxpr(split3)(k))",
    "split_grid_jaxpr": "on(mesh2, lambda: jax.make_jaxpr(jax.vmap(jax.vmap(lambda q: jax.random.split(q))))(kk))",
    "bits_jaxpr": "on(mesh, lambda: jax.make_jaxpr(bits2)(k))",
    "bits_one_key_jaxpr": "on(mesh, lambda: jax.make_jaxpr(lambda q: jax.random.bits(q[0], (3,)))(k))",
    "uniform_jaxpr": "on(mesh, lambda: jax.make_jaxpr(unif)(k))",
    "normal_scalar_jaxpr": "on(mesh, lambda: jax.make_jaxpr(norm)(k))",
    "normal_grid_jaxpr": "on(mesh2, lambda: jax.make_jaxpr(jax.vmap(jax.vmap(lambda q: jax.random.normal(q, (5,)))))(kk))",
    "raw_uniform_jaxpr": "on(mesh, lambda: jax.make_jaxpr(unif)(r))",
    "fold_in_jaxpr": "on(mesh, lambda: jax.make_jaxpr(fold)(k, d8))",
    "seed_jaxpr": "on(mesh, lambda: jax.make_jaxpr(jax.vmap(jax.random.key))(d8))",
    "wrap_unwrap_jaxpr": "on(mesh, lambda: jax.make_jaxpr(lambda q: jax.random.wrap_key_data(jax.random.key_data(q)))(k))",
    "wrap_split_data": "on(mesh2, lambda: jax.make_jaxpr(jax.random.wrap_key_data)(jax.device_put(raw, P('x', 'y'))))",
    "unplaced_split_jaxpr": "on(mesh, lambda: jax.make_jaxpr(lambda: jax.random.split(jax.random.key(0), 4))())",
    "uniform_out_sharding_jaxpr": "on(mesh, lambda: jax.make_jaxpr(lambda q: jax.random.uniform(q, (8,), "
                                  "out_sharding=P('x')))(jax.random.key(0)))",
    "uniform_scalar_jaxpr": "on(mesh, lambda: jax.make_jaxpr(lambda q: jax.random.uniform(q))(jax.random.key(0)))",
    "index_jaxpr": "on(mesh, lambda: jax.make_jaxpr(lambda q: q[0])(k))",
    "index_eager": "on(mesh, lambda: (jax.typeof(k[3]), data(k[3])))",
    "concat_stack_where": "on(mesh, lambda: (jax.typeof(jnp.concatenate([k, k])), jax.typeof(jnp.stack([k, k])), "
                          "jax.typeof(jnp.where(jax.device_put(jnp.arange(8) > 3, P('x')), k, k)), jax.typeof(k == k)))",
    "grid_T_reshape": "on(mesh2, lambda: (jax.typeof(kk.T), jax.typeof(kk.reshape(8))))",
    "truncated_normal_scalar_jaxpr": "on(mesh, lambda: jax.make_jaxpr(lambda q: jax.random.truncated_normal(q, -1.0, "
                                     "1.0))(jax.random.key(0)))",
    "truncated_normal_vmap_jaxpr": "on(mesh, lambda: jax.make_jaxpr(jax.vmap(lambda q: jax.random.truncated_normal(q, "
                                   "-1.0, 1.0)))(k))",
    "truncated_normal_vmap_values": "on(mesh, lambda: values(jax.jit(jax.vmap(lambda q: jax.random.truncated_normal(q, "
                                    "-1.0, 1.0)))(k)) == values(jax.vmap(lambda q: jax.random.truncated_normal(q, -1.0, "
                                    "1.0))(keys)))",
    "scalar_ops_typed": "on(mesh, lambda: jax.make_jaxpr(lambda a: (a * 2.0, jnp.sin(a) + 1.0))(jax.device_put(jnp.float32(1), P())))",
    "bernoulli_vmap_jaxpr": "on(mesh, lambda: jax.make_jaxpr(jax.vmap(lambda q: jax.random.bernoulli(q)))(k))",
    "gamma_scalar_vmap_jaxpr": "on(mesh, lambda: jax.make_jaxpr(jax.vmap(lambda q: jax.random.gamma(q, 2.0)))(k))",
    "exponential_vmap_jaxpr": "on(mesh, lambda: jax.make_jaxpr(jax.vmap(jax.random.exponential))(k))",
    "bits_scalar_vmap_jaxpr": "on(mesh, lambda: jax.make_jaxpr(jax.vmap(jax.random.bits))(k))",
    "normal_out_sharding_jaxpr": "on(mesh, lambda: jax.make_jaxpr(lambda q: jax.random.normal(q, (8,), "
                                 "out_sharding=P('x')))(jax.random.key(0)))",
    "permutation_vmap_jaxpr": "on(mesh, lambda: jax.make_jaxpr(jax.vmap(lambda q: jax.random.permutation(q, 5)))(k))",
    "permutation_values": "on(mesh, lambda: values(jax.jit(jax.vmap(lambda q: jax.random.permutation(q, 5)))(k)))",
    # types and values of the samples
    "uniform_eager_type": "on(mesh, lambda: jax.typeof(unif(k)))",
    "uniform_jit_type": "on(mesh, lambda: jax.typeof(jax.jit(unif)(k)))",
    "uniform_values": "on(mesh, lambda: values(unif(k)))",
    "uniform_jit_values": "on(mesh, lambda: values(jax.jit(unif)(k)) == values(unif(keys)))",
    "normal_scalar_type": "on(mesh, lambda: (jax.typeof(norm(k)), jax.typeof(jax.jit(norm)(k))))",
    "normal_scalar_values": "on(mesh, lambda: values(norm(k)))",
    "normal_jit_values": "on(mesh, lambda: values(jax.jit(norm3)(k)) == values(norm3(keys)))",
    "bits_values": "on(mesh, lambda: (jax.typeof(jax.jit(bits2)(k)), values(jax.jit(bits2)(k))))",
    "bits_uint8": "on(mesh2, lambda: (jax.typeof(jax.vmap(bits8)(kk)), values(jax.jit(jax.vmap(bits8))(kk))[0]))",
    "split_values": "on(mesh, lambda: (jax.typeof(jax.jit(split3)(k)), data(jax.jit(split3)(k)) == data(split3(keys))))",
    "fold_in_values": "on(mesh, lambda: (jax.typeof(jax.jit(fold)(k, d8)), data(jax.jit(fold)(k, d8))))",
    "seed_values": "on(mesh, lambda: (jax.typeof(jax.jit(jax.vmap(jax.random.key))(d8)), "
                   "data(jax.jit(jax.vmap(jax.random.key))(d8))))",
    "sampler_values": "on(mesh, lambda: [values(jax.vmap(f)(k)) == values(jax.vmap(f)(keys)) for f in ("
                      "jax.random.exponential, jax.random.gumbel, lambda q: jax.random.bernoulli(q, 0.3), "
                      "lambda q: jax.random.gamma(q, 2.0), lambda q: jax.random.truncated_normal(q, -1.0, 1.0, (2,)))])",
    "raw_uniform_values": "on(mesh, lambda: values(jax.jit(unif)(r)) == values(unif(raw)))",
    "grid_normal_values": "on(mesh2, lambda: (jax.typeof(jax.jit(jax.vmap(jax.vmap(lambda q: jax.random.normal(q, (2,)))))(kk)), "
                          "values(jax.jit(jax.vmap(jax.vmap(lambda q: jax.random.normal(q, (2,)))))(kk))[3]))",
    # shard_map over key arrays
    "shard_map_jaxpr": "on(mesh, lambda: jax.make_jaxpr(smap_unif)(k))",
    "shard_map_values": "on(mesh, lambda: (jax.typeof(smap_unif(k)), values(smap_unif(k)) == values(unif(keys))))",
    "shard_map_jit_values": "on(mesh, lambda: values(jax.jit(smap_unif)(k)) == values(unif(keys)))",
    "shard_map_key_data": "on(mesh, lambda: jax.typeof(jax.shard_map(jax.random.key_data, mesh=mesh, in_specs=P('x'), "
                          "out_specs=P('x'))(k)))",
    "shard_map_wrong_spec": "on(mesh2, lambda: jax.shard_map(lambda q: q, in_specs=P('x'), out_specs=P('x'))(k2))",
    # refusals
    "fold_in_batched_key": "on(mesh, lambda: jax.random.fold_in(k, 3))",
    "split_batched_key": "on(mesh, lambda: jax.random.split(k, 3))",
    "vmap_inconsistent": "on(mesh2, lambda: jax.vmap(jax.vmap(lambda q, m: jax.random.fold_in(q, m)))(kk, "
                         "jax.device_put(jnp.ones((4, 2), jnp.uint32), P('x', None))))",
    "vmap_unmapped_split": "on(mesh, lambda: jax.vmap(lambda q, m: jax.random.fold_in(m, q), in_axes=(0, None))(d8, k))",
}
