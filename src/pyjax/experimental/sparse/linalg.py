"""jax.experimental.sparse.linalg: sparse linear algebra (docs/sparse.md)."""

from __future__ import annotations

from typing import Callable  # noqa: F401  (JAX's module exports it)

from pyjax._src.sparse.linalg import lobpcg_standard, spsolve, spsolve_p  # noqa: F401
