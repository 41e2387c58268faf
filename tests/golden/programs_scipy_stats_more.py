"""jax.scipy.stats programs (the distributions added with issue 26: expon,
chi2, gennorm, geom, binom, nbinom, betabinom, multinomial, pareto,
gumbel_l/r, truncnorm, vonmises, wrapcauchy, poisson.entropy; and mode,
rankdata, sem, gaussian_kde) whose JAX 0.11.0 behaviour is recorded in
``scipy_stats_more.json``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py scipy_stats_more
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

# Compositions of float32 transcendental functions: a few ulps.
TOLERANCE = (1e-5, 1e-6)

HEAD = "st = jax.scipy.stats\n"


def value(name: str, body: str) -> None:
  program(name, "value", HEAD + body)


def error(name: str, body: str) -> None:
  program(name, "error", HEAD + body)


X = "jnp.array([-1.0, 0.0, 0.3, 1.0, 2.5, 7.0])"
K = "jnp.array([-1.0, 0.0, 1.0, 2.0, 3.0, 4.5, 10.0])"
Q = "jnp.array([-0.1, 0.0, 0.05, 0.5, 0.95, 1.0, 1.2])"

for fn in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
  value(f"expon_{fn}", f"result = st.expon.{fn}({X}, 0.5, 2.0)")
  value(f"chi2_{fn}", f"result = st.chi2.{fn}({X}, 3.0)")
  value(f"chi2_loc_scale_{fn}", f"result = st.chi2.{fn}({X}, jnp.array([[1.0], [4.5]]), -0.5, 2.0)")
  value(f"pareto_{fn}", f"result = st.pareto.{fn}({X}, 2.5, -0.5, 1.2)")
  value(f"gumbel_l_{fn}", f"result = st.gumbel_l.{fn}({X}, 0.5, 1.5)")
  value(f"gumbel_r_{fn}", f"result = st.gumbel_r.{fn}({X}, 0.5, 1.5)")
  value(f"truncnorm_{fn}", f"result = st.truncnorm.{fn}({X}, -0.5, 1.5, 0.3, 1.2)")
  value(f"truncnorm_tail_{fn}", f"result = st.truncnorm.{fn}({X} + 4.0, 3.0, 9.0)")
for fn in ("ppf",):
  value(f"expon_{fn}", f"result = st.expon.{fn}({Q}, 0.5, 2.0)")
  value(f"pareto_{fn}", f"result = st.pareto.{fn}({Q}, 2.5, -0.5, 1.2)")
  value(f"gumbel_l_{fn}", f"result = st.gumbel_l.{fn}({Q}, 0.5, 1.5)")
  value(f"gumbel_r_{fn}", f"result = st.gumbel_r.{fn}({Q}, 0.5, 1.5)")
value("gumbel_bad_scale", f"result = jnp.stack([st.gumbel_l.logpdf({X}, 0.0, -1.0), st.gumbel_r.cdf({X}, 0.0, 0.0)])")
value("gumbel_r_logsf_tails", "result = st.gumbel_r.logsf(jnp.array([-3.0, -1.0, 0.0, 0.5, 5.0, 30.0]))")
value("truncnorm_invalid", f"result = st.truncnorm.logpdf({X}, 1.0, 0.5)")
value("truncnorm_outside", "result = st.truncnorm.cdf(jnp.array([-3.0, -1.0, 1.0, 3.0]), -1.0, 1.0)")
value("truncnorm_broadcast", f"result = st.truncnorm.logsf({X}, jnp.array([[-1.0], [0.5]]), jnp.array([[2.0], [3.0]]))")
for fn in ("logpdf", "pdf", "cdf"):
  value(f"gennorm_{fn}", f"result = st.gennorm.{fn}({X}, jnp.array([[0.5], [1.0], [2.0], [8.0]]))")
for fn in ("logpmf", "pmf"):
  value(f"geom_{fn}", f"result = st.geom.{fn}({K}, 0.3)")
  value(f"geom_loc_{fn}", f"result = st.geom.{fn}({K}, 0.6, -1.0)")
  value(f"binom_{fn}", f"result = st.binom.{fn}({K}, 10.0, 0.35)")
  value(f"binom_edges_{fn}", f"result = st.binom.{fn}({K}, jnp.array([[0.0], [4.0]]), jnp.array([[0.0], [1.0]]))")
  value(f"nbinom_{fn}", f"result = st.nbinom.{fn}({K}, 3.5, 0.4)")
  value(f"betabinom_{fn}", f"result = st.betabinom.{fn}({K}, 10.0, 2.0, 3.5)")
  value(f"betabinom_edges_{fn}", f"result = st.betabinom.{fn}({K}, jnp.array([[0.0], [-1.0], [5.0]]), "
        "jnp.array([[1.0], [1.0], [-1.0]]), 2.0)")
  value(f"multinomial_{fn}", f"result = st.multinomial.{fn}(jnp.array([1, 3, 2]), 6, jnp.array([0.2, 0.5, 0.3]))")
  value(f"multinomial_wrong_total_{fn}", f"result = st.multinomial.{fn}(jnp.array([1, 3, 2]), 5, jnp.array([0.2, 0.5, 0.3]))")
  value(f"vonmises_{fn.replace('pmf', 'pdf')}", f"result = st.vonmises.{fn.replace('pmf', 'pdf')}({X}, jnp.array([[0.5], [4.0], [-1.0]]))")
  value(f"wrapcauchy_{fn.replace('pmf', 'pdf')}", f"result = st.wrapcauchy.{fn.replace('pmf', 'pdf')}({X}, jnp.array([[0.3], [0.9], [1.2]]))")
value("binom_int_args", "result = st.binom.pmf(jnp.arange(4), 3, 0.5)")
value("poisson_entropy", "result = st.poisson.entropy(jnp.array([0.0, 0.5, 1.0, 5.0, 9.9, 10.0, 42.0, 99.0, 100.0, 1e4]))")
value("poisson_entropy_int_loc", "result = st.poisson.entropy(jnp.array([[1], [10]]), jnp.array([0, 3, 5]))")
error("error_multinomial_float", "result = st.multinomial.logpmf(jnp.array([1.0, 2.0]), 3.0, jnp.array([0.5, 0.5]))")

# ---- mode, rankdata, sem ----
A = "jnp.array([[3, 1, 3, 2], [1, 1, 2, 2], [5, 4, 4, 4]])"
value("mode_axis0_mode", f"result = st.mode({A}).mode")
value("mode_axis0_count", f"result = st.mode({A}).count")
value("mode_axis1_keepdims", f"result = st.mode({A}, axis=1, keepdims=True).mode")
value("mode_none", f"result = jnp.stack(st.mode({A}, axis=None))")
value("mode_none_keepdims", f"result = st.mode({A}, axis=None, keepdims=True).count")
value("mode_float", "result = st.mode(jnp.array([0.5, 2.0, 0.5, 2.0, 3.0])).mode")
value("mode_scalar", "result = jnp.stack(st.mode(4.0))")
error("error_mode_nan_policy", f"result = st.mode({A}, nan_policy='ignore')")
error("error_mode_omit", f"result = st.mode({A}, nan_policy='omit')")
error("error_mode_raise", f"result = st.mode({A}, nan_policy='raise')")
R = "jnp.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0, 5.0])"
for method in ("average", "min", "max", "dense", "ordinal"):
  value(f"rankdata_{method}", f"result = st.rankdata({R}, method={method!r})")
value("rankdata_axis", f"result = st.rankdata({A}, axis=1)")
value("rankdata_2d_flat", f"result = st.rankdata({A}, method='min')")
value("rankdata_nan", "result = st.rankdata(jnp.array([1.0, jnp.nan, 0.0]))")
error("error_rankdata_method", f"result = st.rankdata({R}, method='mean')")
error("error_rankdata_nan_policy", f"result = st.rankdata({R}, nan_policy='x')")
error("error_rankdata_raise", f"result = st.rankdata({R}, nan_policy='raise')")
value("sem", f"result = st.sem({A})")
value("sem_axis_none", f"result = st.sem({A}, axis=None, ddof=0)")
value("sem_keepdims", f"result = st.sem({A}, axis=1, keepdims=True)")
value("sem_omit", "result = st.sem(jnp.array([[1.0, jnp.nan, 3.0], [2.0, 4.0, 8.0]]), axis=1, nan_policy='omit')")
error("error_sem_policy", f"result = st.sem({A}, nan_policy='raise')")

# ---- gaussian_kde ----
DATA = "jnp.array([0.1, -0.4, 1.3, 2.2, 0.7, -1.1, 0.0, 0.9])"
DATA2 = "jnp.array([[0.1, -0.4, 1.3, 2.2, 0.7, -1.1], [1.0, 0.3, -0.2, 0.8, 1.9, 0.4]])"
PTS = "jnp.array([-2.0, -0.5, 0.0, 0.4, 1.5, 3.0])"
value("kde_evaluate", f"result = st.gaussian_kde({DATA}).evaluate({PTS})")
value("kde_logpdf", f"result = st.gaussian_kde({DATA}).logpdf({PTS})")
value("kde_silverman", f"result = st.gaussian_kde({DATA}, bw_method='silverman')({PTS})")
value("kde_scalar_bw", f"result = st.gaussian_kde({DATA}, bw_method=0.3).pdf({PTS})")
value("kde_callable_bw", f"result = st.gaussian_kde({DATA}, bw_method=lambda k: k.neff ** -0.25)({PTS})")
value("kde_weights", f"result = st.gaussian_kde({DATA}, weights=jnp.arange(1.0, 9.0))({PTS})")
value("kde_fields", f"k = st.gaussian_kde({DATA2}, weights=jnp.arange(1.0, 7.0))\n"
      "result = jnp.concatenate([k.covariance.ravel(), k.inv_cov.ravel(), k.neff[None], jnp.array([k.d, k.n])])")
value("kde_2d", f"result = st.gaussian_kde({DATA2}).evaluate(jnp.array([[0.0, 1.0, -1.0], [0.5, 0.5, 2.0]]))")
value("kde_2d_single_point", f"result = st.gaussian_kde({DATA2}).evaluate(jnp.array([0.2, 0.7]))")
value("kde_integrate_box_1d", f"result = st.gaussian_kde({DATA}).integrate_box_1d(-0.5, 1.0)")
value("kde_integrate_gaussian", f"result = st.gaussian_kde({DATA2}).integrate_gaussian(jnp.array([0.5, 0.5]), jnp.eye(2))")
value("kde_integrate_kde", f"result = st.gaussian_kde({DATA}).integrate_kde(st.gaussian_kde({DATA} * 2 + 1))")
value("kde_jit_pytree", f"k = st.gaussian_kde({DATA})\nresult = jax.jit(lambda k, p: k(p))(k, {PTS})")
value("kde_grad", f"result = jax.grad(lambda d: jnp.sum(st.gaussian_kde(d).logpdf({PTS})))({DATA})")
value("kde_resample_shape", f"s = st.gaussian_kde({DATA2}).resample(jax.random.key(0), (5,))\n"
      "result = jnp.array(s.shape + (s.dtype == jnp.float32,))")
error("error_kde_single", "result = st.gaussian_kde(jnp.array([1.0]))")
error("error_kde_complex", "result = st.gaussian_kde(jnp.array([1.0, 2.0]) * 1j)")
error("error_kde_bw", f"result = st.gaussian_kde({DATA}, bw_method='wide')")
error("error_kde_weights_2d", f"result = st.gaussian_kde({DATA}, weights=jnp.ones((2, 4)))")
error("error_kde_weights_len", f"result = st.gaussian_kde({DATA}, weights=jnp.ones(3))")
error("error_kde_points_dim", f"result = st.gaussian_kde({DATA2}).evaluate(jnp.ones((3, 2)))")
error("error_kde_box_2d", f"result = st.gaussian_kde({DATA2}).integrate_box_1d(0.0, 1.0)")
error("error_kde_box", f"result = st.gaussian_kde({DATA}).integrate_box(0.0, 1.0)")
error("error_kde_set_bandwidth", f"result = st.gaussian_kde({DATA}).set_bandwidth('scott')")
error("error_kde_gaussian_mean", f"result = st.gaussian_kde({DATA2}).integrate_gaussian(jnp.ones(3), jnp.eye(2))")
error("error_kde_gaussian_cov", f"result = st.gaussian_kde({DATA2}).integrate_gaussian(jnp.ones(2), jnp.eye(3))")
error("error_kde_kde_dims", f"result = st.gaussian_kde({DATA}).integrate_kde(st.gaussian_kde({DATA2}))")

# ---- under transformations ----
value("truncnorm_grad", f"result = jax.grad(lambda x: jnp.sum(st.truncnorm.logcdf(x, -0.5, 1.5)))(jnp.array([-0.2, 0.4, 1.2]))")
value("binom_vmap", "result = jax.vmap(lambda p: st.binom.logpmf(jnp.arange(5.0), 4.0, p))(jnp.array([0.1, 0.5, 0.9]))")
value("chi2_jit", f"result = jax.jit(st.chi2.logsf)({X}, 2.5)")
value("gumbel_r_grad", f"result = jax.vmap(jax.grad(st.gumbel_r.logpdf))({X})")
