"""Reductions over named axes: psum, pmean, pmax, pmin, axis_index,
axis_size, and the helpers every collective shares (named-axis lookup, the
unbound-axis errors, batch-axis moves).

Under `vmap(axis_name=...)` a named axis is the batch axis of a BatchTrace:
a collective over it becomes an ordinary reduction (or broadcast) along that
array axis — the same equations JAX's batching rules produce. `psum`, `pmax`
and `pmin` are primitives whose `axes` param holds names and/or positional
axes; the batching rule turns this trace's name into its positional axis.
The collectives that move data between lanes (ppermute, all_gather,
psum_scatter, all_to_all, pbroadcast) live in parallel_comm.py.
"""

from __future__ import annotations

import numpy as np

from pyjax._src import core
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching, staging
from pyjax._src.interpreters.batching import not_mapped
from pyjax._src.interpreters.jvp import deflinear
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import shapes
from pyjax._src.rules import NOT_DIFFERENTIABLE, unimplemented, SHARDING_OF_COLLECTIVE

__all__ = ["axis_index", "axis_index_p", "axis_size", "pmax", "pmax_p", "pmean", "pmin", "pmin_p", "psum", "psum_p"]


# ---------------------------------------------------------------------------
# Shared helpers (parallel_comm.py uses them too)


def axes_tuple(axis_name) -> tuple:
    """`axis_name` as a tuple of names (a list or tuple names several axes)."""
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def is_positional(axis) -> bool:
    return isinstance(axis, (int, np.integer))


def canonical_groups(axis_index_groups):
    return None if axis_index_groups is None else tuple(map(tuple, axis_index_groups))


def named_axis_size(axis_name, axis_index_groups=None) -> int:
    """The size of a named axis (the product over a tuple of names), as JAX's
    `psum(1, axis_name)` computes it: an unbound name is `unbound axis name`."""
    if axis_index_groups is not None:
        return len(axis_index_groups[0])
    size = 1
    for name in axes_tuple(axis_name):
        if is_positional(name):
            continue
        try:
            size *= batching.find_axis(name).size
        except NameError:
            raise NameError(f"unbound axis name: {name}") from None
    return size


def check_axis_names(axes, api_name: str) -> None:
    """JAX's check of a collective's names when it is bound outside any vmap."""
    for name in axes:
        if is_positional(name):
            continue
        try:
            batching.find_axis(name)
        except NameError:
            raise NameError(
                f"Found an unbound axis name: {name}. To fix this, please call {api_name} under `jax.shard_map`."
            ) from None


def in_eager_mode() -> bool:
    return core.current_trace() is core._default_trace[0]


def move_axis(x, src: int, dst: int):
    """x with axis `src` moved to `dst` (lax.transpose drops the identity)."""
    ndim = core.get_aval(x).ndim
    perm = [i for i in range(ndim) if i != src]
    perm.insert(dst, src)
    return shapes.transpose(x, tuple(perm))


