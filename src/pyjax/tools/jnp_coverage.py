"""Coverage of JAX 0.11's jax.numpy namespace by pyjax.numpy.

    python -m pyjax.tools.jnp_coverage              # implemented / missing, then totals
    python -m pyjax.tools.jnp_coverage --markdown   # the report as Markdown
    python -m pyjax.tools.jnp_coverage --names FILE # another recorded name list

The reference list is tests/golden/jnp_names.json, recorded from JAX 0.11
by tests/golden/record_jnp_names.py: every public name of jax.numpy,
jax.numpy.linalg and jax.numpy.fft with its kind (function, class, module,
value). A name counts as implemented when pyjax's namespace has it with the
same kind; it is listed as a mismatch when present with another kind (a
value where JAX has a function, say), and as missing when absent.
docs/jnp_coverage.md is this script's Markdown output, kept current by
tests/numpy/test_numpy_coverage.py.
"""

from __future__ import annotations

import argparse
import inspect
import json
import sys
from pathlib import Path

DEFAULT_NAMES = Path(__file__).resolve().parents[3] / "tests" / "golden" / "jnp_names.json"
NAMESPACES = {"jax.numpy": "pyjax.numpy", "jax.numpy.linalg": "pyjax.numpy.linalg",
              "jax.numpy.fft": "pyjax.numpy.fft"}


def kind_of(value) -> str:
    """The recorder's classification of a namespace entry."""
    if inspect.ismodule(value):
        return "module"
    if inspect.isclass(value):
        return "class"
    if callable(value):
        return "function"
    return "value"


def load_reference(path: Path = DEFAULT_NAMES) -> dict:
    return json.loads(Path(path).read_text())


def compare(reference: dict) -> dict[str, dict[str, list[str]]]:
    """For each namespace: the implemented, mismatched and missing names."""
    import importlib

    result = {}
    for label, names in reference["namespaces"].items():
        try:
            module = importlib.import_module(NAMESPACES[label])
        except ImportError:
            module = None
        report: dict[str, list[str]] = {"implemented": [], "mismatched": [], "missing": []}
        for name, kind in sorted(names.items()):
            if module is None or not hasattr(module, name):
                report["missing"].append(name)
            elif kind_of(getattr(module, name)) != kind:
                report["mismatched"].append(f"{name} (JAX: {kind}, pyjax: {kind_of(getattr(module, name))})")
            else:
                report["implemented"].append(name)
        result[label] = report
    return result


def totals(result: dict) -> tuple[int, int]:
    done = sum(len(r["implemented"]) for r in result.values())
    total = sum(len(r["implemented"]) + len(r["mismatched"]) + len(r["missing"]) for r in result.values())
    return done, total


def percent(done: int, total: int) -> str:
    return f"{100.0 * done / total:.1f}%" if total else "n/a"


def render_text(reference: dict, result: dict) -> str:
    lines = [f"pyjax.numpy against jax.numpy {reference['jax_version']}", ""]
    for label, report in result.items():
        n = sum(len(v) for v in report.values())
        lines.append(f"{label}: {len(report['implemented'])}/{n} implemented "
                     f"({percent(len(report['implemented']), n)})")
        for key in ("mismatched", "missing"):
            if report[key]:
                lines.append(f"  {key}: {', '.join(report[key])}")
        lines.append(f"  implemented: {' '.join(report['implemented'])}")
        lines.append("")
    done, total = totals(result)
    lines.append(f"total: {done}/{total} names ({percent(done, total)})")
    return "\n".join(lines) + "\n"


def render_markdown(reference: dict, result: dict) -> str:
    done, total = totals(result)
    lines = [
        "# jax.numpy coverage",
        "",
        (f"pyjax.numpy against the public namespace of jax.numpy {reference['jax_version']} "
         "(recorded in `tests/golden/jnp_names.json` by `tests/golden/record_jnp_names.py`)."),
        "Regenerate with `python -m pyjax.tools.jnp_coverage --markdown > docs/jnp_coverage.md`.",
        "",
        "| namespace | implemented | mismatched kind | missing | coverage |",
        "|---|---|---|---|---|",
    ]
    for label, report in result.items():
        n = sum(len(v) for v in report.values())
        lines.append(f"| `{label}` | {len(report['implemented'])} | {len(report['mismatched'])} | "
                     f"{len(report['missing'])} | {percent(len(report['implemented']), n)} |")
    lines.append(f"| **total** | {done} | | | **{percent(done, total)}** |")
    for label, report in result.items():
        lines += ["", f"## `{label}`", ""]
        for key in ("missing", "mismatched"):
            if report[key]:
                lines.append(f"**{key}:** " + ", ".join(f"`{n}`" for n in report[key]))
                lines.append("")
        lines.append("**implemented:** " + ", ".join(f"`{n}`" for n in report["implemented"]))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print the report as Markdown")
    parser.add_argument("--names", type=Path, default=DEFAULT_NAMES, help="the recorded JAX name list")
    args = parser.parse_args(argv)
    reference = load_reference(args.names)
    result = compare(reference)
    sys.stdout.write(render_markdown(reference, result) if args.markdown else render_text(reference, result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
