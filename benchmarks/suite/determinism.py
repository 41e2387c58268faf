"""Every call of every workload's jitted function gives the bits of the Python code.

    python3 benchmarks/suite/determinism.py [--only a,b] [--seconds 4] [--harness]

Native tiers go live after a function's first calls (a build on a background thread,
then one checked call) and are re-checked on sampled calls only, so a defect that shows
on live calls alone (a loop reading an input it had written its output over) can hide
from a benchmark's checksum, taken on the first call. This runs each workload of the
suite (and, with --harness, the jitted workloads of ../shared/bench/bench.py) as a user
would, calling its function again and again for a few seconds while its tiers build and
go live, and compares every call's outputs bit for bit with the same function compiled
with native code off. Exit status 1 when any call differs.
"""
import argparse
import importlib.util
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BENCH = os.path.join(os.path.dirname(ROOT), "shared", "bench")
sys.path.insert(0, os.path.join(ROOT, "src"))
sys.path.insert(0, BENCH)

import bench  # noqa: E402  (the shared harness: its Ctx builds the workloads' inputs)
import pyjax  # noqa: E402
from pyjax._src.backends.numpy.native import settings  # noqa: E402

# Workloads without one jitted function of fixed inputs: eager ops, tracing alone.
_SKIP = frozenset({"import", "eager_add_small", "trace_chain_1000", "unrolled_python_for",
                   "unrolled_python_for_2000", "grad_trace"})


class _Captured(Exception):
    pass


def _load(name):
    spec = importlib.util.spec_from_file_location("pyjax_suite_" + name, os.path.join(HERE, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _capture(run) -> tuple | None:
    """(function, list of argument tuples) a workload times, without timing it."""
    captured = {}
    ctx = bench.Ctx(pyjax, {}, 5.0)
    ctx.time_trace = lambda *a, **k: None

    def first_call(fn, args, budget=None, max_reps=4, wrap=None, jit_kwargs=None, key=None):
        captured["fn"], captured["sets"] = (wrap(fn) if wrap is not None else fn), [tuple(args)]
        raise _Captured

    ctx.time_first_call = first_call
    common = _load("common")

    def measure(ctx, res, fn, arg_sets, **kw):
        captured["fn"], captured["sets"] = fn, [tuple(a) for a in arg_sets]
        raise _Captured

    common.measure = measure
    try:
        run(ctx, {}, common)
    except _Captured:
        return captured["fn"], captured["sets"]
    return None


def _leaves(out) -> list:
    return [np.asarray(x) for x in pyjax.tree.leaves(out)]


def check(name: str, fn, sets: list, seconds: float) -> bool:
    # (fresh functions: jit caches compiled code by function, and the two
    # compilations differ in what they were compiled with)
    settings.ENABLED = False
    try:
        reference = [_leaves(pyjax.jit(lambda *a: fn(*a))(*args)) for args in sets]
    finally:
        settings.ENABLED = True
    jitted = pyjax.jit(lambda *a: fn(*a))
    differ, calls, start = set(), 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for k, args in enumerate(sets):
            for j, (a, b) in enumerate(zip(reference[k], _leaves(jitted(*args)), strict=True)):
                if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
                    differ.add((k, j))
            calls += 1
        time.sleep(0.002)  # (room for the build threads)
    verdict = "ok" if not differ else f"DIFFERS (input set, output leaf): {sorted(differ)}"
    print(f"{name:26s} {calls:6d} calls  {verdict}", flush=True)
    return not differ


class _Common:
    """common.py as the suite's workloads see it at registration: each run
    points it at a fresh module whose `measure` captures instead of timing."""

    def __init__(self):
        self.module = None

    def __getattr__(self, item):
        return getattr(self.module, item)


def _suite_runs(common: _Common) -> list:
    runs = []

    def workload(name, **kw):
        def deco(fn):
            def run(ctx, res, module, fn=fn):
                common.module = module
                fn(ctx, res)
            runs.append((name, run))
            return fn
        return deco

    for module in ("nets", "science"):
        _load(module).register(workload, common)
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="")
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--harness", action="store_true", help="also the shared harness's own workloads")
    args = parser.parse_args()
    only = set(filter(None, args.only.split(",")))
    runs = _suite_runs(_Common())
    if args.harness:
        runs += [(name, lambda ctx, res, module, w=w: w.fn(ctx, res))
                 for name, w in bench.WORKLOADS.items() if name not in _SKIP]
    ok = True
    for name, run in runs:
        if only and name not in only:
            continue
        captured = _capture(run)
        if captured is None:
            print(f"{name:26s} no jitted function captured", flush=True)
            continue
        ok &= check(name, *captured, args.seconds)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
