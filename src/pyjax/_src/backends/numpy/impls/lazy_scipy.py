"""SciPy's modules, imported when first used rather than with pyjax.

`import scipy.special` (and through it SciPy's array-API layer, which loads
most of NumPy's submodules) is a large share of `import pyjax`; programs
that never call a special function or a LAPACK routine should not pay it.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

# Called after each module's first import here: SciPy brings its own
# OpenBLAS, which the backend's BLAS thread limit must learn of (install()).
after_import: list[Callable[[], None]] = []


class LazyModule:
    """A module imported on its first attribute read."""

    def __init__(self, name: str):
        self._name = name
        self._module = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
            for hook in after_import:
                try:
                    hook()
                except Exception:  # noqa: BLE001  (a hook tunes speed: its failure must not fail the call)
                    pass
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


special = LazyModule("scipy.special")
linalg = LazyModule("scipy.linalg")
lapack = LazyModule("scipy.linalg.lapack")
blas = LazyModule("scipy.linalg.blas")


def deferred(module: LazyModule, name: str) -> Callable:
    """`module.name` as a function that looks it up on each call (for tables
    filled at import)."""

    def fn(*args, **kwargs):
        return getattr(module, name)(*args, **kwargs)

    fn.__name__ = name
    return fn
