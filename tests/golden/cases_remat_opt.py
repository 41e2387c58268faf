"""custom_vjp's remat optimisation (`defvjp(..., optimize_remat=True)`, the
`remat_opt` primitive of jax.custom_derivatives).

`PRELUDE` defines custom_vjp functions with the option; each case is an
expression whose record is `str()` of its value (a jaxpr or gradients) or
the class and message of what it raised. Recorded by record_remat_opt.py
under JAX 0.11.0; compared under pyjax by tests/test_remat_opt.py.
"""

from __future__ import annotations

from case_runner import run_case_first_line as run_case  # noqa: F401

PRELUDE = '''
import functools
import numpy as np
import jax
import jax.numpy as jnp
from jax.custom_derivatives import remat_opt_p

@jax.custom_vjp
def f(x):
    return jnp.sin(x) * 2

def f_fwd(x):
    return jnp.sin(x) * 2, jnp.cos(x)

f.defvjp(f_fwd, lambda c, g: (2 * c * g,), optimize_remat=True)

w = jnp.array([1., 2., 3.])

@jax.custom_vjp
def g(x, y):
    return {"a": x * w, "b": jnp.exp(y)}

def g_fwd(x, y):
    e = jnp.exp(y)
    return {"a": x * w, "b": e}, (x, e)

def g_bwd(res, ct):
    x, e = res
    return (ct["a"] * w, ct["b"] * e)

g.defvjp(g_fwd, g_bwd, optimize_remat=True)

@jax.custom_vjp
def g2(x, y):
    return {"a": x * 3.0, "b": jnp.exp(y)}

def g2_fwd(x, y):
    e = jnp.exp(y)
    return {"a": x * 3.0, "b": e}, (x, e)

g2.defvjp(g2_fwd, lambda res, ct: (ct["a"] * 3.0, ct["b"] * res[1]), optimize_remat=True)

@functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
def scaled(k, x):
    return jnp.tanh(x) * k

def scaled_fwd(k, x):
    t = jnp.tanh(x)
    return t * k, t

scaled.defvjp(scaled_fwd, lambda k, t, ct: (ct * k * (1 - t * t),), optimize_remat=True)

@jax.custom_vjp
def bad_pair(x):
    return x

bad_pair.defvjp(lambda x: x, lambda r, g: (g,), optimize_remat=True)

x = jnp.float32(0.5)
v = jnp.array([0.5, 1.5, -1.0])
scan2 = lambda h: (lambda x: jax.lax.scan(lambda c, _: (h(c), None), x, None, length=2)[0])
'''

CASES: dict[str, str] = {
    "primitive": "(remat_opt_p, remat_opt_p.multiple_results)",
    "value": "f(x)",
    "grad": "jax.grad(f)(x)",
    "jaxpr_call": "jax.make_jaxpr(f)(x)",
    "jaxpr_vjp": "jax.make_jaxpr(lambda x: jax.vjp(f, x)[0])(x)",
    "jaxpr_grad": "jax.make_jaxpr(jax.grad(f))(x)",
    "jaxpr_grad_checkpoint": "jax.make_jaxpr(jax.grad(jax.checkpoint(f)))(x)",
    "jaxpr_grad_jit": "jax.make_jaxpr(jax.grad(jax.jit(lambda x: f(x) * 3)))(x)",
    "jaxpr_grad_scan": "jax.make_jaxpr(jax.grad(scan2(f)))(x)",
    "grad_checkpoint": "jax.grad(jax.checkpoint(f))(x)",
    "grad_scan": "np.round(jax.grad(scan2(f))(x), 5)",
    "vmap_grad": "jax.vmap(jax.grad(f))(v)",
    "jaxpr_vmap_vjp": "jax.make_jaxpr(jax.vmap(lambda x: jax.vjp(f, x)[0]))(v)",
    "hessian": "jax.hessian(f)(jnp.float32(0.0))",
    "jvp_refused": "jax.jvp(f, (x,), (x,))",
    "pytree_vjp": "[np.round(t, 5) for t in jax.vjp(g, v, v)[1]({'a': jnp.ones(3), 'b': jnp.ones(3)})]",
    "pytree_jaxpr_vjp": "jax.make_jaxpr(lambda x, y: jax.vjp(g, x, y)[0])(v, v)",
    "pytree_jaxpr_checkpoint": "jax.make_jaxpr(jax.grad(jax.checkpoint(lambda x, y: g2(x, y)['a'].sum() + "
                               "g2(x, y)['b'].sum())))(v, v)",
    "nondiff_grad": "jax.grad(lambda x: scaled(3.0, x))(x)",
    "nondiff_jaxpr_vjp": "jax.make_jaxpr(lambda x: jax.vjp(lambda x: scaled(3.0, x), x)[0])(x)",
    "nondiff_jaxpr_checkpoint": "jax.make_jaxpr(jax.grad(jax.checkpoint(lambda x: scaled(3.0, x))))(x)",
    "bad_pair": "jax.grad(bad_pair)(x)",
    "symbolic_zeros_refused": "jax.custom_vjp(jnp.sin).defvjp(f_fwd, lambda c, g: (g,), symbolic_zeros=True, "
                              "optimize_remat=True)",
    "lowered_grad": "jax.jit(jax.grad(f)).lower(x).as_text()",
    "eager_bind": "remat_opt_p.bind(x, num_consts=0, num_res=0, fwd_jaxpr=jax.make_jaxpr(jnp.sin)(x), "
                  "fun_jaxpr_thunk=None)",
}
