"""Eager per-op workloads beyond ../shared/bench/bench.py, for
`compare.py --extra benchmarks/eager_workloads.py` (issues 4 and 5: eager
lax and jnp calls on small arrays). Each times one call on a (3,) float32
array outside jit; `numpy_s` is the same NumPy call, for the "within 3x of
NumPy" targets."""

import time

import numpy as np


def _numpy_time(fn, reps=20000):
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        best = min(best, (time.perf_counter() - t0) / reps)
    return best


CASES = [
    # name, jax/jnp call on x (and m, a 4x4 matrix), the same NumPy call
    ("eager_lax_add", lambda jax, jnp, x, m: jax.lax.add(x, x), lambda x, m: np.add(x, x)),
    ("eager_exp", lambda jax, jnp, x, m: jnp.exp(x), lambda x, m: np.exp(x)),
    ("eager_sum", lambda jax, jnp, x, m: jnp.sum(x), lambda x, m: np.sum(x)),
    ("eager_mean_axis", lambda jax, jnp, x, m: jnp.mean(m, axis=0), lambda x, m: np.mean(m, axis=0)),
    ("eager_relu", lambda jax, jnp, x, m: jnp.maximum(x, 0.0), lambda x, m: np.maximum(x, 0.0)),
    ("eager_dot", lambda jax, jnp, x, m: jnp.dot(m, m), lambda x, m: np.dot(m, m)),
    ("eager_where", lambda jax, jnp, x, m: jnp.where(x > 0, x, 0.0), lambda x, m: np.where(x > 0, x, 0.0)),
    ("eager_reshape", lambda jax, jnp, x, m: jnp.reshape(m, (2, 8)), lambda x, m: np.reshape(m, (2, 8))),
    ("eager_astype", lambda jax, jnp, x, m: m.astype(jnp.int32), lambda x, m: m.astype(np.int32)),
    ("eager_zeros", lambda jax, jnp, x, m: jnp.zeros((4, 4)), lambda x, m: np.zeros((4, 4), np.float32)),
    ("eager_concatenate", lambda jax, jnp, x, m: jnp.concatenate([x, x]), lambda x, m: np.concatenate([x, x])),
    ("eager_std", lambda jax, jnp, x, m: jnp.std(m, axis=0), lambda x, m: np.std(m, axis=0)),
    ("eager_softmax", lambda jax, jnp, x, m: jax.nn.softmax(m, axis=-1),
     lambda x, m: np.exp(m - m.max(-1, keepdims=True)) / np.exp(m - m.max(-1, keepdims=True)).sum(-1, keepdims=True)),
    ("eager_sort", lambda jax, jnp, x, m: jnp.sort(x), lambda x, m: np.sort(x)),
]


def register(workload):
    for name, call, numpy_call in CASES:
        def wl(ctx, res, call=call, numpy_call=numpy_call):
            jax, jnp = ctx.jax, ctx.jnp
            xn = np.array([1.0, -2.0, 3.0], np.float32)
            mn = np.arange(16, dtype=np.float32).reshape(4, 4)
            x, m = jnp.asarray(xn), jnp.asarray(mn)
            ctx.checksum(call(jax, jnp, x, m))
            ctx.time_steady(lambda i: call(jax, jnp, x, m), budget=ctx.budget * 0.8)
            ctx.extra(numpy_s=_numpy_time(lambda: numpy_call(xn, mn)))

        workload(name, budget=3, desc=f"{name[6:]} on small arrays outside jit; steady_s = per call")(wl)
