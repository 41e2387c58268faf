"""The hijax names of jax.experimental: `primal_tangent_dtype` (an extended
dtype whose tangents have another dtype: the to_edtype/from_edtype
conversions and their autodiff), `EArray` and `cur_qdd`.

`PRELUDE` runs first; each case is an expression whose record is `str()` of
its value or the class and message of what it raised. Recorded by
record_hijax.py under JAX 0.11.0; compared under pyjax by tests/test_hijax.py.
"""

from __future__ import annotations

from case_runner import run_case  # noqa: F401

PRELUDE = '''
import jax
import jax.numpy as jnp
from jax.experimental import EArray, cur_qdd, primal_tangent_dtype

dt = primal_tangent_dtype(jnp.int8, jnp.float32)
dt2 = primal_tangent_dtype(jnp.float32, jnp.bfloat16, name="half_tangent")
cvt = jax.lax.convert_element_type

def through(d, back):
    return lambda x: cvt(cvt(x, d), back)

def twice_through_bf16(x):
    return through(dt2, jnp.float32)(x) * 2

def error_class(thunk):
    try:
        thunk()
    except Exception as e:
        return type(e).__name__
    return "no error"

k = jax.random.key(0)
e = EArray(jax.typeof(k), jax.random.key_data(k))
ks = jax.random.split(jax.random.key(1), 3)
e3 = EArray(jax.typeof(ks), jax.random.key_data(ks))
'''

CASES: dict[str, str] = {
    "ptd_fields": "(dt, dt.primal_dtype, dt.tangent_dtype, dt.name, dt.type.__name__)",
    "ptd_extended": "(jax.dtypes.issubdtype(dt, jax.dtypes.extended), jax.dtypes.issubdtype(dt, jnp.integer))",
    "ptd_equal": "(dt == primal_tangent_dtype('int8', 'float32'), hash(dt) == hash(primal_tangent_dtype('int8', 'float32')), dt == dt2)",
    "ptd_named": "(dt2, repr(dt2), primal_tangent_dtype('float16', 'float32'))",
    "ptd_jaxpr": "jax.make_jaxpr(through(dt, jnp.int8))(jnp.int8(3))",
    "ptd_jaxpr_array": "jax.make_jaxpr(lambda x: cvt(x, dt))(jnp.ones((2,), jnp.int8))",
    "ptd_jit_roundtrip": "jax.jit(through(dt, jnp.int8))(jnp.int8(3))",
    "ptd_wrong_representation": "jax.make_jaxpr(lambda x: cvt(x, dt))(jnp.float32(3))",
    "ptd_wrong_back": "jax.make_jaxpr(lambda x: cvt(cvt(x, dt), jnp.int32))(jnp.int8(3))",
    "ptd_between_extended": "jax.make_jaxpr(lambda x: cvt(cvt(x, dt), dt2))(jnp.int8(1))",
    "ptd_key_not_convertible": "cvt(jax.random.key_data(k), k.dtype)",
    "ptd_jvp_jaxpr": "jax.make_jaxpr(lambda x, t: jax.jvp(lambda x: cvt(x, dt), (x,), (t,)))(jnp.int8(3), "
                     "jnp.zeros((), jax.dtypes.float0))",
    "ptd_vjp_jaxpr": "jax.make_jaxpr(lambda x: jax.vjp(twice_through_bf16, x)[1](1.0))(1.0)",
    "ptd_jvp_tangent_dtype": "jax.make_jaxpr(lambda x: jax.jvp(twice_through_bf16, (x,), (x,)))(1.0)",
    "ptd_vjp_rounds_in_bf16": "jax.jit(lambda x: jax.vjp(lambda x: through(dt2, jnp.float32)(x) * 3, x)[1](1.1))(1.0)",
    "ptd_vmap": "jax.make_jaxpr(jax.vmap(through(dt2, jnp.float32)))(jnp.ones(3))",
    "ptd_lowered": "jax.jit(lambda x: through(dt2, jnp.float32)(x) * 2).lower(1.0).as_text()",
    "ptd_shape_dtype_struct": "jax.ShapeDtypeStruct((2,), dt)",
    "qdd_traced": "jax.jit(lambda x: cur_qdd(x))(1.0)",
    "qdd_python_scalar": "cur_qdd(1.0)",
    "earray_float": "EArray(jax.core.ShapedArray((2,), jnp.float32), jnp.ones(2))",
    "earray_key": "repr(e)",
    "earray_attributes": "(e.shape, e.dtype, e.ndim, e.size, e.aval)",
    "earray_len": "len(e)",
    "earray_iter": "list(e)",
    "earray_normal": "jax.random.normal(e)",
    "earray_jit": "jax.jit(lambda k: k)(e)",
    "earray_typeof": "jax.typeof(e)",
    "earray_copy": "repr(e.copy())",
    "earray_is_array": "isinstance(e, jax.Array)",
    "earray_keys": "(repr(e3), len(e3), jax.random.key_data(jax.jit(lambda k: k)(e3)))",
    "earray_keys_iter": "error_class(lambda: list(e3))",
    "earray_keys_vmap": "jax.vmap(jax.random.normal)(e3)",
}
