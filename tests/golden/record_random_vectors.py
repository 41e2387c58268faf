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
import os
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


CASES: list[Case] = []


def case(name, expr, *, x64=False, partitionable=True, ulp=0, fma=False, digest=False, **config):
  if any(c.name == name for c in CASES):
    raise ValueError(f"duplicate case {name}")
  if digest and (ulp or fma):
    raise ValueError(f"{name}: a digest case must be bit-exact")
  CASES.append(Case(name, expr, x64, partitionable, ulp, fma, digest, config))


def both_layouts(name, expr, **kw):
  """The case with jax_threefry_partitionable on (0.11's default) and off."""
  case(name, expr, **kw)
  case(name + "__original", expr, partitionable=False, **kw)


# XLA on the CPU contracts `a * b + c` into one fused multiply-add (one
# rounding instead of two); NumPy rounds twice. Cases marked fma=True (scale
# and shift: uniform on [minval, maxval) ...) may differ by that one
# rounding: one ulp of the largest magnitude in the result.

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
  both_layouts(f"uniform_{dtype}_2d", f"random.uniform(random.key(1), (3, 4), jnp.{dtype}, -2.0, 3.0)",
               fma=True)
both_layouts("uniform_float64_x64", f"random.uniform({K}, (8,), jnp.float64)", x64=True)
both_layouts("uniform_float64_2d_x64", "random.uniform(random.key(5), (2, 3), jnp.float64, 1.0, 2.5)", x64=True,
             fma=True)
both_layouts("uniform_array_bounds", "random.uniform(random.key(2), (2, 3), minval=jnp.array([0., 1., 2.]), maxval=5.0)",
             fma=True)
both_layouts("uniform_scalar", f"random.uniform({K})")
case("uniform_raw_key", "random.uniform(random.PRNGKey(0), (4,))")
both_layouts("normal_seed", f"random.normal({K}, (3,))")
both_layouts("normal_split", f"random.normal(random.split({K})[0], (3,))")
both_layouts("normal_float32_2d", "random.normal(random.key(3), (4, 5))")
both_layouts("normal_float16", f"random.normal({K}, (6,), jnp.float16)")
both_layouts("normal_bfloat16", f"random.normal({K}, (6,), jnp.bfloat16)")
# float64: scipy's erfinv, not XLA's double-precision polynomial (measured: 3 ulp).
both_layouts("normal_float64_x64", f"random.normal({K}, (6,), jnp.float64)", x64=True, ulp=3)
both_layouts("normal_complex64", f"random.normal({K}, (4,), jnp.complex64)")
# Draws of 2**20 or more take the erf_inv table (backends/numpy/xla_math.py).
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
case("exponential_float64_x64", f"random.exponential({K}, (6,), jnp.float64)", x64=True, ulp=LOG)
both_layouts("gumbel", f"random.gumbel({K}, (8,))", ulp=LOG)
both_layouts("gumbel_2d", "random.gumbel(random.key(1), (2, 3))", ulp=LOG)
both_layouts("gumbel_high", f"random.gumbel({K}, (8,), mode='high')", ulp=LOG, fma=True)
both_layouts("gumbel_highest", f"random.gumbel({K}, (8,), mode='highest')", ulp=LOG)
case("gumbel_float64_x64", f"random.gumbel({K}, (6,), jnp.float64)", x64=True, ulp=LOG)
both_layouts("laplace", f"random.laplace({K}, (8,))", ulp=LOG, fma=True)
both_layouts("laplace_2d", "random.laplace(random.key(1), (2, 3))", ulp=LOG, fma=True)
both_layouts("logistic", f"random.logistic({K}, (8,))", ulp=LOG)
both_layouts("logistic_2d", "random.logistic(random.key(1), (2, 3))", ulp=LOG)
both_layouts("cauchy", f"random.cauchy({K}, (8,))", ulp=LOG, fma=True)
both_layouts("cauchy_2d", "random.cauchy(random.key(1), (2, 3))", ulp=LOG, fma=True)
both_layouts("truncated_normal", f"random.truncated_normal({K}, -1.0, 2.0, (8,))", ulp=2, fma=True)
both_layouts("truncated_normal_array", "random.truncated_normal(random.key(1), jnp.array([-2.0, 0.0, 1.0]), 3.0, (2, 3))", ulp=2, fma=True)
case("truncated_normal_float64_x64", f"random.truncated_normal({K}, -1.0, 2.0, (6,), jnp.float64)", x64=True, ulp=3, fma=True)
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
# wald cancels terms of the squared normal, hence the wider bound (measured: 4).
both_layouts("wald", f"random.wald({K}, 1.5, (8,))", ulp=4, fma=True)
both_layouts("wald_array", "random.wald(random.key(1), jnp.array([0.5, 1.0, 3.0]), (2, 3))", ulp=4, fma=True)
both_layouts("maxwell", f"random.maxwell({K}, (8,))", ulp=1)
both_layouts("maxwell_2d", "random.maxwell(random.key(1), (2, 3))", ulp=1)
both_layouts("double_sided_maxwell", f"random.double_sided_maxwell({K}, 1.0, 2.0, (8,))", ulp=1, fma=True)
both_layouts("double_sided_maxwell_array", "random.double_sided_maxwell(random.key(1), jnp.array([0.0, 1.0]), 1.0, (3,))", ulp=1, fma=True)
case("maxwell_float64_x64", f"random.maxwell({K}, (4,), jnp.float64)", x64=True, ulp=3)

