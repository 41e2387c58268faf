"""JAX's rule dictionaries, as views of the primitives' own rule slots.

Libraries register rules the way JAX's extension API has them:

    ad.primitive_jvps[p] = jvp_rule                  # (primals, tangents, **params)
    ad.primitive_transposes[p] = transpose_rule      # (ct, *args, **params), UndefinedPrimal args
    batching.primitive_batchers[p] = batch_rule      # (batched_args, batch_dims, **params)
    batching.fancy_primitive_batchers[p] = rule      # (axis_data, batched_args, batch_dims, **params)

None of these is a table of its own: each is a mapping whose reads and
writes go to the `jvp`, `transpose` and `batch` slots of the primitive
(core.Primitive), which pyjax's interpreters read. A rule registered here is
the rule every transformation uses, and a built-in primitive's rule reads
back through the same mapping. Where JAX's calling convention differs from
pyjax's, the view converts: JAX marks an unbatched operand with `None`
(pyjax with `batching.not_mapped`); a declared zero derivative
(NOT_DIFFERENTIABLE) reads back as a rule returning symbolic zeros.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

import numpy as np

from pyjax._src import core
from pyjax._src.ad_util import Zero, add_tangents, instantiate, tangent_aval
from pyjax._src.interpreters import batching as _batching
from pyjax._src.interpreters.batching import not_mapped
from pyjax._src.interpreters.transpose import UndefinedPrimal, is_undefined_primal
from pyjax._src.rules import NOT_DIFFERENTIABLE, Sentinel


def _is_rule(rule) -> bool:
    return rule is not None and not isinstance(rule, Sentinel) and callable(rule)


class _SlotView(MutableMapping):
    """A mapping primitive -> rule stored in one rule slot of each primitive."""

    slot: str = ""

    def _read(self, primitive):  # the rule in JAX's convention, or None
        rule = getattr(primitive, self.slot, None)
        return rule if _is_rule(rule) else None

    def _write(self, primitive, rule) -> None:
        setattr(primitive, self.slot, rule)

    def __getitem__(self, primitive):
        rule = self._read(primitive) if isinstance(primitive, core.Primitive) else None
        if rule is None:
            raise KeyError(primitive)
        return rule

    def __setitem__(self, primitive, rule) -> None:
        if not isinstance(primitive, core.Primitive):
            raise TypeError(f"rules are registered for primitives, got {primitive!r} of type {type(primitive)}")
        if not callable(rule):
            raise TypeError(f"a rule must be callable, got {rule!r} for primitive '{primitive.name}'")
        self._write(primitive, rule)

    def __delitem__(self, primitive) -> None:
        self[primitive]  # KeyError when there is none
        setattr(primitive, self.slot, None)

    def __iter__(self) -> Iterator:
        from pyjax._src import lazy_names

        lazy_names.load_all()  # (the primitives of families `import pyjax` leaves to their first use)
        return (p for p in list(core._all_primitives) if self._read(p) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, primitive) -> bool:
        return isinstance(primitive, core.Primitive) and self._read(primitive) is not None

    def __repr__(self):
        return f"<{type(self).__name__}: a view of each primitive's '{self.slot}' rule slot>"


# ---------------------------------------------------------------------------
# Autodiff


class JVPRules(_SlotView):
    """`ad.primitive_jvps`: `rule(primals, tangents, **params) -> (primal_out,
    tangent_out)`, tangents possibly symbolic `Zero`s — pyjax's own
    convention, so rules are stored as they are."""

    slot = "jvp"

    def _read(self, primitive):
        rule = primitive.jvp
        if rule is NOT_DIFFERENTIABLE:
            return functools.partial(_zero_jvp, primitive)
        return rule if _is_rule(rule) else None


def _zero_jvp(primitive, primals, tangents, **params):
    # A declared zero derivative, in JAX's form: the outputs' tangents are zeros.
    out = primitive.bind(*primals, **params)
    if primitive.multiple_results:
        return out, [Zero(tangent_aval(core.get_aval(o))) for o in out]
    return out, Zero(tangent_aval(core.get_aval(out)))


class TransposeRules(_SlotView):
    """`ad.primitive_transposes`: `rule(ct, *args, **params) -> cts`, linear
    arguments as `UndefinedPrimal`s — pyjax's own convention."""

    slot = "transpose"


