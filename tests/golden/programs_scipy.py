"""jax.scipy programs whose JAX 0.11.0 behaviour is recorded in ``scipy.json``.

Same format and runner as ``programs_core.py`` (see its docstring). Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py scipy

Covers jax.scipy.special (the custom_jvp functions, the compositions around
lax's special-function primitives), jax.scipy.linalg (SciPy's conventions
around lax.linalg), jax.scipy.stats (log-densities and distribution
functions) and jax.scipy.optimize.minimize: jaxprs, values and JAX's errors.
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()


def jaxpr(name: str, call: str, args: str = "jnp.ones(3)") -> None:
  program(f"jaxpr_{name}", "jaxpr", f"sp = jax.scipy.special\nresult = jax.make_jaxpr(lambda x: {call})({args})")


# ---- special: jaxprs ----

jaxpr("erf", "sp.erf(x)")
jaxpr("erfc_int", "sp.erfc(x)", "jnp.arange(3)")
jaxpr("erfinv", "sp.erfinv(x)")
jaxpr("gammaln", "sp.gammaln(x)")
jaxpr("digamma", "sp.digamma(x)")
jaxpr("gammainc", "sp.gammainc(x, 2.0)")
jaxpr("gammaincc", "sp.gammaincc(2.0, x)")
jaxpr("betainc", "sp.betainc(x, 2.0, 0.5)")
jaxpr("polygamma", "sp.polygamma(2, x)")
jaxpr("zeta", "sp.zeta(x, 2.0)")
jaxpr("i0e", "sp.i0e(x)")
jaxpr("i1", "sp.i1(x)")
jaxpr("expit", "sp.expit(x)")
jaxpr("logit", "sp.logit(x)")
jaxpr("xlogy", "sp.xlogy(x, x)")
jaxpr("xlog1py", "sp.xlog1py(x, 2.0)")
jaxpr("entr", "sp.entr(x)")
jaxpr("ndtr", "sp.ndtr(x)")
jaxpr("log_ndtr", "sp.log_ndtr(x)")
jaxpr("betaln", "sp.betaln(x, 3.0)")
jaxpr("factorial", "sp.factorial(x)")
jaxpr("multigammaln", "sp.multigammaln(x, 3)")
jaxpr("logsumexp", "sp.logsumexp(x)", "jnp.ones((2, 3))")
jaxpr("logsumexp_b_sign", "sp.logsumexp(x, axis=1, b=2.0, return_sign=True)", "jnp.ones((2, 3))")
jaxpr("logsumexp_keepdims", "sp.logsumexp(x, axis=0, keepdims=True)", "jnp.ones((2, 3))")
program("jaxpr_grad_xlogy", "jaxpr",
        "result = jax.make_jaxpr(jax.grad(lambda x: jax.scipy.special.xlogy(x, 2.0)))(1.0)")
program("jaxpr_grad_logit", "jaxpr", "result = jax.make_jaxpr(jax.grad(jax.scipy.special.logit))(0.3)")

# ---- special: values ----


def value(name: str, call: str) -> None:
  program(f"value_{name}", "value", f"sp = jax.scipy.special\nresult = {call}")


value("gamma", "sp.gamma(jnp.array([0.5, 3.0, -0.5, -1.5]))")
value("gammasgn", "sp.gammasgn(jnp.array([0.5, -0.5, -1.5, -2.0]))")
value("ndtri", "sp.ndtri(jnp.array([0.0, 0.01, 0.5, 0.975, 1.0]))")
value("log_ndtr_tails", "sp.log_ndtr(jnp.array([-30.0, -8.0, 0.0, 6.0]))")
value("xlogy_zero", "sp.xlogy(jnp.array([0.0, 0.0, 2.0]), jnp.array([0.0, jnp.nan, 3.0]))")
value("entr", "sp.entr(jnp.array([-1.0, 0.0, 0.5, 2.0]))")
value("betaln_large", "sp.betaln(jnp.array([1.0, 10.0]), jnp.array([9.0, 1e6]))")
value("comb", "sp.comb(10.0, jnp.array([0.0, 3.0, 11.0]))")
value("logsumexp_negative_b", "sp.logsumexp(jnp.array([1.0, 2.0]), b=jnp.array([1.0, -2.0]))")
value("logsumexp_sign", "jnp.stack(sp.logsumexp(jnp.array([1.0, 2.0]), b=jnp.array([1.0, -2.0]), return_sign=True))")
value("grad_zeta", "jax.grad(sp.zeta)(3.0, 2.0)")
value("grad_log_ndtr", "jax.vmap(jax.grad(sp.log_ndtr))(jnp.array([-20.0, 0.0, 8.0]))")
value("kl_div", "sp.kl_div(jnp.array([0.0, 0.5, 1.0]), jnp.array([1.0, 0.5, 3.0]))")

# ---- linalg ----


def linalg(name: str, expect: str, call: str, args: str) -> None:
  prefix = "result = jax.make_jaxpr(lambda a, b: " if expect == "jaxpr" else "a, b = "
  if expect == "jaxpr":
    source = f"sl = jax.scipy.linalg\n{prefix}{call})({args})"
  else:
    source = f"sl = jax.scipy.linalg\n{prefix}{args}\nresult = {call}"
  program(f"linalg_{name}", expect, source)


SPD = "jnp.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])"
GEN = "jnp.array([[1.0, 2.0, 0.0], [-1.0, 1.0, 3.0], [2.0, 0.0, 1.0]])"

linalg("cholesky_jaxpr", "jaxpr", "sl.cholesky(a)", "jnp.ones((3, 3)), None")
linalg("cholesky_lower_jaxpr", "jaxpr", "sl.cholesky(a, lower=True)", "jnp.ones((3, 3)), None")
linalg("cho_solve_jaxpr", "jaxpr", "sl.cho_solve((a, True), b)", "jnp.ones((3, 3)), jnp.ones((3, 2))")
linalg("solve_triangular_jaxpr", "jaxpr", "sl.solve_triangular(a, b)", "jnp.ones((3, 3)), jnp.ones(3)")
linalg("solve_triangular_batched_jaxpr", "jaxpr", "sl.solve_triangular(a, b, lower=True, trans='T')",
       "jnp.ones((2, 3, 3)), jnp.ones((3, 2))")
linalg("lu_factor_jaxpr", "jaxpr", "sl.lu_factor(a)", "jnp.ones((3, 3)), None")
linalg("lu_jaxpr", "jaxpr", "sl.lu(a)", "jnp.ones((3, 3)), None")
linalg("lu_solve_jaxpr", "jaxpr", "sl.lu_solve((a, b), jnp.ones(3))", "jnp.ones((3, 3)), jnp.zeros(3, jnp.int32)")
linalg("qr_jaxpr", "jaxpr", "sl.qr(a)", "jnp.ones((4, 3)), None")
linalg("qr_economic_jaxpr", "jaxpr", "sl.qr(a, mode='economic')", "jnp.ones((4, 3)), None")
linalg("eigh_jaxpr", "jaxpr", "sl.eigh(a, eigvals_only=True)", "jnp.ones((3, 3)), None")
linalg("svd_jaxpr", "jaxpr", "sl.svd(a)", "jnp.ones((4, 3)), None")
linalg("block_diag_jaxpr", "jaxpr", "sl.block_diag(a, b)", "jnp.ones((2, 2)), jnp.ones(3)")
linalg("cholesky", "value", "sl.cholesky(a)", f"{SPD}, None")
linalg("cho_solve", "value", "sl.cho_solve(sl.cho_factor(a), b)", f"{SPD}, jnp.array([1.0, 2.0, 3.0])")
linalg("solve_triangular_trans", "value", "sl.solve_triangular(a, b, trans=1)", f"jnp.triu({GEN}) + 2 * jnp.eye(3), jnp.arange(3.0)")
linalg("lu_p", "value", "sl.lu(a)[0]", f"{GEN}, None")
linalg("lu_l", "value", "sl.lu(a)[1]", f"{GEN}, None")
linalg("lu_pivots", "value", "sl.lu_factor(a)[1]", f"{GEN}, None")
linalg("lu_solve_trans", "value", "sl.lu_solve(sl.lu_factor(a), b, trans=1)", f"{GEN}, jnp.array([1.0, 0.0, -1.0])")
linalg("solve_pos", "value", "sl.solve(a, b, assume_a='pos')", f"{SPD}, jnp.array([1.0, 2.0, 3.0])")
linalg("expm", "value", "sl.expm(a / 4)", f"{GEN}, None")
linalg("expm_large", "value", "sl.expm(a * 3)", f"{GEN}, None")
linalg("expm_upper", "value", "sl.expm(jnp.triu(a), upper_triangular=True)", f"{GEN}, None")
linalg("block_diag", "value", "sl.block_diag(a[:2, :2], b, 7.0)", f"{GEN}, jnp.arange(3.0)")
linalg("error_solve_assume", "error", "sl.solve(a, b, assume_a='diag')", "jnp.eye(2), jnp.ones(2)")
linalg("error_trans", "error", "sl.solve_triangular(a, b, trans=3)", "jnp.eye(2), jnp.ones(2)")
linalg("error_qr_mode", "error", "sl.qr(a, mode='reduced')", "jnp.eye(2), None")
linalg("error_expm_shape", "error", "sl.expm(a)", "jnp.ones((2, 3)), None")
linalg("error_block_diag_3d", "error", "sl.block_diag(a)", "jnp.ones((2, 2, 2)), None")
linalg("error_eigh_b", "error", "sl.eigh(a, b)", "jnp.eye(2), jnp.eye(2)")

# ---- stats ----


def stat(name: str, expect: str, call: str, x: str = "jnp.array([-1.0, 0.0, 0.5, 2.0])") -> None:
  if expect == "jaxpr":
    source = f"st = jax.scipy.stats\nresult = jax.make_jaxpr(lambda x: {call})({x})"
  else:
    source = f"st = jax.scipy.stats\nx = {x}\nresult = {call}"
  program(f"stats_{name}", expect, source)


stat("norm_logpdf_jaxpr", "jaxpr", "st.norm.logpdf(x, 1.0, 2.0)")
stat("norm_cdf_jaxpr", "jaxpr", "st.norm.cdf(x)")
stat("norm_sf_jaxpr", "jaxpr", "st.norm.sf(x, 0.5)")
stat("t_logpdf_jaxpr", "jaxpr", "st.t.logpdf(x, 3.0)")
stat("uniform_logpdf_jaxpr", "jaxpr", "st.uniform.logpdf(x)")
stat("logistic_logpdf_jaxpr", "jaxpr", "st.logistic.logpdf(x)")
stat("laplace_cdf_jaxpr", "jaxpr", "st.laplace.cdf(x)")
stat("cauchy_ppf_jaxpr", "jaxpr", "st.cauchy.ppf(x)")
stat("beta_logpdf_jaxpr", "jaxpr", "st.beta.logpdf(x, 2.0, 3.0)")
stat("gamma_logpdf_jaxpr", "jaxpr", "st.gamma.logpdf(x, 2.0)")
stat("gamma_cdf_jaxpr", "jaxpr", "st.gamma.cdf(x, 2.0)")
stat("bernoulli_logpmf_jaxpr", "jaxpr", "st.bernoulli.logpmf(x, 0.3)")
stat("poisson_logpmf_jaxpr", "jaxpr", "st.poisson.logpmf(x, 2.0)")
stat("mvn_logpdf_jaxpr", "jaxpr", "st.multivariate_normal.logpdf(x, jnp.zeros(3), jnp.eye(3))", "jnp.ones((2, 3))")
stat("mvn_scalar_cov_jaxpr", "jaxpr", "st.multivariate_normal.logpdf(x, jnp.zeros(3), 2.0)", "jnp.ones((2, 3))")
stat("norm_logpdf", "value", "st.norm.logpdf(x, 0.5, 2.0)")
stat("norm_logcdf", "value", "st.norm.logcdf(x * 20)")
stat("norm_ppf", "value", "st.norm.ppf(jnp.array([0.01, 0.5, 0.9]), 1.0, 3.0)")
stat("t_pdf", "value", "st.t.pdf(x, 2.5, 0.5, 1.5)")
stat("uniform_cdf", "value", "st.uniform.cdf(x, -0.5, 2.0)")
stat("logistic_isf", "value", "st.logistic.isf(jnp.array([0.1, 0.5, 0.8]), 1.0, 2.0)")
stat("cauchy_logsf", "value", "st.cauchy.logsf(x, 0.5, 2.0)")
stat("beta_cdf", "value", "st.beta.cdf(jnp.array([0.1, 0.5, 0.9, 1.5]), 2.0, 3.0)")
stat("beta_invalid", "value", "jnp.isnan(st.beta.logpdf(0.3, jnp.array([-1.0, 2.0, 1.0]), jnp.array([1.0, 1.0, -2.0])))")
stat("gamma_sf", "value", "st.gamma.sf(x, 2.0, 0.0, 1.5)")
stat("bernoulli_cdf", "value", "st.bernoulli.cdf(x, 0.3)")
stat("bernoulli_ppf", "value", "st.bernoulli.ppf(jnp.array([0.0, 0.5, 0.8, 1.2]), 0.3)")
stat("poisson_cdf", "value", "st.poisson.cdf(jnp.array([-1.0, 0.0, 2.0, 5.5]), 2.0)")
stat("poisson_pmf", "value", "st.poisson.pmf(jnp.array([0.0, 1.0, 1.5, 4.0]), 2.0)")
stat("mvn_logpdf", "value",
     "st.multivariate_normal.logpdf(x, jnp.array([0.0, 1.0]), jnp.array([[2.0, 0.5], [0.5, 1.0]]))",
     "jnp.array([[0.0, 0.0], [1.0, -1.0], [0.5, 2.0]])")
stat("dirichlet_logpdf", "value", "st.dirichlet.logpdf(x, jnp.array([1.5, 2.0, 0.7]))",
     "jnp.array([[0.2, 0.1], [0.5, 0.1], [0.3, 0.8]])")
stat("dirichlet_off_simplex", "value", "st.dirichlet.pdf(jnp.array([0.5, 0.6]), jnp.array([1.0, 1.0, 1.0]))")
stat("error_mvn_shapes", "error", "st.multivariate_normal.logpdf(x, jnp.zeros(3), jnp.eye(2))", "jnp.ones(3)")
stat("error_dirichlet_alpha", "error", "st.dirichlet.logpdf(x, jnp.ones((3, 1)))", "jnp.ones(3)")
stat("error_dirichlet_x", "error", "st.dirichlet.logpdf(x, jnp.ones(3))", "jnp.ones(5)")

# ---- special: errors ----

program("error_polygamma_float_n", "error", "result = jax.scipy.special.polygamma(1.0, 2.0)")
program("error_zeta_riemann", "error", "result = jax.scipy.special.zeta(2.0)")
program("error_ndtr_int", "error", "result = jax.scipy.special.ndtr(jnp.arange(3))")
program("error_log_ndtr_order", "error", "result = jax.scipy.special.log_ndtr(1.0, series_order=31)")
program("error_multigammaln_traced", "error", "result = jax.jit(jax.scipy.special.multigammaln)(3.0, 2)")
program("error_factorial_exact", "error", "result = jax.scipy.special.factorial(3, exact=True)")

# ---- optimize ----

# jax.scipy does not load optimize by itself: it is imported (by name, so
# that the program runs against either implementation).
OPT = "import importlib\nopt = importlib.import_module(jax.__name__ + '.scipy.optimize')\n"

program("minimize_quadratic", "value", OPT + """
r = opt.minimize(lambda x: jnp.sum((x - jnp.array([1.0, -2.0])) ** 2), jnp.zeros(2), method="BFGS")
result = jnp.concatenate([r.x, r.fun[None], r.jac])
""")
program("minimize_counts", "value", OPT + """
r = opt.minimize(lambda x: jnp.sum((x - jnp.array([1.0, -2.0])) ** 2), jnp.zeros(2), method="BFGS")
result = jnp.array([r.success, r.status, r.nfev, r.njev, r.nit])
""")
program("minimize_args_maxiter", "value", OPT + """
f = lambda x, a: jnp.sum((x - a) ** 2)
r = opt.minimize(f, jnp.zeros(2), (jnp.array([1.0, -2.0]),), method="bfgs", options=dict(maxiter=1))
result = jnp.concatenate([r.x, jnp.array([r.status, r.nit])])
""")
program("minimize_hess_inv", "value", OPT + """
r = opt.minimize(lambda x: x @ jnp.array([[3.0, 1.0], [1.0, 2.0]]) @ x - x[0], jnp.zeros(2), method="BFGS")
result = r.hess_inv
""")
program("error_minimize_method", "error",
        OPT + "result = opt.minimize(lambda x: x @ x, jnp.zeros(2), method='Nelder-Mead')")
program("error_minimize_args", "error",
        OPT + "result = opt.minimize(lambda x, a: x @ x, jnp.zeros(2), [1.0], method='BFGS')")
