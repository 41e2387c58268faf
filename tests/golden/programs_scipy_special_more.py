"""jax.scipy.special programs (the functions added with issue 26: bernoulli,
poch, boxcox[1p], wofz, erfcx, dawsn, bessel_jn, expn, exp1, expi, sici,
fresnel, spence, hyp1f1, hyp2f1, owens_t, lpmn[_values], sph_harm_y) whose
JAX 0.11.0 behaviour is recorded in ``scipy_special_more.json``. Recorded with

    /tmp/jax-ref/bin/python tests/golden/record_core.py scipy_special_more

The arguments stay where JAX's float32 algorithms are accurate (not, for
instance, hyp1f1's alternating series at large negative x, where any two
float32 summations disagree).
"""

from __future__ import annotations

from programs_core import program_set

PROGRAMS, program = program_set()

# Different (equally accurate) float32 algorithms: a few ulps apart.
TOLERANCE = (2e-5, 1e-6)

HEAD = "sp = jax.scipy.special\n"


def value(name: str, body: str) -> None:
  program(name, "value", HEAD + body)


def error(name: str, body: str) -> None:
  program(name, "error", HEAD + body)


def cplx(z: str) -> str:
  return f"jnp.stack([jnp.real({z}), jnp.imag({z})])"


X = "jnp.array([-3.0, -0.7, -0.1, 0.0, 0.05, 0.3, 1.0, 1.7, 2.5, 4.0, 7.5, 15.0, 45.0])"
P = "jnp.array([0.01, 0.3, 0.5, 1.0, 1.7, 2.5, 4.0, 7.5, 15.0])"
Z = "jnp.array([0.5 + 0.2j, -1.5 + 0.3j, 2.0 - 1.0j, 0.1 - 0.1j, 5.0 + 0.0j, -0.3 - 2.0j, 0.0 + 3.0j, 12.0 + 0.5j])"

value("bernoulli_8", "result = sp.bernoulli(8)")
value("bernoulli_20", "result = sp.bernoulli(20)")
value("bernoulli_small", "result = jnp.concatenate([sp.bernoulli(0), sp.bernoulli(1), sp.bernoulli(2)])")
error("error_bernoulli", "result = sp.bernoulli(-1)")
value("poch", f"result = sp.poch({P}, 2.5)")
value("poch_zero_m", f"result = sp.poch({P}, 0.0)")
value("poch_int", "result = sp.poch(jnp.arange(1, 5), 3)")
error("error_poch_complex", "result = sp.poch(1j, 2.0)")
value("boxcox", f"result = sp.boxcox({P}, jnp.array([[0.0], [0.3], [-1.5]]))")
value("boxcox1p", f"result = sp.boxcox1p({P} - 0.5, jnp.array([[0.0], [0.3], [-1.5]]))")
value("wofz", cplx(f"sp.wofz({Z})").join(["result = ", ""]))
value("wofz_real", cplx(f"sp.wofz({X})").join(["result = ", ""]))
value("erfcx", f"result = sp.erfcx({X})")
value("erfcx_complex", cplx(f"sp.erfcx({Z})").join(["result = ", ""]))
value("dawsn", f"result = sp.dawsn({X})")
error("error_dawsn_complex", f"result = sp.dawsn({Z})")
value("bessel_jn", f"result = sp.bessel_jn({P}, v=4)")
value("bessel_jn_2d", "result = sp.bessel_jn(jnp.array([[0.5, 1.0], [3.0, 6.0]]), v=2)")
value("bessel_jn_n_iter", f"result = sp.bessel_jn({P}, v=1, n_iter=30)")
error("error_bessel_jn_complex", "result = sp.bessel_jn(jnp.array([1j]), v=1)")
for n in (0, 1, 2, 3, 7):
  value(f"expn_{n}", f"result = sp.expn({n}, {P})")
