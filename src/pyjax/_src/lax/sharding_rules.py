"""Sharding rules: the placement part of abstract evaluation.

Under a mesh whose axes are `Explicit`, an aval's sharding is part of its
type; each primitive's sharding rule (beside its abstract eval, registered
with `Primitive.def_sharding_rule`) computes its output's placement from
its operands' and raises `ShardingTypeError` with JAX's text where they do
not combine. The rules run only when an operand's type names a sharding;
an aval without one is replicated (`(None,) * ndim`).
"""

from __future__ import annotations

from typing import Any

from pyjax._src import ad_util
from pyjax._src.avals import ShapedArray
from pyjax._src.errors import ShardingTypeError
from pyjax._src.sharding.mesh import AbstractMesh, AxisType, Mesh, get_abstract_mesh
from pyjax._src.sharding.named import DuplicateSpecError, NamedSharding, abstract_sharding, explicit_spec
from pyjax._src.sharding.partition_spec import PartitionSpec


def spec_of(aval) -> tuple:
    """The aval's per-dimension spec entries (all None where it names no sharding)."""
    s = getattr(aval, "sharding", None)
    return tuple(s.spec) if s is not None else (None,) * len(aval.shape)


def mesh_of(aval) -> AbstractMesh | None:
    s = getattr(aval, "sharding", None)
    return None if s is None else s.mesh


def with_spec(out: ShapedArray, mesh: AbstractMesh | None, entries) -> ShapedArray:
    """`out` whose sharding is `entries` on `mesh` (none where all are None)."""
    try:
        sharding = None if mesh is None else abstract_sharding(mesh, tuple(entries))
    except DuplicateSpecError as e:  # a mesh axis named twice: the caller says which operation
        e.entries = tuple(entries)
        raise
    if sharding is out.sharding:
        return out
    return ShapedArray(out.shape, out.dtype, out.weak_type, sharding, out.memory_space)


def _manual_only(mesh) -> bool:
    # A manual shard_map body's mesh with no Explicit axis left.
    types = getattr(mesh, "axis_types", ())
    return any(t is AxisType.Manual for t in types) and not any(t is AxisType.Explicit for t in types)


def typed_sharding(aval, entries=None) -> NamedSharding | None:
    """The sharding JAX's type of `aval` names, for a rule that passes it on
    (`out_sharding=operand.aval.sharding`), with spec `entries` if given:
    the aval's own; inside a manual shard_map body, whose values pyjax types
    on no mesh, the body's mesh (JAX types every body value on it); else
    None."""
    mesh = mesh_of(aval)
    if mesh is None:
        mesh = get_abstract_mesh()
        if not _manual_only(mesh):
            return None
    return abstract_sharding(mesh, spec_of(aval) if entries is None else tuple(entries))


def in_type(sharding: NamedSharding | None) -> NamedSharding | None:
    """The part of a primitive's `sharding` param its result's aval carries:
    none for a manual body's mesh without Explicit axes (the body's context
    implies it; pyjax's avals name a mesh only for placement)."""
    return None if sharding is not None and _manual_only(sharding.mesh) else sharding


def common_mesh(avals, message, error=ShardingTypeError) -> AbstractMesh | None:
    mesh = None
    for a in avals:
        m = mesh_of(a)
        if m is not None and not m.empty:
            if mesh is not None and m != mesh:
                raise error(message(mesh, m))
            mesh = m
    return mesh


def context_mesh(mesh: AbstractMesh | None = None) -> AbstractMesh | None:
    """`mesh`, else the context mesh where it has Explicit axes: where JAX's
    rules type a result on the context mesh when no operand names one."""
    from pyjax._src import core

    return core.typing_mesh[0] if mesh is None else mesh


def iota_rule(out, *, dtype, shape, dimension, sharding):
    return out if sharding is not None else with_spec(out, context_mesh(), (None,) * len(shape))


