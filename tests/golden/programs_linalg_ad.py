"""Autodiff of the linalg family, recorded from JAX 0.11.0 into
``linalg_ad.json``: JVP and gradient jaxprs of cholesky, triangular_solve
(and its transpose), tridiagonal_solve (and its transpose), eigh, qr (thin,
square, wide, pivoted, complex, batched), lu (square, tall, wide, batched:
JAX vmaps its rule) and svd (with and without vectors); values of those and
of eig's eigenvalue derivative; JAX's refusals. Same format and runner as
``programs_core.py``; record with

    /tmp/jax-ref/bin/python tests/golden/record_core.py linalg_ad
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


_JVP = "result = jax.make_jaxpr(lambda x, t: jax.jvp(f, (x,), (t,)))"

# A well-conditioned symmetric matrix with eigenvalues 1, 2, 4 and a
# non-symmetric one with singular values far apart, for the values.
_SPD = "a = jnp.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])\n"
_RECT = "a = jnp.array([[3.0, 1.0, 0.0], [0.5, 2.0, 0.3], [0.1, 0.2, 1.0], [0.4, 0.0, 0.2]])\n"

# ---- cholesky ----

program("jvp_cholesky", "jaxpr", f"""
f = lax.linalg.cholesky
{_JVP}(jnp.eye(3), jnp.eye(3))
""")

program("grad_cholesky_batched", "jaxpr", """
f = lambda x: jnp.sum(lax.linalg.cholesky(x) ** 2)
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((2, 3, 3)))
""")

program("jvp_cholesky_complex", "jaxpr", f"""
f = lax.linalg.cholesky
{_JVP}(jnp.eye(2, dtype=jnp.complex64), jnp.eye(2, dtype=jnp.complex64))
""")

program("value_grad_cholesky", "value", _SPD + """
result = jax.grad(lambda x: jnp.sum(lax.linalg.cholesky(x) * jnp.arange(9.0).reshape(3, 3)))(a)
""")

# ---- triangular_solve ----

program("jvp_triangular_solve_left_lower", "jaxpr", """
f = lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=True)
result = jax.make_jaxpr(lambda a, b: jax.jvp(f, (a, b), (a, b)))(jnp.eye(3), jnp.ones((3, 2)))
""")

program("grad_triangular_solve_right_upper_transpose_unit", "jaxpr", """
f = lambda a, b: jnp.sum(lax.linalg.triangular_solve(a, b, left_side=False, lower=False, transpose_a=True,
                                                     unit_diagonal=True))
result = jax.make_jaxpr(jax.grad(f, (0, 1)))(jnp.eye(3), jnp.ones((4, 3)))
""")

program("jvp_triangular_solve_right_wide", "jaxpr", """
f = lambda a, b: lax.linalg.triangular_solve(a, b, left_side=False, lower=True, transpose_a=True)
result = jax.make_jaxpr(lambda a, b: jax.jvp(f, (a, b), (a, b)))(jnp.eye(3), jnp.ones((2, 3)))
""")

program("jvp_triangular_solve_batched_a_only", "jaxpr", """
f = lambda a, b: lax.linalg.triangular_solve(a, b, left_side=True, lower=False, unit_diagonal=True)
result = jax.make_jaxpr(lambda a, b: jax.jvp(lambda a: f(a, b), (a,), (a,)))(jnp.ones((2, 3, 3)), jnp.ones((2, 3, 1)))
""")

program("grad_triangular_solve_complex_conjugate", "jaxpr", """
f = lambda a, b: jnp.sum(lax.real(lax.linalg.triangular_solve(a, b, left_side=True, lower=True, transpose_a=True,
                                                              conjugate_a=True)))
