"""The primitives of mutable array references (`jax.ref`).

    new_ref    x -> a reference holding a copy of x
    get        ref, *indices -> ref[idx]                    printed `c:f32[3] <- b[...]`
    swap       ref, value, *indices -> old ref[idx]; ref[idx] = value
                                                            printed `b[0] <- d` when the old value is unused
    addupdate  ref, value, *indices -> (); ref[idx] += value    printed `b[...] += d`
    freeze     ref -> its contents (the reference is not used again)
    empty_ref, free_ref   an uninitialised reference of a type; the end of one

Each equation that reads or writes a reference carries the `RefEffect`, so
dead-code elimination keeps writes and code generation keeps their order.
The `tree` param of get/swap/addupdate is the static indexer (ref_types.Indexer,
None for the whole reference); its dynamic operands follow the value.

Autodiff: forward mode gives every reference made inside the differentiated
function a tangent reference, read and written beside it. Reverse mode
(grad, vjp, linearize) of functions using references is not there yet: it
raises NotImplementedError. vmap batches references made inside the mapped
function, and references passed in batched.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pyjax._src import core, dtypes
from pyjax._src.ad_util import Zero, instantiate
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching
from pyjax._src.jaxpr import DropVar, Effect, Literal
from pyjax._src.rules import unimplemented, SHARDING_OF_REF
from pyjax._src.pretty import Concat, Text, pp_atom, pp_binder, pp_vars
from pyjax._src.ref_types import AbstractRef, IndexEntry, Indexer, Ref, RefBuffer, make_indexer
from pyjax._src import ref_types

__all__ = ["new_ref", "freeze", "empty_ref", "free_ref", "ref_get", "ref_set", "ref_swap", "ref_addupdate",
           "new_ref_p", "get_p", "swap_p", "addupdate_p", "freeze_p", "empty_ref_p", "free_ref_p", "RefEffect"]


class RefEffect(Effect):
    """Reading or writing a mutable array reference: kept by DCE, never reordered."""

    def __str__(self) -> str:
        return "RefEffect"

    __repr__ = __str__


ref_effect = RefEffect()
_REF_EFFECTS = frozenset({ref_effect})


def _effects(params: dict) -> frozenset:
    return _REF_EFFECTS


new_ref_p = Primitive("new_ref").declare(effects_of=_effects)
new_ref_p.declare(sharding_reason=SHARDING_OF_REF)
new_ref_p.ref_primitive = True  # (transformations give a reference made under them their own)
empty_ref_p = Primitive("empty_ref").declare(effects_of=_effects)
empty_ref_p.declare(sharding_reason=SHARDING_OF_REF)
empty_ref_p.ref_primitive = True
free_ref_p = Primitive("free_ref", multiple_results=True).declare(effects_of=_effects)
free_ref_p.declare(sharding_reason=SHARDING_OF_REF)
freeze_p = Primitive("freeze").declare(effects_of=_effects)
freeze_p.declare(sharding_reason=SHARDING_OF_REF)
get_p = Primitive("get").declare(effects_of=_effects)
get_p.declare(sharding_reason=SHARDING_OF_REF)
swap_p = Primitive("swap").declare(effects_of=_effects)
swap_p.declare(sharding_reason=SHARDING_OF_REF)
addupdate_p = Primitive("addupdate", multiple_results=True).declare(effects_of=_effects)
addupdate_p.declare(sharding_reason=SHARDING_OF_REF)


def _as_ref(out):
    # The eval trace wraps every result as an Array; a reference's is a Ref.
    if type(out) is Array and type(out.aval) is AbstractRef:
        return Ref(out.aval, out._value)
    return out


def _bind_making_ref(primitive):
    plain = primitive.bind

    def bind(*args, **params):
        return _as_ref(plain(*args, **params))

    return bind


new_ref_p.bind = _bind_making_ref(new_ref_p)
empty_ref_p.bind = _bind_making_ref(empty_ref_p)


# ---------------------------------------------------------------------------
# Abstract evaluation


def _ref_aval(ref, name: str) -> AbstractRef:
    if type(ref) is not AbstractRef:
        raise ValueError(f"`{name}` must be called on `Ref` types: {ref}.")
    return ref


def _check_indices(idx_avals) -> None:
    for a in idx_avals:
        if not dtypes.issubdtype(a.dtype, np.integer):
            raise TypeError(f"Indices into a reference must be integers, got {a.str_short()}.")


def _transforms_text(tree) -> str:
    return "()" if tree is None else f"({tree!r},)"


def _indexed_shape(ref: AbstractRef, tree, idx_avals) -> tuple:
    _check_indices(idx_avals)
    return ref.shape if tree is None else tree.out_shape([a.shape for a in idx_avals])


@new_ref_p.def_abstract_eval
def _new_ref_abstract_eval(x, *, memory_space, kind):
    return AbstractRef(x, memory_space, kind)


@empty_ref_p.def_abstract_eval
def _empty_ref_aval(*, ty, memory_space):
    return AbstractRef(ty, memory_space)


@free_ref_p.def_abstract_eval
def _free_ref_abstract_eval(ref):
    _ref_aval(ref, "free_ref")
    return []


@freeze_p.def_abstract_eval
def _freeze_abstract_eval(ref):
    return _ref_aval(ref, "freeze").inner_aval


@get_p.def_abstract_eval
def _get_abstract_eval(ref, *idx, tree):
    ref = _ref_aval(ref, "get")
    return ref.inner_aval.update(shape=_indexed_shape(ref, tree, idx))


def _check_value(name: str, ref: AbstractRef, value, tree, idx) -> tuple:
    expected = _indexed_shape(ref, tree, idx)
    if value.shape != expected:
        raise ValueError(f"Invalid shape for `{name}`. Ref shape: {ref.shape}. Expected shape: {expected}. "
                         f"Value shape: {value.shape}. Transforms: {_transforms_text(tree)}. ")
    if value.dtype != ref.dtype:
        raise ValueError(f"Invalid dtype for `{name}`. Ref dtype: {ref.dtype}. Value dtype: {value.dtype}. ")
    return expected


@swap_p.def_abstract_eval
def _swap_abstract_eval(ref, value, *idx, tree):
    ref = _ref_aval(ref, "swap")
    return ref.inner_aval.update(shape=_check_value("swap", ref, value, tree, idx))


@addupdate_p.def_abstract_eval
def _addupdate_abstract_eval(ref, value, *idx, tree):
    _check_value("addupdate", _ref_aval(ref, "addupdate"), value, tree, idx)
    return []


# ---------------------------------------------------------------------------
# The jaxpr text: JAX's indexing notation


def _pp_index(tree, operands, ctx) -> str:
    if tree is None:
        return "..."
    it, parts = iter(operands), []
    for e, dim in zip(tree.entries, tree.shape):
        if e.kind != "slice":
            parts.append(_pp_index_atom(next(it), ctx))
        elif e.start is None:
            start = _pp_index_atom(next(it), ctx)
            parts.append(f"{start}:{start}+{e.size}")
        else:
            end = "" if e.start + e.size == dim else str(e.start + e.size)
            parts.append(f"{'' if e.start == 0 else e.start}:{end}")
    return ",".join(parts)


def _pp_index_atom(atom, ctx) -> str:
    return str(atom.val) if type(atom) is Literal else pp_atom(atom, ctx)


def _pp_get(eqn, ctx):
    ref, *idx = eqn.invars
    lhs = pp_vars([pp_binder(v, ctx) for v in eqn.outvars])
    return Concat([lhs, Text(f" <- {pp_atom(ref, ctx)}[{_pp_index(eqn.params['tree'], idx, ctx)}]")])


def _pp_swap(eqn, ctx):
    ref, value, *idx = eqn.invars
    target = f"{pp_atom(ref, ctx)}[{_pp_index(eqn.params['tree'], idx, ctx)}]"
    (out,) = eqn.outvars
    if type(out) is DropVar or ctx.name(out) == "_":  # a set: the old value is unused
        return Text(f"{target} <- {pp_atom(value, ctx)}")
    return Text(f"{pp_binder(out, ctx)}, {target} <- {target}, {pp_atom(value, ctx)}")


def _pp_addupdate(eqn, ctx):
    ref, value, *idx = eqn.invars
    return Text(f"{pp_atom(ref, ctx)}[{_pp_index(eqn.params['tree'], idx, ctx)}] += {pp_atom(value, ctx)}")


get_p.pp_rule = _pp_get
swap_p.pp_rule = _pp_swap
addupdate_p.pp_rule = _pp_addupdate


# ---------------------------------------------------------------------------
# The public functions


def _is_ref(x) -> bool:
    return type(getattr(x, "aval", None)) is AbstractRef


def _ref_operand(ref, name: str):
    if not _is_ref(ref):
        raise ValueError(f"`{name}` must be called on `Ref` types: {core.get_aval(ref)}.")
    return ref


def _value_for(ref, value, strong: bool = True):
    """`value` as the reference's dtype where it is weakly typed (a Python
    scalar, or a weak result; a weak one of its dtype is kept where not
    `strong`), as JAX casts it implicitly; a strongly typed
    value of another dtype is left for the abstract evaluation's error."""
    from pyjax._src.lax.elementwise import convert_element_type
    from pyjax._src.numpy.util import ensure_array

    dtype = ref.aval.dtype
    if type(value) in (bool, int, float, complex):
        weak = core.python_scalar_aval(type(value))
        if dtypes.result_type(weak, dtype) == dtype and weak.dtype.kind != "c" or weak.dtype == dtype:
            return np.asarray(value, dtype)
        return ensure_array(value)
    value = ensure_array(value)
    if value.weak_type and (strong or value.dtype != dtype) and dtypes.result_type(value, dtype) == dtype:
        return convert_element_type(value, dtype)
    return value


