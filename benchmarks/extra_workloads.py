"""Workloads beyond ../shared/bench/bench.py, for `compare.py --extra benchmarks/extra_workloads.py`.

vmap_trace: make_jaxpr of vmap of a 200-op function (issue: vmap's trace cost).
"""


def register(workload):
    @workload("vmap_trace", letter="v", budget=6, desc="make_jaxpr of vmap of a 200-op function")
    def wl_vmap_trace(ctx, res):
        jax, jnp = ctx.jax, ctx.jnp

        def f(x):
            for _ in range(50):
                x = jnp.tanh(x * 1.1 + 0.1) - jnp.sin(x)
            return x

        ctx.time_trace(lambda xs: jax.vmap(f)(xs), (ctx.randn((8, 16)),))
