"""Arrays placed on devices: one NumPy buffer per device shard.

A placed Array holds, for each device of its sharding, the buffer of the
slice that device owns (`addressable_shards`), never a global copy: reading
the whole value (`np.asarray`, `jax.device_get`) assembles it from the
shards each time. Eager operations and jit keep the plain Array's fast
paths; a placed operand takes the general path, which runs the operation
per device (spmd_eager.py) or, where that declines, computes on the
assembled value and places the result as JAX would (`place_result`).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from pyjax._src import dtypes
from pyjax._src.array import _DEFAULT_DEVICE, Array
from pyjax._src.avals import ShapedArray
from pyjax._src.sharding import devices as devices_mod
from pyjax._src.sharding.mesh import AbstractMesh, AxisType, Mesh, concrete_mesh_for, eager_mesh
from pyjax._src.sharding.named import (
    NamedSharding, Sharding, SingleDeviceSharding, abstract_sharding, aval_sharding, memory_kind_to_space,
)
from pyjax._src.sharding.partition_spec import PartitionSpec


class Shard:
    """One device's part of an Array: its device, its index into the global
    array, which copy it is (`replica_id`) and its data (an Array on that
    device)."""

    __slots__ = ("device", "index", "replica_id", "_data")

    def __init__(self, device, index: tuple, replica_id: int, data: Any) -> None:
        self.device, self.index, self.replica_id, self._data = device, index, replica_id, data

    @property
    def data(self):
        return self._data

    def __repr__(self) -> str:
        data = self._data
        shown = data if data is None or _extended(data) else np.asarray(data)
        return f"Shard(device={self.device!r}, index={self.index}, replica_id={self.replica_id}, data={shown})"


def _extended(x: Any) -> bool:
    # An Array of an extended dtype (keys): no NumPy form, whole elements per buffer entry.
    return isinstance(getattr(getattr(x, "aval", None), "dtype", None), dtypes.ExtendedDType)


def _physical_index(index: tuple, dtype) -> tuple:
    # A key array's shard index spans its key data's trailing dimensions too, as JAX's does.
    if not isinstance(dtype, dtypes.ExtendedDType):
        return index
    trailing = len(dtype._rules.physical_element_aval(dtype).shape)
    return tuple(index) + (slice(None),) * trailing


def _kind_of(sharding: Sharding) -> str | None:
    kind = sharding.memory_kind
    return None if kind in (None, "device") else kind


class ShardedArray(Array):
    """An Array whose value lives in per-device shards (JAX's ArrayImpl)."""

    __slots__ = ("_shards", "_sharding")

    def __init__(self, shards: Sequence[np.ndarray], aval: ShapedArray, sharding: Sharding) -> None:
        # `shards`: one buffer per device, in `sharding._device_assignment` order.
        self._shards = tuple(shards)
        self._sharding = sharding
        self.aval = aval

    # --- the value, assembled from the shards
    @property
    def _value(self):
        shards = self._shards
        if shards is None:
            raise RuntimeError(f"Array has been deleted with shape={self.aval.strip_weak_type()}.")
        if len(shards) == 1 or self._sharding.is_fully_replicated:
            return shards[0] if shards[0] is not None else _first_local(shards)
        if not self._sharding.is_fully_addressable:
            raise RuntimeError(
                "Fetching value for `jax.Array` that spans non-addressable (non process local) devices is not "
                "possible. You can use `jax.experimental.multihost_utils.process_allgather` to print the global "
                "array or use `.addressable_shards` method of jax.Array to inspect the addressable (process "
                "local) shards.")
        first = shards[0]
        out = np.empty(self.aval.shape + first.shape[self.aval.ndim:], first.dtype)
        indices = self._sharding.devices_indices_map(self.aval.shape)
        replicas = self._sharding._replica_ids(self.aval.shape)
        for device, buffer in zip(self._sharding._device_assignment, shards):
            if replicas[device] == 0:
                out[indices[device]] = buffer
        return out

    # --- placement
    sharding = property(lambda self: self._sharding)
    is_fully_replicated = property(lambda self: self._sharding.is_fully_replicated)
    is_fully_addressable = property(lambda self: self._sharding.is_fully_addressable)

    def devices(self) -> set:
        return set(self._sharding._device_assignment)

    @property
    def device(self):
        assignment = self._sharding._device_assignment
        if len(assignment) > 1:
            raise ValueError("Length of devices is greater than 1. Please use `.devices()`.")
        return assignment[0]

    def _shard_array(self, device, buffer) -> Array:
        aval = ShapedArray(buffer.shape[:self.aval.ndim] if isinstance(self.aval.dtype, dtypes.ExtendedDType)
                           else buffer.shape, self.aval.dtype, self.aval.weak_type)
        single = SingleDeviceSharding(device, memory_kind=_kind_of(self._sharding))
        return ShardedArray((buffer,), aval.update(memory_space=self.aval.memory_space), single)

    @property
    def addressable_shards(self) -> list[Shard]:
        if self._shards is None:
            raise RuntimeError(f"Array has been deleted with shape={self.aval.strip_weak_type()}.")
        indices = self._sharding.devices_indices_map(self.aval.shape)
        replicas = self._sharding._replica_ids(self.aval.shape)
        dtype = self.aval.dtype
        return [Shard(d, _physical_index(indices[d], dtype), replicas[d], self._shard_array(d, b))
                for d, b in zip(self._sharding._device_assignment, self._shards) if b is not None]

    @property
    def global_shards(self) -> list[Shard]:
        """Every device's shard; another process's has no data here (None)."""
        if self._shards is None:
            raise RuntimeError(f"Array has been deleted with shape={self.aval.strip_weak_type()}.")
        indices = self._sharding.devices_indices_map(self.aval.shape)
        replicas = self._sharding._replica_ids(self.aval.shape)
        return [Shard(d, _physical_index(indices[d], self.aval.dtype), replicas[d],
                      None if b is None else self._shard_array(d, b))
                for d, b in zip(self._sharding._device_assignment, self._shards)]

    def addressable_data(self, index: int) -> Array:
        local = [(d, b) for d, b in zip(self._sharding._device_assignment, self._shards) if b is not None]
        return self._shard_array(*local[index])

    def delete(self) -> None:
        self._shards = None

    def is_deleted(self) -> bool:
        return self._shards is None

    def __reduce__(self):
        return _rebuild, (np.asarray(self._value), self.aval, self._sharding)

    def __repr__(self) -> str:
        if self._shards is not None and not self.is_fully_addressable and not self.is_fully_replicated:
            # (another process holds part of the value: JAX prints the type only)
            weak = ", weak_type=True" if self.aval.weak_type else ""
            return f"Array(shape={self.aval.shape}, dtype={self.aval.dtype.name}{weak})"
        return super().__repr__()


def _first_local(shards):
    for b in shards:
        if b is not None:
            return b
    raise RuntimeError("this Array has no shard on this process's devices")


def _rebuild(value, aval, sharding):
    return place(value, aval, sharding)


def host_buffer(x: Any) -> np.ndarray:
    """The global NumPy buffer of an Array (assembled from its shards): its
    value, or for an extended dtype (key arrays, which refuse NumPy
    conversion) the buffer of whole elements that `place` splits."""
    return x._value if _extended(x) else np.asarray(x)


def place(value: Any, aval: ShapedArray, sharding: Sharding) -> Array:
    """`value` (a global NumPy buffer of `aval`'s type) split over `sharding`'s
    devices: each device gets its own copy of its slice."""
    if isinstance(sharding, SingleDeviceSharding) and sharding._device is _DEFAULT_DEVICE \
            and sharding.memory_kind == "device":
        return Array(value, aval.update(memory_space=None) if aval.memory_space is not None else aval)
    value = np.asarray(value)
    indices = sharding.devices_indices_map(aval.shape)
    shards = []
    me = devices_mod.process_index()
    for device in sharding._device_assignment:
        if device.process_index != me:  # (another process's device: that process holds it)
            shards.append(None)
            continue
        part = value[indices[device]]
        shards.append(np.array(part, copy=True, order="C"))
    ndim = len(aval.shape)
    typed = aval.update(sharding=aval_sharding(sharding, ndim),
                        memory_space=memory_kind_to_space(_kind_of(sharding)))
    if typed.sharding is None and aval.sharding is not None:
        typed = ShapedArray(aval.shape, aval.dtype, aval.weak_type, None, typed.memory_space)
    return ShardedArray(shards, typed, sharding)


# ---------------------------------------------------------------------------
# Results of computations on placed arrays


def _mesh_of(args: Sequence[Any]) -> Mesh | None:
    for x in args:
        s = getattr(x, "_sharding", None)
        if isinstance(s, NamedSharding) and isinstance(s.mesh, Mesh):
            return s.mesh
    return None


def result_sharding(aval: ShapedArray, args: Sequence[Any]) -> Sharding | None:
    """Where a result of type `aval` computed from `args` lives (None: the
    default device, unplaced)."""
    typed = aval.sharding
    kind = "pinned_host" if aval.memory_space is not None else None
    if isinstance(typed, NamedSharding):
        mesh = None
        for x in args:
            s = getattr(x, "_sharding", None)
            if isinstance(s, NamedSharding) and isinstance(s.mesh, Mesh) and s.mesh.abstract_mesh == typed.mesh:
                mesh = s.mesh
                break
        if mesh is None:
            mesh = concrete_mesh_for(typed.mesh) if isinstance(typed.mesh, AbstractMesh) else typed.mesh
        if mesh is not None:
            return NamedSharding(mesh, typed.spec, memory_kind=kind)
    mesh = _mesh_of(args)
    if mesh is not None:
        for x in args:  # an Auto placement: an operand of the same shape lends its layout
            s = getattr(x, "_sharding", None)
            if isinstance(s, NamedSharding) and getattr(x, "shape", None) == aval.shape and not typed:
                if any(t.name != "Explicit" for t in s.mesh.axis_types):
                    return s
        return NamedSharding(mesh, PartitionSpec(*([None] * len(aval.shape))), memory_kind=kind)
    for x in args:
        s = getattr(x, "_sharding", None)
        if isinstance(s, SingleDeviceSharding):
            return s
    return None


def place_result(out: Any, args: Sequence[Any]) -> Any:
    """An eager result (an Array or a list of them) placed as JAX places the
    result of an operation on `args`, some of which are placed arrays."""
    if isinstance(out, list):
        return [place_result(o, args) for o in out]
    if type(out) is not Array:
        return out
    sharding = result_sharding(out.aval, args)
    if sharding is None:
        return out
    return place(out._value, out.aval, sharding)


def _auto_mesh(args: Sequence[Any]) -> Mesh | None:
    # The mesh of Auto axes only that an operand is placed on (None: none is).
    for x in args:
        s = getattr(x, "_sharding", None)
        if isinstance(s, NamedSharding) and isinstance(s.mesh, Mesh) and \
                not any(t.name == "Explicit" for t in s.mesh.axis_types):
            return s.mesh
    return None


def _auto_specs(primitive: Any, params: dict, avals: Sequence[Any], args: Sequence[Any], mesh: Mesh):
    """The result specs XLA's propagation gives `primitive` on operands placed
    on `mesh` (Auto axes): the sharding rule run with those axes Explicit and
    each operand typed by its layout. None where the rule objects."""
    am = mesh.abstract_mesh
    twin = AbstractMesh(am.axis_sizes, am.axis_names, (AxisType.Explicit,) * len(am.axis_names),
                        abstract_device=am.abstract_device)
    typed = []
    for x, aval in zip(args, avals):
        s = getattr(x, "_sharding", None)
        if isinstance(s, NamedSharding) and s.mesh == mesh and isinstance(aval, ShapedArray):
            entries = tuple(s.spec) + (None,) * (len(aval.shape) - len(s.spec))
            aval = ShapedArray(aval.shape, aval.dtype, aval.weak_type, abstract_sharding(twin, entries),
                               aval.memory_space)
        elif isinstance(aval, ShapedArray) and aval.sharding is not None:
            aval = aval.update(sharding=None)
        typed.append(aval)
    try:
        out = primitive.rule("abstract_eval")(*typed, **params)
        out = primitive.sharding_rule(out, *typed, **params)
    except Exception:  # noqa: BLE001  (an Explicit-only objection: XLA would replicate)
        return None
    return [o.sharding for o in out] if isinstance(out, (list, tuple)) else [out.sharding]


def relayout_auto(out: Any, primitive: Any, params: dict, avals: Sequence[Any], args: Sequence[Any]) -> Any:
    """An eager result of operands placed on a mesh of Auto axes laid out as
    JAX's compiler lays it out (a spec without trailing Nones: ``P('x',)``,
    ``P()``), where the sharding rule can say; else left as placed."""
    mesh = _auto_mesh(args)
    if mesh is None or primitive.sharding_rule is None:
        return out
    outs = out if isinstance(out, list) else [out]
    specs = _auto_specs(primitive, params, avals, args, mesh) or [None] * len(outs)  # (else replicated)
    if len(specs) != len(outs):
        return out
    placed = []
    for o, s in zip(outs, specs):
        if isinstance(o, Array) and isinstance(getattr(o, "_sharding", None), NamedSharding) and \
                o._sharding.mesh == mesh:
            entries = list(s.spec) if s is not None else []
            while entries and entries[-1] is None:
                entries.pop()
            o = place(o._value, o.aval, NamedSharding(mesh, PartitionSpec(*entries), memory_kind=o._sharding.memory_kind))
        placed.append(o)
    return placed if isinstance(out, list) else placed[0]


_JIT_SPECS: dict = {}  # (jaxpr, operand specs) -> result shardings under Explicit twins (or None)
# retype(jaxpr, flat_args, mesh): a jaxpr's result shardings with `mesh`'s
# axes Explicit (sharding/api.py sets it: tracing is a layer above this one).
RETYPE: list = [lambda jaxpr, flat_args, mesh: None]


def relayout_auto_jit(outs: list, jaxpr: Any, flat_args: Sequence[Any]) -> list:
    """A jit's eager results on arguments placed on a mesh of Auto axes laid
    out as XLA's propagation does: the body retyped with those axes Explicit
    and each argument typed by its layout (nothing where a rule objects)."""
    mesh = _auto_mesh(flat_args)
    if mesh is None:
        return outs
    specs = tuple(tuple(x._sharding.spec) if isinstance(getattr(x, "_sharding", None), NamedSharding) else None
                  for x in flat_args)
    key = (jaxpr, specs)
    shardings = _JIT_SPECS.get(key)
    if key not in _JIT_SPECS:
        shardings = _JIT_SPECS[key] = RETYPE[0](jaxpr, flat_args, mesh)
        if len(_JIT_SPECS) > 256:
            _JIT_SPECS.clear()
    placed = []
    for o, s in zip(outs, shardings or [None] * len(outs), strict=True):  # (else replicated)
        if isinstance(getattr(o, "_sharding", None), NamedSharding) and o._sharding.mesh == mesh:
            entries = list(s.spec) if s is not None else []
            while entries and entries[-1] is None:
                entries.pop()
            o = place(o._value, o.aval, NamedSharding(mesh, PartitionSpec(*entries), memory_kind=o._sharding.memory_kind))
        placed.append(o)
    return placed


def type_on_context_mesh(out: Any, replicated: bool = False) -> Any:
    """An eager result made under `set_mesh` (its aval on no mesh) typed on
    that mesh, replicated, as JAX's eager ops under a mesh type theirs: the
    Array's sharding spec names every dimension under Explicit axes, none
    under Auto ones or where `replicated` (``P()``: a jit's results, constants)."""
    if isinstance(out, (list, tuple)):
        return type(out)(type_on_context_mesh(o, replicated) for o in out)
    mesh = eager_mesh[0]
    aval = getattr(out, "aval", None)
    if mesh is None or type(out) is not Array or aval.sharding is not None:
        return out
    ndim = len(aval.shape)
    typed = aval.update(sharding=abstract_sharding(mesh.abstract_mesh, (None,) * ndim))
    explicit = any(t.name == "Explicit" for t in mesh.axis_types)
    spec = PartitionSpec(*([None] * ndim)) if explicit and not replicated else PartitionSpec()
    return place(out._value, typed, NamedSharding(mesh, spec))


def place_typed(out: Array) -> Array:
    """A result whose aval names a placement (jit's outputs) placed there."""
    sharding = result_sharding(out.aval, ())
    return out if sharding is None else place(out._value, out.aval, sharding)


# ---------------------------------------------------------------------------
# Building placed arrays


def make_array_from_callback(shape: Sequence[int], sharding: Sharding,
                             data_callback: Callable[[Any], Any], dtype: Any = None) -> Array:
    """Returns an Array of `shape` laid out by `sharding`, each device's shard
    computed by ``data_callback(index)`` (index: a tuple of slices into the
    global array)."""
    shape = tuple(int(d) for d in shape)
    if isinstance(sharding, PartitionSpec):
        from pyjax._src.sharding.named import resolve

        sharding = resolve(sharding, name="make_array_from_callback")
    indices = sharding.devices_indices_map(shape)
    shards, seen_dtype, key_dtype = [], None, None
    me = devices_mod.process_index()
    for device in sharding._device_assignment:
        if device.process_index != me:  # (called for this process's devices only, as in JAX)
            shards.append(None)
            continue
        raw = data_callback(indices[device])
        if _extended(raw):  # (keys: their buffer, typed by the key dtype)
            part, key_dtype = host_buffer(raw), raw.dtype
        else:
            part = np.asarray(raw)
            if dtype is not None:
                part = part.astype(dtype)
            part = part.astype(dtypes.canonicalize_dtype(part.dtype))
        expected = _slice_shape(indices[device], shape)
        if part.shape != expected:
            raise ValueError(f"Expected shard shape {expected} doesn't match the single device array shape "
                             f"{part.shape}. Shape of Array is {ShapedArray(shape, part.dtype).str_short(False)} "
                             f"with sharding {sharding}")
        seen_dtype = part.dtype if key_dtype is None else key_dtype
        shards.append(np.array(part, copy=True, order="C"))
    dtype = seen_dtype if seen_dtype is not None else np.dtype(dtype or np.float32)
    aval = ShapedArray(shape, dtype)
    typed = aval.update(sharding=aval_sharding(sharding, len(shape)),
                        memory_space=memory_kind_to_space(_kind_of(sharding)))
    return ShardedArray(shards, typed, sharding)


def _slice_shape(index: tuple, shape: tuple) -> tuple:
    return tuple(len(range(*s.indices(n))) for s, n in zip(index, shape))


def make_array_from_single_device_arrays(shape: Sequence[int], sharding: Sharding, arrays: Sequence[Any], *,
                                         dtype: Any = None) -> Array:
    """Returns an Array of `shape` laid out by `sharding` from one Array per
    device (each the shard that device holds, on that device)."""
    shape = tuple(int(d) for d in shape)
    arrays = list(arrays)
    me = devices_mod.process_index()
    assignment = sharding._device_assignment
    local = [d for d in assignment if d.process_index == me]
    if len(arrays) != len(local):
        raise ValueError(f"The sharding {sharding} expects {len(local)} single device arrays, got "
                         f"{len(arrays)}.")
    indices = sharding.devices_indices_map(shape)
    by_device = {}
    for x in arrays:
        device = next(iter(x.devices())) if hasattr(x, "devices") else _DEFAULT_DEVICE
        by_device[device] = x
    shards = []
    dtype_seen = None
    for device in assignment:
        if device.process_index != me:
            shards.append(None)
            continue
        x = by_device.get(device)
        if x is None:
            raise ValueError(f"No single device array was given for device {device!r} of the sharding "
                             f"{sharding}; each device's shard must live on that device.")
        buffer = x._shards[0] if isinstance(x, ShardedArray) and len(x._shards) == 1 else host_buffer(x)
        expected = _slice_shape(indices[device], shape)
        if buffer.shape != expected:
            raise ValueError(f"Expected shard shape {expected} doesn't match the single device array shape "
                             f"{buffer.shape}. Shape of Array is "
                             f"{ShapedArray(shape, buffer.dtype).str_short(False)} with sharding {sharding}")
        dtype_seen = x.dtype if _extended(x) else buffer.dtype
        shards.append(buffer)
    aval = ShapedArray(shape, dtype_seen if dtype is None else np.dtype(dtype))
    typed = aval.update(sharding=aval_sharding(sharding, len(shape)),
                        memory_space=memory_kind_to_space(_kind_of(sharding)))
    return ShardedArray(shards, typed, sharding)


def device_get(x: Any) -> Any:
    """The NumPy value of a (placed) Array, assembled from its shards."""
    return np.asarray(x)


def all_devices() -> list:
    return devices_mod.devices()
