"""jax.export with shape polymorphism (docs/export.md): JAX 0.11.0's texts
for dimension expressions, jaxprs and errors (tests/golden/export.json), one
exported MLP serving every batch size in a fresh process, pyjax's
serialization refusing foreign or corrupt payloads, and composition of a
deserialized function with jit, grad and vmap."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import export

GOLDEN = Path(__file__).parent / "golden"
sys.path.insert(0, str(GOLDEN))
import export_cases  # noqa: E402

RECORDED = json.loads((GOLDEN / "export.json").read_text())


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_matches_jax(name):
    thunk = export_cases.cases(jax, jnp, np, export)[name]
    assert export_cases.render(thunk) == RECORDED[name]


def mlp(params, x):
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return x


def _params():
    rng = np.random.default_rng(0)
    return [(rng.normal(size=(4, 8)).astype(np.float32), rng.normal(size=8).astype(np.float32)),
            (rng.normal(size=(8, 2)).astype(np.float32), rng.normal(size=2).astype(np.float32))]


def _exported():
    x = jax.ShapeDtypeStruct(export.symbolic_shape("b, 4"), jnp.float32)
    return export.export(jax.jit(mlp))(_params(), x)


FRESH = """
import sys, numpy as np
from pyjax import export
exp = export.deserialize(open(sys.argv[1], "rb").read())
data = np.load(sys.argv[2])
params = [(data["w0"], data["b0"]), (data["w1"], data["b1"])]
np.savez(sys.argv[3], **{f"y{n}": np.asarray(exp.call(params, data[f"x{n}"])) for n in (1, 7, 128)})
"""


def test_polymorphic_mlp_serialized_and_called_in_a_fresh_process(tmp_path):
    exp = _exported()
    assert str(exp.in_avals[-1]) == "float32[b,4]" and str(exp.out_avals[0]) == "float32[b,2]"
    (tmp_path / "mlp.bin").write_bytes(exp.serialize())
    params = _params()
    rng = np.random.default_rng(1)
    xs = {n: rng.normal(size=(n, 4)).astype(np.float32) for n in (1, 7, 128)}
    np.savez(tmp_path / "in.npz", w0=params[0][0], b0=params[0][1], w1=params[1][0], b1=params[1][1],
             **{f"x{n}": x for n, x in xs.items()})
    script = tmp_path / "fresh.py"
    script.write_text(FRESH)
    subprocess.run([sys.executable, str(script), str(tmp_path / "mlp.bin"), str(tmp_path / "in.npz"),
                    str(tmp_path / "out.npz")], check=True, timeout=300)
    out = np.load(tmp_path / "out.npz")
    for n, x in xs.items():
        expected = np.asarray(jax.jit(mlp)(params, x))
        assert out[f"y{n}"].shape == (n, 2)
        np.testing.assert_array_equal(out[f"y{n}"], expected)


def test_deserialized_composes_with_jit_grad_vmap():
    params = _params()
    exp = export.deserialize(_exported().serialize())
    x = np.random.default_rng(2).normal(size=(5, 4)).astype(np.float32)
    np.testing.assert_array_equal(jax.jit(exp.call)(params, x), jax.jit(mlp)(params, x))
    np.testing.assert_allclose(jax.grad(lambda x: exp.call(params, x).sum())(x),
                               jax.grad(lambda x: mlp(params, x).sum())(x), rtol=1e-6)
    batched = np.stack([x, 2 * x, 3 * x])
    np.testing.assert_allclose(jax.vmap(lambda x: exp.call(params, x))(batched),
                               jax.vmap(lambda x: mlp(params, x))(batched), rtol=1e-6)


def test_round_trip_keeps_types_and_module():
    exp = _exported()
    back = export.deserialize(exp.serialize())
    # (A deserialized function has its own symbolic scope: the avals print the same.)
    assert (back.fun_name, str(back.in_avals), str(back.out_avals)) == (exp.fun_name, str(exp.in_avals),
                                                                          str(exp.out_avals))
    assert back.in_tree == exp.in_tree and back.out_tree == exp.out_tree
    assert back.mlir_module() == exp.mlir_module()
    assert "tensor<?x4xf32>" in exp.mlir_module() and "jax.uses_shape_polymorphism = true" in exp.mlir_module()


def _rewrite(blob: bytes, body: bytes) -> bytes:
    return b"PYJAX-EXPORT 1 " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def test_foreign_or_corrupt_payloads_are_refused():
    blob = bytes(_exported().serialize())
    with pytest.raises(ValueError, match="Not a pyjax-serialized Exported"):
        export.deserialize(b"ML\xefR\rStableHLO_v1.16.1\x00 (a JAX flatbuffer)")
    corrupt = bytearray(blob)
    corrupt[-10] ^= 1
    with pytest.raises(ValueError, match="checksum does not match"):
        export.deserialize(bytes(corrupt))
    with pytest.raises(ValueError, match="version 2"):
        export.deserialize(blob.replace(b"PYJAX-EXPORT 1", b"PYJAX-EXPORT 2", 1))
    body = blob[blob.index(b"\n") + 1:]
    doc = json.loads(body)
    doc["jaxpr"]["eqns"][0]["params"]["dimension_numbers"]["ts"] = "os:system"
    with pytest.raises(ValueError, match="not one of pyjax's"):
        export.deserialize(_rewrite(blob, json.dumps(doc).encode()))


def test_serializing_code_is_refused():
    # (export refuses host callbacks, as JAX does; a payload naming code is refused when read)
    from pyjax._src.export.serialization import _Writer

    with pytest.raises(ValueError, match="never code"):
        _Writer().value(lambda v: v, "callback")


def test_one_module_serves_every_batch_size_and_checks_shapes():
    exp = _exported()
    params = _params()
    for n in (1, 7, 128):
        x = np.ones((n, 4), np.float32)
        np.testing.assert_array_equal(exp.call(params, x), jax.jit(mlp)(params, x))
    with pytest.raises(ValueError, match=r"Shape mismatch for args\[1\].shape\[1\]"):
        exp.call(params, np.ones((3, 5), np.float32))


def test_inconclusive_dimension_operation_classes():
    (b,) = export.symbolic_shape("b")
    with pytest.raises(jax.errors.InconclusiveDimensionOperation, match="'b' >= '2' is inconclusive"):
        bool(b >= 2)
    from pyjax.extend.core import InconclusiveDimensionOperation

    assert InconclusiveDimensionOperation is jax.errors.InconclusiveDimensionOperation


def test_call_takes_a_numpy_argument_in_its_canonical_dtype():
    # JAX 0.11: without x64 a float64 NumPy argument is a float32 one (as jit
    # takes it); other dtypes, and float64 under x64, are a mismatch.
    exp = export.export(jax.jit(lambda x: x * 2))(jax.ShapeDtypeStruct((3,), jnp.float32))
    out = exp.call(np.ones(3, np.float64))
    assert out.dtype == np.float32 and np.asarray(out).tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(ValueError, match=r"Dtype mismatch for args\[0\]: expected float32 and called with int32"):
        exp.call(np.ones(3, np.int32))
    with jax.enable_x64(True):
        with pytest.raises(ValueError, match="expected float32 and called with float64"):
            exp.call(np.ones(3, np.float64))
