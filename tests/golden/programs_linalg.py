"""Programs for the linalg family, recorded from JAX 0.11.0 into ``linalg.json``.

Same format and runner as ``programs_core.py`` (see its docstring). Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py linalg

The set covers the jaxprs of each lax.linalg primitive with typical params
(and the equations the wrappers add: symmetrization, the lower triangle of a
Cholesky factor, vector right-hand sides), values chosen so that float32
LAPACK results are exact or nearly so, and the shape/dtype errors.
"""

from __future__ import annotations

from programs_core import program_set, run_program  # noqa: F401  (run_program: the shared runner)

PROGRAMS, program = program_set()


# ---- jaxprs ----

program("cholesky_symmetrize_and_tril", "jaxpr", """
result = jax.make_jaxpr(lax.linalg.cholesky)(jnp.ones((3, 3)))
""")

program("cholesky_batched_no_symmetrize", "jaxpr", """
def f(x):
  return (lax.linalg.cholesky(x, symmetrize_input=False),
          lax.linalg.cholesky(x))
result = jax.make_jaxpr(f)(jnp.ones((2, 3, 3)))
""")

program("cholesky_update_jaxpr", "jaxpr", """
result = jax.make_jaxpr(lax.linalg.cholesky_update)(jnp.ones((3, 3)), jnp.ones(3))
""")

program("triangular_solve_params", "jaxpr", """
def f(a, b):
  return (lax.linalg.triangular_solve(a, b, left_side=True, lower=True),
          lax.linalg.triangular_solve(a, b.T, transpose_a=True, unit_diagonal=True))
result = jax.make_jaxpr(f)(jnp.ones((3, 3)), jnp.ones((3, 4)))
""")

program("triangular_solve_vector_rhs", "jaxpr", """
def f(a, b):
  return (lax.linalg.triangular_solve(a, b, left_side=True, lower=True),
          lax.linalg.triangular_solve(a, b, left_side=False))
result = jax.make_jaxpr(f)(jnp.ones((2, 3, 3)), jnp.ones((2, 3)))
""")

program("triangular_solve_complex_conjugate", "jaxpr", """
def f(a, b, r):
  return (lax.linalg.triangular_solve(a, b, conjugate_a=True, transpose_a=True),
          lax.linalg.triangular_solve(r, r, conjugate_a=True))
result = jax.make_jaxpr(f)(jnp.ones((3, 3), jnp.complex64), jnp.ones((3, 3), jnp.complex64),
                           jnp.ones((3, 3)))
""")

program("lu_and_pivots_to_permutation", "jaxpr", """
def f(x, p):
  return lax.linalg.lu(x), lax.linalg.lu_pivots_to_permutation(p, 5)
result = jax.make_jaxpr(f)(jnp.ones((4, 3)), jnp.zeros((2, 3), jnp.int32))
""")

program("qr_full_reduced_pivoted", "jaxpr", """
def f(x):
  return (lax.linalg.qr(x), lax.linalg.qr(x, full_matrices=False),
          lax.linalg.qr(x, pivoting=True))
result = jax.make_jaxpr(f)(jnp.ones((4, 3)))
""")

program("householder_product_jaxpr", "jaxpr", """
result = jax.make_jaxpr(lax.linalg.householder_product)(jnp.ones((2, 4, 3)), jnp.ones((2, 2)))
""")

program("ormqr_jaxpr", "jaxpr", """
def f(a, t, c):
  return lax.linalg.ormqr(a, t, c), lax.linalg.ormqr(a, t, c.T, left=False, transpose=True)
result = jax.make_jaxpr(f)(jnp.ones((4, 3)), jnp.ones(3), jnp.ones((4, 2)))
""")

program("eigh_params", "jaxpr", """
def f(x):
  return (lax.linalg.eigh(x),
          lax.linalg.eigh(x, lower=False, symmetrize_input=False, sort_eigenvalues=False,
                          subset_by_index=(1, 3)))
result = jax.make_jaxpr(f)(jnp.ones((2, 3, 3)))
""")

program("eigh_implementation_enum", "jaxpr", """
result = jax.make_jaxpr(lambda x: lax.linalg.eigh(
    x, symmetrize_input=False, implementation=lax.linalg.EighImplementation.QR))(jnp.ones((3, 3)))
""")

program("eig_outputs", "jaxpr", """
def f(x):
  return (lax.linalg.eig(x), lax.linalg.eig(x, compute_left_eigenvectors=False),
          lax.linalg.eig(x, compute_left_eigenvectors=False, compute_right_eigenvectors=False))
result = jax.make_jaxpr(f)(jnp.ones((3, 3)))
""")

