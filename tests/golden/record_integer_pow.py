"""Records lax.integer_pow of JAX 0.11 (XLA:CPU) bit for bit into integer_pow.json.

Run with the reference JAX (not pyjax):

    JAX_PLATFORMS=cpu /tmp/jax-ref/bin/python tests/golden/record_integer_pow.py

XLA computes integer_pow as products by repeated squaring; NumPy's power of
floats is libm's pow, which differs in the last bit. The inputs are seeded
float32/float64/float16 values of both signs (zeros, tiny and large values
among them); inputs and outputs are stored as their bit patterns (unsigned
integers); eager and jitted results are checked to agree first.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

jax.config.update("jax_enable_x64", True)

EXPONENTS = [2, 3, 4, 5, 6, 7, 9, 13, -1, -2, -3, -5]
DTYPES = ["float16", "float32", "float64"]


def inputs(dtype: str) -> np.ndarray:
    rng = np.random.default_rng(23)
    x = np.concatenate([rng.standard_normal(120) * 3, rng.uniform(-1.5, 1.5, 72),
                        [0.0, -0.0, 1.0, -1.0, 1e-3, -7.5, 40.0, -40.0]])
    return x.astype(dtype)


def main() -> None:
    cases, xs = [], {}
    for dtype in DTYPES:
        x = inputs(dtype)
        bits = f"u{np.dtype(dtype).itemsize}"
        xs[dtype] = x.view(bits).tolist()
        for y in EXPONENTS:
            jitted = np.asarray(jax.jit(lambda v, y=y: lax.integer_pow(v, y))(x))
            eager = np.asarray(lax.integer_pow(jnp.asarray(x), y))
            assert jitted.dtype == np.dtype(dtype) and jitted.tobytes() == eager.tobytes()
            cases.append({"dtype": dtype, "y": y, "out": jitted.view(bits).tolist()})
    path = Path(__file__).with_name("integer_pow.json")
    path.write_text(json.dumps({"jax": jax.__version__, "inputs": xs, "cases": cases}) + "\n")
    print(f"wrote {len(cases)} cases to {path}")


if __name__ == "__main__":
    main()
