"""lax.ragged_all_to_all with axis_index_groups: the jaxprs and errors of
JAX 0.11.0 (tests/golden/ragged_groups.json, recorded by
tests/golden/record_ragged_groups.py from cases_ragged_groups.py), and
values against the semantics JAX documents (XLA:CPU cannot run the
exchange): within each group, slice k of a device's operand goes to member
`k // (K / group size)` of that group, at the sender's `output_offsets[k]`."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

import case_set  # noqa: E402

CASES = case_set.load("ragged_groups")


namespace, test_recording_is_current, test_case_matches_jax = case_set.standard_tests(CASES)


import pyjax as jax  # noqa: E402
from pyjax import lax  # noqa: E402
from pyjax.sharding import Mesh, PartitionSpec as P  # noqa: E402


def _oracle(groups, ops, outs, in_off, send, out_off):
    results = [o.copy() for o in outs]
    for group in groups:
        per = len(send[group[0]]) // len(group)
        for src in group:
            for k in range(len(send[src])):
                n, start, at = int(send[src][k]), int(in_off[src][k]), int(out_off[src][k])
                results[group[k // per]][at:at + n] = ops[src][start:start + n]
    return results


@pytest.mark.parametrize("jitted", [False, True])
@pytest.mark.parametrize("groups", [[[0, 1], [2, 3]], [[0, 2], [1, 3]], [[3, 1], [0, 2]], [[0, 1, 2, 3]]])
def test_exchanges_within_each_group(jitted, groups):
    mesh = Mesh(jax.devices()[:4], ("x",))
    rng = np.random.default_rng(len(groups) * 10 + groups[0][0])
    g, rows, out_rows = len(groups[0]), 6, 8
    per = 2  # slices per destination
    k = g * per
    ops = [rng.standard_normal((rows, 2)).astype(np.float32) for _ in range(4)]
    outs = [np.full((out_rows, 2), -1.0, np.float32) for _ in range(4)]
    send = [rng.integers(0, 2, k).astype(np.int32) for _ in range(4)]
    in_off = [np.concatenate([[0], np.cumsum(s)[:-1]]).astype(np.int32) for s in send]
    # Each sender writes its slices at disjoint places: row 2 * (its place in its group) + slot.
    place = {d: i for grp in groups for i, d in enumerate(grp)}
    out_off = [np.array([2 * place[d] + (j % per) * 0 for j in range(k)], np.int32) for d in range(4)]
    recv = [np.zeros(k, np.int32) for _ in range(4)]  # (not read by the exchange)

    f = jax.shard_map(lambda *xs: lax.ragged_all_to_all(*xs, axis_name="x", axis_index_groups=groups),
                      mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    arrays = [np.concatenate(t) for t in (ops, outs, in_off, send, out_off, recv)]
    got = np.asarray((jax.jit(f) if jitted else f)(*arrays))
    want = np.concatenate(_oracle(groups, ops, outs, in_off, send, out_off))
    np.testing.assert_array_equal(got, want)
    assert not np.array_equal(got, np.concatenate(outs))  # (something was received)


def test_a_device_in_no_group_keeps_its_output():
    # (JAX lowers groups not covering the axis; their behaviour is undefined there.)
    mesh = Mesh(jax.devices()[:4], ("x",))
    ops = np.arange(8.0, dtype=np.float32)  # two rows per device
    outs = np.full(8, -1.0, np.float32)
    io = np.tile(np.array([0, 1], np.int32), 4)  # row 0 to member 0, row 1 to member 1
    ss = np.ones(8, np.int32)
    oo = np.repeat(np.array([0, 1, 0, 1], np.int32), 2)  # at the sender's place in its group
    f = jax.shard_map(lambda *xs: lax.ragged_all_to_all(*xs, axis_name="x", axis_index_groups=[[0, 1]]),
                      mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    got = np.asarray(f(ops, outs, io, ss, oo, ss))
    np.testing.assert_array_equal(got, [0, 2, 1, 3, -1, -1, -1, -1])
