"""Runs each example of examples/ecosystem/ on pyjax and prints a Markdown
table of its results beside JAX 0.11.0's (tests/golden/ecosystem.json,
recorded by tests/golden/record_ecosystem.py), for docs/ecosystem.md:

    python -m pyjax.tools.ecosystem_report [library ...]

Times are each workload's own seconds (after imports), on the same machine.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "tests" / "golden" / "ecosystem.json"
EXAMPLES = {
    "optax": "optax_regression.py", "chex": "chex_checks.py", "equinox": "equinox_mlp.py",
    "flax": "flax_digits.py", "haiku": "haiku_resnet.py", "numpyro": "numpyro_regression.py",
    "blackjax": "blackjax_gaussian.py",
}


def _short(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list) and len(value) <= 4 and all(isinstance(v, (int, float)) for v in value):
        return "[" + ", ".join(_short(v) for v in value) + "]"
    if isinstance(value, dict) and all(isinstance(v, dict) for v in value.values()):
        return "; ".join(f"{k}: {_short(v)}" for k, v in value.items())
    if isinstance(value, dict):
        return ", ".join(f"{k} {_short(v)}" for k, v in value.items() if not isinstance(v, (list, dict)))
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def run_pyjax(library: str) -> dict:
    script = ROOT / "examples" / "ecosystem" / EXAMPLES[library]
    proc = subprocess.run([sys.executable, "-m", "pyjax", "run", str(script)], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(libraries: list[str]) -> None:
    golden = json.loads(GOLDEN.read_text())
    for library in libraries or EXAMPLES:
        mine, ref = run_pyjax(library), golden[library]
        print(f"### {library} {mine['version']} ({EXAMPLES[library]})\n")
        print(f"| result | pyjax | JAX 0.11.0 |\n| --- | --- | --- |")
        for key, value in mine["results"].items():
            if isinstance(value, (dict, list)) and len(json.dumps(value)) > 120:
                same = "same" if value == ref["results"].get(key) else "differs"
                print(f"| {key} | (long: {same} as JAX's) | |")
                continue
            other = ref["results"].get(key)
            if isinstance(value, dict) and isinstance(other, dict):  # the golden file's keys are sorted
                other = {k: other.get(k) for k in value}
            print(f"| {key} | {_short(value)} | {_short(other)} |")
        print(f"| **workload seconds** | **{mine['seconds']:.2f}** | **{ref['seconds']:.2f}** |\n")


if __name__ == "__main__":
    main(sys.argv[1:])
