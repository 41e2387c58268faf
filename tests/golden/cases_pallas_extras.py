"""Pallas's cost estimator, debug checks, run_state and deprecated names
(jax.experimental.pallas: estimate_cost, debug_check, enable_debug_checks,
enable_poison_buffers, run_state, dot, debug_checks_enabled), and the values
among its TPU/GPU-only names (DeviceIdType, semaphore, select_ref's check).

`PRELUDE` runs first; each case is an expression whose record is `str()` of
its value or the class and message of what it raised. Recorded by
record_pallas_extras.py under JAX 0.11.0; compared under pyjax by
tests/test_pallas_extras.py.
"""

from __future__ import annotations

from case_runner import run_case  # noqa: F401

PRELUDE = '''
import warnings
import numpy as np
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

a = jnp.arange(6.).reshape(2, 3)
b = jnp.arange(12.).reshape(3, 4)
sds = jax.ShapeDtypeStruct

def kernel(x_ref, o_ref):
    pl.debug_check(x_ref[0] > 0, "first must be positive")
    o_ref[...] = x_ref[...] * 2

def call(x):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)

def with_checks(f, *args):
    with pl.enable_debug_checks(True):
        return f(*args)

def read_deprecated(name):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        value = getattr(pl, name)
    return [(x.category.__name__, str(x.message)) for x in w], value

def quiet(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(pl, name)

def dot_kernel(trans_a, trans_b, out_dtype):
    def k(a_ref, b_ref, o_ref):
        o_ref[...] = quiet("dot")(a_ref[...], b_ref[...], trans_a=trans_a, trans_b=trans_b).astype(out_dtype)
    return k

def in_kernel(kern, out, *args):
    return pl.pallas_call(kern, out_shape=out, interpret=True)(*args)

@jax.custom_vjp
def cv(x):
    return jnp.sin(x) * 2
cv.defvjp(lambda x: (cv(x), x), lambda x, g: (g * jnp.cos(x),))

def body(refs):
    x_ref, y_ref = refs
    y_ref[...] = x_ref[...] + 1
    x_ref[...] = x_ref[...] * 10

def fill(refs):
    refs["out"][...] = refs["src"][...] * 3
'''