primitive_jvps = JVPRules()
primitive_transposes = TransposeRules()


def get_primitive_transpose(p):
    """The transpose rule of `p`, or JAX's error naming it."""
    try:
        return primitive_transposes[p]
    except KeyError as err:
        raise NotImplementedError(
            f"Transpose rule (for reverse-mode differentiation) for '{p}' not implemented") from err


def defjvp(primitive, *jvprules: Callable | None) -> None:
    """A JVP from one rule per operand, `rule(g, *primals, **params)`: the
    operand's contribution to the output tangent (None: none)."""
    assert isinstance(primitive, core.Primitive) and not primitive.multiple_results
    from pyjax._src.interpreters import jvp as _jvp

    _jvp.defjvp(primitive, *jvprules)


def defjvp2(primitive, *jvprules: Callable | None) -> None:
    """Like defjvp, but each rule also gets the primal output: `rule(g, ans, *primals, **params)`."""
    assert isinstance(primitive, core.Primitive) and not primitive.multiple_results
    from pyjax._src.interpreters import jvp as _jvp

    _jvp.defjvp2(primitive, *jvprules)


def _linear_jvp(primitive, primals, tangents, **params):
    out = primitive.bind(*primals, **params)
    if all(type(t) is Zero for t in tangents):
        if primitive.multiple_results:
            return out, [Zero(tangent_aval(core.get_aval(o))) for o in out]
        return out, Zero(tangent_aval(core.get_aval(out)))
    return out, primitive.bind(*[instantiate(t) for t in tangents], **params)


def _linear_transpose(transpose_rule, ct, *args, **params):
    if type(ct) is Zero:
        return [Zero(x.aval.to_tangent_aval()) if is_undefined_primal(x) else None for x in args]
    return transpose_rule(ct, **params)


def _linear_transpose2(transpose_rule, ct, *args, **params):
    if type(ct) is Zero:
        return [Zero(x.aval.to_tangent_aval()) if is_undefined_primal(x) else None for x in args]
    return transpose_rule(ct, *args, **params)


def deflinear(primitive, transpose_rule: Callable) -> None:
    """A primitive linear in all its operands; `transpose_rule(ct, **params)`
    gives the cotangents of the operands."""
    primitive.jvp = functools.partial(_linear_jvp, primitive)
    primitive.transpose = functools.partial(_linear_transpose, transpose_rule)


def deflinear2(primitive, transpose_rule: Callable) -> None:
    """Like deflinear, but `transpose_rule(ct, *args, **params)` also sees the
    (undefined) operands."""
    primitive.jvp = functools.partial(_linear_jvp, primitive)
    primitive.transpose = functools.partial(_linear_transpose2, transpose_rule)


def defbilinear(prim, lhs_rule: Callable, rhs_rule: Callable) -> None:
    """A primitive linear in each of its two operands separately (a product):
    `lhs_rule(ct, x, y, **params)` is the cotangent of x when x is the
    linear one, `rhs_rule` that of y."""
    defjvp(prim, lambda g, x, y, **kw: prim.bind(g, y, **kw), lambda g, x, y, **kw: prim.bind(x, g, **kw))

    def transpose(ct, x, y, **params):
        assert is_undefined_primal(x) ^ is_undefined_primal(y)
        if is_undefined_primal(x):
            return (Zero(x.aval.to_ct_aval()) if type(ct) is Zero else lhs_rule(ct, x, y, **params)), None
        return None, (Zero(y.aval.to_ct_aval()) if type(ct) is Zero else rhs_rule(ct, x, y, **params))

    prim.transpose = transpose


