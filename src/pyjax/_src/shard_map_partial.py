"""Partial-manual shard_map on a mesh with Explicit axes, run per device.

`jax.shard_map(f, mesh=mesh, axis_names={'x'}, ...)` on a mesh whose axes
('x', 'y') are Explicit makes 'x' manual and leaves 'y' in the body's
types: an argument `f32[8@x,16@y]` with in_spec `P('x')` is seen as
`f32[2,16@y]{V:x}`, sharding-in-types rules apply to 'y' inside, and the
results join the spec's axes with those the body's types still name
(`f32[8@x,16@y]`).

Such a body is a program over global types along 'y' and per-device along
'x'. It runs the way a sharded jit does (docs/spmd.md): the equation is
partitioned by interpreters/spmd_partition.py into one shard_map over
every mesh axis, whose body takes each device's block laid out as the
types say and binds every body equation in its per-shard form over the
remaining axes, the body's own collectives over the manual axes as they
are. No device holds more than its block of any value the types split.

This module registers the partition rules of shard_map (a partial-manual
body, or a shard_map nested in one over the remaining axes) and of the
collectives a body binds over its manual axes.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from pyjax._src import core
from pyjax._src.interpreters import spmd_partition, staging
from pyjax._src.interpreters.spmd_partition import Context, bind, replicated_rule, spec_of
from pyjax._src.jaxpr import JaxprEqn
from pyjax._src.lax import parallel, parallel_comm
from pyjax._src.lax.parallel_vma import psum_invariant_p, pvary_p
from pyjax._src.sharding.mesh import AxisType
from pyjax._src.shard_map import body_mesh, shard_map_p

__all__ = ["leaves_explicit_axes", "run_partial"]


def leaves_explicit_axes(params: dict) -> bool:
    """Whether a shard_map's body keeps Explicit mesh axes in its types."""
    inner = body_mesh(params["mesh"], params["newly_manual_axes"])
    return any(t == AxisType.Explicit for t in inner.axis_types)


def run_partial(flat: Sequence[Any], params: dict, run_eagerly) -> list:
    """Runs a partial-manual shard_map on concrete arguments: partitioned
    over the remaining Explicit axes into one shard_map over the whole mesh
    (`run_eagerly` then runs that one on the arguments' shards). None where
    the partitioner refuses the body (an effect, say)."""
    avals = tuple(core.get_aval(x) for x in flat)
    key = (id(params["jaxpr"]), params["mesh"], params["in_specs"], params["out_specs"], params["check_vma"], avals)
    found = _PROGRAMS.get(key)
    if found is not None and found[0] is params["jaxpr"]:  # (a jit's lone shard_map: the same body each call)
        program = found[1]
    else:
        program = _partitioned(params, avals)
        _PROGRAMS[key] = (params["jaxpr"], program)  # (holding the body keeps its id from being reused)
        while len(_PROGRAMS) > _CACHE_SIZE:
            del _PROGRAMS[next(iter(_PROGRAMS))]
    if program is None:
        return None  # (the caller runs each manual block whole over the remaining axes)
    return run_eagerly(list(flat), program.eqns[0].params)


_PROGRAMS: dict = {}  # the partitioned programs of recent bodies, oldest first
_CACHE_SIZE = 64


def _partitioned(params: dict, avals: tuple):
    # The one-equation per-device program, or None where the partitioner refuses the body.
    from pyjax._src import spmd_jit  # (spmd_jit imports shard_map, which imports this module)

    jaxpr, _ = staging.trace_to_jaxpr(lambda *xs: list(shard_map_p.bind(*xs, **params)), list(avals),
                                      staging.DebugInfo("shard_map", "<partial-manual>", None))
    try:
        program = spmd_jit.per_device_program(jaxpr, params["mesh"])
        if len(program.eqns) != 1 or program.eqns[0].primitive is not shard_map_p:
            raise NotImplementedError("shard_map: a partial-manual body that does not partition into one "
                                      "per-device program")
    except spmd_jit.FALLBACK_ERRORS:
        if spmd_jit.STRICT[0]:
            raise
        return None
    return program


def placed_as_typed(outs: list, body_avals, out_specs, mesh) -> list:
    """Results of a partial-manual body run whole over its remaining axes
    (placed as out_specs say), placed as their types say."""
    from pyjax._src.lax.identity import device_put
    from pyjax._src.shard_map import joined_spec
    from pyjax._src.sharding.named import NamedSharding

    # (Assembled once, then split as the type says: this is the fallback.)
    return [device_put(np.asarray(o), NamedSharding(mesh, joined_spec(s, a))) if a.sharding is not None else o
            for o, a, s in zip(outs, body_avals, out_specs)]


def _names(entry) -> tuple:
    if entry is None:
        return ()
    return tuple(entry) if isinstance(entry, tuple) else (entry,)


def _block_layout(spec, body_aval) -> tuple:
    # A body value's layout on the device: split over the spec's (manual)
    # axes, then over those its own type still names.
    inner = spec_of(body_aval)
    return tuple((_names(spec[d]) if d < len(spec) else ()) + inner[d] for d in range(len(inner)))


def shard_map_rule(ctx: Context, eqn: JaxprEqn, args: list) -> list:
    """A shard_map met while partitioning (every mesh axis named): each
    operand laid out as its block of the body's input (the spec's axes, then
    the body type's), the body partitioned in place, its results laid out
    as the equation's types."""
    params = eqn.params
    body = params["jaxpr"]
    ins = [ctx.reshard(x, spec_of(v.aval), _block_layout(s, b.aval))
           for v, x, s, b in zip(eqn.invars, args, params["in_specs"], body.invars, strict=True)]
    outs = ctx.run(body, ins)
    return [ctx.reshard(y, _block_layout(s, b.aval), spec_of(v.aval))
            for v, y, s, b in zip(eqn.outvars, outs, params["out_specs"], body.outvars, strict=True)]


def _as_result_rule(ctx: Context, eqn: JaxprEqn, args: list) -> list:
    # A collective keeping its operand's shape over other (manual) axes: the
    # operand laid out as the result, the collective bound on the blocks.
    fixed = [ctx.reshard(x, spec_of(v.aval), spec_of(eqn.outvars[0].aval)) for v, x in zip(eqn.invars, args)]
    return bind(eqn, fixed)


def _axis_index_rule(ctx: Context, eqn: JaxprEqn, args: list) -> list:
    return bind(eqn, args)


def _gathering_rule(ctx: Context, eqn: JaxprEqn, args: list) -> list:
    # all_gather/psum_scatter/all_to_all read across a dimension: the
    # operand whole along the remaining axes (correct; as a fallback does).
    return replicated_rule(ctx, eqn, args)


def _register() -> None:
    spmd_partition.register_rule(shard_map_p, shard_map_rule)
    for p in (parallel.psum_p, psum_invariant_p, pvary_p, parallel.pmax_p, parallel.pmin_p,
              parallel_comm.ppermute_p, parallel_comm.pbroadcast_p):
        spmd_partition.register_rule(p, _as_result_rule)
    spmd_partition.register_rule(parallel.axis_index_p, _axis_index_rule)
    for p in (parallel_comm.all_gather_p, parallel_comm.reduce_scatter_p, parallel_comm.all_to_all_p):
        spmd_partition.register_rule(p, _gathering_rule)


_register()
