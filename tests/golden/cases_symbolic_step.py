"""jax.numpy slicing with a symbolic step under JAX 0.11 (shape
polymorphism): the result shapes, the gather (or scatter) JAX stages, its
InconclusiveDimensionOperation when the step's sign is not decidable, and
exported calls.

`PRELUDE` runs first; each case is an expression whose record is `str()` of
its value or the class and message of what it raised (first line). Recorded
by record_symbolic_step.py under JAX 0.11.0; compared under pyjax by
tests/test_symbolic_step.py.
"""

from __future__ import annotations

from case_runner import run_case_first_line as run_case  # noqa: F401

PRELUDE = '''
import numpy as np
import jax
import jax.numpy as jnp
from jax import export

a, b, c = export.symbolic_shape("a, b, c", constraints=["c >= 2"])
p, q = export.symbolic_shape("p, q")  # (an export's arguments name every variable of its scope)
(r,) = export.symbolic_shape("r", constraints=["r >= 2"])

def S(*shape):
    return jax.ShapeDtypeStruct(shape, jnp.float32)

def shape_of(f, *shape):
    return jax.eval_shape(f, S(*shape)).shape

def exported(f, *shape, arg):
    exp = export.export(jax.jit(f))(S(*shape))
    return [str(v) for v in exp.out_avals], np.asarray(exp.call(arg)).tolist()

x72 = np.arange(14.0, dtype=np.float32).reshape(7, 2)
x5 = np.arange(5.0, dtype=np.float32)
'''

CASES: dict[str, str] = {
    "step_dim": "shape_of(lambda x: x[::x.shape[1]], a, b)",
    "step_dim_and_start": "shape_of(lambda x: x[1::x.shape[1]], a, b)",
    "step_dim_stop": "shape_of(lambda x: x[1:5:x.shape[1]], a, c)",
    "step_negative": "shape_of(lambda x: x[::-x.shape[1]], a, c)",
    "step_own_dim": "shape_of(lambda x: x[::x.shape[0]], a)",
    "step_second_axis": "shape_of(lambda x: x[:, ::x.shape[0]], a, b)",
    "step_multiple": "shape_of(lambda x: x[::2 * x.shape[1]], a, b)",
    "step_at_set": "shape_of(lambda x: x.at[::x.shape[1]].set(0.0), a, b)",
    "step_sign_unknown": "shape_of(lambda x: x[::x.shape[1] - 1], a, b)",
    "jaxpr_step_dim": "jax.make_jaxpr(lambda x: x[::x.shape[1]])(S(a, b))",
    "jaxpr_step_negative": "jax.make_jaxpr(lambda x: x[::-x.shape[1]])(S(a, c))",
    "jaxpr_step_stop": "jax.make_jaxpr(lambda x: x[1:5:x.shape[1]])(S(a, c))",
    "jaxpr_at_set": "jax.make_jaxpr(lambda x: x.at[::x.shape[1]].set(0.0))(S(a, b))",
    "export_step_dim": "exported(lambda x: x[::x.shape[1]], p, q, arg=x72)",
    "export_two_steps": "exported(lambda x: x[1::x.shape[1], ::2], p, q, arg=x72)",
    "export_at_set": "exported(lambda x: x.at[::x.shape[1]].set(0.0), p, q, arg=x72)",
    "export_negative": "exported(lambda x: x[::-x.shape[0]], r, arg=x5)",
}
