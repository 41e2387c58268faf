"""jax.scipy.linalg programs (special matrices, Schur/Hessenberg forms and
the functions built on them, polar, qr_multiply, expm_frechet,
eigh_tridiagonal) whose JAX 0.11.0 behaviour is recorded in
``scipy_linalg_more.json``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py scipy_linalg_more

Decompositions that are unique only up to signs or phases (Schur vectors,
eigenvectors, QR) are recorded through invariants: reconstructions,
absolute values, products.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

# Iterative or reordered float32 algorithms (Schur, QDWH vs SVD, bisection
# vs a dense eigensolver): a few float32 ulps relative to the matrix scale.
TOLERANCE = (2e-5, 2e-5)

HEAD = "L = jax.scipy.linalg\n"


def value(name: str, body: str) -> None:
  program(name, "value", HEAD + body)


def error(name: str, body: str) -> None:
  program(name, "error", HEAD + body)


def cplx(z: str) -> str:
  return f"jnp.stack([jnp.real({z}), jnp.imag({z})])"


GEN = "jnp.array([[1.0, 2.0, 0.0, 0.5], [-1.0, 1.0, 3.0, 0.0], [2.0, 0.0, 1.0, -1.0], [0.5, 1.0, 0.0, 2.0]])"
SPD = "jnp.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])"

# ---- special matrices ----
value("toeplitz_c", "result = L.toeplitz(jnp.array([1.0, 2.0, 3.0]))")
value("toeplitz_cr", "result = L.toeplitz(jnp.array([1.0, 2.0, 3.0]), jnp.array([9.0, 5.0, 6.0, 7.0]))")
value("toeplitz_int", "result = L.toeplitz(jnp.arange(3), jnp.arange(4))")
value("toeplitz_complex", cplx("L.toeplitz(jnp.array([1.0, 2.0 + 1j, 3.0 - 2j]))").join(["result = ", ""]))
value("toeplitz_batched", "result = L.toeplitz(jnp.arange(6.0).reshape(2, 3), jnp.arange(4.0))")
value("toeplitz_scalar", "result = L.toeplitz(3.0)")
value("hankel_c", "result = L.hankel(jnp.array([1.0, 2.0, 3.0]))")
value("hankel_cr", "result = L.hankel(jnp.array([1.0, 2.0, 3.0]), jnp.array([9.0, 5.0, 6.0, 7.0]))")
value("hankel_int", "result = L.hankel(jnp.arange(3), jnp.arange(2))")
value("hankel_batched", "result = L.hankel(jnp.arange(6.0).reshape(2, 3), jnp.arange(2.0))")
value("circulant", "result = L.circulant(jnp.array([1.0, 2.0, 3.0, 4.0]))")
value("circulant_int_batched", "result = L.circulant(jnp.arange(6).reshape(2, 3))")
value("companion", "result = L.companion(jnp.array([2.0, -3.0, 1.0, 4.0]))")
value("companion_int_batched", "result = L.companion(jnp.array([[1, 2, 3], [2, 0, -4]]))")
value("fiedler", "result = L.fiedler(jnp.array([1.0, 4.0, 12.0, 45.0]))")
value("fiedler_int", "result = L.fiedler(jnp.array([1, 4, 12]))")
for n in (1, 2, 3, 4, 5, 6):
  value(f"fiedler_companion_{n}", f"result = L.fiedler_companion(jnp.arange(1.0, {n + 2}.0))")
value("fiedler_companion_batched", "result = L.fiedler_companion(jnp.array([[1.0, 2.0, 3.0, 4.0], [2.0, -1.0, 0.5, 3.0]]))")
value("leslie", "result = L.leslie(jnp.array([0.1, 2.0, 1.0, 0.1]), jnp.array([0.2, 0.8, 0.7]))")
value("leslie_int", "result = L.leslie(jnp.array([1, 2, 3]), jnp.array([4, 5]))")
for mode in ("full", "same", "valid"):
  value(f"convolution_matrix_{mode}", f"result = L.convolution_matrix(jnp.array([1.0, -2.0, 3.0]), 5, mode={mode!r})")
  value(f"convolution_matrix_long_{mode}", f"result = L.convolution_matrix(jnp.arange(1.0, 7.0), 3, mode={mode!r})")
value("dft", cplx("L.dft(4)").join(["result = ", ""]))
value("dft_sqrtn", cplx("L.dft(3, scale='sqrtn')").join(["result = ", ""]))
value("dft_n", cplx("L.dft(5, scale='n')").join(["result = ", ""]))
value("hadamard", "result = L.hadamard(8)")
value("hadamard_float", "result = L.hadamard(4, dtype=jnp.float32)")
value("helmert", "result = L.helmert(5)")
value("helmert_full", "result = L.helmert(4, full=True)")
value("hilbert", "result = L.hilbert(4)")
value("invhilbert", "result = L.invhilbert(5)")
for kind in (None, "lower", "upper"):
  value(f"pascal_{kind}", f"result = L.pascal(5, kind={kind!r})")
  value(f"invpascal_{kind}", f"result = L.invpascal(5, kind={kind!r})")
error("error_companion_short", "result = L.companion(jnp.array([1.0]))")
error("error_fiedler_companion_empty", "result = L.fiedler_companion(jnp.zeros(0))")
error("error_leslie_lengths", "result = L.leslie(jnp.ones(3), jnp.ones(3))")
error("error_leslie_short", "result = L.leslie(jnp.ones(1), jnp.ones(0))")
error("error_convolution_matrix_n", "result = L.convolution_matrix(jnp.ones(3), 0)")
error("error_convolution_matrix_mode", "result = L.convolution_matrix(jnp.ones(3), 2, mode='circular')")
error("error_convolution_matrix_scalar", "result = L.convolution_matrix(1.0, 2)")
error("error_convolution_matrix_empty", "result = L.convolution_matrix(jnp.ones(0), 2)")
error("error_dft_scale", "result = L.dft(3, scale='m')")
error("error_dft_dtype", "result = L.dft(3, dtype=jnp.float32)")
error("error_hadamard", "result = L.hadamard(6)")
error("error_helmert", "result = L.helmert(0)")
error("error_hankel_scalar", "result = L.hankel(1.0)")
error("error_pascal_kind", "result = L.pascal(3, kind='diag')")
error("error_invpascal_kind", "result = L.invpascal(3, kind='diag')")

# ---- Schur, Hessenberg, rsf2csf ----
value("schur_reconstructs", f"a = {GEN}\nT, Z = L.schur(a)\nresult = Z @ T @ Z.T")
value("schur_quasi_triangular", f"T, Z = L.schur({GEN})\nresult = jnp.abs(jnp.tril(T, -2))")
value("schur_orthogonal", f"T, Z = L.schur({GEN})\nresult = Z.T @ Z")
value("schur_values", f"T, Z = L.schur({SPD})\nresult = jnp.sort(jnp.diag(T))")
value("schur_complex", f"a = {GEN}\nT, Z = L.schur(a, output='complex')\n"
      "result = jnp.stack([jnp.abs(Z @ T @ Z.conj().T - a), jnp.abs(jnp.tril(T, -1))])")
value("schur_complex_dtype", f"T, Z = L.schur({GEN}, output='complex')\nresult = jnp.array([T.dtype == jnp.complex64, Z.dtype == jnp.complex64])")
value("hessenberg_h", f"result = jnp.abs(L.hessenberg({GEN}))")
value("hessenberg_reconstructs", f"a = {GEN}\nH, Q = L.hessenberg(a, calc_q=True)\nresult = jnp.stack([Q @ H @ Q.T, Q.T @ Q])")
value("hessenberg_zeros", f"H, Q = L.hessenberg({GEN}, calc_q=True)\nresult = jnp.tril(H, -2)")
value("rsf2csf", f"a = {GEN}\nT, Z = L.rsf2csf(*L.schur(a))\n"
      "result = jnp.stack([jnp.abs(Z @ T @ Z.conj().T - a) < 1e-4, jnp.tril(T, -1) == 0])")
value("rsf2csf_eigenvalues", f"T, Z = L.rsf2csf(*L.schur({GEN}))\nd = jnp.diag(T)\n"
      "result = jnp.sort(jnp.stack([d.real, jnp.abs(d.imag)]), axis=1)")
value("rsf2csf_real_triangular", f"T, Z = L.rsf2csf(*L.schur({SPD}))\nresult = jnp.abs(T)")
error("error_schur_output", f"result = L.schur({GEN}, output='imag')")
error("error_rsf2csf_square", "result = L.rsf2csf(jnp.ones((2, 3)), jnp.ones((2, 2)))")
error("error_rsf2csf_z_square", "result = L.rsf2csf(jnp.ones((2, 2)), jnp.ones((2, 3)))")
error("error_rsf2csf_shapes", "result = L.rsf2csf(jnp.ones((2, 2)), jnp.ones((3, 3)))")

# ---- sqrtm, funm, solve_sylvester ----
value("sqrtm_spd", cplx(f"L.sqrtm({SPD})").join(["result = ", ""]))
value("sqrtm_general", f"a = {GEN} + 4 * jnp.eye(4)\nX = L.sqrtm(a)\nresult = {cplx('X @ X')}")
value("sqrtm_values", cplx(f"L.sqrtm({GEN} + 4 * jnp.eye(4))").join(["result = ", ""]))
value("sqrtm_triangular", cplx("L.sqrtm(jnp.array([[4.0, 1.0, 2.0], [0.0, 9.0, 3.0], [0.0, 0.0, 16.0]]))")
      .join(["result = ", ""]))
error("error_sqrtm_blocksize", f"result = L.sqrtm({SPD}, blocksize=2)")
value("funm_exp", cplx(f"L.funm({SPD} / 4, jnp.exp)").join(["result = ", ""]))
value("funm_general", cplx(f"L.funm({GEN} / 4, jnp.exp)").join(["result = ", ""]))
value("funm_disp_false", f"F, err = L.funm({SPD} / 4, jnp.sin, disp=False)\nresult = jnp.concatenate([jnp.real(F).ravel(), jnp.array([err < 1e-3])])")
error("error_funm_square", "result = L.funm(jnp.ones((2, 3)), jnp.exp)")
B = "jnp.array([[2.0, -1.0], [0.5, 3.0]])"
C = "jnp.array([[1.0, 0.0], [2.0, 1.0], [0.0, -1.0], [1.0, 1.0]])"
value("solve_sylvester", f"result = L.solve_sylvester({GEN} + 3 * jnp.eye(4), {B}, {C})")
value("solve_sylvester_residual", f"A, B, C = {GEN} + 3 * jnp.eye(4), {B}, {C}\nX = L.solve_sylvester(A, B, C)\nresult = A @ X + X @ B")
value("solve_sylvester_eigen", f"result = L.solve_sylvester({GEN} + 3 * jnp.eye(4), {B}, {C}, method='eigen')")
value("solve_sylvester_complex", cplx(f"L.solve_sylvester({SPD} * 1j, jnp.eye(2), jnp.ones((3, 2)))").join(["result = ", ""]))
value("solve_sylvester_singular", "result = L.solve_sylvester(jnp.eye(2), -jnp.eye(2), jnp.ones((2, 2)))")
value("solve_sylvester_batched", f"result = L.solve_sylvester(jnp.stack([{SPD}, 2 * {SPD}]), {B}, jnp.ones((3, 2)))")
error("error_solve_sylvester_shapes", f"result = L.solve_sylvester({SPD}, {B}, jnp.ones((2, 2)))")
error("error_solve_sylvester_method", f"result = L.solve_sylvester({SPD}, {B}, jnp.ones((3, 2)), method='bs')")

# ---- polar, qr_multiply, expm_frechet, eigh_tridiagonal ----
TALL = "jnp.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])"
value("polar_right", f"result = jnp.concatenate([x.ravel() for x in L.polar({TALL})])")
value("polar_left_svd", f"result = jnp.concatenate([x.ravel() for x in L.polar({TALL}, side='left', method='svd')])")
value("polar_right_svd", f"result = jnp.concatenate([x.ravel() for x in L.polar({GEN}, method='svd')])")
value("polar_left_wide", f"result = jnp.concatenate([x.ravel() for x in L.polar({TALL}.T, side='left')])")
value("polar_square", f"result = jnp.concatenate([x.ravel() for x in L.polar({GEN})])")
value("polar_batched", f"result = L.polar(jnp.stack([{GEN}, {GEN}.T]))[1]")
error("error_polar_1d", "result = L.polar(jnp.ones(3))")
error("error_polar_side", f"result = L.polar({GEN}, side='up')")
error("error_polar_method", f"result = L.polar({GEN}, method='newton')")
error("error_polar_qdwh_shape", f"result = L.polar({TALL}.T)")
for mode in ("right", "left"):
  c = "jnp.arange(6.0).reshape(2, 3)" if mode == "right" else "jnp.arange(4.0).reshape(2, 2)"
  value(f"qr_multiply_{mode}", f"cq, r = L.qr_multiply({TALL}, {c}, mode={mode!r})\nresult = jnp.concatenate([jnp.abs(cq).ravel(), jnp.abs(r).ravel()])")
  value(f"qr_multiply_{mode}_product", f"a = {TALL}\ncq, r = L.qr_multiply(a, {c}, mode={mode!r})\n"
        + ("result = cq @ r" if mode == "right" else "result = jnp.abs(cq)"))
value("qr_multiply_1d", f"cq, r = L.qr_multiply({TALL}, jnp.ones(3))\nresult = jnp.abs(cq)")
value("qr_multiply_consistent", f"a = {GEN}\nc = jnp.eye(4)\ncq, r = L.qr_multiply(a, c)\nresult = cq @ r")
value("qr_multiply_wide", f"a = {TALL}.T\ncq, r = L.qr_multiply(a, jnp.eye(2))\nresult = cq @ r")
error("error_qr_multiply_mode", f"result = L.qr_multiply({TALL}, jnp.ones(3), mode='up')")
error("error_qr_multiply_left_shape", f"result = L.qr_multiply({TALL}, jnp.ones((3, 1)), mode='left')")
error("error_qr_multiply_right_shape", f"result = L.qr_multiply({TALL}, jnp.ones((1, 2)))")
value("expm_frechet", f"e, l = L.expm_frechet({GEN} / 4, jnp.eye(4) + {GEN}.T / 8)\nresult = jnp.stack([e, l])")
value("expm_frechet_only", f"result = L.expm_frechet({SPD} / 3, jnp.ones((3, 3)), compute_expm=False)")
error("error_expm_frechet_a", "result = L.expm_frechet(jnp.ones((2, 3)), jnp.ones((2, 3)))")
error("error_expm_frechet_e", "result = L.expm_frechet(jnp.ones((2, 2)), jnp.ones((2, 3)))")
error("error_expm_frechet_shapes", "result = L.expm_frechet(jnp.ones((2, 2)), jnp.ones((3, 3)))")
D, E = "jnp.array([1.0, 2.0, 3.0, 4.0, -1.0])", "jnp.array([1.0, 0.5, -1.0, 2.0])"
value("eigh_tridiagonal_values", f"result = L.eigh_tridiagonal({D}, {E}, eigvals_only=True)")
value("eigh_tridiagonal_select", f"result = L.eigh_tridiagonal({D}, {E}, eigvals_only=True, select='i', select_range=(1, 3))")
value("eigh_tridiagonal_vectors", f"d, e = {D}, {E}\nw, v = L.eigh_tridiagonal(d, e)\n"
      "T = jnp.diag(d) + jnp.diag(e, 1) + jnp.diag(e, -1)\nresult = jnp.stack([T @ v - v * w, v.T @ v])")
value("eigh_tridiagonal_vector_abs", f"result = jnp.abs(L.eigh_tridiagonal({D}, {E})[1])")
value("eigh_tridiagonal_one", "result = jnp.concatenate([x.ravel() for x in L.eigh_tridiagonal(jnp.array([2.0]), jnp.zeros(0))])")
error("error_eigh_tridiagonal_dtypes", f"result = L.eigh_tridiagonal({D}, jnp.ones(4, jnp.int32))")
error("error_eigh_tridiagonal_int", "result = L.eigh_tridiagonal(jnp.ones(3, jnp.int32), jnp.ones(2, jnp.int32))")
error("error_eigh_tridiagonal_v", f"result = L.eigh_tridiagonal({D}, {E}, select='v', select_range=(0.0, 1.0))")
error("error_eigh_tridiagonal_range", f"result = L.eigh_tridiagonal({D}, {E}, select='i')")
error("error_eigh_tridiagonal_empty", f"result = L.eigh_tridiagonal({D}, {E}, select='i', select_range=(3, 1))")
error("error_eigh_tridiagonal_select", f"result = L.eigh_tridiagonal({D}, {E}, select='x')")

# ---- under transformations ----
value("toeplitz_grad", "result = jax.grad(lambda c: jnp.sum(L.toeplitz(c) ** 2))(jnp.array([1.0, 2.0, 3.0]))")
value("sqrtm_jit", cplx(f"jax.jit(L.sqrtm)({SPD})").join(["result = ", ""]))
value("expm_frechet_vmap", f"result = jax.vmap(lambda e: L.expm_frechet({SPD} / 3, e, compute_expm=False))(jnp.stack([jnp.eye(3), jnp.ones((3, 3))]))")
value("polar_grad", f"result = jax.grad(lambda a: jnp.sum(L.polar(a, method='svd')[1]))({TALL})")
