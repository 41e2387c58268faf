"""`jax.custom_remat(f, f_fwd, f_rem, f_bwd)`: a function carrying its own
rematerialisation rules.

In JAX 0.11 the rules take effect only under the `jax_remat3`
implementation of checkpoint; with the default one, which is the one JAX
0.11 and pyjax run, a custom_remat function evaluates, jits and
differentiates as `f` itself: its JVP is `f`'s, so `jax.jvp` and
`jax.grad(jax.checkpoint(g))` give `f`'s derivatives and the rules are
kept, unused. It is staged as one `custom_remat` equation holding `f`'s
jaxpr and the rules. Where JAX 0.11 refuses (reverse mode outside a
checkpoint, vmap: NotImplementedError), pyjax differentiates and batches
`f`'s body.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from pyjax._src.core import Primitive
from pyjax._src.interpreters.batching import batch_flat
from pyjax._src.interpreters.jvp import jvp_flat
from pyjax._src.jaxpr import Jaxpr, body_effects, eval_jaxpr
from pyjax._src.rules import SHARDING_OF_CALL
from pyjax._src.tree_util import tree_unflatten

custom_remat_p = Primitive("custom_remat", multiple_results=True).declare(
    body_params=("jaxpr",), call_body="jaxpr", sharding_reason=SHARDING_OF_CALL, effects_of=body_effects("jaxpr"))


class RematRules:
    """The rules of a custom_remat function, kept as one param (compared by identity)."""

    __slots__ = ("f_fwd", "f_rem", "f_bwd")

    def __init__(self, f_fwd: Callable, f_rem: Callable, f_bwd: Callable):
        self.f_fwd, self.f_rem, self.f_bwd = f_fwd, f_rem, f_bwd

    def __repr__(self):
        names = (getattr(r, "__name__", repr(r)) for r in (self.f_fwd, self.f_rem, self.f_bwd))
        return "RematRules({})".format(", ".join(names))


def _body(jaxpr: Jaxpr):
    return lambda *args: eval_jaxpr(jaxpr, jaxpr.consts, *args)


def _batch(axis_data, args, dims, *, jaxpr, rules):
    infos = batch_flat(_body(jaxpr), args, dims, axis_data, push_axis_env=False)
    return [v for v, _ in infos], [d for _, d in infos]


custom_remat_p.def_abstract_eval(lambda *avals, jaxpr, rules: list(jaxpr.out_avals))
custom_remat_p.def_impl(lambda *args, jaxpr, rules: eval_jaxpr(jaxpr, jaxpr.consts, *args))
custom_remat_p.def_jvp(lambda primals, tangents, *, jaxpr, rules: jvp_flat(_body(jaxpr), primals, tangents))
custom_remat_p.def_batch(_batch)


def _argnums(value) -> tuple:
    return (value,) if isinstance(value, int) else tuple(value)


def custom_remat(f: Callable, f_fwd: Callable, f_rem: Callable, f_bwd: Callable, *,
                 static_argnums: int | Sequence[int] = (), static_argnames: str | Sequence[str] = ()) -> Callable:
    """`f` with rematerialisation rules for reverse-mode differentiation under
    checkpoint: `f_fwd(policy, *args) -> (out, res)`, `f_rem(res, *args) ->
    (out, res2)`, `f_bwd(res2, out_ct) -> args_ct`. (Applied by JAX's
    `jax_remat3` checkpoint only; see the module docstring.) `static_argnums`
    and `static_argnames` mark arguments that are not traced, as in `jit`."""
    from pyjax._src.jit import trace_flat

    for name, fun in (("f", f), ("f_fwd", f_fwd), ("f_rem", f_rem), ("f_bwd", f_bwd)):
        if not callable(fun):
            raise TypeError(f"custom_remat: {name} must be callable, got {type(fun).__name__}")
    static_argnums = _argnums(static_argnums)
    static_argnames = (static_argnames,) if isinstance(static_argnames, str) else tuple(static_argnames)
    rules = RematRules(f_fwd, f_rem, f_bwd)

    def call(*args, **kwargs):  # (not wrapped: JAX's is named `call`, as jit names and module names show)
        static_kw = {k: v for k, v in kwargs.items() if k in static_argnames}
        dyn_kw = {k: v for k, v in kwargs.items() if k not in static_argnames}
        fun = functools.partial(f, **static_kw) if static_kw else f
        jaxpr, _, out_tree, flat_args = trace_flat(fun, args, dyn_kw, static_argnums, "custom_remat")
        consts = list(jaxpr.consts)  # (leading operands: a constant may be an enclosing trace's value)
        jaxpr = jaxpr.replace(invars=[*jaxpr.constvars, *jaxpr.invars], constvars=[], consts=[])
        outs = custom_remat_p.bind(*consts, *flat_args, jaxpr=jaxpr, rules=rules)
        return tree_unflatten(out_tree, outs)

    return call
