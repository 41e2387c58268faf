"""Records ``trace_cache.json``: how many times JAX 0.11.0 traces a control-flow
body across calls (its trace cache: function object, argument types,
tracing context), and what a body reading a rebound global returns.

Run with the reference interpreter, from a directory other than /tmp:

    /tmp/jax-ref/bin/python tests/golden/record_trace_cache.py

``scenario(jax, jnp, lax)`` is shared with tests/lax/test_control_flow.py,
which runs it under pyjax and compares the counts and values.
"""

from __future__ import annotations

import json
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent / "trace_cache.json"


def scenario(jax, jnp, lax) -> dict:
    record: dict = {}
    calls: list = []

    def body(c, x):
        calls.append(1)
        return c + x, c

    xs = jnp.arange(5.0)
    for _ in range(3):
        lax.scan(body, 0.0, xs)
    record["three_eager_scans"] = len(calls)
    jitted = jax.jit(lambda c, xs: lax.scan(body, c, xs))
    for _ in range(3):
        jitted(0.0, xs)
    jax.make_jaxpr(lambda c, xs: lax.scan(body, c, xs))(0.0, xs)
    record["then_jit_and_make_jaxpr"] = len(calls)
    lax.scan(body, 0.0, jnp.arange(9.0))
    record["then_another_length"] = len(calls)
    lax.scan(body, 0, jnp.arange(5))
    record["then_new_types"] = len(calls)

    branch_calls: list = []

    def true_fun(x):
        branch_calls.append("true")
        return x + 1

    def false_fun(x):
        branch_calls.append("false")
        return x - 1

    jax.make_jaxpr(lambda x: lax.cond(x > 0, true_fun, false_fun, x))(jnp.float32(1.0))
    lax.cond(False, true_fun, false_fun, jnp.float32(1.0))
    record["cond_make_jaxpr_then_eager"] = list(branch_calls)

    state = {"scale": jnp.ones(3)}

    def body2(c, x):
        return c + state["scale"].sum() * x, c

    first = float(lax.scan(body2, 0.0, xs)[0])
    state["scale"] = state["scale"] * 2
    record["rebound_global"] = [first, float(lax.scan(body2, 0.0, xs)[0])]
    return record


if __name__ == "__main__":
    import jax
    import jax.numpy as jnp
    from jax import lax

    record = scenario(jax, jnp, lax)
    record["jax_version"] = jax.__version__
    OUTPUT.write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps(record))
