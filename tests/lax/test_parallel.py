"""Collectives over named axes under vmap: each against a NumPy oracle on the
stacked lanes (the batch axis is the named axis), over several shapes, axes,
in_axes and tiled/untiled; nested and tuple axis names; gradients (grad of
a vmapped function against finite differences, and vmap of grad — the
collectives' transpose rules — against it); jit(vmap(...)); errors."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_close

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax.test_util import check_grads

RNG = np.random.default_rng(0)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def vmapped(f, x, in_axes=0):
    return jax.vmap(f, axis_name="i", in_axes=in_axes)(x)


def collective_names(f, *args):
    return {eqn.primitive.name for eqn in jax.make_jaxpr(f)(*args).eqns}


# ---------------------------------------------------------------------------
# NumPy oracles: `x` holds every lane's value stacked on axis 0.


def np_ppermute(x, perm):
    sources = np.zeros(x.shape[0], int)
    for src, dst in perm:
        sources[dst] = src
    return x[sources]


def np_all_gather(x, axis, tiled):
    lanes = list(x)
    gathered = np.concatenate(lanes, axis) if tiled else np.stack(lanes, axis)
    return np.stack([gathered] * len(lanes))


def np_psum_scatter(x, dim, tiled):
    total, n = x.sum(0), x.shape[0]
    if tiled:
        return np.stack(np.split(total, n, axis=dim))
    return np.stack([np.take(total, i, axis=dim) for i in range(n)])


def np_all_to_all(x, split, concat, tiled):
    n = x.shape[0]
    chunks = [np.split(lane, n, axis=split) for lane in x]  # chunks[j][i]: lane j's chunk for lane i
    if tiled:
        return np.stack([np.concatenate([chunks[j][i] for j in range(n)], concat) for i in range(n)])
    return np.stack([np.stack([np.squeeze(chunks[j][i], split) for j in range(n)], concat) for i in range(n)])


# ---------------------------------------------------------------------------
# ppermute, pshuffle, pbroadcast

PERMS = {
    "cycle": [(0, 1), (1, 2), (2, 3), (3, 0)],
    "swap_pairs": [(0, 1), (1, 0), (2, 3), (3, 2)],
    "reverse": [(0, 3), (1, 2), (2, 1), (3, 0)],
}


@pytest.mark.parametrize("perm", list(PERMS), ids=str)
@pytest.mark.parametrize("shape", [(4,), (4, 3), (4, 2, 5)])
def test_ppermute(perm, shape):
    x = rand(*shape)
    out = vmapped(lambda v: lax.ppermute(v, "i", PERMS[perm]), x)
    check_close(out, np_ppermute(x, PERMS[perm]))


def test_ppermute_in_axes_and_pytree():
    x, y = rand(3, 4), rand(4)
    out = jax.vmap(lambda a, b: lax.ppermute({"a": a, "b": b}, "i", PERMS["cycle"]), axis_name="i", in_axes=(1, 0))(x, y)
    check_close(out["a"], np_ppermute(x.T, PERMS["cycle"]))
    check_close(out["b"], np_ppermute(y, PERMS["cycle"]))


def test_ppermute_of_unbatched_value_is_unchanged():
    out = vmapped(lambda v: lax.ppermute(jnp.float32(2.0), "i", PERMS["cycle"]) + v, np.zeros(4, np.float32))
    check_close(out, np.full(4, 2.0, np.float32))


def test_ppermute_becomes_a_gather():
    f = jax.vmap(lambda v: lax.ppermute(v, "i", PERMS["cycle"]), axis_name="i")
    names = collective_names(f, rand(4, 3))
    assert "ppermute" not in names and "jit" in names  # jnp.take's jit holds the gather


@pytest.mark.parametrize("perm", [[1, 2, 0], [0, 1, 2], [2, 1, 0]])
def test_pshuffle(perm):
    x = rand(3, 2)
    check_close(vmapped(lambda v: lax.pshuffle(v, "i", perm), x), x[perm])


def test_pbroadcast_of_unbatched_value():
    out = vmapped(lambda v: lax.pbroadcast(jnp.arange(2.0), "i", 1) + v, np.zeros((4, 2), np.float32))
    check_close(out, np.tile(np.arange(2.0, dtype=np.float32), (4, 1)))


# ---------------------------------------------------------------------------
# all_gather, psum_scatter, all_to_all


@pytest.mark.parametrize("shape,axis,tiled", [
    ((4,), 0, False), ((4, 3), 0, False), ((4, 3), 1, False), ((4, 2, 3), -1, False),
    ((4, 3), 0, True), ((4, 2, 3), 1, True),
])
def test_all_gather(shape, axis, tiled):
    x = rand(*shape)
    out = vmapped(lambda v: lax.all_gather(v, "i", axis=axis, tiled=tiled), x)
    per_lane_axis = axis % (x.ndim - 1 if tiled else x.ndim)
    check_close(out, np_all_gather(x, per_lane_axis, tiled))


def test_all_gather_in_axes_1():
    x = rand(2, 4, 3)
    check_close(vmapped(lambda v: lax.all_gather(v, "i"), x, in_axes=1), np_all_gather(np.moveaxis(x, 1, 0), 0, False))


@pytest.mark.parametrize("shape,dim,tiled", [
    ((4, 4), 0, False), ((4, 3, 4), 1, False), ((4, 4, 2), 0, False),
    ((4, 8), 0, True), ((4, 3, 8), 1, True), ((4, 12, 2), -2, True),
])
def test_psum_scatter(shape, dim, tiled):
    x = rand(*shape)
    out = vmapped(lambda v: lax.psum_scatter(v, "i", scatter_dimension=dim, tiled=tiled), x)
    check_close(out, np_psum_scatter(x, dim % (x.ndim - 1), tiled), rtol=1e-5, atol=1e-5)


def test_psum_scatter_int_and_in_axes():
    x = np.arange(48, dtype=np.int32).reshape(4, 3, 4)
    out = vmapped(lambda v: lax.psum_scatter(v, "i", scatter_dimension=0), x, in_axes=2)
    check_close(out, np_psum_scatter(np.moveaxis(x, 2, 0), 0, False), dtype=np.int32)


@pytest.mark.parametrize("shape,split,concat,tiled", [
    ((4, 4, 3), 0, 0, False), ((4, 4, 3), 0, 1, False), ((4, 3, 4), 1, 0, False), ((4, 2, 4, 3), 1, 2, False),
    ((4, 4, 3), -2, -1, False), ((4, 8, 3), 0, 1, True), ((4, 3, 8), 1, 0, True), ((4, 8, 2), 0, 0, True),
])
def test_all_to_all(shape, split, concat, tiled):
    x = rand(*shape)
    out = vmapped(lambda v: lax.all_to_all(v, "i", split, concat, tiled=tiled), x)
    ndim = x.ndim - 1
    check_close(out, np_all_to_all(x, split % ndim, concat % ndim, tiled))


def test_pswapaxes_is_all_to_all_on_one_axis():
    x = rand(3, 2, 3)
    check_close(vmapped(lambda v: lax.pswapaxes(v, "i", 1), x), np_all_to_all(x, 1, 1, False))


def test_collectives_are_batched_away():
    x = rand(4, 4, 3)
    for f in (lambda v: lax.all_gather(v, "i"), lambda v: lax.psum_scatter(v, "i"),
              lambda v: lax.all_to_all(v, "i", 0, 1)):
        names = collective_names(jax.vmap(f, axis_name="i"), x)
        assert not names & {"all_gather", "reduce_scatter", "all_to_all"}, names


# ---------------------------------------------------------------------------
# Nested vmaps: the outer name, the inner name, tuples of names


def nested(f, x):
    return jax.vmap(jax.vmap(f, axis_name="j"), axis_name="i")(x)


def test_axis_index_of_tuple_is_row_major():
    out = nested(lambda v: lax.axis_index(("i", "j")), np.zeros((2, 3), np.float32))
    check_close(out, np.arange(6, dtype=np.int32).reshape(2, 3))
    out = nested(lambda v: lax.axis_index(("j", "i")), np.zeros((2, 3), np.float32))
    check_close(out, np.arange(6, dtype=np.int32).reshape(3, 2).T)


@pytest.mark.parametrize("names,axes", [("i", (0,)), ("j", (1,)), (("i", "j"), (0, 1)), (("j", "i"), (0, 1))])
def test_psum_pmax_nested(names, axes):
    x = rand(2, 3, 4)
    check_close(nested(lambda v: lax.psum(v, names), x), np.broadcast_to(x.sum(axes, keepdims=True), x.shape), rtol=1e-5)
    check_close(nested(lambda v: lax.pmax(v, names), x), np.broadcast_to(x.max(axes, keepdims=True), x.shape))
    assert nested(lambda v: v * 0 + lax.axis_size(names), x)[0, 0, 0] == np.prod([x.shape[a] for a in axes])


def test_collectives_over_the_outer_name():
    x = rand(2, 3, 2, 5)
    perm = [(0, 1), (1, 0)]
    check_close(nested(lambda v: lax.ppermute(v, "i", perm), x), x[::-1])
    gathered = nested(lambda v: lax.all_gather(v, "i", axis=1), x)
    check_close(gathered, np.broadcast_to(np.moveaxis(x, 0, 2)[None], (2, 3, 2, 2, 5)))
    scattered = nested(lambda v: lax.psum_scatter(v, "i"), x)
    check_close(scattered, np.moveaxis(x.sum(0), 1, 0), rtol=1e-5)
    swapped = nested(lambda v: lax.all_to_all(v, "i", 0, 1), x)
    check_close(swapped, np.stack([np_all_to_all(x[:, j], 0, 1, False) for j in range(3)], 1))


def test_all_to_all_over_a_tuple_of_names():
    # The combined axis ('i', 'j') has 6 lanes, row-major: lane (a, b) is 3a + b.
    x = rand(2, 3, 6, 5)
    out = nested(lambda v: lax.all_to_all(v, ("i", "j"), 0, 0), x)
    flat = np_all_to_all(x.reshape(6, 6, 5), 0, 0, False).reshape(2, 3, 6, 5)
    check_close(out, flat)


# ---------------------------------------------------------------------------
# Gradients


GRAD_CASES = {
    "ppermute": lambda v: lax.ppermute(v, "i", PERMS["cycle"]) * jnp.sin(v),
    "psum": lambda v: lax.psum(v, "i") * v,
    "pmean": lambda v: jnp.cos(lax.pmean(v, "i")) * v,
    "all_gather": lambda v: lax.all_gather(v, "i", axis=1) ** 2 * (lax.axis_index("i") + 1.0),
    "all_gather_tiled": lambda v: jnp.sin(lax.all_gather(v, "i", tiled=True)) * v[0],
    "psum_scatter": lambda v: lax.psum_scatter(v, "i") ** 2,
    "psum_scatter_tiled": lambda v: jnp.sin(lax.psum_scatter(v, "i", tiled=True)),
    "all_to_all": lambda v: lax.all_to_all(v, "i", 0, 0) ** 2 * (lax.axis_index("i") + 1.0),
    "all_to_all_tiled": lambda v: jnp.tanh(lax.all_to_all(v, "i", 0, 1, tiled=True)),
}


def _lane_loss(case):
    return lambda v: jnp.sum(GRAD_CASES[case](v))


@pytest.mark.parametrize("case", list(GRAD_CASES))
def test_grad_of_vmap_against_finite_differences(case):
    x = rand(4, 4, 2) * 0.5
    total = lambda x: jnp.sum(jax.vmap(_lane_loss(case), axis_name="i")(x))
    check_grads(total, (x,), order=1, modes=("fwd", "rev"), atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("case", list(GRAD_CASES))
def test_vmap_of_grad_uses_the_transpose_rules(case):
    # Per-lane gradients of a loss whose collectives transpose to their
    # adjoints are the gradient of the summed loss.
    x = rand(4, 4, 2) * 0.5
    per_lane = jax.vmap(jax.grad(_lane_loss(case)), axis_name="i")(x)
    total = jax.grad(lambda x: jnp.sum(jax.vmap(_lane_loss(case), axis_name="i")(x)))(x)
    check_close(per_lane, total, rtol=1e-4, atol=1e-5)


def test_ppermute_transpose_is_the_inverse_permutation():
    x = rand(4, 3)
    ct = rand(4, 3)
    _, pullback = jax.vjp(lambda x: jax.vmap(lambda v: lax.ppermute(v, "i", PERMS["cycle"]), axis_name="i")(x), x)
    check_close(pullback(ct)[0], np_ppermute(ct, [(d, s) for s, d in PERMS["cycle"]]))
    per_lane = jax.vmap(lambda v, c: jax.vjp(lambda u: lax.ppermute(u, "i", PERMS["cycle"]), v)[1](c)[0],
                        axis_name="i")(x, ct)
    check_close(per_lane, pullback(ct)[0])


def test_vmap_of_jvp_applies_the_collective_to_the_tangent():
    x, t = rand(4, 4, 3), rand(4, 4, 3)
    f = lambda v, tv: jax.jvp(lambda u: lax.all_to_all(u, "i", 0, 1), (v,), (tv,))
    primal, tangent = jax.vmap(f, axis_name="i")(x, t)
    check_close(primal, np_all_to_all(x, 0, 1, False))
    check_close(tangent, np_all_to_all(t, 0, 1, False))


# ---------------------------------------------------------------------------
# jit


@pytest.mark.parametrize("f", [
    lambda v: lax.ppermute(v, "i", PERMS["reverse"]),
    lambda v: lax.all_gather(v, "i", axis=1),
    lambda v: lax.psum_scatter(v, "i", scatter_dimension=0),
    lambda v: lax.all_to_all(v, "i", 0, 1),
    lambda v: v * lax.axis_index("i"),
], ids=["ppermute", "all_gather", "psum_scatter", "all_to_all", "axis_index"])
def test_jit_of_vmap_matches_eager(f):
    x = rand(4, 4, 3)
    g = jax.vmap(f, axis_name="i")
    check_close(jax.jit(g)(x), g(x), rtol=1e-6)


# ---------------------------------------------------------------------------
# Errors


def test_unbound_axis_names():
    x = jnp.ones((2, 2))
    with pytest.raises(NameError, match=r"^unbound axis name: i$"):
        lax.all_gather(x, "i")
    with pytest.raises(NameError, match=r"^unbound axis name: i$"):
        jax.make_jaxpr(lambda v: lax.psum_scatter(v, "i"))(x)
    with pytest.raises(NameError, match=r"^unbound axis name: k$"):
        jax.vmap(lambda v: lax.all_to_all(v, "k", 0, 0), axis_name="i")(jnp.ones((2, 2, 2)))
    with pytest.raises(NameError, match=r"please call ppermute under `jax.shard_map`"):
        jax.make_jaxpr(lambda v: lax.pshuffle(v, "i", [1, 0]))(x)
    with pytest.raises(NotImplementedError, match="Evaluation rule for 'ppermute' not implemented"):
        lax.ppermute(x, "i", [(0, 1)])


def test_ppermute_needs_a_full_permutation_under_vmap():
    with pytest.raises(AssertionError, match="Permutation doesn't match the axis size!"):
        vmapped(lambda v: lax.ppermute(v, "i", [(0, 1), (1, 0)]), jnp.ones(4))
    with pytest.raises(ValueError, match=r"`perm` does not represent a permutation: \[0, 0\]"):
        vmapped(lambda v: lax.pshuffle(v, "i", [0, 0]), jnp.ones(2))


def test_shape_errors():
    with pytest.raises(ValueError, match=r"but they are 4 and 3 respectively"):
        vmapped(lambda v: lax.all_to_all(v, "i", 0, 1), jnp.ones((4, 3, 2)))
    with pytest.raises(ValueError, match=r"split_axis \(6\) has to be divisible by the size of the named axis i \(4\)"):
        vmapped(lambda v: lax.all_to_all(v, "i", 0, 1, tiled=True), jnp.ones((4, 6, 2)))
    with pytest.raises(ValueError, match="axis 3 is out of bounds for array of dimension 2"):
        vmapped(lambda v: lax.all_gather(v, "i", axis=3), jnp.ones((4, 2)))
    with pytest.raises(AssertionError, match="axis size doesn't match"):
        nested(lambda v: lax.psum_scatter(v, ("i", "j")), jnp.ones((2, 3, 6)))
    with pytest.raises(NotImplementedError, match="axis_index_groups not supported in vmap"):
        vmapped(lambda v: lax.all_gather(v, "i", axis_index_groups=[[0, 1], [2, 3]]), jnp.ones((4, 2)))
