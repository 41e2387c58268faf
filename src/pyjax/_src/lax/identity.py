"""Identity primitives on pytrees: `optimization_barrier` and `device_put`.

Both return their operands unchanged; they exist for the compiler (a barrier
that stops XLA moving work across it) and for placement (a device or
sharding to put the values on). On pyjax's one CPU device both are copies of
nothing, but they are staged, differentiated and batched as JAX 0.11 does:
linear, transposing into themselves, batching axis for axis.
"""

from __future__ import annotations

import enum
from typing import Any

import numpy as np

from pyjax._src import core, dispatch, distributed
from pyjax._src.ad_util import Zero, instantiate
from pyjax._src.array import Array
from pyjax._src.sharding import devices as devices_mod
from pyjax._src.sharding import named, sharded_array
from pyjax._src.sharding.mesh import get_mesh
from pyjax._src.sharding.partition_spec import PartitionSpec
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters import staging
from pyjax._src.interpreters.transpose import is_undefined_primal
from pyjax._src.interpreters import key_reuse as _key_reuse
from pyjax._src.lax._standard import as_array
from pyjax._src.tree_util import tree_flatten, tree_unflatten

__all__ = ["ArrayCopySemantics", "device_put", "device_put_p", "optimization_barrier", "optimization_barrier_p"]


def _leaf_array(x):
    return as_array(x)


# ---------------------------------------------------------------------------
# optimization_barrier

optimization_barrier_p = Primitive("optimization_barrier", multiple_results=True)
optimization_barrier_p.declare(sharding_reason="the identity on each operand's type")


@optimization_barrier_p.def_abstract_eval
def _optimization_barrier_abstract_eval(*avals: ShapedArray) -> list[ShapedArray]:
    return list(avals)


def optimization_barrier(operand, /):
    """Return ``operand`` unchanged while fencing off compiler reordering.

    The values pass through as they are, but the compiler may neither move
    the computations feeding them past this point nor merge them with work
    on the other side; checkpointing uses it so a recomputed value is not
    deduplicated against the original.

    Args:
      operand: a pytree of arrays and scalars.

    Returns:
      ``operand``'s values, in a pytree of the same structure.

    Examples:
      >>> lax.optimization_barrier((jnp.ones(2), 2.0))
      (Array([1., 1.], dtype=float32), Array(2., dtype=float32, weak_type=True))
    """
    leaves, treedef = tree_flatten(operand)
    outs = optimization_barrier_p.bind(*[_leaf_array(x) for x in leaves])
    return tree_unflatten(treedef, outs)


def _optimization_barrier_jvp(primals, tangents):
    outs = optimization_barrier_p.bind(*primals)
    return outs, optimization_barrier_p.bind(*[instantiate(t) for t in tangents])


def _optimization_barrier_transpose(cts, *operands):
    return optimization_barrier_p.bind(*[instantiate(ct) for ct in cts])


def _optimization_barrier_batch(axis_data, args, dims):
    return optimization_barrier_p.bind(*args), list(dims)


optimization_barrier_p.def_jvp(_optimization_barrier_jvp)
optimization_barrier_p.def_transpose(_optimization_barrier_transpose)
optimization_barrier_p.def_batch(_optimization_barrier_batch)


# ---------------------------------------------------------------------------
# device_put


class ArrayCopySemantics(enum.Enum):
    """Whether device_put may alias, must copy, or may donate its input."""

    ALWAYS_COPY = 0
    REUSE_INPUT = 1
    DONATE_INPUT = 2

    def __repr__(self) -> str:
        return f"ArrayCopySemantics.{self.name}"

    __str__ = __repr__


device_put_p = Primitive("device_put", multiple_results=True)
device_put_p.declare(key_reuse=_key_reuse.forward_each)
device_put_p.declare(sharding_reason="placement itself: the result's type is the destination's")


@device_put_p.def_abstract_eval
def _device_put_abstract_eval(*avals: ShapedArray, devices, srcs, copy_semantics) -> list[ShapedArray]:
    # A NamedSharding puts its Explicit axes (and its memory kind) into the
    # type; a device or single-device sharding leaves an unplaced type.
    return [_placed_aval(a, d) for a, d in zip(avals, devices, strict=True)]


