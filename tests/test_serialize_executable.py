"""jax.experimental.serialize_executable (docs/export.md, "Serialized
executables"): a compiled function serialized and loaded back, in this
process and in a fresh one, on the NumPy backend and on IREE (whose module
is loaded without compiling again); foreign, corrupt or mismatched
payloads refused."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax.experimental import serialize_executable as se
from pyjax._src.backends import iree as iree_backend
from pyjax._src.export.serialization import SerializationError


def f(params, x):
    return {"y": jnp.tanh(x @ params["w"] + params["b"]), "norm": jnp.sum(x * x)}


def _args():
    rng = np.random.default_rng(0)
    params = {"w": rng.normal(size=(4, 3)).astype(np.float32), "b": rng.normal(size=3).astype(np.float32)}
    return params, rng.normal(size=(5, 4)).astype(np.float32)


def _check_same(got, want):
    assert set(got) == set(want)
    for k in want:
        np.testing.assert_allclose(np.asarray(got[k]), np.asarray(want[k]), rtol=1e-6, atol=1e-6)


def test_round_trip_on_the_numpy_backend():
    params, x = _args()
    compiled = jax.jit(f, donate_argnums=1).lower(params, x).compile()
    payload, in_tree, out_tree = se.serialize(compiled)
    assert payload.startswith(b"PYJAX-EXECUTABLE 1 ")
    loaded = se.deserialize_and_load(payload, in_tree, out_tree)
    assert loaded.in_tree == compiled.in_tree and loaded.out_tree == compiled.out_tree
    assert [i.donated for i in jax.tree_util.tree_leaves(loaded.args_info)] == [False, False, True]
    _check_same(loaded(params, x), f(params, x))
    with pytest.raises(TypeError, match="Argument types differ"):
        loaded(params, x[:2, :3])


def test_foreign_corrupt_or_mismatched_payloads_are_refused():
    params, x = _args()
    payload, in_tree, out_tree = se.serialize(jax.jit(f).lower(params, x).compile())
    with pytest.raises(SerializationError, match="Not a pyjax-serialized executable"):
        se.deserialize_and_load(b"\x80\x04pickle", in_tree, out_tree)
    with pytest.raises(SerializationError, match="checksum"):
        se.deserialize_and_load(payload[:-3] + b"}}}", in_tree, out_tree)
    with pytest.raises(SerializationError, match="version 7"):
        se.deserialize_and_load(payload.replace(b"EXECUTABLE 1", b"EXECUTABLE 7", 1), in_tree, out_tree)
    _, other_tree = jax.tree_util.tree_flatten(((x,), {}))
    with pytest.raises(ValueError, match="in_tree has 1 leaves but the executable takes 3 arguments"):
        se.deserialize_and_load(payload, other_tree, out_tree)
    with pytest.raises(TypeError, match="expects a jax.stages.Compiled"):
        se.serialize(jax.jit(f))


FRESH = """
import sys, numpy as np
import pyjax as jax, pyjax.numpy as jnp
from pyjax.experimental import serialize_executable as se
from pyjax._src.backends.iree import compile as iree_compile
payload = open(sys.argv[1], "rb").read()
data = np.load(sys.argv[2])
params, x = {"w": data["w"], "b": data["b"]}, data["x"]
_, in_tree = jax.tree_util.tree_flatten(((params, x), {}))
_, out_tree = jax.tree_util.tree_flatten({"y": 0, "norm": 0})
out = se.deserialize_and_load(payload, in_tree, out_tree)(params, x)
np.savez(sys.argv[3], y=np.asarray(out["y"]), norm=np.asarray(out["norm"]), kind=type(out["y"]).__name__,
         compiled=iree_compile.stats["compiled"])
"""


def _in_fresh_process(tmp_path, payload):
    params, x = _args()
    (tmp_path / "exe.bin").write_bytes(payload)
    np.savez(tmp_path / "args.npz", w=params["w"], b=params["b"], x=x)
    subprocess.run([sys.executable, "-c", FRESH, str(tmp_path / "exe.bin"), str(tmp_path / "args.npz"),
                    str(tmp_path / "out.npz")], check=True, timeout=300)
    out = np.load(tmp_path / "out.npz")
    _check_same({"y": out["y"], "norm": out["norm"]}, f(params, x))
    return str(out["kind"]), int(out["compiled"])


def test_numpy_backend_executable_loads_in_a_fresh_process(tmp_path):
    params, x = _args()
    payload, _, _ = se.serialize(jax.jit(f).lower(params, x).compile())
    assert _in_fresh_process(tmp_path, payload) == ("Array", 0)


needs_iree = pytest.mark.skipif(not iree_backend.available(), reason="IREE is not installed (pip install -e '.[iree]')")


@needs_iree
def test_iree_executable_loads_in_a_fresh_process_without_compiling(tmp_path):
    params, x = _args()
    payload, _, _ = se.serialize(jax.jit(f, backend="iree").lower(params, x).compile())
    doc = json.loads(payload[payload.index(b"\n") + 1:])
    assert doc["platform"] == "iree" and doc["saved"]["vmfb"]
    assert _in_fresh_process(tmp_path, payload) == ("IreeArray", 0)


@needs_iree
def test_iree_executable_from_another_compiler_version_compiles_again(tmp_path):
    import hashlib

    params, x = _args()
    payload, _, _ = se.serialize(jax.jit(f, backend="iree").lower(params, x).compile())
    doc = json.loads(payload[payload.index(b"\n") + 1:])
    doc["saved"]["compiler"] = "0.0.0"
    body = json.dumps(doc).encode()
    forged = b"PYJAX-EXECUTABLE 1 " + hashlib.sha256(body).hexdigest().encode() + b"\n" + body
    assert _in_fresh_process(tmp_path, forged) == ("IreeArray", 1)