def canonicalize_sharding(sharding: Any, api_name: str, ndim: int | None = None) -> NamedSharding | None:
    """An `out_sharding=` argument as the aval sharding it means: a
    PartitionSpec on the abstract mesh in context, a NamedSharding on its
    mesh's abstract mesh; None (or an empty mesh) for none."""
    if sharding is None:
        return None
    if isinstance(sharding, NamedSharding) and sharding.mesh.empty:
        return None
    if not isinstance(sharding, (NamedSharding, PartitionSpec)):
        raise TypeError(f"`out_sharding` argument of {api_name} only supports instances of `NamedSharding` or "
                        f"`PartitionSpec`. Got {sharding} of type: {type(sharding)}")
    current = get_abstract_mesh()
    if isinstance(sharding, PartitionSpec):
        if current.empty:
            raise ValueError("Using PartitionSpec when you are not under a mesh context is not allowed. Please "
                             "pass a NamedSharding instance or enter into a mesh context via `jax.set_mesh`. "
                             f"Got {sharding}")
        mesh, spec = current, sharding
    else:
        mesh, spec = sharding.mesh.abstract_mesh, sharding.spec
        if not current.empty and mesh != current and not (mesh.are_all_axes_auto and current.are_all_axes_auto):
            raise ValueError(f"Context mesh {current} should match the mesh of sharding {mesh} passed to "
                             f"{api_name}.")
    if isinstance(mesh, Mesh):
        mesh = mesh.abstract_mesh
    NamedSharding(mesh, spec)  # (JAX's checks of the spec against the mesh)
    n = len(spec) if ndim is None else ndim
    return abstract_sharding(mesh, explicit_spec(mesh, spec, n))


# ---------------------------------------------------------------------------
# Elementwise n-ary ops (lax's broadcasting)


def broadcasting_rule(name: str):
    """The sharding rule of an n-ary elementwise primitive named `name`:
    dimensions agree on their sharding, a size-1 unsharded one yields."""

    def rule(out, *avals, **params):
        named = common_mesh(avals, lambda a, b: f"Mesh for all inputs should be equal. Got one mesh: {a} and "
                                                f"another mesh: {b}", ValueError)
        mesh = context_mesh(named)
        if mesh is None or not isinstance(out, ShapedArray):
            return out
        ranked = [a for a in avals if a.shape]
        if not ranked:  # scalars: on an operand's mesh, replicated (JAX's P() there)
            return with_spec(out, named, ()) if named is not None and not out.shape else out
        if len({len(a.shape) for a in ranked}) != 1:
            return out  # (the abstract eval has raised already for mismatched ranks)
        specs = [spec_of(a) for a in ranked]
        shapes = [a.shape for a in ranked]
        result = [None] * len(shapes[0])
        for i, (ss, ds) in enumerate(zip(zip(*specs), zip(*shapes))):
            if all(ss[0] == s for s in ss[1:]):
                result[i] = ss[0]
                continue
            non_trivial = [s for s, d in zip(ss, ds) if not (d == 1 and s is None)]
            if not non_trivial:
                result[i] = None
            elif all(non_trivial[0] == s for s in non_trivial[1:]):
                result[i] = non_trivial[0]
            else:
                for s in ss:
                    if result[i] is None and s is not None:
                        result[i] = s
                    elif result[i] is not None and s is not None and result[i] != s:
                        raise ShardingTypeError(
                            f"{name} got incompatible shardings for broadcasting: "
                            f"{', '.join(str(tuple(s)) for s in specs)}.")
        return with_spec(out, mesh, result)

    return rule


# add_any (autodiff's sum of cotangents) adds as `add` does.
ad_util.add_any_p.def_sharding_rule(broadcasting_rule("add_any"))


# ---------------------------------------------------------------------------
# dot_general


def _check_specs_match(lhs_spec, rhs_spec, message: str) -> None:
    for left, right in zip(lhs_spec, rhs_spec):
        if left is not None and right is not None and left != right:
            raise ShardingTypeError(message)