def new_ref(init_val: Any, *, memory_space: Any = None, kind: str | None = None) -> Ref:
    """A new mutable array reference holding a copy of `init_val`."""
    from pyjax._src.numpy.util import ensure_array

    if type(init_val) not in (bool, int, float, complex):
        init_val = ensure_array(init_val)
    return new_ref_p.bind(init_val, memory_space=memory_space, kind=kind)


def empty_ref(ty, memory_space=None) -> Ref:
    """A reference of type `ty` (an aval or a ShapeDtypeStruct) whose contents are not set."""
    ref_ty = ty if isinstance(ty, ShapedArray) else ShapedArray(ty.shape, ty.dtype)
    return empty_ref_p.bind(ty=ref_ty, memory_space=memory_space)


def free_ref(ref: Ref) -> None:
    """Ends the life of a reference (a no-op on this backend)."""
    free_ref_p.bind(_ref_operand(ref, "free_ref"))


def freeze(ref: Ref) -> Array:
    """The contents of `ref` as an immutable array; `ref` is not to be used after."""
    return freeze_p.bind(_ref_operand(ref, "freeze"))


def ref_get(ref, idx=None) -> Array:
    """`ref[idx]`: the part of the reference's contents `idx` addresses."""
    tree, operands = make_indexer(_ref_operand(ref, "get").aval.shape, idx)
    return get_p.bind(ref, *operands, tree=tree)


