"""Records JAX 0.11.0's answers for tests/test_denormals.py.

XLA:CPU computes with flush-to-zero and denormals-are-zero; these cases show
where that is visible: arithmetic, comparisons, conversions and reductions
read a denormal as zero and write zero for a denormal result, data movement
keeps the bits, float16 (computed in float32) keeps its denormals.

Run with the reference JAX, once as is and once with JAX_ENABLE_X64=1:

    JAX_PLATFORMS=cpu /tmp/jax-ref/bin/python tests/golden/record_denormals.py
    JAX_PLATFORMS=cpu JAX_ENABLE_X64=1 /tmp/jax-ref/bin/python tests/golden/record_denormals.py

It writes denormals.json (or denormals_x64.json) beside this file. The cases
are built by `cases()`, which the test imports, so both sides compute exactly
the same programs. The few places where pyjax differs on purpose are left
out here and listed in docs/differences.md.
"""

from __future__ import annotations

import json
import os
import pathlib
import sys

import numpy as np

D32 = [1e-40, -1e-40, 1.0, 1e-38, -0.0]  # two denormals, a normal, the largest-ish denormal region
D64 = [1e-310, -1e-310, 1.0, 2e-308]


def bits(x) -> list:
    x = np.asarray(x)
    if x.dtype.kind in "fV" or x.dtype.name == "bfloat16":
        nan = np.isnan(x.astype(np.float32)).ravel()
        raw = x.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[x.dtype.itemsize]).ravel().tolist()
        return ["nan" if n else b for n, b in zip(nan, raw)]
    return x.ravel().tolist()


def _unary(jnp, lax):
    return {
        "mul2": lambda x: x * 2, "add_small": lambda x: x + x.dtype.type(1e-40),
        "ne0": lambda x: x != 0, "lt0": lambda x: x < 0, "eq_self": lambda x: x == x[::-1],
        "sign": jnp.sign, "sqrt_abs": lambda x: jnp.sqrt(jnp.abs(x)), "floor": jnp.floor, "ceil": jnp.ceil,
        "round": jnp.round, "abs": jnp.abs, "neg": lambda x: -x, "where": lambda x: jnp.where(x > -2, x, 0.0),
        "maximum0": lambda x: jnp.maximum(x, 0.0), "minimum0": lambda x: jnp.minimum(x, 0.0),
        "isfinite": jnp.isfinite, "floordiv1": lambda x: x // 1.0,
        "sum_denormals": lambda x: jnp.sum(x[:2]), "max_denormals": lambda x: jnp.max(x[:2]),
        "prod": lambda x: jnp.prod(x), "mean": jnp.mean,
        "to_f16": lambda x: x.astype(jnp.float16), "to_bf16": lambda x: x.astype(jnp.bfloat16),
        "to_i32_scaled": lambda x: (x * 1e30).astype(jnp.int32), "to_bool": lambda x: x.astype(bool),
        "reshape_copy": lambda x: x.reshape(-1, 1)[:, 0], "concat": lambda x: jnp.concatenate([x, x]),
        "select_n": lambda x: lax.select(x > 5, x * 0, x), "sort": jnp.sort,
    }


def cases(jax, jnp, lax):
    """name -> a function of no arguments returning an array (its bits are compared)."""
    out = {}
    f32 = lambda: jnp.array(D32, jnp.float32)  # noqa: E731
    for name, f in _unary(jnp, lax).items():
        out[f"eager:{name}"] = lambda f=f: f(f32())
        out[f"jit:{name}"] = lambda f=f, g=jax.jit(f): g(f32())
        out[f"vmap:{name}"] = lambda f=f: jax.vmap(lambda r: f(r))(jnp.stack([f32(), f32()[::-1]]))
    out["exp_underflow"] = lambda: jnp.exp(jnp.array([-87.0, -88.0, -100.0, -104.0], jnp.float32))
    out["div_underflow"] = lambda: jnp.array([1e-30, -1e-30], jnp.float32) / jnp.float32(1e10)
    out["jit_div_underflow"] = lambda: jax.jit(lambda a, b: a / b)(jnp.array([1e-30, -1e-30], jnp.float32),
                                                                     jnp.float32(1e10))
    out["mul_underflow"] = lambda: jnp.array([1e-20], jnp.float32) * jnp.array([1e-20], jnp.float32)
    out["f16_mul2"] = lambda: jnp.array([1e-6, 1.0, -3e-7], jnp.float16) * 2
    out["f16_ne0"] = lambda: jnp.array([1e-6, 1.0, 0.0], jnp.float16) != 0
    out["f16_mul_small"] = lambda: jnp.array([1e-6, 1.0], jnp.float16) * jnp.float16(0.01)
    out["f16_to_f32"] = lambda: jnp.array([1e-6, -3e-7], jnp.float16).astype(jnp.float32)
    out["bf16_mul2"] = lambda: jnp.array([1e-40, 1.0], jnp.bfloat16) * 2
    out["bf16_to_f32"] = lambda: jnp.array([1e-40, 1.0], jnp.bfloat16).astype(jnp.float32)
    out["scan_halving"] = lambda: lax.scan(lambda c, _: (c * 0.5, c), jnp.float32(1e-37), None, length=6)[1]
    out["while_halving"] = lambda: lax.while_loop(lambda c: c[1] < 8, lambda c: (c[0] * 0.25, c[1] + 1),
                                                  (jnp.float32(1e-30), 0))[0]
    out["fori_sum"] = lambda: lax.fori_loop(0, 4, lambda i, c: c + jnp.float32(1e-40), jnp.float32(0.0))
    out["grad_square"] = lambda: jax.grad(lambda x: jnp.sum(x * x))(f32())
    out["nextafter0"] = lambda: jnp.nextafter(jnp.float32(0), jnp.float32(1))
    out["finfo_tiny_half"] = lambda: jnp.float32(np.finfo(np.float32).tiny) * jnp.float32(0.5)
    return out


def cases_x64(jax, jnp, lax):
    out = {}
    f64 = lambda: jnp.array(D64, jnp.float64)  # noqa: E731
    for name in ["mul2", "ne0", "sign", "floor", "abs", "sum_denormals", "to_bool"]:
        f = _unary(jnp, lax)[name]
        out[f"f64:{name}"] = lambda f=f: f(f64())
        out[f"f64_jit:{name}"] = lambda f=f, g=jax.jit(f): g(f64())
    out["f64_to_f32"] = lambda: jnp.array([1e-39, -1e-39, 1.0], jnp.float64).astype(jnp.float32)
    out["f32_to_f64"] = lambda: jnp.array(D32, jnp.float32).astype(jnp.float64)
    return out


def record(jax, jnp, lax) -> dict:
    make = cases_x64 if jax.config.jax_enable_x64 else cases
    return {name: bits(f()) for name, f in make(jax, jnp, lax).items()}


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    from jax import lax

    assert jax.__version__ == "0.11.0", jax.__version__
    data = record(jax, jnp, lax)
    stem = "denormals_x64" if os.environ.get("JAX_ENABLE_X64") else "denormals"
    path = pathlib.Path(__file__).with_name(stem + ".json")
    path.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
    print(f"wrote {len(data)} values to {path}", file=sys.stderr)