def add_jaxvals(x, y):
    """x + y for two tangents or cotangents (the `add_any` primitive)."""
    from pyjax._src.ad_util import add_any_p

    return add_any_p.bind(x, y)


def zeros_like_aval(aval):
    """A concrete zero of the abstract value `aval`."""
    from pyjax._src.ad_util import zeros_like_aval as zeros

    return zeros(aval)


# ---------------------------------------------------------------------------
# Batching: JAX marks an unbatched operand with None, pyjax with not_mapped.


def _dims_to_jax(dims) -> list:
    return [None if d is not_mapped else d for d in dims]


def _dims_from_jax(primitive, dim):
    if primitive.multiple_results:
        return [not_mapped if d is None else d for d in dim]
    return not_mapped if dim is None else dim


class _JAXAxisData:
    """The mapped axis as JAX's batching rules see it."""

    __slots__ = ("name", "size", "spmd_name")

    def __init__(self, axis_data):
        self.name, self.size, self.spmd_name = axis_data.name, axis_data.size, axis_data.spmd_name

    explicit_mesh_axis = None

    def __repr__(self):
        return f"AxisData(name={self.name!r}, size={self.size}, spmd_name={self.spmd_name!r})"


def _from_fancy(primitive, rule) -> Callable:
    """A JAX fancy batcher as a pyjax batching rule."""

    def pyjax_rule(axis_data, args, dims, **params):
        out, out_dim = rule(_JAXAxisData(axis_data), list(args), _dims_to_jax(dims), **params)
        return out, _dims_from_jax(primitive, out_dim)

    pyjax_rule.jax_rule = rule
    return pyjax_rule


def _to_fancy(primitive, rule) -> Callable:
    """A pyjax batching rule in JAX's fancy convention."""

    def fancy(axis_data, batched_args, batch_dims, **params):
        if all(d is None for d in batch_dims):
            out = primitive.bind(*batched_args, **params)
            return out, ([None] * len(out) if primitive.multiple_results else None)
        if not isinstance(axis_data, _batching.AxisData):
            axis_data = _batching.AxisData(getattr(axis_data, "name", None), axis_data.size,
                                           getattr(axis_data, "spmd_name", None))
        dims = [not_mapped if d is None else d for d in batch_dims]
        out, out_dim = rule(axis_data, list(batched_args), dims, **params)
        if primitive.multiple_results:
            return out, _dims_to_jax(out_dim)
        return out, None if out_dim is not_mapped else out_dim

    return fancy


class FancyBatchers(_SlotView):
    """`batching.fancy_primitive_batchers`: `rule(axis_data, batched_args,
    batch_dims, **params) -> (out, out_dim)`, None for an unbatched value."""

    slot = "batch"

    def _read(self, primitive):
        rule = primitive.batch
        if not _is_rule(rule):
            return None
        return getattr(rule, "jax_rule", None) or _to_fancy(primitive, rule)

    def _write(self, primitive, rule) -> None:
        primitive.batch = _from_fancy(primitive, rule)


fancy_primitive_batchers = FancyBatchers()


class PrimitiveBatchersProxy:
    """`batching.primitive_batchers`: takes `rule(batched_args, batch_dims,
    **params)`, which does not see the axis (JAX's compatibility form; the
    rule runs only when some operand is batched). Reading gives back what
    was registered through it."""

    def __setitem__(self, prim, batcher: Callable) -> None:
        def fancy(axis_data, vals, dims, **params):
            if all(d is None for d in dims):
                o = prim.bind(*vals, **params)
                return (o, [None] * len(o)) if prim.multiple_results else (o, None)
            return batcher(vals, dims, **params)

        fancy.batcher = batcher
        fancy_primitive_batchers[prim] = fancy

    def __getitem__(self, prim):
        batcher = getattr(fancy_primitive_batchers.get(prim), "batcher", None)
        if batcher is None:
            raise KeyError(prim)
        return batcher

    def __contains__(self, prim) -> bool:
        return getattr(fancy_primitive_batchers.get(prim), "batcher", None) is not None

    def __delitem__(self, prim) -> None:
        del fancy_primitive_batchers[prim]


