"""Records JAX 0.11's public jax.numpy namespace into jnp_names.json.

Run with the reference JAX (not pyjax):

    /tmp/jax-ref/bin/python tests/golden/record_jnp_names.py

For jax.numpy, jax.numpy.linalg and jax.numpy.fft it writes every public
name (no leading underscore; re-exported modules other than the two
submodules left out) with its kind: "function" (any callable that is not a
class), "class", "module" or "value". `python -m pyjax.tools.jnp_coverage`
compares pyjax.numpy with this list.
"""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path

import jax
import jax.numpy as jnp

NAMESPACES = {"jax.numpy": jnp, "jax.numpy.linalg": jnp.linalg, "jax.numpy.fft": jnp.fft}
SUBMODULES = {"linalg", "fft"}


def kind_of(value) -> str:
    if inspect.ismodule(value):
        return "module"
    if inspect.isclass(value):
        return "class"
    if callable(value):
        return "function"
    return "value"


def public_names(module, top_level: bool) -> dict[str, str]:
    names = {}
    for name in sorted(dir(module)):
        if name.startswith("_"):
            continue
        kind = kind_of(getattr(module, name))
        if kind == "module" and not (top_level and name in SUBMODULES):
            continue
        names[name] = kind
    return names


def main() -> None:
    record = {
        "jax_version": jax.__version__,
        "namespaces": {label: public_names(module, label == "jax.numpy") for label, module in NAMESPACES.items()},
    }
    out = Path(__file__).with_name("jnp_names.json")
    out.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    counts = {label: len(names) for label, names in record["namespaces"].items()}
    print(f"recorded {counts} to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
