"""Eager operations on Arrays sharded over a mesh (Explicit or Auto axes),
recorded from JAX 0.11.0 with 8 CPU devices into ``spmd_eager.json``
(issue 22): each result's sharding and type, and its value. pyjax runs
these per device (spmd_eager.py); tests/test_spmd_eager.py checks that no
global value is assembled.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_spmd_eager.py
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, _program = program_set()

PRELUDE = """
P = jax.sharding.PartitionSpec
NS = jax.sharding.NamedSharding
AxisType = jax.sharding.AxisType
def arrays(kind):
  mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(kind, kind))
  x = jax.device_put(np.arange(128., dtype=np.float32).reshape(8, 16) / 16, NS(mesh, P('x', 'y')))
  y = jax.device_put(np.linspace(-1, 1, 128, dtype=np.float32).reshape(8, 16), NS(mesh, P('x')))
  v = jax.device_put(np.arange(16., dtype=np.float32), NS(mesh, P('y')))
  i = jax.device_put(np.arange(128, dtype=np.int32).reshape(8, 16), NS(mesh, P(None, 'y')))
  return mesh, x, y, v, i
def placement(r):
  return f"{r.sharding.spec} {jax.typeof(r)} {r.sharding.mesh.axis_types}"
"""

# Each case: an expression of x (8x16 over x, y), y (8x16 over x), v (16 over y), i (int 8x16 over y).
CASES = {
    "sin": "jnp.sin(x)",
    "exp_y": "jnp.exp(y)",
    "add_same": "x + x",
    "add_mixed": "x + y",
    "add_bcast_row": "x + v",
    "add_plain": "x + np.ones(16, np.float32)",
    "mul_python_scalar": "x * 2",
    "radd_python_scalar": "3.0 + y",
    "sub_numpy_scalar": "x - np.float32(1.5)",
    "neg": "-x",
    "lax_max": "lax.max(x, y)",
    "compare": "x > y",
    "int_ops": "(i * 3) // 2",
    "astype": "x.astype(jnp.int32)",
    "sum_rows": "x.sum(0)",
    "sum_cols": "x.sum(1)",
    "sum_all": "jnp.sum(x)",
    "mean_rows": "jnp.mean(x, axis=0)",
    "max_cols": "jnp.max(x, axis=1)",
    "transpose": "x.T",
    "expand": "x[None]",
    "broadcast_v": "jnp.broadcast_to(v, (8, 16))",
    "tanh_v": "jnp.tanh(v)",
    "index_rows_whole_dim": "i[2:6]",
    "index_row_whole_dim": "i[3]",
}

# On Auto axes only (the Explicit rules refuse them): XLA's propagation decides.
AUTO_CASES = {
    "matmul_contract_split": "x @ jax.device_put(np.ones((16, 4), np.float32), NS(mesh, P('y')))",
    "matmul_rhs_split": "x @ jax.device_put(np.ones((16, 4), np.float32), NS(mesh, P(None, 'y')))",
    "matmul_same_axis_twice": "x @ jax.device_put(np.ones((16, 8), np.float32), NS(mesh, P('y', 'x')))",
    "matmul_lhs_cols": "jax.device_put(np.ones((8, 16), np.float32), NS(mesh, P(None, 'x'))) @ "
                       "jax.device_put(np.ones((16, 4), np.float32), NS(mesh, P('x', 'y')))",
    "where_refining": "jnp.where(x > 3, x, y)",
    "matmul_contract_mismatch": "jax.device_put(np.ones((8, 16), np.float32), NS(mesh, P('y', 'x'))) @ "
                                "jax.device_put(np.ones((16, 4), np.float32), NS(mesh, P('y')))",
    "add_rows_keeps_spec": "jax.device_put(np.ones((8, 16), np.float32), NS(mesh, P('x', None))) + 1",
    "matmul_keeps_lhs_spec": "jax.device_put(np.ones((8, 16), np.float32), NS(mesh, P('x', None))) @ "
                             "jax.device_put(np.ones((16, 4), np.float32), NS(mesh, P('y')))",
    "outer_product": "v[:, None] * v[None, :]",
    "pad_split_dim": "jnp.pad(x, ((1, 1), (0, 0)))",
    "lax_slice_split_dim": "lax.slice(x, (2, 0), (6, 16))",
    "lax_slice_prefix": "lax.slice(x, (0, 0), (4, 16))",
    "lax_slice_cols": "lax.slice(x, (0, 0), (8, 8))",
    "lax_slice_strided_whole": "lax.slice(x, (0, 0), (8, 16), (2, 1))",
    "pad_cols_divisible": "lax.pad(x, 0., ((0, 0, 0), (0, 2, 0)))",
    "index_rows_split_dim": "x[2:6]",
    "index_row_split_dim": "x[3]",
    "index_cols_split_dim": "x[:, 4:12]",
    "take_rows_split_dim": "x[jnp.array([1, 5])]",
    "take_rows_whole_dim": "jax.jit(lambda a, k: a[k] * 2)(i, jnp.array([1, 5, 2]))",
    "add_conflicting": "x + jax.device_put(np.ones((16, 8), np.float32), NS(mesh, P('x', 'y'))).T",
    "jit_scalar": "jax.jit(lambda a, s: jnp.where(a > s, a * s, y) + jnp.floor_divide(a, 3.0))(x, 2.5)",
    "cumsum_split_axis": "jnp.cumsum(x, 0)",
    "cummax_split_axis": "lax.cummax(x, axis=1)",
    "sort_split_axis": "jnp.sort(jnp.sin(x * 7), axis=1)",
    "argsort_split_axis": "jnp.argsort(jnp.cos(x * 5), axis=0)",
}


def program(name: str, expect: str, source: str) -> None:
    _program(name, expect, PRELUDE + source)


for kind in ("Explicit", "Auto"):
    for name, expr in CASES.items():
        program(f"{kind.lower()}_{name}_placement", "text", f"""
