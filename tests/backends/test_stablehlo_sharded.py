"""Sharded programs lowered to StableHLO: `jit(f).lower(...).as_text()` of
programs over Explicit-sharded arrays on a 4x2 mesh against the text JAX
0.11.0 prints on 8 CPU devices (tests/golden/stablehlo_sharded.json,
recorded by tests/golden/record_stablehlo_sharded.py), compared exactly:
the `sdy.mesh`, `mhlo.num_partitions`, @main's `sdy.sharding`s and the
`sdy.sharding_constraint`s after each result JAX's rules constrain;
shard_map's `sdy.manual_computation` with the collectives in its body. And
the IREE backend's module of such a program, which carries none of it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import pyjax
import pyjax.numpy as jnp
from pyjax import lax

GOLDEN_DIR = Path(__file__).resolve().parents[1] / "golden"
sys.path.insert(0, str(GOLDEN_DIR))

import stablehlo_sharded_programs  # noqa: E402
import stablehlo_text  # noqa: E402  (tests/backends: what the golden tests share)

GOLDEN = json.loads((GOLDEN_DIR / "stablehlo_sharded.json").read_text(encoding="utf-8"))
PROGRAMS = {p.name: p for p in stablehlo_sharded_programs.PROGRAMS}

# Recorded programs whose text pyjax does not reproduce yet, with why (none now).
KNOWN_GAPS: dict[str, str] = {}


def test_recording_is_from_the_reference_on_eight_devices():
    assert GOLDEN["meta"]["jax_version"] == "0.11.0"
    assert GOLDEN["meta"]["devices"] == 8
    assert set(GOLDEN["programs"]) == set(PROGRAMS)
    assert len(PROGRAMS) - len(KNOWN_GAPS) >= 30
    assert pyjax.device_count() == 8  # (tests/conftest.py sets the device count)


@pytest.mark.parametrize("name", stablehlo_text.params(PROGRAMS, KNOWN_GAPS))
def test_text_matches_jax(name):
    stablehlo_text.check_text(PROGRAMS[name], GOLDEN["programs"][name]["text"])


def _sharded_sin_sum():
    mesh = pyjax.make_mesh((4, 2), ("x", "y"))
    P, NS = pyjax.sharding.PartitionSpec, pyjax.sharding.NamedSharding
    x = pyjax.device_put(np.arange(32, dtype=np.float32).reshape(8, 4), NS(mesh, P("x", "y")))
    return (lambda v: jnp.sin(v).sum(1)), x


def _constrained_on_auto_mesh():
    mesh = pyjax.make_mesh((4, 2), ("x", "y"), axis_types=(pyjax.sharding.AxisType.Auto,) * 2)
    s = pyjax.sharding.NamedSharding(mesh, pyjax.sharding.PartitionSpec("x"))
    return (lambda v: lax.with_sharding_constraint(v * 2, s)), pyjax.device_put(np.ones((8, 4), np.float32), s)


@pytest.mark.parametrize("make", [_sharded_sin_sum, _constrained_on_auto_mesh])
def test_iree_module_of_a_sharded_program_has_no_shardy(make):
    # IREE has no Shardy dialect: its module is lowered without the annotations.
    from pyjax._src.backends.iree.compile import module_text

    f, x = make()
    traced = pyjax.jit(f).trace(x)
    assert "sdy.sharding_constraint" in traced.lower().as_text()
    text, _ = module_text(traced.jaxpr, "f", traced.out_tree)
    assert "sdy." not in text and "mhlo.num_partitions = 1 " in text


def test_sharded_program_runs_on_iree():
    pytest.importorskip("iree.compiler")
    f, x = _sharded_sin_sum()
    assert "sdy.mesh @mesh" in pyjax.jit(f).lower(x).as_text()  # (what IREE must be spared)
    got = pyjax.jit(f, backend="iree")(x)
    np.testing.assert_allclose(np.asarray(got), np.sin(np.arange(32, dtype=np.float32).reshape(8, 4)).sum(1), atol=1e-5)


@pytest.mark.parametrize("collective,name", [(lambda x: lax.psum(x, "i"), "psum"),
                                             (lambda x: x + lax.axis_index("i"), "axis_index"),
                                             (lambda x: lax.ppermute(x, "i", [(0, 1), (1, 0)]), "ppermute")])
def test_collective_outside_shard_map_names_the_primitive(collective, name):
    # A collective over an axis no shard_map provides (here a bare axis
    # environment) has no mesh to lower over: a LoweringError, not a module.
    from pyjax._src.backends.stablehlo import LoweringError, lower_jaxpr_to_module

    closed = pyjax.make_jaxpr(collective, axis_env=[("i", 2)])(np.ones(3, np.int32))
    with pytest.raises(LoweringError, match=f"primitive '{name}'.*no mesh"):
        lower_jaxpr_to_module(closed.jaxpr, "f")


def test_rules_install_in_a_fresh_process():
    # `import pyjax` loads modules at first use; installing the rules loads
    # those that define primitives first (a first IREE compile in a fresh
    # process failed with KeyError: 'cumsum' before).
    import subprocess

    code = ("import pyjax\nfrom pyjax._src.backends.stablehlo import install, primitives_by_name\n"
            "names = primitives_by_name()\nassert 'cumsum' in names and 'custom_vjp_call' in names, sorted(names)\n"
            "install()\nprint('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
