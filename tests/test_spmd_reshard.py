"""Resharding per device moves axes by all_to_all (issue 22: each device
holds only its shard; interpreters/spmd_reshard.py).

Moving a mesh axis from one dimension to another (`reshard(x, P('x', None))`
of `P(None, 'x')`, a reshape `(8@x,16@y) → 128@(x,y)`) used to all-gather
the dimension it left on every device and slice the new one out: each
device held a whole dimension. Now each device sends every peer the block
the peer will own. Every test watches the runtime's per-device buffers:
none may be larger than the operand's or the result's block (all_to_all's
result is the new block; its chunks are views of the old one).
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

import pyjax as jax
from pyjax._src import spmd_jit
from pyjax._src.backends.numpy.impls import spmd
from pyjax._src.interpreters import spmd_reshard
from pyjax.sharding import AxisType, NamedSharding, PartitionSpec as P, reshard


@pytest.fixture(autouse=True)
def strict():
    # A partitioning failure raises here rather than falling back to the global path.
    spmd_jit.STRICT[0] = True
    yield
    spmd_jit.STRICT[0] = False


def _block(shape, spec, mesh) -> int:
    out = 1
    for i, d in enumerate(shape):
        e = spec[i] if i < len(spec) else None
        names = () if e is None else (e if isinstance(e, tuple) else (e,))
        out *= d // int(np.prod([mesh.shape[n] for n in names]))
    return out


def _watched(f, *args):
    seen: list = []
    with spmd.watch_buffers(lambda device, buffer: seen.append(np.size(buffer))):
        out = f(*args)
    assert seen, "the program did not run per device"
    return out, max(seen)


def _text(f, *args) -> str:
    return f.lower(*args).compile().as_text()


MESH_2D = ((4, 2), ("x", "y"))
MOVES = [  # (src, dst): every one moves an axis between dimensions
    (P(None, "x"), P("x", None)),
    (P("x", None), P(None, "x")),
    (P("x", "y"), P("y", "x")),
    (P(("x", "y"), None), P(None, ("x", "y"))),
    (P(("x", "y"), None), P(None, ("y", "x"))),
    (P("x", "y"), P(("x", "y"), None)),
    (P("x", "y"), P(None, ("y", "x"))),
    (P("y", "x"), P("x", None)),
    (P(None, ("x", "y")), P("y", "x")),
]


@pytest.mark.parametrize("src,dst", MOVES, ids=[f"{s}->{d}" for s, d in MOVES])
def test_moving_an_axis_between_dimensions_never_gathers_a_dimension(src, dst):
    mesh = jax.make_mesh(*MESH_2D, axis_types=(AxisType.Explicit,) * 2)
    value = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
    a = jax.device_put(value, NamedSharding(mesh, src))
    f = jax.jit(lambda v: reshard(v, NamedSharding(mesh, dst)))
    out, largest = _watched(f, a)
    np.testing.assert_array_equal(np.asarray(out), value)
    assert out.sharding.spec == dst
    for shard in out.addressable_shards:
        np.testing.assert_array_equal(shard.data, value[shard.index])
    # Before: the dimension an axis left was gathered whole (e.g. 8x4=32 of a
    # P(None, 'x') → P('x', None) shard, a 8x16=128 buffer on every device).
    assert largest <= max(_block(value.shape, src, mesh), _block(value.shape, dst, mesh))
    text = _text(f, a)
    assert "all_to_all" in text
    if set(jax.tree.leaves(tuple(src))) <= set(jax.tree.leaves(tuple(dst))):  # (an axis dst drops is gathered)
        assert "all_gather" not in text


def test_explicit_reshape_merging_split_dimensions_exchanges_blocks():
    # docs/spmd.md's example: (8@x,16@y) → 128@(x,y). Each device's block of
    # the result is 16 contiguous elements; the operand is laid out as
    # (8@(x,y), 16) by an all_to_all over y, then reshaped locally.
    mesh = jax.make_mesh(*MESH_2D, axis_types=(AxisType.Explicit,) * 2)
    value = np.arange(128, dtype=np.float32).reshape(8, 16)
    a = jax.device_put(value, NamedSharding(mesh, P("x", "y")))
    f = jax.jit(lambda v: v.reshape(128, out_sharding=NamedSharding(mesh, P(("x", "y")))))
    out, largest = _watched(f, a)
    np.testing.assert_array_equal(np.asarray(out), value.reshape(128))
    assert out.aval.str_short() == "f32[128@(x,y)]"
    assert largest <= 16  # before: the y-gathered (2, 16) block, 32 elements
    text = _text(f, a)
    assert "all_to_all" in text and "all_gather" not in text


def test_eager_reshard_of_a_placed_array_moves_axes_per_device():
    mesh = jax.make_mesh(*MESH_2D, axis_types=(AxisType.Explicit,) * 2)
    value = np.linspace(-1, 1, 8 * 16, dtype=np.float32).reshape(8, 16)
    a = jax.device_put(value, NamedSharding(mesh, P("x", "y")))
    out, largest = _watched(lambda v: reshard(v, NamedSharding(mesh, P("y", "x"))), a)
    np.testing.assert_array_equal(np.asarray(out), value)
    assert out.sharding.spec == P("y", "x")
    assert largest <= 16


def test_device_put_of_a_placed_array_to_another_layout_moves_axes_per_device():
    # jax.device_put(x, NamedSharding(mesh, P('y', 'x'))) of a P('x', 'y')
    # Array: the shards exchanged (the global value was assembled before).
    mesh = jax.make_mesh(*MESH_2D, axis_types=(AxisType.Explicit,) * 2)
    value = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
    a = jax.device_put(value, NamedSharding(mesh, P("x", "y")))
    out, largest = _watched(lambda v: jax.device_put(v, NamedSharding(mesh, P("y", "x"))), a)
    np.testing.assert_array_equal(np.asarray(out), value)
    assert out.sharding.spec == P("y", "x") and out.aval.str_short() == "f32[8@y,16@x]"
    assert largest <= 16


@pytest.mark.parametrize("kinds", [(AxisType.Auto, AxisType.Auto), (AxisType.Explicit, AxisType.Auto)],
                         ids=["auto", "mixed"])
def test_device_put_on_a_mesh_with_auto_axes_moves_axes_on_its_explicit_twin(kinds):
    # The types do not name Auto axes; the shards move on the Explicit twin
    # (the same devices), the result placed and typed as before.
    mesh = jax.make_mesh(*MESH_2D, axis_types=kinds)
    value = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
    a = jax.device_put(value, NamedSharding(mesh, P("x", "y")))
    out, largest = _watched(lambda v: jax.device_put(v, NamedSharding(mesh, P("y", "x"))), a)
    assert out.sharding == NamedSharding(mesh, P("y", "x"))
    assert out.aval.str_short() == ("f32[8,16]" if kinds[0] is AxisType.Auto else "f32[8,16@x]")
    for shard in out.addressable_shards:
        np.testing.assert_array_equal(shard.data, value[shard.index])
    assert largest <= 16


def _random_spec(rng, names, rank):
    dims = [[] for _ in range(rank)]
    for n in names:
        k = rng.randrange(rank + 1)
        if k < rank:
            dims[k].insert(rng.randrange(len(dims[k]) + 1), n)
    return P(*[None if not d else (d[0] if len(d) == 1 else tuple(d)) for d in dims])


def test_random_reshards_on_three_axes_keep_values_and_blocks():
    # Any layout to any other on a (2, 2, 2) mesh: the values are the
    # operand's, and no device holds more than the larger of the two blocks.
    mesh = jax.make_mesh((2, 2, 2), ("x", "y", "z"), axis_types=(AxisType.Explicit,) * 3)
    rng = random.Random(0)
    value = np.arange(8 * 8 * 8, dtype=np.float32).reshape(8, 8, 8)
    for _ in range(12):
        src, dst = _random_spec(rng, "xyz", 3), _random_spec(rng, "xyz", 3)
        a = jax.device_put(value, NamedSharding(mesh, src))
        out, largest = _watched(jax.jit(lambda v, d=dst: reshard(v, NamedSharding(mesh, d))), a)
        np.testing.assert_array_equal(np.asarray(out), value, err_msg=f"{src} -> {dst}")
        for shard in out.addressable_shards:
            np.testing.assert_array_equal(shard.data, value[shard.index])
        assert largest <= max(_block(value.shape, src, mesh), _block(value.shape, dst, mesh)), (src, dst)


SIZES = (("x", 4), ("y", 2))


def _layout(*entries):
    return tuple(tuple(e) for e in entries)


def test_plan_slices_a_refinement_and_gathers_only_what_a_coarsening_drops():
    assert spmd_reshard.plan(_layout("x", ""), _layout("xy", ""), (8, 16), SIZES) == (("slice", 0, ("y",)),)
    assert spmd_reshard.plan(_layout("xy", ""), _layout("x", ""), (8, 16), SIZES) == (("all_gather", 0, ("y",)),)
    assert spmd_reshard.plan(_layout("", "x"), _layout("x", ""), (8, 16), SIZES) == (("all_to_all", 1, 0, ("x",)),)


def test_plan_swaps_two_dimensions_axes_without_gathering():
    moves = spmd_reshard.plan(_layout("x", "y"), _layout("y", "x"), (8, 16), SIZES)
    assert {m[0] for m in moves} == {"all_to_all"}


def test_plan_respects_divisibility():
    # 4 rows cannot hold x and y at once (4 % 8): no layout in between puts
    # both on them, and each plan ends at its target.
    for src, dst in itertools.permutations([_layout("x", "y"), _layout("y", "x"), _layout("", "xy")], 2):
        cur = [list(s) for s in src]
        for move in spmd_reshard.plan(src, dst, (4, 16), SIZES):
            if move[0] == "slice":
                cur[move[1]] += list(move[2])
            elif move[0] == "all_gather":
                cur[move[1]] = cur[move[1]][:-len(move[2])]
            else:
                cur[move[1]] = cur[move[1]][:-len(move[3])]
                cur[move[2]] += list(move[3])
            assert 4 % int(np.prod([dict(SIZES)[n] for n in cur[0]])) == 0
        assert tuple(map(tuple, cur)) == dst


SCATTERED = [  # (lhs, rhs, out_sharding, the reduce_scatters' axes): contractions summed straight into blocks
    (P(None, ("x", "y")), P(("x", "y"), None), P(("x", "y"), None), [("x", "y")]),
    (P(None, ("x", "y")), P(("x", "y"), None), P(("y", "x"), None), [("y", "x")]),
    (P("y", "x"), P("x", None), P(("y", "x"), None), [("x",)]),
]


@pytest.mark.parametrize("lhs,rhs,out,axes", SCATTERED, ids=[str(c[2]) for c in SCATTERED])
def test_a_contraction_summed_over_several_axes_is_scattered_not_psummed(lhs, rhs, out, axes):
    # Context.reduce_partial: a dimension whose new axes are all summed ones
    # gets a psum_scatter over them (each device keeps its block of the sum);
    # before, only a dimension split over exactly one summed axis did, the
    # rest a full psum (every device holding the whole partial sum) and a slice.
    from pyjax import lax
    mesh = jax.make_mesh(*MESH_2D, axis_types=(AxisType.Explicit,) * 2)
    rng = np.random.RandomState(0)
    a_, b_ = rng.randn(16, 32).astype(np.float32), rng.randn(32, 8).astype(np.float32)
    a, b = jax.device_put(a_, NamedSharding(mesh, lhs)), jax.device_put(b_, NamedSharding(mesh, rhs))
    f = jax.jit(lambda p, q: lax.dot_general(p, q, (((1,), (0,)), ((), ())), out_sharding=NamedSharding(mesh, out)))
    got, _ = _watched(f, a, b)
    np.testing.assert_allclose(np.asarray(got), a_ @ b_, rtol=1e-5, atol=1e-5)
    assert got.sharding.spec == out
    text = _text(f, a, b)
    assert "psum[" not in text
    assert [line.strip() for line in text.splitlines() if "axis_name=" in line] == [f"axis_name={n}" for n in axes]
