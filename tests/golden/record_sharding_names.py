"""Records what JAX 0.11 gives for the sharding names of tests/test_sharding_names.py.

Run with the reference JAX (before any device use: 8 CPU devices): /tmp/jax-ref/bin/python tests/golden/record_sharding_names.py
(writes tests/golden/sharding_names.json). Under pyjax (`import pyjax as jax`
via --pyjax) it prints what pyjax gives instead, for comparison.
"""

import inspect
import json
import sys
import warnings
from pathlib import Path

import importlib  # noqa: E402

# Imported (by tests/test_sharding_names.py) or run with --pyjax: pyjax.
jax = importlib.import_module("pyjax" if "--pyjax" in sys.argv or __name__ != "__main__" else "jax")
if jax.device_count() != 8:
    jax.config.update("jax_num_cpu_devices", 8)

import numpy as np  # noqa: E402

jnp = importlib.import_module(f"{jax.__name__}.numpy")
cp = importlib.import_module(f"{jax.__name__}.experimental.custom_partitioning")
mu = importlib.import_module(f"{jax.__name__}.experimental.mesh_utils")
ManualAxisType, P = jax.sharding.ManualAxisType, jax.sharding.PartitionSpec


def err(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return [type(e).__name__, str(e)]
    return None


def record() -> dict:
    out: dict = {}
    for n in ["host_count", "host_id", "host_ids"]:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            v = getattr(jax, n)()
        out[n] = [v, [str(x.message) for x in w]]
    out["states"] = {n: [getattr(jax, n).name, getattr(jax, n).value]
                     for n in ["default_device", "remove_size_one_mesh_axis_from_type", "auto_pcast"]}
    x = jnp.arange(3.0)
    out["copy_to_host_async"] = [jax.copy_to_host_async(x) is x, jax.copy_to_host_async(1)]
    out["live_arrays_has_x"] = any(a is x for a in jax.live_arrays())
    out["manual_repr"] = [repr(ManualAxisType(varying={"x"})), repr(ManualAxisType(unreduced={"y"}))]
    out["manual_interned"] = ManualAxisType(varying={"x"}) is ManualAxisType(varying=frozenset({"x"}))
    out["manual_err"] = err(lambda: ManualAxisType(varying={"x"}, unreduced={"x"}))
    out["mesh_sig"] = [str(inspect.signature(mu.create_device_mesh)).replace("'", ""),
                       str(inspect.signature(mu.create_hybrid_device_mesh)).replace("'", "")]
    out["mesh"] = [[d.id for d in mu.create_device_mesh((4, 2)).ravel()], list(mu.create_device_mesh((2, 4)).shape),
                   [d.id for d in mu.create_device_mesh((2, 4), jax.devices()[::-1]).ravel()]]
    out["hybrid"] = [list(mu.create_hybrid_device_mesh((4, 2), (1, 1), process_is_granule=True).shape),
                     err(lambda: mu.create_hybrid_device_mesh((4, 2), (1, 1))),
                     err(lambda: mu.create_hybrid_device_mesh((2, 2), (2, 1), process_is_granule=True))]
    out["mesh_err"] = err(lambda: mu.create_device_mesh((3, 2)))
    out["kinds"] = sorted(mu.device_kind_handler_dict)
    out["cp_misc"] = [cp.BATCHING, repr(cp.ArrayMapping("i", "j")), repr(cp.CompoundFactor("a", "b")),
                      str(cp.SdyShardingRule((cp.ArrayMapping("i", "j"),),
                                             (cp.ArrayMapping("i", cp.CompoundFactor("j", "k")),), k=2)),
                      err(lambda: cp.ArrayMapping(1)), err(lambda: cp.CompoundFactor("a")),
                      err(lambda: cp.ArrayMapping("i", cp.BATCHING)), str(cp.custom_partitioning_p)]

    @cp.custom_partitioning
    def f(x):
        return x * 2 + 1

    f.def_partition(partition=lambda *a: None, sharding_rule="i -> i")
    out["cp_call"] = [np.asarray(f(jnp.arange(4.0))).tolist(), np.asarray(jax.jit(f)(jnp.arange(4.0))).tolist(),
                      str(f.sharding_rule if hasattr(f, "sharding_rule") else ""),
                      err(lambda: jax.grad(lambda x: f(x).sum())(jnp.arange(4.0))),
                      err(lambda: jax.vmap(f)(jnp.ones((2, 4))))]
    text = str(jax.make_jaxpr(f)(jnp.arange(4.0)))
    out["cp_jaxpr_lines"] = [ln for ln in text.splitlines() if "partition=" not in ln]

    @cp.custom_partitioning
    def g(x):
        return x

    g.def_partition(partition=lambda *a: None, infer_sharding_from_operands=lambda *a: None)
    out["cp_no_rule"] = err(lambda: g(jnp.arange(3.0)))
    mesh = jax.make_mesh((4, 2), ("x", "y"))
    with jax.set_mesh(mesh):
        a = jax.device_put(jnp.arange(8.0), P("x"))
        s = jax.smap(lambda v: v * 2 + jax.lax.axis_index("x"), in_axes=0, out_axes=0, axis_name="x")
        r = s(a)
        out["smap"] = [np.asarray(r).tolist(), str(r.sharding.spec),
                       np.asarray(jax.jit(jax.smap(lambda v: jax.lax.psum(v, "x"), in_axes=0, out_axes=None,
                                                   axis_name="x"))(a)).tolist(),
                       str(jax.smap(lambda v: v, out_axes=0, axis_name="x")(a).sharding.spec)]
    out["smap_no_mesh"] = err(lambda: jax.smap(lambda v: v, in_axes=0, out_axes=0, axis_name="x")(jnp.arange(8.0)))
    return out


if __name__ == "__main__":
    rec = record()
    if "--pyjax" in sys.argv:
        print(json.dumps(rec, indent=1))
    else:
        Path(__file__).with_name("sharding_names.json").write_text(json.dumps(rec, indent=1) + "\n")
