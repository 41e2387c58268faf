"""Shape manipulation against NumPy: reshape / ravel / squeeze /
expand_dims / transpose / moveaxis / swapaxes / rollaxis, the atleast_*
family, broadcasting (broadcast_shapes / broadcast_to / broadcast_arrays),
joining and splitting (concatenate, stack and its h/v/d/column variants,
block, split / array_split / h/v/dsplit, unstack), tile / repeat (with
total_repeat_length) / resize / append / insert / delete / trim_zeros,
flip / roll / rot90, and pad in every mode; JAX's errors; a hypothesis
layer over shapes.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import check_close
from hypothesis import given, settings
from hypothesis import strategies as st

import pyjax
import pyjax.numpy as jnp

X = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)


@pytest.mark.parametrize("shape,order", [((6, 4), "C"), ((4, -1), "C"), ((24,), "F"), ((2, 12), "F"), (-1, "C")])
def test_reshape_and_ravel(shape, order):
    check_close(jnp.reshape(X, shape, order=order), np.reshape(X, shape, order=order))
    check_close(jnp.asarray(X).reshape(shape, order=order), X.reshape(shape, order=order))
    check_close(jnp.ravel(X, order=order), np.ravel(X, order=order))


def test_reshape_errors():
    x = jnp.asarray(X)
    with pytest.raises(TypeError, match=r"cannot reshape array of shape \(2, 3, 4\) \(size 24\) into shape \(5, 5\)"):
        jnp.reshape(x, (5, 5))
    with pytest.raises(TypeError, match=r"can only specify one unknown axis size with a `-1` value, got \(-1, -1\)"):
        jnp.reshape(x, (-1, -1))
    with pytest.raises(TypeError, match=r"the product of specified axis sizes \(5\) does not evenly divide 24"):
        x.reshape(-1, 5)
    with pytest.raises(NotImplementedError, match="np.reshape order=A is not implemented."):
        jnp.reshape(x, (24,), order="A")
    # As in JAX, a NumPy input is reshaped by its own method (and stays NumPy).
    assert type(jnp.reshape(X, (6, 4))) is np.ndarray
    with pytest.raises(TypeError, match="reshape requires ndarray or scalar arguments"):
        jnp.reshape([1, 2], (2,))


def test_axis_manipulation():
    check_close(jnp.transpose(X), np.transpose(X))
    check_close(jnp.transpose(X, (1, 0, 2)), np.transpose(X, (1, 0, 2)))
    check_close(jnp.permute_dims(X, (2, 0, 1)), np.permute_dims(X, (2, 0, 1)))
    check_close(jnp.matrix_transpose(X), np.matrix_transpose(X))
    check_close(jnp.asarray(X).T, X.T)
    check_close(jnp.asarray(X).mT, X.transpose(0, 2, 1))
    check_close(jnp.moveaxis(X, 0, -1), np.moveaxis(X, 0, -1))
    check_close(jnp.moveaxis(X, (0, 1), (2, 0)), np.moveaxis(X, (0, 1), (2, 0)))
    check_close(jnp.swapaxes(X, 0, 2), np.swapaxes(X, 0, 2))
    check_close(jnp.rollaxis(X, 2, 1), np.rollaxis(X, 2, 1))
    check_close(jnp.expand_dims(X, (0, -1)), np.expand_dims(X, (0, -1)))
    y = X.reshape(1, 2, 1, 12)
    check_close(jnp.squeeze(y), np.squeeze(y))
    check_close(jnp.squeeze(y, axis=2), np.squeeze(y, axis=2))
    with pytest.raises(ValueError, match="cannot select an axis to squeeze out which has size not equal to one, "
                       r"got shape=\(1, 2, 1, 12\) and dimensions=\(1,\)"):
        jnp.squeeze(y, axis=1)
    with pytest.raises(TypeError, match=r"transpose permutation isn't a permutation of operand dimensions, got "
                       r"permutation \(1, 0, 0, 2\) for operand shape \(2, 3, 4\)."):
        jnp.moveaxis(X, (0, 0), (1, 2))


def test_atleast():
    for name in ("atleast_1d", "atleast_2d", "atleast_3d"):
        for value in (np.float32(1.0), np.arange(3.0, dtype=np.float32), np.ones((2, 2), np.float32)):
            check_close(getattr(jnp, name)(value), getattr(np, name)(value))
        got = getattr(jnp, name)(np.float32(1.0), np.ones(2, np.float32))
        want = getattr(np, name)(np.float32(1.0), np.ones(2, np.float32))
        for g, w in zip(got, want, strict=True):
            check_close(g, w)


def test_broadcasting():
    assert jnp.broadcast_shapes((3, 1), (1, 4), ()) == (3, 4)
    check_close(jnp.broadcast_to(np.arange(3, dtype=np.int32), (2, 3)), np.broadcast_to(np.arange(3, dtype=np.int32), (2, 3)))
    got = jnp.broadcast_arrays(np.ones((3, 1), np.float32), np.zeros(4, np.float32))
    for g, w in zip(got, np.broadcast_arrays(np.ones((3, 1), np.float32), np.zeros(4, np.float32)), strict=True):
        check_close(g, w)
    with pytest.raises(ValueError, match=r"Incompatible shapes for broadcasting: shapes=\[\(3,\), \(4,\)\]"):
        jnp.broadcast_shapes((3,), (4,))
    with pytest.raises(ValueError, match=r"Cannot broadcast to shape with fewer dimensions: arr_shape=\(2, 3\) "
                       r"shape=\(3,\)"):
        jnp.broadcast_to(np.ones((2, 3)), (3,))


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_concatenate_and_stack(axis):
    a, b = X, X + 100
    check_close(jnp.concatenate([a, b], axis=axis), np.concatenate([a, b], axis=axis))
    check_close(jnp.concat([a, b], axis=axis), np.concat([a, b], axis=axis))
    if axis is not None:
        check_close(jnp.stack([a, b], axis=axis), np.stack([a, b], axis=axis))
        for g, w in zip(jnp.unstack(a, axis=axis), np.unstack(a, axis=axis), strict=True):
            check_close(g, w)
    check_close(jnp.concatenate([np.ones(2, np.int8), np.ones(2, np.float16)]),
                np.ones(4, np.float16))  # JAX's promotion: int8 with float16 is float16


def test_stack_variants_and_block():
    a, b = np.arange(3, dtype=np.int32), np.arange(3, 6, dtype=np.int32)
    for name in ("hstack", "vstack", "dstack", "column_stack"):
        check_close(getattr(jnp, name)([a, b]), getattr(np, name)([a, b]))
        check_close(getattr(jnp, name)([X, X]), getattr(np, name)([X, X]))
    m = np.ones((2, 2), np.float32)
    check_close(jnp.block([[m, 2 * m], [3 * m, 4 * m]]), np.block([[m, 2 * m], [3 * m, 4 * m]]))
    check_close(jnp.block([a, b]), np.block([a, b]))
    with pytest.raises(ValueError, match="Need at least one array to concatenate."):
        jnp.concatenate([])
    with pytest.raises(ValueError, match=r"All input arrays must have the same shape. Got \(2,\), \(3,\)."):
        jnp.stack([np.ones(2), np.ones(3)])


@pytest.mark.parametrize("spec", [3, [1, 3], [0, 5, 5]])
def test_split(spec):
    y = np.arange(30, dtype=np.float32).reshape(6, 5)
    if isinstance(spec, int):
        for g, w in zip(jnp.split(y, spec), np.split(y, spec), strict=True):
            check_close(g, w)
    for g, w in zip(jnp.array_split(y, spec, axis=1), np.array_split(y, spec, axis=1), strict=True):
        check_close(g, w)
    for name in ("hsplit", "vsplit"):
        for g, w in zip(getattr(jnp, name)(y, [1, 2]), getattr(np, name)(y, [1, 2]), strict=True):
            check_close(g, w)
    for g, w in zip(jnp.dsplit(X, 2), np.dsplit(X, 2), strict=True):
        check_close(g, w)
    with pytest.raises(ValueError, match="array split does not result in an equal division: rest is 2"):
        jnp.split(y, 4)


@pytest.mark.parametrize("reps", [2, (2, 1), (1, 2, 1, 3)])
def test_tile(reps):
    check_close(jnp.tile(X, reps), np.tile(X, reps))


@pytest.mark.parametrize("repeats,axis", [(2, None), (3, 1), (np.array([1, 0, 2]), 1), (np.array([2]), 0)])
def test_repeat(repeats, axis):
    check_close(jnp.repeat(X, repeats, axis=axis), np.repeat(X, repeats, axis=axis))


def test_repeat_with_total_repeat_length():
    x = np.array([1, 2, 3], np.int32)
    r = np.array([2, 0, 1], np.int32)
    check_close(pyjax.jit(lambda v, n: jnp.repeat(v, n, total_repeat_length=3))(x, r), np.repeat(x, r))
    # A larger total repeats the last element; a smaller one truncates.
    check_close(jnp.repeat(x, r, total_repeat_length=5), np.array([1, 1, 3, 3, 3], np.int32))
    check_close(jnp.repeat(x, r, total_repeat_length=2), np.array([1, 1], np.int32))
    check_close(jnp.repeat(x, 2, total_repeat_length=6), np.repeat(x, 2))


def test_resize_append_insert_delete_trim():
    a = np.arange(5, dtype=np.int32)
    check_close(jnp.resize(a, (3, 4)), np.resize(a, (3, 4)))
    check_close(jnp.append(a, np.array([7, 8])), np.append(a, [7, 8]).astype(np.int32))
    check_close(jnp.append(X, X[:1], axis=0), np.append(X, X[:1], axis=0))
    check_close(jnp.insert(a, 2, 9), np.insert(a, 2, 9))
    check_close(jnp.insert(a, np.array([1, 3]), np.array([7, 8])), np.insert(a, [1, 3], [7, 8]))
    with pytest.raises(TypeError, match="insert requires ndarray or scalar arguments, got <class 'list'> at position 1."):
        jnp.insert(a, [1, 3], 0)
    check_close(jnp.insert(X, 1, 0.0, axis=2), np.insert(X, 1, 0.0, axis=2))
    check_close(jnp.delete(a, np.array([0, 3])), np.delete(a, [0, 3]))
    check_close(jnp.delete(a, slice(1, 4)), np.delete(a, slice(1, 4)))
    check_close(jnp.delete(X, 1, axis=1), np.delete(X, 1, axis=1))
    check_close(jnp.delete(a, np.array([0, 1]), assume_unique_indices=True), np.delete(a, [0, 1]))
    z = np.array([0, 0, 1, 2, 0, 3, 0, 0], np.int32)
    check_close(jnp.trim_zeros(z), np.trim_zeros(z))
    check_close(jnp.trim_zeros(z, "f"), np.trim_zeros(z, "f"))
    check_close(jnp.trim_zeros(z, "b"), np.trim_zeros(z, "b"))


def test_flip_roll_rot90():
    check_close(jnp.flip(X), np.flip(X))
    check_close(jnp.flip(X, (0, 2)), np.flip(X, (0, 2)))
    check_close(jnp.fliplr(X), np.fliplr(X))
    check_close(jnp.flipud(X), np.flipud(X))
    for shift, axis in [(1, None), (-2, 1), ((1, 2), (0, 2)), (7, 2)]:
        check_close(jnp.roll(X, shift, axis), np.roll(X, shift, axis))
    check_close(pyjax.jit(lambda x, s: jnp.roll(x, s, axis=2))(X, 3), np.roll(X, 3, axis=2))
    for k in (-1, 0, 1, 2, 3, 5):
        check_close(jnp.rot90(X, k), np.rot90(X, k))
        check_close(jnp.rot90(X, k, axes=(2, 0)), np.rot90(X, k, axes=(2, 0)))
    with pytest.raises(ValueError, match="Axes must be different"):
        jnp.rot90(X, 1, axes=(1, 1))


PAD_MODES = [("constant", {}), ("constant", {"constant_values": ((1, 2), (3, 4))}), ("edge", {}),
             ("linear_ramp", {"end_values": (5, -5)}), ("maximum", {}), ("minimum", {}), ("mean", {}),
             ("median", {}), ("reflect", {}), ("reflect", {"reflect_type": "odd"}), ("symmetric", {}),
             ("symmetric", {"reflect_type": "odd"}), ("wrap", {}), ("empty", {}),
             ("maximum", {"stat_length": 2}), ("mean", {"stat_length": ((1, 2), (2, 1))})]


@pytest.mark.parametrize("mode,kwargs", PAD_MODES, ids=lambda v: str(v))
@pytest.mark.parametrize("widths", [2, ((1, 3), (0, 2)), ((4, 5), (6, 1))])
def test_pad_modes(mode, kwargs, widths):
    y = np.array([[1.0, 4.0, 2.0], [3.0, -1.0, 5.0]], np.float32)
    out = jnp.pad(y, widths, mode=mode, **kwargs)
    want = np.pad(y, widths, mode=mode, **kwargs)
    if mode == "empty":
        assert out.shape == want.shape and out.dtype == want.dtype
        return
    check_close(out, want, rtol=1e-6)


def test_pad_callable_and_errors():
    # JAX's callable returns the padded vector (arrays are immutable).
    def pad_with(vector, width, axis, kwargs):
        vector = vector.at[:width[0]].set(-1)
        return vector.at[vector.shape[0] - width[1]:].set(-2) if width[1] else vector

    def pad_with_numpy(vector, width, axis, kwargs):
        vector[:width[0]] = -1
        if width[1]:
            vector[-width[1]:] = -2

    y = np.arange(6, dtype=np.int32).reshape(2, 3)
    check_close(jnp.pad(y, (1, 2), mode=pad_with), np.pad(y, (1, 2), mode=pad_with_numpy))
    with pytest.raises(NotImplementedError, match="Unimplemented padding mode 'bogus' for np.pad."):
        jnp.pad(y, 1, mode="bogus")
    with pytest.raises(ValueError, match="index can't contain negative values"):
        jnp.pad(y, -1)


@st.composite
def broadcastable_shapes(draw):
    shape = draw(st.lists(st.integers(1, 4), min_size=0, max_size=4))
    other = [draw(st.sampled_from([1, d])) for d in shape[draw(st.integers(0, len(shape))):]]
    return tuple(shape), tuple(other)


@settings(max_examples=100, deadline=None)
@given(broadcastable_shapes())
def test_hypothesis_broadcasting(shapes):
    a_shape, b_shape = shapes
    a = np.arange(int(np.prod(a_shape)), dtype=np.float32).reshape(a_shape)
    b = np.ones(b_shape, np.int32)
    assert jnp.broadcast_shapes(a_shape, b_shape) == np.broadcast_shapes(a_shape, b_shape)
    check_close(jnp.add(a, b), (a + b).astype(np.float32))
    check_close(jnp.broadcast_to(b, a_shape), np.broadcast_to(b, a_shape))
    check_close(jnp.where(a > 2, a, b), np.where(a > 2, a, b).astype(np.float32))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple), st.integers(0, 2**31 - 1))
def test_hypothesis_shape_ops(shape, seed):
    rng = np.random.default_rng(seed)
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    nd = len(shape)
    src, dst = int(rng.integers(-nd, nd)), int(rng.integers(-nd, nd))
    check_close(jnp.moveaxis(x, src, dst), np.moveaxis(x, src, dst))
    check_close(jnp.swapaxes(x, src, dst), np.swapaxes(x, src, dst))
    perm = tuple(rng.permutation(nd))
    check_close(jnp.transpose(x, perm), np.transpose(x, perm))
    check_close(jnp.reshape(x, (-1,) + shape[1:][::-1]), np.reshape(x, (-1,) + shape[1:][::-1]))
    axis = int(rng.integers(-nd, nd))
    check_close(jnp.concatenate([x, x * 2], axis=axis), np.concatenate([x, x * 2], axis=axis))
    check_close(jnp.stack([x, x], axis=axis), np.stack([x, x], axis=axis))
    check_close(jnp.flip(x, axis), np.flip(x, axis))
    shift = int(rng.integers(-5, 6))
    check_close(jnp.roll(x, shift, axis), np.roll(x, shift, axis))
    check_close(jnp.expand_dims(x, axis), np.expand_dims(x, axis))
