"""Records ``division.json``: JAX 0.11.0's bits for float divisions whose
divisor is broadcast or constant, which XLA computes as a product with the
reciprocal (backends/numpy/xla/rewrite.py, impls.py `_div`).

Run with the reference interpreter, from a directory other than /tmp:

    /tmp/jax-ref/bin/python tests/golden/record_division.py

Each case is an expression over ``jax``, ``jnp``, ``np`` and the inputs
``x`` (float32[64]), ``X`` (float32[12, 7]), ``row`` (float32[7]) and
``D`` (float32[12, 7], positive; ``X``, ``row`` and ``D`` whole numbers), evaluated under the JAX it is handed;
the test also checks that, for the cases where XLA multiplies, NumPy's
plain division gives other bits on these inputs (so the comparison can
fail).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent / "division.json"

CASES = [
    # name, expression, x64 on
    ("jit_by_python_scalar", "jax.jit(lambda x: x / 3.0)(x)", False),
    ("eager_by_python_scalar", "jnp.asarray(x) / 3.0", False),
    ("jit_by_scalar_argument", "jax.jit(lambda x, y: x / y)(x, np.float32(7.0))", False),
    ("eager_by_0d_array", "jnp.asarray(x) / jnp.float32(0.1)", False),
    ("eager_lax_div_by_0d", "jax.lax.div(jnp.asarray(x), jnp.float32(3.0))", False),
    ("jit_elementwise", "jax.jit(lambda x, y: x / y)(X, D)", False),
    ("eager_elementwise", "jnp.asarray(X) / jnp.asarray(D)", False),
    ("jit_by_row", "jax.jit(lambda X, r: X / r)(X, row)", False),
    ("jit_by_broadcast_to", "jax.jit(lambda X, r: X / jnp.broadcast_to(r, X.shape))(X, row)", False),
    ("eager_by_broadcast_to", "jnp.asarray(X) / jnp.broadcast_to(jnp.asarray(row), X.shape)", False),
    ("jit_by_full_constant", "jax.jit(lambda X: X / D)(X)", False),
    ("jit_by_keepdims_sum", "jax.jit(lambda X: X / jnp.sum(D, axis=1, keepdims=True))(X)", False),
    ("eager_mean", "jnp.mean(jnp.asarray(X) * 1.3, axis=1)", False),
    ("jit_mean", "jax.jit(lambda X: jnp.mean(X, axis=1))(X)", False),
    ("scalar_by_scalar", "jax.jit(lambda a, b: a / b)(np.float32(1.7), np.float32(3.0))", False),
    ("scalar_by_constant", "jnp.stack([jax.jit(lambda a: a / 1.4142135)(v) for v in x[:16]])", False),
    ("eager_scalar_by_constant", "jnp.stack([jnp.asarray(v) / 1.4142135 for v in x[:16]])", False),
    ("scalar_dividend", "jax.jit(lambda y: 3.0 / y)(D)", False),
    ("float16_by_scalar", "jax.jit(lambda x: x / 3.0)(x.astype(np.float16))", False),
    ("bfloat16_by_scalar", "jax.jit(lambda x: x / 3.0)(x.astype(jnp.bfloat16))", False),
    ("float64_by_scalar", "jax.jit(lambda x: x / 3.0)(x.astype(np.float64) * np.float64(1.1))", True),
    ("while_body_by_constant", "jax.lax.fori_loop(0, 3, lambda i, v: v / 1.7, jnp.asarray(x))", False),
]


def inputs(np):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(64).astype(np.float32)
    # Whole numbers: their sums are exact in any order (XLA and NumPy add in
    # different orders), so only the division is under test.
    X = rng.integers(-50, 50, (12, 7)).astype(np.float32)
    row = rng.integers(1, 9, 7).astype(np.float32)
    D = rng.integers(1, 9, (12, 7)).astype(np.float32)
    return dict(x=x, X=X, row=row, D=D)


def run(expr: str, jax, jnp, np):
    return np.asarray(eval(expr, dict(jax=jax, jnp=jnp, np=np, **inputs(np))))  # noqa: S307 (our own expressions)


def _bits(value, np) -> list:
    return value.view(f"u{value.dtype.itemsize}").ravel().tolist()


def main() -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np

    assert jax.__version__ == "0.11.0", jax.__version__
    cases = {}
    for name, expr, x64 in CASES:
        jax.config.update("jax_enable_x64", x64)
        value = run(expr, jax, jnp, np)
        cases[name] = {"expr": expr, "x64": x64, "dtype": str(value.dtype), "shape": list(value.shape),
                       "bits": _bits(value, np)}
    jax.config.update("jax_enable_x64", False)
    OUTPUT.write_text(json.dumps({"jax_version": jax.__version__, "cases": cases}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(cases)} cases to {OUTPUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
