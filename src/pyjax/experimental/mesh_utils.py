"""pyjax.experimental.mesh_utils: arranging devices into mesh arrays (JAX 0.11's).

The devices here are virtual CPU devices with no physical topology, so, as
JAX does for CPU devices, a mesh is the device list in order, reshaped. The
TPU handlers of `device_kind_handler_dict` are named but never apply (no
device here has a TPU kind); they raise if called.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np


def _no_tpu(kind: str):
    def handler(*args, **kwargs):
        raise NotImplementedError(f"{kind} device meshes follow a TPU's physical topology; "
                                  "pyjax's devices are virtual CPU devices")
    handler.__name__ = f"_{kind.replace(' ', '_')}_create_device_mesh"
    return handler


device_kind_handler_dict: dict[str, Any] = {
    kind: _no_tpu(kind)
    for kind in ("TPU v2", "TPU v3", "TPU v4 lite", "TPU v5 lite", "TPU v5e", "TPU v5p", "TPU v6 lite",
                 "TPU7x", "TPU7", "TPU8i")
}


def create_device_mesh(mesh_shape: Sequence[int], devices: Sequence[Any] | None = None, *,
                       contiguous_submeshes: bool = False, allow_split_physical_axes: bool = False) -> np.ndarray:
    """The devices (default: all) as an object array of shape `mesh_shape`."""
    if devices is None:
        from pyjax._src.sharding.devices import devices as _all_devices
        devices = _all_devices()
    if np.prod(mesh_shape) != len(devices):
        raise ValueError(f"Number of devices {len(devices)} must equal the product "
                         f"of mesh_shape {mesh_shape}")
    out = np.empty(len(devices), dtype=object)
    out[:] = list(devices)
    return out.reshape(mesh_shape)


def create_hybrid_device_mesh(mesh_shape: Sequence[int], dcn_mesh_shape: Sequence[int],
                              devices: Sequence[Any] | None = None, *, process_is_granule: bool = False,
                              should_sort_granules_by_key: bool = True,
                              allow_split_physical_axes: bool = False) -> np.ndarray:
    """A mesh of granules (here: processes — there is one) each laid out as
    `mesh_shape`; the result's shape is mesh_shape * dcn_mesh_shape."""
    if devices is None:
        from pyjax._src.sharding.devices import devices as _all_devices
        devices = _all_devices()
    attr = "process_index" if process_is_granule else "slice_index"
    if not hasattr(devices[0], attr):
        raise ValueError(f"Device {devices[0]} does not have attribute {attr}. See "
                         "`process_is_granule` option.")
    keys: dict[int, list] = {}
    for d in devices:
        keys.setdefault(getattr(d, attr), []).append(d)
    granules = [keys[k] for k in (sorted(keys) if should_sort_granules_by_key else keys)]
    if math.prod(dcn_mesh_shape) != len(granules):
        raise ValueError(f"Number of slices {len(granules)} must equal the product of "
                         f"dcn_mesh_shape {dcn_mesh_shape}")
    meshes = np.empty(len(granules), dtype=object)
    meshes[:] = [create_device_mesh(mesh_shape, g) for g in granules]
    meshes = meshes.reshape(dcn_mesh_shape)
    return np.block(meshes.tolist()) if meshes.ndim else meshes.item()


__all__ = ["create_device_mesh", "create_hybrid_device_mesh", "device_kind_handler_dict"]