def dot_general_rule(out, lhs, rhs, *, dimension_numbers, precision, preferred_element_type, out_sharding):
    lm, rm = mesh_of(lhs), mesh_of(rhs)
    if lm is not None and rm is not None and not lm.empty and not rm.empty and lm != rm:
        raise ShardingTypeError(f"Mesh of both lhs and rhs should match. Got lhs: {lm} and rhs: {rm}")
    if out_sharding is not None:
        return out  # (the abstract eval placed it)
    (lc, rc), (lb, rb) = dimension_numbers
    ls, rs = spec_of(lhs), spec_of(rhs)
    lhs_contracting_spec = tuple(ls[i] for i in lc)
    rhs_contracting_spec = tuple(rs[i] for i in rc)
    lhs_batch_spec = tuple(ls[i] for i in lb)
    rhs_batch_spec = tuple(rs[i] for i in rb)
    _check_specs_match(lhs_batch_spec, rhs_batch_spec,
                       "dot_general requires lhs batch dimensions and rhs batch dimensions to have the consistent "
                       f"sharding, got {lhs_batch_spec} and {rhs_batch_spec}.")
    _check_specs_match(lhs_contracting_spec, rhs_contracting_spec,
                       "dot_general requires contracting dimensions to have consistent sharding, got "
                       f"{lhs_contracting_spec} and {rhs_contracting_spec}.")
    for left, right in zip(lhs_contracting_spec, rhs_contracting_spec):
        if left is not None and right is not None:
            raise ShardingTypeError(
                "Contracting dimensions are sharded and it is ambiguous how the output should be sharded. Please "
                "specify the output sharding via the `out_sharding` parameter. "
                f"Got {lhs_contracting_spec=} and {rhs_contracting_spec=}")
    mesh = rm if (lm is None or lm.empty) and rm is not None else lm
    lhs_free = tuple(s for i, s in enumerate(ls) if i not in lc and i not in lb)
    rhs_free = tuple(s for i, s in enumerate(rs) if i not in rc and i not in rb)
    return with_spec(out, mesh, lhs_batch_spec + lhs_free + rhs_free)


# ---------------------------------------------------------------------------
# Shape ops and reductions


def reduction_rule(out, operand, *, axes, **params):
    """A reduction over `axes` drops their entries."""
    spec = spec_of(operand)
    outs = out if isinstance(out, (list, tuple)) else [out]
    kept = tuple(s for i, s in enumerate(spec) if i not in axes)
    placed = [with_spec(o, mesh_of(operand), kept) if isinstance(o, ShapedArray) and o.ndim == len(kept) else o
              for o in outs]
    return placed if isinstance(out, (list, tuple)) else placed[0]


def multi_reduction_rule(out, *operands, axes, **params):
    if not operands:
        return out
    spec = spec_of(operands[0])
    kept = tuple(s for i, s in enumerate(spec) if i not in axes)
    mesh = mesh_of(operands[0])
    return [with_spec(o, mesh, kept) if isinstance(o, ShapedArray) and o.ndim == len(kept) else o for o in out]


def transpose_rule(out, operand, *, permutation):
    spec = spec_of(operand)
    return with_spec(out, mesh_of(operand), tuple(spec[p] for p in permutation))


def broadcast_in_dim_rule(out, operand, *dyn, shape, broadcast_dimensions, sharding):
    if sharding is not None:
        return out
    spec = spec_of(operand)
    result = [None] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        result[d] = spec[i]
    return with_spec(out, context_mesh(mesh_of(operand)), result)


def squeeze_rule(out, operand, *, dimensions):
    spec = spec_of(operand)
    return with_spec(out, mesh_of(operand), tuple(s for i, s in enumerate(spec) if i not in dimensions))


def expand_dims_like(out, operand, positions):
    spec = list(spec_of(operand))
    for p in sorted(positions):
        spec.insert(p, None)
    return with_spec(out, mesh_of(operand), spec)


class _Unsupported(Exception):
    pass


def reshape_rule(out, operand, *dyn, new_sizes, dimensions, sharding):
    """A reshape keeps the placement where it can say where each element
    goes: size-1 dimensions come and go freely; one sharded dimension may be
    split into several (its mesh axes handed out major first) or several
    merged into one (their axes concatenated); anything else needs
    `out_sharding`."""
    if sharding is not None:
        return out
    spec = spec_of(operand)
    mesh = mesh_of(operand)
    if all(e is None for e in spec):
        return out
    new_sizes = tuple(new_sizes)
    try:
        result = _reshape_spec(tuple(operand.shape), new_sizes, spec, dimensions, mesh)
    except _Unsupported:
        raise ShardingTypeError(
            "This reshape is not supported. Please specify the sharding of the output via the `out_sharding` "
            f"argument of jax.lax.reshape. Got operand type: {operand}, new sizes: {new_sizes}") from None
    return with_spec(out, mesh, result)


def _axes(entry) -> tuple:
    return () if entry is None else (entry if isinstance(entry, tuple) else (entry,))