value("expn_edges", "result = sp.expn(jnp.array([-1.0, 0.0, 1.0, 2.0, 3.0, 1.0]), jnp.array([1.0, 0.0, 0.0, 0.0, -1.0, 0.0]))")
value("exp1", f"result = sp.exp1({P})")
value("expi", f"result = sp.expi({X})")
value("sici_si", f"result = sp.sici({X})[0]")
value("sici_ci", f"result = sp.sici(jnp.abs({X}) + 0.01)[1]")
value("sici_large", "result = jnp.stack(sp.sici(jnp.array([30.0, 100.0, 1e4, jnp.inf])))")
value("fresnel_s", f"result = sp.fresnel({X})[0]")
value("fresnel_c", f"result = sp.fresnel({X})[1]")
value("fresnel_inf", "result = jnp.stack(sp.fresnel(jnp.array([jnp.inf, -jnp.inf])))")
value("spence", f"result = sp.spence(jnp.concatenate([{P}, jnp.array([0.0, 1.0, 2.0, 40.0, -1.0])]))")
error("error_spence_int", "result = sp.spence(jnp.arange(3))")
value("hyp1f1", f"result = sp.hyp1f1(0.5, 1.5, {X})")
value("hyp1f1_negative", "result = sp.hyp1f1(2.0, 3.5, jnp.array([-4.0, -3.0, -0.7, 0.0, 0.5, 2.0, 6.0]))")
value("hyp1f1_asymptotic", "result = sp.hyp1f1(1.5, 2.5, jnp.array([100.0, 120.0, 150.0]))")
value("hyp1f1_cases", "result = sp.hyp1f1(jnp.array([0.0, 2.0, 2.0, 0.0]), jnp.array([1.0, 2.0, 0.0, 0.0]), 1.5)")
error("error_hyp1f1_complex", "result = sp.hyp1f1(1.0, 2.0, 1j)")
H2X = "jnp.array([-0.9, -0.5, 0.0, 0.3, 0.6, 0.85])"
value("hyp2f1", f"result = sp.hyp2f1(0.5, 1.5, 2.5, {H2X})")
value("hyp2f1_x1", "result = sp.hyp2f1(0.5, 1.5, 4.5, jnp.array([1.0, 1.5]))")
value("hyp2f1_euler", f"result = sp.hyp2f1(1.5, 2.5, 2.0, {H2X})")
value("hyp2f1_terminal", f"result = sp.hyp2f1(-3.0, 1.5, 2.0, {H2X})")
value("hyp2f1_a_eq_c", f"result = sp.hyp2f1(1.5, 0.7, 1.5, {H2X})")
value("hyp2f1_b_eq_c", f"result = sp.hyp2f1(0.7, 1.5, 1.5, {H2X})")
value("hyp2f1_cases", "result = sp.hyp2f1(jnp.array([0.0, 1.0, 1.0, 1.0]), jnp.array([1.0, 1.0, 1.0, 2.0]), "
      "jnp.array([2.0, 0.0, -2.0, 2.0]), jnp.array([0.5, 0.5, 0.5, 1.0]))")
value("owens_t", "result = sp.owens_t(jnp.array([0.0, 0.5, 1.0, -2.0, 3.0, 0.2, 1.5]), "
      "jnp.array([0.3, 1.0, 2.5, -0.7, 10.0, jnp.inf, 0.0]))")
value("owens_t_grid", "result = sp.owens_t(jnp.array([[0.0], [0.7], [2.0]]), jnp.array([-3.0, -0.5, 0.25, 0.99, 1.01, 4.0]))")
ZL = "jnp.array([-0.9, -0.5, 0.0, 0.2, 0.7, 0.95])"
value("lpmn_values", f"result = sp.lpmn_values(3, 3, {ZL}, False)")
value("lpmn_values_normalized", f"result = sp.lpmn_values(4, 4, {ZL}, True)")
value("lpmn_p", f"result = sp.lpmn(3, 3, {ZL})[0]")
value("lpmn_derivative", f"result = sp.lpmn(3, 3, {ZL})[1]")
error("error_lpmn_m_ne_n", f"result = sp.lpmn(2, 3, {ZL})")
error("error_lpmn_2d", "result = sp.lpmn_values(2, 2, jnp.ones((2, 2)), False)")
error("error_lpmn_int", "result = sp.lpmn_values(2, 2, jnp.arange(2), False)")
SPH = ("jnp.array([0, 1, 1, 2, 2, 3, 4]), jnp.array([0, -1, 1, 2, -2, -3, 1]), "
       "jnp.array([0.3, 1.0, 1.0, 2.0, 0.5, 2.5, 1.2]), jnp.array([0.1, 0.5, 0.5, 1.0, -2.0, 4.0, 3.0])")
value("sph_harm_y", cplx(f"sp.sph_harm_y({SPH})").join(["result = ", ""]))
value("sph_harm_y_n_max", cplx(f"sp.sph_harm_y({SPH}, n_max=6)").join(["result = ", ""]))
error("error_sph_harm_y_diff", f"result = sp.sph_harm_y({SPH}, diff_n=1)")

# ---- under transformations ----
value("erfcx_grad", f"result = jax.vmap(jax.grad(sp.erfcx))({X})")
value("dawsn_grad", f"result = jax.vmap(jax.grad(sp.dawsn))({X})")
value("expi_grad", f"result = jax.vmap(jax.grad(sp.expi))({P})")
value("exp1_grad", f"result = jax.vmap(jax.grad(sp.exp1))({P})")
value("sici_grad", f"result = jax.vmap(jax.grad(lambda x: sp.sici(x)[0]))({P})")
value("fresnel_grad", f"result = jax.vmap(jax.grad(lambda x: sp.fresnel(x)[1]))({P})")
value("hyp1f1_grad_x", "result = jax.vmap(jax.grad(sp.hyp1f1, argnums=2), in_axes=(None, None, 0))(0.5, 1.5, jnp.array([0.3, 1.0, 2.5]))")
value("hyp2f1_grad_x", f"result = jax.vmap(jax.grad(sp.hyp2f1, argnums=3), in_axes=(None, None, None, 0))(0.5, 1.5, 2.5, {H2X})")
value("poch_grad", f"result = jax.vmap(jax.grad(sp.poch))({P}, {P})")
value("spence_jit", f"result = jax.jit(sp.spence)({P})")
value("owens_t_jit", "result = jax.jit(sp.owens_t)(jnp.array([0.5, 1.0]), jnp.array([0.5, 2.0]))")
