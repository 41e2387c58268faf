"""Records ``rbg_vectors.json``: what JAX 0.11.0 on the CPU gives for the
``rbg`` and ``unsafe_rbg`` PRNGs and for ``lax.rng_bit_generator``.

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_rbg_vectors.py

The cases, their configs and their encoding are those of
record_random_vectors.py (this module reuses its ``Case``, ``encode`` and
``run_case``); only the list differs. Every value is stored exactly (floats
as bit patterns), and the test (tests/random/test_rbg.py) compares bit for
bit. This module imports no JAX at import time: the test reads CASES from it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "rbg_vectors.json"
_spec = importlib.util.spec_from_file_location("record_random_vectors", HERE / "record_random_vectors.py")
vectors = sys.modules.get(_spec.name) or importlib.util.module_from_spec(_spec)
if _spec.name not in sys.modules:
  sys.modules[_spec.name] = vectors
  _spec.loader.exec_module(vectors)

Case = vectors.Case
encode = vectors.encode
run_case = vectors.run_case
CASES: list[Case] = []


def case(name, expr, *, x64=False, partitionable=True, ulp=0, **config):
  if any(c.name == name for c in CASES):
    raise ValueError(f"duplicate case {name}")
  CASES.append(Case(name, expr, x64, partitionable, ulp, False, False, config, ""))


def four_ways(name, expr, *, ulp=0, x64_ulp=0, **config):
  """The case under x64 off and on, jax_threefry_partitionable on and off.

  ``ulp`` (record_random_vectors.py's meaning) applies to the float32 runs
  (x64 off), ``x64_ulp`` to the float64 ones (x64 on).
  """
  for x64 in (False, True):
    for part in (True, False):
      case(f"{name}{'__x64' if x64 else ''}{'' if part else '__original'}", expr, x64=x64, partitionable=part,
           ulp=x64_ulp if x64 else ulp, **config)


# float32 samplers through log/log1p/tan/pow: pyjax's NumPy transcendentals
# and XLA's may differ in the last bits (record_random_vectors.LOG, GAMMA).
LOG, GAMMA = vectors.LOG, vectors.GAMMA
# Samplers through several (lgamma, pow, log of a gamma draw): the largest of
# record_random_vectors.GAMMA_AFTER's bounds, in both x64 modes.
TRANSCENDENTAL = max(vectors.GAMMA_AFTER.values())
# loggamma(0.7) from an unsafe_rbg key, float32: 3 ulp apart (measured), the
# log-space boost's log of a uniform draw; the same draw from rbg is within 2.
LOGGAMMA = 3


# ---- lax.rng_bit_generator: Philox (the CPU's default) and ThreeFry ---------
RBG = "jax.lax.rng_bit_generator"
KEYS = {"zero": "[0, 0, 0, 0]", "small": "[1, 2, 3, 4]",
        # the counter's low 64 bits wrap: the carry goes into the high word
        "carry": "[7, 9, 0xFFFFFFFE, 0xFFFFFFFF]",
        "big": "[0xDEADBEEF, 0x12345678, 0x9ABCDEF0, 0x0F0F0F0F]"}
SHAPES = ("()", "(1,)", "(3,)", "(4,)", "(5,)", "(2, 3)", "(3, 1, 5)", "(0,)", "(9, 7)")
for kname, kexpr in KEYS.items():
  for shape in SHAPES:
    for alg in ("RNG_DEFAULT", "RNG_PHILOX", "RNG_THREE_FRY"):
      for dtype in ("uint8", "uint16", "uint32"):
        case(f"rbg_{kname}_{shape}_{alg}_{dtype}",
             f"{RBG}(np.array({kexpr}, np.uint32), {shape}, jnp.{dtype}, jax.lax.RandomAlgorithm.{alg})")
      case(f"rbg_{kname}_{shape}_{alg}_uint64__x64",
           f"{RBG}(np.array({kexpr}, np.uint32), {shape}, jnp.uint64, jax.lax.RandomAlgorithm.{alg})", x64=True)
  case(f"rbg_{kname}_u64_key__x64",
       f"{RBG}(np.array({kexpr}, np.uint32).view(np.uint64), (5,), jnp.uint32)", x64=True)
  case(f"rbg_{kname}_u64_key_threefry__x64",
       f"{RBG}(np.array({kexpr}, np.uint32).view(np.uint64), (2, 3), jnp.uint64, jax.lax.RandomAlgorithm.RNG_THREE_FRY)",
       x64=True)
case("rbg_uint64_truncated", f"{RBG}(np.array([1, 2, 3, 4], np.uint32), (3,), jnp.uint64)")
case("rbg_default_dtype", f"{RBG}(np.array([1, 2, 3, 4], np.uint32), (6,))")
case("rbg_jit", f"jax.jit(lambda k: {RBG}(k, (2, 5)))(np.array([5, 6, 7, 8], np.uint32))")
case("rbg_large", f"{RBG}(np.array([5, 6, 7, 8], np.uint32), (1000,))")
# vmap: JAX draws every example's bits from the *first* key, as one draw of
# shape (batch, *shape); only the first key advances.
case("rbg_vmap", f"jax.vmap(lambda k: {RBG}(k, (3,)))(np.arange(12, dtype=np.uint32).reshape(3, 4))")
case("rbg_vmap_axis1", f"jax.vmap(lambda k: {RBG}(k, (2,)), in_axes=1)(np.arange(8, dtype=np.uint32).reshape(4, 2))")
case("rbg_vmap_nested",
     f"jax.vmap(jax.vmap(lambda k: {RBG}(k, (2,))))(np.arange(24, dtype=np.uint32).reshape(2, 3, 4))")
case("rbg_vmap_unbatched_key",
     f"jax.vmap(lambda x: (x * 2, {RBG}(np.array([1, 2, 3, 4], np.uint32), (2,))[1]))(jnp.arange(3.0))")

# ---- the rbg and unsafe_rbg PRNGs ------------------------------------------
for impl in ("rbg", "unsafe_rbg"):
  K = f"random.key(0, impl='{impl}')"
  K7 = f"random.key(7, impl='{impl}')"
  for seed in ("0", "1", "42", "-1", "2**31 + 5", "2**40 + 3"):
    case(f"{impl}_key_data_{seed}", f"random.key_data(random.key({seed}, impl='{impl}'))")
    case(f"{impl}_key_data_{seed}__x64", f"random.key_data(random.key({seed}, impl='{impl}'))", x64=True)
  case(f"{impl}_prngkey", f"random.PRNGKey(5, impl='{impl}')")
  four_ways(f"{impl}_split", f"random.key_data(random.split({K}))")
  four_ways(f"{impl}_split_5", f"random.key_data(random.split({K7}, 5))")
  four_ways(f"{impl}_split_2x3", f"random.key_data(random.split({K7}, (2, 3)))")
  four_ways(f"{impl}_split_of_split", f"random.key_data(random.split(random.split({K})[1], 3))")
  four_ways(f"{impl}_fold_in", f"random.key_data(random.fold_in({K7}, 3))")
  four_ways(f"{impl}_fold_in_big", f"random.key_data(random.fold_in({K}, 2**32 - 1))")
  for dtype in ("uint8", "uint16", "uint32"):
    four_ways(f"{impl}_bits_{dtype}", f"random.bits({K7}, (2, 5), jnp.{dtype})")
  case(f"{impl}_bits_uint64__x64", f"random.bits({K7}, (2, 5), jnp.uint64)", x64=True)
  case(f"{impl}_bits_scalar", f"random.bits({K})")
  four_ways(f"{impl}_uniform", f"random.uniform({K7}, (7,))")
  for dtype in ("float16", "bfloat16"):
    case(f"{impl}_uniform_{dtype}", f"random.uniform({K7}, (7,), jnp.{dtype})")
  case(f"{impl}_uniform_float64__x64", f"random.uniform({K7}, (2, 3), jnp.float64)", x64=True)
  four_ways(f"{impl}_normal", f"random.normal({K7}, (2, 3))")
  four_ways(f"{impl}_randint", f"random.randint({K7}, (9,), -5, 100)")
  four_ways(f"{impl}_bernoulli", f"random.bernoulli({K7}, 0.4, (9,))")
  four_ways(f"{impl}_permutation", f"random.permutation({K7}, 10)")
  four_ways(f"{impl}_choice", f"random.choice({K7}, 20, (4,), replace=False)")
  four_ways(f"{impl}_categorical", f"random.categorical({K7}, jnp.log(jnp.array([0.1, 0.2, 0.7])), shape=(6,))")
  four_ways(f"{impl}_exponential", f"random.exponential({K7}, (5,))", ulp=LOG)
  four_ways(f"{impl}_gumbel", f"random.gumbel({K7}, (5,))", ulp=LOG)
  four_ways(f"{impl}_truncated_normal", f"random.truncated_normal({K7}, -1.0, 1.0, (5,))")
  four_ways(f"{impl}_gamma", f"random.gamma({K7}, jnp.array([0.5, 1.0, 3.0]))", ulp=GAMMA)
  four_ways(f"{impl}_poisson", f"random.poisson({K7}, 3.0, (5,))")
  four_ways(f"{impl}_beta", f"random.beta({K7}, 2.0, 3.0, (4,))", ulp=GAMMA)
  four_ways(f"{impl}_multivariate_normal", f"random.multivariate_normal({K7}, jnp.zeros(2), jnp.eye(2), (3,))")
  four_ways(f"{impl}_rademacher", f"random.rademacher({K7}, (6,))")
  four_ways(f"{impl}_laplace", f"random.laplace({K7}, (5,))")
  four_ways(f"{impl}_cauchy", f"random.cauchy({K7}, (5,))", ulp=LOG)
  four_ways(f"{impl}_logistic", f"random.logistic({K7}, (5,))", ulp=LOG)
  four_ways(f"{impl}_binomial", f"random.binomial({K7}, 10, 0.3, (5,))")
  four_ways(f"{impl}_dirichlet", f"random.dirichlet({K7}, jnp.array([1.0, 2.0, 3.0]))", ulp=GAMMA)
  four_ways(f"{impl}_orthogonal", f"random.orthogonal({K7}, 3)")
  for expr, ulp in (("random.t({k}, 3.0, (4,))", GAMMA), ("random.chisquare({k}, 2.5, (4,))", TRANSCENDENTAL),
                    ("random.f({k}, 2.0, 5.0, (4,))", TRANSCENDENTAL), ("random.loggamma({k}, 0.7, (4,))", LOGGAMMA),
                    ("random.pareto({k}, 3.0, (4,))", LOG), ("random.weibull_min({k}, 1.5, 2.0, (4,))", LOG),
                    ("random.wald({k}, 1.0, (4,))", 0), ("random.triangular({k}, 0.0, 0.3, 1.0, (4,))", 0),
                    ("random.maxwell({k}, (4,))", LOG), ("random.double_sided_maxwell({k}, 0.0, 1.0, (4,))", LOG),
                    ("random.rayleigh({k}, 1.0, (4,))", LOG), ("random.generalized_normal({k}, 1.5, (4,))", TRANSCENDENTAL),
                    ("random.lognormal({k}, 0.5, (4,))", LOG), ("random.ball({k}, 3, 2, (2,))", TRANSCENDENTAL),
                    ("random.multinomial({k}, 10, jnp.array([0.2, 0.3, 0.5]))", 0),
                    ("random.geometric({k}, 0.3, (5,))", 0),
                    ("random.choice({k}, 10, (3,), p=jnp.arange(10.0) / 45.0)", 0),
                    ("random.choice({k}, 10, (3,), replace=False, p=jnp.arange(10.0) / 45.0)", 0),
                    ("random.permutation({k}, jnp.arange(12).reshape(3, 4), axis=1)", 0),
                    ("random.categorical({k}, jnp.zeros((2, 5)), axis=-1)", 0),
                    ("random.binomial({k}, jnp.array([3.0, 50.0]), jnp.array([0.9, 0.2]))", 0),
                    ("random.gamma({k}, 0.3, (3,))", GAMMA),
                    ("random.loggamma({k}, 0.3, (3,))", TRANSCENDENTAL),
                    ("jax.jit(lambda k: random.gamma(k, 2.0, (3,)))({k})", GAMMA),
                    ("jax.jit(lambda k: random.binomial(k, 20.0, 0.4, (3,)))({k})", 0),
                    ("jax.vmap(lambda k: random.gamma(k, 2.0, (3,)))(random.split({k}, 2))", GAMMA),
                    ("jax.vmap(lambda k: random.permutation(k, 6))(random.split({k}, 2))", 0),
                    ("jax.vmap(lambda k: random.randint(k, (3,), 0, 9))(random.split({k}, 2))", 0),
                    ("jax.vmap(lambda k: random.key_data(random.split(k)))(random.split({k}, 2))", 0)):
    name = expr.split("(")[0].replace("random.", "").replace("jax.", "").replace(".", "_") + "_" + str(
        zlib.crc32(expr.encode()) % 10**6)
    four_ways(f"{impl}_more_{name}", expr.format(k=K7), ulp=ulp, x64_ulp=ulp and TRANSCENDENTAL)
  # vmap and jit over rbg keys (vmapped draws come from the first key's stream)
  four_ways(f"{impl}_vmap_bits", f"jax.vmap(lambda k: random.bits(k, (3,)))(random.split({K7}, 4))")
  four_ways(f"{impl}_vmap_split", f"random.key_data(jax.vmap(random.split)(random.split({K7}, 3)))")
  four_ways(f"{impl}_vmap_fold_in",
            f"random.key_data(jax.vmap(random.fold_in)(random.split({K7}, 3), jnp.arange(3)))")
  four_ways(f"{impl}_vmap_fold_in_data", f"random.key_data(jax.vmap(lambda d: random.fold_in({K7}, d))(jnp.arange(3)))")
  four_ways(f"{impl}_vmap_normal", f"jax.vmap(lambda k: random.normal(k, (2,)))(random.split({K7}, 3))")
  four_ways(f"{impl}_batched_bits", f"random.bits(random.split({K7}, (2, 2)), (3,))")
  four_ways(f"{impl}_jit_normal", f"jax.jit(lambda k: random.normal(k, (4,)))({K7})")
  four_ways(f"{impl}_jit_split_bits",
            f"jax.jit(lambda k: random.bits(random.split(k)[1], (4,)))({K7})")
  four_ways(f"{impl}_wrap_roundtrip",
            f"random.key_data(random.wrap_key_data(random.key_data({K7}), impl='{impl}'))")
  four_ways(f"{impl}_wrap_bits", f"random.bits(random.wrap_key_data(jnp.array([1, 2, 3, 4], jnp.uint32), impl='{impl}'), (5,))")
  # the default implementation, by config
  four_ways(f"{impl}_default_prngkey", "random.PRNGKey(3)", jax_default_prng_impl=impl)
  four_ways(f"{impl}_default_normal", "random.normal(random.PRNGKey(3), (3,))", jax_default_prng_impl=impl)
  four_ways(f"{impl}_default_split", "random.split(random.PRNGKey(3))", jax_default_prng_impl=impl)
  four_ways(f"{impl}_default_key", "random.key_data(random.key(3))", jax_default_prng_impl=impl)
case("threefry_by_name", "random.key_data(random.key(3, impl='threefry2x32'))")
case("threefry_default_by_config", "random.PRNGKey(3)", jax_default_prng_impl="threefry2x32")


def record(c: Case, jax, jnp, random, np) -> dict:
  """The case's encoded value, or the class and message of what it raised."""
  try:
    value = run_case(c, jax, jnp, random, np)
  except Exception as e:  # noqa: BLE001  (JAX's refusals are recorded too)
    return {"error": type(e).__name__, "message": str(e)}
  return encode(value, np)


def main() -> int:
  os.environ["JAX_PLATFORMS"] = "cpu"
  os.environ.pop("JAX_ENABLE_X64", None)
  os.environ.pop("JAX_DEFAULT_PRNG_IMPL", None)
  import warnings

  import jax
  import jax.numpy as jnp
  import numpy as np
  from jax import random

  if jax.__version__ != vectors.REFERENCE_VERSION:
    print(f"refusing to record: jax {jax.__version__}, need {vectors.REFERENCE_VERSION}", file=sys.stderr)
    return 1
  warnings.simplefilter("ignore")  # uint64 truncated without x64
  records = {}
  for c in CASES:
    records[c.name] = {"expr": c.expr, **record(c, jax, jnp, random, np)}
  document = {"meta": {"jax_version": jax.__version__, "platform": jax.default_backend(),
                       "recorded_by": "tests/golden/record_rbg_vectors.py"},
              "cases": records}
  OUTPUT.write_text(json.dumps(document, indent=0, sort_keys=True) + "\n", encoding="utf-8")
  print(f"recorded {len(records)} cases to {OUTPUT}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
