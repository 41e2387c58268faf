"""Changing placement inside programs: reshard, sharding constraints, and
switching mesh axes between Auto and Explicit (auto_axes, explicit_axes).

`reshard` changes an array's type to a new sharding (under Explicit axes the
type says where the data lives, so moving it is an operation of its own);
`with_sharding_constraint` asks the compiler for a placement under Auto
axes and, under Explicit ones, asserts the type already has it.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from pyjax._src import core, dispatch
from pyjax._src.ad_util import Zero, instantiate
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters import staging
from pyjax._src.interpreters.jvp import deflinear
from pyjax._src.interpreters import key_reuse as _key_reuse
from pyjax._src.lax import sharding_rules
from pyjax._src.lax._standard import as_array
from pyjax._src.sharding import sharded_array
from pyjax._src.sharding.mesh import AbstractMesh, AxisType, Mesh, get_abstract_mesh, get_mesh, use_abstract_mesh
from pyjax._src.sharding.named import (
    IndivisibleError, NamedSharding, Sharding, abstract_sharding, check_divisible, explicit_spec,
)
from pyjax._src.sharding.partition_spec import PartitionSpec
from pyjax._src.tree_util import tree_flatten, tree_map, tree_unflatten

__all__ = ["auto_axes", "explicit_axes", "reshard", "reshard_p", "sharding_constraint_p", "with_sharding_constraint"]


def _retyped(aval: ShapedArray, sharding) -> ShapedArray:
    return ShapedArray(aval.shape, aval.dtype, aval.weak_type, sharding, aval.memory_space)


# ---------------------------------------------------------------------------
# reshard

reshard_p = Primitive("reshard")
reshard_p.declare(key_reuse=_key_reuse.FORWARD)
reshard_p.declare(sharding_reason="the destination sharding is the whole of the result's type")
reshard_p.pp_hidden = lambda k, v: k == "dst_sharding"


@reshard_p.def_abstract_eval
def _reshard_abstract_eval(operand: ShapedArray, *, dst_sharding) -> ShapedArray:
    if dst_sharding is not None:
        check_divisible(operand.shape, dst_sharding)
    return _retyped(operand, dst_sharding)


# (Not `def_sharding_rule`: the destination is the whole of the result's type.)


def _reshard_transpose(ct, operand, *, dst_sharding):
    # The cotangent goes back to the operand's placement.
    if type(ct) is Zero:
        return [Zero(operand.aval)]
    return [reshard_p.bind(ct, dst_sharding=operand.aval.sharding)]


deflinear(reshard_p, _reshard_transpose)


def _reshard_batch(axis_data, args, dims, *, dst_sharding):
    (x,), (d,) = args, dims
    if d is None or dst_sharding is None:
        return reshard_p.bind(x, dst_sharding=dst_sharding), d
    # The batch dimension keeps the mesh axes vmap maps over (JAX's get_sharding_for_vmap),
    # in the type where they are Explicit on the destination's mesh.
    mesh, ema = dst_sharding.mesh, axis_data.explicit_mesh_axis
    entries = list(dst_sharding.spec)
    known = bool(ema) and all(a in mesh._name_to_type for a in ema)
    entries.insert(d, (ema[0] if len(ema) == 1 else tuple(ema)) if known else None)
    return reshard_p.bind(x, dst_sharding=abstract_sharding(mesh, explicit_spec(mesh, PartitionSpec(*entries),
                                                                                len(entries)))), d


reshard_p.def_batch(_reshard_batch)


def _where() -> str:
    return staging.format_source_info(staging.user_source_info(), with_column=True)


def _reshard_destination(sharding: Any, ndim: int) -> tuple:
    """(the aval sharding, the concrete sharding or None) a reshard to `sharding` means."""
    current = get_abstract_mesh()
    if isinstance(sharding, PartitionSpec):
        if current.empty:
            raise ValueError("Using PartitionSpec when you are not under a mesh context is not allowed. Please "
                             "pass a NamedSharding instance or enter into a mesh context via `jax.set_mesh`. "
                             f"Got {sharding}")
        types = current._name_to_type
        for entry in sharding:
            for axis in (entry if isinstance(entry, tuple) else (entry,)):
                if axis is not None and axis is not PartitionSpec.UNCONSTRAINED and \
                        types.get(axis) is not AxisType.Explicit and axis in types:
                    raise ValueError(
                        "PartitionSpec passed to reshard cannot contain axis names that are of type Auto or Manual. "
                        f"Got PartitionSpec: {sharding} with axis name: {axis} of type: {types[axis]!s}. This error "
                        f"occurs at source:  {_where()}")
        aval_sharding = sharding_rules.canonicalize_sharding(sharding, "reshard", ndim)
        concrete = get_mesh()
        return aval_sharding, (None if concrete.empty else NamedSharding(concrete, sharding))
    if isinstance(sharding, NamedSharding):
        aval_sharding = abstract_sharding(sharding.mesh.abstract_mesh,
                                          explicit_spec(sharding.mesh.abstract_mesh, sharding.spec, ndim))
        return aval_sharding, (sharding if isinstance(sharding.mesh, Mesh) else None)
    raise TypeError(f"reshard's out_shardings must be NamedShardings or PartitionSpecs, got {sharding!r}")


def reshard(xs: Any, out_shardings: Any) -> Any:
    """Moves each array of `xs` to the sharding given for it (a NamedSharding
    or a PartitionSpec on the mesh in context), changing its type.

    Args:
      xs: a pytree of arrays.
      out_shardings: a sharding, or a pytree prefix of `xs` of them.

    Returns:
      `xs` with each array placed (and typed) as asked.
    """
    leaves, treedef = tree_flatten(xs)
    if isinstance(out_shardings, (NamedSharding, PartitionSpec)):
        shardings = [out_shardings] * len(leaves)
    else:
        shardings, _ = tree_flatten(out_shardings, is_leaf=lambda s: isinstance(s, (NamedSharding, PartitionSpec)))
        if len(shardings) != len(leaves):
            raise ValueError(f"reshard's out_shardings must be a pytree prefix of xs: got {len(shardings)} "
                             f"shardings for {len(leaves)} arrays")
    outs = []
    eager = isinstance(core.current_trace(), dispatch.EvalTrace)
    for leaf, sharding in zip(leaves, shardings, strict=True):
        x = as_array(leaf)
        aval = core.get_aval(x)
        dst, concrete = _reshard_destination(sharding, aval.ndim)
        if eager and not isinstance(x, core.Tracer):
            target = concrete if concrete is not None else sharded_array.result_sharding(_retyped(aval, dst), (x,))
            if target is None:
                outs.append(x)
                continue
            if isinstance(target, NamedSharding):
                target.check_compatible_aval(aval.shape)
            moved = _reshard_per_device(x, dst, target)
            outs.append(sharded_array.place(sharded_array.host_buffer(x), _retyped(aval, None), target) if moved is None
                        else moved)
            continue
        outs.append(reshard_p.bind(x, dst_sharding=dst))
    return tree_unflatten(treedef, outs)


def _reshard_per_device(x, dst, target):
    # A placed Array moved within its own mesh: per device, as JAX's compiled
    # reshard moves it (all_to_alls, slices; spmd_eager.py), no device
    # holding more than its blocks; None where it cannot go so. A mesh with
    # Auto axes moves it on its Explicit twin (the same devices), where the
    # types name every axis, and types the result as placing it would.
    old = getattr(x, "_sharding", None)
    if (type(x) is not sharded_array.ShardedArray or not isinstance(old, NamedSharding)
            or not isinstance(target, NamedSharding) or old.mesh != target.mesh or not isinstance(old.mesh, Mesh)
            or old.memory_kind != target.memory_kind):
        return None
    mesh, ndim = target.mesh, x.aval.ndim
    if all(t is AxisType.Explicit for t in mesh.axis_types):
        out = dispatch.PLACED_EAGER[0](reshard_p, (x,), {"dst_sharding": dst})
        want, aval = target, None
    else:
        twin = Mesh(mesh.devices, mesh.axis_names, (AxisType.Explicit,) * len(mesh.axis_names))
        typed = lambda spec: abstract_sharding(twin.abstract_mesh, explicit_spec(twin.abstract_mesh, spec, ndim))  # noqa: E731
        on_twin = sharded_array.ShardedArray(x._shards, x.aval.update(sharding=typed(old.spec)),
                                             NamedSharding(twin, old.spec, memory_kind=old.memory_kind))
        out = dispatch.PLACED_EAGER[0](reshard_p, (on_twin,), {"dst_sharding": typed(target.spec)})
        want = NamedSharding(twin, target.spec, memory_kind=target.memory_kind)
        aval = x.aval.update(sharding=sharded_array.aval_sharding(target, ndim))  # (as sharded_array.place types it)
        if aval.sharding is None and x.aval.sharding is not None:
            aval = ShapedArray(aval.shape, aval.dtype, aval.weak_type, None, aval.memory_space)
    if type(out) is not sharded_array.ShardedArray or not out._sharding.is_equivalent_to(want, ndim):
        return None
    return sharded_array.ShardedArray(out._shards, out.aval if aval is None else aval, target)


# ---------------------------------------------------------------------------
# with_sharding_constraint

sharding_constraint_p = Primitive("sharding_constraint")
sharding_constraint_p.declare(key_reuse=_key_reuse.FORWARD)
sharding_constraint_p.declare(sharding_reason='the identity on the type (an assertion under Explicit axes)')


class _DimSet(frozenset):
    """A frozenset printed as JAX prints the param (``frozenset({})`` when empty)."""

    def __repr__(self) -> str:
        return "frozenset({" + ", ".join(map(repr, sorted(self))) + "})"


@sharding_constraint_p.def_abstract_eval
def _sharding_constraint_abstract_eval(operand: ShapedArray, *, sharding, layout, context_mesh,
                                       unconstrained_dims) -> ShapedArray:
    return operand


deflinear(sharding_constraint_p, lambda ct, operand, **params: [
    Zero(operand.aval) if type(ct) is Zero else sharding_constraint_p.bind(instantiate(ct), **params)])
sharding_constraint_p.def_batch(lambda axis_data, args, dims, **params: (sharding_constraint_p.bind(*args, **params),
                                                                          dims[0]))


def with_sharding_constraint(x: Any, shardings: Any) -> Any:
    """Asks that each array of `x` be placed as `shardings` says.

    Under Auto mesh axes this is a hint to the compiler (the type does not
    change); under Explicit axes the type already says where the array is,
    so the constraint asserts that it matches (use `reshard` to move it).
    """
    leaves, treedef = tree_flatten(x)
    if isinstance(shardings, (NamedSharding, PartitionSpec)):
        per_leaf = [shardings] * len(leaves)
    else:
        per_leaf, _ = tree_flatten(shardings, is_leaf=lambda s: isinstance(s, (NamedSharding, PartitionSpec)))
    outs = []
    context = get_abstract_mesh()
    for leaf, sharding in zip(leaves, per_leaf, strict=True):
        v = as_array(leaf)
        aval = core.get_aval(v)
        if isinstance(sharding, PartitionSpec):
            if context.empty:
                raise ValueError("One of with_sharding_constraint arguments got sharding "
                                 f"{sharding} which is not allowed. Please set a mesh via `jax.set_mesh`.")
            mesh = context
        else:
            mesh = sharding.mesh.abstract_mesh
        spec = sharding if isinstance(sharding, PartitionSpec) else sharding.spec
        if mesh.are_all_axes_explicit:
            have = tuple(sharding_rules.spec_of(aval))
            want = explicit_spec(mesh, spec, aval.ndim)
            if have != want:
                raise AssertionError(
                    "`with_sharding_constraint` acts as an assert when all axes of mesh are of type `Explicit`. "
                    f"The array sharding: {PartitionSpec(*have)} did not match the sharding provided: "
                    f"{PartitionSpec(*want)}. Please use `jax.sharding.reshard` to shard your input to the sharding "
                    "you want.")
            outs.append(v)
            continue
        param = NamedSharding(mesh, spec) if isinstance(sharding, PartitionSpec) else sharding
        out = sharding_constraint_p.bind(v, sharding=param, layout=None, context_mesh=context,
                                         unconstrained_dims=_DimSet())
        if isinstance(out, core.Tracer) or not isinstance(sharding, NamedSharding) or \
                not isinstance(sharding.mesh, Mesh):
            outs.append(out)
        else:
            outs.append(sharded_array.place(sharded_array.host_buffer(out), _retyped(aval, None), sharding))
    return tree_unflatten(treedef, outs)


# ---------------------------------------------------------------------------
# auto_axes / explicit_axes


def _axes_tuple(axes, mesh: AbstractMesh, kind: AxisType) -> tuple:
    if axes is None:
        return tuple(n for n, t in zip(mesh.axis_names, mesh.axis_types) if t is not kind)
    return (axes,) if isinstance(axes, str) else tuple(axes)


def _drop_axes(x, axes: tuple, mesh=None):
    # Reshard `x` so that none of its dimensions is split over `axes` (onto
    # `mesh`, where those axes are Auto, if given: auto_axes's arguments).
    aval = core.get_aval(x)
    sharding = aval.sharding
    if sharding is None:
        return reshard_p.bind(x, dst_sharding=None)
    entries = []
    for e in sharding.spec:
        if isinstance(e, tuple):
            kept = tuple(a for a in e if a not in axes)
            entries.append(kept if len(kept) > 1 else (kept[0] if kept else None))
        else:
            entries.append(None if e in axes else e)
    if mesh is None or isinstance(core.current_trace(), dispatch.EvalTrace):  # (eager: placed as the Array's mesh types it)
        return reshard_p.bind(x, dst_sharding=abstract_sharding(sharding.mesh, tuple(entries)))
    spec = explicit_spec(mesh, PartitionSpec(*entries), len(entries))
    return reshard_p.bind(x, dst_sharding=abstract_sharding(mesh, spec))


def auto_axes(f: Callable | None = None, /, *, axes: str | tuple | None = None, out_sharding: Any = None):
    """Runs `f` with mesh `axes` (every Explicit axis by default) of type Auto:
    inside, placement over them is the compiler's; the results are then
    resharded to `out_sharding`."""
    if f is None:
        return functools.partial(auto_axes, axes=axes, out_sharding=out_sharding)

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        mesh = get_abstract_mesh()
        if mesh.empty:
            raise ValueError("auto_axes requires a mesh in context: use jax.set_mesh(mesh).")
        names = _axes_tuple(axes, mesh, AxisType.Auto)
        inner = mesh.update_axis_types({n: AxisType.Auto for n in names})
        args, kwargs = tree_map(lambda x: _drop_axes(as_array(x), names, inner), (args, kwargs))
        with use_abstract_mesh(inner):
            out = f(*args, **kwargs)
        if out_sharding is None:
            return out
        return reshard(out, out_sharding)

    return wrapped


def explicit_axes(f: Callable | None = None, /, *, axes: str | tuple | None = None, in_sharding: Any = None):
    """Runs `f` with mesh `axes` (every Auto axis by default) of type
    Explicit, its arguments resharded to `in_sharding` first; the results
    come back with those axes Auto again."""
    if f is None:
        return functools.partial(explicit_axes, axes=axes, in_sharding=in_sharding)

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        mesh = get_abstract_mesh()
        if mesh.empty:
            raise ValueError("explicit_axes requires a mesh in context: use jax.set_mesh(mesh).")
        names = _axes_tuple(axes, mesh, AxisType.Explicit)
        inner = mesh.update_axis_types({n: AxisType.Explicit for n in names})
        with use_abstract_mesh(inner):
            if in_sharding is not None:
                args = reshard(args, in_sharding)
            out = f(*args, **kwargs)
            return tree_map(lambda x: _drop_axes(as_array(x), names), out)

    return wrapped


# ---------------------------------------------------------------------------
# jit's in_shardings / out_shardings


def _per_leaf_shardings(spec: Any, tree: Any, what: str) -> list:
    """One sharding (or None) per leaf of `tree`: `spec` is one sharding for
    all, or a pytree prefix of `tree` of them."""
    from pyjax._src.sharding.named import Sharding

    def is_leaf(s):
        return s is None or isinstance(s, (Sharding, PartitionSpec))

    leaves, treedef = tree_flatten(tree)
    if is_leaf(spec):
        return [spec] * len(leaves)
    from pyjax._src.tree_util import tree_structure

    spec_leaves, spec_def = tree_flatten(spec, is_leaf=is_leaf)
    out = []
    try:
        subtrees = spec_def.flatten_up_to(tree)
    except (ValueError, TypeError, AttributeError):
        if len(spec_leaves) == len(leaves):
            return list(spec_leaves)
        raise ValueError(f"jit's {what} must be a sharding or a pytree prefix of the {what[:-10]}s, got "
                         f"{spec!r} for {tree_structure(tree)}") from None
    for s, sub in zip(spec_leaves, subtrees, strict=True):
        out.extend([s] * len(tree_flatten(sub)[0]))
    return out


class PlacedJit:
    """A jitted function whose arguments and results are placed by
    `in_shardings` / `out_shardings` (eagerly; under a trace it is the jitted
    function itself). Stages and cache helpers are the jitted function's."""

    def __init__(self, jitted: Any, in_shardings: Any, out_shardings: Any) -> None:
        self._jitted = jitted
        self._in_shardings = in_shardings
        self._out_shardings = out_shardings
        functools.update_wrapper(self, jitted, updated=())
        jitted._placement = self._params

    def _params(self, args: tuple, kwargs: dict, out_tree) -> dict:
        # The jit equation's in_shardings / out_shardings (one per operand, result).
        from pyjax._src.sharding import jit_params

        static_argnums, _, dyn_kwargs, _ = self._jitted._resolve_static(args, kwargs)
        dyn_args = tuple(a for i, a in enumerate(args) if i not in static_argnums)
        self._check_divisible(args, kwargs, static_argnums, dyn_args)
        return jit_params.placement_params(self._in_shardings, self._out_shardings, dyn_args,
                                           len(tree_flatten(dyn_kwargs)[0]), out_tree)

    def _check_divisible(self, args: tuple, kwargs: dict, static_argnums, dyn_args: tuple) -> None:
        # JAX's IndivisibleError for an argument its in_shardings split unevenly.
        from pyjax._src import jit as jit_mod
        from pyjax._src.sharding import jit_params

        if self._in_shardings is None:
            return
        entries = jit_params.per_leaf(self._in_shardings, dyn_args, "in_shardings")
        names = jit_mod._arg_names(getattr(self._jitted, "__wrapped__", self._jitted), args, kwargs, static_argnums)
        for i, (leaf, s) in enumerate(zip(tree_flatten(dyn_args)[0], entries)):
            if not isinstance(s, Sharding) or not hasattr(leaf, "shape"):
                continue
            name = names[i] if i < len(names) else f"flat_args[{i}]"
            if isinstance(s, NamedSharding) and len(s.spec) > len(leaf.shape):
                raise ValueError(f"One of pjit arguments with pytree key path {name} is incompatible with its "
                                 f"sharding annotation {s}: Sharding {s} is only valid for values of rank at least "
                                 f"{len(s.spec)}, but was applied to a value of rank {len(leaf.shape)}.")
            try:
                s.shard_shape(tuple(leaf.shape))  # (a ShapeDtypeStruct too: np.shape would not read it)
            except IndivisibleError as e:
                # (JAX 0.11 prints the location before raising; under a trace
                # it names none)
                where = _where() if isinstance(core.current_trace(), dispatch.EvalTrace) else ""
                print(where)
                raise IndivisibleError(f"One of pjit arguments with pytree key path {name} was given the "
                                       f"sharding {e}. This error occurs at source:  {where}") from None

    def trace(self, *args, **kwargs):
        """The jitted function's `trace`, its `in_shardings` checked first (JAX's IndivisibleError)."""
        static_argnums = self._jitted._resolve_static(args, kwargs)[0]
        for leaf in tree_flatten((args, kwargs))[0]:
            getattr(leaf, "aval", None)  # (a placed ShapeDtypeStruct's own check comes first, as JAX's typing)
        self._check_divisible(args, kwargs, static_argnums,
                              tuple(a for i, a in enumerate(args) if i not in static_argnums))
        return self._jitted.trace(*args, **kwargs)

    def lower(self, *args, **kwargs):
        return self.trace(*args, **kwargs).lower()

    def __getattr__(self, name: str):
        return getattr(self._jitted, name)

    def __call__(self, *args, **kwargs):
        if not isinstance(core.current_trace(), dispatch.EvalTrace):
            return self._jitted(*args, **kwargs)
        if self._in_shardings is not None:
            static_argnums = self._jitted._resolve_static(args, kwargs)[0]
            self._check_divisible(args, kwargs, static_argnums,
                                  tuple(a for i, a in enumerate(args) if i not in static_argnums))
            args = self._place_args(args)
        out = self._jitted(*args, **kwargs)
        if self._out_shardings is None:
            return out
        from pyjax._src.lax.identity import device_put

        leaves, treedef = tree_flatten(out)
        targets = [_resolved(s, "out_shardings") for s in _per_leaf_shardings(self._out_shardings, out, "out_shardings")]
        return tree_unflatten(treedef, [x if s is None else device_put(x, s) for x, s in zip(leaves, targets)])

    def _place_args(self, args: tuple) -> tuple:
        from pyjax._src.lax.identity import device_put

        spec = self._in_shardings
        if isinstance(spec, list):
            spec = tuple(spec)
        leaves, treedef = tree_flatten(args)
        targets = [_resolved(s) for s in _per_leaf_shardings(spec, args, "in_shardings")]
        placed = []
        for x, s in zip(leaves, targets, strict=True):
            if s is None:
                placed.append(x)
                continue
            have = getattr(x, "_sharding", None)
            if have is not None and have != s:
                raise ValueError(
                    "Sharding passed to jit does not match the sharding on the respective arg. Got jit sharding: "
                    f"{s},\narg sharding: {have} for arg type: {core.get_aval(x)}")
            placed.append(x if have is not None else device_put(x, s))
        return tree_unflatten(treedef, placed)