def ref_swap(ref, idx, value, _function_name: str = "ref_swap") -> Array:
    """Writes `value` at `ref[idx]`; returns what was there."""
    tree, operands = make_indexer(_ref_operand(ref, "swap").aval.shape, idx)
    return swap_p.bind(ref, _value_for(ref, value), *operands, tree=tree)


def ref_set(ref, idx, value) -> None:
    """`ref[idx] = value`."""
    ref_swap(ref, idx, value, "ref_set")


def ref_addupdate(ref, idx, x) -> None:
    """`ref[idx] += x`, in place."""
    tree, operands = make_indexer(_ref_operand(ref, "addupdate").aval.shape, idx)
    addupdate_p.bind(ref, _value_for(ref, x, strong=False), *operands, tree=tree)


ref_types._OPS.update(get=ref_get, set=ref_set)


def _hide_array_methods() -> None:
    from pyjax._src.numpy import array_methods

    ref_types.hide_array_methods(array_methods._METHODS)


_hide_array_methods()


# ---------------------------------------------------------------------------
# Forward-mode differentiation: a tangent reference beside each reference


def _refuse_reverse_mode() -> None:
    from pyjax._src.interpreters.partial_eval import PartialEvalTrace

    if isinstance(core.current_trace(), PartialEvalTrace):  # (linearize: the tangents are being staged)
        _no_reverse_mode()