mesh, x, y, v, i = arrays(AxisType.{kind})
result = placement({expr})
""")
        program(f"{kind.lower()}_{name}_value", "value", f"""
mesh, x, y, v, i = arrays(AxisType.{kind})
result = {expr}
""")

for name, expr in AUTO_CASES.items():
    program(f"auto_{name}_placement", "text", f"""
mesh, x, y, v, i = arrays(AxisType.Auto)
result = placement({expr})
""")
    program(f"auto_{name}_value", "value", f"""
mesh, x, y, v, i = arrays(AxisType.Auto)
result = {expr}
""")

# A mesh mixing Explicit ('x') and Auto ('y') axes: the types name 'x' only,
# XLA's propagation places 'y'.
MIXED_PRELUDE = """
def mixed_arrays():
  mesh = jax.make_mesh((4, 2), ('x', 'y'), axis_types=(AxisType.Explicit, AxisType.Auto))
  x = jax.device_put(np.arange(128., dtype=np.float32).reshape(8, 16) / 16, NS(mesh, P('x', 'y')))
  y = jax.device_put(np.linspace(-1, 1, 128, dtype=np.float32).reshape(8, 16), NS(mesh, P('x')))
  v = jax.device_put(np.arange(16., dtype=np.float32), NS(mesh, P('y')))
  i = jax.device_put(np.arange(128, dtype=np.int32).reshape(8, 16), NS(mesh, P(None, 'y')))
  return mesh, x, y, v, i
