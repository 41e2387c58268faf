"""The `jax._src` and `jax.experimental` names the ecosystem reads, under
`pyjax.install_as_jax()` (pyjax/_src/compat/): each behaves as JAX 0.11.0's
does where pyjax can (the texts below are JAX's), and says why where it
cannot. One fresh interpreter runs every case (the alias is process-wide)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

CASES = textwrap.dedent(r'''
    import json, pyjax
    pyjax.install_as_jax()
    import jax, jax.numpy as jnp, numpy as np
    out = {}

    def error(fn):
        try:
            fn()
            return None
        except Exception as e:
            return [type(e).__name__, str(e)]

    from jax.experimental import checkify
    out["check_false"] = error(lambda: checkify.check(jnp.array(False), "bad {x}", x=jnp.array(3)))
    out["check_true"] = error(lambda: checkify.check(True, "fine"))
    out["check_python_arg"] = error(lambda: checkify.check(False, "bad {}", 3.0))
    out["check_in_jit"] = error(lambda: jax.jit(lambda x: checkify.check(x > 0, "neg {}", x))(-1.0))
    out["check_nonscalar"] = error(lambda: checkify.check(jnp.array([True, False]), "m"))
    out["categories"] = [len(checkify.user_checks), len(checkify.float_checks), len(checkify.all_checks)]
    out["checkify_transform"] = error(lambda: checkify.checkify(lambda x: x))

    import jax._src.compiler as compiler
    seen = []
    inner = compiler.backend_compile_and_load
    compiler.backend_compile_and_load = lambda backend, *a: (seen.append(backend.platform), inner(backend, *a))[1]
    value = float(jax.jit(lambda v: v * 13.0 - 1.0)(jnp.float32(2.0)))
    compiler.backend_compile_and_load = inner
    jax.jit(lambda v: v * 17.0)(jnp.float32(2.0))
    out["compiles_seen"] = [value, seen[:1], len(seen) >= 1]

    out["pmap_psum"] = jax.pmap(lambda x: jax.lax.psum(x, "i"), axis_name="i")(jnp.ones((1, 2))).tolist()
    out["pmap_static"] = jax.pmap(lambda x, n: x * n, static_broadcasted_argnums=(1,),
                                  in_axes=(0, None))(jnp.ones((1, 2)), 3).tolist()
    n = jax.device_count()
    out["pmap_too_big"] = [n] + error(lambda: jax.pmap(lambda x: x)(jnp.ones((n + 1, 2))))

    from jax.experimental import io_callback
    calls = []
    io_callback(lambda x: calls.append(float(x)), None, jnp.float32(1.5))
    r = jax.jit(lambda x: io_callback(lambda v: np.float32(v + 1), jax.ShapeDtypeStruct((), jnp.float32), x))(2.0)
    out["io_callback"] = [calls, float(r)]

    from jax.experimental.layout import Format, Layout
    out["layout"] = [repr(Layout((1, 0))), Layout((1, 0)) == Layout((1, 0)), repr(Format()),
                     error(lambda: Format(Layout((0,))))[0]]

    out["backends"] = sorted(jax._src.xla_bridge._backends)
    seen_clean = []
    jax.jit(lambda x: (seen_clean.append(jax._src.core.trace_state_clean()), x)[1])(1.0)
    out["trace_state_clean"] = [jax._src.core.trace_state_clean(), seen_clean]
    from jax._src.tree_util import _registry
    @jax.tree_util.register_pytree_node_class
    class Pair:
        def __init__(self, a, b): self.a, self.b = a, b
        def tree_flatten(self): return (self.a, self.b), "aux"
        @classmethod
        def tree_unflatten(cls, aux, children): return cls(*children)
    children, aux = _registry[Pair].to_iter(Pair(1, 2))
    out["registry"] = [tuple in _registry, dict in _registry, Pair in _registry, int in _registry,
                       list(children), aux, _registry[Pair].from_iter(aux, [3, 4]).b]

    from jax.experimental import hijax
    from jax._src.state.types import AbstractRef
    out["hijax_bind"] = error(lambda: hijax.HiPrimitive("p").bind(1))[0]
    out["no_refs"] = isinstance(jax.typeof(jnp.ones(2)), AbstractRef)
    out["shard_map"] = error(lambda: jax.shard_map(lambda x: x, mesh=None, in_specs=None, out_specs=None)(1))
    out["sparse"] = repr(__import__("jax.experimental.sparse", fromlist=["x"]).BCOO.fromdense(jnp.eye(2)))
    out["experimental_missing"] = error(lambda: jax.experimental.no_such_name)
    print(json.dumps(out))
''')


@pytest.fixture(scope="module")
def out():
    proc = subprocess.run([sys.executable, "-c", CASES], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_checkify_check_as_jax(out):
    assert out["check_false"] == ["JaxRuntimeError", "bad 3 (`check` failed)"]
    assert out["check_true"] is None
    assert out["check_python_arg"] == ["TypeError", "Formatting arguments to checkify.check need to be PyTrees of "
                                       "arrays, but got 3.0 of type <class 'float'>."]
    assert out["check_in_jit"] == ["ValueError", "Cannot abstractly evaluate a checkify.check which was not "
                                   "functionalized. This probably means you tried to stage (jit/scan/pmap/...) a "
                                   "`check` without functionalizing it through `checkify.checkify`."]
    assert out["check_nonscalar"][0] == "TypeError"
    assert out["categories"] == [1, 2, 4]
    assert out["checkify_transform"] is None  # the real transformation (docs/debugging.md)


def test_every_compile_goes_through_the_compiler_module(out):
    value, platforms, saw = out["compiles_seen"]
    assert value == 25.0 and platforms == ["cpu"] and saw


def test_pmap_stand_in(out):
    assert out["pmap_psum"] == [[1.0, 1.0]]
    assert out["pmap_static"] == [[3.0, 3.0]]
    n, kind, text = out["pmap_too_big"]
    # JAX 0.11's pmap is a jit of a shard_map: more elements than devices
    # fails in its squeeze on one device, in the jit's divisibility check on
    # several (texts recorded from JAX 0.11.0).
    if n == 1:
        assert [kind, text] == ["ValueError", "cannot select an axis to squeeze out which has size not equal to "
                                              "one, got shape=(2, 2) and dimensions=(0,)"]
    else:
        assert kind == "IndivisibleError" and text.startswith(
            "One of pjit arguments with pytree key path flat_args[0] was given the sharding NamedSharding(mesh="
            f"Mesh('_internal_pmap_axis_name': {n}, axis_types=(Auto,)), spec=P('_internal_pmap_axis_name',), "
            f"memory_kind=device) implies that array axis 0 is partitioned {n} times, but the dimension size is "
            f"{n + 1}")


def test_io_callback_runs_eagerly_and_under_jit(out):
    assert out["io_callback"] == [[1.5], 3.0]


def test_layout_values(out):
    assert out["layout"] == ["Layout(major_to_minor=(1, 0), tiling=None, sub_byte_element_size_in_bits=0)", True,
                             "Format(layout=None, sharding=None)", "ValueError"]


def test_private_names_libraries_read(out):
    assert out["backends"] == ["cpu"]
    assert out["trace_state_clean"] == [True, [False]]
    assert out["registry"] == [True, True, True, False, [1, 2], "aux", 4]


def test_sparse_is_the_real_package(out):
    assert out["sparse"] == "BCOO(float32[2, 2], nse=2)"  # docs/sparse.md


def test_absent_features_say_why(out):
    assert out["hijax_bind"] == "NotImplementedError" and out["no_refs"] is False
    assert out["shard_map"] == ["ValueError", "The context mesh cannot be empty. Use `jax.set_mesh(mesh)` to "
                                              "enter into a mesh context"]
    assert out["experimental_missing"] == ["AttributeError",
                                           "module 'jax.experimental' has no attribute 'no_such_name'"]
