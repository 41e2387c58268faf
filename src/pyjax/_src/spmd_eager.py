"""Eager operations on placed Arrays, run per device.

In JAX an eager operation is a jit of one primitive, so on Arrays sharded
over a mesh it runs SPMD: each device computes its shard of the result, and
the result keeps the sharding its type (Explicit axes) or XLA's propagation
(Auto axes) gives it. pyjax does the same: the eval trace hands an
operation with a placed operand to `run_placed`, which traces the one
equation over the operands' placements, partitions it as sharded jit does
(spmd_jit.per_device_program) and runs the per-device program on the
operands' own shards through shard_map's lockstep runtime. No global value
is assembled (a primitive without a partition rule is gathered per device,
as in sharded jit).

A jitted call with a placed argument (jnp's jitted functions, a user's
jit with Python scalars, any jit on an Auto mesh) comes here too, through
sharding/placed_call.py: `run_jaxpr_placed` retypes the program on the
arguments' placements (its calls inlined) and runs it the same way.

On a mesh of Auto axes the operands are typed on its Explicit twin (the
same devices, every axis Explicit), which is how pyjax models XLA's
propagation for eager results already (sharded_array.relayout_auto); where
the twin's rule objects, `_auto_choice` gives XLA's choice for contractions
and elementwise operations. The result is placed on the Auto mesh with
that spec, trailing `None`s dropped as XLA prints it. A mesh mixing Auto
and Explicit axes runs on its twin too, its results keeping their own types
(`mixed_placements`). What cannot take this path (a single-device placement,
memory kinds, operands on two meshes, a remaining objection, a refusal of
the partitioner, jax_debug_nans/infs) returns `NotImplemented`, and the
operation is computed on the assembled value as before. docs/spmd.md.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pyjax._src import dispatch, jit
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray
from pyjax._src.interpreters import staging
from pyjax._src.jaxpr import Literal
from pyjax._src.sharding import placed_call
from pyjax._src.sharding.mesh import AbstractMesh, AxisType, Mesh
from pyjax._src.sharding.named import NamedSharding, abstract_sharding, aval_sharding
from pyjax._src.sharding.partition_spec import PartitionSpec
from pyjax._src.sharding.sharded_array import ShardedArray

__all__ = ["run_jaxpr_placed", "run_placed"]

_SCALARS = (bool, int, float, complex)  # (and NumPy scalars: constants of the equation)
# ((primitive, params) or jaxpr, operand keys, mesh) -> _Program, or None
# where the operation takes the assembled path.
_PROGRAMS: dict = {}
_MAX_PROGRAMS = 4096
_TWINS: dict = {}  # an Auto mesh -> its Explicit twin (a concrete Mesh)
_RELABELLED: dict = {}  # (twin mesh, spec) -> the sharding an operand is re-labelled with


class _Program:
    """One eager operation's per-device program and its results' types."""

    __slots__ = ("params", "out_avals", "multiple", "placements")

    def __init__(self, params: dict, out_avals: list, multiple: bool, placements=None):
        self.params = params  # the shard_map equation's params
        self.out_avals = out_avals  # the results' types (untyped on an Auto mesh)
        self.multiple = multiple
        # [(aval, sharding)] of the results: from the first run, or (a mixed
        # mesh) when built
        self.placements = placements


def _mesh_of(args) -> tuple[Mesh | None, bool]:
    """The one concrete mesh of several devices the placed operands share,
    and whether it has Auto axes (all, or mixed with Explicit ones: it is
    then run on its Explicit twin); (None, False) where there is none."""
    mesh = None
    for x in args:
        if type(x) is ShardedArray:
            s = x._sharding
            if x._shards is None:  # (deleted: the assembled path raises JAX's error)
                return None, False
            if type(s) is not NamedSharding or not isinstance(s.mesh, Mesh) or s.memory_kind not in (None, "device"):
                return None, False
            if mesh is None:
                mesh = s.mesh
            elif s.mesh != mesh:
                return None, False
        elif type(x) is not Array and not _is_scalar(x):
            return None, False
    if mesh is None or mesh.size < 2:
        return None, False
    kinds = set(mesh.axis_types)
    if kinds <= {AxisType.Auto, AxisType.Explicit}:
        return mesh, AxisType.Auto in kinds
    return None, False


def _mixed(mesh: Mesh) -> bool:
    return AxisType.Auto in mesh.axis_types and AxisType.Explicit in mesh.axis_types


def _is_scalar(x) -> bool:
    return type(x) in _SCALARS or isinstance(x, np.generic)


def _twin(mesh: Mesh) -> Mesh:
    twin = _TWINS.get(mesh)
    if twin is None:
        twin = _TWINS[mesh] = Mesh(mesh.devices, mesh.axis_names, (AxisType.Explicit,) * len(mesh.axis_names))
    return twin


def _padded(spec: PartitionSpec, ndim: int) -> tuple:
    return tuple(spec) + (None,) * (ndim - len(spec))


def _typed_aval(x, twin: AbstractMesh | None) -> ShapedArray:
    # An operand's type: as it is on an Explicit mesh; on an Auto mesh, typed
    # by its layout on the Explicit twin (an unplaced operand: replicated).
    aval = x.aval
    if twin is None:
        return aval
    if type(x) is ShardedArray:
        return aval.update(sharding=abstract_sharding(twin, _padded(x._sharding.spec, aval.ndim)))
    return aval


def _key(what, args, mesh, scalars_by_value: bool):
    parts = []
    for x in args:
        tx = type(x)
        if tx is ShardedArray:
            parts.append((x.aval, x._sharding.spec))
        elif tx is Array:
            parts.append(x.aval)
        else:
            parts.append((tx, x, getattr(x, "dtype", None)) if scalars_by_value else tx)
    return (what, tuple(parts), mesh)


def _build(fun, avals: list, mesh: Mesh, auto: bool, multiple: bool, name: str, real=None) -> _Program | None:
    """The per-device program of `fun` (a function of the arrays giving a
    list of results) on operands of types `avals` (typed on the Explicit
    twin when `auto`); None where it cannot be partitioned. On a mesh
    mixing Auto and Explicit axes `real` is (the operands' own types, the
    first placed operand, the function as called): the results are typed
    as the function gives on those types."""
    from pyjax._src import spmd_jit

    run_mesh = _twin(mesh) if auto else mesh
    if real is not None:
        try:  # (the results' own types; a bad call raises on the assembled path)
            real_out = staging.trace_to_jaxpr(real[2], real[0], staging.DebugInfo("eager", name, None))[0].out_avals
        except Exception:  # noqa: BLE001
            return None
    # Any failure here leaves the operation to the assembled path, which
    # raises a bad call's error as an eager call always has.
    try:
        jaxpr, _ = staging.trace_to_jaxpr(fun, avals, staging.DebugInfo("eager", name, None))
    except Exception:  # noqa: BLE001  (a rule objecting to the twin's types: XLA would place it otherwise)
        return None
    if spmd_jit.program_mesh(jaxpr) is None or jaxpr.effects:
        return None
    try:
        program = spmd_jit.per_device_program(jaxpr, run_mesh)
    except Exception:  # noqa: BLE001
        if spmd_jit.STRICT[0]:
            raise
        return None
    if len(program.eqns) != 1:
        return None
    params = program.eqns[0].params
    if real is not None:
        placements = mixed_placements(params["out_specs"], real_out, mesh, real[1])
        if placements is None:
            return None
        moved = [None if _layout(s.spec, a.ndim) == _layout(o, a.ndim) else s.spec
                 for o, (a, s) in zip(params["out_specs"], placements)]
        if any(m is not None for m in moved):  # (laid out again as placed: built once more)
            return _build(_laid_out_as(fun, moved, run_mesh.abstract_mesh), avals, mesh, auto, multiple, name, real)
        return _Program(params, list(real_out), multiple, placements)
    out_avals = [_untyped(a) for a in jaxpr.out_avals] if auto else list(jaxpr.out_avals)
    return _Program(params, out_avals, multiple)


def _layout(spec, ndim: int) -> tuple:
    return tuple(_names(e) for e in _padded(tuple(spec), ndim))


def _laid_out_as(fun, specs, twin):
    # `fun` with the results whose entry of `specs` is not None resharded to it (on the twin).
    from pyjax._src.sharding.api import reshard

    def moved(*xs):
        return [o if s is None else reshard(o, NamedSharding(twin, s)) for o, s in zip(fun(*xs), specs)]

    return moved


def mixed_placements(specs, avals, mesh: Mesh, first) -> list | None:
    """The results' placements on a mesh mixing Auto and Explicit axes, as
    JAX 0.11 reports XLA's: a result laid out (on the Explicit twin) as its
    type says is placed with its type's spec; so is a rank-1 result whose
    type splits it (JAX 0.11 drops the Auto axes there: `v + 1` of `v`
    placed `P(('x', 'y'))` gives `P('x',)`); one laid out as the first
    placed operand (of its rank) with that operand's spec; any other with
    the layout's spec, trailing `None`s dropped. None where a layout
    disagrees with its type over an Explicit axis (computed on the
    assembled value instead)."""
    explicit = {n for n, t in zip(mesh.axis_names, mesh.axis_types) if t == AxisType.Explicit}
    out = []
    for spec, aval in zip(specs, avals, strict=True):
        layout = _layout(spec, aval.ndim)
        typed = _layout(aval.sharding.spec if aval.sharding is not None else (), aval.ndim)
        if tuple(tuple(n for n in e if n in explicit) for e in layout) != typed:
            return None
        if layout == typed or (aval.ndim == 1 and typed[0]):
            chosen = PartitionSpec(*(None if not e else e[0] if len(e) == 1 else e for e in typed))
        elif first is not None and first.ndim == aval.ndim and _layout(first.spec, aval.ndim) == layout:
            chosen = first.spec
        else:
            chosen = _stripped(PartitionSpec(*spec))
        out.append((aval, NamedSharding(mesh, chosen)))
    return out


def _cached(key, build):
    try:
        program = _PROGRAMS.get(key, False)
    except TypeError:  # an unhashable param or scalar: built for this call only
        return build()
    if program is False:
        program = build()
        if len(_PROGRAMS) >= _MAX_PROGRAMS:
            _PROGRAMS.clear()
        _PROGRAMS[key] = program
    return program


def _untyped(aval: ShapedArray) -> ShapedArray:
    return ShapedArray(aval.shape, aval.dtype, aval.weak_type, None, aval.memory_space)


def _on(mesh: Mesh, x):
    # A placed operand re-labelled onto the twin mesh (the same devices in
    # the same order: its shards are used as they are).
    if type(x) is not ShardedArray:
        return x
    key = (mesh, x._sharding.spec)
    sharding = _RELABELLED.get(key)
    if sharding is None:
        sharding = _RELABELLED[key] = NamedSharding(mesh, x._sharding.spec)
    return ShardedArray(x._shards, x.aval, sharding)


def _stripped(spec: PartitionSpec) -> PartitionSpec:
    entries = list(spec)
    while entries and entries[-1] is None:
        entries.pop()
    return PartitionSpec(*entries)


def run_placed(primitive, args, params) -> Any:
    """`primitive(*args, **params)` run per device when a placed operand
    shares a mesh of several devices with the others; `NotImplemented`
    where the operation is computed on the assembled value instead."""
    if jit.FLOAT_CHECKS[0] is not None:  # (jax_debug_nans/infs: the checking eval trace checks each result)
        return NotImplemented
    mesh, auto = _mesh_of(args)
    if mesh is None:
        return NotImplemented

    def build():
        twin = _twin(mesh).abstract_mesh if auto else None
        avals = [_typed_aval(x, twin) for x in args if not _is_scalar(x)]
        real = _real(mesh, [x for x in args if not _is_scalar(x)], [x.aval for x in args if not _is_scalar(x)])
        as_called = _equation(primitive, args, params)
        real = real and (*real, as_called)
        fun = (auto and (_xla_first(primitive, args, params, avals, twin)
                         or _control_again(primitive, args, params, twin))) or as_called
        program = _build(fun, avals, mesh, auto, primitive.multiple_results, primitive.name, real)
        if program is None and auto:  # (where the Explicit rule objects, XLA's choice for some)
            fun = _auto_choice(primitive, args, params, avals, twin)
            if fun is not None:
                program = _build(fun, avals, mesh, auto, primitive.multiple_results, primitive.name, real)
        return program

    program = _cached(_key((primitive, tuple(params.items())), args, mesh, True), build)
    if program is None:
        return NotImplemented
    outs = _run(program, [x for x in args if not _is_scalar(x)], mesh, auto)
    if outs is NotImplemented:
        return outs
    return outs if program.multiple else outs[0]


def _real(mesh: Mesh, arrays: list, avals: list):
    # On a mixed mesh: the operands' own types and the first placed operand's sharding.
    if not _mixed(mesh):
        return None
    first = next((x._sharding for x in arrays if type(x) is ShardedArray), None)
    return list(avals), (None if first is None else _FirstPlaced(first, arrays, avals))


class _FirstPlaced:
    """The first placed operand's spec and rank (JAX reuses its sharding for
    a result XLA lays out alike)."""

    __slots__ = ("spec", "ndim")

    def __init__(self, sharding, arrays, avals):
        self.spec = sharding.spec
        self.ndim = next(a.ndim for x, a in zip(arrays, avals) if type(x) is ShardedArray)


def _equation(primitive, args, params, before=None, after=None):
    # The one equation as a function of the array operands (scalar operands
    # are its constants), the operands first passed through `before`, the
    # results through `after`.
    def one_equation(*xs):
        it = iter(xs)
        ins = [x if _is_scalar(x) else next(it) for x in args]
        if before is not None:
            ins = before(ins)
        out = primitive.bind(*ins, **params)
        outs = list(out) if primitive.multiple_results else [out]
        return outs if after is None else after(outs)

    return one_equation


def _auto_choice(primitive, args, params, avals, twin):
    """On an Auto mesh, where the Explicit rule objects, the layout XLA's
    propagation picks for two common cases (JAX 0.11's placements): a
    contraction over dimensions split alike sums the partial products and
    keeps the free dimensions' axes (each axis once); an elementwise
    operation on operands split differently moves them all to the layout
    of the most split one."""
    from pyjax._src.lax import dot as lax_dot
    from pyjax._src.sharding.api import reshard

    if primitive is lax_dot.dot_general_p and len(avals) == 2 and params.get("out_sharding") is None:
        (lc, rc), (lb, rb) = params["dimension_numbers"]
        (ls, rs) = (_padded(a.sharding.spec, a.ndim) if a.sharding is not None else (None,) * a.ndim for a in avals)
        mine = {n for i in lc for n in _names(ls[i])}
        theirs = {n for i in rc for n in _names(rs[i])}
        # (contracting dimensions split differently: XLA lays the rhs out as the lhs)
        contracted = mine if mine and theirs and mine != theirs else mine | theirs
        entries = [ls[i] for i in lb] + [ls[i] for i in range(len(ls)) if i not in lc and i not in lb] + \
            [rs[i] for i in range(len(rs)) if i not in rc and i not in rb]
        used: set = set(contracted)
        spec = []
        for e in entries:
            names = tuple(n for n in _names(e) if n not in used)
            used.update(names)
            spec.append(None if not names else names[0] if len(names) == 1 else names)
        out = NamedSharding(twin, PartitionSpec(*spec))
        return _equation(primitive, args, dict(params, out_sharding=out))
    if primitive.elementwise and len(avals) > 1:
        ranked = [a for a in avals if a.ndim and a.sharding is not None]
        if not ranked or any(a.ndim != ranked[0].ndim for a in ranked):
            return None
        if any(a.shape != ranked[0].shape for a in ranked):
            return _broadcast_choice(primitive, args, params, ranked, twin)
        target = max(ranked, key=lambda a: sum(len(_names(e)) for e in a.sharding.spec)).sharding
        wanted = _padded(target.spec, ranked[0].ndim)
        for a in ranked:  # (layouts that conflict rather than refine: XLA replicates)
            have = _padded(a.sharding.spec, a.ndim)
            if any(_names(h) != _names(w)[:len(_names(h))] for h, w in zip(have, wanted)):
                target = NamedSharding(twin, PartitionSpec())
                break

        def moved(ins):
            return [reshard(x, target) if getattr(getattr(x, "aval", None), "sharding", target) != target
                    and not _is_scalar(x) and x.aval.ndim else x for x in ins]

        return _equation(primitive, args, params, moved)
    return _along_split_axis(primitive, args, params, avals, twin) or \
        _gathered_dims(primitive, args, params, avals, twin, slicing_only=False) or \
        _gather_choice(primitive, args, params, avals, twin)


def _gather_choice(primitive, args, params, avals, twin):
    # A gather (jnp indexing) of an operand split where it indexes: XLA
    # gathers the indexed dimensions and keeps the others' layout.
    from pyjax._src.lax.gather_scatter import gather_p
    from pyjax._src.lax.spmd_rules import gather_passthrough_dims
    from pyjax._src.sharding.api import reshard

    if primitive is not gather_p or avals[0].sharding is None or params["dimension_numbers"].operand_batching_dims:
        return None
    keep = gather_passthrough_dims(avals[0].shape, params["dimension_numbers"], params["slice_sizes"])
    spec = _padded(avals[0].sharding.spec, avals[0].ndim)
    if all(e is None or d in keep for d, e in enumerate(spec)):
        return None
    whole = NamedSharding(twin, PartitionSpec(*(e if d in keep else None for d, e in enumerate(spec))))
    return _equation(primitive, args, params, lambda ins: [reshard(ins[0], whole), *ins[1:]])


def _broadcast_choice(primitive, args, params, ranked, twin):
    # Operands broadcasting against each other (`v[:, None] * v[None, :]`):
    # XLA lays them all out as the first one, on the dimensions it spans.
    from pyjax._src.sharding.api import reshard

    shape = tuple(max(a.shape[d] for a in ranked) for d in range(ranked[0].ndim))
    lead = _padded(ranked[0].sharding.spec, len(shape))
    target = [e if ranked[0].shape[d] == n else None for d, (e, n) in enumerate(zip(lead, shape))]

    def moved(ins):
        out = []
        for x in ins:
            aval = getattr(x, "aval", None)
            if _is_scalar(x) or aval is None or not aval.ndim:
                out.append(x)
                continue
            want = PartitionSpec(*(t if aval.shape[d] == n else None for d, (t, n) in enumerate(zip(target, shape))))
            out.append(x if aval.sharding is not None and _layout(aval.sharding.spec, aval.ndim) ==
                       _layout(want, aval.ndim) else reshard(x, NamedSharding(twin, want)))
        return out

    return _equation(primitive, args, params, moved)


def _gathered_dims(primitive, args, params, avals, twin, slicing_only: bool = True):
    # A slice cutting split dimensions (taken before the twin's rule, which
    # would keep them split), or a pad of split dimensions the twin's rule
    # refuses: XLA gathers those dimensions and keeps the others' layout (a
    # strided slice of a whole dimension stays split).
    from pyjax._src.lax import shapes, slicing
    from pyjax._src.sharding.api import reshard

    if not avals or avals[0] is None or avals[0].sharding is None:
        return None
    shape = avals[0].shape
    if primitive is shapes.slice_p:
        dims = {d for d, (lo, hi) in enumerate(zip(params["start_indices"], params["limit_indices"]))
                if (lo, hi) != (0, shape[d])}
    elif primitive is slicing.pad_p and not slicing_only:
        dims = {d for d, cfg in enumerate(params["padding_config"]) if tuple(cfg) != (0, 0, 0)}
    else:
        return None
    spec = _padded(avals[0].sharding.spec, len(shape))
    if not any(spec[d] is not None for d in dims):
        return None
    whole = NamedSharding(twin, PartitionSpec(*(None if d in dims else e for d, e in enumerate(spec))))

    def gathered(ins):
        return [reshard(ins[0], whole), *ins[1:]]

    return _equation(primitive, args, params, gathered)


def _xla_first(primitive, args, params, avals, twin):
    """Where XLA's placement on Auto axes differs from the Explicit twin's
    type rule although that rule accepts the operation: a reshape, a slice."""
    return _xla_reshape(primitive, args, params, avals, twin) or _gathered_dims(primitive, args, params, avals, twin)


def _xla_reshape(primitive, args, params, avals, twin):
    """On an Auto mesh (or a mixed one's Auto axes) a reshape is placed as
    XLA's propagation places it (JAX 0.11's placements), not as the Explicit
    twin's type rule would: `_xla_reshape_spec`."""
    from pyjax._src.lax import shapes

    if primitive is not shapes.reshape_p or len(avals) != 1 or params.get("sharding") is not None \
            or params.get("dimensions") is not None or avals[0].sharding is None:
        return None
    aval, new_sizes = avals[0], tuple(params["new_sizes"])
    sizes = dict(zip(twin.axis_names, twin.axis_sizes))
    spec = _xla_reshape_spec(tuple(aval.shape), _padded(aval.sharding.spec, aval.ndim), new_sizes, sizes)
    if spec is None:
        return None
    out = NamedSharding(twin, PartitionSpec(*spec))
    return lambda x: [shapes.reshape(x, new_sizes, out_sharding=out)]


def _xla_reshape_spec(old: tuple, spec: tuple, new: tuple, sizes: dict) -> list | None:
    # Per run of dimensions whose products agree: the old dimensions' axes,
    # major first, for as long as each dimension is split whole (a block of
    # a dimension split only in part ends the run's contiguous part); then
    # handed out over the new dimensions, major first, each taking axes
    # while they divide it; an axis that does not divide drops the rest.
    from pyjax._src.lax.spmd_rules import reshape_groups

    if 0 in old or 0 in new:
        return None
    out: list = [None] * len(new)
    for gi, gj in reshape_groups(old, new):
        pool = []
        for i in gi:
            names = _names(spec[i])
            pool.extend(names)
            if old[i] != math.prod(sizes[n] for n in names):
                break
        for j in gj:
            size, taken = new[j], []
            while pool and size > 1 and size % sizes[pool[0]] == 0:
                size //= sizes[pool[0]]
                taken.append(pool.pop(0))
            out[j] = None if not taken else taken[0] if len(taken) == 1 else tuple(taken)
            if size > 1:
                break
    return out


def _along_split_axis(primitive, args, params, avals, twin):
    # An operation along one dimension (a cumulative op, a sort) that the
    # first operand splits: XLA gathers that dimension and keeps the
    # operand's layout for the result.
    from pyjax._src.sharding.api import reshard

    axis = params.get("axis", params.get("dimension"))
    if type(axis) is not int or not avals or avals[0].sharding is None:
        return None
    ndim = avals[0].ndim
    spec = _padded(avals[0].sharding.spec, ndim)
    if not 0 <= axis < ndim or spec[axis] is None or any(a.ndim != ndim for a in avals):
        return None
    whole = NamedSharding(twin, PartitionSpec(*[None if i == axis else e for i, e in enumerate(spec)]))
    back = avals[0].sharding

    def gathered(ins):
        return [x if _is_scalar(x) else reshard(x, whole) for x in ins]

    def restored(outs):
        return [reshard(o, back) if o.aval.ndim == ndim else o for o in outs]

    return _equation(primitive, args, params, gathered, restored)


def _names(entry) -> tuple:
    return () if entry is None else entry if isinstance(entry, tuple) else (entry,)


def run_jaxpr_placed(jaxpr, flat_args) -> Any:
    """A jitted program's eager call on arguments some of which are placed
    over a mesh of several devices, run per device (its outputs, a list);
    `NotImplemented` where it runs on the assembled values instead."""
    if jit.FLOAT_CHECKS[0] is not None:  # (debug_nans/infs read every buffer of the program)
        return NotImplemented
    # The program's constants (a closed-over placed Array among them) are
    # arguments of the per-device program too.
    consts = [c for c in jaxpr.consts]
    every = consts + list(flat_args)
    mesh, auto = _mesh_of(every)
    if mesh is None:
        return NotImplemented
    in_avals = [getattr(c, "aval", None) for c in consts] + list(jaxpr.in_avals)
    if any(a is None for a in in_avals):
        return NotImplemented

    def build():
        twin = _twin(mesh).abstract_mesh if auto else None
        avals = [a if _is_scalar(x) else _typed_aval(x, twin) for x, a in zip(every, in_avals)]
        n = len(consts)
        placed_first = list(flat_args) + consts  # (JAX's arguments come before the closed-over values)
        real = _real(mesh, placed_first, [getattr(x, "aval", None) for x in placed_first])
        if real is not None:
            real = (in_avals, real[1], lambda *xs: _inlined(jaxpr, xs[:n], xs[n:]))
        return _build(lambda *xs: _inlined(jaxpr, xs[:n], xs[n:], twin), avals, mesh, auto, True, "jit", real)

    program = _cached(_key(jaxpr, every, mesh, False), build)
    if program is None:
        return NotImplemented
    arrays = [np.asarray(x, a.dtype) if _is_scalar(x) else x for x, a in zip(every, in_avals)]
    return _run(program, arrays, mesh, auto, list(flat_args) + consts)


def _inlined(jaxpr, consts, args, twin=None) -> list:
    # `jaxpr` evaluated on (typed) tracers with its calls (nested jits, ...)
    # inlined: a call re-bound as it is would keep its body's old types. On
    # an Auto mesh's twin, an equation the Explicit rule objects to takes
    # XLA's choice where `_auto_choice` knows it.
    env = dict(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    for eqn in jaxpr.eqns:
        p = eqn.primitive
        ins = [v.val if type(v) is Literal else env[v] for v in eqn.invars]
        body = eqn.params[p.call_body] if p.call_body else None
        if body is not None and len(body.invars) == len(ins):
            outs = _inlined(body, body.consts, ins, twin)
        elif twin is not None and p in (control := _control_flow()):
            outs = control[p](eqn.params, ins, twin)
        elif twin is not None and (fun := _xla_first(p, ins, eqn.params, [getattr(x, "aval", None) for x in ins],
                                                     twin)) is not None:
            outs = fun(*ins)
        else:
            try:
                outs = p.bind(*ins, **eqn.params)
            except Exception:
                avals = [x.aval for x in ins if not _is_scalar(x)]
                fun = None if twin is None else _auto_choice(p, ins, eqn.params, avals, twin)
                if fun is None:
                    raise
                outs = fun(*[x for x in ins if not _is_scalar(x)])
                outs = outs if p.multiple_results else outs[0]
            outs = outs if p.multiple_results else [outs]
        env.update(zip(eqn.outvars, outs))
    return [v.val if type(v) is Literal else env[v] for v in jaxpr.outvars]


_CONTROL: dict = {}


def _control_flow() -> dict:
    """Control flow inside a jitted program on an Auto mesh's twin: bound
    again through its API, so that its bodies are traced at the twin's
    types (its bodies keep the program's own, which the twin's operands no
    longer match). A carry the body lays out otherwise is refused by the
    API's type check, and the program computed on the assembled value."""
    if not _CONTROL:
        from pyjax._src.lax.control_flow.cond import cond_p
        from pyjax._src.lax.control_flow.loops import while_p
        from pyjax._src.lax.control_flow.scan import scan_p

        _CONTROL.update({while_p: _while_again, scan_p: _scan_again, cond_p: _cond_again})
    return _CONTROL


def _control_again(primitive, args, params, twin):
    # An eager loop or branch on placed operands: bound again at the twin's types.
    again = _control_flow().get(primitive)
    if again is None:
        return None

    def bound(*xs):
        it = iter(xs)
        return list(again(params, [x if _is_scalar(x) else next(it) for x in args], twin))

    return bound


def _body(jaxpr, twin, *front):
    return lambda *xs: _inlined(jaxpr, jaxpr.consts, [*front, *xs], twin)


def _while_again(params, ins, twin):
    from pyjax._src.lax.control_flow import common
    from pyjax._src.lax.control_flow.loops import while_loop, while_p

    nc, nb = params["cond_nconsts"], params["body_nconsts"]
    test, step = _body(params["cond_jaxpr"], twin, *ins[:nc]), _body(params["body_jaxpr"], twin, *ins[nc:nc + nb])
    init = list(ins[nc + nb:])
    if not params["cond_jaxpr"].out_avals[0].shape:
        return while_loop(lambda c: test(*c)[0], lambda c: step(*c), init)
    # A vmapped loop (one predicate per lane, which the API refuses): bound
    # as it is, its bodies traced at the twin's types.
    avals = [x.aval for x in init]
    debug = staging.DebugInfo("eager", "while", None)
    cond_jaxpr, cconsts = common.separate_consts(staging.trace_to_jaxpr(lambda *c: test(*c)[:1], avals, debug)[0])
    body_jaxpr, bconsts = common.separate_consts(staging.trace_to_jaxpr(step, avals, debug)[0])
    if not all(map(common.typematch, body_jaxpr.out_avals, avals)):
        raise TypeError("the loop's body lays its carry out otherwise on the Auto axes")
    return while_p.bind(*cconsts, *bconsts, *init, cond_nconsts=len(cconsts), cond_jaxpr=cond_jaxpr,
                        body_nconsts=len(bconsts), body_jaxpr=body_jaxpr)


def _scan_again(params, ins, twin):
    from pyjax._src.lax.control_flow.scan import scan

    consts_t, carry_t, _ = params["ft_in"].unpack()
    nc, nk = len(consts_t), len(carry_t)
    step = _body(params["jaxpr"], twin, *ins[:nc])

    def f(c, x):
        outs = step(*c, *x)
        return outs[:nk], outs[nk:]

    carry, ys = scan(f, list(ins[nc:nc + nk]), list(ins[nc + nk:]), length=params["length"],
                          reverse=params["reverse"], unroll=params["unroll"])
    return [*carry, *ys]


def _cond_again(params, ins, twin):
    from pyjax._src.lax.control_flow.cond import switch

    return switch(ins[0], [_body(b, twin) for b in params["branches"]], *ins[1:])


def _run(program: _Program, arrays: list, mesh: Mesh, auto: bool, order=None) -> list:
    from pyjax._src import spmd_jit
    from pyjax._src.shard_map import run_eagerly

    if auto:
        twin = _twin(mesh)
        arrays = [_on(twin, x) for x in arrays]
    try:
        outs = run_eagerly(arrays, program.params)
    except Exception:  # noqa: BLE001  (the assembled path runs it, raising what a bad call raises there)
        if spmd_jit.STRICT[0]:
            raise
        return NotImplemented
    if program.placements is None:  # (the first run: each result's sharding and type)
        first = next((x for x in (arrays if order is None else order) if type(x) is ShardedArray), None)
        program.placements = [_placement(o, aval, mesh, auto, first) for o, aval in zip(outs, program.out_avals)]
    return [ShardedArray(o._shards, aval, sharding) for o, (aval, sharding) in zip(outs, program.placements)]


def _placement(out: ShardedArray, aval: ShapedArray, mesh: Mesh, auto: bool, first=None) -> tuple:
    # On an Auto mesh the result is typed as any Array placed there (its
    # aval names the mesh, no axis); laid out as the first placed operand of
    # its rank it takes that operand's spec (JAX 0.11 reuses the sharding),
    # else its spec is printed without trailing Nones.
    if not auto:  # (a result typed on no mesh, from a constant, lives replicated on it: typed so, as in JAX)
        sharding = NamedSharding(mesh, out.sharding.spec)
        return (aval if aval.sharding is not None else aval.update(sharding=aval_sharding(sharding, aval.ndim))), \
            sharding
    spec = _stripped(out.sharding.spec)
    if first is not None and first.ndim == aval.ndim and \
            _layout(first._sharding.spec, aval.ndim) == _layout(spec, aval.ndim):
        spec = first._sharding.spec
    sharding = NamedSharding(mesh, spec)
    return aval.update(sharding=aval_sharding(sharding, aval.ndim)), sharding


dispatch.PLACED_EAGER[0] = run_placed
placed_call.RUN[0] = run_jaxpr_placed
