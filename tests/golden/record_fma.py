"""Records ``fma.json``: JAX 0.11.0's bits for float programs where XLA's CPU
compiler contracts (or does not contract) a multiply and an add into one
fused multiply-add (backends/numpy/xla/rewrite.py `_contract_multiply_adds`,
backends/numpy/xla/fma.py).

Run with the reference interpreter, from a directory other than /tmp:

    /tmp/jax-ref/bin/python tests/golden/record_fma.py

Each case is an expression over ``jax``, ``jnp``, ``lax``, ``np`` and the
inputs below, evaluated under the JAX it is handed; ``fused`` says whether
XLA contracts there (the test checks that, on these inputs, the other
choice gives other bits, so each comparison can fail). Inputs:
``a``, ``b``, ``c``, ``d``, ``e`` (float32[256], standard normal), ``X``
(float32[24, 16]), ``w``, ``bias`` (float32[16]), ``s`` (a float32 scalar),
``a64``, ``b64``, ``c64`` (float64[256]).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent / "fma.json"

# name, expression, x64, fused
CASES = [
    ("mul_add", "jax.jit(lambda a, b, c: a * b + c)(a, b, c)", False, True),
    ("add_mul", "jax.jit(lambda a, b, c: c + a * b)(a, b, c)", False, True),
    ("mul_sub", "jax.jit(lambda a, b, c: a * b - c)(a, b, c)", False, True),
    ("sub_mul", "jax.jit(lambda a, b, c: c - a * b)(a, b, c)", False, True),
    ("neg_product_add", "jax.jit(lambda a, b, c: -(a * b) + c)(a, b, c)", False, True),
    ("two_products", "jax.jit(lambda a, b, c, d: a * b + c * d)(a, b, c, d)", False, True),
    ("two_products_swapped", "jax.jit(lambda a, b, c, d: c * d + a * b)(a, b, c, d)", False, True),
    ("products_difference", "jax.jit(lambda a, b, c, d: a * b - c * d)(a, b, c, d)", False, True),
    ("neg_product_plus_product", "jax.jit(lambda a, b, c, d: -(a * b) + c * d)(a, b, c, d)", False, True),
    ("three_terms", "jax.jit(lambda a, b, c, d, e: e + a * b + c * d)(a, b, c, d, e)", False, True),
    ("chained", "jax.jit(lambda a, b, c, d: (a * b + c) * d + e)(a, b, c, d)", False, True),
    ("literal_factor", "jax.jit(lambda a, c: a * 1.37 + c)(a, c)", False, True),
    ("literal_addend", "jax.jit(lambda a, b: a * b + 0.3)(a, b)", False, True),
    ("scalar_argument", "jax.jit(lambda a, s, c: a * s + c)(a, s, c)", False, True),
    ("affine_rows", "jax.jit(lambda X, w, bias: X * w + bias)(X, w, bias)", False, True),
    ("division_by_constant", "jax.jit(lambda a, c: a / 3.0 + c)(a, c)", False, True),
    ("square", "jax.jit(lambda a, c: jnp.square(a) + c)(a, c)", False, True),
    ("power_two", "jax.jit(lambda a, c: a ** 2 - c)(a, c)", False, True),
    ("cse_output", "jax.jit(lambda a, b, c: (a * b + c, a * b))(a, b, c)[0]", False, False),
    ("cse_one_fusion", "jax.jit(lambda a, b, c, d: (a * b + c) * (a * b + d))(a, b, c, d)", False, False),
    ("cse_two_fusions", "jax.jit(lambda a, b, c, e: (a * b + c, a * b * e))(a, b, c, e)[0]", False, True),
    ("cse_expensive_sibling", "jax.jit(lambda a, b, c: (a * b + c, jnp.exp(a * b)))(a, b, c)[0]", False, True),
    ("product_reused_in_sum", "jax.jit(lambda a, b, c: (a * b + c) + a * b)(a, b, c)", False, False),
    ("product_read_by_sort", "jax.jit(lambda a, b, c: (a * b + c, jnp.sort(a * b)))(a, b, c)[0]", False, False),
    ("product_used_once_and_reduced",
     "jax.jit(lambda a, b, c: (a * b + c, jnp.sum(a * b)))(a, b, c)[0]", False, False),
    ("broadcast_product", "jax.jit(lambda a, b, w: (a * b)[:16, None] + w)(a, b, w)", False, False),
    ("nested_jit_product", "jax.jit(lambda a, b, c: jax.jit(lambda a, b: a * b)(a, b) + c)(a, b, c)", False, True),
    ("fori_body", "lax.fori_loop(0, 2, lambda i, v: v * b + c, jnp.asarray(a))", False, True),
    ("scan_body", "lax.scan(lambda k, x: (k, x[0] * x[1] + x[2]), 0.0, (a, b, c))[1]", False, True),
    ("cond_branch", "jax.jit(lambda a, b, c: lax.cond(a[0] > -10, lambda: a * b + c, lambda: a))(a, b, c)", False,
     True),
    ("product_outside_cond",
     "jax.jit(lambda a, b, c: (lambda m: lax.cond(a[0] > -10, lambda: m + c, lambda: a))(a * b))(a, b, c)",
     False, False),
    ("eager", "jnp.asarray(a) * b + c", False, False),
    ("scalar_computation", "jnp.stack([jax.jit(lambda x, y, z: x * y + z)(*v) for v in zip(a[:32], b, c)])",
     False, True),
    ("uniform_minval_maxval", "jax.random.uniform(jax.random.key(3), (256,), minval=-1.7, maxval=2.9)", False, True),
    ("float16", "jax.jit(lambda a, b, c: a * b + c)(a.astype(np.float16), b.astype(np.float16), c)", False, False),
    ("bfloat16", "jax.jit(lambda a, b, c: a * b + c)(*(v.astype(jnp.bfloat16) for v in (a, b, c)))", False, False),
    ("float64", "jax.jit(lambda a, b, c: a * b + c)(a64, b64, c64)", True, True),
    ("float64_sub", "jax.jit(lambda a, b, c: c - a * b)(a64, b64, c64)", True, True),
]


# XLA's complex multiply, eager (one operation): recorded for
# backends/numpy/xla/fma.py `complex_multiply`, which the `mul` impl does not use
# yet (the test checks the helper, not pyjax's `*`). name, x, y (NumPy
# expressions over the inputs), x64; recorded: jnp.asarray(x) * jnp.asarray(y).
COMPLEX_CASES = [
    ("complex64_multiply", "(a + 1j * b).astype(np.complex64)", "(c + 1j * d).astype(np.complex64)", False),
    ("complex128_multiply", "a64 + 1j * b64", "c64 + 1j * a64[::-1]", True),
]


def complex_operands(x: str, y: str, np) -> tuple:
    env = {"np": np, **inputs(np)}
    return tuple(np.asarray(eval(e, env)) for e in (x, y))  # our own expressions


def inputs(np):
    rng = np.random.default_rng(7)
    a, b, c, d, e = (rng.standard_normal(256).astype(np.float32) for _ in range(5))
    X = rng.standard_normal((24, 16)).astype(np.float32)
    w, bias = (rng.standard_normal(16).astype(np.float32) for _ in range(2))
    a64, b64, c64 = (rng.standard_normal(256) * 1.1 for _ in range(3))
    return {"a": a, "b": b, "c": c, "d": d, "e": e, "X": X, "w": w, "bias": bias, "s": np.float32(0.7071),
            "a64": a64, "b64": b64, "c64": c64}


def run(expr: str, jax, jnp, np):
    env = {"jax": jax, "jnp": jnp, "lax": jax.lax, "np": np, **inputs(np)}
    return np.asarray(eval(expr, env))


def _bits(value, np) -> list:
    # A complex value: its real and imaginary parts' bits, interleaved.
    size = value.dtype.itemsize // 2 if value.dtype.kind == "c" else value.dtype.itemsize
    return np.ascontiguousarray(value).view(f"u{size}").ravel().tolist()


def main() -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np

    assert jax.__version__ == "0.11.0", jax.__version__
    cases = {}
    for name, expr, x64, fused in CASES:
        jax.config.update("jax_enable_x64", x64)
        value = run(expr, jax, jnp, np)
        cases[name] = {"expr": expr, "x64": x64, "fused": fused, "dtype": str(value.dtype),
                       "shape": list(value.shape), "bits": _bits(value, np)}
    complex_cases = {}
    for name, x, y, x64 in COMPLEX_CASES:
        jax.config.update("jax_enable_x64", x64)
        left, right = complex_operands(x, y, np)
        value = np.asarray(jnp.asarray(left) * jnp.asarray(right))
        complex_cases[name] = {"x": x, "y": y, "x64": x64, "dtype": str(value.dtype), "shape": list(value.shape),
                               "bits": _bits(value, np)}
    jax.config.update("jax_enable_x64", False)
    OUTPUT.write_text(json.dumps({"jax_version": jax.__version__, "cases": cases, "complex": complex_cases}, indent=1)
                      + "\n", encoding="utf-8")
    print(f"wrote {len(cases)} cases to {OUTPUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
