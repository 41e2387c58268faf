"""What the native kernels' test files share: whether a kernel builds here."""

from __future__ import annotations

import pyjax.numpy as jnp
from pyjax._src.backends.numpy import native
from pyjax._src.backends.numpy.native import settings as native_settings


def built(kernel, attr: str = "fns") -> bool:
    """Builds `kernel` (a native tier) now; whether its functions exist (a C
    compiler, native code on, the kernel's own checks passed)."""
    if native.compiler() is None or not native_settings.ENABLED:
        return False
    jnp.ones(1)  # (the backend wires the kernels)
    kernel.start(wait=True)
    return getattr(kernel, attr) is not None
