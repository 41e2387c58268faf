"""jax.scipy.sparse.linalg programs (cg, bicgstab, gmres) whose JAX 0.11.0
behaviour is recorded in ``scipy_sparse.json``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py scipy_sparse

Converged solutions (and their implicit derivatives): the iterates differ
with the algorithm, the solutions agree to the tolerance.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

# Solutions converged to tol=1e-5 (relative residual) by different iterations.
TOLERANCE = (5e-5, 5e-6)

HEAD = ("import importlib\nL = importlib.import_module(jax.__name__ + '.scipy.sparse.linalg')\n"
        "A = jnp.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])\n"
        "G = jnp.array([[3.0, 1.0, 0.0], [-1.0, 2.0, 0.5], [0.5, 0.0, 1.5]])\nb = jnp.array([1.0, 2.0, 3.0])\n")


def value(name: str, body: str) -> None:
  program(name, "value", HEAD + body)


def error(name: str, body: str) -> None:
  program(name, "error", HEAD + body)


value("cg_matrix", "result = L.cg(A, b)[0]")
value("cg_function_preconditioned", "result = L.cg(lambda v: A @ v, b, M=lambda v: v / jnp.diag(A))[0]")
value("cg_x0_atol", "result = L.cg(A, b, x0=jnp.ones(3), atol=1e-3, tol=0.0)[0]")
value("cg_pytree", "t = L.cg(lambda t: {'a': t['a'] * 2.0, 'b': t['b'] * 4.0}, {'a': jnp.ones(2), 'b': jnp.ones(3)})[0]\n"
      "result = jnp.concatenate([t['a'], t['b']])")
value("cg_grad", "result = jax.grad(lambda b: jnp.sum(L.cg(A, b)[0] ** 2))(b)")
value("cg_grad_matrix", "result = jax.grad(lambda A: jnp.sum(L.cg(A, b)[0]))(A)")
value("cg_info", "result = jnp.array(L.cg(A, b)[1] is None)")
value("bicgstab", "result = L.bicgstab(G, b)[0]")
value("bicgstab_vmap", "result = jax.vmap(lambda b: L.bicgstab(G, b)[0])(jnp.stack([b, 2 * b]))")
value("bicgstab_jit", "result = jax.jit(lambda b: L.bicgstab(lambda v: G @ v, b)[0])(b)")
value("gmres", "result = L.gmres(G, b)[0]")
value("gmres_restart", "result = L.gmres(G, b, restart=2, solve_method='incremental')[0]")
value("gmres_info", "result = L.gmres(G, b)[1]")
value("gmres_grad", "result = jax.grad(lambda b: jnp.sum(L.gmres(G, b)[0] ** 2))(b)")
value("gmres_preconditioned", "result = L.gmres(G, b, M=lambda v: v / jnp.diag(G))[0]")
error("error_cg_shape", "result = L.cg(jnp.ones((2, 3)), jnp.ones(2))")
error("error_cg_operator", "result = L.cg('A', b)")
error("error_cg_x0_tree", "result = L.cg(A, b, x0=[b])")
error("error_cg_x0_shape", "result = L.cg(A, b, x0=jnp.ones(2))")
error("error_gmres_method", "result = L.gmres(G, b, solve_method='direct')")
