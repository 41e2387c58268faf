"""jax.numpy runs eagerly through dispatch.py's eager dispatch API only
(issue 20, item 4): no module of pyjax._src.numpy reads a private name of
core or dispatch (`core._trace_ctx`, `core._default_trace`, ...) nor drives
a backend tier's protocol (a compiled program's `native`, `run`/`check`,
`live`/`dead`, `call1`, `steps_per_call`): the backend's compiled eager
program tiers up by itself behind `EagerProgram.run`."""

import ast
from pathlib import Path

NUMPY = Path(__file__).resolve().parents[1] / "src" / "pyjax" / "_src" / "numpy"
LOWER = {"pyjax._src.core", "pyjax._src.dispatch"}
TIER_PROTOCOL = {"native", "steps_per_call", "call1", "live", "dead", "check", "compile_for_backend"}


def _aliases(tree: ast.Module) -> tuple[set, list]:
    # Names bound to core or dispatch, and names imported from them.
    modules, imported = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "pyjax._src":
            modules.update(a.asname or a.name for a in node.names if f"pyjax._src.{a.name}" in LOWER)
        elif isinstance(node, ast.ImportFrom) and node.module in LOWER:
            imported += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.Import):
            modules.update(a.asname for a in node.names if a.name in LOWER and a.asname)
    return modules, imported


def violations(source: str) -> list[str]:
    """The private core/dispatch names and tier-protocol names `source` touches."""
    tree = ast.parse(source)
    modules, imported = _aliases(tree)
    bad = [f"line {line}: imports private {name}" for line, name in imported if name.startswith("_")]
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        if isinstance(node.value, ast.Name) and node.value.id in modules and node.attr.startswith("_"):
            bad.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
        elif node.attr in TIER_PROTOCOL:
            bad.append(f"line {node.lineno}: .{node.attr} (a tier's protocol)")
    return bad


def test_jax_numpy_uses_only_the_eager_dispatch_api():
    found = {p.name: v for p in sorted(NUMPY.glob("*.py")) if (v := violations(p.read_text()))}
    assert not found, found


def test_the_scan_sees_what_the_old_code_did():
    # Lines as numpy/eager.py and ufuncs.py had them before the API existed.
    old = '''
from pyjax._src import config, core, dispatch as _dispatch
from pyjax._src.dispatch import _wrap
if core._trace_ctx.get() is None:
    trace = core._default_trace[0]
native = getattr(compiled, "native", None)
steps = native.steps_per_call
if native.live or native.dead:
    run = native.call1
'''
    bad = violations(old)
    assert any("_wrap" in b for b in bad) and any("core._trace_ctx" in b for b in bad)
    assert any("core._default_trace" in b for b in bad)
    assert sum("tier's protocol" in b for b in bad) == 4
    new = "from pyjax._src import dispatch\nif dispatch.active_trace() is None:\n    plan = dispatch.exact_plan(p, k)\n"
    assert violations(new) == []
