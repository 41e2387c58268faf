"""jax.experimental.pallas in interpret mode, against NumPy (tests/golden/pallas.json
holds JAX 0.11.0's own results for more kernels)."""

from __future__ import annotations

import numpy as np
import pytest

import pyjax as jax
import pyjax.numpy as jnp
from pyjax import lax
from pyjax.experimental import pallas as pl

S = jax.ShapeDtypeStruct
f32 = jnp.float32


def _add(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def _blocked_add(n: int, block: int):
    spec = pl.BlockSpec((block,), lambda i: (i,))
    return pl.pallas_call(_add, out_shape=S((n,), f32), grid=(pl.cdiv(n, block),), in_specs=[spec, spec],
                          out_specs=spec)


def test_vector_add_over_a_grid():
    x, y = np.arange(16, dtype=np.float32), np.arange(16, dtype=np.float32) * 3
    np.testing.assert_array_equal(_blocked_add(16, 4)(x, y), x + y)


def test_interpret_is_the_default_and_false_raises_jaxs_cpu_error():
    f = pl.pallas_call(_add, out_shape=S((3,), f32), interpret=False)
    assert "interpret=False" in str(jax.make_jaxpr(f)(jnp.ones(3), jnp.ones(3)))
    with pytest.raises(ValueError, match="Only interpret mode is supported on CPU backend."):
        f(jnp.ones(3), jnp.ones(3))
    assert "interpret=True" in str(jax.make_jaxpr(pl.pallas_call(_add, out_shape=S((3,), f32)))(
        jnp.ones(3), jnp.ones(3)))


def test_matmul_with_k_grid_accumulates_in_scratch():
    def mm(x_ref, y_ref, o_ref, acc_ref):
        @pl.when(pl.program_id(2) == 0)
        def _():
            acc_ref[...] = jnp.zeros_like(acc_ref)

        acc_ref[...] += x_ref[...] @ y_ref[...]

        @pl.when(pl.program_id(2) == pl.num_programs(2) - 1)
        def _():
            o_ref[...] = acc_ref[...]

    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((8, 12)).astype(np.float32), rng.standard_normal((12, 6)).astype(np.float32)
    f = pl.pallas_call(mm, out_shape=S((8, 6), f32), grid=(2, 3, 3),
                       in_specs=[pl.BlockSpec((4, 4), lambda i, j, k: (i, k)),
                                 pl.BlockSpec((4, 2), lambda i, j, k: (k, j))],
                       out_specs=pl.BlockSpec((4, 2), lambda i, j, k: (i, j)),
                       scratch_shapes=[pl.ANY((4, 2), f32)])
    np.testing.assert_allclose(f(x, y), x @ y, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(jax.jit(f)(x, y), x @ y, rtol=1e-5, atol=1e-5)


def test_ragged_edges_are_padded_and_uncovered_outputs_uninitialised():
    x = np.arange(10, dtype=np.float32)
    np.testing.assert_array_equal(_blocked_add(10, 4)(x, x), 2 * x)
    half = pl.pallas_call(lambda x_ref, o_ref: o_ref.__setitem__(..., x_ref[...]), out_shape=S((10,), f32),
                          grid=(2,), in_specs=[pl.BlockSpec((4,), lambda i: (i,))],
                          out_specs=pl.BlockSpec((4,), lambda i: (i,)))(x)
    np.testing.assert_array_equal(half[:8], x[:8])
    assert np.isnan(np.asarray(half[8:])).all()
    ints = pl.pallas_call(lambda o_ref: o_ref.__setitem__(..., jnp.ones(4, jnp.int32)),
                          out_shape=S((6,), jnp.int32), grid=(1,), out_specs=pl.BlockSpec((4,), lambda i: (i,)))()
    np.testing.assert_array_equal(ints, [1, 1, 1, 1, np.iinfo(np.int32).min, np.iinfo(np.int32).min])


def test_softmax_rows_with_squeezed_row_blocks():
    def softmax(x_ref, o_ref):
        x = x_ref[...]
        e = jnp.exp(x - jnp.max(x))
        o_ref[...] = e / jnp.sum(e)

    x = np.sin(np.arange(20, dtype=np.float32)).reshape(4, 5)
    f = pl.pallas_call(softmax, out_shape=S((4, 5), f32), grid=(4,),
                       in_specs=[pl.BlockSpec((None, 5), lambda i: (i, 0))],
                       out_specs=pl.BlockSpec((pl.squeezed, 5), lambda i: (i, 0)))
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(f(x), e / e.sum(axis=1, keepdims=True), rtol=1e-6)


def test_element_indexing_takes_element_offsets():
    x = np.arange(40, dtype=np.float32).reshape(10, 4)
    f = pl.pallas_call(lambda x_ref, o_ref: o_ref.__setitem__(..., x_ref[...]), out_shape=S((12, 4), f32),
                       grid=(3,), in_specs=[pl.BlockSpec((pl.Element(4), 4), lambda i: (i * 2, 0))],
                       out_specs=pl.BlockSpec((4, 4), lambda i: (i, 0)))
    np.testing.assert_array_equal(f(x), np.concatenate([x[0:4], x[2:6], x[4:8]]))


def test_dynamic_slices_loops_and_hints_inside_kernels():
    def k(x_ref, o_ref):
        i = pl.multiple_of(pl.program_id(0) * 2, 2)
        o_ref[...] = x_ref[pl.ds(i, 2)]

        @pl.loop(0, 2)
        def _(j):
            o_ref[pl.dslice(j, 1)] = o_ref[pl.dslice(j, 1)] * 10

    x = np.arange(6, dtype=np.float32)
    out = pl.pallas_call(k, out_shape=S((6,), f32), grid=(3,), out_specs=pl.BlockSpec((2,), lambda i: (i,)))(x)
    np.testing.assert_array_equal(out, x * 10)
    total = pl.pallas_call(
        lambda x_ref, o_ref: o_ref.__setitem__(..., jnp.full((1,), pl.loop(0, 6, step=2, init_carry=jnp.float32(0))(
            lambda i, c: c + x_ref[i]))), out_shape=S((1,), f32))(x)
    np.testing.assert_array_equal(total, [0 + 2 + 4])


def test_input_output_aliases_keep_unwritten_blocks():
    f = pl.pallas_call(lambda x_ref, o_ref: o_ref.__setitem__(..., x_ref[...] + 100), out_shape=S((8,), f32),
                       grid=(1,), in_specs=[pl.BlockSpec((4,), lambda i: (0,))],
                       out_specs=pl.BlockSpec((4,), lambda i: (1,)), input_output_aliases={0: 0})
    x = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(f(x), np.concatenate([x[:4], x[:4] + 100]))


def test_vmap_adds_a_grid_dimension_and_program_id_ignores_it():
    def k(x_ref, y_ref, o_ref):
        o_ref[...] = x_ref[...] + y_ref[...] + pl.program_id(0).astype(f32) * 100

    spec = pl.BlockSpec((2,), lambda i: (i,))
    f = pl.pallas_call(k, out_shape=S((4,), f32), grid=(2,), in_specs=[spec, spec], out_specs=spec)
    x, y = np.arange(12, dtype=np.float32).reshape(4, 3), np.arange(4, dtype=np.float32)
    want = x.T + y + np.array([0, 0, 100, 100], np.float32)
    np.testing.assert_array_equal(jax.vmap(f, in_axes=(1, None))(x, y), want)
    np.testing.assert_array_equal(jax.jit(jax.vmap(f, in_axes=(1, None)))(x, y), want)
    assert "grid=(3, 2)" in str(jax.make_jaxpr(jax.vmap(f, in_axes=(1, None)))(x, y))


def test_jaxpr_holds_the_kernel_on_block_references():
    text = str(jax.make_jaxpr(_blocked_add(8, 4))(jnp.ones(8), jnp.ones(8)))
    assert "pallas_call[" in text and "Ref<default>{f32[4]}" in text
    assert "GridMapping(grid=(2,), block_mappings=(BlockMapping(block_shape=(Blocked(block_size=4),))" in text


def test_kernel_refs_follow_the_structure_of_out_shape():
    def k(x_ref, o):
        o["a"][...] = x_ref[...] * 2
        o["b"][...] = x_ref[...] * 3

    out = pl.pallas_call(k, out_shape={"a": S((3,), f32), "b": S((3,), f32)})(jnp.arange(3.0))
    np.testing.assert_array_equal(out["b"], [0, 3, 6])


def test_run_scoped_and_helpers():
    def k(x_ref, o_ref):
        def scoped(tmp):
            tmp[...] = x_ref[...] * 3
            o_ref[...] = pl.reciprocal(tmp[...] + 1, approx=True)

        pl.run_scoped(scoped, pl.ANY((3,), f32))

    np.testing.assert_allclose(pl.pallas_call(k, out_shape=S((3,), f32))(jnp.arange(3.0)), 1 / np.array([1, 4, 7.]))
    assert (pl.cdiv(7, 2), pl.next_power_of_2(5), pl.align_to(7, 4), pl.strides_from_shape((2, 3))) == (4, 8, 8, (3, 1))
    assert str(pl.ANY) == "any" and repr(pl.no_block_spec) == "NoBlockSpec"
    assert pl.empty_like(S((2, 2), f32)).shape == (2, 2)


def test_errors():
    with pytest.raises(ValueError, match="must have the same number of dimensions"):
        pl.pallas_call(_add, out_shape=S((4,), f32), grid=(2,),
                       in_specs=[pl.BlockSpec((2, 2), lambda i: (i, 0)), None])(jnp.ones(4), jnp.ones(4))
    with pytest.raises(NotImplementedError, match="BoundedSlice"):
        pl.pallas_call(_add, out_shape=S((4,), f32), grid=(2,),
                       in_specs=[pl.BlockSpec((pl.BoundedSlice(2),), lambda i: (i,)), None])(jnp.ones(4), jnp.ones(4))
    with pytest.raises(NotImplementedError, match="pallas_call"):
        jax.grad(lambda x: pl.pallas_call(_add, out_shape=S((2,), f32))(x, x).sum())(jnp.ones(2))
