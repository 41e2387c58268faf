"""`jax.interpreters.mlir.register_lowering` for lowerings written as JAX
functions (`mlir.lower_fun`).

JAX lowers `lower_fun(f)` by tracing `f` and emitting its StableHLO in
place of the primitive. pyjax's backend executes jaxprs as NumPy code, so
the same function becomes the primitive's evaluation rule there, through
`Primitive.def_impl`'s path (one table, the backend's): jit, eager
evaluation and every transformation's output run `f` on the operands.
A primitive that already has an impl keeps it (JAX runs `def_impl` eagerly
and the lowering under jit; both compute the same values).
"""

from __future__ import annotations

from collections.abc import Callable

from pyjax._src import core


class LoweredFun:
    """What `lower_fun(f, multiple_results)` returns: a lowering rule that is `f`."""

    __slots__ = ("fun", "multiple_results")

    def __init__(self, fun: Callable, multiple_results: bool):
        self.fun = fun
        self.multiple_results = multiple_results

    def __call__(self, ctx, *args, **params):
        raise NotImplementedError(
            "this lowering rule was made by mlir.lower_fun; pyjax runs its function as the primitive's "
            "evaluation rule (StableHLO lowering is issue 27)")

    def __repr__(self):
        return f"lower_fun({getattr(self.fun, '__name__', self.fun)!r}, multiple_results={self.multiple_results})"


def lower_fun(fun: Callable, multiple_results: bool = True) -> Callable:
    """A lowering rule that lowers a primitive as the JAX function `fun`
    (called on the operands and the params as keywords)."""
    return LoweredFun(fun, multiple_results)


# (primitive, platform) -> an MLIR-builder lowering rule a library registered:
# kept so that it can be read back, never called (pyjax lowers no StableHLO).
mlir_rules: dict = {}


def register_lowering(prim: core.Primitive, rule: Callable, platform: str | None = None, inline: bool = True,
                      cacheable: bool = True) -> None:
    """Registers how `prim` is lowered. A rule from `lower_fun` becomes
    `prim`'s evaluation rule on pyjax's backend (unless it has one); any
    other rule (MLIR builder code) is recorded, as JAX records it, but never
    runs: pyjax has no StableHLO lowering (issue 27), so such a primitive
    evaluates by its `def_impl` (libraries such as equinox register both)."""
    if not isinstance(rule, LoweredFun):
        mlir_rules[prim, platform] = rule
        return
    if platform not in (None, "cpu"):
        return  # a lowering for another platform: pyjax runs on the CPU only
    impl = vars(prim).get("impl")
    if impl is not None and not getattr(getattr(impl, "func", impl), "defers_to_lowering", False):
        return  # def_impl was called: its impl runs already
    fun, multiple = rule.fun, rule.multiple_results
    if multiple != prim.multiple_results:
        if prim.multiple_results:
            raise ValueError(f"mlir.lower_fun(..., multiple_results=False) for primitive '{prim.name}', which has "
                             "multiple results")
        single = fun
        fun = lambda *args, **params: single(*args, **params)[0]  # noqa: E731  (a one-element list lowered)
    core.Primitive.def_impl(prim, fun)
    del prim.impl  # (the lowering is not the primitive's `impl` attribute; def_impl set it)


__all__ = ["LoweredFun", "lower_fun", "register_lowering"]