def _resolved(s, what: str = "in_shardings"):
    from pyjax._src.sharding import jit_params

    entry = jit_params._entry(s, what)
    return None if entry is jit_params.UNSPECIFIED else entry


def _retyped_outputs(jaxpr: Any, flat_args: Any, mesh: Mesh):
    # A jitted call's result shardings with `mesh`'s Auto axes made Explicit
    # and each argument typed by its layout (None where a rule objects).
    from pyjax._src.interpreters.staging import trace_to_jaxpr
    from pyjax._src.jaxpr import eval_jaxpr

    am = mesh.abstract_mesh
    twin = AbstractMesh(am.axis_sizes, am.axis_names, (AxisType.Explicit,) * len(am.axis_names),
                        abstract_device=am.abstract_device)
    avals = []
    for x, aval in zip(flat_args, jaxpr.in_avals):
        s = getattr(x, "_sharding", None)
        sharding = None
        if isinstance(s, NamedSharding) and s.mesh == mesh:
            sharding = abstract_sharding(twin, tuple(s.spec) + (None,) * (len(aval.shape) - len(s.spec)))
        avals.append(aval.update(sharding=sharding) if isinstance(aval, ShapedArray) else aval)
    try:
        with use_abstract_mesh(twin):
            typed, _ = trace_to_jaxpr(lambda *a: eval_jaxpr(jaxpr, jaxpr.consts, *a), avals)
    except Exception:  # noqa: BLE001  (an Explicit-only objection: XLA would replicate)
        return None
    return [getattr(a, "sharding", None) for a in typed.out_avals]


sharded_array.RETYPE[0] = _retyped_outputs
