"""Collectives over named axes: psum, pmean, pmax, pmin, all_gather,
axis_index, axis_size.

Under `vmap(axis_name=...)` a named axis is the batch axis of a BatchTrace:
a collective over it becomes an ordinary reduction (or broadcast) along that
array axis — the same equations JAX's batching rules produce. `psum`, `pmax`
and `pmin` are primitives whose `axes` param holds names and/or positional
axes; the batching rule turns this trace's name into its positional axis.
"""

from __future__ import annotations


import numpy as np

from pyjax._src import core
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching
from pyjax._src.lax import batching_util
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import shapes

__all__ = ["all_gather", "axis_index", "axis_size", "pmax", "pmean", "pmin", "psum"]


def _axes_tuple(axis_name) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _reduced_aval(aval: ShapedArray, axes) -> ShapedArray:
    positional = {a for a in axes if isinstance(a, (int, np.integer))}
    shape = tuple(d for i, d in enumerate(aval.shape) if i not in positional)
    return ShapedArray(shape, aval.dtype, aval.weak_type)


def _collective(name: str, scale_unmapped: bool) -> Primitive:
    primitive = Primitive(name, multiple_results=True)
    primitive.is_collective = True
    primitive.def_abstract_eval(lambda *avals, axes, axis_index_groups: [_reduced_aval(a, axes) for a in avals])

    def batch_rule(axis_data, args, dims, *, axes, axis_index_groups):
        outs, out_dims = [], []
        for x, d in zip(args, dims, strict=True):
            if axis_data.name in axes:
                others = tuple(a for a in axes if a != axis_data.name)
                if d is batching.not_mapped:
                    # The same value on every lane: psum multiplies, pmax/pmin keep it.
                    if not scale_unmapped:
                        value = x
                    elif type(x) in (bool, int, float, complex) or isinstance(x, np.generic):
                        value = x * axis_data.size  # a constant stays a constant
                    else:
                        value = ew.mul(x, np.asarray(axis_data.size, core.get_aval(x).dtype)[()])
                    out = primitive.bind(value, axes=others, axis_index_groups=axis_index_groups)[0] if others else value
                else:
                    new_axes = tuple(sorted((d,) + tuple(a + (a >= d) for a in others if isinstance(a, (int, np.integer))))) + tuple(
                        a for a in others if not isinstance(a, (int, np.integer)))
                    out = primitive.bind(x, axes=new_axes, axis_index_groups=axis_index_groups)[0]
                outs.append(out)
                out_dims.append(batching.not_mapped)
            else:
                shifted = tuple(a + (a >= d) if isinstance(a, (int, np.integer)) else a for a in axes)
                outs.append(primitive.bind(x, axes=shifted, axis_index_groups=axis_index_groups)[0])
                out_dims.append(d - sum(1 for a in axes if isinstance(a, (int, np.integer)) and a < d))
        return outs, out_dims

    primitive.def_batch(batch_rule)
    return primitive


psum_p = _collective("psum", True)
pmax_p = _collective("pmax", False)
pmin_p = _collective("pmin", False)


def _check_bound(axes, fun_name: str) -> list:
    found = []
    for name in axes:
        if isinstance(name, (int, np.integer)):
            continue
        try:
            found.append(batching.find_axis(name))
        except NameError:
            if core.current_trace() is core._default_trace[0]:
                raise NameError(f"unbound axis name: {name}") from None
            raise NameError(
                f"Found an unbound axis name: {name}. To fix this, please call {fun_name} under `jax.shard_map`."
            ) from None
    return found


def _reduce(primitive, fun_name: str, x, axis_name, axis_index_groups=None):
    from pyjax._src.tree_util import tree_flatten, tree_unflatten

    axes = _axes_tuple(axis_name)
    _check_bound(axes, fun_name)
    leaves, tree = tree_flatten(x)
    outs = primitive.bind(*leaves, axes=axes, axis_index_groups=axis_index_groups)
    return tree_unflatten(tree, outs)


def psum(x, axis_name, *, axis_index_groups=None):
    """Sum of `x` over the named axis (or axes): every lane gets the total."""
    return _reduce(psum_p, "psum", x, axis_name, axis_index_groups)


def pmax(x, axis_name, *, axis_index_groups=None):
    """Maximum of `x` over the named axis."""
    return _reduce(pmax_p, "pmax", x, axis_name, axis_index_groups)


def pmin(x, axis_name, *, axis_index_groups=None):
    """Minimum of `x` over the named axis."""
    return _reduce(pmin_p, "pmin", x, axis_name, axis_index_groups)


def pmean(x, axis_name, *, axis_index_groups=None):
    """Mean of `x` over the named axis."""
    from pyjax._src.tree_util import tree_map

    total = psum(x, axis_name, axis_index_groups=axis_index_groups)
    n = axis_size(axis_name)
    return tree_map(lambda t: ew.div(t, np.asarray(n, core.get_aval(t).dtype)[()]), total)


def axis_size(axis_name) -> int:
    """The size of the named axis (a Python int)."""
    size = 1
    for data in _check_bound(_axes_tuple(axis_name), "axis_size"):
        size *= data.size
    return size


def _innermost_batch_trace(name):
    trace = core.current_trace()
    while trace is not None:
        if type(trace) is batching.BatchTrace and trace.axis_data.name == name:
            return trace
        trace = getattr(trace, "parent", None)
    _check_bound((name,), "axis_index")


def axis_index(axis_name):
    """This lane's index along the named axis (int32)."""
    trace = _innermost_batch_trace(axis_name)
    with core.set_current_trace(trace.parent):
        index = shapes.iota(np.int32, trace.axis_data.size)
    return trace.wrap(index, 0)


def all_gather(x, axis_name, *, axis_index_groups=None, axis: int = 0, tiled: bool = False):
    """Every lane gets all lanes' `x`, stacked along `axis` (concatenated if tiled)."""
    trace = _innermost_batch_trace(axis_name)
    value, d = trace.to_batch_info(x)
    size = trace.axis_data.size
    with core.set_current_trace(trace.parent):
        stacked = batching_util.bdim_at_front(value, d, size)  # (size, ...)
        stacked = batching_util.moveaxis(stacked, 0, axis)
        shape = core.get_aval(stacked).shape
        if tiled:
            merged = list(shape)
            merged[axis:axis + 2] = [shape[axis] * shape[axis + 1]]
            stacked = shapes.reshape(stacked, tuple(merged))
            shape = tuple(merged)
        out = shapes.broadcast_in_dim_p.bind(stacked, shape=(size,) + shape,
                                            broadcast_dimensions=tuple(np.arange(1, len(shape) + 1)), sharding=None)
    return trace.wrap(out, 0)
