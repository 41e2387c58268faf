"""Every single-device StableHLO module pyjax emits for the recorded
programs (tests/golden/stablehlo_programs.py) is accepted by IREE's
compiler: parsed, verified and converted from StableHLO/CHLO to IREE's
input dialects (`iree-compile --compile-to=input`). A module carrying JAX's
`sdy` annotations (a key array's data at @main's boundary) is left out:
IREE 3.13 does not register the Shardy dialect.

Needs the `[iree]` extra (`pip install -e '.[iree]'`: iree-base-compiler);
without it the test is skipped and says so.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"
sys.path.insert(0, str(GOLDEN_DIR))

import programs_core  # noqa: E402
import stablehlo_programs  # noqa: E402


def _iree_compile() -> str | None:
    try:
        import iree.compiler  # noqa: F401
    except ImportError:
        return None
    return shutil.which("iree-compile")


IREE_COMPILE = _iree_compile()
pytestmark = pytest.mark.skipif(IREE_COMPILE is None,
                                reason="IREE is not installed (pip install -e '.[iree]' for iree-base-compiler)")


# JAX's text holds an XLA op IREE 3.13 does not legalize (the IREE backend lowers these
# programs otherwise, or refuses them: test_iree_parity.py): program -> the op it must name.
XLA_ONLY = {"fft_complex": "stablehlo.fft", "fft_real": "stablehlo.fft", "tokens": "stablehlo.create_token",
            "approx_top_k": "stablehlo.custom_call", "rng_uniform": "stablehlo.rng",
            "select_and_scatter": "stablehlo.select_and_scatter"}


def test_every_emitted_module_is_accepted_by_iree_compile():
    rejected, compiled = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for program in stablehlo_programs.PROGRAMS:
            record = programs_core.run_program(program, pyjax, jnp, lax)
            if record["kind"] != "text":  # a declared gap (the threefry PRNG): no module to compile
                assert record["type"] == "LoweringError", (program.name, record)
                continue
            if "sdy." in record["text"]:  # JAX's Shardy annotations (key data): IREE 3.13 has no sdy dialect
                continue
            path = os.path.join(tmp, f"{program.name}.mlir")
            Path(path).write_text(record["text"])
            run = subprocess.run([IREE_COMPILE, "--iree-hal-target-backends=llvm-cpu", "--compile-to=input", path,
                                  "-o", os.devnull], capture_output=True, text=True)
            compiled += 1
            if program.name in XLA_ONLY:
                assert run.returncode and f"failed to legalize operation '{XLA_ONLY[program.name]}'" in run.stderr, (
                    program.name, run.stderr[:300])
                continue
            if run.returncode:
                rejected.append(f"{program.name}: {run.stderr.strip()[:300]}")
    assert not rejected, "\n".join(rejected)
    assert compiled >= 100