CASES: dict[str, str] = {
    "cost_matmul_tanh": "pl.estimate_cost(lambda a, b: jnp.tanh(a @ b), a, b)",
    "cost_shape_dtype_structs": "pl.estimate_cost(lambda a, b: jnp.sin(a) @ b + 1, sds((2, 3), jnp.float32), "
                                "sds((3, 4), jnp.float32))",
    "cost_reduction_free": "pl.estimate_cost(lambda x: jnp.exp(x).sum(), jnp.ones((8, 128)))",
    "cost_keyword": "pl.estimate_cost(lambda x, y=1: x * y, jnp.ones((4,)), y=2.)",
    "cost_identity": "pl.estimate_cost(lambda x: x, jnp.ones((4,)))",
    "cost_integer_pow_3": "pl.estimate_cost(lambda x: x ** 3, jnp.ones((5,)))",
    "cost_integer_pow_8": "pl.estimate_cost(lambda x: x ** 8, jnp.ones((5,)))",
    "cost_integer_pow_1": "pl.estimate_cost(lambda x: jax.lax.integer_pow(x, 1), jnp.ones((5,)))",
    "cost_batched_dot": "pl.estimate_cost(lambda x, y: jnp.einsum('bij,bjk->bik', x, y), jnp.ones((2, 3, 4)), "
                        "jnp.ones((2, 4, 5)))",
    "cost_nested_jit": "pl.estimate_cost(lambda x: jax.jit(lambda y: jnp.cos(y) * y)(x) - 1, jnp.ones((3, 3)))",
    "cost_custom_vjp": "pl.estimate_cost(cv, jnp.ones((7,)))",
    "cost_unary_flops": "pl.estimate_cost(lambda x: jnp.floor(-x), jnp.ones((6,)))",
    "cost_bitwise": "pl.estimate_cost(lambda x, y: (x ^ y) | ~x, jnp.ones((4,), jnp.int32), jnp.ones((4,), jnp.int32))",
    "cost_logistic_sqrt_log": "pl.estimate_cost(lambda x: jax.nn.sigmoid(x) + jnp.sqrt(x) + jnp.log(x), jnp.ones((3,)))",
    "cost_int8_bytes": "pl.estimate_cost(lambda x: x.astype(jnp.float32), jnp.ones((10,), jnp.int8))",
    "cost_pytree_args": "pl.estimate_cost(lambda d: d['p'] * d['q'], {'p': jnp.ones((2,)), 'q': jnp.ones((2,))})",
    "cost_estimate_fields": "pl.CostEstimate(flops=1, transcendentals=2, bytes_accessed=3)",
    "debug_check_off": "call(jnp.array([-1., 2.]))",
    "debug_check_on_failing": "with_checks(call, jnp.array([-1., 2.]))",
    "debug_check_on_passing": "with_checks(call, jnp.array([1., 2.]))",
    "debug_check_eager": "pl.debug_check(jnp.array(False), 'x')",
    "debug_check_non_scalar": "pl.debug_check(jnp.array([True, False]), 'x')",
    "enable_debug_checks_default": "(pl.enable_debug_checks.value, type(pl.enable_debug_checks).__name__)",
    "enable_debug_checks_set": "with_checks(lambda: pl.enable_debug_checks.value)",
    "enable_poison_buffers_default": "(pl.enable_poison_buffers.value, type(pl.enable_poison_buffers).__name__)",
    "debug_checks_enabled_deprecated": "(read_deprecated('debug_checks_enabled')[0], "
                                       "read_deprecated('debug_checks_enabled')[1]())",
    "debug_checks_enabled_on": "with_checks(quiet('debug_checks_enabled'))",
    "dot_deprecated": "read_deprecated('dot')[0]",
    "dot_plain": "quiet('dot')(a, b)",
    "dot_trans_a": "quiet('dot')(a.T, b, trans_a=True)",
    "dot_trans_b": "quiet('dot')(a, b.T, trans_b=True)",
    "dot_both": "quiet('dot')(a.T, b.T, trans_a=True, trans_b=True)",
    "dot_int8": "quiet('dot')(jnp.ones((2, 2), jnp.int8), jnp.ones((2, 2), jnp.int8)).dtype",
    "dot_float16": "quiet('dot')(jnp.ones((2, 2), jnp.float16), jnp.ones((2, 2), jnp.float16)).dtype",
    "dot_bfloat16_int8": "quiet('dot')(jnp.ones((2, 2), jnp.bfloat16), jnp.ones((2, 2), jnp.int8)).dtype",
    "dot_one_dimensional": "quiet('dot')(jnp.ones(3), jnp.ones(3))",
    "dot_tf32_and_precision": "quiet('dot')(a, b, allow_tf32=True, precision='highest')",
    "dot_tf32_jaxpr": "jax.make_jaxpr(lambda x, y: quiet('dot')(x, y, allow_tf32=False))(a, b)",
    "dot_jaxpr": "jax.make_jaxpr(lambda x, y: quiet('dot')(x, y, trans_a=True))(a.T, b)",
    "dot_in_kernel": "in_kernel(dot_kernel(False, True, jnp.float32), sds((2, 4), jnp.float32), a, b.T)",
    "device_id_type": "(list(pl.DeviceIdType), pl.DeviceIdType('logical'), pl.DeviceIdType.MESH.value)",
    "semaphore_dtype_class": "(jax.dtypes.issubdtype(pl.semaphore, jax.dtypes.extended), pl.semaphore.__name__, "
                             "[c.__name__ for c in pl.semaphore.__mro__[:3]])",
    "select_ref_needs_two_refs": "pl.select_ref(0, jnp.ones(2))",
    "run_state_values": "pl.run_state(body)((jnp.ones(3), jnp.zeros(3)))",
    "run_state_jit": "jax.jit(pl.run_state(body))((jnp.ones(3), jnp.zeros(3)))",
    "run_state_uninitialised": "pl.run_state(fill)({'src': jnp.arange(3.), 'out': sds((3,), jnp.float32)})['out']",
    "run_state_scalar": "pl.run_state(lambda r: r.__setitem__(..., r[...] + 1))(jnp.float32(1))",
}
