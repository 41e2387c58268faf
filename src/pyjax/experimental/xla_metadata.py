"""Experimental XLA metadata APIs (jax.experimental.xla_metadata).

These context managers, decorators, and function wrappers annotate
operations with XLA metadata; on pyjax's CPU backend they change no result
(see pyjax/_src/xla_metadata.py).
"""

from __future__ import annotations

from pyjax._src.xla_metadata import (  # noqa: F401
    fuse_limit, must_fuse_call, set_xla_metadata, xla_metadata_call, xla_metadata_call2,
)

annotations = annotations
