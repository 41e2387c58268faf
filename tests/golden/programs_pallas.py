"""jax.experimental.pallas kernels run in interpret mode (issue 26), recorded
from JAX 0.11.0 (``interpret=True``) in ``pallas.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py pallas
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

# Every program starts with this: `pl` from the implementation under test.
_PL = """
import importlib
pl = importlib.import_module(jax.__name__ + ".experimental.pallas")
S = jax.ShapeDtypeStruct
f32 = jnp.float32
"""


def pallas(name: str, expect: str, source: str) -> None:
    program(name, expect, _PL + source)


# -- elementwise kernels and grids
_ADD = """
def add(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]
"""
pallas("add_whole", "value", _ADD + """
result = pl.pallas_call(add, out_shape=S((8,), f32), interpret=True)(jnp.arange(8.), jnp.ones(8))
""")
pallas("add_grid_blocks", "value", _ADD + """
spec = pl.BlockSpec((4,), lambda i: (i,))
f = pl.pallas_call(add, out_shape=S((16,), f32), grid=(4,), in_specs=[spec, spec], out_specs=spec, interpret=True)
result = f(jnp.arange(16.), jnp.arange(16.) * 10)
""")
pallas("add_jaxpr", "jaxpr", _ADD + """
spec = pl.BlockSpec((4,), lambda i: (i,))
f = pl.pallas_call(add, out_shape=S((8,), f32), grid=(2,), in_specs=[spec, spec], out_specs=spec, interpret=True)
result = jax.make_jaxpr(f)(jnp.arange(8.), jnp.ones(8))
""")
pallas("add_jit", "value", _ADD + """
spec = pl.BlockSpec((2, 4), lambda i, j: (i, j))
f = pl.pallas_call(add, out_shape=S((4, 8), f32), grid=(2, 2), in_specs=[spec, spec], out_specs=spec,
                   interpret=True)
result = jax.jit(f)(jnp.arange(32.).reshape(4, 8), jnp.ones((4, 8)))
""")
pallas("program_id_2d", "value", """
def k(o_ref):
    o_ref[...] = jnp.full(o_ref.shape, pl.program_id(0) * 10 + pl.program_id(1), jnp.int32)
result = pl.pallas_call(k, out_shape=S((4, 6), jnp.int32), grid=(2, 3),
                        out_specs=pl.BlockSpec((2, 2), lambda i, j: (i, j)), interpret=True)()
""")
pallas("num_programs_static", "value", """
def k(o_ref):
    o_ref[...] = jnp.full(o_ref.shape, pl.num_programs(0) * 100 + pl.num_programs(1), jnp.int32)
result = pl.pallas_call(k, out_shape=S((2, 3), jnp.int32), grid=(2, 3),
                        out_specs=pl.BlockSpec((1, 1), lambda i, j: (i, j)), interpret=True)()
""")
pallas("program_id_jaxpr", "jaxpr", """
def k(x_ref, o_ref):
    o_ref[...] = x_ref[...] * pl.program_id(0).astype(f32) + pl.num_programs(0)
f = pl.pallas_call(k, out_shape=S((6,), f32), grid=(3,), in_specs=[pl.BlockSpec((2,), lambda i: (i,))],
                   out_specs=pl.BlockSpec((2,), lambda i: (i,)), interpret=True)
