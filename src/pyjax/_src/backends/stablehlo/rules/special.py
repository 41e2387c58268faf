"""The special functions XLA has no op for (`bessel_i0e`, `igamma` and its
relatives): lowered as the array programs of lax/special_expansions.py,
traced in place, as JAX's `mlir.lower_fun` registrations do.

`random_gamma_grad` is no primitive in JAX: its program is traced into the
caller's jaxpr, so JAX's dead-code elimination runs over it before lowering
(the unused `exp` goes, and the while loops' unused carries). Its rule
prunes the traced program the same way."""

from __future__ import annotations

from pyjax._src.backends.stablehlo.lowering import lower_fun, lower_jaxpr, register_lowering


def _pruned(fun):
    def rule(ctx, *args, **params):
        from pyjax._src.interpreters.dce import dce_jaxpr
        from pyjax._src.interpreters.staging import DebugInfo, trace_to_jaxpr

        jaxpr, _ = trace_to_jaxpr(lambda *xs: [fun(*xs)], ctx.avals_in, DebugInfo("lower_fun", "fun", None, None))
        jaxpr, _ = dce_jaxpr(jaxpr, prune_bodies=True)
        return lower_jaxpr(ctx.mod, ctx.b, jaxpr, args)

    return rule


def register(prims: dict) -> None:
    from pyjax._src.lax import special_expansions as sx

    for name, fun in sx.LOWERED.items():
        if name in prims:
            rule = _pruned(fun) if name == "random_gamma_grad" else lower_fun(fun, multiple_results=False)
            register_lowering(prims[name], rule)