class AxisPrimitiveBatchersProxy:
    """`batching.axis_primitive_batchers`: takes `rule(axis_size, axis_name,
    trace_type, batched_args, batch_dims, **params)`."""

    def __setitem__(self, prim, batcher: Callable) -> None:
        def fancy(axis_data, vals, dims, **params):
            return batcher(axis_data.size, axis_data.name, None, vals, dims, **params)

        fancy_primitive_batchers[prim] = fancy


primitive_batchers = PrimitiveBatchersProxy()
axis_primitive_batchers = AxisPrimitiveBatchersProxy()


def _vectorized_batcher(prim, axis_data, batched_args, batch_dims, **params):
    assert not prim.multiple_results
    if all(d is None for d in batch_dims):
        return prim.bind(*batched_args, **params), None
    assert all(batch_dims[0] == bd for bd in batch_dims[1:]), batch_dims
    return prim.bind(*batched_args, **params), batch_dims[0]


def defvectorized(prim) -> None:
    """An elementwise primitive whose operands share one batch axis: the
    axis stays where it is."""
    fancy_primitive_batchers[prim] = functools.partial(_vectorized_batcher, prim)


def defbroadcasting(prim) -> None:
    """An n-ary elementwise primitive that broadcasts rank-0 and size-1
    operands (lax's rule): JAX's broadcast batcher."""
    from pyjax._src.lax import batching_util

    batching_util.broadcasting(prim)


def defreducer(prim) -> None:
    """A reduction over its `axes` param: the axes move past the batch axis."""
    from pyjax._src.lax import batching_util

    batching_util.defreducer(prim)


def bdim_at_front(x, bdim, size: int, mesh_axis=None):
    """x with its batch axis first; an unbatched x (bdim None) is broadcast to `size`."""
    from pyjax._src.lax import batching_util

    if bdim is None or bdim is not_mapped:
        return batching_util.broadcast_batch(x, size, 0)  # (JAX's broadcast: NumPy dimension numbers)
    return batching_util.moveaxis(x, bdim, 0)


def broadcast(x, sz: int, axis: int, mesh_axis=None):
    """An unbatched x given a batch axis of size `sz` at `axis`."""
    from pyjax._src.lax import batching_util

    return batching_util.broadcast_batch(x, sz, axis)


# The vmappable types (JAX's register_vmappable): data type -> (spec type,
# axis size type, to_elt, from_elt, make_iota).
vmappables: dict[type, tuple] = {}
spec_types: set[type] = set()


def register_vmappable(data_type: type, spec_type: type, axis_size_type: type, to_elt: Callable,
                       from_elt: Callable, make_iota: Callable | None) -> None:
    """Registers a type vmap maps over with its own rules (JAX's protocol for
    types that are not arrays). pyjax records the registration; vmap maps
    arrays and pytrees of arrays, and raises for a value of a registered type."""
    vmappables[data_type] = (spec_type, axis_size_type, to_elt, from_elt, make_iota)
    spec_types.add(spec_type)


def unregister_vmappable(data_type: type) -> None:
    """Removes a registration of register_vmappable (JAX keeps the handlers; so does this)."""
    vmappables.pop(data_type, None)


__all__ = [
    "AxisPrimitiveBatchersProxy", "FancyBatchers", "JVPRules", "PrimitiveBatchersProxy", "TransposeRules",
    "UndefinedPrimal", "Zero", "add_jaxvals", "add_tangents", "axis_primitive_batchers", "bdim_at_front",
    "broadcast", "defbilinear", "defbroadcasting", "defjvp", "defjvp2", "deflinear", "deflinear2", "defreducer",
    "defvectorized", "fancy_primitive_batchers", "get_primitive_transpose", "instantiate", "is_undefined_primal",
    "primitive_batchers", "primitive_jvps", "primitive_transposes", "register_vmappable", "unregister_vmappable",
    "zeros_like_aval",
]
