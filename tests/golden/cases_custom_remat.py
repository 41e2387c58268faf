"""jax.custom_remat under JAX 0.11's default checkpoint (jax_remat3 off): a
custom_remat function evaluates, jits and differentiates (forward, and in
reverse under checkpoint) as the function it wraps.

`PRELUDE` runs first; each case is an expression whose record is `str()` of
its value or the class and message of what it raised. Recorded by
record_custom_remat.py under JAX 0.11.0; compared under pyjax by
tests/test_custom_remat.py.
"""

from __future__ import annotations

from case_runner import run_case  # noqa: F401

PRELUDE = '''
import jax
import jax.numpy as jnp

calls = []

def f(x):
    return jnp.sin(x) * 2

def f_fwd(policy, x):
    calls.append("fwd")
    return f(x), None

def f_rem(res, x):
    calls.append("rem")
    return f(x), jnp.cos(x)

def f_bwd(res, g):
    calls.append("bwd")
    return (2 * res * g,)

g = jax.custom_remat(f, f_fwd, f_rem, f_bwd)
x = jnp.float32(0.5)
one = jnp.float32(1.0)

def h(x, n, *, k):
    return x ** n * k

hr = jax.custom_remat(h, f_fwd, f_rem, f_bwd, static_argnums=(1,), static_argnames=("k",))
w = jnp.array([1., 2.])
closed = jax.custom_remat(lambda x: (x * w).sum(), f_fwd, f_rem, f_bwd)
tree = jax.custom_remat(lambda d: {"s": d["a"] + d["b"]}, f_fwd, f_rem, f_bwd)
'''

CASES: dict[str, str] = {
    "value": "g(x)",
    "jit": "jax.jit(g)(x)",
    "jvp": "jax.jvp(g, (x,), (one,))",
    "grad_checkpoint": "jax.grad(jax.checkpoint(g))(x)",
    "grad_checkpoint_jit": "jax.jit(jax.grad(jax.checkpoint(g)))(x)",
    "rules_not_run": "(jax.grad(jax.checkpoint(g))(x), calls)",
    "static_arguments": "hr(x, 3, k=2.)",
    "static_jvp": "jax.jvp(lambda x: hr(x, 3, k=2.), (x,), (one,))",
    "static_grad_checkpoint": "jax.grad(jax.checkpoint(lambda x: hr(x, 3, k=2.)))(x)",
    "closure": "closed(jnp.ones(2))",
    "closure_jvp": "jax.jvp(closed, (jnp.ones(2),), (jnp.ones(2),))",
    "pytree": "tree({'a': 1., 'b': 2.})",
    "name": "g.__name__",
    "lowered": "jax.jit(g).lower(x).as_text()",
    "hessian_checkpoint": "jax.jacfwd(jax.grad(jax.checkpoint(g)))(x)",
}
