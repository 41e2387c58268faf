"""Placement of key arrays: the random primitives' sharding and partition rules.

A key array is typed on a mesh as any array is (``key<fry>[8@x]``); its
uint32 key data adds trailing dimensions that are never split. The
primitives map key for key, so their types follow JAX 0.11's rules:

* ``random_seed``, ``random_clone``: the operand's placement;
* ``random_split``, ``random_bits``: the keys' placement, the new
  dimensions unsplit (keys on no mesh give a result typed on the mesh in
  context, as JAX's ``get_cur_mesh_sharding``);
* ``random_fold_in``, ``threefry2x32``: broadcasting, as n-ary elementwise ops;
* ``random_wrap``: the data's placement without its key dimensions, which
  must be unsplit (JAX's AssertionError otherwise); ``random_unwrap``: the
  keys' placement, the key dimensions unsplit;
* ``random_gamma``: the shape parameter's placement.

Each key's result depends on that key alone, so per device (sharded jit,
docs/spmd.md) every primitive runs on its own shard of the keys: the same
bits as the unsharded computation, with no communication; except the rbg
PRNGs' bits, which depend on the whole batch of keys (gathered first).
"""

from __future__ import annotations

from pyjax._src.interpreters import spmd_partition as sp
from pyjax._src.lax import sharding_rules as rules
from pyjax._src.random import prng, threefry


def _keep_rule(out, operand, **params):
    return rules.with_spec(out, rules.mesh_of(operand), rules.spec_of(operand))


def _extended_rule(out, keys, **params):
    # New trailing dimensions (a split's shape, the bits' shape) are unsplit.
    mesh = rules.context_mesh(rules.mesh_of(keys))
    extra = len(out.shape) - len(keys.shape)
    return rules.with_spec(out, mesh, rules.spec_of(keys) + (None,) * extra)


def _partitions(mesh, entry) -> int:
    if entry is None:
        return 1
    names = entry if isinstance(entry, tuple) else (entry,)
    sizes = dict(zip(mesh.axis_names, mesh.axis_sizes))
    count = 1
    for n in names:
        count *= sizes[n]
    return count


def _wrap_rule(out, base, *, impl):
    mesh = rules.mesh_of(base)
    spec = rules.spec_of(base)
    trailing = len(impl.key_shape)
    if mesh is not None and any(s is not None for s in spec[len(spec) - trailing:]):
        partitions = [_partitions(mesh, s) for s in spec]
        raise AssertionError(
            "The trailing dims of extended dtypes should be replicated. Got sharding: "
            f"{base.sharding}, partitions: {partitions}, num_trailing_dims: {trailing}")
    return rules.with_spec(out, mesh, spec[: len(spec) - trailing])


def _unwrap_rule(out, keys):
    return rules.with_spec(out, rules.mesh_of(keys), rules.spec_of(keys) + (None,) * (len(out.shape) - len(keys.shape)))


def _gamma_rule(out, key, a, **params):
    return out  # (the abstract eval returns the shape parameter's own type)


_broadcast_fold_in = rules.broadcasting_rule("random_fold_in")
_broadcast_threefry = rules.broadcasting_rule("threefry2x32")


def _threefry_rule(outs, *avals):
    out = _broadcast_threefry(outs[0], *avals)
    return [out, out]


prng.random_seed_p.def_sharding_rule(_keep_rule)
prng.random_clone_p.def_sharding_rule(_keep_rule)
prng.random_split_p.def_sharding_rule(_extended_rule)
prng.random_bits_p.def_sharding_rule(_extended_rule)
prng.random_fold_in_p.def_sharding_rule(_broadcast_fold_in)
prng.random_wrap_p.def_sharding_rule(_wrap_rule)
prng.random_unwrap_p.def_sharding_rule(_unwrap_rule)
prng.random_gamma_p.def_sharding_rule(_gamma_rule)
threefry.threefry2x32_p.def_sharding_rule(_threefry_rule)


# ---------------------------------------------------------------------------
# Per device: each device's keys give that device's results


def _local_rule(ctx, eqn, args):
    # The operands' layouts are the results' (the rules above): bound on blocks as they are.
    return sp.bind(eqn, args)


# PRNGs whose bits for a batch of keys depend on the whole batch (rbg's
# batched rng_bit_generator draws from the first key, as JAX's does): their
# keys are gathered before drawing, so every device draws what the
# unsharded program would and keeps its part.
_BATCH_DEPENDENT_BITS = frozenset({"rbg", "unsafe_rbg"})


def _bits_rule(ctx, eqn, args):
    if eqn.invars[0].aval.dtype._impl.name in _BATCH_DEPENDENT_BITS:
        return sp.replicated_rule(ctx, eqn, args)
    return sp.bind(eqn, args)


def _elementwise_rule(ctx, eqn, args):
    # Broadcasting operands laid out as the result, as lax's elementwise ops.
    out_aval = eqn.outvars[0].aval
    out_spec = sp.spec_of(out_aval)
    fixed = []
    for v, x in zip(eqn.invars, args):
        shape = tuple(getattr(v.aval, "shape", ()))
        if len(shape) != len(out_spec):
            fixed.append(x)
            continue
        want = tuple(s if d == n else () for s, d, n in zip(out_spec, shape, out_aval.shape))
        fixed.append(ctx.reshard(x, sp.spec_of(v.aval), want))
    return sp.bind(eqn, fixed)


def _gamma_partition(ctx, eqn, args):
    # The keys laid out as the shape parameter's leading dimensions.
    key, a = args
    kv, av = eqn.invars
    want = sp.spec_of(av.aval)[: len(kv.aval.shape)]
    return sp.bind(eqn, [ctx.reshard(key, sp.spec_of(kv.aval), want), a])


for _p in (prng.random_seed_p, prng.random_clone_p, prng.random_split_p, prng.random_wrap_p, prng.random_unwrap_p):
    sp.register_rule(_p, _local_rule)
sp.register_rule(prng.random_bits_p, _bits_rule)
sp.register_rule(prng.random_fold_in_p, _elementwise_rule)
sp.register_rule(threefry.threefry2x32_p, _elementwise_rule)
sp.register_rule(prng.random_gamma_p, _gamma_partition)
