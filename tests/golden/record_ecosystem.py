"""Records each ecosystem example's output on JAX 0.11.0 into ecosystem.json.

Run with the reference JAX (not pyjax), with the libraries installed there
without their dependencies (.ci/install-ecosystem PYTHON):

    /tmp/jax-ref/bin/python tests/golden/record_ecosystem.py [library ...]

Each example of examples/ecosystem/ prints one JSON line (the library's
results and the workload's seconds); this keeps it under the library's
name, so tests/ecosystem/ can set pyjax's results beside JAX's and
docs/ecosystem.md can show both (python -m pyjax.tools.ecosystem_report).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).with_name("ecosystem.json")
EXAMPLES = {
    "optax": "optax_regression.py", "chex": "chex_checks.py", "equinox": "equinox_mlp.py",
    "flax": "flax_digits.py", "haiku": "haiku_resnet.py", "numpyro": "numpyro_regression.py",
    "blackjax": "blackjax_gaussian.py",
}


def main(libraries: list[str]) -> None:
    import jax

    assert "pyjax" not in jax.__file__, "record with the reference JAX, not pyjax"
    data = json.loads(OUT.read_text()) if OUT.exists() else {}
    for library in libraries or EXAMPLES:
        script = ROOT / "examples" / "ecosystem" / EXAMPLES[library]
        proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True,
                              cwd=ROOT)
        data[library] = json.loads(proc.stdout.strip().splitlines()[-1])
        print(library, data[library]["seconds"], "s")
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
