"""Records the public names of JAX 0.11's documented modules into api_surface.json.

Run with the reference JAX (not pyjax):

    JAX_PLATFORMS=cpu /tmp/jax-ref/bin/python tests/golden/record_api_surface.py

For each module in MODULES (the modules of JAX's API reference, docs/jax.rst
and docs/jax.experimental.rst) it writes every name of dir(module) that does
not start with an underscore, with its kind ("function": a callable that is
not a class, "class", "type" (a typing alias such as jax.typing.ArrayLike),
"module", "constant") and, for callables, the text of
inspect.signature where Python can give one (memory addresses removed, so
re-recording gives the same bytes). A module found in a module is kept only
when it is itself one of MODULES (jax.lax.linalg in jax.lax); other modules
(re-exported helpers such as jax.numpy's `np`) are not names of the API.

jax.extend.mlir's ir/dialects/passmanager are MLIR's own Python bindings and
are recorded as modules only (their thousands of names are MLIR's, not
JAX's). Names a module still serves through its deprecation table (a
DeprecationWarning, then the value) are recorded with "deprecated": true;
names whose deprecation has ended (an AttributeError) are not. `python -m pyjax.tools.api_surface` compares pyjax with this list.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
import sys
import types
from pathlib import Path

import jax

_SCIPY_STATS = [
    "bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon", "gamma",
    "gennorm", "geom", "gumbel_l", "gumbel_r", "laplace", "logistic", "multinomial",
    "multivariate_normal", "nbinom", "norm", "pareto", "poisson", "t", "truncnorm", "uniform",
    "vonmises", "wrapcauchy",
]

MODULES = [
    "jax", "jax.numpy", "jax.numpy.linalg", "jax.numpy.fft", "jax.lax", "jax.lax.linalg",
    "jax.nn", "jax.nn.initializers", "jax.random",
    "jax.scipy", "jax.scipy.cluster", "jax.scipy.cluster.vq", "jax.scipy.fft", "jax.scipy.integrate",
    "jax.scipy.interpolate", "jax.scipy.linalg", "jax.scipy.ndimage", "jax.scipy.optimize",
    "jax.scipy.signal", "jax.scipy.sparse", "jax.scipy.sparse.linalg", "jax.scipy.spatial",
    "jax.scipy.spatial.transform", "jax.scipy.special", "jax.scipy.stats",
    *[f"jax.scipy.stats.{d}" for d in _SCIPY_STATS],
    "jax.tree", "jax.tree_util", "jax.flatten_util", "jax.typing", "jax.stages", "jax.ops",
    "jax.image", "jax.dtypes", "jax.errors", "jax.debug", "jax.ad_checkpoint",
    "jax.custom_derivatives", "jax.custom_batching", "jax.dlpack", "jax.ffi", "jax.ref",
    "jax.example_libraries", "jax.example_libraries.stax", "jax.example_libraries.optimizers",
    "jax.extend", "jax.extend.backend", "jax.extend.core", "jax.extend.core.primitives",
    "jax.extend.linear_util", "jax.extend.lowering", "jax.extend.mlir", "jax.extend.random",
    "jax.extend.sharding", "jax.extend.source_info_util",
    "jax.core", "jax.interpreters", "jax.interpreters.ad", "jax.interpreters.batching",
    "jax.interpreters.partial_eval", "jax.interpreters.mlir",
    "jax.sharding", "jax.export", "jax.distributed", "jax.profiler", "jax.monitoring", "jax.test_util",
    "jax.experimental", "jax.experimental.checkify", "jax.experimental.compilation_cache",
    "jax.experimental.compilation_cache.compilation_cache", "jax.experimental.custom_partitioning",
    "jax.experimental.jet", "jax.experimental.key_reuse", "jax.experimental.mesh_utils",
    "jax.experimental.multihost_utils", "jax.experimental.pallas", "jax.experimental.random",
    "jax.experimental.serialize_executable", "jax.experimental.shard_map", "jax.experimental.sparse",
    "jax.experimental.sparse.linalg", "jax.experimental.xla_metadata",
]

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def kind_of(value) -> str:
    if isinstance(value, types.UnionType) or type(value).__module__ == "typing":
        return "type"
    if inspect.ismodule(value):
        return "module"
    if inspect.isclass(value):
        return "class"
    if callable(value):
        return "function"
    return "constant"


def signature_text(value) -> str | None:
    try:
        return _ADDRESS.sub("", str(inspect.signature(value)))
    except (TypeError, ValueError):
        return None


def public_names(module_name: str, module) -> dict[str, dict]:
    names = {}
    for name in sorted(dir(module)):
        if name.startswith("_"):
            continue
        try:
            value = getattr(module, name)
        except Exception:  # a lazily imported attribute that cannot load here
            continue
        kind = kind_of(value)
        if kind == "module" and f"{module_name}.{name}" not in MODULES:
            continue
        entry: dict = {"kind": kind}
        if kind in ("function", "class"):
            entry["signature"] = signature_text(value)
        names[name] = entry
    for name, (_, value) in getattr(module, "_deprecations", {}).items():
        if value is not None and name not in names:
            entry = {"kind": kind_of(value), "deprecated": True}
            if entry["kind"] in ("function", "class"):
                entry["signature"] = signature_text(value)
            names[name] = entry
    return dict(sorted(names.items()))


def main() -> None:
    if jax.__version__ != "0.11.0":
        sys.exit(f"record with JAX 0.11.0, not {jax.__version__}")
    modules = {}
    for module_name in MODULES:
        modules[module_name] = public_names(module_name, importlib.import_module(module_name))
    out = {"jax_version": jax.__version__, "modules": modules}
    path = Path(__file__).with_name("api_surface.json")
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    total = sum(len(v) for v in modules.values())
    print(f"{len(modules)} modules, {total} names -> {path}")


if __name__ == "__main__":
    main()