# ---- gamma and friends (rejection loops inside random_gamma) ---------------
# The float32 gamma kernel uses XLA's log and erf_inv (backends/numpy/xla_math.py)
# but does not yet repeat all of XLA's fused arithmetic: on 20000 draws of
# gamma(2.5) 15% differ, by at most 10 ulp (gamma(0.5): 19%, 2 ulp).
GAMMA = 10
both_layouts("gamma", f"random.gamma({K}, 2.0, (8,))", ulp=GAMMA)
both_layouts("gamma_small_a", f"random.gamma({K}, 0.3, (8,))", ulp=GAMMA)
both_layouts("gamma_array", "random.gamma(random.key(1), jnp.array([0.5, 1.0, 4.0]), (2, 3))", ulp=GAMMA)
case("gamma_float64_x64", f"random.gamma({K}, 2.0, (6,), jnp.float64)", x64=True, ulp=GAMMA)
both_layouts("loggamma", f"random.loggamma({K}, 0.3, (8,))", ulp=GAMMA)
both_layouts("loggamma_2d", "random.loggamma(random.key(1), 3.0, (2, 3))", ulp=GAMMA)
both_layouts("beta", f"random.beta({K}, 2.0, 3.0, (8,))", ulp=GAMMA)
both_layouts("beta_array", "random.beta(random.key(1), jnp.array([0.5, 1.0, 4.0]), 2.0, (2, 3))", ulp=GAMMA)
both_layouts("dirichlet", "random.dirichlet(random.key(2), jnp.array([1.0, 2.0, 3.0]))", ulp=GAMMA)
both_layouts("dirichlet_shape", "random.dirichlet(random.key(3), jnp.array([0.5, 0.5]), (4,))", ulp=GAMMA)
both_layouts("chisquare", f"random.chisquare({K}, 3.0, (8,))", ulp=GAMMA)
both_layouts("chisquare_array", "random.chisquare(random.key(1), jnp.array([1.0, 2.0, 5.0]), (2, 3))", ulp=GAMMA)
both_layouts("f", f"random.f({K}, 3.0, 4.0, (8,))", ulp=GAMMA)
both_layouts("f_2d", "random.f(random.key(1), 2.0, 6.0, (2, 3))", ulp=GAMMA)
both_layouts("t", f"random.t({K}, 3.0, (8,))", ulp=GAMMA)
both_layouts("t_array", "random.t(random.key(1), jnp.array([1.0, 2.0, 10.0]), (2, 3))", ulp=GAMMA)
both_layouts("generalized_normal", f"random.generalized_normal({K}, 1.5, (8,))", ulp=GAMMA)
both_layouts("generalized_normal_2d", "random.generalized_normal(random.key(1), 3.0, (2, 3))", ulp=GAMMA)
both_layouts("ball", f"random.ball({K}, 3)", ulp=GAMMA)
both_layouts("ball_p1_batch", "random.ball(random.key(1), 2, p=1.0, shape=(3,))", ulp=GAMMA)

# ---- matrix samplers -----------------------------------------------------
both_layouts("multivariate_normal", "random.multivariate_normal(random.key(1), jnp.array([1.0, -1.0]), jnp.array([[2.0, 0.5], [0.5, 1.0]]), (4,))", ulp=1, fma=True)
both_layouts("multivariate_normal_svd", "random.multivariate_normal(random.key(1), jnp.zeros(3), jnp.eye(3) * 2.0, (2,), method='svd')", ulp=1, fma=True)
both_layouts("multivariate_normal_eigh", "random.multivariate_normal(random.key(1), jnp.zeros(2), jnp.array([[2.0, 0.5], [0.5, 1.0]]), method='eigh')", ulp=1, fma=True)
both_layouts("orthogonal", f"random.orthogonal({K}, 3)", ulp=1, fma=True)
both_layouts("orthogonal_rect_batch", "random.orthogonal(random.key(1), 2, (2,), m=4)", ulp=1, fma=True)

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
