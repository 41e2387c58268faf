"""jax.numpy.linalg programs whose JAX 0.11.0 behaviour is recorded in
``jnp_linalg.json``.

Same format and runner as ``programs_core.py`` (see its docstring). Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py jnp_linalg

The jaxprs show which functions are jits and custom_jvps and the equations
around each lax.linalg primitive; values use small well-conditioned
matrices whose float32 results are stable to a few ulps; errors are JAX's
messages. (solve and inv are left out of the jaxprs: JAX stages them through
custom_linear_solve, which pyjax does not have yet.)
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()


def jaxpr(name: str, call: str, shape: str = "(3, 3)") -> None:
  program(f"jaxpr_{name}", "jaxpr", f"result = jax.make_jaxpr(lambda x: {call})(jnp.ones({shape}))")


jaxpr("cholesky", "jnp.linalg.cholesky(x)")
jaxpr("cholesky_upper", "jnp.linalg.cholesky(x, upper=True)")
jaxpr("cholesky_batched_nosym", "jnp.linalg.cholesky(x, symmetrize_input=False)", "(2, 3, 3)")
jaxpr("qr", "jnp.linalg.qr(x)", "(4, 3)")
jaxpr("qr_complete", "jnp.linalg.qr(x, mode='complete')", "(4, 3)")
jaxpr("qr_r", "jnp.linalg.qr(x, mode='r')", "(3, 4)")
jaxpr("qr_raw", "jnp.linalg.qr(x, mode='raw')", "(4, 3)")
jaxpr("eigh", "jnp.linalg.eigh(x)")
jaxpr("eigh_upper", "jnp.linalg.eigh(x, UPLO='U', symmetrize_input=False)")
jaxpr("eigvalsh", "jnp.linalg.eigvalsh(x)")
jaxpr("eig", "jnp.linalg.eig(x)")
jaxpr("eigvals", "jnp.linalg.eigvals(x)")
jaxpr("svd", "jnp.linalg.svd(x)", "(4, 3)")
jaxpr("svd_reduced", "jnp.linalg.svd(x, full_matrices=False)", "(2, 4, 3)")
jaxpr("svd_values", "jnp.linalg.svd(x, compute_uv=False)", "(4, 3)")
jaxpr("svdvals", "jnp.linalg.svdvals(x)", "(4, 3)")
jaxpr("det_2x2", "jnp.linalg.det(x)", "(2, 2)")
jaxpr("det_3x3", "jnp.linalg.det(x)")
jaxpr("slogdet_1x1", "jnp.linalg.slogdet(x)", "(1, 1)")
jaxpr("slogdet_2x2_batched", "jnp.linalg.slogdet(x)", "(3, 2, 2)")
jaxpr("norm", "jnp.linalg.norm(x)")
jaxpr("norm_vector_axis", "jnp.linalg.norm(x, axis=1)")
jaxpr("norm_ord1", "jnp.linalg.norm(x, 1)")
jaxpr("norm_inf_keepdims", "jnp.linalg.norm(x, np.inf, keepdims=True)")
jaxpr("norm_ord3_vector", "jnp.linalg.norm(x, ord=3, axis=0)")
jaxpr("norm_nuc", "jnp.linalg.norm(x, 'nuc')", "(3, 4)")
jaxpr("norm_2_matrix", "jnp.linalg.norm(x, 2, axis=(0, 2))", "(3, 2, 4)")
jaxpr("vector_norm_inf", "jnp.linalg.vector_norm(x, ord=np.inf)")
jaxpr("vector_norm_0", "jnp.linalg.vector_norm(x, ord=0, axis=1)")
jaxpr("matrix_norm_fro", "jnp.linalg.matrix_norm(x)", "(2, 3, 3)")
jaxpr("matrix_power_5", "jnp.linalg.matrix_power(x, 5)")
jaxpr("matrix_power_0", "jnp.linalg.matrix_power(x, 0)", "(2, 3, 3)")
jaxpr("matrix_power_3", "jnp.linalg.matrix_power(x, 3)")
jaxpr("matrix_rank", "jnp.linalg.matrix_rank(x)")
jaxpr("matrix_rank_tol", "jnp.linalg.matrix_rank(x, 0.5)", "(4, 3)")
jaxpr("cond", "jnp.linalg.cond(x)")
jaxpr("cond_minus2", "jnp.linalg.cond(x, -2)")
jaxpr("outer", "jnp.linalg.outer(x, x)", "(3,)")
jaxpr("matrix_transpose", "jnp.linalg.matrix_transpose(x)", "(2, 3, 4)")
jaxpr("matmul", "jnp.linalg.matmul(x, x)")
jaxpr("diagonal", "jnp.linalg.diagonal(x)", "(2, 3, 4)")
jaxpr("diagonal_offset", "jnp.linalg.diagonal(x, offset=1)", "(3, 4)")
program("jaxpr_grad_det_3x3", "jaxpr", "result = jax.make_jaxpr(jax.grad(jnp.linalg.det))(jnp.eye(3))")
program("jaxpr_grad_slogdet_2x2", "jaxpr",
        "result = jax.make_jaxpr(jax.grad(lambda x: jnp.linalg.slogdet(x)[1]))(jnp.eye(2))")

# ---- values ----

A = "jnp.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])"
B = "jnp.array([[1.0, 2.0, 0.0], [-1.0, 1.0, 3.0], [2.0, 0.0, 1.0]])"


def value(name: str, call: str) -> None:
  program(f"value_{name}", "value", f"a = {A}\nb = {B}\nresult = {call}")


value("cholesky", "jnp.linalg.cholesky(a)")
value("cholesky_upper", "jnp.linalg.cholesky(a, upper=True)")
value("cholesky_not_pd", "jnp.linalg.cholesky(b)")
value("eigvalsh", "jnp.linalg.eigvalsh(a)")
value("svdvals", "jnp.linalg.svdvals(b)")
value("det", "jnp.linalg.det(b)")
value("det_4x4", "jnp.linalg.det(jnp.eye(4) * 2.0 + jnp.ones((4, 4)))")
value("det_singular", "jnp.linalg.det(jnp.ones((4, 4)))")
value("slogdet_sign", "jnp.stack(jnp.linalg.slogdet(-2.0 * jnp.eye(5)))")
value("slogdet_qr", "jnp.stack(jnp.linalg.slogdet(b, method='qr'))")
value("inv", "jnp.linalg.inv(a)")
value("solve_vector", "jnp.linalg.solve(b, jnp.array([1.0, 2.0, 3.0]))")
value("solve_batched", "jnp.linalg.solve(jnp.stack([a, b]), jnp.ones((2, 3, 2)))")
value("pinv", "jnp.linalg.pinv(b[:, :2])")
value("pinv_rank_deficient", "jnp.linalg.pinv(jnp.ones((3, 2)))")
value("lstsq", "jnp.linalg.lstsq(b[:, :2], jnp.array([1.0, 0.0, 2.0]))[0]")
value("lstsq_residual", "jnp.linalg.lstsq(b[:, :2], jnp.array([1.0, 0.0, 2.0]))[1]")
value("norm_fro", "jnp.linalg.norm(b)")
value("norm_ord_list", "jnp.stack([jnp.linalg.norm(b, o) for o in (1, -1, np.inf, -np.inf, 2, -2, 'nuc')])")
value("norm_vector_orders", "jnp.stack([jnp.linalg.norm(b[0], o) for o in (0, 1, 2, 3, np.inf, -np.inf, -1)])")
value("matrix_power_neg", "jnp.linalg.matrix_power(a, -2)")
value("matrix_power_7", "jnp.linalg.matrix_power(b / 3, 7)")
value("matrix_rank", "jnp.linalg.matrix_rank(jnp.ones((3, 3)))")
value("cond_fro", "jnp.linalg.cond(b, 'fro')")
value("cond_singular", "jnp.linalg.cond(jnp.ones((3, 3)), 1)")
value("tensorsolve", "jnp.linalg.tensorsolve(jnp.kron(a, b).reshape(3, 3, 3, 3), jnp.arange(9.0).reshape(3, 3))")
value("tensorinv", "jnp.linalg.tensorinv(jnp.kron(a, b).reshape(9, 3, 3), 1)")
value("multi_dot", "jnp.linalg.multi_dot([jnp.arange(3.0), a, b, jnp.ones((3, 2))])")
value("cross", "jnp.linalg.cross(a, b)")
value("trace", "jnp.linalg.trace(jnp.stack([a, b]))")
value("vecdot", "jnp.linalg.vecdot(a, b)")
value("grad_det", "jax.grad(jnp.linalg.det)(b)")
value("grad_det_singular", "jax.grad(jnp.linalg.det)(jnp.array([[1.0, 2.0], [2.0, 4.0]]))")
value("grad_slogdet", "jax.grad(lambda x: jnp.linalg.slogdet(x)[1])(a)")

# ---- errors ----

program("error_slogdet_shape", "error", "result = jnp.linalg.slogdet(jnp.ones((2, 3)))")
program("error_slogdet_method", "error", "result = jnp.linalg.slogdet(jnp.eye(3), method='svd')")
program("error_det_shape", "error", "result = jnp.linalg.det(jnp.ones((2, 3)))")
program("error_inv_shape", "error", "result = jnp.linalg.inv(jnp.ones((2, 3)))")
program("error_solve_rank", "error", "result = jnp.linalg.solve(jnp.ones(3), jnp.ones(3))")
program("error_solve_batched_vector", "error", "result = jnp.linalg.solve(jnp.ones((2, 3, 3)), jnp.ones((2, 3)))")
program("error_qr_mode", "error", "result = jnp.linalg.qr(jnp.eye(3), mode='economic')")
program("error_eigh_uplo", "error", "result = jnp.linalg.eigh(jnp.eye(3), UPLO='X')")
program("error_norm_matrix_ord", "error", "result = jnp.linalg.norm(jnp.eye(3), 3)")
program("error_norm_axes", "error", "result = jnp.linalg.norm(jnp.ones((2, 2, 2)), axis=(0, 1, 2))")
program("error_vector_norm_str", "error", "result = jnp.linalg.vector_norm(jnp.ones(3), ord='inf')")
program("error_matrix_power_rank", "error", "result = jnp.linalg.matrix_power(jnp.ones(3), 2)")
program("error_matrix_power_square", "error", "result = jnp.linalg.matrix_power(jnp.ones((2, 3)), 2)")
program("error_matrix_power_exponent", "error", "result = jnp.linalg.matrix_power(jnp.eye(2), 1.5)")
program("error_matrix_rank_tols", "error", "result = jnp.linalg.matrix_rank(jnp.eye(2), 0.1, tol=0.1)")
program("error_pinv_tols", "error", "result = jnp.linalg.pinv(jnp.eye(2), 0.1, rcond=0.1)")
program("error_cond_1d", "error", "result = jnp.linalg.cond(jnp.ones(3))")
program("error_cond_square", "error", "result = jnp.linalg.cond(jnp.ones((2, 3)), 1)")
program("error_lstsq_rows", "error", "result = jnp.linalg.lstsq(jnp.ones((3, 2)), jnp.ones(4))")
program("error_tensorinv", "error", "result = jnp.linalg.tensorinv(jnp.ones((2, 3)), 1)")
program("error_tensorsolve", "error", "result = jnp.linalg.tensorsolve(jnp.ones((2, 3, 3)), jnp.ones(3))")
program("value_multi_dot_one_matrix", "value", "result = jnp.linalg.multi_dot([jnp.array([[1.0, 2.0], [3.0, 4.0]])])")
program("error_multi_dot_one_vector", "error", "result = jnp.linalg.multi_dot([jnp.ones(3)])")
program("error_multi_dot_shapes", "error", "result = jnp.linalg.multi_dot([jnp.eye(2), jnp.ones((3, 2))])")
program("error_outer_2d", "error", "result = jnp.linalg.outer(jnp.eye(2), jnp.ones(2))")
program("error_cross_size", "error", "result = jnp.linalg.cross(jnp.ones(2), jnp.ones(3))")
program("error_matrix_transpose_1d", "error", "result = jnp.linalg.matrix_transpose(jnp.ones(3))")
program("error_cholesky_int_rank", "error", "result = jnp.linalg.cholesky(jnp.ones(3))")
