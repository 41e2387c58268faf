"""`jax.interpreters.ad.jvp` and `linearize`: forward mode and linearization
of wrapped functions (linear_util.WrappedFun), on pyjax's JVP and
partial-evaluation traces."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pyjax._src import linear_util as lu
from pyjax._src.ad_util import Zero, instantiate
from pyjax._src.interpreters.jvp import jvp_flat
from pyjax._src.interpreters.partial_eval import linearize_flat


def _jvp_gen(f, instantiate_out, primals, tangents):
    outs, out_tangents = jvp_flat(lambda *xs: list(f(*xs)), list(primals), list(tangents))
    inst = [instantiate_out] * len(outs) if isinstance(instantiate_out, bool) else list(instantiate_out)
    out_tangents = [instantiate(t) if i and type(t) is Zero else t for t, i in zip(out_tangents, inst, strict=True)]
    return outs, out_tangents


def _jvp_aux_gen(f, store, instantiate_out, primals, tangents):
    aux_box: list = []

    def main(*xs):
        outs, aux = f(*xs)
        aux_box.append(aux)
        return list(outs)

    result = _jvp_gen(main, instantiate_out, primals, tangents)
    store.store(aux_box[0])
    return result


def jvp(fun: lu.WrappedFun, has_aux=False, instantiate=True, transform_stack=True) -> Any:
    """The JVP of a wrapped function of flat arrays: the result's
    `call_wrapped(primals, tangents)` returns (primal outputs, output
    tangents); with `has_aux`, also a thunk reading the auxiliary output
    (the function then returns (outputs, aux))."""
    if has_aux:
        return lu.transformation_with_aux2(_jvp_aux_gen, fun, instantiate)
    return lu.transformation2(_jvp_gen, fun, instantiate)


def linearize(traceable: Callable, primals_ft: Sequence, has_aux=False, is_vjp=False):
    """Linearizes a function of flat arrays at `primals_ft`: returns (primal
    outputs, the linear jaxpr of the tangents — its constvars the
    residuals —, which outputs have nonzero tangents). pyjax's form of
    JAX's internal linearize (which takes a flat tree)."""
    if has_aux:
        raise NotImplementedError("ad.linearize with has_aux: use jax.linearize(fun, *primals, has_aux=True)")
    call = getattr(traceable, "call_wrapped", traceable)
    return linearize_flat(lambda *xs: list(call(*xs)), list(primals_ft))


__all__ = ["jvp", "linearize"]
