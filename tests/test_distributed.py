"""jax.distributed's one-process face (no MPI launch needed): devices that
name their process, process-local data building a global Array, and
initialize's ordering rule. The multi-process behaviour is tests/test_mpi.py."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pyjax as jax
from pyjax.sharding import NamedSharding, PartitionSpec as P

ROOT = Path(__file__).resolve().parents[1]


def test_devices_name_their_process():
    devices = jax.devices()
    assert len(devices) == 8 and jax.process_count() == 1 and jax.process_index() == 0
    assert jax.local_devices() == devices and jax.local_device_count() == 8
    assert all(d.process_index == 0 and d.host_id == 0 for d in devices)
    assert devices[3].default_memory().process_index == 0
    assert jax.process_indices() == [0]
    assert not jax.distributed.is_initialized()


def test_process_local_data_with_one_process_is_the_global_array():
    mesh = jax.make_mesh((2, 4), ("x", "y"))
    data = np.arange(8 * 6, dtype=np.float32).reshape(8, 6)
    for spec in (P("x"), P(("x", "y")), P(None, "x"), P()):
        out = jax.make_array_from_process_local_data(NamedSharding(mesh, spec), data)
        assert out.shape == (8, 6) and out.sharding.spec == spec and out.is_fully_addressable
        np.testing.assert_array_equal(np.asarray(out), data)
        for shard in out.addressable_shards:
            np.testing.assert_array_equal(np.asarray(shard.data), data[shard.index])


def test_process_local_data_with_global_shape_and_pytrees():
    mesh = jax.make_mesh((8,), ("d",))
    s = NamedSharding(mesh, P("d"))
    tree = {"a": np.ones((8, 2), np.float32), "b": np.arange(16, dtype=np.int32).reshape(8, 2)}
    out = jax.make_array_from_process_local_data(s, tree, (8, 2))
    assert out["a"].shape == (8, 2) and out["b"].dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out["b"]), tree["b"])
    with pytest.raises(ValueError, match="differ in rank"):
        jax.make_array_from_process_local_data(s, np.ones((8, 2)), (8,))


def _run(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def test_initialize_after_the_devices_are_made_raises_jax_error():
    proc = _run("import pyjax as jax\njax.devices()\n"
                "try:\n    jax.distributed.initialize()\nexcept RuntimeError as e:\n    print('ERR', e)\n")
    assert "ERR jax.distributed.initialize() must be called before any JAX calls" in proc.stdout, proc.stderr


def test_initialize_checks_its_arguments_before_mpi():
    proc = _run("import pyjax as jax\n"
                "for kw in ({'num_processes': 0}, {'process_id': -1}, {'cluster_detection_method': 'slurm'},"
                " {'local_device_ids': [0]}):\n"
                "    try:\n        jax.distributed.initialize(**kw)\n"
                "    except (TypeError, ValueError) as e:\n        print(type(e).__name__, e)\n"
                "print(jax.distributed.is_initialized())\n")
    out = proc.stdout
    assert "TypeError num_processes must be a positive int. Got 0" in out, proc.stderr
    assert "TypeError process_id must be a nonnegative int. Got -1" in out
    assert "cluster_detection_method='slurm'" in out and "local_device_ids is not supported" in out
    assert out.strip().endswith("False")