def _new_ref_jvp(primals, tangents, **params):
    (x,), (t,) = primals, tangents
    _refuse_reverse_mode()
    aval = core.get_aval(x)
    if type(t) is Zero and aval.weak_type and not aval.shape and aval.dtype.kind == "f":
        t = 0.0  # (a weak literal: the tangent reference is weakly typed like the primal one)
    return new_ref_p.bind(x, **params), new_ref_p.bind(instantiate(t), **params)


def _freeze_jvp(primals, tangents):
    (ref,), (t,) = primals, tangents
    return freeze_p.bind(ref), freeze_p.bind(t)


def _get_jvp(primals, tangents, *, tree):
    ref, *idx = primals
    out = get_p.bind(ref, *idx, tree=tree)
    if type(tangents[0]) is Zero:
        return out, Zero(core.get_aval(out).to_tangent_aval())
    return out, get_p.bind(tangents[0], *idx, tree=tree)


def _differentiated_write(ref_tangent, value_tangent, ref) -> None:
    if type(ref_tangent) is Zero and type(value_tangent) is not Zero:
        raise Exception("performing a set/swap operation with a differentiated value on a non-differentiated "
                        f"array reference of type {core.get_aval(ref)}. Move the array reference to be an "
                        "argument of the differentiated function?")


def _swap_jvp(primals, tangents, *, tree):
    ref, value, *idx = primals
    _differentiated_write(tangents[0], tangents[1], ref)
    out = swap_p.bind(ref, value, *idx, tree=tree)
    if type(tangents[0]) is Zero:
        return out, Zero(core.get_aval(out).to_tangent_aval())
    return out, swap_p.bind(tangents[0], instantiate(tangents[1]), *idx, tree=tree)


def _addupdate_jvp(primals, tangents, *, tree):
    ref, value, *idx = primals
    _differentiated_write(tangents[0], tangents[1], ref)
    addupdate_p.bind(ref, value, *idx, tree=tree)
    if type(tangents[0]) is not Zero and type(tangents[1]) is not Zero:
        addupdate_p.bind(tangents[0], tangents[1], *idx, tree=tree)
    return [], []


def _empty_ref_jvp(primals, tangents, *, ty, memory_space):
    # An uninitialised reference has nothing to differentiate: its tangent is a
    # second uninitialised reference of the tangent type, written alongside.
    primal = empty_ref_p.bind(ty=ty, memory_space=memory_space)
    return primal, empty_ref_p.bind(ty=ty.to_tangent_aval(), memory_space=memory_space)


def _free_ref_jvp(primals, tangents):
    (ref,), (t,) = primals, tangents
    free_ref_p.bind(ref)
    if type(t) is not Zero:
        free_ref_p.bind(t)
    return [], []


new_ref_p.def_jvp(_new_ref_jvp)
empty_ref_p.def_jvp(_empty_ref_jvp)
free_ref_p.def_jvp(_free_ref_jvp)
freeze_p.def_jvp(_freeze_jvp)
get_p.def_jvp(_get_jvp)
swap_p.def_jvp(_swap_jvp)
addupdate_p.def_jvp(_addupdate_jvp)


_NO_REVERSE_MODE = ("reverse-mode differentiation (grad, vjp, linearize) of functions that use mutable array "
                    "references is not implemented in pyjax yet")


def _no_reverse_mode():
    raise NotImplementedError(_NO_REVERSE_MODE)


for _p in (new_ref_p, freeze_p, get_p, swap_p, addupdate_p):
    _p.def_transpose(unimplemented("reverse mode of references: not yet"))

from pyjax._src import ref_batching  # noqa: E402,F401  (the batching rules)
