"""The issue-21/22 names that were declared absent (jax.host_count ...,
jax.sharding.ManualAxisType, jax.experimental.mesh_utils,
jax.extend.sharding, jax.experimental.custom_partitioning, jax.smap,
jax.auto_pcast): what pyjax gives against what JAX 0.11 gave
(tests/golden/record_sharding_names.py -> sharding_names.json)."""

import importlib.util
import json
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden"
EXPECTED = json.loads((GOLDEN / "sharding_names.json").read_text())


@pytest.fixture(scope="module")
def got():
    spec = importlib.util.spec_from_file_location("record_sharding_names", GOLDEN / "record_sharding_names.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return json.loads(json.dumps(mod.record()))


@pytest.mark.parametrize("key", sorted(EXPECTED))
def test_matches_jax(got, key):
    assert got[key] == EXPECTED[key]


@pytest.mark.parametrize("name", ["GSPMDSharding", "get_hlo_sharding_from_serialized_proto",
                                  "get_op_sharding_from_serialized_proto", "get_serialized_proto_from_hlo_sharding"])
def test_extend_sharding_names_raise_saying_why(name):
    from pyjax.extend import sharding

    with pytest.raises(NotImplementedError, match="no XLA and no HLO shardings"):
        getattr(sharding, name)(b"")


def test_custom_partitioning_needs_def_partition():
    import pyjax.numpy as jnp
    from pyjax.experimental.custom_partitioning import custom_partitioning

    f = custom_partitioning(lambda x: x)
    with pytest.raises(AttributeError, match="def_partition"):
        f(jnp.ones(2))
