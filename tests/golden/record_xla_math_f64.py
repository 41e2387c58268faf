"""Records ``xla_math_f64.json``: the bits JAX 0.11.0 computes on the CPU for
float64 ``exp``, ``log`` and ``log1p`` (x64 on, ``jax.jit(f)``).

Run from the repository root with the reference interpreter:

    /tmp/jax-ref/bin/python tests/golden/record_xla_math_f64.py

Per function the inputs are mostly ones where NumPy's float64 ufunc differs
from XLA's result in the last bit (found among seeded random draws from
several ranges), then some where they agree, then the edges (zeros,
infinities, NaN, denormals, the ends of exp's range). Inputs and results are
stored as their ``uint64`` bit patterns. tests/random/test_xla_math.py
checks xla_math's emulation and the eager, compiled and interpreted
``jnp`` paths against them.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

OUTPUT = Path(__file__).resolve().parent / "xla_math_f64.json"
DIFFERING = 300  # inputs where NumPy differs, per function
AGREEING = 60
MIN_NORMAL = 2.2250738585072014e-308
EDGES = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, 2.0, 1e-310, -1e-310, 5e-324, MIN_NORMAL,
         -MIN_NORMAL, 1e-300, -1e-300, 709.78, 709.79, -708.39, -708.4, -745.0, 1e300, -0.41421356237309503,
         0.41421356237309503, -0.9999999999999999]


def _candidates(name: str, rng: np.random.Generator) -> np.ndarray:
    n = 400_000
    if name == "exp":
        parts = [rng.uniform(-700, 700, n), rng.standard_normal(n) * 10, rng.uniform(-1, 1, n)]
    elif name == "log":
        normal_bits = rng.integers(0x0010000000000000, 0x7FF0000000000000, n, dtype=np.uint64)
        parts = [normal_bits.view(np.float64), rng.uniform(0.5, 2, n), rng.uniform(0, 1, n)]
    else:
        parts = [rng.uniform(-0.5, 0.5, n), rng.uniform(-1, 10, n), np.exp(rng.uniform(-700, 700, n))]
    return np.concatenate(parts)


def _some(rng: np.random.Generator, indices: np.ndarray, k: int) -> np.ndarray:
    return np.sort(rng.choice(indices, min(k, indices.size), replace=False))


def main() -> None:
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    assert jax.__version__ == "0.11.0", jax.__version__
    rng = np.random.default_rng(20260)
    record = {"jax_version": jax.__version__, "functions": {}}
    for name in ("exp", "log", "log1p"):
        fn = jax.jit(getattr(jnp, name))
        x = _candidates(name, rng)
        jax_bits = np.asarray(fn(x)).view(np.uint64)
        with np.errstate(all="ignore"):
            differs = getattr(np, name)(x).view(np.uint64) != jax_bits
        # Spread over every range drawn from.
        chosen = np.concatenate([_some(rng, np.flatnonzero(differs), DIFFERING),
                                 _some(rng, np.flatnonzero(~differs), AGREEING)])
        inputs = np.concatenate([x[chosen], np.array(EDGES)])
        outputs = np.asarray(fn(inputs)).view(np.uint64)
        record["functions"][name] = {"x": inputs.view(np.uint64).tolist(), "jax": outputs.tolist()}
        print(f"{name}: {differs.sum()} of {x.size} differ from NumPy; {inputs.size} recorded")
    OUTPUT.write_text(json.dumps(record, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
