"""Records ``small_reductions.json``: JAX 0.11.0's bits for sums of products
over short rows and for tiny dots, which XLA's CPU loops compute with one
fused multiply-add per element, in order (backends/numpy/xla/rewrite.py
`_small_reductions`, `_tiny_dots`; backends/numpy/xla/fma.py `row_dot`,
`tiny_dot`). Run from a directory other than /tmp:

    /tmp/jax-ref/bin/python tests/golden/record_small_reductions.py

Inputs (seeded NumPy normals): ``x3``, ``y3`` ([5, 3]), ``x9``, ``y9``
([7, 9]), ``F2`` ([2, 2]), ``F3`` ([3, 3]), ``z2`` ([4, 2]), ``z3`` ([6, 3]),
``v3`` ([3]); each in float32, and float64 under x64 (suffix 64).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent / "small_reductions.json"

# name, expression, x64
CASES = [
    ("row_mul_3", "jax.jit(lambda x, y: jnp.sum(x * y, axis=-1))(x3, y3)", False),
    ("row_square_3", "jax.jit(lambda x: jnp.sum(x * x, axis=-1))(x3)", False),
    ("row_pow_3", "jax.jit(lambda x: jnp.sum(x ** 2, axis=-1))(x3)", False),
    ("row_mul_9", "jax.jit(lambda x, y: jnp.sum(x * y, axis=-1))(x9, y9)", False),
    ("row_square_9", "jax.jit(lambda x: jnp.sum(jnp.square(x), axis=-1))(x9)", False),
    ("row_mul_3_f64", "jax.jit(lambda x, y: jnp.sum(x * y, axis=-1))(x364, y364)", True),
    ("row_square_3_f64", "jax.jit(lambda x: jnp.sum(x * x, axis=-1))(x364)", True),
    ("norm_3", "jax.jit(lambda x: jnp.linalg.norm(x, axis=-1))(x3)", False),
    ("matvec_3", "jax.jit(lambda F, v: jnp.einsum('ij,...j->...i', F, v))(F3, v3)", False),
    ("rows_2", "jax.jit(lambda F, z: jnp.einsum('ij,...j->...i', F, z))(F2, z2)", False),
    ("rows_3", "jax.jit(lambda F, z: jnp.einsum('ij,...j->...i', F, z))(F3, z3)", False),
    ("rows_3_f64", "jax.jit(lambda F, z: jnp.einsum('ij,...j->...i', F, z))(F364, z364)", True),
    ("maxwell", "jax.random.maxwell(jax.random.key(0), (8,))", False),
    ("double_sided_maxwell", "jax.random.double_sided_maxwell(jax.random.key(0), 1.0, 2.0, (8,))", False),
]
SHAPES = {"x3": (5, 3), "y3": (5, 3), "x9": (7, 9), "y9": (7, 9), "F2": (2, 2), "F3": (3, 3), "z2": (4, 2),
          "z3": (6, 3), "v3": (3,)}


def inputs(np) -> dict:
    rng = np.random.default_rng(20260110)
    out = {}
    for name, shape in SHAPES.items():
        values = rng.standard_normal(shape)
        out[name] = values.astype(np.float32)
        out[name + "64"] = values
    return out


def run(expr: str, jax, jnp, np):
    return np.asarray(eval(expr, {"jax": jax, "jnp": jnp, "np": np, **inputs(np)}))


def main() -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np

    assert jax.__version__ == "0.11.0", jax.__version__
    cases = {}
    for name, expr, x64 in CASES:
        with jax.enable_x64(x64):
            value = run(expr, jax, jnp, np)
        cases[name] = {"dtype": value.dtype.name, "shape": list(value.shape),
                       "bits": value.view(f"u{value.itemsize}").reshape(-1).tolist()}
    OUTPUT.write_text(json.dumps({"jax": jax.__version__, "cases": cases}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(cases)} cases to {OUTPUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
