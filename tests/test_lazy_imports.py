"""`import pyjax` leaves out what only some programs use: each such module is
imported by its first use (docs/performance.md, "Import time"), and then
works as before."""

from __future__ import annotations

import subprocess
import sys

# Modules `import pyjax` must not import, each with the first use that does.
LAZY = {
    "pyjax._src.backends.stablehlo": "pyjax.jit(lambda x: x * 2).lower(jnp.ones(3)).as_text()",
    "pyjax.export": "pyjax.export.export(pyjax.jit(lambda x: x * 2))(jnp.ones(3)).mlir_module()",
    "pyjax._src.export.serialization": "pyjax.export.deserialize",
    "pyjax.profiler": "pyjax.profiler.TraceAnnotation",
    "pyjax._src.profiler": "pyjax.profiler.trace",
    "pyjax.nn": "pyjax.nn.relu(jnp.ones(2))",
    "pyjax.scipy": "pyjax.scipy.special.erf(0.5)",
    "pyjax.debug": "pyjax.debug.print",
    "pyjax.image": "pyjax.image.resize(jnp.ones((2, 2)), (4, 4), 'linear')",
    "pyjax.interpreters": "pyjax.interpreters.ad",
    "pyjax.experimental": "pyjax.experimental.shard_map",
    "opt_einsum": "jnp.einsum('ij,jk->ik', jnp.ones((2, 3)), jnp.ones((3, 2)), optimize=False)",
}


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_import_pyjax_leaves_out_the_lazy_modules():
    names = sorted(LAZY)
    code = ("import sys, pyjax\n"
            f"print([m for m in {names!r} if m in sys.modules])\n")
    assert _run(code).strip() == "[]"


def test_each_lazy_module_loads_on_first_use():
    for module, use in LAZY.items():
        code = ("import sys, pyjax, pyjax.numpy as jnp\n"
                f"assert {module!r} not in sys.modules\n"
                f"used = {use}\n"
                f"print({module!r} in sys.modules)\n")
        assert _run(code).strip() == "True", module


def test_lazy_submodules_are_attributes_and_in_dir():
    code = ("import pyjax\n"
            "assert {'export', 'profiler', 'nn', 'scipy', 'debug', 'image'} <= set(dir(pyjax))\n"
            "import pyjax.export as e\n"
            "assert pyjax.export is e and hasattr(pyjax, 'profiler')\n"
            "try:\n"
            "    pyjax.no_such_name\n"
            "except AttributeError as err:\n"
            "    print(err)\n")
    assert _run(code).strip() == "module 'pyjax' has no attribute 'no_such_name'"


def test_stablehlo_text_is_the_same_after_the_first_use():
    # The first call goes through the lazy hook, the second through the wired lowering.
    code = ("import pyjax, pyjax.numpy as jnp\n"
            "f = lambda x: jnp.sin(x) * 2\n"
            "a = pyjax.jit(f).lower(jnp.ones(3)).as_text()\n"
            "b = pyjax.jit(lambda x: jnp.sin(x) * 2).lower(jnp.ones(3)).as_text()\n"
            "e = pyjax.export.export(pyjax.jit(f))(jnp.ones(3))\n"
            "print(a == b, e.mlir_module() == e.mlir_module(), 'stablehlo.sine' in a)\n")
    assert _run(code).strip() == "True True True"
