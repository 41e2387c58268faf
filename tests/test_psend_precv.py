"""lax.psend / lax.precv: pinned to JAX 0.11.0's recorded jaxprs, effects and
errors (tests/golden/psend_precv.json, recorded by
tests/golden/record_psend_precv.py from cases_psend_precv.py), and run per
device where JAX 0.11 on CPU refuses (`NotImplementedError: psend is
currently only implemented on GPU`): a precv receives what the matching
psend sent, zeros where no pair names the device."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

import case_set  # noqa: E402

CASES = case_set.load("psend_precv")
# Where pyjax runs what JAX 0.11 cannot run on CPU (tested below instead).
RUNS_IN_PYJAX = {"jit_on_cpu", "jit_recv_only_cpu", "lower_on_cpu"}


@pytest.fixture(scope="module")
def namespace():
    return case_set.pyjax_namespace(CASES)


def test_recording_is_current():
    case_set.assert_recording_is_current(CASES)


@pytest.mark.parametrize("name", sorted(set(CASES.CASES) - RUNS_IN_PYJAX))
def test_case_matches_jax(namespace, name):
    case_set.assert_case_matches(CASES, namespace, name)


def test_lowering_refuses_as_jax(namespace):
    # (pyjax does not lower shard_map to StableHLO: the class is JAX's.)
    with pytest.raises(NotImplementedError):
        eval("jax.jit(smap(ring)).lower(x).as_text()", namespace)


import pyjax as jax  # noqa: E402
import pyjax.numpy as jnp  # noqa: E402
from pyjax import lax  # noqa: E402
from pyjax.sharding import Mesh, PartitionSpec as P  # noqa: E402


def _ring_oracle(x, perm, n):
    blocks = np.split(np.asarray(x), n)
    out = [np.zeros_like(b) for b in blocks]
    for src, dst in perm:
        out[dst] = blocks[src]
    return np.concatenate(out)


@pytest.mark.parametrize("jitted", [False, True])
@pytest.mark.parametrize("perm", [[(0, 1), (1, 2), (2, 3), (3, 0)], [(0, 2), (3, 1)], [(1, 0)]])
def test_runs_as_a_matched_send_and_receive(namespace, jitted, perm):
    mesh = namespace["mesh"]

    def f(x):
        token = lax.psend(x, "x", perm)
        return lax.precv(token, jax.ShapeDtypeStruct(x.shape, x.dtype), "x", perm)

    g = jax.shard_map(f, mesh=mesh, in_specs=P("x"), out_specs=P("x"), check_vma=False)
    x = jnp.arange(8.0) + 1
    got = (jax.jit(g) if jitted else g)(x)
    np.testing.assert_array_equal(np.asarray(got), _ring_oracle(x, perm, 4))


def test_receives_in_order_of_sending_through_a_loop(namespace):
    mesh, perm = namespace["mesh"], namespace["perm"]

    def body(c, _):
        first = lax.psend(c, "x", perm)
        second = lax.psend(c * 10, "x", perm)
        a = lax.precv(first, jax.ShapeDtypeStruct(c.shape, c.dtype), "x", perm)
        b = lax.precv(second, jax.ShapeDtypeStruct(c.shape, c.dtype), "x", perm)
        return a + b, None

    g = jax.shard_map(lambda x: lax.scan(body, x, None, length=3)[0], mesh=mesh, in_specs=P("x"),
                      out_specs=P("x"), check_vma=False)
    x = jnp.arange(8.0)
    want = np.asarray(x)
    for _ in range(3):
        want = _ring_oracle(want, perm, 4) * 11
    np.testing.assert_array_equal(np.asarray(g(x)), want)


def test_two_axes_group_by_the_named_axis():
    mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("x", "y"))
    perm = [(0, 1), (1, 0)]

    def f(x):
        return lax.precv(lax.psend(x, "x", perm), jax.ShapeDtypeStruct(x.shape, x.dtype), "x", perm)

    x = jnp.arange(16.0).reshape(4, 4)
    got = jax.shard_map(f, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"), check_vma=False)(x)
    np.testing.assert_array_equal(np.asarray(got), np.concatenate([np.asarray(x)[2:], np.asarray(x)[:2]]))


def test_receive_without_send_is_refused(namespace):
    g = jax.shard_map(lambda x: lax.precv(lax.create_token(), namespace["sds"], "x", namespace["perm"]),
                      mesh=namespace["mesh"], in_specs=P("x"), out_specs=P("x"), check_vma=False)
    with pytest.raises(ValueError, match="no psend over the same axes"):
        g(jnp.arange(8.0))


def test_mismatched_shape_and_repeated_destination_are_refused(namespace):
    mesh, perm = namespace["mesh"], namespace["perm"]
    wrong = jax.shard_map(lambda x: lax.precv(lax.psend(x, "x", perm), jax.ShapeDtypeStruct((3,), jnp.float32),
                                              "x", perm), mesh=mesh, in_specs=P("x"), out_specs=P("x"),
                          check_vma=False)
    with pytest.raises(TypeError, match=r"precv expects f32\[3\] but the matching psend sent f32\[2\]"):
        wrong(jnp.arange(8.0))
    twice = [(0, 1), (2, 1)]
    repeated = jax.shard_map(lambda x: lax.precv(lax.psend(x, "x", twice), jax.ShapeDtypeStruct((2,), jnp.float32),
                                                 "x", twice), mesh=mesh, in_specs=P("x"), out_specs=P("x"),
                             check_vma=False)
    with pytest.raises(ValueError, match=r"psend sources and destinations must be unique, got \(\(0, 1\), \(2, 1\)\)"):
        repeated(jnp.arange(8.0))


def test_lowering_a_receive_outside_shard_map_raises_jax_cpu_error(namespace):
    f = jax.jit(lambda t: lax.precv(t, namespace["sds"], "x", namespace["perm"]))
    with pytest.raises(NotImplementedError, match="^precv is currently only implemented on GPU$"):
        f.lower(lax.create_token()).as_text()