def _entry(axes: tuple):
    return None if not axes else (axes[0] if len(axes) == 1 else tuple(axes))


def _hand_out(axes: tuple, parts: list, mesh) -> list:
    # Mesh axes (major first) over consecutive dimensions of sizes `parts`:
    # each takes axes while it still has a factor left to split.
    pool = list(axes)
    out = []
    for size in parts:
        taken = []
        while size > 1 and pool:
            k = mesh.shape[pool[0]]
            if size % k:
                raise _Unsupported
            size //= k
            taken.append(pool.pop(0))
        out.append(_entry(tuple(taken)))
    if pool:
        raise _Unsupported
    return out


def _groups(short: list, long: list):
    # Each entry of `short` is one entry of `long` or the product of a run
    # of them (at most one such run); None where that is not so.
    runs, j, grouped = [], 0, 0
    for size in short:
        if j < len(long) and long[j] == size:
            runs.append([j])
            j += 1
            continue
        grouped += 1
        if grouped > 1:
            raise _Unsupported
        run, product = [], 1
        while product < size and j < len(long):
            product *= long[j]
            run.append(j)
            j += 1
        if product != size:
            return None
        runs.append(run)
    return runs if j == len(long) else None


def _reshape_spec(old: tuple, new: tuple, spec: tuple, dimensions, mesh) -> list:
    kept = [(n, e) for n, e in zip(old, spec) if n != 1]
    old_sizes = [n for n, _ in kept]
    old_spec = [e for _, e in kept]
    new_sizes = [n for n in new if n != 1]
    if old_sizes == new_sizes:
        placed = old_spec
    elif len(new_sizes) > len(old_sizes) and (runs := _groups(old_sizes, new_sizes)) is not None:
        placed = [None] * len(new_sizes)  # a split: one old dimension into a run of new ones
        for e, run in zip(old_spec, runs):
            if len(run) == 1:
                placed[run[0]] = e
            elif e is not None:
                if dimensions is not None:
                    raise _Unsupported
                for k, part in zip(run, _hand_out(_axes(e), [new_sizes[k] for k in run], mesh)):
                    placed[k] = part
    elif len(new_sizes) < len(old_sizes) and (runs := _groups(new_sizes, old_sizes)) is not None:
        placed = []  # a merge: a run of old dimensions into one new one
        for size, run in zip(new_sizes, runs):
            entries = [old_spec[k] for k in run]
            if len(run) == 1:
                placed.append(entries[0])
                continue
            if all(e is None for e in entries):
                placed.append(None)
                continue
            if dimensions is not None:
                raise _Unsupported
            while entries[-1] is None:
                entries.pop()
            if any(e is None for e in entries):
                raise _Unsupported
            axes = tuple(a for e in entries for a in _axes(e))
            placed.extend(_hand_out(axes, [size], mesh))
    else:
        raise _Unsupported
    it = iter(placed)
    return [None if n == 1 else next(it) for n in new]


# ---------------------------------------------------------------------------
# Stacking (scan's xs and ys)


def stacked(aval: ShapedArray, length: int) -> ShapedArray:
    """The aval of `length` values of type `aval` stacked on a new leading axis."""
    if aval.sharding is None:
        return aval.update(shape=(length, *aval.shape))
    return with_spec(aval.update(shape=(length, *aval.shape)), aval.sharding.mesh, (None, *spec_of(aval)))


def unstacked(aval: ShapedArray) -> ShapedArray:
    """The aval of one element of `aval` along its leading axis."""
    if aval.sharding is None:
        return aval.update(shape=aval.shape[1:])
    return with_spec(ShapedArray(aval.shape[1:], aval.dtype, aval.weak_type, None, aval.memory_space),
                     aval.sharding.mesh, spec_of(aval)[1:])


# ---------------------------------------------------------------------------
# Joining, slicing, padding, selecting, cumulative ops


def _sharding_text(aval) -> str:
    s = aval.sharding
    return str(s) if s is not None else "NamedSharding(mesh=AbstractMesh((), axis_types=()), spec=P())"


