"""`Exported.mlir_module()` in JAX 0.11's form (docs/export.md): the text
JAX prints for programs exported with symbolic shapes
(tests/golden/export_mlir.json, recorded by record_export_mlir.py), compared
exactly; the parts of that form checked on their own (the wrapper's shape
assertions, constant hoisting, dimension arguments of nested functions)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import export

GOLDEN = Path(__file__).parent / "golden"
sys.path.insert(0, str(GOLDEN))
import export_mlir_programs  # noqa: E402

RECORDED = json.loads((GOLDEN / "export_mlir.json").read_text())
PROGRAMS = export_mlir_programs.programs(jax, jnp, export)
# Programs whose text pyjax does not yet produce as JAX does (docs/export.md, "Not yet as JAX").
NOT_YET = {
    "dim_expr_input": "a variable solved from `2*b + 1` needs JAX's divmod functions in @main",
    **{name: "in progress" for name in ["arange", "consistency_check", "dim_as_value_array", "dim_as_value_mul",
                                        "dim_expr_arange", "dim_expr_concat", "index_first", "mean", "reshape_split",
                                        "slice_static_axis", "slice_symbolic_axis", "two_vars_broadcast", "where"]},
}


def test_recording_is_from_the_reference_and_complete():
    assert RECORDED["meta"]["jax_version"] == "0.11.0" and not RECORDED["meta"]["x64"]
    assert sorted(RECORDED["programs"]) == sorted(PROGRAMS)


@pytest.mark.parametrize("name", sorted(set(PROGRAMS) - set(NOT_YET)))
def test_text_matches_jax(name):
    fun, specs = PROGRAMS[name]
    assert export.export(jax.jit(fun))(*specs).mlir_module() == RECORDED["programs"][name]


def test_not_yet_is_a_clear_error():
    fun, specs = PROGRAMS["dim_expr_input"]
    with pytest.raises(NotImplementedError, match=r"\['b'\] appear only inside expressions"):
        export.export(jax.jit(fun))(*specs).mlir_module()


def _spec(text):
    return jax.ShapeDtypeStruct(export.symbolic_shape(text), jnp.float32)


def test_wrapper_computes_and_checks_each_variable():
    a, b = export.symbolic_shape("a, b")
    specs = [jax.ShapeDtypeStruct((a, b), jnp.float32), jax.ShapeDtypeStruct((b, 3), jnp.float32)]
    text = export.export(jax.jit(lambda x, y: x @ y))(*specs).mlir_module()
    main = text.split("func.func private")[0]
    assert main.count("stablehlo.get_dimension_size") == 3  # every symbolic dimension of every argument
    assert main.count("@shape_assertion") == 3  # a >= 1, b >= 1, args[1].shape[0] == b
    assert "Found inconsistency between dimension size args[1].shape[0] (= {0}) and the specification 'b'" in main
    assert "call @_wrapped_jax_export_main(%0, %1, %arg0, %arg1)" in main


def test_constants_are_deduplicated_and_hoisted():
    text = export.export(jax.jit(lambda x: (x + 2.0) * 2.0 - 1.0))(
        jax.ShapeDtypeStruct((3,), jnp.float32)).mlir_module()
    body = text.splitlines()[2:]
    assert [line.split("=")[0].strip() for line in body[:2]] == ["%cst", "%cst_0"]
    assert "dense<1.000000e+00>" in body[0] and "dense<2.000000e+00>" in body[1]
    assert text.count("stablehlo.constant") == 2


def test_nested_functions_take_the_dimension_variables():
    @jax.jit
    def triple(x):
        return x * 3.0

    text = export.export(jax.jit(lambda x: triple(x) + 1.0))(_spec("b, 4")).mlir_module()
    assert 'func.func private @triple(%arg0: tensor<i32> {jax.global_constant = "b"}, %arg1: tensor<?x4xf32>)' in text
    assert "call @triple(%arg0, %arg1)" in text


def test_symbolic_shape_outside_export_is_a_clear_error():
    from pyjax._src.backends.stablehlo import dynamic

    with pytest.raises(NotImplementedError, match="outside an exported shape-polymorphic module"):
        dynamic.eval_dims(None, export.symbolic_shape("b"))


def test_static_export_has_no_wrapper():
    text = export.export(jax.jit(jnp.sin))(jax.ShapeDtypeStruct((3,), jnp.float32)).mlir_module()
    assert "jax.uses_shape_polymorphism = false" in text and "_wrapped_jax_export_main" not in text
    np.testing.assert_equal(text.count("func.func"), 1)
