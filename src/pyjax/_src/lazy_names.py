"""Public names whose modules load on first use (PEP 562).

A public namespace (pyjax.numpy, pyjax.lax, ...) names each such attribute
with the module that defines it; `install` gives the namespace a module
`__getattr__` that imports that module at the first read, binds the value
in the namespace (later reads are plain attribute reads), and a `__dir__`
that lists the names before they are loaded. `import pyjax` then compiles
only what most programs use (docs/performance.md, "Import time").
Concurrent first reads are safe: the module import holds Python's import
lock, and binding the same value twice is harmless.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

# (the globals of each namespace served lazily, the names load_all reads there)
_NAMESPACES: list[tuple[dict, list[str]]] = []



def install(namespace: dict, table: dict[str, str],
            fallback: Callable[[str], Any] | None = None,
            on_load: Callable[[str, Any], Any] | None = None, unloaded: frozenset = frozenset()) -> None:
    """Serve `table` (public name -> "module" or "module:attribute") lazily
    from the module whose globals are `namespace`.

    A name without ":attribute" is the same name in the module; a name
    whose target is the module itself is written "module:" (a submodule).
    `fallback(name)` answers names not in the table (default: the usual
    AttributeError); `on_load(name, value)` may replace a loaded value
    before it is bound (random's samplers are wrapped so). `load_all`
    skips the names in `unloaded`."""
    module_name = namespace["__name__"]

    def __getattr__(name: str):
        target = table.get(name)
        if target is None:
            if fallback is not None:
                return fallback(name)
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        source, _, attribute = target.partition(":")
        module = importlib.import_module(source)
        if target.endswith(":"):
            value = module
        else:
            value = getattr(module, attribute or name)
        if on_load is not None:
            value = on_load(name, value)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(table))

    namespace["__getattr__"] = __getattr__
    namespace["__dir__"] = __dir__
    _NAMESPACES.append((namespace, [name for name in table if name not in unloaded]))


def load_all() -> None:
    """Read every lazily served name: what `import pyjax` used to import
    (every primitive it defined exists then), for views that enumerate all
    primitives (jax.interpreters.ad.primitive_jvps, ...)."""
    for namespace, names in list(_NAMESPACES):
        for name in names:
            if name not in namespace:
                namespace["__getattr__"](name)


def names_from(module: str, names: str) -> dict[str, str]:
    """{name: module} for each whitespace-separated name."""
    return dict.fromkeys(names.split(), module)
