"""jax.experimental.serialize_executable: a compiled function as bytes
(`serialize`) and back (`deserialize_and_load`); pyjax's payload format is
its own (docs/export.md, "Serialized executables")."""

from __future__ import annotations

from collections.abc import Sequence  # noqa: F401  (in JAX's module namespace)

from pyjax._src.serialize_executable import deserialize_and_load, serialize  # noqa: F401