result = jax.make_jaxpr(jax.grad(f, 1))(jnp.eye(3, dtype=jnp.complex64), jnp.ones((3, 2), jnp.complex64))
""")

program("value_grad_triangular_solve", "value", """
a = jnp.array([[2.0, 0.0], [1.0, 4.0]])
f = lambda a, b: jnp.sum(lax.linalg.triangular_solve(a, b, left_side=True, lower=True))
result = jnp.concatenate([g.ravel() for g in jax.grad(f, (0, 1))(a, jnp.array([[1.0], [2.0]]))])
""")

# ---- tridiagonal_solve ----

program("jvp_tridiagonal_solve", "jaxpr", """
f = lambda dl, d, du, b: lax.linalg.tridiagonal_solve(dl, d, du, b)
result = jax.make_jaxpr(lambda *a: jax.jvp(f, a, a))(jnp.ones(4), jnp.ones(4) * 3, jnp.ones(4), jnp.ones((4, 2)))
""")

program("grad_tridiagonal_solve_all", "jaxpr", """
f = lambda dl, d, du, b: jnp.sum(lax.linalg.tridiagonal_solve(dl, d, du, b))
result = jax.make_jaxpr(jax.grad(f, (0, 1, 2, 3)))(jnp.ones(4), jnp.ones(4) * 3, jnp.ones(4), jnp.ones((4, 2)))
""")

program("grad_tridiagonal_solve_rhs_batched", "jaxpr", """
f = lambda dl, d, du, b: jnp.sum(lax.linalg.tridiagonal_solve(dl, d, du, b))
result = jax.make_jaxpr(jax.grad(f, 3))(jnp.ones((2, 4)), jnp.ones((2, 4)) * 3, jnp.ones((2, 4)), jnp.ones((2, 4, 2)))
""")

program("value_grad_tridiagonal_solve", "value", """
dl = jnp.array([0.0, 0.5, -0.3])
d = jnp.array([3.0, 2.5, 3.5])
du = jnp.array([0.4, -0.6, 0.0])
f = lambda d, b: jnp.sum(lax.linalg.tridiagonal_solve(dl, d, du, b) * jnp.array([[1.0], [2.0], [3.0]]))
result = jnp.concatenate([g.ravel() for g in jax.grad(f, (0, 1))(d, jnp.ones((3, 1)))])
""")

# ---- eigh ----

program("jvp_eigh", "jaxpr", f"""
f = lax.linalg.eigh
{_JVP}(jnp.eye(3), jnp.eye(3))
""")

program("grad_eigh_batched", "jaxpr", """
f = lambda x: jnp.sum(lax.linalg.eigh(x)[1] * jnp.arange(3.0))
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((2, 3, 3)))
""")

program("jvp_eigh_complex", "jaxpr", f"""
f = lax.linalg.eigh
{_JVP}(jnp.eye(2, dtype=jnp.complex64), jnp.eye(2, dtype=jnp.complex64))
""")

program("value_grad_eigh_eigenvalues", "value", _SPD + """
result = jax.grad(lambda x: jnp.sum(lax.linalg.eigh(x)[1] * jnp.array([1.0, 10.0, 100.0])))(a)
""")

program("error_eigh_subset", "error", """
f = lambda x: lax.linalg.eigh(x, subset_by_index=(0, 2))
result = jax.jvp(f, (jnp.eye(3),), (jnp.eye(3),))
""")

# ---- qr ----

program("jvp_qr_thin", "jaxpr", f"""
f = lambda x: lax.linalg.qr(x, full_matrices=False)
{_JVP}(jnp.ones((4, 3)), jnp.ones((4, 3)))
""")

program("grad_qr_square_full", "jaxpr", """
f = lambda x: jnp.sum(lax.linalg.qr(x)[0]) + jnp.sum(lax.linalg.qr(x)[1] ** 2)
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((3, 3)))
""")

program("jvp_qr_pivoting", "jaxpr", f"""
f = lambda x: lax.linalg.qr(x, full_matrices=False, pivoting=True)[:2]
{_JVP}(jnp.ones((4, 3)), jnp.ones((4, 3)))
""")

program("jvp_qr_wide_batched", "jaxpr", f"""
f = lambda x: lax.linalg.qr(x, full_matrices=False)
{_JVP}(jnp.ones((2, 3, 4)), jnp.ones((2, 3, 4)))
""")

program("jvp_qr_complex_batched", "jaxpr", f"""
f = lambda x: lax.linalg.qr(x, full_matrices=False)
{_JVP}(jnp.ones((2, 3, 2), jnp.complex64), jnp.ones((2, 3, 2), jnp.complex64))
""")

program("value_jvp_qr", "value", _RECT + """
t = jnp.arange(12.0).reshape(4, 3) / 10
result = jnp.concatenate([o.ravel() for o in jax.jvp(lambda x: lax.linalg.qr(x, full_matrices=False), (a,), (t,))[1]])
""")

# ---- lu ----

program("jvp_lu_tall", "jaxpr", f"""
f = lambda x: lax.linalg.lu(x)[0]
{_JVP}(jnp.ones((4, 3)), jnp.ones((4, 3)))
""")

program("jvp_lu_wide", "jaxpr", f"""
f = lambda x: lax.linalg.lu(x)[0]
{_JVP}(jnp.ones((3, 5)), jnp.ones((3, 5)))
""")

program("grad_lu_square", "jaxpr", """
f = lambda x: jnp.sum(lax.linalg.lu(x)[0] ** 2)
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((3, 3)))
""")

program("jvp_lu_batched_vmapped_rule", "jaxpr", f"""
f = lambda x: lax.linalg.lu(x)[0]
{_JVP}(jnp.ones((2, 4, 3)), jnp.ones((2, 4, 3)))
""")

program("grad_lu_with_integer_outputs", "jaxpr", """
def f(x):
  lu, pivots, _ = lax.linalg.lu(x)
  return jnp.sum(lu) + lax.linalg.lu_pivots_to_permutation(pivots, 3)[0].astype(jnp.float32)
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((3, 3)))
""")

program("value_grad_lu", "value", _SPD + """
result = jax.grad(lambda x: jnp.sum(lax.linalg.lu(x)[0] * jnp.arange(9.0).reshape(3, 3)))(a)
""")

# ---- svd ----

program("jvp_svd_thin", "jaxpr", f"""
f = lambda x: lax.linalg.svd(x, full_matrices=False)
{_JVP}(jnp.ones((4, 3)), jnp.ones((4, 3)))
""")

program("jvp_svd_values_only_batched", "jaxpr", f"""
f = lambda x: lax.linalg.svd(x, compute_uv=False)
{_JVP}(jnp.ones((2, 4, 3)), jnp.ones((2, 4, 3)))
""")

program("grad_svd_wide", "jaxpr", """
f = lambda x: jnp.sum(lax.linalg.svd(x, full_matrices=False)[0])
result = jax.make_jaxpr(jax.grad(f))(jnp.ones((2, 3)))
""")

program("jvp_svd_square_full_batched", "jaxpr", f"""
f = lax.linalg.svd
{_JVP}(jnp.ones((2, 3, 3)), jnp.ones((2, 3, 3)))
""")

program("jvp_svd_complex", "jaxpr", f"""
f = lambda x: lax.linalg.svd(x, full_matrices=False)
{_JVP}(jnp.ones((3, 2), jnp.complex64), jnp.ones((3, 2), jnp.complex64))
""")

program("value_grad_singular_values", "value", _RECT + """
result = jax.grad(lambda x: jnp.sum(lax.linalg.svd(x, compute_uv=False) * jnp.array([1.0, 2.0, 3.0])))(a)
""")

program("error_svd_full_matrices_rectangle", "error", """
f = lax.linalg.svd
result = jax.jvp(f, (jnp.ones((3, 2)),), (jnp.ones((3, 2)),))
""")

# ---- eig (values: its jaxprs need custom_linear_solve) ----

program("value_jvp_eig_eigenvalues", "value", """
a = jnp.array([[2.0, 1.0], [0.0, 3.0]])
f = lambda x: lax.linalg.eig(x, compute_left_eigenvectors=False, compute_right_eigenvectors=False)[0]
result = lax.real(jax.jvp(f, (a,), (jnp.array([[1.0, 2.0], [3.0, 4.0]]),))[1])
""")

program("error_eig_eigenvectors_need_opt_in", "error", """
result = jax.jvp(lax.linalg.eig, (jnp.eye(2),), (jnp.eye(2),))
""")
