"""Issue 23's suite of real programs, an --extra file for ../shared/bench/bench.py.

    REF_PY=/tmp/jax-ref/bin/python IMPL_PY=python3 IMPL_PATH=src \
        python3 ../shared/bench/compare.py --extra benchmarks/suite/suite.py --only <names>

`python3 benchmarks/suite/perf_table.py` runs exactly that for every workload here, on
the NumPy backend and again on the IREE backend, and writes both tables into
docs/performance.md. Workloads are modelled on what users write
(never tuned for pyjax); each has a small budget so that one implementation's pass takes
a few minutes. The workloads live in nets.py (networks) and science.py (sampling, linear
algebra, ODEs, indexing, sorting, FFT, log densities); this file only loads them.
"""
import importlib.util
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
MODULES = ("nets", "science")


def _load(name):
    spec = importlib.util.spec_from_file_location("pyjax_suite_" + name,
                                                  os.path.join(_HERE, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def register(workload):
    common = _load("common")
    for name in MODULES:
        _load(name).register(workload, common)
