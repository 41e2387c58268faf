"""Primitives that mark or lift values: `dce_sink` and `stage`.

`dce_sink_p` has no outputs and one effect (`NoDCEEffect`): dead-code
elimination keeps it, and with it whatever computed its operand. It is linear
(its tangent equation transposes to nothing) and, as in JAX 0.11, vmap drops
it: the batching rule hands the operand back instead of binding.

`stage_p` is the identity that lifts a value into the active trace; its bind
never reaches a trace's `process_primitive` (JAX binds it through
`trace.stage_value`), so a jaxpr never holds it: a traced value is returned
as it is and a constant becomes the trace's constant (a literal when staged).
Its rules (identity abstract eval, linear, vectorised) are JAX's, for callers
that apply them directly.
"""

from __future__ import annotations

from typing import Any

from pyjax._src.ad_util import Zero
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters.jvp import deflinear
from pyjax._src.interpreters import key_reuse as _key_reuse
from pyjax._src.jaxpr import Effect
from pyjax._src.lax import batching_util
from pyjax._src.lax._standard import as_array
from pyjax._src.tree_util import tree_map

__all__ = ["NoDCEEffect", "dce_sink", "dce_sink_p", "no_dce_effect", "stage", "stage_p"]


class NoDCEEffect(Effect):
    """Marks an equation dead-code elimination must keep."""

    def __hash__(self) -> int:
        return hash(type(self))

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other)

    def __repr__(self) -> str:
        return "NoDCEEffect"


no_dce_effect = NoDCEEffect()
_NO_DCE = frozenset({no_dce_effect})

dce_sink_p = Primitive("dce_sink", multiple_results=True).declare(effects_of=lambda params: _NO_DCE)
dce_sink_p.declare(sharding_reason='a marker with no results')


@dce_sink_p.def_abstract_eval
def _dce_sink_abstract_eval(x: ShapedArray, *, prevent_mlir_dce: bool) -> list:
    return []


deflinear(dce_sink_p, lambda ct, x, **params: [Zero(x.aval)])


def _dce_sink_batch(axis_data, args, dims, **params):
    # JAX 0.11's rule returns its operand rather than binding: the sink is
    # gone from a vmapped jaxpr.
    return list(args), list(dims)


dce_sink_p.def_batch(_dce_sink_batch)


def dce_sink(val: Any, *, prevent_mlir_dce: bool = False) -> None:
    """Marks every array of the pytree ``val`` as used, so dead-code
    elimination keeps the computation producing it.

    Args:
      val: a pytree of arrays.
      prevent_mlir_dce: also keep the value from the compiler's own dead-code
        elimination (a custom call with a side effect, in JAX's lowering).
    """
    tree_map(lambda x: dce_sink_p.bind(as_array(x), prevent_mlir_dce=prevent_mlir_dce), val)


class _StagePrimitive(Primitive):
    """`stage_p`: binding lifts its operand into the current trace."""

    def bind(self, *args, **params):
        (x,) = args
        return as_array(x)


stage_p = _StagePrimitive("stage")
stage_p.declare(key_reuse=_key_reuse.FORWARD)
stage_p.declare(sharding_reason="the identity on its operand's type (abstract evaluation)")
stage_p.def_abstract_eval(lambda x: x)
deflinear(stage_p, lambda ct, x: [ct])
batching_util.vectorized(stage_p)


def stage(x: Any, /) -> Any:
    """Lifts a value into a trace.

    Semantically an identity: a Python scalar, NumPy array or similar value
    comes back as a value of the current trace. With no trace active, the
    result is a concrete JAX array.
    """
    return stage_p.bind(x)