program("svd_variants", "jaxpr", """
def f(x):
  return (lax.linalg.svd(x), lax.linalg.svd(x, compute_uv=False),
          lax.linalg.svd(x, full_matrices=False, subset_by_index=(0, 2),
                         algorithm=lax.linalg.SvdAlgorithm.QR))
result = jax.make_jaxpr(f)(jnp.ones((4, 3)))
""")

program("schur_hessenberg_tridiagonal", "jaxpr", """
def f(x):
  return (lax.linalg.schur(x), lax.linalg.schur(x, compute_schur_vectors=False),
          lax.linalg.hessenberg(x), lax.linalg.tridiagonal(x, lower=False))
result = jax.make_jaxpr(f)(jnp.ones((3, 3), jnp.complex64))
""")

program("tridiagonal_solve_jaxpr", "jaxpr", """
def f(dl, d, du, b):
  return (lax.linalg.tridiagonal_solve(dl, d, du, b),
          lax.linalg.tridiagonal_solve(dl, d, du, b, perturb_singular=True))
result = jax.make_jaxpr(f)(jnp.ones((2, 4)), jnp.ones((2, 4)), jnp.ones((2, 4)), jnp.ones((2, 4, 3)))
""")

program("symmetric_product_symmetrize_output", "jaxpr", """
def f(a, c):
  return (lax.linalg.symmetric_product(a, c),
          lax.linalg.symmetric_product(a, c, alpha=2.0, beta=0.5, symmetrize_output=True))
result = jax.make_jaxpr(f)(jnp.ones((3, 2)), jnp.ones((3, 3)))
""")

program("linalg_enums_text", "text", """
L = lax.linalg
result = " ".join(str(e) for e in [L.SvdAlgorithm.DEFAULT, L.SvdAlgorithm.DIVIDE_AND_CONQUER,
                                   L.EighImplementation.QDWH, L.EigImplementation.LAPACK])
""")

# ---- values ----

program("cholesky_values_exact", "value", """
a = np.array([[4, 2, 2], [2, 5, 3], [2, 3, 6]], np.float32)
result = lax.linalg.cholesky(a)
""")

program("cholesky_raw_primitive_upper_kept_and_nan_on_failure", "value", """
a = np.array([[[4, 9], [2, 5]], [[-1, 0], [0, 1]]], np.float32)
result = lax.linalg.cholesky_p.bind(a)
""")

program("cholesky_weak_input_stays_weak", "value", """
result = lax.linalg.cholesky(lax.broadcast_in_dim(4.0, (2, 2), ()))
""")

program("eigh_weak_input_eigenvalues_weak", "value", """
v, w = lax.linalg.eigh(lax.broadcast_in_dim(1.0, (2, 2), ()))
result = w
""")

program("lu_values_pivots_permutation", "value", """
x = np.array([[1, 2], [4, 4], [2, 8]], np.float32)
lu, pivots, perm = lax.linalg.lu(x)
result = np.concatenate([np.asarray(lu).ravel(), np.asarray(pivots), np.asarray(perm)])
""")

program("lu_pivots_to_permutation_values", "value", """
result = lax.linalg.lu_pivots_to_permutation(np.array([[2, 2, 2], [1, 1, 2]], np.int32), 4)
""")

program("triangular_solve_values", "value", """
a = np.array([[2, 0, 0], [1, 4, 0], [3, 2, 8]], np.float32)
b = np.array([[2, 4], [5, 6], [17, 16]], np.float32)
result = np.stack([np.asarray(lax.linalg.triangular_solve(a, b, left_side=True, lower=True)),
                   np.asarray(lax.linalg.triangular_solve(a, b, left_side=True, lower=True,
                                                          transpose_a=True))])
""")

program("triangular_solve_zero_pivot_inf", "value", """
a = np.array([[0, 0], [1, 1]], np.float32)
result = lax.linalg.triangular_solve(a, np.ones((2, 2), np.float32), left_side=True, lower=True)
""")

program("tridiagonal_solve_values_and_singular_nan", "value", """
dl = np.array([[0, 1, 2], [0, 0, 0]], np.float32)
d = np.array([[4, 4, 4], [0, 0, 0]], np.float32)
du = np.array([[1, 1, 0], [0, 0, 0]], np.float32)
b = np.array([[[5], [6], [10]], [[1], [1], [1]]], np.float32)
result = lax.linalg.tridiagonal_solve(dl, d, du, b)
""")

