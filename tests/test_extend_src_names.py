"""The `jax._src` names libraries read, and `jax.__version_info__`
(issue 26 item 4): each behaves as JAX 0.11.0's does where a library looks."""

from __future__ import annotations

import dataclasses
import importlib
import sys
import textwrap

import numpy as np

import pyjax as jax
import pyjax.numpy as jnp
from pyjax._src import core, traceback_util, tree_util, xla_bridge
from pyjax._src.interpreters import staging


def test_version_info_is_the_jax_api_version():
    assert jax.__version_info__ == (0, 11, 0)


def test_trace_state_clean():
    seen = []
    assert core.trace_state_clean()
    jax.jit(lambda x: seen.append(core.trace_state_clean()) or x)(1.0)
    jax.grad(lambda x: seen.append(core.trace_state_clean()) or x)(1.0)
    assert seen == [False, False] and core.trace_state_clean()


def test_tree_util_registry_is_a_type_to_entry_mapping():
    registry = tree_util._registry
    assert tuple in registry and list in registry and dict in registry and type(None) in registry
    children, keys = registry[dict].to_iter({"b": 1, "a": 2})
    assert (children, keys) == ((2, 1), ("a", "b")) and registry[dict].from_iter(keys, children) == {"a": 2, "b": 1}

    class Box:
        def __init__(self, v):
            self.v = v

    assert Box not in registry
    jax.tree_util.register_pytree_node(Box, lambda b: ((b.v,), "aux"), lambda aux, ch: Box(ch[0]))
    assert Box in registry and Box in list(registry)
    entry = registry[Box]
    assert entry.to_iter(Box(3)) == ((3,), "aux") and entry.from_iter("aux", [4]).v == 4
    assert type(entry).__name__ == "_RegistryEntry" and entry._fields == ("to_iter", "from_iter")

    @dataclasses.dataclass
    class Point:
        x: float
        tag: str

    jax.tree_util.register_dataclass(Point, data_fields=["x"], meta_fields=["tag"])
    children, aux = registry[Point].to_iter(Point(1.0, "p"))
    assert (children, aux) == ([1.0], ("p",)) and registry[Point].from_iter(aux, [2.0]) == Point(2.0, "p")


def test_xla_bridge_backend_table():
    assert list(xla_bridge.backends()) == ["cpu"] and xla_bridge.get_backend().platform == "cpu"
    assert xla_bridge.get_backend("cpu") is xla_bridge.get_backend()
    assert xla_bridge.get_backend().devices() == jax.devices()
    assert xla_bridge.get_default_device() == jax.devices()[0]
    try:
        xla_bridge.get_backend("gpu")
    except RuntimeError as e:
        assert "Available backends are ['cpu']" in str(e)
    else:
        raise AssertionError("no error for the gpu backend")


def test_register_exclusion_hides_a_library_frame(tmp_path, monkeypatch):
    (tmp_path / "mylib_ext.py").write_text(textwrap.dedent("""
        import pyjax.numpy as jnp

        def lib_sin(x):
            return jnp.sin(x)
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    mylib = importlib.import_module("mylib_ext")

    def where():
        closed = jax.make_jaxpr(lambda x: mylib.lib_sin(x))(np.float32(1.0))
        return closed.eqns[0].source_info[0].co_filename

    saved = (list(traceback_util._exclude_paths), staging._excluded_paths[0])
    try:
        assert where().endswith("mylib_ext.py")
        traceback_util.register_exclusion(str(tmp_path))
        assert where() == __file__
        assert not traceback_util.include_filename(str(tmp_path / "mylib_ext.py"))
        assert traceback_util.include_filename(__file__)
    finally:
        traceback_util._exclude_paths[:] = saved[0]
        staging._excluded_paths[0] = saved[1]
        staging._INTERNAL_CODE.clear()
        sys.modules.pop("mylib_ext", None)


def test_api_boundary_returns_the_function():
    def f(x):
        return x

    assert traceback_util.api_boundary(f) is f
    assert traceback_util.api_boundary(repro_api_name="x")(f) is f
    assert float(jnp.sin(0.0)) == 0.0


def test_source_info_util_name_stacks():
    from pyjax.extend import source_info_util as siu

    assert str(siu.current_name_stack()) == ""
    with siu.extend_name_stack("outer"):
        with jax.named_scope("inner"):
            assert str(siu.current_name_stack()) == "outer/inner"
        with siu.reset_name_stack():
            assert len(siu.current_name_stack()) == 0
    with siu.set_name_stack(siu.new_name_stack("fixed")):
        assert siu.current_name_stack().wrap_name("op") == "fixed/op"
    assert siu.summarize(siu.current()).startswith(__file__)
    assert siu.summarize(siu.new_source_info()) == "unknown"