def same_sharding_rule(message: str):
    """Operands on a mesh must agree on their sharding, which the result has
    (concatenate, select_n's cases); `message` formats the shardings."""

    def rule(out, *avals, **params):
        placed = [a for a in avals if a.sharding is not None]
        if not isinstance(out, ShapedArray):
            return out
        if not placed:
            return with_spec(out, context_mesh(), (None,) * len(out.shape))
        first = placed[0].sharding
        if any(a.sharding != first for a in placed[1:]):
            raise ShardingTypeError(message.format(", ".join(_sharding_text(a) for a in avals)))
        return with_spec(out, first.mesh, tuple(first.spec))

    return rule


concatenate_rule = same_sharding_rule("All operands should have the same sharding. Got shardings {}")


def select_n_rule(out, which, *cases):
    out = same_sharding_rule("select cases must have the same shardings, got [{}].")(out, *cases)
    first = next((c.sharding for c in cases if c.sharding is not None), None)
    if which.shape and which.sharding is not None and first is not None and \
            (which.sharding.mesh != first.mesh or tuple(which.sharding.spec) != tuple(first.spec)):
        raise ShardingTypeError(
            "select `which` must be scalar or have the same sharding as cases, got `which` sharding "
            f"{which.sharding} but case sharding {_sharding_text(cases[0])}.")
    return out


def varying_shape_rule(name: str):
    """Slicing and padding: the operand's placement, where each sharded
    dimension whose size changes still divides over its mesh axes."""

    def rule(out, operand, *rest, **params):
        mesh = mesh_of(operand)
        if mesh is None or not isinstance(out, ShapedArray):
            return out
        if not out.shape or all(n == 1 for n in out.shape):
            return with_spec(out, mesh, (None,) * len(out.shape))
        spec = spec_of(operand)
        for before, after, entry in zip(operand.shape, out.shape, spec):
            if before != after and entry is not None:
                k = 1
                for a in _axes(entry):
                    k *= mesh.shape[a]
                if after % k:
                    raise ShardingTypeError(
                        f"{name} on sharded dims where out dim ({after}) is not divisible by mesh axes ({k}) with "
                        f"spec ({entry}) is not implemented. Got input type={operand.str_short(True)} and output "
                        f"shape={_shape_as_computed(out.shape, operand.shape, params.get('padding_config'))}")
        return with_spec(out, mesh, spec)

    return rule


def _shape_as_computed(shape: tuple, in_shape: tuple, padding_config) -> tuple:
    # JAX's padded shape keeps its config's integer types (jnp.pad's are
    # np.int64, and the message shows them so).
    if padding_config is None:
        return shape
    return tuple(lo + hi + (0 if d == 0 else 1 + (i + 1) * (d - 1)) for (lo, hi, i), d in zip(padding_config, in_shape))


def keep_operand_rule(out, operand, *rest, **params):
    """The result is placed as the (first) operand is (rev, clamp's operand)."""
    return with_spec(out, mesh_of(operand), spec_of(operand)) if isinstance(out, ShapedArray) else out


def cumulative_rule(out, x, *, axis: int, reverse: bool):
    if spec_of(x)[axis] is not None:
        raise ShardingTypeError(
            f"Input should be unsharded over the axis being reduced. Got input type={x} and axis={axis}")
    return with_spec(out, mesh_of(x), spec_of(x))


def _with_axis_types(aval) -> str:
    # JAX's str_short(mesh_axis_types=True): the type, then the mesh's axes by type.
    mesh = mesh_of(aval)
    text = str(ShapedArray(aval.shape, aval.dtype, False, aval.sharding, aval.memory_space))
    if mesh is None or mesh.empty:
        return text + "({})"
    groups: dict = {}
    for name, kind in zip(mesh.axis_names, mesh.axis_types):
        groups.setdefault(kind, []).append(name)
    return text + "({" + ", ".join(f"{k!r}: {tuple(v)!r}" for k, v in groups.items()) + "})"


def dynamic_update_slice_rule(out, operand, update, *indices):
    if operand.sharding != update.sharding:
        raise ShardingTypeError(
            "dynamic_update_slice operand sharding must be equal to update sharding, got operand sharding "
            f"{_with_axis_types(operand)} and update sharding {_with_axis_types(update)}.")
    return with_spec(out, mesh_of(operand), spec_of(operand))


def split_rule(outs, operand, *, sizes, axis):
    rule = varying_shape_rule("split")
    return [rule(o, operand) for o in outs]


# ---------------------------------------------------------------------------
# stack / unstack, gather / scatter