"""

MIXED_CASES = {
    **CASES,
    "jit_add": "jax.jit(lambda a: a * 2 + 1)(x)",
    "jit_transpose": "jax.jit(lambda a: a.T)(x)",
    "jit_sum_cols": "jax.jit(lambda a: a.sum(1))(x)",
    "matmul_contract_auto": "x @ jax.device_put(np.ones((16, 4), np.float32), NS(mesh, P('y')))",
    "cumsum_auto_axis": "jnp.cumsum(x, 1)",
    "transpose_cols_auto": "i.T",
    "sum_rows_cols_auto": "i.sum(0)",
    "where_refining": "jnp.where(x > 3, x, y)",
    "reshape_split_major": "x.reshape(8, 4, 4)",
    "take_rows_whole_dim": "jax.jit(lambda a, k: a[k] * 2)(i, jnp.array([1, 5, 2]))",
    "index_cols_auto_dim": "x[:, 4:12]",
    "rank1_both_axes_add": "jax.device_put(np.arange(8., dtype=np.float32), NS(mesh, P(('x', 'y')))) + 1",
    "rank1_both_axes_sum": "jax.device_put(np.ones((8, 16), np.float32), NS(mesh, P(('x', 'y'),))).sum(1)",
    "rank2_both_axes_transpose": "jax.device_put(np.ones((8, 16), np.float32), NS(mesh, P(('x', 'y'),))).T",
}


for name, expr in MIXED_CASES.items():
    _program(f"mixed_{name}_placement", "text", PRELUDE + MIXED_PRELUDE + f"""
mesh, x, y, v, i = mixed_arrays()
result = placement({expr})
""")
    _program(f"mixed_{name}_value", "value", PRELUDE + MIXED_PRELUDE + f"""
mesh, x, y, v, i = mixed_arrays()
result = {expr}
""")
_program("mixed_error_index_explicit_dim", "error", PRELUDE + MIXED_PRELUDE + """
mesh, x, y, v, i = mixed_arrays()
result = x[2:6]
""")
_program("mixed_error_cumsum_explicit_axis", "error", PRELUDE + MIXED_PRELUDE + """
mesh, x, y, v, i = mixed_arrays()
result = jnp.cumsum(jax.device_put(np.ones((8, 16), np.float32), NS(mesh, P('y', 'x'))), 1)
""")

# Reshapes on Auto axes: placed as XLA's propagation places them (a run of
# merged dimensions keeps its axes while each dimension is split whole; the
# axes handed out over split dimensions while they divide them).
_R = "jax.device_put(np.arange(128., dtype=np.float32).reshape(8, 16), NS(mesh, P({})))"
_B = "jax.device_put(np.arange(256., dtype=np.float32).reshape(4, 4, 16), NS(mesh, P({})))"
RESHAPE_CASES = {
    "xy_flat": "x.reshape(128)",
    "xy_split_minor": "x.reshape(8, 4, 4)",
    "xy_split_minor_small": "x.reshape(8, 2, 8)",
    "xy_split_major": "x.reshape(4, 2, 16)",
    "xy_split_major_indivisible": "x.reshape(2, 4, 16)",
    "xy_regroup": "x.reshape(32, 4)",
    "xy_regroup_wide": "x.reshape(4, 32)",
    "xy_regroup_indivisible": "x.reshape(2, 64)",
    "xy_unit_dims": "x.reshape(1, 8, 16, 1)",
    "x_flat": "y.reshape(128)",
    "x_regroup": "y.reshape(16, 8)",
    "cols_flat": "i.reshape(128)",
    "cols_split": "i.reshape(8, 4, 4)",
    "cols_regroup": "i.reshape(4, 32)",
    "yx_flat": _R.format("'y', 'x'") + ".reshape(128)",
    "yx_split_major": _R.format("'y', 'x'") + ".reshape(2, 4, 16)",
    "both_flat": _R.format("('x', 'y'),") + ".reshape(128)",
    "both_split": _R.format("('x', 'y'),") + ".reshape(4, 2, 16)",
    "both_regroup": _R.format("('x', 'y'),") + ".reshape(16, 8)",
    "cube_merge_major": _B.format("'x', 'y'") + ".reshape(16, 16)",
    "cube_merge_minor": _B.format("'x', 'y'") + ".reshape(4, 64)",
    "cube_flat": _B.format("'x', 'y'") + ".reshape(256)",
    "cube_split_major": _B.format("'x', 'y'") + ".reshape(2, 2, 4, 16)",
    "cube_y_none_x_merge": _B.format("'y', None, 'x'") + ".reshape(16, 16)",
    "cube_y_none_x_flat": _B.format("'y', None, 'x'") + ".reshape(256)",
    "cube_none_x_y_merge_major": _B.format("None, 'x', 'y'") + ".reshape(16, 16)",
    "cube_none_x_y_merge_minor": _B.format("None, 'x', 'y'") + ".reshape(4, 64)",
    "cube_none_x_y_flat": _B.format("None, 'x', 'y'") + ".reshape(256)",
}
# On the mixed mesh the types (Explicit 'x') must allow the reshape; these do.
# (A rank-1 result split over 'x' in its type loses the Auto axis there.)
MIXED_RESHAPE_CASES = ["xy_flat", "xy_split_minor", "xy_split_major", "xy_unit_dims", "x_flat", "cols_flat",
                       "cols_split", "cols_regroup", "yx_split_major", "both_flat", "both_split", "cube_merge_major",
                       "cube_merge_minor", "cube_flat", "cube_y_none_x_merge", "cube_none_x_y_merge_minor"]

for name, expr in RESHAPE_CASES.items():
    program(f"auto_reshape_{name}_placement", "text", f"""