def split_axis(x, axis: int, factor: int):
    """Axis `axis` of size n becomes two axes (factor, n // factor)."""
    shape = list(core.get_aval(x).shape)
    assert shape[axis] % factor == 0, (shape[axis], factor)
    shape[axis:axis + 1] = [factor, shape[axis] // factor]
    return shapes.reshape(x, tuple(shape))


def fold_axis(x, axis: int):
    """Axes `axis` and `axis + 1` merge into one."""
    shape = list(core.get_aval(x).shape)
    shape[axis:axis + 2] = [shape[axis] * shape[axis + 1]]
    return shapes.reshape(x, tuple(shape))


def is_tracer(x) -> bool:
    return isinstance(x, core.Tracer)


# ---------------------------------------------------------------------------
# psum, pmax, pmin


def _reduced_aval(aval: ShapedArray, *, axes, axis_index_groups) -> ShapedArray:
    positional = {int(a) for a in axes if is_positional(a)}
    shape = tuple(d for i, d in enumerate(aval.shape) if i not in positional)
    return ShapedArray(shape, aval.dtype, aval.weak_type)


_NO_GROUPS_IN_VMAP = "axis_index_groups not supported in vmap collectives. Please open a feature request!"


def _reduction_batcher(primitive: Primitive, scales: bool):
    """The batching rule of psum/pmax/pmin. A reduction over this vmap's name
    reduces the batch axis (moved to the front); an unbatched operand is the
    same on every lane, so psum multiplies it by the axis size and pmax/pmin
    keep it."""

    def rule(axis_data, args, dims, *, axes, axis_index_groups):
        (x,), (d,) = args, dims
        name = axis_data.name
        if d is not_mapped:
            if name not in axes:
                return primitive.bind(x, axes=axes, axis_index_groups=axis_index_groups), not_mapped
            if axis_index_groups:
                raise NotImplementedError
            others = tuple(a for a in axes if a != name)
            if others:
                x = primitive.bind(x, axes=others, axis_index_groups=axis_index_groups)
            return (_times_size(x, axis_data.size) if scales else x), not_mapped
        if name not in axes and not any(is_positional(a) for a in axes):
            return primitive.bind(x, axes=axes, axis_index_groups=axis_index_groups), d
        if axis_index_groups is not None:
            raise NotImplementedError(_NO_GROUPS_IN_VMAP)
        x = move_axis(x, d, 0)
        new_axes = tuple(a + 1 if is_positional(a) else (0 if a == name else a) for a in axes)
        out = primitive.bind(x, axes=new_axes, axis_index_groups=None)
        return out, (not_mapped if name in axes else 0)

    return rule


def _times_size(x, size: int):
    if type(x) in (bool, int, float, complex) or isinstance(x, np.generic):
        return x * size  # a constant stays a constant
    # JAX multiplies by a strongly typed constant: a weak operand's product
    # is made strong after the multiply.
    aval = core.get_aval(x)
    out = ew.mul(ew._constant(np.asarray(size, aval.dtype), aval.weak_type), x)
    return ew._convert_element_type(out, aval.dtype, False) if aval.weak_type else out


def _reduction(name: str, scales: bool) -> Primitive:
    primitive = Primitive(name).declare(sharding_reason=SHARDING_OF_COLLECTIVE)
    primitive.is_collective = True
    primitive.def_abstract_eval(_reduced_aval)
    primitive.def_batch(_reduction_batcher(primitive, scales))
    return primitive


psum_p = _reduction("psum", True)
pmax_p = _reduction("pmax", False)
pmin_p = _reduction("pmin", False)
# Declared gaps: JAX 0.11 defines no derivative either (and says only
# "Differentiation rule for 'pmax' not implemented", hence no reason here).
pmax_p.def_jvp(unimplemented(""))
pmin_p.def_jvp(unimplemented(""))


def _psum_transpose(ct, operand, *, axes, axis_index_groups):
    # psum is psum + broadcast: positional axes transpose to a broadcast, and
    # the named ones sum the cotangent again (JAX's rule).
    from pyjax._src.ad_util import Zero
    from pyjax._src.lax.reductions import _reduce_sum_transpose

    positional = tuple(a for a in axes if is_positional(a))
    named = tuple(a for a in axes if not is_positional(a))
    if positional:
        if type(ct) is Zero:
            return [Zero(operand.aval)]
        ct = _reduce_sum_transpose(ct, operand, axes=positional)[0]
    return [psum_p.bind(ct, axes=named, axis_index_groups=axis_index_groups)]


deflinear(psum_p, _psum_transpose)


def _validate_groups(axis_index_groups) -> None:
    if axis_index_groups is None:
        return
    indices = [i for group in axis_index_groups for i in group]
    if set(indices) != set(range(sum(len(group) for group in axis_index_groups))):
        raise ValueError("axis_index_groups must cover all indices exactly once")


def _reduce(primitive: Primitive, x, axis_name, axis_index_groups):
    from pyjax._src.tree_util import tree_flatten, tree_unflatten

    axes = axes_tuple(axis_name)
    if not axes:
        return x
    leaves, tree = tree_flatten(x)
    if primitive is psum_p:
        if axis_index_groups is not None and any(is_positional(a) for a in axes):
            raise ValueError("axis_index_groups only supported for sums over just named axes")
        _validate_groups(axis_index_groups)
        leaves = [ew._convert_element_type(leaf, np.dtype(np.int32)) if core.get_aval(leaf).dtype == np.bool_ else leaf
                  for leaf in leaves]  # booleans are counted
        if not any(is_tracer(leaf) for leaf in leaves):
            named_axis_size(axes)  # JAX's constant path: `unbound axis name`
    # (In a body typed by varying axes JAX's psum first casts with pvary,
    # whose check is the one that fails.)
    check_axis_names(axes, "pvary" if staging.vma_rule() is not None else "psum")
    groups = canonical_groups(axis_index_groups)
    outs = [primitive.bind(leaf, axes=axes, axis_index_groups=groups) for leaf in leaves]
    return tree_unflatten(tree, outs)


def psum(x, axis_name, *, axis_index_groups=None):
    """Add ``x`` up across the mapped axis ``axis_name``, handing every member the total.

    ``axis_name`` may be a tuple of names (nested vmaps) and may mix in
    positional axes. If ``x`` is a pytree the sum maps over its leaves.

    Example:
      >>> jax.vmap(lambda v: v / lax.psum(v, "i"), axis_name="i")(jnp.array([1., 3.]))
      Array([0.25, 0.75], dtype=float32)
    """
    return _reduce(psum_p, x, axis_name, axis_index_groups)


def pmax(x, axis_name, *, axis_index_groups=None):
    """The largest ``x`` across the mapped axis ``axis_name``, given to every member (see :func:`psum`)."""
    return _reduce(pmax_p, x, axis_name, axis_index_groups)


def pmin(x, axis_name, *, axis_index_groups=None):
    """The smallest ``x`` across the mapped axis ``axis_name``, given to every member (see :func:`psum`)."""
    return _reduce(pmin_p, x, axis_name, axis_index_groups)


def pmean(x, axis_name, *, axis_index_groups=None):
    """The average of ``x`` across the mapped axis ``axis_name``, given to every member (see :func:`psum`)."""
    from pyjax._src.tree_util import tree_map

    total = psum(x, axis_name, axis_index_groups=axis_index_groups)
    n = named_axis_size(axis_name, canonical_groups(axis_index_groups))
    return tree_map(lambda t: ew.div(t, np.asarray(n, core.get_aval(t).dtype)[()]), total)


def axis_size(axis_name) -> int:
    """Return the size of the mapped axis ``axis_name`` (a Python int; the
    product of the sizes for a tuple of names)."""
    return named_axis_size(axis_name)


# ---------------------------------------------------------------------------
# axis_index

axis_index_p = Primitive("axis_index")
axis_index_p.declare(sharding_reason=SHARDING_OF_COLLECTIVE)
axis_index_p.is_collective = True
axis_index_p.def_abstract_eval(lambda *, axis_name: ShapedArray((), np.dtype(np.int32)))
axis_index_p.def_jvp(NOT_DIFFERENTIABLE)  # no operands, an integer result


def _axis_index_batch(axis_data, args, dims, *, axis_name):
    if axis_data.name not in axes_tuple(axis_name):
        return axis_index_p.bind(axis_name=axis_name), not_mapped
    return shapes.iota(np.int32, axis_data.size), 0


axis_index_p.def_batch(_axis_index_batch)


def axis_index(axis_name):
    """Return the index along the mapped axis ``axis_name`` (int32).

    For a tuple of names the index is row-major over the named axes: the last
    name varies fastest.
    """
    if not isinstance(axis_name, (tuple, list)):
        check_axis_names((axis_name,), "axis_index")
        return axis_index_p.bind(axis_name=axis_name)
    inner = 1
    index = ew._constant(np.asarray(0, np.int32), True)
    for name in reversed(axis_name):
        index = index + axis_index(name) * inner
        inner *= axis_size(name)
    return index
