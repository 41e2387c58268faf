"""`select_and_scatter_p`: XLA's SelectAndScatter with user computations.

Each window of the operand (strided, padded) picks one element with the
`select` computation (`select(a, b)` true keeps the element chosen so far,
`a`, over the next one in row-major order); the window's source value is
combined into that position of the output, which starts as `init_value`,
with the `scatter` computation. JAX defines the primitive with a shape rule
and a lowering only (its own pooling derivatives use select_and_scatter_add),
so it has no derivative or batching rules here either: JAX's missing-rule
errors name it.
"""

from __future__ import annotations

from collections.abc import Sequence, Callable
from typing import Any

from pyjax._src import core
from pyjax._src.rules import unimplemented
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.lax._standard import as_array
from pyjax._src.lax.convolution import check_shapelike
from pyjax._src.lax.reduce import reduction_jaxpr
from pyjax._src.lax import sharding_rules
from pyjax._src.tree_util import tree_structure

__all__ = ["select_and_scatter_p"]

select_and_scatter_p = Primitive("select_and_scatter").declare(body_params=("select_jaxpr", "scatter_jaxpr"))


# (JAX 0.11 has no derivative or batching rule for it either)
select_and_scatter_p.def_jvp(unimplemented(""))
select_and_scatter_p.def_batch(unimplemented(""))
select_and_scatter_p.def_sharding_rule(sharding_rules.select_and_scatter_rule)


@select_and_scatter_p.def_abstract_eval
def _select_and_scatter_abstract_eval(operand: ShapedArray, source: ShapedArray, init_value: ShapedArray, *,
                                      select_jaxpr, select_consts, scatter_jaxpr, scatter_consts,
                                      window_dimensions, window_strides, padding) -> ShapedArray:
    check_shapelike("select_and_scatter", "window_dimensions", window_dimensions)
    check_shapelike("select_and_scatter", "window_strides", window_strides)
    ndims = len(window_dimensions)
    if ndims != len(window_strides):
        raise TypeError("select_and_scatter got inconsistent window_strides and window_dimensions: got "
                        f"window_strides {window_strides} and window_dimensions {window_dimensions}.")
    return ShapedArray(operand.shape, operand.dtype, weak_type=operand.weak_type)


def _scalar_jaxpr(computation: Callable, aval: ShapedArray, what: str):
    jaxpr, _ = reduction_jaxpr(computation, (aval,), tree_structure(0), what)
    return jaxpr, tuple(jaxpr.consts)


def _select_and_scatter(operand: Any, select: Callable, window_dimensions: Sequence[int],
                        window_strides: Sequence[int], padding: Sequence[tuple[int, int]], source: Any,
                        init_value: Any, scatter: Callable) -> Any:
    """Binds select_and_scatter_p (JAX's private helper of the same name)."""
    operand, source, init_value = as_array(operand), as_array(source), as_array(init_value)
    aval = core.get_aval(init_value)
    aval = ShapedArray((), aval.dtype, weak_type=aval.weak_type)
    select_jaxpr, select_consts = _scalar_jaxpr(select, aval, "select_and_scatter select")
    scatter_jaxpr, scatter_consts = _scalar_jaxpr(scatter, aval, "select_and_scatter scatter")
    return select_and_scatter_p.bind(
        operand, source, init_value, select_jaxpr=select_jaxpr, select_consts=select_consts,
        scatter_jaxpr=scatter_jaxpr, scatter_consts=scatter_consts, window_dimensions=tuple(window_dimensions),
        window_strides=tuple(window_strides), padding=tuple(tuple(p) for p in padding))