program("tridiagonal_solve_perturbed_singular", "value", """
dl = np.array([[0, 1], [0, 0]], np.float32)
d = np.array([[1, 1], [0, 0]], np.float32)
du = np.array([[1, 0], [0, 0]], np.float32)
b = np.array([[[1, 2], [3, 4]], [[1, 2], [3, 4]]], np.float32)
result = lax.linalg.tridiagonal_solve(dl, d, du, b, perturb_singular=True)
""")

program("eigh_eigenvalues_diagonal", "value", """
v, w = lax.linalg.eigh(np.diag(np.array([3, 1, 2], np.float32)))
result = w
""")

program("svd_singular_values_only", "value", """
x = np.array([[3, 0], [0, -4], [0, 0]], np.float32)
result = lax.linalg.svd(x, compute_uv=False)
""")

program("qr_r_values", "value", """
x = np.array([[3, 1], [4, 2]], np.float32)
q, r = lax.linalg.qr(x)
result = np.abs(np.asarray(r))
""")

program("svd_empty_matrix", "value", """
u, s, vh = lax.linalg.svd(np.zeros((0, 3), np.float32))
print(u.shape, s.shape)
result = vh
""")

# ---- errors ----

program("cholesky_non_square_error", "error", """
lax.linalg.cholesky(jnp.ones((2, 3)), symmetrize_input=False)
""")

program("cholesky_int_dtype_error", "error", """
lax.linalg.cholesky(jnp.ones((2, 2), jnp.int32), symmetrize_input=False)
""")

program("cholesky_rank_error", "error", """
lax.linalg.cholesky(jnp.ones(3), symmetrize_input=False)
""")

program("cholesky_update_batched_error", "error", """
lax.linalg.cholesky_update(jnp.ones((2, 3, 3)), jnp.ones((2, 3)))
""")

program("triangular_solve_dtype_mismatch_error", "error", """
lax.linalg.triangular_solve(jnp.ones((3, 3)), jnp.ones((3, 3), jnp.complex64))
""")

program("triangular_solve_shape_error", "error", """
lax.linalg.triangular_solve(jnp.ones((3, 3)), jnp.ones((4, 2)), left_side=True)
""")

program("triangular_solve_batch_rank_error", "error", """
lax.linalg.triangular_solve(jnp.ones((2, 3, 3)), jnp.ones((5, 2, 3, 3)))
""")

program("eig_non_square_error", "error", """
lax.linalg.eig(jnp.ones((2, 3)))
""")

program("eigh_non_square_error", "error", """
lax.linalg.eigh(jnp.ones((2, 3)), symmetrize_input=False)
""")

program("eigh_subset_not_on_cpu_error", "error", """
lax.linalg.eigh(jnp.eye(3), subset_by_index=(0, 2))
""")

program("svd_full_matrices_subset_error", "error", """
lax.linalg.svd(jnp.ones((4, 3)), subset_by_index=(0, 2))
""")

program("svd_jacobi_not_on_cpu_error", "error", """
lax.linalg.svd(jnp.eye(3), algorithm=lax.linalg.SvdAlgorithm.JACOBI)
""")

program("lu_pivots_to_permutation_size_error", "error", """
lax.linalg.lu_pivots_to_permutation(jnp.zeros(3, jnp.int32), 2)
""")

program("lu_pivots_to_permutation_dtype_error", "error", """
lax.linalg.lu_pivots_to_permutation(jnp.zeros(3, jnp.uint32), 4)
""")

program("householder_product_wide_error", "error", """
lax.linalg.householder_product(jnp.ones((2, 3)), jnp.ones(2))
""")

program("householder_product_taus_error", "error", """
lax.linalg.householder_product(jnp.ones((4, 3)), jnp.ones(4))
""")

program("tridiagonal_solve_shapes_error", "error", """
lax.linalg.tridiagonal_solve(jnp.ones(3), jnp.ones(3), jnp.ones(4), jnp.ones((3, 1)))
""")

program("tridiagonal_solve_rhs_error", "error", """
lax.linalg.tridiagonal_solve(jnp.ones(3), jnp.ones(3), jnp.ones(3), jnp.ones((4, 1)))
""")

program("schur_non_square_error", "error", """
lax.linalg.schur(jnp.ones((2, 3)))
""")

program("symmetric_product_shape_error", "error", """
lax.linalg.symmetric_product(jnp.ones((3, 2)), jnp.ones((2, 2)))
""")

program("symmetric_product_complex_error", "error", """
lax.linalg.symmetric_product(jnp.ones((2, 2), jnp.complex64), jnp.ones((2, 2), jnp.complex64))
""")

program("ormqr_shape_error", "error", """
lax.linalg.ormqr(jnp.ones((4, 3)), jnp.ones(3), jnp.ones((3, 2)))
""")
