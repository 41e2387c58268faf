"""Coverage of JAX 0.11's documented public modules by pyjax.

    python -m pyjax.tools.api_surface            # per-module counts, then the total
    python -m pyjax.tools.api_surface --names    # also list each module's missing names
    python -m pyjax.tools.api_surface --module jax.lax   # one module (a prefix) only
    python -m pyjax.tools.api_surface --signatures       # parameters that differ from JAX's

The reference is tests/golden/api_surface.json, recorded from JAX 0.11.0 by
tests/golden/record_api_surface.py: every public name of each documented
module, with its kind and signature. `jax.X` is looked up as `pyjax.X`.
A name is *present* when pyjax's module has it, *declared absent* when it is
missing and DECLARED_ABSENT gives a reason (the name itself, or a module
above it, is a key), and *missing* otherwise. tests/test_api_surface.py fails
for any missing name, and for any declared-absent entry that pyjax now has
(a stale reason) or that names nothing JAX has (a typo).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import sys
import warnings
from pathlib import Path

DEFAULT_NAMES = Path(__file__).resolve().parents[3] / "tests" / "golden" / "api_surface.json"

ISSUE22 = "issue 22: shard_map, pmap and per-device execution"
ISSUE27 = "issue 27: StableHLO lowering, jax.export, compilation cache"
NOT_YET = "issue 26: not yet"


def _table(*groups: tuple[str, str, str]) -> dict[str, str]:
    """(module, space-separated names or "" for the whole module, reason) -> {qualified name: reason}."""
    # A submodule's own entry also covers its name in the parent (jax.sharding in jax).
    table: dict[str, str] = {}
    for module, names, reason in groups:
        for name in names.split() or [""]:
            key = f"{module}.{name}" if name else module
            if key in table:
                raise ValueError(f"{key} is declared twice")
            table[key] = reason
    return table


# Names pyjax does not have yet, each with the issue that brings it.
DECLARED_ABSENT: dict[str, str] = _table(
    # -- placement: issue 21
    # -- per-device execution: issue 22
    # -- lowering and export: issue 27
    ("jax.interpreters.mlir", "", ISSUE27),
    ("jax.extend.mlir", "", ISSUE27),
    ("jax.extend.lowering", "", ISSUE27),
    ("jax.ffi", "", ISSUE27),
    ("jax.lax", "composite platform_dependent", ISSUE27),
    # -- this issue, other helpers now
    # -- this issue, not yet
    # Pallas runs in interpret mode (docs/pallas.md); its submodules jax.experimental.pallas.tpu, .triton,
    # .mosaic_gpu (not in the reference's module list) are absent: no TPU/GPU backend to target.
    ("jax.experimental.pallas", "lower_as_mlir pallas_export_experimental", ISSUE27),
)


def kind_of(value) -> str:
    """The recorder's classification of a module entry."""
    if type(value).__module__ == "typing" or type(value).__name__ == "UnionType":
        return "type"
    if inspect.ismodule(value):
        return "module"
    if inspect.isclass(value):
        return "class"
    if callable(value):
        return "function"
    return "constant"


def load_reference(path: Path = DEFAULT_NAMES) -> dict:
    return json.loads(Path(path).read_text())


def declared_reason(qualified: str) -> str | None:
    """The reason a name may be absent: its own entry, else the nearest module's."""
    parts = qualified.split(".")
    for i in range(len(parts), 0, -1):
        reason = DECLARED_ABSENT.get(".".join(parts[:i]))
        if reason is not None:
            return reason
    return None


def _import(module_name: str):
    try:
        return importlib.import_module("py" + module_name)
    except ImportError:
        return None


def compare(reference: dict) -> dict[str, dict[str, list]]:
    """For each JAX module: its present, missing, declared-absent and kind-mismatched names."""
    result = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated names warn when looked up
        for module_name, names in reference["modules"].items():
            module = _import(module_name)
            report: dict[str, list] = {"present": [], "missing": [], "declared": [], "kind": []}
            for name, entry in names.items():
                qualified = f"{module_name}.{name}"
                if module is not None and hasattr(module, name):
                    report["present"].append(name)
                    kind = kind_of(getattr(module, name))
                    if kind != entry["kind"]:
                        report["kind"].append(f"{name} (JAX: {entry['kind']}, pyjax: {kind})")
                elif (reason := declared_reason(qualified)) is not None:
                    report["declared"].append((name, reason))
                else:
                    report["missing"].append(name)
            result[module_name] = report
    return result


# Modules whose functions tests/test_api_surface.py holds to JAX's parameter
# names, order and kinds (`--signatures` reports every module).
SIGNATURES_CHECKED = ("jax.flatten_util", "jax.ops", "jax.image", "jax.stages", "jax.example_libraries.stax",
                      "jax.example_libraries.optimizers", "jax.monitoring", "jax.profiler", "jax.dlpack",
                      "jax.lax.linalg", "jax.distributed")