def stack_rule(out, *operands, axis):
    out = same_sharding_rule("All operands should have the same sharding. Got shardings {}")(out, *operands)
    if out.sharding is None:
        return out
    entries = list(out.sharding.spec)
    entries.insert(axis, None)
    return with_spec(out, out.sharding.mesh, entries[:len(out.shape)])


def unstack_rule(outs, operand, *, axis):
    spec = list(spec_of(operand))
    del spec[axis]
    return [with_spec(o, mesh_of(operand), spec) for o in outs]


def _one_mesh(*avals):
    meshes = {mesh_of(a) for a in avals if mesh_of(a) is not None and not mesh_of(a).empty}
    if len(meshes) > 1:
        raise ShardingTypeError(f"Conflicting meshes received. Got: unique_meshes={meshes}")
    return context_mesh(next(iter(meshes), None))


def gather_rule(out, operand, indices, *, dimension_numbers, slice_sizes, **params):
    """A gather keeps placement where no device needs another's data: the
    operand dimensions indexed into are whole windows or replicated, the
    index vectors are replicated, and batching dimensions agree; otherwise
    `.at[...].get(out_sharding=)` must say."""
    mesh = _one_mesh(operand, indices)
    if mesh is None:
        return out
    d = dimension_numbers
    op = spec_of(operand)
    ix = list(spec_of(indices))
    batched = dict(zip(d.operand_batching_dims, d.start_indices_batching_dims))
    windows_ok = all(slice_sizes[i] == operand.shape[i] or op[i] is None for i in d.start_index_map)
    batches_ok = all(op[o] is None or ix[i] is None or op[o] == ix[i] for o, i in batched.items())
    queries_ok = all(s is None for k, s in enumerate(ix) if k not in d.start_indices_batching_dims)
    if not (windows_ok and batches_ok and queries_ok):
        raise ShardingTypeError(
            "Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the gather indexing as out "
            "sharding could not be resolved unambiguously (or would require collectives on inputs). Got "
            f"operand={operand!r}, indices={indices!r}")
    for o, i in batched.items():
        ix[i] = ix[i] or op[o]
    window_dims = iter(k for k in range(operand.ndim)
                       if k not in d.collapsed_slice_dims and k not in d.operand_batching_dims)
    query_dims = iter(ix)
    entries = [op[next(window_dims)] if k in d.offset_dims else next(query_dims) for k in range(len(out.shape))]
    return with_spec(out, mesh, entries)


def _scatter_spec(operand, indices, updates, d):
    """JAX's conditions for a scatter's placement (its gather rules in
    inverse): batch dims agree, whole windows placed alike in operand and
    updates, split windows and unbatched queries replicated, the index
    vector replicated. None: ambiguous."""
    op, ix, up = spec_of(operand), spec_of(indices), spec_of(updates)
    ivd = indices.ndim - 1
    in_updates: list = list(range(ivd))
    for i in d.update_window_dims:
        in_updates.insert(i, None)
    up_batch = tuple(in_updates.index(i) for i in d.scatter_indices_batching_dims)
    op_window = [i for i in range(operand.ndim) if i not in d.inserted_window_dims and i not in d.operand_batching_dims]

    def resolvable(*names):
        return len({a for a in names if a is not None}) <= 1

    ok = (all(resolvable(op[o], ix[i], up[u]) for o, i, u in zip(d.operand_batching_dims,
                                                                 d.scatter_indices_batching_dims, up_batch))
          and all((updates.shape[u] == operand.shape[o] and up[u] == op[o]) or (up[u] is None and op[o] is None)
                  for u, o in zip(d.update_window_dims, op_window))
          and all(op[i] is None for i in d.inserted_window_dims)
          and all(e is None for i, e in enumerate(up) if i not in up_batch and i not in d.update_window_dims)
          and all(e is None for i, e in enumerate(ix[:ivd]) if i not in d.scatter_indices_batching_dims)
          and ix[ivd] is None)
    if not ok:
        return None
    out = list(op)
    for o, i, u in zip(d.operand_batching_dims, d.scatter_indices_batching_dims, up_batch):
        if out[o] is None:
            out[o] = ix[i] or up[u]
    for u, o in zip(d.update_window_dims, op_window):
        if out[o] is None:
            out[o] = up[u]
    return out


