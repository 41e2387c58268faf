"""vmap of the lax.linalg primitives, recorded from JAX 0.11.0 into
``linalg_vmap.json``.

Same format and runner as ``programs_core.py``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py linalg_vmap

Every linalg primitive maps over leading batch dimensions, so the vmap axis
moves to the front of every operand (unbatched ones are broadcast). The two
solves with only the right-hand side batched fold the examples into extra
right-hand sides of one solve instead.
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


program("cholesky_in_axes_2", "jaxpr", """
result = jax.make_jaxpr(jax.vmap(lax.linalg.cholesky_p.bind, in_axes=2))(jnp.ones((3, 3, 4)))
""")

program("eigh_qr_svd_lu", "jaxpr", """
def f(x):
  return (lax.linalg.eigh(x), lax.linalg.qr(x, full_matrices=False), lax.linalg.svd(x), lax.linalg.lu(x))
result = jax.make_jaxpr(jax.vmap(f, in_axes=1))(jnp.ones((3, 2, 3)))
""")

program("eig_schur_hessenberg", "jaxpr", """
f = lambda x: (lax.linalg.eig(x, compute_left_eigenvectors=False), lax.linalg.schur(x), lax.linalg.hessenberg(x))
result = jax.make_jaxpr(jax.vmap(f))(jnp.ones((2, 3, 3)))
""")

program("householder_product_unbatched_taus", "jaxpr", """
f = lambda a, t: lax.linalg.householder_product(a, t)
result = jax.make_jaxpr(jax.vmap(f, in_axes=(0, None)))(jnp.ones((2, 4, 3)), jnp.ones(3))
""")

program("lu_pivots_to_permutation_batched", "jaxpr", """
f = lambda p: lax.linalg.lu_pivots_to_permutation(p, 4)
result = jax.make_jaxpr(jax.vmap(f, in_axes=1))(jnp.zeros((3, 2), jnp.int32))
""")

program("triangular_solve_both_batched", "jaxpr", """
f = lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True)
result = jax.make_jaxpr(jax.vmap(f, in_axes=(2, 0)))(jnp.ones((3, 3, 4)), jnp.ones((4, 3, 2)))
""")

program("triangular_solve_matrix_batched_only", "jaxpr", """
f = lambda a, b: lax.linalg.triangular_solve(a, b, transpose_a=True)
result = jax.make_jaxpr(jax.vmap(f, in_axes=(0, None)))(jnp.ones((4, 3, 3)), jnp.ones((2, 3)))
""")

program("triangular_solve_rhs_batched_right_side", "jaxpr", """
a = jnp.eye(3)
f = lambda b: lax.linalg.triangular_solve(a, b, left_side=False, lower=True)
result = jax.make_jaxpr(jax.vmap(f, in_axes=2))(jnp.ones((2, 3, 4)))
""")

program("tridiagonal_solve_rhs_batched", "jaxpr", """
f = lambda b: lax.linalg.tridiagonal_solve(jnp.ones(3), 4 * jnp.ones(3), jnp.ones(3), b)
result = jax.make_jaxpr(jax.vmap(f, in_axes=1))(jnp.ones((3, 4, 2)))
""")

program("tridiagonal_solve_diagonal_batched", "jaxpr", """
f = lambda d, b: lax.linalg.tridiagonal_solve(jnp.ones(3), d, jnp.ones(3), b)
result = jax.make_jaxpr(jax.vmap(f, in_axes=(0, None)))(jnp.ones((4, 3)), jnp.ones((3, 2)))
""")

program("value_cholesky_per_example", "value", """
x = jnp.array([[[4., 2.], [2., 3.]], [[9., 3.], [3., 5.]]])
result = jax.vmap(lax.linalg.cholesky, in_axes=2)(jnp.moveaxis(x, 0, 2))
""")

program("value_triangular_solve_rhs_batched", "value", """
a = jnp.array([[2., 0., 0.], [1., 3., 0.], [1., 1., 4.]])
b = jnp.arange(12.).reshape(3, 2, 2)
result = jax.vmap(lambda b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True), in_axes=1)(b)
""")
