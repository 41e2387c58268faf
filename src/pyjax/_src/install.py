"""`pyjax.install_as_jax()`: `import jax` resolves to pyjax for the process.

A meta-path finder, first on `sys.meta_path`, answers every module name
under `jax` and `jaxlib`:

    jax                  a module whose attributes are pyjax's, with JAX's
                         `__version__` and `__version_info__` (the JAX
                         version whose API pyjax implements)
    jax.X.Y              pyjax.X.Y where pyjax has it, else the shim
                         pyjax._src.compat.public.X.Y
    jax._src.X           pyjax._src.compat.X where the names libraries read
                         need a module of their own, else pyjax._src.X
                         (pyjax's modules keep JAX's private names where
                         libraries read them: traceback_util, tree_util's
                         _registry, xla_bridge._backends, core, dtypes, ...)
    jaxlib.X             pyjax._src.compat.jaxlib.X

Every module is the same object under both names (`jax.numpy is
pyjax.numpy`). A name with no module raises ModuleNotFoundError from the
finder itself, so a real JAX on the path is never consulted: the alias wins
wherever JAX happens to be installed.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from typing import Any

# The JAX release whose public API pyjax implements.
JAX_VERSION = "0.11.0"
JAX_VERSION_INFO = (0, 11, 0)

_ROOTS = ("jax", "jaxlib")


def _target(fullname: str) -> list[str]:
    """The pyjax modules that may stand for `fullname`, in order of preference."""
    if fullname == "jaxlib":
        return ["pyjax._src.compat.jaxlib"]
    if fullname.startswith("jaxlib."):
        return ["pyjax._src.compat.jaxlib." + fullname[len("jaxlib."):]]
    if fullname == "jax._src":
        return ["pyjax._src.compat"]
    if fullname.startswith("jax._src."):
        rest = fullname[len("jax._src."):]
        return ["pyjax._src.compat." + rest, "pyjax._src." + rest]
    rest = fullname[len("jax."):]
    return ["pyjax." + rest, "pyjax._src.compat.public." + rest]


def _exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False  # a parent package is missing


class JaxModule(types.ModuleType):
    """The `jax` module under `install_as_jax()`: pyjax's names, JAX's version.

    Attribute reads fall through to the `pyjax` package, so a name pyjax
    gains later is seen at once; `jax._src` and the submodules are imported
    on first access, as JAX's `import jax` has them loaded.
    """

    def __getattr__(self, name: str) -> Any:
        import pyjax

        if name == "_src":  # JAX's private modules, not pyjax's package
            return importlib.import_module("jax._src")
        try:
            return getattr(pyjax, name)
        except AttributeError:
            pass
        if not name.startswith("__"):
            try:
                return importlib.import_module(f"jax.{name}")
            except ModuleNotFoundError:
                pass
        raise AttributeError(f"module 'jax' has no attribute '{name}'")

    def __dir__(self) -> list[str]:
        import pyjax

        return sorted(set(dir(pyjax)) | set(self.__dict__))


def _make_jax_module(spec: importlib.machinery.ModuleSpec) -> JaxModule:
    import pyjax

    module = JaxModule("jax", pyjax.__doc__)
    module.__spec__ = spec
    module.__loader__ = spec.loader
    module.__path__ = []  # a package whose submodules only the finder answers
    module.__file__ = pyjax.__file__
    module.__version__ = JAX_VERSION
    module.__version_info__ = JAX_VERSION_INFO
    module.__pyjax__ = pyjax  # what the alias stands for
    return module


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Answers `jax`, `jax.*`, `jaxlib` and `jaxlib.*` with pyjax's modules."""

    def find_spec(self, fullname: str, path=None, target=None):
        root = fullname.partition(".")[0]
        if root not in _ROOTS:
            return None
        if fullname == "jax":
            return importlib.machinery.ModuleSpec("jax", self, is_package=True)
        for name in _target(fullname):
            if _exists(name):
                spec = importlib.machinery.ModuleSpec(fullname, self, is_package=True)
                spec.loader_state = name
                return spec
        raise ModuleNotFoundError(
            f"No module named '{fullname}': pyjax (standing in for jax {JAX_VERSION} through "
            f"pyjax.install_as_jax()) has no module for it", name=fullname)

    def create_module(self, spec: importlib.machinery.ModuleSpec):
        if spec.name == "jax":
            return _make_jax_module(spec)
        module = importlib.import_module(spec.loader_state)
        # The import system stamps the module with this spec before
        # exec_module; keep pyjax's own (its relative imports read it).
        spec.loader_state = (spec.loader_state, module.__dict__.get("__spec__"))
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        if isinstance(module, JaxModule):
            return
        state = module.__spec__.loader_state
        if isinstance(state, tuple):
            module.__spec__ = state[1]


_FINDER = _Finder()


def installed() -> bool:
    """Whether `install_as_jax()` has run in this process."""
    return _FINDER in sys.meta_path


def install_as_jax() -> None:
    """Makes `import jax` (and every `jax.*` and `jaxlib.*` module) resolve
    to pyjax for the rest of the process.

    Call it before anything imports jax: a library imported afterwards runs
    unchanged on pyjax. It raises RuntimeError if the real jax (or jaxlib)
    is already imported, since two implementations of JAX's types in one
    process cannot work together. Calling it again does nothing.
    """
    if installed():
        return
    for root in _ROOTS:
        module = sys.modules.get(root)
        if module is None:
            continue
        where = getattr(module, "__file__", None) or "an unknown location"
        raise RuntimeError(
            f"pyjax.install_as_jax(): the real {root} is already imported (from {where}); "
            f"call pyjax.install_as_jax() before anything imports {root}, or run the program "
            "with `python -m pyjax run script.py`.")
    sys.meta_path.insert(0, _FINDER)
    importlib.import_module("jax")
