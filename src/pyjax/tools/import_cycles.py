"""The import graph of pyjax._src and its cycles.

    python -m pyjax.tools.import_cycles          # cycles among module-level imports
    python -m pyjax.tools.import_cycles --all    # function-level (lazy) imports too

A module's edges are the pyjax._src modules it imports, plus the packages
above each of them (importing `a.b.c` runs `a/b/__init__.py` first). A cycle
is a strongly connected component of more than one module; each is printed
with its size and members, largest first. Module-level imports are what
runs at import time; `--all` adds the imports written inside functions, the
dependencies a reader has to follow even where no import-time cycle exists.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "_src"
PREFIX = "pyjax._src"


def module_names(src: Path = SRC) -> dict[str, Path]:
    """Dotted name -> file, for every module and package under `src`."""
    names = {}
    for path in sorted(src.rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join([PREFIX, *parts])] = path
    return names


def _top_level_nodes(tree: ast.Module):
    # Module-level statements, looking inside if/try/with blocks but not into
    # functions or classes' methods (their imports run only when called).
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt) and not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                stack.append(child)
            elif isinstance(child, ast.ClassDef):
                stack.append(child)


def _imported(node, modules: dict) -> set[str]:
    found = set()
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        if node.module in modules:
            found.add(node.module)
        for alias in node.names:
            full = f"{node.module}.{alias.name}"
            if full in modules:
                found.add(full)
    elif isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name in modules:
                found.add(alias.name)
    return found


def _with_parents(name: str, modules: dict) -> set[str]:
    out, parts = set(), name.split(".")
    for i in range(len(PREFIX.split(".")) + 1, len(parts) + 1):
        prefix = ".".join(parts[:i])
        if prefix in modules:
            out.add(prefix)
    return out


def import_graph(lazy: bool = False, src: Path = SRC) -> dict[str, set[str]]:
    """module -> the pyjax._src modules it imports (at import time, or with
    `lazy` also inside functions)."""
    modules = module_names(src)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        nodes = ast.walk(tree) if lazy else _top_level_nodes(tree)
        edges: set[str] = set()
        for node in nodes:
            for target in _imported(node, modules):
                edges |= _with_parents(target, modules)
        edges.discard(name)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module, largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = [0]

    def visit(root: str) -> None:
        # Tarjan's algorithm, iterative (the graph is deep enough to matter).
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return sorted(found, key=lambda c: (-len(c), c))


def report(lazy: bool = False) -> str:
    """The cycles of the import graph as text."""
    found = cycles(import_graph(lazy))
    kind = "module-level and function-level" if lazy else "module-level"
    lines = [f"{len(found)} import cycle(s) among {kind} imports of {PREFIX}"]
    for component in found:
        lines.append(f"  {len(component)} modules: " + ", ".join(m[len(PREFIX) + 1:] for m in component))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="count imports inside functions too")
    args = parser.parse_args(argv)
    print(report(args.all))
    return 0


if __name__ == "__main__":
    sys.exit(main())