def scatter_rule(out, operand, indices, updates, *, dimension_numbers, **params):
    """The scatter's placement by JAX's conditions; where they leave it
    ambiguous, `.at[...].set(out_sharding=)` must say."""
    mesh = _one_mesh(operand, indices, updates)
    if mesh is None:
        return out
    spec = _scatter_spec(operand, indices, updates, dimension_numbers)
    if spec is None:
        raise ShardingTypeError(
            "Use `.at[...].set/add/mul/...(out_sharding=)` to provide output PartitionSpec for the scatter update as "
            "out sharding could not be resolved unambiguously (or would require collectives on inputs). Got "
            f"operand={operand!r}, indices={indices!r}, updates={updates!r}")
    return with_spec(out, mesh, spec)


# ---------------------------------------------------------------------------
# Sorting, tiling, windows, convolution, linalg, and the one-operand families


def _explicit(aval) -> bool:
    s = getattr(aval, "sharding", None)
    return s is not None and not s.mesh.empty and any(t.name == "Explicit" for t in s.mesh.axis_types)


def sort_rule(outs, *operands, dimension: int, is_stable: bool, num_keys: int):
    """Sorted operands keep their placement; none may be split along the
    sorting dimension, and all must agree (JAX's checks)."""
    placed = [a.sharding for a in operands if _explicit(a)]
    for s in placed:
        if s.spec[dimension] is not None:
            raise ShardingTypeError("Arguments to sort must be unsharded over the sorting dimension. "
                                    f"Got arg sharding={s} and sorting dimension={dimension}")
        if s != placed[0]:
            raise ShardingTypeError("Arguments to sort must have equal shardings, got: "
                                    + " ".join(str(s) for s in placed))
    return [with_spec(o, mesh_of(a), spec_of(a)) for o, a in zip(outs, operands, strict=True)]


def top_k_rule(outs, operand, *, k: int, axis: int = -1, **params):
    if spec_of(operand)[axis] is not None:
        raise ShardingTypeError("The input should be unsharded over the axis along which to compute the top_k "
                                f"values. Got input type={operand} and axis={axis % operand.ndim}")
    return [with_spec(o, mesh_of(operand), spec_of(operand)) for o in outs]


def keep_each_rule(outs, operand, *rest, **params):
    """Every result is placed as the operand (same rank)."""
    return [with_spec(o, mesh_of(operand), spec_of(operand)) for o in outs]


def tile_rule(out, x, *, reps):
    for i, (r, e) in enumerate(zip(reps, spec_of(x))):
        if r != 1 and e is not None:
            raise ShardingTypeError(f"Operand cannot be sharded on dimension {i} when the tiling is non-trivial. "
                                    f"Got input type: {x} with reps: {tuple(reps)}")
    return with_spec(out, mesh_of(x), spec_of(x))


def _sub_spec_size(mesh, entry) -> int:
    size = 1
    for axis in _axes(entry):
        size *= mesh.shape[axis]
    return size


def varying_out_shape(out, operand, name: str):
    """JAX's placement of a result whose shape may differ from the operand's:
    the operand's spec, if each resized split dimension stays divisible."""
    mesh = mesh_of(operand)
    if mesh is None or not isinstance(out, ShapedArray):
        return out
    if not out.shape or all(d == 1 for d in out.shape):
        return with_spec(out, mesh, (None,) * out.ndim)
    for d_in, d_out, e in zip(operand.shape, out.shape, spec_of(operand)):
        if d_in != d_out and e is not None and d_out % _sub_spec_size(mesh, e) != 0:
            text = e if not isinstance(e, tuple) else "(" + ", ".join(e) + ")"
            raise ShardingTypeError(
                f"{name} on sharded dims where out dim ({d_out}) is not divisible by mesh axes "
                f"({_sub_spec_size(mesh, e)}) with spec ({text}) is not implemented. Got input "
                f"type={operand.str_short(True)} and output shape={tuple(out.shape)}")
    return with_spec(out, mesh, spec_of(operand))


def reduce_window_rule(out, *avals, **params):
    if isinstance(out, list):  # the generic reduce_window: operands, then inits
        n = len(out)
        return [varying_out_shape(o, a, "reduce_window") for o, a in zip(out, avals[:n], strict=True)]
    return varying_out_shape(out, avals[0], "reduce_window")


