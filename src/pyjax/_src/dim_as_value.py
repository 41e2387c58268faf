"""`dim_as_value`: a symbolic dimension as an array (JAX's
`core.dimension_as_value` under shape polymorphism).

The primitive has no operands; its `dim` param is the dimension expression
and its value a weakly typed scalar of the default integer dtype. It only
has a value where the dimension variables are bound: calling an `Exported`
(which evaluates it as a constant) and the StableHLO of an exported module
(which computes it from the module's dimension arguments). Eagerly it
raises, as JAX's does.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.rules import NOT_DIFFERENTIABLE, unimplemented

dim_as_value_p = Primitive("dim_as_value").declare(
    cost="cheap", sharding_reason="no operands: a replicated scalar, the value of a dimension")
dim_as_value_p.def_jvp(NOT_DIFFERENTIABLE)  # an integer of the shapes: no tangent
dim_as_value_p.def_batch(unimplemented(""))  # (no operands to batch; JAX 0.11 has no rule either)


@dim_as_value_p.def_abstract_eval
def _dim_as_value_abstract_eval(*, dim) -> ShapedArray:
    return ShapedArray((), np.dtype(dtypes.default_int_dtype()), True)


@dim_as_value_p.def_impl
def _dim_as_value_impl(*, dim):
    raise NotImplementedError("Evaluation rule for 'dim_as_value' is not implemented. It seems that you are using "
                              "shape polymorphism outside jax.export.")


def dimension_as_value(d):
    """`d` as a value to compute with: a constant dimension as it is, a
    symbolic one as a `dim_as_value` array."""
    if hasattr(d, "get_vars"):
        return dim_as_value_p.bind(dim=d)
    return d
