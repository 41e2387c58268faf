"""Small fidelity cases (issue 26 item 5): iterating over traced arrays,
static arguments equal in value but not in type, vmap outputs left unmapped,
arithmetic on typed PRNG keys, a custom_jvp rule's tangents with None
subtrees beside the primal's. `PRELUDE` runs first; each case is an
expression; the record is `str()` of its value or the class and message of
what it raised (record_fidelity.py under JAX 0.11.0, tests/test_fidelity.py
under pyjax).
"""

from __future__ import annotations

from case_runner import run_case  # noqa: F401

PRELUDE = '''
import numpy as np
import jax
import jax.numpy as jnp

def static_calls(*values):
    seen = []
    f = jax.jit(lambda x, n: (seen.append(type(n).__name__), x * n)[1], static_argnums=1)
    results = [f(1.0, v) for v in values]
    return seen, [str(r.dtype) for r in results]

def vmapped(f, *args, **kw):
    r = jax.vmap(f, **kw)(*args)
    return type(r).__name__, repr(r) if not hasattr(r, "shape") or isinstance(r, np.ndarray) else r.shape

@jax.custom_jvp
def none_leaves(d):
    return d

@none_leaves.defjvp
def _none_leaves_jvp(p, t):
    return p[0], t[0]

@jax.custom_jvp
def none_tangent(x):
    return x * 2

@none_tangent.defjvp
def _none_tangent_jvp(p, t):
    return p[0] * 2, None

key = jax.random.key(0)
keys = jax.random.split(key)
m = jnp.arange(6.0).reshape(2, 3)
mask = jnp.array([True, False, False])
special = jnp.array([1.0, -np.inf, np.nan], jnp.float32)
'''

