"""`python -m pyjax.demo`: a tour of the tracing machine.

Traces the seed programs to jaxprs (printed exactly as JAX 0.11 prints
them), shows the tracer errors that refuse data-dependent Python control
flow, and runs the same function eagerly and under jit.

(The end-to-end training demo arrives with autodiff and jax.random.)
"""

from __future__ import annotations

import time

import numpy as np

import pyjax as jax
import pyjax.numpy as jnp


def layer(x, W, b):
    return jnp.maximum(x @ W + b, 0.0)


def attend(q, k):
    return jax.nn.softmax(q @ k.T)


def section(title: str) -> None:
    print(f"\n== {title} " + "=" * max(0, 70 - len(title)))


def main() -> None:
    section("make_jaxpr: a function traced once into a typed IR")
    print(jax.make_jaxpr(lambda x: jnp.maximum(x * 2.0 + 1.0, 0.0))(jnp.float32(3.0)))
    print(jax.make_jaxpr(layer)(jnp.ones((4, 8)), jnp.ones((8, 16)), jnp.zeros(16)))
    print(jax.make_jaxpr(attend)(jnp.ones((4, 8)), jnp.ones((4, 8))))
    c = jnp.arange(3.0)
    print(jax.make_jaxpr(lambda x: x + c)(jnp.ones(3)))

    section("tracers refuse data-dependent Python control flow")

    def bad(x):
        if x > 0:
            return x
        return -x

    try:
        jax.jit(bad)(1.0)
    except jax.errors.TracerBoolConversionError as e:
        print(f"{type(e).__name__}: {str(e).splitlines()[0]}")

    section("jit: trace once, compile to Python, reuse")
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal((128, 256), dtype=np.float32))
    W = jnp.asarray(rng.standard_normal((256, 64), dtype=np.float32) * 0.05)
    b = jnp.zeros(64)
    fast = jax.jit(layer)
    t0 = time.perf_counter()
    out = fast(x, W, b).block_until_ready()
    first = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(100):
        fast(x, W, b).block_until_ready()
    steady = (time.perf_counter() - t0) / 100
    eager = layer(x, W, b)
    print(f"first call (trace + compile + run): {first * 1e3:.2f} ms; cached call: {steady * 1e6:.1f} us")
    print(f"jit == eager: {bool(np.allclose(np.asarray(out), np.asarray(eager), rtol=1e-5, atol=1e-6))}; "
          f"output {jax.typeof(out)}")
    print("\ngenerated code:")
    from pyjax._src.backends.numpy.compile import compile_jaxpr
    from pyjax._src.backends.numpy.impls import IMPLS

    print(compile_jaxpr(jax.make_jaxpr(layer)(x, W, b), IMPLS).source)


if __name__ == "__main__":
    main()
