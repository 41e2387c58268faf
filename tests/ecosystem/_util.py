"""Shared by the ecosystem tests: library presence and running an example."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "ecosystem"
GOLDEN = ROOT / "tests" / "golden" / "ecosystem.json"
REQUIRED = os.environ.get("PYJAX_REQUIRE_ECOSYSTEM") == "1"

# Run in the child: alias jax to pyjax, run the example, then check that no
# module of the real jax or jaxlib was loaded.
_RUNNER = r"""
import runpy, sys
import pyjax
pyjax.install_as_jax()
sys.argv = [sys.argv[1]]
runpy.run_path(sys.argv[0], run_name="__main__")
from pyjax._src.install import JaxModule
assert isinstance(sys.modules["jax"], JaxModule), sys.modules["jax"]
foreign = sorted(name for name, m in list(sys.modules.items())
                 if name.partition(".")[0] in ("jax", "jaxlib") and m is not None
                 and not isinstance(m, JaxModule) and not m.__name__.startswith("pyjax"))
assert not foreign, f"modules of the real jax were imported: {foreign}"
print("PYJAX_ALIAS_OK")
"""


def require(*modules: str) -> None:
    """Skips the calling test module (fails it under PYJAX_REQUIRE_ECOSYSTEM=1)
    unless every one of `modules` is installed. Only looks: importing a
    library here would import jax into the test process."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if not missing:
        return
    reason = (f"ecosystem library not installed: {', '.join(missing)} "
              "(install with .ci/install-ecosystem)")
    if REQUIRED:
        pytest.fail(reason + "; PYJAX_REQUIRE_ECOSYSTEM=1 makes this a failure", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def run_example(name: str, timeout: float = 600) -> dict:
    """Runs examples/ecosystem/`name` on pyjax in a fresh interpreter and
    returns the JSON line it prints."""
    proc = subprocess.run([sys.executable, "-c", _RUNNER, str(EXAMPLES / name)], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)
    assert proc.returncode == 0, f"{name} failed on pyjax:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    lines = proc.stdout.strip().splitlines()
    assert lines and lines[-1] == "PYJAX_ALIAS_OK", proc.stdout[-3000:]
    return json.loads(lines[-2])


def jax_reference(library: str) -> dict:
    """The same example's output on JAX 0.11.0 (tests/golden/record_ecosystem.py)."""
    return json.loads(GOLDEN.read_text())[library]