CASES: dict[str, str] = {
    "iter_rows_jaxpr": "jax.make_jaxpr(lambda x: [r for r in x])(m)",
    "iter_sum_jaxpr": "jax.make_jaxpr(lambda x: sum(r for r in x))(m)",
    "iter_key_pair_jaxpr": "jax.make_jaxpr(lambda k: (lambda a, b: a)(*k))(keys)",
    "iter_unpack_jaxpr": "jax.make_jaxpr(lambda x: (lambda a, b: a * b)(*x))(m)",
    "iter_empty_jaxpr": "jax.make_jaxpr(lambda x: list(x))(jnp.ones((0, 3)))",
    "iter_under_vmap_jaxpr": "jax.make_jaxpr(jax.vmap(lambda x: [r for r in x]))(jnp.ones((4, 2, 3)))",
    "iter_grad_value": "np.asarray(jax.grad(lambda x: sum(r.sum() * i for i, r in enumerate(x)))(m)).tolist()",
    "iter_0d_traced": "jax.make_jaxpr(lambda x: list(x))(1.0)",
    "iter_eager_values": "[np.asarray(r).tolist() for r in m]",
    "static_int_then_float": "static_calls(2, 2.0)",
    "static_float_then_int": "static_calls(2.0, 2)",
    "static_bool_then_int": "static_calls(True, 1)",
    "static_same_twice": "static_calls(3, 3)",
    "vmap_none_int": "vmapped(lambda x: 3, jnp.ones(3), out_axes=None)",
    "vmap_none_float": "vmapped(lambda x, y: y, jnp.ones(3), 2.5, in_axes=(0, None), out_axes=None)",
    "vmap_none_bool": "vmapped(lambda x: True, jnp.ones(3), out_axes=None)",
    "vmap_none_numpy": "vmapped(lambda x: np.ones(2, np.float32), jnp.ones(3), out_axes=None)",
    "vmap_none_np_scalar": "vmapped(lambda x: np.float32(2), jnp.ones(3), out_axes=None)",
    "vmap_none_tuple": "jax.vmap(lambda x: (1, 2.0), out_axes=None)(jnp.ones(3))",
    "vmap_zero_int": "(lambda r: (isinstance(r, jax.Array), r.shape, str(r.dtype)))(jax.vmap(lambda x: 3)(jnp.ones(3)))",
    "vmap_none_batched": "jax.vmap(lambda x: x, out_axes=None)(jnp.ones(3))",
    "custom_jvp_none_leaves": "jax.jvp(none_leaves, ((None, 1.0),), ((None, 2.0),))",
    "custom_jvp_none_leaves_linearize": "jax.linearize(lambda x: none_leaves((None, x))[1], 1.0)[0]",
    "custom_jvp_none_tangent": "jax.jvp(none_tangent, (1.0,), (1.0,))",
    "key_add_int": "key + 1",
    "key_radd_int": "1 + key",
    "key_mul_key": "key * key",
    "key_add_key": "key + key",
    "key_neg": "-key",
    "key_lt": "key < key",
    "key_jnp_add": "jnp.add(key, 1)",
    "key_sub_traced": "jax.jit(lambda k: k - 1)(key)",
    "key_matmul": "key @ key",
    # found by differential fuzzing against JAX 0.11.0 (a weak -1 beside a
    # uint32 goes straight to float, not through uint32; flip of a scalar)
    "inexact_weak_int_beside_uint32": "np.round(np.asarray(jnp.logaddexp(jnp.subtract(jnp.asarray(True), 2), "
                                      "jnp.arange(3, dtype=jnp.uint32))), 4).tolist()",
    "inexact_weak_int_beside_uint32_jit": "np.round(np.asarray(jax.jit(jnp.arctan2)(jnp.int32(-3) + 0, "
                                          "jnp.arange(3, dtype=jnp.uint32) + 1)), 4).tolist()",
    "inexact_mixed_ints_jaxpr": "jax.make_jaxpr(jnp.arctan2)(np.int8(1), np.int16(2))",
    "inexact_int_and_python_jaxpr": "jax.make_jaxpr(jnp.hypot)(np.uint8(1), -2)",
    "flip_scalar_axis": "jnp.flip(jnp.float32(1), -1)",
    "flip_scalar_axis_tuple": "jnp.flip(jnp.float32(1), (0,))",
    "flip_scalar_no_axis": "jnp.flip(jnp.float32(1))",
    # XLA's simplifier makes convert(mask) * a a select: a masked-out inf/nan gives 0
    "mask_times_inf_eager": "(mask * special).tolist()",
    "mask_times_inf_jit": "jax.jit(lambda m, x: m * x)(mask, special).tolist()",
    "inf_times_mask_jit": "jax.jit(lambda m, x: x * m)(mask, special).tolist()",
    "mask_astype_times_inf_jit": "jax.jit(lambda m, x: m.astype(jnp.float32) * x)(mask, special).tolist()",
    "mask_lax_mul_jit": "jax.jit(lambda m, x: jax.lax.mul(jax.lax.convert_element_type(m, jnp.float32), x))(mask, special).tolist()",
    "mask_lax_mul_eager": "jax.lax.mul(jax.lax.convert_element_type(mask, jnp.float32), special).tolist()",
    "mask_times_python_inf": "(mask * float('inf')).tolist()",
    "mask_over_zero_eager": "(mask / 0).tolist()",
    "mask_over_zero_jit": "jax.jit(lambda m: m / 0)(mask).tolist()",
    "mask_over_zero_scalar_jit": "jax.jit(lambda m, z: m / z)(mask, jnp.float32(0)).tolist()",
    "mask_over_zeros_array": "jax.jit(lambda m, z: m / z)(mask, jnp.zeros(3)).tolist()",
    "masked_sum_of_log": "float(jax.jit(lambda m, p: jnp.sum(m * jnp.log(p)))(mask, jnp.array([0.5, 0.0, 0.0])))",
    "mask_times_inf_float16": "jax.jit(lambda m, x: m * x.astype(jnp.float16))(mask, special).tolist()",
    "mask_times_inf_bfloat16": "str(jax.jit(lambda m, x: m * x.astype(jnp.bfloat16))(mask, special))",
    "mask_times_inf_complex": "jax.jit(lambda m, x: m * x.astype(jnp.complex64))(mask, special).tolist()",
    "int_mask_times_inf": "jax.jit(lambda m, x: m.astype(jnp.int32) * x)(mask, special).tolist()",
    "broadcast_mask_times_inf": "jax.jit(lambda m, x: m[:, None] * x[None, :])(mask, special).tolist()",
    "where_mask_times_inf": "jax.jit(lambda m, x: jnp.where(m, 1.0, 0.0) * x)(mask, special).tolist()",
    "mask_jaxpr": "jax.make_jaxpr(lambda m, x: m * x)(mask, special)",
    # the cumulative primitives refuse a negative axis, their JVPs (a parallel prefix) take it
    "cummax_negative_axis": "jax.lax.cummax(m, axis=-1)",
    "cummax_grad_negative_axis": "jax.grad(lambda x: jnp.sum(jax.lax.cummax(x, axis=-1)))(m[:, ::-1]).tolist()",
    "cummin_grad_negative_axis_jaxpr": "jax.make_jaxpr(jax.grad(lambda x: jnp.sum(jax.lax.cummin(x, axis=-1))))(m)",
    "cumprod_grad_negative_axis": "jax.grad(lambda x: jnp.sum(jax.lax.cumprod(x, axis=-2, reverse=True)))(m).tolist()",
    "rev_duplicate_dimensions": "jax.lax.rev(m, (0, 0))",
    "rev_dimension_past_ndim": "jax.lax.rev(m, (2,))",
    "rev_negative_dimension": "jax.lax.rev(m, (-1,))",
    "cummax_jvp_negative_axis": "jax.jvp(lambda x: jax.lax.cummax(x, axis=-1), (m,), (m,))[1].tolist()",
}
