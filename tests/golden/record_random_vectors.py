"""Records ``random_vectors.json``: the bits JAX 0.11.0 draws for each case below.

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_random_vectors.py

Each case is a name, an expression and the config it runs under (x64 on or
off, ``jax_threefry_partitionable`` on or off). The expression sees ``jax``,
``jnp``, ``random`` (the implementation under test) and ``np``, and yields
an array or a tuple of arrays. Values are stored exactly: integers and bools
as numbers, floats as their bit patterns (``uint32``/``uint64``), keys as
their key data, so a test can compare bit for bit.

``fma`` marks cases where XLA fuses a multiply and an add (see below).
``ulp`` is the tolerance the test allows, in units in the last place, for
cases whose floats go through transcendental functions (log, log1p,
erf_inv, tan, exp, pow, lgamma ...): XLA evaluates those with its own
approximations, pyjax with NumPy/SciPy, and the two may differ in the last
bits; the bound is in units in the last place of max(|value|, 1), since near
a zero of a sampler's formula those errors are absolute. ``ulp=0`` (the
default) means bit-identical. ``digest`` cases (large draws) store the
SHA-256 of the array's bytes instead of its values. This module imports no
JAX at import time: the test reads CASES from it.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "random_vectors.json"
REFERENCE_VERSION = "0.11.0"


@dataclass(frozen=True)
class Case:
  name: str
  expr: str
  x64: bool = False
  partitionable: bool = True
  ulp: int = 0
  fma: bool = False
  digest: bool = False
  config: dict = field(default_factory=dict)
  family: str = ""  # the distribution (or key function) drawn; see families()


CASES: list[Case] = []


def case(name, expr, *, x64=False, partitionable=True, ulp=0, fma=False, digest=False, family="", **config):
  if any(c.name == name for c in CASES):
    raise ValueError(f"duplicate case {name}")
  if digest and (ulp or fma):
    raise ValueError(f"{name}: a digest case must be bit-exact")
  CASES.append(Case(name, expr, x64, partitionable, ulp, fma, digest, config, family))


def both_layouts(name, expr, **kw):
  """The case with jax_threefry_partitionable on (0.11's default) and off."""
  case(name, expr, **kw)
  case(name + "__original", expr, partitionable=False, **kw)


# XLA on the CPU contracts `a * b + c` into one fused multiply-add (one
# rounding instead of two). The NumPy backend contracts the same pairs
# (backends/numpy/xla/rewrite.py, backends/numpy/xla/fma.py), so no case needs the
# `fma` allowance any more (one ulp of the largest magnitude in the result);
# it stays for a sampler whose contraction the backend does not reproduce.
# The differences left are the transcendentals' (`ulp`) and those of
# reductions and matrix products (a norm's sum of squares, which XLA also
# contracts inside its reduction loop, now reproduced for float32/float64;
# and XLA's in-order loops for tiny dots, reproduced too): bfloat16 maxwell,
# 1 ulp (XLA keeps float32 precision across the bfloat16 square that jnp.sum
# converts to float32: `xla_allow_excess_precision`; docs/random.md).

# ---- keys ---------------------------------------------------------------
K = "random.key(0)"
for seed in ("0", "1", "-1", "2**31", "2**32 + 5", "2**40", "-2**40", "np.uint32(5)", "np.int8(-3)",
             "jnp.uint8(200)", "True"):
  case(f"key_data_seed_{seed}", f"random.key_data(random.key({seed}))")
  case(f"key_data_seed_{seed}__x64", f"random.key_data(random.key({seed}))", x64=True)
case("prngkey_seed_42", "random.PRNGKey(42)")
case("prngkey_seed_big_x64", "random.PRNGKey(2**40 + 7)", x64=True)
both_layouts("split_2", f"random.key_data(random.split({K}))")
both_layouts("split_5", "random.key_data(random.split(random.key(7), 5))")
both_layouts("split_shape_2x3", "random.key_data(random.split(random.key(3), (2, 3)))")
both_layouts("split_raw", "random.split(random.PRNGKey(11), 3)")
both_layouts("split_of_split", f"random.key_data(random.split(random.split({K})[1], 4))")
both_layouts("fold_in_3", f"random.key_data(random.fold_in({K}, 3))")
both_layouts("fold_in_big", "random.key_data(random.fold_in(random.key(5), 2**32 - 1))")
both_layouts("fold_in_raw", "random.fold_in(random.PRNGKey(5), 17)")
for dtype in ("uint8", "uint16", "uint32"):
  both_layouts(f"bits_{dtype}", f"random.bits({K}, (7,), jnp.{dtype})")
  both_layouts(f"bits_{dtype}_2d", f"random.bits(random.key(9), (3, 5), jnp.{dtype})")
both_layouts("bits_uint64_x64", f"random.bits({K}, (5,), jnp.uint64)", x64=True)
both_layouts("bits_uint64_2d_x64", "random.bits(random.key(2), (2, 3), jnp.uint64)", x64=True)
both_layouts("bits_scalar", f"random.bits({K})")
both_layouts("bits_odd_count", "random.bits(random.key(1), (3,))")
both_layouts("bits_large", "random.bits(random.key(4), (1000,))")
case("bits_default_x64", f"random.bits({K}, (3,))", x64=True)
case("seed_offset", "random.key_data(random.key(0))", jax_random_seed_offset=10)

# ---- uniform / normal ---------------------------------------------------
for dtype in ("float32", "float16", "bfloat16"):
  both_layouts(f"uniform_{dtype}", f"random.uniform({K}, (8,), jnp.{dtype})")
  both_layouts(f"uniform_{dtype}_2d", f"random.uniform(random.key(1), (3, 4), jnp.{dtype}, -2.0, 3.0)")
both_layouts("uniform_float64_x64", f"random.uniform({K}, (8,), jnp.float64)", x64=True)
both_layouts("uniform_float64_2d_x64", "random.uniform(random.key(5), (2, 3), jnp.float64, 1.0, 2.5)", x64=True)
both_layouts("uniform_array_bounds", "random.uniform(random.key(2), (2, 3), minval=jnp.array([0., 1., 2.]), maxval=5.0)")
both_layouts("uniform_scalar", f"random.uniform({K})")
case("uniform_raw_key", "random.uniform(random.PRNGKey(0), (4,))")
both_layouts("normal_seed", f"random.normal({K}, (3,))")
both_layouts("normal_split", f"random.normal(random.split({K})[0], (3,))")
both_layouts("normal_float32_2d", "random.normal(random.key(3), (4, 5))")
both_layouts("normal_float16", f"random.normal({K}, (6,), jnp.float16)")
both_layouts("normal_bfloat16", f"random.normal({K}, (6,), jnp.bfloat16)")
# float64: XLA's double-precision erf_inv polynomial (xla_math.erf_inv_f64): exact.
both_layouts("normal_float64_x64", f"random.normal({K}, (6,), jnp.float64)", x64=True)
both_layouts("normal_complex64", f"random.normal({K}, (4,), jnp.complex64)")
# Draws of 2**20 or more take the erf_inv table (backends/numpy/xla/xla_math.py).
both_layouts("normal_large", "random.normal(random.key(7), (1 << 20,))", digest=True)
case("normal_large_2d", "random.normal(random.key(8), (1024, 1100))", digest=True)
case("erf_inv_uniform", "jax.lax.erf_inv(random.uniform(random.key(9), (1 << 16,), minval=-1.0, maxval=1.0))", digest=True)


# ---- discrete samplers (integer and bool results: exact) -------------------
both_layouts("bernoulli", f"random.bernoulli({K}, 0.3, (10,))")
both_layouts("bernoulli_array_p", "random.bernoulli(random.key(1), jnp.array([0.1, 0.5, 0.9]), (2, 3))")
both_layouts("bernoulli_high", f"random.bernoulli({K}, 0.3, (10,), mode='high')")
case("bernoulli_float64_x64", f"random.bernoulli({K}, jnp.float64(0.3), (10,))", x64=True)
for dtype in ("int32", "uint8", "int16", "uint32"):
  both_layouts(f"randint_{dtype}", f"random.randint({K}, (10,), 0, 100, jnp.{dtype})")
both_layouts("randint_2d_bounds", "random.randint(random.key(3), (2, 3), jnp.array([0, 10, -5]), 20)")
both_layouts("randint_full_uint8", f"random.randint({K}, (12,), 0, 256, jnp.uint8)")
both_layouts("randint_empty_range", f"random.randint({K}, (4,), 5, 5)")
case("randint_int64_x64", f"random.randint({K}, (6,), -2**40, 2**40, jnp.int64)", x64=True)
case("randint_int64_2d_x64", "random.randint(random.key(2), (2, 3), 0, 7)", x64=True)
both_layouts("permutation_int", f"random.permutation({K}, 10)")
both_layouts("permutation_array", "random.permutation(random.key(5), jnp.arange(12).reshape(4, 3))")
both_layouts("permutation_axis1", "random.permutation(random.key(5), jnp.arange(12).reshape(3, 4), axis=1)")
both_layouts("permutation_independent", "random.permutation(random.key(6), jnp.arange(12).reshape(3, 4), axis=1, independent=True)")
case("permutation_large", "random.permutation(random.key(7), 3000)")
both_layouts("choice_replace", f"random.choice({K}, 10, (5,))")
both_layouts("choice_array_2d", "random.choice(random.key(1), jnp.arange(12.0).reshape(4, 3), (2, 2))")
both_layouts("choice_no_replace", f"random.choice({K}, 10, (5,), replace=False)")
both_layouts("choice_no_replace_axis1", "random.choice(random.key(2), jnp.arange(12).reshape(3, 4), (2,), replace=False, axis=1)")
both_layouts("choice_p", f"random.choice({K}, 5, (8,), p=jnp.array([0.1, 0.2, 0.3, 0.15, 0.25]))")
both_layouts("choice_p_no_replace", f"random.choice({K}, 5, (3,), replace=False, p=jnp.array([0.1, 0.2, 0.3, 0.15, 0.25]))")
both_layouts("categorical", "random.categorical(random.key(3), jnp.log(jnp.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])))")
both_layouts("categorical_shape", "random.categorical(random.key(4), jnp.zeros((2, 5)), shape=(3, 2))")
both_layouts("categorical_axis0", "random.categorical(random.key(4), jnp.zeros((5, 2)), axis=0)")
both_layouts("categorical_no_replace", "random.categorical(random.key(5), jnp.zeros((6,)), shape=(4,), replace=False)")
both_layouts("rademacher", f"random.rademacher({K}, (10,))")
both_layouts("rademacher_float32", "random.rademacher(random.key(1), (2, 3), jnp.float32)")
both_layouts("geometric", f"random.geometric({K}, 0.3, (10,))", ulp=0)
both_layouts("geometric_array_p", "random.geometric(random.key(2), jnp.array([0.05, 0.5, 0.9]), (2, 3))")
case("geometric_int64_x64", f"random.geometric({K}, 0.2, (6,), jnp.int64)", x64=True)

# ---- continuous samplers --------------------------------------------------
# `ulp` values: how far XLA's transcendental (named) is from NumPy's.
LOG = 2  # measured: 2
both_layouts("exponential", f"random.exponential({K}, (8,))", ulp=LOG)
both_layouts("exponential_2d", "random.exponential(random.key(1), (2, 3))", ulp=LOG)
# float64 exp/log/log1p are XLA's (xla_math.*_f64 are the impls): exact.
case("exponential_float64_x64", f"random.exponential({K}, (6,), jnp.float64)", x64=True)
both_layouts("gumbel", f"random.gumbel({K}, (8,))", ulp=LOG)
both_layouts("gumbel_2d", "random.gumbel(random.key(1), (2, 3))", ulp=LOG)
both_layouts("gumbel_high", f"random.gumbel({K}, (8,), mode='high')", ulp=LOG)
both_layouts("gumbel_highest", f"random.gumbel({K}, (8,), mode='highest')", ulp=LOG)
case("gumbel_float64_x64", f"random.gumbel({K}, (6,), jnp.float64)", x64=True)
both_layouts("laplace", f"random.laplace({K}, (8,))", ulp=LOG)
both_layouts("laplace_2d", "random.laplace(random.key(1), (2, 3))", ulp=LOG)
both_layouts("logistic", f"random.logistic({K}, (8,))", ulp=LOG)
both_layouts("logistic_2d", "random.logistic(random.key(1), (2, 3))", ulp=LOG)
both_layouts("cauchy", f"random.cauchy({K}, (8,))", ulp=LOG)
both_layouts("cauchy_2d", "random.cauchy(random.key(1), (2, 3))", ulp=LOG)
# truncated_normal: erf and erf_inv are XLA's (xla_math), its divisions by
# constants are products with the reciprocal and its multiply-adds are fused
# as XLA's are (backends/numpy/xla/rewrite.py): exact.
both_layouts("truncated_normal", f"random.truncated_normal({K}, -1.0, 2.0, (8,))")
both_layouts("truncated_normal_array", "random.truncated_normal(random.key(1), jnp.array([-2.0, 0.0, 1.0]), 3.0, (2, 3))")
case("truncated_normal_float64_x64", f"random.truncated_normal({K}, -1.0, 2.0, (6,), jnp.float64)", x64=True)
both_layouts("pareto", f"random.pareto({K}, 3.0, (8,))", ulp=LOG)
both_layouts("pareto_array", "random.pareto(random.key(1), jnp.array([1.0, 2.0, 5.0]), (2, 3))", ulp=LOG)
both_layouts("weibull_min", f"random.weibull_min({K}, 2.0, 1.5, (8,))", ulp=LOG)
both_layouts("weibull_min_2d", "random.weibull_min(random.key(1), 1.0, 0.5, (2, 3))", ulp=LOG)
both_layouts("triangular", f"random.triangular({K}, 0.0, 1.0, 3.0, (8,))")
both_layouts("triangular_array", "random.triangular(random.key(1), -1.0, jnp.array([0.0, 0.5, 1.0]), 2.0, (2, 3))")
both_layouts("lognormal", f"random.lognormal({K}, 0.5, (8,))", ulp=1)
both_layouts("lognormal_2d", "random.lognormal(random.key(1), shape=(2, 3))", ulp=1)
both_layouts("rayleigh", f"random.rayleigh({K}, 2.0, (8,))", ulp=LOG)
both_layouts("rayleigh_array", "random.rayleigh(random.key(1), jnp.array([0.5, 1.0, 2.0]), (2, 3))", ulp=LOG)
# wald cancels terms of the squared normal, and XLA contracts its products
# into the sums (fused multiply-adds): with the backend contracting the same
# pairs (backends/numpy/xla/rewrite.py), exact.
both_layouts("wald", f"random.wald({K}, 1.5, (8,))")
both_layouts("wald_array", "random.wald(random.key(1), jnp.array([0.5, 1.0, 3.0]), (2, 3))")
both_layouts("maxwell", f"random.maxwell({K}, (8,))")
both_layouts("maxwell_2d", "random.maxwell(random.key(1), (2, 3))")
both_layouts("double_sided_maxwell", f"random.double_sided_maxwell({K}, 1.0, 2.0, (8,))")
both_layouts("double_sided_maxwell_array", "random.double_sided_maxwell(random.key(1), jnp.array([0.0, 1.0]), 1.0, (3,))")
case("maxwell_float64_x64", f"random.maxwell({K}, (4,), jnp.float64)", x64=True)

# ---- gamma and friends (rejection loops inside random_gamma) ---------------
# The gamma kernel reproduces XLA's arithmetic: its log, log1p, erf_inv, fused
# multiply-adds, and c = 1/3 * rsqrt(d) with the CPU's rsqrt estimate
# (backends/numpy/xla/xla_math.py): gamma and loggamma draws are bit-identical in
# every dtype, except gamma with a < 1, whose boost u ** (1 / a) goes through
# NumPy's float32 pow (measured: 0.5). The bounds below are for the lax
# arithmetic after the kernel (measured on the recorded draws, rounded up):
# log/exp of the kernel's draws (f, a ratio of two chi-squares each within
# 1, divided by their degrees of freedom as XLA does, by the reciprocal: 2).
GAMMA = 1
GAMMA_AFTER = {"loggamma": 0, "t": 0, "beta": 1, "dirichlet": 1, "chisquare": 1, "f": 2,
               "generalized_normal": 1, "ball": 1}
both_layouts("gamma", f"random.gamma({K}, 2.0, (8,))", ulp=GAMMA)
both_layouts("gamma_small_a", f"random.gamma({K}, 0.3, (8,))", ulp=GAMMA)
both_layouts("gamma_array", "random.gamma(random.key(1), jnp.array([0.5, 1.0, 4.0]), (2, 3))", ulp=GAMMA)
case("gamma_float64_x64", f"random.gamma({K}, 2.0, (6,), jnp.float64)", x64=True)
both_layouts("loggamma", f"random.loggamma({K}, 0.3, (8,))", ulp=GAMMA_AFTER["loggamma"])
both_layouts("loggamma_2d", "random.loggamma(random.key(1), 3.0, (2, 3))", ulp=GAMMA_AFTER["loggamma"])
both_layouts("beta", f"random.beta({K}, 2.0, 3.0, (8,))", ulp=GAMMA_AFTER["beta"])
both_layouts("beta_array", "random.beta(random.key(1), jnp.array([0.5, 1.0, 4.0]), 2.0, (2, 3))", ulp=GAMMA_AFTER["beta"])
both_layouts("dirichlet", "random.dirichlet(random.key(2), jnp.array([1.0, 2.0, 3.0]))", ulp=GAMMA_AFTER["dirichlet"])
both_layouts("dirichlet_shape", "random.dirichlet(random.key(3), jnp.array([0.5, 0.5]), (4,))", ulp=GAMMA_AFTER["dirichlet"])
both_layouts("chisquare", f"random.chisquare({K}, 3.0, (8,))", ulp=GAMMA_AFTER["chisquare"])
both_layouts("chisquare_array", "random.chisquare(random.key(1), jnp.array([1.0, 2.0, 5.0]), (2, 3))", ulp=GAMMA_AFTER["chisquare"])
both_layouts("f", f"random.f({K}, 3.0, 4.0, (8,))", ulp=GAMMA_AFTER["f"])
both_layouts("f_2d", "random.f(random.key(1), 2.0, 6.0, (2, 3))", ulp=GAMMA_AFTER["f"])
both_layouts("t", f"random.t({K}, 3.0, (8,))", ulp=GAMMA_AFTER["t"])
both_layouts("t_array", "random.t(random.key(1), jnp.array([1.0, 2.0, 10.0]), (2, 3))", ulp=GAMMA_AFTER["t"])
both_layouts("generalized_normal", f"random.generalized_normal({K}, 1.5, (8,))", ulp=GAMMA_AFTER["generalized_normal"])
both_layouts("generalized_normal_2d", "random.generalized_normal(random.key(1), 3.0, (2, 3))", ulp=GAMMA_AFTER["generalized_normal"])
both_layouts("ball", f"random.ball({K}, 3)", ulp=GAMMA_AFTER["ball"])
both_layouts("ball_p1_batch", "random.ball(random.key(1), 2, p=1.0, shape=(3,))", ulp=GAMMA_AFTER["ball"])

# ---- matrix samplers -----------------------------------------------------
both_layouts("multivariate_normal", "random.multivariate_normal(random.key(1), jnp.array([1.0, -1.0]), jnp.array([[2.0, 0.5], [0.5, 1.0]]), (4,))")
both_layouts("multivariate_normal_svd", "random.multivariate_normal(random.key(1), jnp.zeros(3), jnp.eye(3) * 2.0, (2,), method='svd')")
both_layouts("multivariate_normal_eigh", "random.multivariate_normal(random.key(1), jnp.zeros(2), jnp.array([[2.0, 0.5], [0.5, 1.0]]), method='eigh')")
both_layouts("orthogonal", f"random.orthogonal({K}, 3)", ulp=1)
both_layouts("orthogonal_rect_batch", "random.orthogonal(random.key(1), 2, (2,), m=4)", ulp=1)

# ---- samplers that loop (while_loop / scan) ---------------------------------
# Integer-valued: exact unless a log/lgamma difference flips an acceptance.
both_layouts("poisson_knuth", f"random.poisson({K}, 3.0, (10,))")
both_layouts("poisson_rejection", f"random.poisson({K}, 40.0, (10,))")
both_layouts("poisson_mixed", "random.poisson(random.key(1), jnp.array([0.0, 0.5, 9.0, 11.0, 1000.0, jnp.nan]), (2, 6))")
case("poisson_int64_x64", f"random.poisson({K}, 5.0, (6,), jnp.int64)", x64=True)
both_layouts("binomial_inversion", f"random.binomial({K}, 10.0, 0.3, (10,))")
both_layouts("binomial_btrs", f"random.binomial({K}, 200.0, 0.6, (10,))")
both_layouts("binomial_edges", "random.binomial(random.key(2), jnp.array([0.0, 5.0, -1.0, jnp.inf, 20.0, 30.0]), jnp.array([0.5, 0.0, 0.5, 0.5, jnp.nan, 1.0]))")
case("binomial_float64_x64", f"random.binomial({K}, 50.0, 0.25, (6,), jnp.float64)", x64=True)
both_layouts("multinomial", f"random.multinomial({K}, 20.0, jnp.array([0.2, 0.3, 0.5]))")
both_layouts("multinomial_batch", "random.multinomial(random.key(3), jnp.array([5.0, 100.0]), jnp.array([[0.1, 0.6, 0.3], [0.5, 0.5, 0.0]]))")

# ---- the coverage matrix ---------------------------------------------------
# Every distribution at two shapes, in each dtype it takes, with x64 off and
# on (float32 exists in both modes, float64 only under x64, float16 and
# bfloat16 are drawn with x64 off). Partitionable layout only: the cases
# above already cover both layouts for every sampler.
SHAPES = ((5,), (2, 3))
FLOATS = (("float32", False), ("float16", False), ("bfloat16", False), ("float32", True), ("float64", True))
INTS = (("int32", False), ("int8", False), ("uint16", False), ("int32", True), ("int64", True))
P_DTYPES = (("float32", False), ("float32", True), ("float64", True))

# family: (template with {k} key, {s} shape, {d} dtype; ulp; fma). The ulp
# values are the family bounds above (docs/random.md).
FLOAT_SAMPLERS = {
    "uniform": ("random.uniform({k}, {s}, jnp.{d}, -1.0, 2.0)", 0, False),
    "normal": ("random.normal({k}, {s}, jnp.{d})", 0, False),
    "truncated_normal": ("random.truncated_normal({k}, -1.5, 1.0, {s}, jnp.{d})", 0, False),
    "gumbel": ("random.gumbel({k}, {s}, jnp.{d})", LOG, False),
    "exponential": ("random.exponential({k}, {s}, jnp.{d})", LOG, False),
    "laplace": ("random.laplace({k}, {s}, jnp.{d})", LOG, False),
    "logistic": ("random.logistic({k}, {s}, jnp.{d})", LOG, False),
    "cauchy": ("random.cauchy({k}, {s}, jnp.{d})", LOG, False),
    "pareto": ("random.pareto({k}, 2.0, {s}, jnp.{d})", LOG, False),
    "weibull_min": ("random.weibull_min({k}, 1.5, 2.0, {s}, jnp.{d})", LOG, False),
    "rayleigh": ("random.rayleigh({k}, 1.5, {s}, jnp.{d})", LOG, False),
    "triangular": ("random.triangular({k}, -1.0, 0.5, 2.0, {s}, jnp.{d})", 0, False),
    "lognormal": ("random.lognormal({k}, 0.8, {s}, jnp.{d})", 1, False),
    "maxwell": ("random.maxwell({k}, {s}, jnp.{d})", 1, False),
    "double_sided_maxwell": ("random.double_sided_maxwell({k}, 0.5, 1.5, {s}, jnp.{d})", 1, False),
    "wald": ("random.wald({k}, 2.0, {s}, jnp.{d})", 0, False),
    "gamma": ("random.gamma({k}, 1.5, {s}, jnp.{d})", GAMMA, False),
    "loggamma": ("random.loggamma({k}, 0.7, {s}, jnp.{d})", GAMMA_AFTER["loggamma"], False),
    "beta": ("random.beta({k}, 1.5, 2.5, {s}, jnp.{d})", GAMMA_AFTER["beta"], False),
    "dirichlet": ("random.dirichlet({k}, jnp.asarray([1.0, 2.5, 0.5], jnp.{d}), {s}, jnp.{d})", GAMMA_AFTER["dirichlet"], False),
    "chisquare": ("random.chisquare({k}, 2.5, {s}, jnp.{d})", GAMMA_AFTER["chisquare"], False),
    "f": ("random.f({k}, 3.0, 5.0, {s}, jnp.{d})", GAMMA_AFTER["f"], False),
    "t": ("random.t({k}, 4.0, {s}, jnp.{d})", GAMMA_AFTER["t"], False),
    "generalized_normal": ("random.generalized_normal({k}, 2.5, {s}, jnp.{d})", GAMMA_AFTER["generalized_normal"], False),
    "ball": ("random.ball({k}, 3, 2, {s}, jnp.{d})", GAMMA_AFTER["ball"], False),
    "multivariate_normal": ("random.multivariate_normal({k}, jnp.asarray([0.5, -1.0], jnp.{d}), "
                            "jnp.asarray([[1.5, 0.3], [0.3, 0.8]], jnp.{d}), {s}, jnp.{d})", 0, False),
    "orthogonal": ("random.orthogonal({k}, 3, {s}, jnp.{d})", 0, False),
    "binomial": ("random.binomial({k}, 15.0, 0.4, {s}, jnp.{d})", 0, False),
}
# Samplers with an integer dtype, or whose float input sets the dtype used.
OTHER_SAMPLERS = {
    "randint": ("random.randint({k}, {s}, 2, 50, jnp.{d})", INTS),
    "poisson": ("random.poisson({k}, 4.0, {s}, jnp.{d})", INTS),
    "geometric": ("random.geometric({k}, 0.35, {s}, jnp.{d})", INTS),
    "rademacher": ("random.rademacher({k}, {s}, jnp.{d})", INTS + (("float32", False), ("float64", True))),
    "bernoulli": ("random.bernoulli({k}, jnp.asarray(0.35, jnp.{d}), {s})", FLOATS),
    "categorical": ("random.categorical({k}, jnp.log(jnp.asarray([0.2, 0.5, 0.3], jnp.{d})), shape={s})", FLOATS),
    "permutation[array]": ("random.permutation({k}, jnp.arange({n}, dtype=jnp.{d}).reshape({s}))",
                           (("int32", False), ("float32", False), ("int64", True), ("float64", True))),
    "choice[replace]": ("random.choice({k}, jnp.arange(10, dtype=jnp.{d}), {s})",
                        (("int32", False), ("float32", False), ("int64", True), ("float64", True))),
    "choice[no_replace]": ("random.choice({k}, jnp.arange(10, dtype=jnp.{d}), {s}, replace=False)",
                           (("int32", False), ("float32", False), ("int64", True), ("float64", True))),
    "choice[p]": ("random.choice({k}, 5, {s}, p=jnp.asarray([0.1, 0.2, 0.3, 0.15, 0.25], jnp.{d}))", P_DTYPES),
}
# Combinations JAX 0.11.0 refuses (probed with the reference): not recorded.
UNSUPPORTED = {(family, dtype) for family in ("multivariate_normal", "orthogonal")
               for dtype in ("float16", "bfloat16")}  # "Unsupported dtype float16." from the LAPACK kernels
# Measured bounds other than a family's, per (family, dtype): ulp; see docs/random.md.
# Measured on the matrix's draws (the largest difference, rounded up). float64
# exp, log and log1p are XLA's own (xla_math.exp_f64 / log_f64 / log1p_f64 are
# the NumPy backend's impls), so the samplers built on them draw XLA's bits.
DTYPE_ULP = {
    **{(family, "float64"): 0 for family in (
        "gumbel", "exponential", "laplace", "logistic", "cauchy", "pareto", "weibull_min", "rayleigh",
        "gamma", "beta", "dirichlet", "chisquare")},  # measured: 0
    ("f", "float64"): 2,  # measured: 2
    # float64 normals are exact since XLA's float64 erf_inv is reproduced (xla_math.erf_inv_f64)
    ("normal", "float64"): 0, ("maxwell", "float64"): 0,
    ("lognormal", "float64"): 1,  # measured: 1
    ("double_sided_maxwell", "float64"): 0,  # measured: 0
    # float32 norms are exact since the NumPy backend sums short rows of
    # products with XLA's fused multiply-adds (rewrite.py `_small_reductions`);
    # bfloat16 keeps 1 (its products are rounded to bfloat16 first).
    ("maxwell", "float32"): 0, ("double_sided_maxwell", "float32"): 0,
    ("orthogonal", "float64"): 0,  # measured: 0
}


def _shape_tag(shape) -> str:
  return "x".join(map(str, shape))


def _draws(family: str, template: str, modes, seed: int, ulp: int = 0, fma: bool = False) -> None:
  """One case per shape in SHAPES and (dtype, x64) mode; keys seed, seed + 1."""
  for i, shape in enumerate(SHAPES):
    for dtype, x64 in modes:
      if (family, dtype) in UNSUPPORTED:
        continue
      expr = template.format(k=f"random.key({seed + i})", s=shape, d=dtype, n=math.prod(shape))
      name = f"{family}__{dtype}_{_shape_tag(shape)}{'_x64' if x64 else ''}".replace("[", "_").replace("]", "")
      case(name, expr, x64=x64, ulp=DTYPE_ULP.get((family, dtype), ulp), fma=fma, family=family)


def _matrix() -> None:
  for offset, (family, (template, ulp, fma)) in enumerate(FLOAT_SAMPLERS.items()):
    _draws(family, template, FLOATS, 100 + 2 * offset, ulp, fma)
  for offset, (family, (template, modes)) in enumerate(OTHER_SAMPLERS.items()):
    _draws(family, template, modes, 200 + 2 * offset)
  for i, n in enumerate((7, 13)):
    for x64 in (False, True):
      case(f"permutation_int__{n}{'_x64' if x64 else ''}", f"random.permutation(random.key({300 + i}), {n})",
           x64=x64, family="permutation[int]")
  # Key functions: shapes of key arrays, under both modes.
  for i, shape in enumerate(((3,), (2, 2))):
    for x64 in (False, True):
      tag = f"{_shape_tag(shape)}{'_x64' if x64 else ''}"
      case(f"split__{tag}", f"random.key_data(random.split(random.key({310 + i}), {shape}))", x64=x64, family="split")
      case(f"key_data__{tag}", f"random.key_data(random.split(random.key({314 + i}), {shape})[..., None])",
           x64=x64, family="key_data")
      case(f"wrap_key_data__{tag}", f"random.bits(random.wrap_key_data(jnp.asarray([5, {9 + i}], jnp.uint32)), {shape})",
           x64=x64, family="wrap_key_data")
  # fold_in takes one key: a key, and a batch of keys under vmap.
  for x64 in (False, True):
    tag = "_x64" if x64 else ""
    case(f"fold_in__key{tag}", "random.key_data(random.fold_in(random.key(312), 7))", x64=x64, family="fold_in")
    case(f"fold_in__vmap_3{tag}", "random.key_data(jax.vmap(random.fold_in, (0, None))(random.split(random.key(313), 3), 7))",
         x64=x64, family="fold_in")
  case("bits__2x2_x64", "random.bits(random.key(320), (2, 2))", x64=True, family="bits")
  case("prngkey__x64", "random.PRNGKey(321)", x64=True, family="PRNGKey")


_matrix()


# ---- families and the audit ------------------------------------------------
# The distributions and key functions issue 10 asks golden vectors for;
# permutation and choice count per variant.
REQUIRED_FAMILIES = (
    "uniform", "normal", "truncated_normal", "bernoulli", "categorical", "randint", "permutation[int]",
    "permutation[array]", "choice[replace]", "choice[no_replace]", "choice[p]", "gumbel", "exponential",
    "laplace", "logistic", "cauchy", "gamma", "loggamma", "beta", "dirichlet", "poisson", "binomial",
    "multivariate_normal", "t", "chisquare", "f", "orthogonal", "ball", "rademacher", "maxwell",
    "double_sided_maxwell", "weibull_min", "pareto", "generalized_normal", "triangular", "lognormal",
    "geometric", "rayleigh", "wald",
    "split", "fold_in", "bits", "key_data", "wrap_key_data", "PRNGKey")
_KEY_FUNCTIONS = ("split", "fold_in", "bits", "wrap_key_data", "PRNGKey", "key_data")
_SAMPLERS = {f.split("[")[0] for f in REQUIRED_FAMILIES if f not in _KEY_FUNCTIONS} | {"multinomial"}


def families(c: Case) -> set[str]:
  """The families a case draws from: its ``family``, else read off its expression."""
  if c.family:
    return {c.family}
  names = re.findall(r"random\.(\w+)\(", c.expr)
  samplers = [n for n in names if n in _SAMPLERS]
  if not samplers:
    return {min((n for n in names if n in _KEY_FUNCTIONS), key=_KEY_FUNCTIONS.index, default="key_data")}
  name = samplers[0]
  if name == "permutation":
    return {"permutation[array]" if "jnp." in c.expr else "permutation[int]"}
  if name == "choice":
    found = {"choice[no_replace]" if "replace=False" in c.expr else "choice[replace]"}
    return found | ({"choice[p]"} if ", p=" in c.expr else set())
  return {name}


def coverage(recorded: dict) -> dict[str, set[tuple]]:
  """family -> {(shape, dtype, x64)} over the recorded cases."""
  table: dict[str, set[tuple]] = {}
  for c in CASES:
    record = recorded.get(c.name)
    if record is None:
      continue
    parts = record["tuple"] if "tuple" in record else [record]
    for family in families(c):
      for part in parts:
        table.setdefault(family, set()).add((tuple(part["shape"]), part["dtype"], c.x64))
  return table


def audit(recorded: dict) -> str:
  """A table: per family, the (shape, dtype, x64) combinations recorded."""
  table = coverage(recorded)
  lines = []
  for family in list(REQUIRED_FAMILIES) + sorted(set(table) - set(REQUIRED_FAMILIES)):
    combos = table.get(family, set())
    by_mode = {}
    for shape, dtype, x64 in combos:
      by_mode.setdefault((dtype, x64), set()).add(shape)
    cells = [f"{dtype}{'/x64' if x64 else ''}: {' '.join(sorted(str(s).replace(' ', '') for s in shapes))}"
             for (dtype, x64), shapes in sorted(by_mode.items())]
    lines.append(f"{family:22} {len(combos):3} | " + ("; ".join(cells) if cells else "MISSING"))
  return "\n".join(lines)


# --------------------------------------------------------------------------
# Encoding (shared with the test)

def digest(array, np) -> str:
  """The SHA-256 of an array's bytes (C order): a large draw, compared exactly."""
  import hashlib

  return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()


def encode(value, np, as_digest=False) -> dict:
  """A JSON-able record of an array or a tuple of arrays, exact to the bit."""
  if isinstance(value, (tuple, list)):
    return {"tuple": [encode(v, np) for v in value]}
  array = np.asarray(value)
  dtype = str(array.dtype)
  if as_digest:
    return {"dtype": dtype, "shape": list(array.shape), "sha256": digest(array, np)}
  if array.dtype.kind in "fc" or dtype == "bfloat16":
    if array.dtype.kind == "c":
      parts = np.stack([array.real, array.imag], axis=-1)
      bits = parts.view(f"u{parts.dtype.itemsize}")
    else:
      bits = array.view(f"u{array.dtype.itemsize}")
    return {"dtype": dtype, "shape": list(array.shape), "bits": bits.tolist()}
  return {"dtype": dtype, "shape": list(array.shape), "value": array.tolist()}


def run_case(c: Case, jax, jnp, random, np):
  """Evaluates a case under its config; returns the value (or raises)."""
  previous = {}
  settings = {"jax_enable_x64": c.x64, "jax_threefry_partitionable": c.partitionable, **c.config}
  for name, value in settings.items():
    previous[name] = getattr(jax.config, name)
    jax.config.update(name, value)
  try:
    return eval(c.expr, {"jax": jax, "jnp": jnp, "random": random, "np": np})
  finally:
    for name, value in previous.items():
      jax.config.update(name, value)


def main() -> int:
  if "--audit" in sys.argv[1:]:
    print(audit(json.loads(OUTPUT.read_text(encoding="utf-8"))["cases"]))
    return 0
  os.environ["JAX_PLATFORMS"] = "cpu"
  os.environ.pop("JAX_ENABLE_X64", None)
  import jax
  import jax.numpy as jnp
  import numpy as np
  from jax import random

  if jax.__version__ != REFERENCE_VERSION:
    print(f"refusing to record: jax {jax.__version__}, need {REFERENCE_VERSION}", file=sys.stderr)
    return 1
  records = {}
  for c in CASES:
    records[c.name] = {"expr": c.expr, **encode(run_case(c, jax, jnp, random, np), np, c.digest)}
  document = {"meta": {"jax_version": jax.__version__, "platform": jax.default_backend(),
                       "recorded_by": "tests/golden/record_random_vectors.py"},
              "cases": records}
  OUTPUT.write_text(json.dumps(document, indent=0, sort_keys=True) + "\n", encoding="utf-8")
  print(f"recorded {len(records)} cases to {OUTPUT}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
