"""Pytree flatten/unflatten timings: pyjax against JAX's C++ pytrees.

    python benchmarks/bench_tree.py --impl pyjax     # time pyjax only
    python benchmarks/bench_tree.py --impl jax       # time JAX (run with JAX's python)
    python benchmarks/bench_tree.py                  # both: JAX runs in a subprocess
                                                     # of /tmp/jax-ref/bin/python, if present

Each case times flatten, unflatten (the same treedef, as jit reuses its output
treedef), unflatten of a freshly flattened treedef (flatten+unflatten minus
flatten), the hash of a fresh treedef (as a jit cache lookup does), equality
of two equal treedefs and a one-tree ``tree_map``; the best of several repeats, in
microseconds per call. Compare mode prints pyjax/JAX ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import timeit

JAX_PYTHON = "/tmp/jax-ref/bin/python"


def _cases() -> dict:
    nested = {
        f"layer{i}": {"w": float(i), "b": i + 1, "s": {"a": i, "c": (i, i)}}
        for i in range(20)
    }
    return {
        "dict100": nested,  # nested dicts and tuples, 100 leaves
        "tuple3": (1.0, 2.0, 3.0),
        "list_of_10_pairs": [(i, float(i)) for i in range(10)],
    }


def _best(fn, number: int, repeat: int = 7) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


def _time_case(tree_util, tree) -> dict:
    leaves, treedef = tree_util.tree_flatten(tree)
    other = tree_util.tree_structure(tree)
    number = 20000 if len(leaves) < 10 else 2000
    treedef.unflatten(leaves)  # warm: pyjax compiles a reused treedef

    def fresh_unflatten():
        tree_util.tree_structure(tree).unflatten(leaves)

    def refill_and_time(fn, fresh) -> float:
        best = float("inf")
        for _ in range(7):
            fresh[:] = [tree_util.tree_structure(tree) for _ in range(number)]
            best = min(best, timeit.timeit(fn, number=number) / number * 1e6)
        return best

    flatten_time = _best(lambda: tree_util.tree_flatten(tree), number)
    fresh: list = []
    return {
        "flatten": flatten_time,
        "unflatten": _best(lambda: treedef.unflatten(leaves), number),
        "unflatten_fresh": _best(fresh_unflatten, number) - flatten_time,
        "hash_fresh": refill_and_time(lambda: hash(fresh.pop()), fresh),
        "eq": _best(lambda: treedef == other, number),
        "tree_map": _best(lambda: tree_util.tree_map(lambda x: x, tree), number),
    }


def run(impl: str) -> dict:
    if impl == "jax":
        import jax.tree_util as tree_util
    else:
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
        import pyjax.tree_util as tree_util
    return {name: _time_case(tree_util, tree) for name, tree in _cases().items()}


def _print_table(title: str, results: dict) -> None:
    print(title)
    for name, times in results.items():
        cells = "  ".join(f"{k} {v:8.3f}" for k, v in times.items())
        print(f"  {name:18s} {cells}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", choices=["pyjax", "jax", "compare"], default="compare")
    parser.add_argument("--json", action="store_true", help="print results as JSON")
    args = parser.parse_args()
    if args.impl != "compare":
        results = run(args.impl)
        if args.json:
            print(json.dumps(results))
        else:
            _print_table(f"{args.impl} (microseconds per call)", results)
        return
    mine = run("pyjax")
    _print_table("pyjax (microseconds per call)", mine)
    if not os.path.exists(JAX_PYTHON):
        print(f"{JAX_PYTHON} not found: no JAX comparison")
        return
    output = subprocess.run(
        [JAX_PYTHON, os.path.abspath(__file__), "--impl", "jax", "--json"],
        check=True, capture_output=True, text=True,
    ).stdout
    reference = json.loads(output.strip().splitlines()[-1])
    _print_table("jax (microseconds per call)", reference)
    print("ratio pyjax / jax")
    for name, times in mine.items():
        cells = "  ".join(
            f"{k} {v / reference[name][k]:6.2f}x" for k, v in times.items()
            if reference[name][k] > 0)
        print(f"  {name:18s} {cells}")


if __name__ == "__main__":
    main()
