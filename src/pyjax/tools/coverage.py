"""The rule-coverage table: every primitive x every rule slot and backend.

    python -m pyjax.tools.coverage            # the table, then totals
    python -m pyjax.tools.coverage --markdown # the same as a Markdown table

Each cell is `rule` (implemented), a sentinel's name (NOT_LINEAR,
NOT_DIFFERENTIABLE, unimplemented: a declared, known gap) or `-` (a silent
hole). The `sharding` column is the rule that computes the output's
placement under Explicit mesh axes (`Primitive.def_sharding_rule`), or
`declared` where the primitive has a declared reason to have none
(`sharding_reasons()` lists them: calls, refs, collectives, key-reuse markers...). The totals are the project's version of the registry counts JAX
reports for itself. The last column is the StableHLO lowering table
(backends/stablehlo): `rule`, or `declared` where the primitive has a
declared reason it is not lowered (`lowering_reasons()` lists them).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

import pyjax  # noqa: F401  (wires the default backend)
from pyjax._src import core
from pyjax._src.rules import SLOTS, Sentinel

BACKENDS = ("numpy",)


def lowering_cell(primitive) -> str:
    """`rule`, `declared` (a declared reason it is not lowered) or `-`."""
    from pyjax._src.backends import stablehlo

    stablehlo.install()
    if primitive in stablehlo.LOWERINGS:
        return "rule"
    return "declared" if primitive in stablehlo.NOT_LOWERED else "-"


def lowering_reasons() -> dict[str, str]:
    """primitive name -> why it has no StableHLO lowering rule."""
    from pyjax._src.backends import stablehlo

    stablehlo.install()
    return {p.name: reason for p, reason in sorted(stablehlo.NOT_LOWERED.items(), key=lambda kv: kv[0].name)}


def sharding_cell(primitive) -> str:
    """`rule`, `declared` (a declared reason it has no sharding rule) or `-`."""
    if primitive.sharding_rule is not None:
        return "rule"
    return "declared" if primitive.sharding_reason else "-"


def sharding_reasons() -> dict[str, str]:
    """primitive name -> why it has no sharding rule (declared where it is defined)."""
    return {p.name: p.sharding_reason for p in all_primitives() if p.sharding_rule is None and p.sharding_reason}


def all_primitives() -> list[core.Primitive]:
    """Every Primitive object defined in pyjax._src (imports its modules)."""
    import pyjax._src as src

    found: dict[int, core.Primitive] = {}
    for info in pkgutil.walk_packages(src.__path__, "pyjax._src."):
        if ".backends." in info.name:
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, core.Primitive):
                found[id(value)] = value
    return sorted(found.values(), key=lambda p: p.name)


def backend_tables() -> dict[str, dict]:
    from pyjax._src.backends.numpy.impls import IMPLS

    return {"numpy": IMPLS}


def cell(rule) -> str:
    if rule is None:
        return "-"
    if isinstance(rule, Sentinel):
        return rule.name
    return "rule"


def table() -> tuple[list[str], list[list[str]]]:
    header = ["primitive", *SLOTS, "sharding", *(f"impl:{b}" for b in BACKENDS), "lowering:stablehlo"]
    tables = backend_tables()
    rows = []
    for primitive in all_primitives():
        row = [primitive.name] + [cell(getattr(primitive, slot)) for slot in SLOTS]
        row.append(sharding_cell(primitive))
        row += ["rule" if primitive in tables[b] else "-" for b in BACKENDS]
        row.append(lowering_cell(primitive))
        rows.append(row)
    return header, rows


def totals(header: list[str], rows: list[list[str]]) -> list[str]:
    out = []
    for i, name in enumerate(header[1:], start=1):
        counts = {}
        for row in rows:
            counts[row[i]] = counts.get(row[i], 0) + 1
        detail = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()) if k != "rule")
        out.append(f"{name:>18}: {counts.get('rule', 0):4d} rules" + (f"   ({detail})" if detail else ""))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)
    header, rows = table()
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for row in rows:
            print("| " + " | ".join(row) + " |")
        print()
        print(f"{len(rows)} primitives.\n")
        print("```")
        print("\n".join(totals(header, rows)))
        print("```")
    else:
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        for row in [header, *rows]:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
        print(f"\n{len(rows)} primitives")
        print("\n".join(totals(header, rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