def select_and_gather_add_rule(out, tangents, operand, **params):
    return varying_out_shape(out, operand, "reduce_window")


def select_and_scatter_add_rule(out, source, operand, **params):
    return with_spec(out, mesh_of(operand), spec_of(operand))


def select_and_scatter_rule(out, operand, source, init_value, **params):
    # JAX's: the result is placed as the operand.
    return with_spec(out, mesh_of(operand), spec_of(operand))


def conv_rule(out, lhs, rhs, *, dimension_numbers, out_sharding, **params):
    """An explicit out_sharding places the result; otherwise a replicated
    kernel and an unsplit input-feature dimension keep the lhs's placement."""
    if out_sharding is not None:
        return out
    if all(e is None for e in spec_of(rhs)) and spec_of(lhs)[dimension_numbers.lhs_spec[1]] is None:
        return varying_out_shape(out, lhs, "conv_general_dilated")
    raise ShardingTypeError("Please specify the output sharding via `out_sharding` parameter of "
                            "`conv_general_dilated`")


def linalg_rule(name: str, ranks: tuple):
    """The rule of a linalg primitive on its operands' trailing `ranks`
    dimensions: those unsplit, the batch dimensions agreeing and kept."""

    def rule(out, *avals, **params):
        batch_specs = []
        for i, (rank, aval) in enumerate(zip(ranks, avals)):
            spec = spec_of(aval)
            batch, rest = spec[:len(spec) - rank], spec[len(spec) - rank:]
            if any(e is not None for e in rest):
                raise ShardingTypeError(f"Input {i} to {name} must be unsharded on non-batch dimensions, but got "
                                        f"{PartitionSpec(*spec)}.")
            batch_specs.append(batch)
        if any(b != batch_specs[0] for b in batch_specs[1:]):
            raise ShardingTypeError(f"All inputs to {name} must have the same batch sharding, but got "
                                    f"{batch_specs}.")
        mesh, batch = _one_mesh(*avals), batch_specs[0]

        def place(o):
            return with_spec(o, mesh, (*batch, *(None,) * (o.ndim - len(batch))))

        return [place(o) for o in out] if isinstance(out, list) else place(out)

    return rule


def triangular_solve_rule(out, a, b, *, left_side: bool, lower: bool, transpose_a: bool, conjugate_a: bool,
                          unit_diagonal: bool):
    a_full, b_full = spec_of(a), spec_of(b)
    batch, a_spec = a_full[:-2], a_full[-2:]
    batch_b, b_spec = b_full[:-2], b_full[-2:]
    if batch != batch_b:
        raise ShardingTypeError("All inputs to triangular_solve must have the same batch sharding, but got "
                                f"{batch} and {batch_b}.")
    if a_spec[left_side ^ transpose_a] is not None:
        raise ShardingTypeError("triangular solve input `a` must be unsharded on the contracting axis, but got "
                                f"{PartitionSpec(*a_full)} with left_side={left_side} and transpose_a={transpose_a}.")
    if b_spec[not left_side] is not None:
        raise ShardingTypeError("triangular solve input `b` must be unsharded on the contracting axis, but got "
                                f"{PartitionSpec(*b_full)} with left_side={left_side} and transpose_a={transpose_a}.")
    rest = [a_spec[transpose_a], b_spec[1]] if left_side else [b_spec[0], a_spec[not transpose_a]]
    return with_spec(out, _one_mesh(a, b), (*batch, *rest))


def clamp_rule(out, lo, operand, hi):
    return with_spec(out, mesh_of(operand), spec_of(operand))


def convert_element_type_rule(out, operand, *, new_dtype, weak_type, sharding):
    if sharding is not None:
        return out
    return with_spec(out, mesh_of(operand), spec_of(operand))


def bitcast_convert_type_rule(out, operand, *, new_dtype):
    spec = spec_of(operand)
    if out.ndim > operand.ndim:
        spec = (*spec, None)
    elif out.ndim < operand.ndim:
        spec = spec[:-1]
    return with_spec(out, mesh_of(operand), spec)


def reduce_rule(outs, *avals, dimensions, **params):
    operands = avals[:len(avals) // 2]
    return [with_spec(o, mesh_of(a), [e for i, e in enumerate(spec_of(a)) if i not in dimensions])
            for o, a in zip(outs, operands, strict=True)]