result = jax.make_jaxpr(f)(jnp.ones(6))
""")
pallas("grid_int", "value", """
def k(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2
f = pl.pallas_call(k, out_shape=S((6,), f32), grid=3, in_specs=[pl.BlockSpec((2,), lambda i: i)],
                   out_specs=pl.BlockSpec((2,), lambda i: i), interpret=True)
result = f(jnp.arange(6.))
""")
pallas("grid_spec", "value", """
def k(x_ref, o_ref):
    o_ref[...] = jnp.sin(x_ref[...])
gs = pl.GridSpec(grid=(2,), in_specs=[pl.BlockSpec((3,), lambda i: (i,))], out_specs=pl.BlockSpec((3,), lambda i: (i,)))
result = pl.pallas_call(k, out_shape=S((6,), f32), grid_spec=gs, interpret=True)(jnp.arange(6.))
""")
pallas("reversed_index_map", "value", """
def k(x_ref, o_ref):
    o_ref[...] = x_ref[...][::-1]
spec_in = pl.BlockSpec((2,), lambda i: (3 - i,))
result = pl.pallas_call(k, out_shape=S((8,), f32), grid=(4,), in_specs=[spec_in],
                        out_specs=pl.BlockSpec((2,), lambda i: (i,)), interpret=True)(jnp.arange(8.))
""")
pallas("int_dtype", "value", """
def k(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 3 + 1
result = pl.pallas_call(k, out_shape=S((4,), jnp.int32), interpret=True)(jnp.arange(4, dtype=jnp.int32))
""")
pallas("multiple_outputs", "value", """
def k(x_ref, a_ref, b_ref):
    a_ref[...] = x_ref[...] + 1
    b_ref[...] = (x_ref[...] > 2).astype(jnp.int32)
result = pl.pallas_call(k, out_shape=(S((5,), f32), S((5,), jnp.int32)), interpret=True)(jnp.arange(5.))
""")
pallas("out_shape_dict", "value", """
def k(x_ref, o):
    o['a'][...] = x_ref[...] * 2
    o['b'][...] = x_ref[...] * 3
out = pl.pallas_call(k, out_shape={'a': S((3,), f32), 'b': S((3,), f32)}, interpret=True)(jnp.arange(3.))
result = jnp.stack([out['a'], out['b']])
""")

# -- matmul: 2-D/3-D grids, blocked specs, accumulators
pallas("matmul_2d_grid", "value", """
def mm(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] @ y_ref[...]
x = jnp.arange(32.).reshape(4, 8) / 7
y = jnp.arange(48.).reshape(8, 6) / 5
f = pl.pallas_call(mm, out_shape=S((4, 6), f32), grid=(2, 3),
                   in_specs=[pl.BlockSpec((2, 8), lambda i, j: (i, 0)), pl.BlockSpec((8, 2), lambda i, j: (0, j))],
                   out_specs=pl.BlockSpec((2, 2), lambda i, j: (i, j)), interpret=True)
result = f(x, y)
""")
pallas("matmul_k_accumulate", "value", """
def mm(x_ref, y_ref, o_ref):
    @pl.when(pl.program_id(2) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)
    o_ref[...] += x_ref[...] @ y_ref[...]
x = jnp.arange(64.).reshape(4, 16) / 9
y = jnp.arange(64.).reshape(16, 4) / 3
f = pl.pallas_call(mm, out_shape=S((4, 4), f32), grid=(2, 2, 4),
                   in_specs=[pl.BlockSpec((2, 4), lambda i, j, k: (i, k)), pl.BlockSpec((4, 2), lambda i, j, k: (k, j))],
                   out_specs=pl.BlockSpec((2, 2), lambda i, j, k: (i, j)), interpret=True)
result = f(x, y)
""")
pallas("matmul_scratch_accumulator", "value", """
def mm(x_ref, y_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(1) == 0)
    def _():
        acc_ref[...] = jnp.zeros_like(acc_ref)
    acc_ref[...] += jnp.dot(x_ref[...], y_ref[...])
    @pl.when(pl.program_id(1) == pl.num_programs(1) - 1)
    def _():
        o_ref[...] = acc_ref[...]
x = jnp.arange(48.).reshape(4, 12) / 11
y = jnp.arange(36.).reshape(12, 3) / 13
f = pl.pallas_call(mm, out_shape=S((4, 3), f32), grid=(2, 3),
                   in_specs=[pl.BlockSpec((2, 4), lambda i, k: (i, k)), pl.BlockSpec((4, 3), lambda i, k: (k, 0))],
                   out_specs=pl.BlockSpec((2, 3), lambda i, k: (i, 0)),
                   scratch_shapes=[pl.ANY((2, 3), f32)], interpret=True)
result = f(x, y)
""")
pallas("matmul_jaxpr", "jaxpr", """
def mm(x_ref, y_ref, o_ref):
    o_ref[...] = jnp.dot(x_ref[...], y_ref[...])
f = pl.pallas_call(mm, out_shape=S((4, 4), f32), grid=(2, 2),
                   in_specs=[pl.BlockSpec((2, 3), lambda i, j: (i, 0)), pl.BlockSpec((3, 2), lambda i, j: (0, j))],
                   out_specs=pl.BlockSpec((2, 2), lambda i, j: (i, j)), interpret=True)
result = jax.make_jaxpr(f)(jnp.ones((4, 3)), jnp.ones((3, 4)))
""")

# -- rows: softmax, reductions
pallas("softmax_rows", "value", """
def softmax(x_ref, o_ref):
    x = x_ref[...]
    e = jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))
    o_ref[...] = e / jnp.sum(e, axis=-1, keepdims=True)
