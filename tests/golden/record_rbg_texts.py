"""Records ``rbg_texts.json``: the text JAX 0.11.0 shows for rbg/unsafe_rbg
keys and ``lax.rng_bit_generator`` (jaxprs, reprs, dtype names, key_impl
answers) and the errors it raises for bad uses of them.

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_rbg_texts.py

Each case is an expression that sees ``jax``, ``jnp``, ``lax``, ``random``
and ``np``; the recording is ``str()`` of its value, or the class and
message of what it raised. The test (tests/random/test_rbg_texts.py)
evaluates the same expressions under pyjax and compares the strings.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "rbg_texts.json"

K4 = "np.array([1, 2, 3, 4], np.uint32)"
RBG = "lax.rng_bit_generator"
CASES: dict[str, str] = {}
for impl in ("rbg", "unsafe_rbg"):
  K = f"random.key(0, impl='{impl}')"
  CASES.update({
      f"{impl}_repr": f"repr({K})",
      f"{impl}_repr_split": f"repr(random.split({K}, 3))",
      f"{impl}_dtype": f"str({K}.dtype)",
      f"{impl}_dtype_repr": f"repr({K}.dtype)",
      f"{impl}_key_impl": f"repr(random.key_impl({K}))",
      f"{impl}_key_dtype": f"str(random.key_dtype('{impl}'))",
      f"{impl}_key_data_repr": f"repr(random.key_data({K}))",
      f"{impl}_prngkey_repr": f"repr(random.PRNGKey(9, impl='{impl}'))",
      f"{impl}_jaxpr_seed": f"jax.make_jaxpr(lambda s: random.key(s, impl='{impl}'))(3)",
      f"{impl}_jaxpr_split": f"jax.make_jaxpr(lambda k: random.split(k, (2, 3)))({K})",
      f"{impl}_jaxpr_fold_in": f"jax.make_jaxpr(lambda k: random.fold_in(k, 3))({K})",
      f"{impl}_jaxpr_bits": f"jax.make_jaxpr(lambda k: random.bits(k, (3,), jnp.uint8))({K})",
      f"{impl}_jaxpr_uniform": f"jax.make_jaxpr(lambda k: random.uniform(k, (2,)))({K})",
      f"{impl}_jaxpr_key_data": f"jax.make_jaxpr(random.key_data)({K})",
      f"{impl}_jaxpr_wrap": f"jax.make_jaxpr(lambda d: random.wrap_key_data(d, impl='{impl}'))({K4})",
      f"{impl}_jaxpr_vmap_bits": f"jax.make_jaxpr(jax.vmap(lambda k: random.bits(k, (2,))))(random.split({K}))",
      f"{impl}_eq": f"repr({K} == random.key(0, impl='{impl}'))",
      f"{impl}_eq_other": f"repr({K} == random.key(1, impl='{impl}'))",
      f"{impl}_wrap_bad_shape": f"random.wrap_key_data(jnp.zeros(2, jnp.uint32), impl='{impl}')",
      f"{impl}_mixed_impls": f"random.key_data(random.fold_in({K}, 1)) + random.key_data(random.key(0))",
      f"{impl}_poisson": f"random.poisson({K}, 3.0)",
      f"{impl}_split_batched": f"random.split(random.split({K}))",
      f"{impl}_shape_dtype": f"repr(jax.eval_shape(lambda: random.split({K}, 4)))",
      f"{impl}_key_impl_raw_default": f"repr(random.key_impl(random.key(0, impl='{impl}')))",
  })
CASES.update({
    "rbg_cross_impl_wrap": "random.wrap_key_data(random.key_data(random.key(0)), impl='rbg')",
    "impl_unknown": "random.key(0, impl='foo')",
    "impl_bad_type": "random.key(0, impl=3)",
    "lax_random_algorithm": "repr(list(lax.RandomAlgorithm))",
    "lax_random_algorithm_str": "str(lax.RandomAlgorithm.RNG_PHILOX)",
    "lax_rbg_jaxpr": f"jax.make_jaxpr(lambda k: {RBG}(k, (3,)))({K4})",
    "lax_rbg_jaxpr_u8_threefry": f"jax.make_jaxpr(lambda k: {RBG}(k, (2, 2), jnp.uint8, lax.RandomAlgorithm.RNG_THREE_FRY))({K4})",
    "lax_rbg_jaxpr_philox": f"jax.make_jaxpr(lambda k: {RBG}(k, (), algorithm=lax.RandomAlgorithm.RNG_PHILOX))({K4})",
    "lax_rbg_jaxpr_vmap": f"jax.make_jaxpr(jax.vmap(lambda k: {RBG}(k, (3,))))(np.zeros((2, 4), np.uint32))",
    "lax_rbg_jaxpr_vmap_axis1": f"jax.make_jaxpr(jax.vmap(lambda k: {RBG}(k, (3,)), in_axes=1))(np.zeros((4, 2), np.uint32))",
    "lax_rbg_jaxpr_jit": f"jax.make_jaxpr(jax.jit(lambda k: {RBG}(k, (3,))))({K4})",
    "lax_rbg_float_dtype": f"{RBG}({K4}, (3,), jnp.float32)",
    "lax_rbg_int_dtype": f"{RBG}({K4}, (3,), jnp.int32)",
    "lax_rbg_repr": f"repr({RBG}({K4}, (2,)))",
    "lax_rbg_grad_through": f"jax.grad(lambda x: x * {RBG}({K4}, ())[1].astype(jnp.float32))(2.0)",
    "lax_rbg_eval_shape": f"repr(jax.eval_shape(lambda k: {RBG}(k, (5, 2), jnp.uint16), {K4}))",
})


def main() -> int:
  os.environ["JAX_PLATFORMS"] = "cpu"
  os.environ.pop("JAX_ENABLE_X64", None)
  os.environ.pop("JAX_DEFAULT_PRNG_IMPL", None)
  import jax
  import jax.numpy as jnp
  import numpy as np
  from jax import lax, random

  if jax.__version__ != "0.11.0":
    print(f"refusing to record: jax {jax.__version__}, need 0.11.0", file=sys.stderr)
    return 1
  records = {}
  for name, expr in CASES.items():
    try:
      records[name] = {"expr": expr, "text": str(eval(expr, {"jax": jax, "jnp": jnp, "lax": lax, "random": random,
                                                             "np": np}))}
    except Exception as e:  # noqa: BLE001  (the refusals are recorded too)
      records[name] = {"expr": expr, "error": type(e).__name__, "message": str(e)}
  document = {"meta": {"jax_version": jax.__version__, "recorded_by": "tests/golden/record_rbg_texts.py"},
              "cases": records}
  OUTPUT.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n", encoding="utf-8")
  print(f"recorded {len(records)} cases to {OUTPUT}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
