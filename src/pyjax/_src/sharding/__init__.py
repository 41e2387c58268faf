"""Placement: devices, meshes, partition specs, shardings and sharded Arrays.

The modules here sit beside the core (avals carry shardings, Arrays hold
per-device buffers); `api.py` holds what binds primitives (reshard,
auto_axes, explicit_axes) and sits with the libraries. This package's own
module imports nothing, so a core module importing one of its parts pulls
in no library.
"""