mesh, x, y, v, i = arrays(AxisType.Auto)
result = placement({expr})
""")
for name in MIXED_RESHAPE_CASES:
    _program(f"mixed_reshape_{name}_placement", "text", PRELUDE + MIXED_PRELUDE + f"""
mesh, x, y, v, i = mixed_arrays()
result = placement({RESHAPE_CASES[name]})
""")
for name in ("xy_regroup", "cube_merge_major", "yx_flat"):
    program(f"auto_reshape_{name}_value", "value", f"""
mesh, x, y, v, i = arrays(AxisType.Auto)
result = {RESHAPE_CASES[name]}
""")
_program("mixed_error_reshape_regroup", "error", PRELUDE + MIXED_PRELUDE + """
mesh, x, y, v, i = mixed_arrays()
result = x.reshape(32, 4)
""")

# Control flow in a jitted program on Auto axes (and a mixed mesh's): its
# bodies laid out as XLA's propagation lays them out, carries keeping their
# placement.
CONTROL_CASES = {
    "fori": "jax.jit(lambda a: lax.fori_loop(0, 3, lambda k, c: jnp.sin(c) + k, a))(x)",
    "fori_traced": "jax.jit(lambda a, n: lax.fori_loop(0, n, lambda k, c: c * 0.5 + c.sum(axis=0), a))(x, 4)",
    "while_counter": "jax.jit(lambda a: lax.while_loop(lambda c: c[1].sum() < 400.0, "
                     "lambda c: (c[0] + 1, c[1] * 1.5 + 0.25), (0, a)))(x)[1]",
    "scan_carry": "jax.jit(lambda c0, s: lax.scan(lambda c, r: (c * 0.9 + r, c.sum(axis=1)), c0, s))"
                  "(x, jnp.stack([x, x * 0.5, -x]))[0]",
    "scan_ys": "jax.jit(lambda c0, s: lax.scan(lambda c, r: (c * 0.9 + r, c.sum(axis=1)), c0, s))"
               "(x, jnp.stack([x, x * 0.5, -x]))[1]",
    "cond": "jax.jit(lambda a: lax.cond(a.sum() > 0, lambda u: u * 2, lambda u: jnp.sin(u) - 1, a))(x)",
    "switch": "jax.jit(lambda a, k: lax.switch(k, [lambda u: u * 3, lambda u: u.T.T - 1], a))(x, 1)",
    "vmapped_while": "jax.jit(jax.vmap(lambda r: lax.while_loop(lambda c: c.sum() < 60.0, "
                     "lambda c: c * 1.5 + 0.25, r)))(x)",
}
for name, expr in CONTROL_CASES.items():
    for kind, make in (("auto", "arrays(AxisType.Auto)"), ("mixed", "mixed_arrays()")):
        for what, result in (("placement", f"placement({expr})"), ("value", expr)):
            _program(f"{kind}_control_{name}_{what}", "text" if what == "placement" else "value",
                     PRELUDE + MIXED_PRELUDE + f"""
mesh, x, y, v, i = {make}
result = {result}
""")