def _placed_aval(aval, dst):
    if dst is None or not isinstance(aval, ShapedArray):
        return aval
    if isinstance(dst, named.MemorySpace):  # the same placement, in another memory
        space = named.MemorySpace.Host if dst is named.MemorySpace.Host else None
        return ShapedArray(aval.shape, aval.dtype, aval.weak_type, aval.sharding, space)
    if isinstance(dst, named.Sharding):
        sharding = named.aval_sharding(dst, aval.ndim)
        space = named.memory_kind_to_space(None if dst.memory_kind == "device" else dst.memory_kind)
        return ShapedArray(aval.shape, aval.dtype, aval.weak_type, sharding, space)
    return aval


def _resolve_destination(dst):
    if dst is None or isinstance(dst, (named.Sharding, devices_mod.Device, named.MemorySpace)):
        return dst
    if isinstance(dst, PartitionSpec):
        mesh = get_mesh()
        if mesh.empty:
            raise ValueError("Please set a mesh via `jax.set_mesh` if a PartitionSpec is passed to device_put")
        return named.NamedSharding(mesh, dst)
    raise ValueError("`jax.device_put` only accepts `None`, `jax.sharding.Sharding`, `jax.Device`, `Format`, "
                     f"`jax.memory.Space` or a pytree of these values. Received invalid value: {dst}")


def _check_destination(aval, dst) -> None:
    # JAX's checks of a value against the sharding it is put on, in its
    # order: the type first (rank, then Explicit axes dividing evenly), then
    # the layout (every axis dividing evenly).
    if not isinstance(dst, named.NamedSharding):
        return
    if len(dst.spec) > aval.ndim and dst.mesh.explicit_axes:
        raise AssertionError((aval.ndim, dst.spec))
    if len(dst.spec) <= aval.ndim:
        dst.check_compatible_aval(aval.shape)  # (the type's own error, as JAX gives it)
    try:
        dst.check_compatible_aval(aval.shape)
    except ValueError as e:
        raise ValueError(f"One of device_put args is incompatible with its sharding annotation {dst}: {e}") from None
    try:
        dst.shard_shape(aval.shape)
    except named.IndivisibleError as e:
        where = staging.format_source_info(staging.user_source_info(), with_column=True)
        print(where)  # (JAX 0.11 prints the location before raising)
        raise named.IndivisibleError(f"One of device_put args was given the sharding {e}. This error occurs at "
                                     f"source:  {where}") from None


def _source(src, x):
    # An operand typed on a mesh names where it is now (its aval's sharding
    # with its memory kind), as JAX's params show.
    if src is not None:
        return src
    aval = core.get_aval(x)
    sharding = getattr(aval, "sharding", None)
    if sharding is None:
        return None
    return sharding.with_memory_kind("pinned_host" if aval.memory_space is named.MemorySpace.Host else "device")


def _eager_put(leaf, dst):
    # Eagerly: the value goes to its devices at once, one buffer per shard.
    if dst is None:
        return leaf if isinstance(leaf, Array) else _leaf_array(leaf)
    x = _leaf_array(leaf)
    if isinstance(dst, named.MemorySpace):  # the array's own placement, in another memory
        kind = "pinned_host" if dst is named.MemorySpace.Host else "device"
        here = x.sharding
        typed = getattr(x.aval, "sharding", None)
        if isinstance(here, named.NamedSharding) and typed is not None and here.mesh.explicit_axes:
            here = here.with_spec(typed.spec)  # (JAX takes the spec from the type, padded)
        dst = here.with_memory_kind(kind)
    sharding = named.SingleDeviceSharding(dst) if isinstance(dst, devices_mod.Device) else dst
    aval = x.aval
    if isinstance(x, sharded_array.ShardedArray) and isinstance(sharding, named.NamedSharding) \
            and not x.sharding.is_equivalent_to(sharding, aval.ndim):
        from pyjax._src.sharding import api  # (api imports lax)
        moved = api._reshard_per_device(x, api._reshard_destination(sharding, aval.ndim)[0], sharding)
        if moved is not None:  # (within its own Explicit mesh: per device, all_to_alls and slices)
            return moved
    # (an Array spanning processes: every process runs this put, so each gathers the whole value first)
    value = sharded_array.host_buffer(x) if x.is_fully_addressable or x.is_fully_replicated \
        else distributed.gather_value(x)
    return sharded_array.place(value, ShapedArray(aval.shape, aval.dtype, aval.weak_type), sharding)


def _per_leaf(name: str, value, treedef, count: int) -> list:
    # `device`, `donate` and `may_alias` are one value for all leaves or a
    # tree prefix of `x`; pyjax takes one value or a matching flat tree.
    if value is None or isinstance(value, (bool, np.bool_)) or not isinstance(value, (tuple, list, dict)):
        return [value] * count
    flat, _ = tree_flatten(value, is_leaf=lambda v: v is None)
    if len(flat) != count:
        raise ValueError(f"{name} must be a tree prefix of x: got {len(flat)} entries for {count} leaves")
    return flat