x = jnp.sin(jnp.arange(24.)).reshape(6, 4) * 3
f = pl.pallas_call(softmax, out_shape=S((6, 4), f32), grid=(3,), in_specs=[pl.BlockSpec((2, 4), lambda i: (i, 0))],
                   out_specs=pl.BlockSpec((2, 4), lambda i: (i, 0)), interpret=True)
result = f(x)
""")
pallas("row_sums_squeezed", "value", """
def k(x_ref, o_ref):
    o_ref[...] = jnp.sum(x_ref[...], keepdims=True)
x = jnp.arange(12.).reshape(3, 4)
f = pl.pallas_call(k, out_shape=S((3, 1), f32), grid=(3,), in_specs=[pl.BlockSpec((None, 4), lambda i: (i, 0))],
                   out_specs=pl.BlockSpec((None, 1), lambda i: (i, 0)), interpret=True)
result = f(x)
""")
pallas("squeezed_jaxpr", "jaxpr", """
def k(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2
f = pl.pallas_call(k, out_shape=S((3, 4), f32), grid=(3,), in_specs=[pl.BlockSpec((pl.squeezed, 4), lambda i: (i, 0))],
                   out_specs=pl.BlockSpec((None, 4), lambda i: (i, 0)), interpret=True)
result = jax.make_jaxpr(f)(jnp.ones((3, 4)))
""")
pallas("sum_reduction_when", "value", """
def k(x_ref, o_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        o_ref[...] = jnp.zeros_like(o_ref)
    o_ref[...] += jnp.sum(x_ref[...], axis=0, keepdims=True)
x = jnp.arange(40.).reshape(8, 5)
f = pl.pallas_call(k, out_shape=S((1, 5), f32), grid=(4,), in_specs=[pl.BlockSpec((2, 5), lambda i: (i, 0))],
                   out_specs=pl.BlockSpec((1, 5), lambda i: (0, 0)), interpret=True)
result = f(x)
""")
pallas("max_reduction_when_python_bool", "value", """
def k(x_ref, o_ref):
    pl.when(True)(lambda: o_ref.__setitem__(..., jnp.max(x_ref[...], keepdims=True)))
    pl.when(False)(lambda: o_ref.__setitem__(..., jnp.zeros((1,), f32)))
result = pl.pallas_call(k, out_shape=S((1,), f32), interpret=True)(jnp.array([3., 9., 1.]))
""")

# -- ragged edges: padding, masks
pallas("ragged_edge_block", "value", """
def k(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2
f = pl.pallas_call(k, out_shape=S((10,), f32), grid=(3,), in_specs=[pl.BlockSpec((4,), lambda i: (i,))],
                   out_specs=pl.BlockSpec((4,), lambda i: (i,)), interpret=True)
result = f(jnp.arange(10.))
""")
pallas("ragged_edge_masked_store", "value", """
def k(x_ref, o_ref):
    i = pl.program_id(0)
    idx = i * 4 + lax.broadcasted_iota(jnp.int32, (4,), 0)
    x = jnp.where(idx < 10, x_ref[...], 0.)
    o_ref[...] = jnp.where(idx < 10, x + 1, o_ref[...])
f = pl.pallas_call(k, out_shape=S((10,), f32), grid=(3,), in_specs=[pl.BlockSpec((4,), lambda i: (i,))],
                   out_specs=pl.BlockSpec((4,), lambda i: (i,)), interpret=True)
result = f(jnp.arange(10.))
""")
pallas("ragged_2d_sum", "value", """
def k(x_ref, o_ref):
    r = pl.program_id(0) * 2 + lax.broadcasted_iota(jnp.int32, (2, 3), 0)
    c = pl.program_id(1) * 3 + lax.broadcasted_iota(jnp.int32, (2, 3), 1)
    o_ref[...] = jnp.where((r < 5) & (c < 7), x_ref[...] * 10, -1.)
f = pl.pallas_call(k, out_shape=S((5, 7), f32), grid=(3, 3), in_specs=[pl.BlockSpec((2, 3), lambda i, j: (i, j))],
                   out_specs=pl.BlockSpec((2, 3), lambda i, j: (i, j)), interpret=True)
result = f(jnp.arange(35.).reshape(5, 7))
""")
pallas("uncovered_output_is_nan", "value", """
def k(x_ref, o_ref):
    o_ref[...] = x_ref[...]
f = pl.pallas_call(k, out_shape=S((10,), f32), grid=(2,), in_specs=[pl.BlockSpec((4,), lambda i: (i,))],
                   out_specs=pl.BlockSpec((4,), lambda i: (i,)), interpret=True)
result = f(jnp.arange(10.))
""")
pallas("uncovered_int_output_is_min", "value", """
def k(o_ref):
    o_ref[...] = jnp.ones(o_ref.shape, jnp.int32)
result = pl.pallas_call(k, out_shape=S((6,), jnp.int32), grid=(1,),
                        out_specs=pl.BlockSpec((4,), lambda i: (i,)), interpret=True)()
""")
pallas("element_indexing", "value", """
def k(x_ref, o_ref):
    o_ref[...] = x_ref[...]
f = pl.pallas_call(k, out_shape=S((12, 4), f32), grid=(3,),
                   in_specs=[pl.BlockSpec((pl.Element(4), 4), lambda i: (i * 2, 0))],
                   out_specs=pl.BlockSpec((4, 4), lambda i: (i, 0)), interpret=True)
result = f(jnp.arange(40.).reshape(10, 4))
""")

# -- refs inside kernels: dynamic slices, loops
pallas("ds_slices", "value", """
def k(x_ref, o_ref):
    o_ref[pl.ds(0, 2)] = x_ref[pl.ds(2, 2)]
    o_ref[pl.dslice(2, 2)] = x_ref[pl.ds(0, 2)] * 10
    o_ref[4:] = x_ref[4:] + 0.5
result = pl.pallas_call(k, out_shape=S((6,), f32), interpret=True)(jnp.arange(6.))
""")
pallas("ds_dynamic_start", "value", """
def k(x_ref, o_ref):
    i = pl.program_id(0)
    o_ref[...] = x_ref[pl.ds(i * 2, 2)]
result = pl.pallas_call(k, out_shape=S((6,), f32), grid=(3,),
                        out_specs=pl.BlockSpec((2,), lambda i: (i,)), interpret=True)(jnp.arange(6.) * 3)
""")
pallas("loop_decorator", "value", """
def k(x_ref, o_ref):
    o_ref[...] = jnp.zeros_like(o_ref)
    @pl.loop(0, 4)
    def _(i):
        o_ref[pl.ds(i, 1)] = x_ref[pl.ds(i, 1)] * (i + 1).astype(f32)
result = pl.pallas_call(k, out_shape=S((4,), f32), interpret=True)(jnp.arange(4.) + 1)
""")
pallas("loop_carry_step", "value", """
def k(x_ref, o_ref):
    total = pl.loop(0, 8, step=2, init_carry=jnp.float32(0))(lambda i, c: c + x_ref[i])
    o_ref[...] = jnp.full((1,), total)
result = pl.pallas_call(k, out_shape=S((1,), f32), interpret=True)(jnp.arange(8.))
""")
pallas("fori_loop_in_kernel", "value", """
def k(x_ref, o_ref):
    def body(i, acc):
        return acc + x_ref[i, :]
    o_ref[...] = lax.fori_loop(0, 3, body, jnp.zeros((4,), f32))
result = pl.pallas_call(k, out_shape=S((4,), f32), interpret=True)(jnp.arange(12.).reshape(3, 4))
""")
pallas("when_traced_jaxpr", "jaxpr", """
def k(x_ref, o_ref):
    o_ref[...] = x_ref[...]
    @pl.when(pl.program_id(0) == 1)
    def _():
        o_ref[...] = x_ref[...] * 2
f = pl.pallas_call(k, out_shape=S((4,), f32), grid=(2,), in_specs=[pl.BlockSpec((2,), lambda i: (i,))],
                   out_specs=pl.BlockSpec((2,), lambda i: (i,)), interpret=True)
result = jax.make_jaxpr(f)(jnp.ones(4))
""")
pallas("scratch_persists_across_grid", "value", """
def k(o_ref, s_ref):
    @pl.when(pl.program_id(0) == 0)
    def _():
        s_ref[...] = jnp.zeros_like(s_ref)
    s_ref[...] += 1.
    o_ref[...] = s_ref[...]
result = pl.pallas_call(k, out_shape=S((8,), f32), grid=(4,), out_specs=pl.BlockSpec((2,), lambda i: (i,)),
                        scratch_shapes=[pl.ANY((2,), f32)], interpret=True)()
""")
pallas("scratch_jaxpr", "jaxpr", """
def k(x_ref, o_ref, s_ref):
    s_ref[...] = x_ref[...]
    o_ref[...] = pl.reciprocal(s_ref[...], approx=True)
f = pl.pallas_call(k, out_shape=S((4,), f32), scratch_shapes=[pl.ANY((4,), f32)], interpret=True)
result = jax.make_jaxpr(f)(jnp.ones(4))
""")

# -- aliasing, hints, helpers
pallas("input_output_aliases", "value", """
def k(x_ref, o_ref):
    o_ref[...] = x_ref[...] + 100
f = pl.pallas_call(k, out_shape=S((8,), f32), grid=(1,), in_specs=[pl.BlockSpec((4,), lambda i: (0,))],
                   out_specs=pl.BlockSpec((4,), lambda i: (1,)), input_output_aliases={0: 0}, interpret=True)
result = f(jnp.arange(8.))
""")
pallas("input_output_aliases_jaxpr", "jaxpr", """
def k(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] * y_ref[...]
f = pl.pallas_call(k, out_shape=S((3,), f32), input_output_aliases={1: 0}, interpret=True)
result = jax.make_jaxpr(f)(jnp.ones(3), jnp.ones(3))
""")
pallas("multiple_of_hint", "value", """
def k(x_ref, o_ref):
    i = pl.multiple_of(pl.program_id(0) * 2, 2)
    o_ref[...] = x_ref[pl.ds(i, 2)] + 1
result = pl.pallas_call(k, out_shape=S((4,), f32), grid=(2,), out_specs=pl.BlockSpec((2,), lambda i: (i,)),
                        interpret=True)(jnp.arange(4.))
""")
pallas("any_memory_space", "value", """
def k(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2
f = pl.pallas_call(k, out_shape=S((4,), f32), in_specs=[pl.BlockSpec(memory_space=pl.ANY)], interpret=True)
result = f(jnp.arange(4.))
""")
pallas("cost_estimate_and_name", "jaxpr", """
def k(x_ref, o_ref):
    o_ref[...] = x_ref[...]
f = pl.pallas_call(k, out_shape=S((2,), f32), name="copy", interpret=True,
                   cost_estimate=pl.CostEstimate(flops=0, transcendentals=0, bytes_accessed=16))
result = jax.make_jaxpr(f)(jnp.ones(2))
""")
pallas("helpers", "value", """
result = np.array([pl.cdiv(7, 2), pl.cdiv(8, 4), pl.cdiv(7, -2), pl.next_power_of_2(5), pl.next_power_of_2(0),
                   pl.align_to(7, 4), *pl.strides_from_shape((2, 3, 4))])
""")
pallas("reprs", "text", """
result = '\\n'.join(map(str, [pl.Blocked(4), pl.Element(3), pl.Element(3, (1, 2)), repr(pl.Element(3)),
                              pl.BoundedSlice(2), pl.squeezed, pl.no_block_spec, pl.ANY, repr(pl.ANY),
                              pl.CostEstimate(flops=1, transcendentals=2, bytes_accessed=3), pl.GridSpec(grid=(2,)),
                              pl.Buffered(2), list(pl.MemorySpace)]))
""")
pallas("memory_ref", "text", "result = str(pl.ANY((2, 3), f32).shape) + str(pl.ANY((2, 3), f32).dtype)")
pallas("empty_like_values", "value", """
result = pl.empty_like(S((2, 2), f32)).shape
""")
pallas("broadcast_to_in_kernel", "value", """
def k(x_ref, o_ref):
    o_ref[...] = pl.broadcast_to(x_ref[...], (2, 3))
result = pl.pallas_call(k, out_shape=S((2, 3), f32), interpret=True)(jnp.arange(3.))
""")
pallas("run_scoped_in_kernel", "value", """
def k(x_ref, o_ref):
    def scoped(tmp):
        tmp[...] = x_ref[...] * 3
        o_ref[...] = tmp[...] + 1
    pl.run_scoped(scoped, pl.ANY((3,), f32))
result = pl.pallas_call(k, out_shape=S((3,), f32), interpret=True)(jnp.arange(3.))
""")

# -- transformations
pallas("vmap_add", "value", _ADD + """
spec = pl.BlockSpec((2,), lambda i: (i,))
f = pl.pallas_call(add, out_shape=S((4,), f32), grid=(2,), in_specs=[spec, spec], out_specs=spec, interpret=True)
result = jax.vmap(f)(jnp.arange(12.).reshape(3, 4), jnp.ones((3, 4)))
""")
pallas("vmap_unbatched_operand", "value", _ADD + """
spec = pl.BlockSpec((2,), lambda i: (i,))
f = pl.pallas_call(add, out_shape=S((4,), f32), grid=(2,), in_specs=[spec, spec], out_specs=spec, interpret=True)
result = jax.vmap(f, in_axes=(1, None))(jnp.arange(12.).reshape(4, 3), jnp.arange(4.) * 10)
""")
pallas("vmap_program_id", "value", """
def k(x_ref, o_ref):
    o_ref[...] = x_ref[...] + pl.program_id(0).astype(f32) * 100
f = pl.pallas_call(k, out_shape=S((4,), f32), grid=(2,), in_specs=[pl.BlockSpec((2,), lambda i: (i,))],
                   out_specs=pl.BlockSpec((2,), lambda i: (i,)), interpret=True)
result = jax.vmap(f)(jnp.arange(8.).reshape(2, 4))
""")
pallas("jit_of_vmap", "value", _ADD + """
f = pl.pallas_call(add, out_shape=S((3,), f32), interpret=True)
result = jax.jit(jax.vmap(f))(jnp.ones((2, 3)), jnp.arange(6.).reshape(2, 3))
""")

# -- errors
pallas("error_block_rank", "error", """
def k(x_ref, o_ref):
    o_ref[...] = x_ref[...]
pl.pallas_call(k, out_shape=S((4,), f32), in_specs=[pl.BlockSpec((2, 2), lambda i: (i, 0))], grid=(2,),
               interpret=True)(jnp.ones(4))
""")
pallas("error_alias_mismatch", "error", """
def k(x_ref, o_ref):
    o_ref[...] = x_ref[...]
pl.pallas_call(k, out_shape=S((4,), f32), input_output_aliases={0: 0}, interpret=True)(jnp.ones(3))
""")
pallas("error_store_shape", "error", """
def k(x_ref, o_ref):
    o_ref[...] = jnp.ones(3)
pl.pallas_call(k, out_shape=S((4,), f32), interpret=True)(jnp.ones(4))
""")
pallas("error_next_power_of_2", "error", "pl.next_power_of_2(-1)")
