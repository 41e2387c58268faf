"""SPMD execution of sharded jit: a jitted program over Explicit-sharded
types runs per device.

On the first call of such a cache entry the program is partitioned
(interpreters/spmd_partition.py, lax's rules in lax/spmd_rules.py) into one
per-device body, wrapped as a shard_map whose in/out specs are the types'
placements, and run by the lockstep runtime on the arguments' own shards:
no global array is assembled. `jit(f).lower(...).compile().as_text()`
shows that per-device program. Control flow (`scan`, `while`, `cond`) is
partitioned with its bodies (lax/spmd_control_rules.py). A program the
partitioner cannot handle (effects, a primitive holding other bodies, a
rule's refusal) runs as before, on the assembled value. docs/spmd.md.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import core, jit as jit_mod, stages
from pyjax._src.avals import ShapedArray
from pyjax._src.interpreters import spmd_partition, staging
from pyjax._src.jaxpr import Jaxpr
from pyjax._src.lax import spmd_rules  # (importing it registers lax's partition rules)
from pyjax._src.lax import spmd_control_rules  # noqa: F401  (and those of scan, while and cond)
from pyjax._src.lax import spmd_local_rules  # noqa: F401  (and of conv, windows, fft, linalg)
from pyjax._src.shard_map import run_eagerly, shard_map
from pyjax._src.sharding import api as sharding_api
from pyjax._src.sharding.devices import devices
from pyjax._src.sharding import placed_call
from pyjax._src.sharding.mesh import AxisType, Mesh, get_mesh
from pyjax._src.sharding.named import NamedSharding
from pyjax._src.sharding.partition_spec import PartitionSpec
from pyjax._src.sharding.sharded_array import ShardedArray

# Tests set this to see a partitioning failure rather than the global fallback.
STRICT = [False]
FALLBACK_ERRORS = _FALLBACK_ERRORS = (spmd_partition.Unpartitionable, NotImplementedError, TypeError, ValueError)


def program_mesh(jaxpr: Jaxpr):
    """The abstract mesh a program's placements name, if it is partitionable
    (one mesh, some dimension split, plain arrays only); else None."""
    avals = [*jaxpr.in_avals, *jaxpr.out_avals]
    if any(type(a) is not ShapedArray or a.memory_space is not None for a in avals):
        return None
    meshes = {a.sharding.mesh for a in avals if a.sharding is not None}
    if len(meshes) != 1 or not spmd_partition.names_any([spmd_partition.spec_of(a) for a in avals]):
        return None
    return next(iter(meshes))


def _pspec(aval) -> PartitionSpec:
    return PartitionSpec(*(None if not s else (s[0] if len(s) == 1 else s) for s in spmd_partition.spec_of(aval)))


def concrete_mesh(abstract, flat_args=()) -> Mesh:
    """The devices the program runs on: an argument's mesh, the context
    mesh, or the first devices in order."""
    for x in flat_args:
        s = getattr(x, "sharding", None)
        if isinstance(s, NamedSharding) and isinstance(s.mesh, Mesh) and s.mesh.abstract_mesh == abstract:
            return s.mesh
    ctx = get_mesh()
    if isinstance(ctx, Mesh) and not ctx.empty and ctx.abstract_mesh == abstract:
        return ctx
    shape = tuple(abstract.axis_sizes)
    grid = np.array(devices()[:int(np.prod(shape))], dtype=object).reshape(shape)
    return Mesh(grid, tuple(abstract.axis_names), tuple(abstract.axis_types))


def per_device_program(jaxpr: Jaxpr, mesh: Mesh) -> Jaxpr:
    """`jaxpr` as one shard_map equation whose body is the per-device program."""
    body = spmd_partition.partition(jaxpr, dict(mesh.shape))
    mapped = shard_map(lambda *xs: tuple(body(*xs)), mesh=mesh, in_specs=tuple(map(_pspec, jaxpr.in_avals)),
                       out_specs=tuple(map(_pspec, jaxpr.out_avals)), check_vma=False)
    saved = core.typing_mesh[0]
    core.typing_mesh[0] = None  # (inside the body nothing is typed on the mesh)
    try:
        program, _ = staging.trace_to_jaxpr(lambda *xs: list(mapped(*xs)), list(jaxpr.in_avals),
                                            staging.DebugInfo("spmd", "<partitioned>", None))
    finally:
        core.typing_mesh[0] = saved
    return program


def _try_program(jaxpr: Jaxpr, mesh: Mesh):
    try:
        program = per_device_program(jaxpr, mesh)
    except _FALLBACK_ERRORS:
        if STRICT[0]:
            raise
        return None
    return program if len(program.eqns) == 1 else None


def partitioned_call(jaxpr: Jaxpr):
    """jit's whole-program hook: for a sharded program, a function running
    it per device (partitioned on first call, per concrete mesh)."""
    abstract = program_mesh(jaxpr)
    if abstract is None:
        return None
    programs: dict = {}
    fallback: list = []
    # A mesh mixing Auto and Explicit axes: its Auto axes lay values out too
    # (XLA's propagation, modelled on the Explicit twin), which the types
    # alone would replicate.
    mixed_meshes = _MixedMeshes()

    def call(flat_args):
        mesh = concrete_mesh(abstract, flat_args)
        if mesh in mixed_meshes:  # (laid out on its Explicit twin: spmd_eager.py)
            outs = placed_call.RUN[0](jaxpr, flat_args) if placed_call.RUN[0] is not None else NotImplemented
            if outs is not NotImplemented:
                return outs
        if mesh not in programs:
            programs[mesh] = _try_program(jaxpr, mesh)
        program = programs[mesh]
        if program is None:  # (computed on the assembled value, as before)
            if not fallback:
                fallback.append(jit_mod.lower_for_backend(jaxpr, "spmd_fallback"))
            return jit_mod.run_compiled(fallback[0], jaxpr, flat_args)
        outs = run_eagerly(list(flat_args), program.eqns[0].params)
        return [o if o.aval == a else ShardedArray(o._shards, a, o.sharding) for o, a in zip(outs, jaxpr.out_avals)]

    return call


class _MixedMeshes:
    """`mesh in _MixedMeshes()`: whether `mesh` mixes Auto and Explicit axes."""

    def __contains__(self, mesh) -> bool:
        kinds = set(mesh.axis_types)
        return AxisType.Auto in kinds and AxisType.Explicit in kinds


def per_device_text(jaxpr: Jaxpr) -> str | None:
    """Compiled.as_text() of a sharded program: its per-device program."""
    abstract = program_mesh(jaxpr)
    if abstract is None:
        return None
    program = _try_program(jaxpr, concrete_mesh(abstract))
    if program is None:
        return None
    return f"# SPMD: each device of {program.eqns[0].params['mesh']} runs the shard_map body\n{program}\n"


spmd_partition.register_rule(sharding_api.reshard_p, spmd_rules.reshard_rule)
spmd_partition.register_rule(sharding_api.sharding_constraint_p, spmd_rules.reshard_rule)
jit_mod.SPMD_PARTITIONED[0] = partitioned_call
stages.PER_DEVICE_TEXT[0] = per_device_text
