"""Array: immutability, conversions, printing, operators with JAX semantics."""

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp

from helpers import check_close


def test_metadata():
    x = jnp.ones((2, 3))
    assert (x.shape, x.dtype, x.ndim, x.size) == ((2, 3), np.float32, 2, 6)
    assert x.T.shape == (3, 2)
    assert str(x.aval) == "float32[2,3]"
    assert x.device.platform == "cpu" and x.sharding.device_set == {x.device}


def test_numpy_view_is_read_only():
    x = jnp.arange(3)
    view = np.asarray(x)
    assert view.dtype == np.int32
    with pytest.raises(ValueError):
        view[0] = 5
    with pytest.raises(TypeError, match="immutable"):
        x[0] = 5


def test_python_conversions_on_concrete_arrays():
    assert float(jnp.float32(2.5)) == 2.5
    assert int(jnp.asarray(7)) == 7
    assert bool(jnp.asarray(True)) is True
    assert [10, 20][jnp.asarray(1)] == 20
    assert jnp.arange(3).tolist() == [0, 1, 2]
    assert jnp.asarray(1.5).item() == 1.5
    with pytest.raises(ValueError, match="ambiguous"):
        bool(jnp.ones(3))
    with pytest.raises(TypeError, match="Only integer scalar arrays"):
        [1, 2][jnp.asarray(1.0)]


def test_block_until_ready():
    x = jnp.ones(2)
    assert x.block_until_ready() is x
    tree = {"a": x, "b": [x + 1]}
    assert jax.block_until_ready(tree) is tree


def test_operators_follow_jax_promotion():
    i = jnp.arange(3)
    f = jnp.ones(3)
    assert (i + 1).dtype == np.int32 and not jax.typeof(i + 1).weak_type
    assert (i + 1.0).dtype == np.float32 and jax.typeof(i + 1.0).weak_type
    assert (i + f).dtype == np.float32
    assert (f.astype(jnp.float16) + 1.0).dtype == np.float16
    assert (jnp.ones(2, bool) + jnp.ones(2, bool)).dtype == np.bool_
    assert (i / 2).dtype == np.float32
    assert (i // 2).dtype == np.int32 and (i // 2).tolist() == [0, 0, 1]
    assert (-7 % jnp.asarray(3)).item() == 2
    assert (i ** 2).tolist() == [0, 1, 4]
    check_close(2.0 - f, np.ones(3, np.float32))
    check_close(f @ jnp.ones((3, 2)), np.full(2, 3.0, np.float32))


def test_incompatible_shapes_error():
    with pytest.raises(TypeError, match=r"^add got incompatible shapes for broadcasting: \(3,\), \(4,\)\.$"):
        jnp.ones(3) + jnp.ones(4)


def test_repr_and_str():
    assert repr(jnp.ones(2)) == "Array([1., 1.], dtype=float32)"
    assert repr(jnp.asarray(1.0)) == "Array(1., dtype=float32, weak_type=True)"
    assert str(jnp.arange(3)) == "[0 1 2]"


def test_indexing_with_static_indices():
    x = jnp.arange(12).reshape(3, 4)
    check_close(x[1], np.arange(4, 8, dtype=np.int32))
    check_close(x[:, ::-2], np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::-2])
    check_close(x[None, 1:, 2], np.arange(12, dtype=np.int32).reshape(3, 4)[None, 1:, 2])
    check_close(x[..., -1], np.array([3, 7, 11], np.int32))
    # As in JAX, an out-of-bounds static index is clamped, not an error.
    check_close(x[3], np.arange(8, 12, dtype=np.int32))


def test_iteration_and_len():
    rows = list(jnp.arange(6).reshape(3, 2))
    assert len(rows) == 3 and rows[2].tolist() == [4, 5]
    assert len(jnp.ones((5, 2))) == 5


def test_isinstance_of_array_for_tracers():
    seen = []
    jax.make_jaxpr(lambda x: seen.append(isinstance(x, jax.Array)) or x)(1.0)
    assert seen == [True]
    assert isinstance(jnp.ones(1), jax.Array)


@pytest.mark.parametrize("fn", [lambda p: p, lambda p: (p, p * 2.0), lambda p: {"a": p}])
def test_a_jit_returning_a_deleted_input_as_it_is_raises(fn):
    # Nothing reads a forwarded input's buffer, so the jitted call checks it
    # (JAX 0.11: the same RuntimeError for every program, identity included).
    x = jnp.arange(4.0)
    x.delete()
    with pytest.raises(RuntimeError, match=r"Array has been deleted with shape=float32\[4\]\."):
        jax.jit(fn)(x)
    y = jnp.arange(4.0)  # a live argument still passes through, the same object's buffer
    assert np.asarray(jax.tree.leaves(jax.jit(fn)(y))[0]).tolist() == [0.0, 1.0, 2.0, 3.0]