def stale_declarations(reference: dict) -> list[str]:
    """Declared-absent entries pyjax now has, or that name nothing in the reference."""
    modules = reference["modules"]
    problems = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key in DECLARED_ABSENT:
            if key in modules:
                module = _import(key)
                if module is not None and all(hasattr(module, n) for n in modules[key]):
                    problems.append(f"{key}: every name is present; drop the entry")
                continue
            module_name, _, name = key.rpartition(".")
            if module_name not in modules or name not in modules[module_name]:
                problems.append(f"{key}: not a name of JAX {reference['jax_version']}")
                continue
            module = _import(module_name)
            if module is not None and hasattr(module, name):
                problems.append(f"{key}: present in pyjax; drop the entry")
    return problems


def _parameters(text: str) -> list[str] | None:
    """The parameter names and kinds of a recorded signature text: ['x', '/', '*', 'axis', ...]."""
    import ast

    try:
        args = ast.parse(f"def f{text.split(' -> ')[0]}: pass").body[0].args
    except SyntaxError:
        return None
    names = [a.arg for a in args.posonlyargs] + (["/"] if args.posonlyargs else [])
    names += [a.arg for a in args.args]
    names += [f"*{args.vararg.arg}"] if args.vararg else (["*"] if args.kwonlyargs else [])
    names += [a.arg for a in args.kwonlyargs]
    names += [f"**{args.kwarg.arg}"] if args.kwarg else []
    return names


def signature_mismatches(reference: dict, module_name: str) -> list[str]:
    """Functions of `module_name` whose parameters (names, order, kinds) differ from JAX's."""
    module = _import(module_name)
    problems = []
    for name, entry in reference["modules"][module_name].items():
        if entry["kind"] != "function" or not entry.get("signature") or not hasattr(module, name):
            continue
        want = _parameters(_strip_defaults(entry["signature"]))
        try:
            got = _parameters(_strip_defaults(str(inspect.signature(getattr(module, name)))))
        except (TypeError, ValueError):
            got = None
        if want is not None and got != want:
            problems.append(f"{module_name}.{name}: JAX {want}, pyjax {got}")
    return problems


def _strip_defaults(text: str) -> str:
    # Defaults and annotations may be reprs that are not Python (<function ...>);
    # only names, order and kinds are compared.
    import re

    depth, out, skipping = 0, [], False
    for ch in text.split(" -> ")[0]:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
            if depth == 0:
                skipping = False
        if depth == 1 and ch == ",":
            skipping = False
        elif depth == 1 and ch in ":=" or (depth > 1 and skipping):
            skipping = True
        if not skipping or (depth == 0 and ch == ")"):
            out.append(ch)
    return re.sub(r"\s+", " ", "".join(out))


def totals(result: dict) -> dict[str, int]:
    return {key: sum(len(r[key]) for r in result.values()) for key in ("present", "missing", "declared")}


def render(reference: dict, result: dict, list_names: bool = False) -> str:
    lines = [f"pyjax against JAX {reference['jax_version']}'s documented public modules", "",
             f"{'module':56} {'present':>8} {'missing':>8} {'declared':>9} {'of':>5}"]
    for module_name, report in result.items():
        n = sum(len(report[k]) for k in ("present", "missing", "declared"))
        lines.append(f"{module_name:56} {len(report['present']):8} {len(report['missing']):8} "
                     f"{len(report['declared']):9} {n:5}")
        if list_names:
            if report["missing"]:
                lines.append("    missing: " + " ".join(report["missing"]))
            reasons: dict[str, list[str]] = {}
            for name, reason in report["declared"]:
                reasons.setdefault(reason, []).append(name)
            for reason, names in reasons.items():
                lines.append(f"    declared ({reason}): " + " ".join(names))
            if report["kind"]:
                lines.append("    other kind: " + ", ".join(report["kind"]))
    t = totals(result)
    n = sum(t.values())
    lines += ["", f"total: {t['present']}/{n} names present ({100.0 * t['present'] / n:.1f}%), "
                  f"{t['declared']} declared absent, {t['missing']} missing"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", action="store_true", help="list missing and declared-absent names")
    parser.add_argument("--signatures", action="store_true",
                        help="also list functions whose parameters differ from JAX's")
    parser.add_argument("--module", default="", help="only modules whose name starts with this")
    parser.add_argument("--reference", type=Path, default=DEFAULT_NAMES, help="the recorded JAX name list")
    args = parser.parse_args(argv)
    reference = load_reference(args.reference)
    reference["modules"] = {m: v for m, v in reference["modules"].items() if m.startswith(args.module)}
    result = compare(reference)
    sys.stdout.write(render(reference, result, args.names))
    if args.signatures:
        for module_name in reference["modules"]:
            for problem in signature_mismatches(reference, module_name):
                sys.stdout.write(f"signature: {problem}\n")
    for problem in stale_declarations(reference):
        sys.stdout.write(f"stale declaration: {problem}\n")
    return 1 if totals(result)["missing"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
