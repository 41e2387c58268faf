"""The import graph keeps DESIGN.md's arrows: core and the interpreters know no
library or backend, and the lax primitives know no backend."""

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "pyjax" / "_src"


def imports_of(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def forbidden(paths, prefixes):
    bad = []
    for path in paths:
        for name in imports_of(path):
            if any(name.startswith(p) for p in prefixes):
                bad.append(f"{path.relative_to(SRC)} imports {name}")
    return bad


def test_core_modules_import_no_library_and_no_backend():
    low = [SRC / f for f in ("core.py", "avals.py", "jaxpr.py", "pretty.py", "rules.py", "errors.py")]
    assert not forbidden(low, ["pyjax._src.lax", "pyjax._src.numpy", "pyjax._src.nn", "pyjax._src.backends", "pyjax._src.jit", "pyjax._src.api"])


def test_interpreters_import_no_library_and_no_backend():
    paths = list((SRC / "interpreters").glob("*.py"))
    assert not forbidden(paths, ["pyjax._src.lax", "pyjax._src.numpy", "pyjax._src.nn", "pyjax._src.backends"])


def test_lax_imports_no_backend_and_no_numpy_layer():
    paths = list((SRC / "lax").glob("*.py"))
    assert not forbidden(paths, ["pyjax._src.backends", "pyjax._src.numpy", "pyjax._src.nn"])


def test_backends_import_no_user_library():
    paths = list((SRC / "backends").rglob("*.py"))
    assert not forbidden(paths, ["pyjax._src.numpy", "pyjax._src.nn", "pyjax.numpy", "pyjax.nn"])
