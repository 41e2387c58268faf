"""`jax.experimental.hijax`: JAX's high-level types, as far as a library's
import needs them.

flax.nnx defines its hijax Variable primitives and types on these bases at
import and uses them only when its hijax mode is switched on. pyjax has no
hijax machinery: the bases can be subclassed and instantiated, types
registered and effects allowed, but binding a HiPrimitive raises
NotImplementedError. The autodiff names (Zero, instantiate_zeros,
is_undefined_primal) are pyjax's own and work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyjax._src.ad_util import Zero  # noqa: F401
from pyjax._src.ad_util import instantiate as instantiate_zeros  # noqa: F401
from pyjax._src.avals import AbstractValue, ShapedArray  # noqa: F401
from pyjax._src.compat.state.types import AbstractRef  # noqa: F401
from pyjax._src.interpreters.transpose import is_undefined_primal  # noqa: F401

_NOT_HERE = "jax.experimental.hijax (high-level types and primitives) is not implemented in pyjax"


class aval_method:
    """A method of a high-level value that its aval also offers."""

    def __init__(self, fun: Callable):
        self.fun = fun

    def __get__(self, instance, owner=None):
        return self.fun if instance is None else self.fun.__get__(instance, owner)


class aval_property(property):
    """A property of a high-level value that its aval also offers."""


class AvalQDD:
    """An aval together with its quasi-dynamic data."""

    def __init__(self, aval: Any, qdd: Any):
        self.aval, self.qdd = aval, qdd


class AvalMutableQDD:
    """An aval together with its mutable quasi-dynamic data."""

    def __init__(self, aval: Any, mutable_qdd: Any):
        self.aval, self.mutable_qdd = aval, mutable_qdd


class HiType(AbstractValue):
    """The base of a high-level type's aval."""


class MutableHiType(HiType):
    """The base of a mutable high-level type's aval."""


class HiPrimitive:
    """A primitive on high-level types: defined by subclassing; binding one
    raises (pyjax has no hijax machinery)."""

    def __init__(self, name: str):
        self.name = name

    def bind(self, *args, **params):
        raise NotImplementedError(f"{_NOT_HERE}: cannot bind {self.name}")

    __call__ = bind

    def __repr__(self):
        return self.name


class VJPHiPrimitive(HiPrimitive):
    """A high-level primitive with a custom VJP (see HiPrimitive)."""


class MappingSpec:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_NOT_HERE)


HiPspec = MappingSpec
TransformedRef = AbstractRef


class _EffectTypeSet:
    """A set of effect types (JAX's effects.EffectTypeSet)."""

    def __init__(self):
        self._types: set[type] = set()

    def add_type(self, effect_type: type) -> None:
        self._types.add(effect_type)

    def contains(self, eff: Any) -> bool:
        return any(isinstance(eff, t) for t in self._types)

    def filter_in(self, effects):
        return [e for e in effects if self.contains(e)]

    def filter_not_in(self, effects):
        return [e for e in effects if not self.contains(e)]


control_flow_allowed_effects = _EffectTypeSet()
# type -> the function from a value of it to its aval.
hitypes: dict[type, Callable] = {}


def register_hitype(cls: type, to_aval: Callable) -> None:
    """Records `cls` as a high-level type whose values have `to_aval(x)` as aval."""
    hitypes[cls] = to_aval


def _not_here(*args, **kwargs):
    raise NotImplementedError(_NOT_HERE)


class _Accum:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_NOT_HERE)


GradAccum = NullAccum = RefAccum = ValAccum = _Accum
apply_derived_linearization = jvp_from_lin = linearize_from_jvp = transpose_jvp = _not_here
transpose_linearized = vjp_fwd_from_jvp = vjp_fwd_from_lin = _not_here
