"""The NumPy backend's shape (issue 20): sub-packages behind one entry point,
modules and functions of a readable size, a code generator that asks the
registered tiers instead of importing them, and no import in the middle of
a module."""

import ast
from pathlib import Path

import pyjax  # noqa: F401
from pyjax._src.backends.numpy import tiers  # (importing the backend installs it)

BACKEND = Path(__file__).resolve().parents[2] / "src" / "pyjax" / "_src" / "backends" / "numpy"
MAX_MODULE_LINES = 900
MAX_FUNCTION_LINES = 100
TIER_PACKAGES = ("pyjax._src.backends.numpy.native", "pyjax._src.backends.numpy.parallel")


def _modules():
    return sorted(BACKEND.rglob("*.py"))


def _imports(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_the_backend_is_sub_packages_behind_one_entry():
    packages = {p.parent.name for p in BACKEND.glob("*/__init__.py")}
    assert {"impls", "xla", "codegen", "parallel", "native"} <= packages
    top = {p.name for p in BACKEND.glob("*.py")}
    assert top <= {"__init__.py", "tiers.py", "fpenv.py", "memory.py"}, top
    init = ast.parse((BACKEND / "__init__.py").read_text())
    assert "install" in {n.name for n in init.body if isinstance(n, ast.FunctionDef)}
    # Importing the package runs install() (the backend loads on first need:
    # pyjax._src.backends); pyjax's top level imports none of its modules.
    last = init.body[-1]
    assert isinstance(last, ast.Expr) and ast.unparse(last) == "install()"
    top_level = ast.parse((BACKEND.parents[2] / "__init__.py").read_text())
    backend_imports = {n for n in _imports(top_level) if n.startswith("pyjax._src.backends.numpy")}
    assert not backend_imports, backend_imports
    assert "set_compiler" not in (BACKEND.parents[2] / "__init__.py").read_text()  # backends.wire_numpy() does


def test_no_module_over_900_lines():
    long = {str(p.relative_to(BACKEND)): n for p in _modules() if (n := p.read_text().count("\n")) > MAX_MODULE_LINES}
    assert not long


def test_no_function_over_100_lines():
    long = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(BACKEND)}:{node.lineno} {node.name} ({n} lines)")
    assert not long


def test_the_code_generator_imports_no_tier():
    for name in ("compile.py", "control_flow.py", "kernels.py"):
        imported = _imports(ast.parse((BACKEND / "codegen" / name).read_text()))
        assert not [m for m in imported if m.startswith(TIER_PACKAGES)], name
    # ... and never checks whether it was handed the default table.
    source = (BACKEND / "codegen" / "compile.py").read_text()
    assert "DEFAULT_IMPLS" not in source and "threading" not in source


def test_no_thread_local_changes_what_gets_compiled():
    # The tiers a compilation uses travel with it (tiers.Tiers): the planners
    # and the code generator keep no per-thread modes.
    for path in (BACKEND / "codegen" / "compile.py", BACKEND / "parallel" / "tile.py", BACKEND / "native" / "rows.py"):
        assert "threading.local" not in path.read_text(), path.name


def test_imports_sit_at_the_top_of_each_module():
    late = []
    for path in _modules():
        seen_code = False
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                if seen_code:
                    late.append(f"{path.relative_to(BACKEND)}:{node.lineno}")
            elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
                seen_code = True
    assert not late


def test_the_registered_tiers():
    registered = tiers.registered()
    assert [r.name for r in registered.regions] == ["tile", "rows", "glue"]
    assert registered.program is not None and registered.loop is not None and registered.split is not None
    block = registered.for_block()
    assert [r.name for r in block.regions] == ["rows", "glue"] and block.split is None and block.in_block
    assert [r.name for r in registered.without("rows").regions] == ["tile", "glue"]


def test_one_tiering_state_machine():
    from pyjax._src.backends.numpy.native import loop, threefry, tiering

    assert issubclass(loop.NativeLoop, tiering.Tiering) and issubclass(threefry.NativeHash, tiering.Tiering)
    # Nothing else in the backend keeps tier states of its own: no other
    # module names the states or sets a `state` to a constant.
    states = {"COLD", "BUILDING", "BUILT", "LIVE", "DEAD"}
    for path in _modules():
        if path.name == "tiering.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    names = target.elts if isinstance(target, ast.Tuple) else [target]
                    for name in names:
                        assert not (isinstance(name, ast.Name) and name.id.lstrip("_") in states), path.name
                        assert not (isinstance(name, ast.Attribute) and name.attr == "state"
                                    and isinstance(node.value, ast.Constant)), path.name


def test_a_compilation_without_tiers_is_python_alone():
    import numpy as np

    from pyjax._src.backends.numpy.codegen.compile import compile_jaxpr
    from pyjax._src.backends.numpy.impls import IMPLS

    x = np.ones((4, 3), np.float32)
    jaxpr = pyjax.make_jaxpr(lambda a: (a * 2.0 + 1.0).sum(axis=1))(x)
    compiled = compile_jaxpr(jaxpr, IMPLS, tiers=tiers.Tiers())
    assert compiled.native is None
    np.testing.assert_array_equal(compiled(x)[0], (x * 2.0 + 1.0).sum(axis=1))