def _copy_semantics(may_alias, donate) -> ArrayCopySemantics:
    if may_alias and donate:
        raise ValueError("may_alias and donate cannot be True at the same time.")
    if may_alias is None:
        may_alias = not donate
    if may_alias and not donate:
        return ArrayCopySemantics.REUSE_INPUT
    if donate:
        return ArrayCopySemantics.DONATE_INPUT
    return ArrayCopySemantics.ALWAYS_COPY


def device_put(x: Any, device: Any = None, *, src: Any = None, donate: Any = False, may_alias: Any = None) -> Any:
    """Place the arrays of ``x`` on a device (or sharding).

    Args:
      x: a pytree whose leaves are arrays or scalars.
      device: where to put the values: a device, a sharding, or a pytree
        prefix of ``x`` holding those; None means the default device.
      src: where the values are now, if the caller knows.
      donate: allow the input buffers to be reused for the output.
      may_alias: True lets the output share the input's buffer, False forces
        a copy; None decides from ``donate``.

    Returns:
      ``x``'s values placed as requested. pyjax has a single CPU device, so
      the values are unchanged.

    Example:
      >>> jax.device_put(jnp.arange(3))
      Array([0, 1, 2], dtype=int32)
    """
    leaves, treedef = tree_flatten(x)
    count = len(leaves)
    devices = tuple(_resolve_destination(d) for d in _per_leaf("device_put device", device, treedef, count))
    arrays = [_leaf_array(v) for v in leaves]
    for a, d in zip(arrays, devices, strict=True):
        _check_destination(core.get_aval(a), d)
    placed = any(d is not None for d in devices) or any(isinstance(v, sharded_array.ShardedArray) for v in leaves)
    if placed and isinstance(core.current_trace(), dispatch.EvalTrace) \
            and not any(isinstance(v, core.Tracer) for v in leaves):
        devices_mod.devices()  # (the device list is fixed from here on)
        return tree_unflatten(treedef, [_eager_put(a, d) for a, d in zip(arrays, devices, strict=True)])
    srcs = tuple(_source(s, a) for s, a in zip(_per_leaf("device_put source", src, treedef, count), arrays))
    donates = _per_leaf("device_put donate", donate, treedef, count)
    aliases = _per_leaf("device_put may_alias", may_alias, treedef, count)
    copy_semantics = tuple(_copy_semantics(m, d) for m, d in zip(aliases, donates, strict=True))
    if (all(d is None for d in devices) and all(isinstance(v, np.ndarray) for v in leaves)
            and all(c is ArrayCopySemantics.REUSE_INPUT for c in copy_semantics)):
        # JAX folds a device_put of NumPy constants away: they stay constants.
        return tree_unflatten(treedef, arrays)
    outs = device_put_p.bind(*arrays, devices=devices, srcs=srcs,
                             copy_semantics=copy_semantics)
    return tree_unflatten(treedef, outs)


def _device_put_jvp(primals, tangents, **params):
    outs = device_put_p.bind(*primals, **params)
    return outs, device_put_p.bind(*[instantiate(t) for t in tangents], **params)


def _device_put_transpose(cts, *operands, devices, srcs, copy_semantics):
    results: list = [None] * len(cts)
    moved = []
    for i, (ct, arg, dst, source, cp) in enumerate(zip(cts, operands, devices, srcs, copy_semantics, strict=True)):
        if not is_undefined_primal(arg):
            continue
        if type(ct) is Zero:
            results[i] = Zero(arg.aval)
            continue
        if cp is ArrayCopySemantics.DONATE_INPUT:
            raise ValueError("donate=True is not allowed during tranposition of device_put."
                             " Please file an issue if you want this to be supported.")
        moved.append((i, ct, dst, source))
    if moved:
        # The cotangent travels back: source and destination swap, and it is a copy.
        index, ct_values, dsts, sources = zip(*moved, strict=True)
        back = device_put_p.bind(*ct_values, devices=tuple(sources), srcs=tuple(dsts),
                                 copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,) * len(moved))
        for i, y in zip(index, back, strict=True):
            results[i] = y
    return results


def _device_put_batch(axis_data, args, dims, **params):
    return device_put_p.bind(*args, **params), list(dims)


device_put_p.def_jvp(_device_put_jvp)
device_put_p.def_transpose(_device_put_transpose)
device_put_p.def_batch(_device_put_batch)
