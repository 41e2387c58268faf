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
    low = [SRC / f for f in ("core.py", "avals.py", "jaxpr.py", "pretty.py", "rules.py", "errors.py", "ad_util.py")]
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


# Every module of pyjax._src in one layer, lowest first; a module not named
# here is in "user libraries" (jax.numpy's level: it may use everything but
# the backends). No module imports (at import time or inside a function) a
# module of a higher layer.
LAYERS = [
    ("base", ["config", "config_states", "compilation_cache", "dtypes", "dtype_names", "errors", "rules", "cache_key", "tree_util", "tree_util_errors", "tree_util_keys",
              "tree_util_registry", "tree_util_treedef", "monitoring"]),
    ("core", ["avals", "core", "jaxpr", "pretty", "ad_util", "array", "sharding", "ref_types", "tokens",
              "distributed",
              "shape_poly", "shape_poly_parse", "dim_as_value", "primal_tangent_dtype"]),
    ("interpreters", ["interpreters", "dispatch", "cache_miss"]),
    ("library", ["lax", "jit", "jit_ad", "donation", "stages", "stage_types", "remat", "ad_checkpoint", "custom_derivatives", "custom_vjp",
                 "api", "api_ad", "api_jac", "sharding.api", "grad_sentinels", "xla_metadata", "remat_opt",
                 "closed_call", "custom_remat"]),
    ("user libraries", None),  # numpy, nn, scipy, random, debugging, ops, ...
    ("backends", ["backends"]),
]
USER_LIBRARIES = 4


def layer_of(module: str) -> int:
    # The longest matching name decides (sharding is core, sharding.api a library).
    name = module[len("pyjax._src."):]
    best, layer = -1, USER_LIBRARIES
    for index, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes or ():
            if (name == p or name.startswith(p + ".")) and len(p) > best:
                best, layer = len(p), index
    return layer


def test_every_module_imports_only_its_layer_and_below():
    from pyjax.tools.import_cycles import import_graph

    graph = import_graph(lazy=True)
    assert "pyjax._src.ad_util" in graph and "pyjax._src.interpreters.dce" in graph
    bad = [f"{m} ({LAYERS[layer_of(m)][0]}) imports {t} ({LAYERS[layer_of(t)][0]})"
           for m, targets in sorted(graph.items()) for t in sorted(targets) if layer_of(t) > layer_of(m)]
    assert not bad


def test_no_import_cycle_through_the_interpreters_or_across_layers():
    from pyjax.tools.import_cycles import cycles, import_graph

    for component in cycles(import_graph(lazy=True)):
        assert not any(m.startswith(("pyjax._src.interpreters", "pyjax._src.ad_util")) for m in component), component
        assert len({layer_of(m) for m in component}) == 1, component
