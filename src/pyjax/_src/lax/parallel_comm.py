"""Collectives that move data between the lanes of a named axis: ppermute
(and pshuffle), pbroadcast, all_gather, psum_scatter (the reduce_scatter
primitive), all_to_all (and pswapaxes).

Each is a primitive with JAX 0.11's params. Under `vmap(axis_name=...)` the
batching rule of the vmap that owns the name rewrites the collective into
ordinary array ops over the batch axis (a gather, a transpose, a reshape, a
reduce_sum); a vmap over another name only shifts the positional params past
its batch axis. All are linear: the JVP applies the collective to the
tangent, and the transposes pair them up (ppermute ↔ the inverse ppermute,
all_gather ↔ psum_scatter, all_to_all ↔ all_to_all with the axes swapped).
"""

from __future__ import annotations

import numpy as np

from pyjax._src import core
from pyjax._src.core import Primitive
from pyjax._src.interpreters.batching import not_mapped
from pyjax._src.interpreters.jvp import deflinear
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax import shapes
from pyjax._src.lax.parallel import (
    axes_tuple,
    axis_index,
    canonical_groups,
    check_axis_names,
    fold_axis,
    in_eager_mode,
    move_axis,
    named_axis_size,
    psum,
)
from pyjax._src.lax.parallel import split_axis as split_into
from pyjax._src.lax.slicing import _canonicalize_axis
from pyjax._src.rules import SHARDING_OF_COLLECTIVE

__all__ = [
    "all_gather", "all_gather_p", "all_to_all", "all_to_all_p", "pbroadcast", "pbroadcast_p", "ppermute", "ppermute_p",
    "pshuffle", "psum_scatter", "pswapaxes", "reduce_scatter_p",
]


def _tree_map(fun, x):
    from pyjax._src.tree_util import tree_map

    return tree_map(fun, x)


def _collective(name: str) -> Primitive:
    primitive = Primitive(name).declare(sharding_reason=SHARDING_OF_COLLECTIVE)
    primitive.is_collective = True  # the batching rule runs even on unbatched operands
    return primitive


def _check_lane_op(axes, name: str) -> None:
    # Outside any vmap JAX evaluates ppermute/pbroadcast eagerly (no rule) and
    # checks the names when tracing (naming ppermute, whose check both share).
    if in_eager_mode():
        raise NotImplementedError(f"Evaluation rule for '{name}' not implemented")
    check_axis_names(axes, "ppermute")


# ---------------------------------------------------------------------------
# ppermute, pshuffle

ppermute_p = _collective("ppermute")
ppermute_p.def_abstract_eval(lambda aval, *, axis_name, perm: aval)


def _ppermute_batch(axis_data, args, dims, *, axis_name, perm):
    (x,), (d,) = args, dims
    names = axes_tuple(axis_name)
    if axis_data.name not in names:
        return ppermute_p.bind(x, axis_name=names, perm=perm), d
    others = tuple(n for n in names if n != axis_data.name)
    if others:
        # JAX permutes over the remaining names only.
        return ppermute_p.bind(x, axis_name=others, perm=perm), d
    assert len(perm) == axis_data.size, "Permutation doesn't match the axis size!"
    if d is not_mapped:
        return x, d
    sources = np.zeros(axis_data.size, dtype=int)
    for src, dst in perm:
        sources[dst] = src
    # The array method, as JAX: jnp.take's jit (`_take`) is what JAX prints.
    return x.take(sources, axis=d), d


ppermute_p.def_batch(_ppermute_batch)


def _ppermute_transpose(ct, operand, *, axis_name, perm):
    return [ppermute(ct, axis_name, [(dst, src) for src, dst in perm])]


deflinear(ppermute_p, _ppermute_transpose)


def ppermute(x, axis_name, perm):
    """Perform a collective permutation according to the permutation ``perm``.

    ``perm`` is a list of ``(source_index, destination_index)`` pairs over the
    mapped axis ``axis_name``: lane ``destination_index`` receives lane
    ``source_index``'s ``x``. If ``x`` is a pytree the permutation maps over
    its leaves.
    """
    names = axes_tuple(axis_name)
    perm = tuple(tuple(pair) for pair in perm)
    _check_lane_op(names, "ppermute")
    return _tree_map(lambda leaf: ppermute_p.bind(leaf, axis_name=names, perm=perm), x)


def pshuffle(x, axis_name, perm):
    """Like :func:`ppermute` with ``perm`` a list of sources: lane ``i``
    receives lane ``perm[i]``'s ``x``. Every index of the axis must appear once."""
    if set(perm) != set(range(len(perm))):
        raise ValueError(f"`perm` does not represent a permutation: {perm}")
    return ppermute(x, axis_name, list(zip(perm, range(len(perm)))))


# ---------------------------------------------------------------------------
# pbroadcast

pbroadcast_p = _collective("pbroadcast")
pbroadcast_p.def_abstract_eval(lambda aval, *, axis_name, source: aval)


def _pbroadcast_batch(axis_data, args, dims, *, axis_name, source):
    (x,), (d,) = args, dims
    names = axes_tuple(axis_name)
    if axis_data.name not in names:
        return pbroadcast_p.bind(x, axis_name=names, source=source), d
    if len(names) > 1:
        raise NotImplementedError("pbroadcast batcher only supports a single axis")
    assert 0 <= source < axis_data.size, "collective broadcast doesn't fit in the axis size!"
    if d is not_mapped:
        return x, d
    # JAX's batcher passes the indices as a list, which jnp.take refuses:
    # under vmap a batched pbroadcast is a TypeError in JAX 0.11, and here.
    return x.take([source] * axis_data.size, axis=d), d


pbroadcast_p.def_batch(_pbroadcast_batch)


def _pbroadcast_transpose(ct, operand, *, axis_name, source):
    # The source lane gets the sum of every lane's cotangent, the others zero.
    # JAX builds both with lax.full_like, which takes scalars only.
    is_source = axis_index(axis_name) == source
    total = psum(ct, axis_name)
    aval = core.get_aval(total)
    if aval.shape:
        raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape {aval.shape}.")
    zero = ew._constant(np.zeros((), aval.dtype), aval.weak_type)
    return [ew.select(is_source, total, zero)]


deflinear(pbroadcast_p, _pbroadcast_transpose)


def pbroadcast(x, axis_name, source):
    """Broadcast lane ``source``'s ``x`` to every lane of ``axis_name``."""
    names = axes_tuple(axis_name)
    _check_lane_op(names, "pbroadcast")
    return _tree_map(lambda leaf: pbroadcast_p.bind(leaf, axis_name=axis_name, source=source), x)


# ---------------------------------------------------------------------------
# all_gather

all_gather_p = _collective("all_gather")


@all_gather_p.def_abstract_eval
def _all_gather_abstract_eval(aval, *, all_gather_dimension, axis_name, axis_index_groups, axis_size, tiled):
    shape = list(aval.shape)
    if tiled:
        shape[all_gather_dimension] *= axis_size
    else:
        shape.insert(all_gather_dimension, axis_size)
    return aval.update(shape=tuple(shape))


def _rebind_over_other_axis(prim, dim_param: str, x, d, dim: int, names, groups, axis_size, tiled):
    """Batching rule of a gather/scatter collective when vmap's axis is not one
    of the collective's: the same collective, with its dimension and the batch
    dimension moved past each other."""
    if d is not not_mapped:
        if dim >= d:
            dim += 1
        elif not tiled:
            # an untiled collective adds (or removes) an axis in front of d
            d += 1
    out = prim.bind(x, **{dim_param: dim}, axis_name=names, axis_index_groups=groups, axis_size=axis_size,
                    tiled=tiled)
    return out, d


def _check_vmapped_collective(names, groups, axis_size, axis_data) -> None:
    """What a collective over vmap's own axis cannot do (JAX's errors)."""
    if groups is not None:
        raise NotImplementedError("axis_index_groups not supported in vmap")
    assert axis_size == axis_data.size, "axis size doesn't match"
    if len(names) > 1:
        raise NotImplementedError("Please open a feature request!")


def _all_gather_batch(axis_data, args, dims, *, all_gather_dimension, axis_name, axis_index_groups, axis_size, tiled):
    (x,), (d,) = args, dims
    names = axes_tuple(axis_name)
    if axis_data.name not in names:
        return _rebind_over_other_axis(all_gather_p, "all_gather_dimension", x, d, all_gather_dimension, names, axis_index_groups,
                                       axis_size, tiled)
    _check_vmapped_collective(names, axis_index_groups, axis_size, axis_data)
    if d is not_mapped:
        shape = list(core.get_aval(x).shape)
        shape.insert(all_gather_dimension, axis_size)
        kept = [i for i in range(len(shape)) if i != all_gather_dimension]
        y = shapes.broadcast_in_dim(x, tuple(shape), tuple(kept))
    else:
        y = move_axis(x, d, all_gather_dimension)
    if tiled:
        y = fold_axis(y, all_gather_dimension)
    return y, not_mapped


all_gather_p.def_batch(_all_gather_batch)


def _all_gather_transpose(ct, operand, *, all_gather_dimension, axis_name, axis_index_groups, axis_size, tiled):
    return [psum_scatter(ct, axis_name, scatter_dimension=all_gather_dimension,
                         axis_index_groups=axis_index_groups, tiled=tiled)]


deflinear(all_gather_p, _all_gather_transpose)


def _group_size(names: tuple, groups, api_name: str) -> int:
    if groups is not None:
        check_axis_names(names, api_name)
    return named_axis_size(names, groups)


def all_gather(x, axis_name, *, axis_index_groups=None, axis: int = 0, tiled: bool = False, to: str = "varying"):
    """Gather values of ``x`` across all lanes of the mapped axis ``axis_name``.

    The lanes' values are stacked along a new axis ``axis`` (concatenated
    along the existing axis ``axis`` when ``tiled``). If ``x`` is a pytree the
    gather maps over its leaves.
    """
    allowed = {"varying", "reduced", "invarying"}
    if to not in allowed:
        raise ValueError(f"Got unexpected `to` value for `jax.lax.all_gather`. Allowed `to` values are: {allowed}")
    if to == "reduced":
        raise NotImplementedError("all_gather(..., to='reduced'): pyjax has no reduced types yet")
    names = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    if not names:
        return x
    if to == "invarying":  # the result's type invariant over `names` (parallel_ragged.py)
        from pyjax._src.lax.parallel_ragged import all_gather_invariant

        return _tree_map(lambda leaf: all_gather_invariant(leaf, names, axis=axis, tiled=tiled), x)
    groups = canonical_groups(axis_index_groups)
    size = _group_size(names, groups, "all_gather")

    def bind(leaf):
        ndim = core.get_aval(leaf).ndim
        dim = _canonicalize_axis(axis, ndim if tiled else ndim + 1)
        return all_gather_p.bind(leaf, all_gather_dimension=dim, axis_name=names, axis_index_groups=groups,
                                 axis_size=size, tiled=tiled)

    return _tree_map(bind, x)


# ---------------------------------------------------------------------------
# psum_scatter (the reduce_scatter primitive)

reduce_scatter_p = _collective("reduce_scatter")


@reduce_scatter_p.def_abstract_eval
def _reduce_scatter_abstract_eval(aval, *, axis_name, scatter_dimension, axis_index_groups, axis_size, tiled):
    shape = list(aval.shape)
    n = aval.shape[scatter_dimension]
    if tiled:
        if n % axis_size != 0:
            raise ValueError(f"tiled reduce_scatter operand scatter dimension size {n} must be divisible by "
                             f"shard_count {axis_size}")
        shape[scatter_dimension] = n // axis_size
    else:
        if n != axis_size:
            raise ValueError(f"reduce_scatter operand scatter dimension size {n} must match shard count {axis_size}")
        del shape[scatter_dimension]
    return aval.update(shape=tuple(shape))


def _reduce_scatter_batch(axis_data, args, dims, *, scatter_dimension, axis_name, axis_index_groups, axis_size, tiled):
    from pyjax._src.lax.reductions import reduce_sum

    (x,), (d,) = args, dims
    names = axes_tuple(axis_name)
    if axis_data.name not in names:
        return _rebind_over_other_axis(reduce_scatter_p, "scatter_dimension", x, d, scatter_dimension, names, axis_index_groups,
                                       axis_size, tiled)
    _check_vmapped_collective(names, axis_index_groups, axis_size, axis_data)
    # Lane i keeps slice i of the sum: the summed scatter axis becomes the batch axis.
    y = x * axis_size if d is not_mapped else reduce_sum(x, (d,))
    if tiled:
        y = split_into(y, scatter_dimension, axis_size)
    return y, scatter_dimension


reduce_scatter_p.def_batch(_reduce_scatter_batch)


def _reduce_scatter_transpose(ct, operand, *, scatter_dimension, axis_name, axis_index_groups, axis_size, tiled):
    return [all_gather(ct, axis_name, axis_index_groups=axis_index_groups, axis=scatter_dimension, tiled=tiled)]


deflinear(reduce_scatter_p, _reduce_scatter_transpose)


def psum_scatter(x, axis_name, *, scatter_dimension: int = 0, axis_index_groups=None, tiled: bool = False):
    """Like ``psum(x, axis_name)``, but each lane keeps only its part of the sum.

    Untiled, ``x.shape[scatter_dimension]`` must equal the axis size and lane
    ``i`` gets ``psum(x)[i]`` (that dimension removed); tiled, the dimension
    must be divisible by the axis size and lane ``i`` gets the ``i``-th block.
    """
    names = axis_name if isinstance(axis_name, tuple) else (axis_name,)
    if not names:
        return x
    size = _group_size(names, axis_index_groups, "reduce_scatter")
    groups = canonical_groups(axis_index_groups)

    def bind(leaf):
        dim = _canonicalize_axis(scatter_dimension, core.get_aval(leaf).ndim)
        return reduce_scatter_p.bind(leaf, axis_name=names, scatter_dimension=dim, axis_index_groups=groups,
                                     axis_size=size, tiled=tiled)

    return _tree_map(bind, x)


# ---------------------------------------------------------------------------
# all_to_all, pswapaxes

all_to_all_p = _collective("all_to_all")
# Its abstract evaluation reads the axis sizes from the named-axis environment.
all_to_all_p.declare(abstract_eval_reads_context=True)


@all_to_all_p.def_abstract_eval
def _all_to_all_abstract_eval(aval, *, split_axis, concat_axis, axis_name, axis_index_groups, tiled):
    size = named_axis_size(axis_name) if axis_index_groups is None else len(axis_index_groups[0])
    shape = list(aval.shape)
    assert shape[split_axis] % size == 0, (shape[split_axis], size)
    shape[split_axis] //= size
    shape[concat_axis] *= size
    return aval.update(shape=tuple(shape), weak_type=False)


def _all_to_all_batch(axis_data, args, dims, *, split_axis, concat_axis, axis_name, axis_index_groups, tiled):
    if axis_index_groups is not None:
        raise NotImplementedError("Please open a feature request!")
    (x,), (d,) = args, dims
    size, name = axis_data.size, axis_data.name
    names = axes_tuple(axis_name)
    params = {"axis_name": axis_name, "axis_index_groups": axis_index_groups, "tiled": tiled}
    if name not in names:
        if d is not_mapped:
            return all_to_all_p.bind(x, split_axis=split_axis, concat_axis=concat_axis, **params), d
        return all_to_all_p.bind(x, split_axis=split_axis + (d <= split_axis),
                                 concat_axis=concat_axis + (d <= concat_axis), **params), d
    if d is not_mapped:
        # JAX calls lax.broadcast(x, (size, *x.shape)), which *prepends* all
        # of those sizes: the operand's shape appears twice. Kept as JAX does.
        shape = core.get_aval(x).shape
        lead = (size, *shape)
        x = shapes.broadcast_in_dim(x, (*lead, *shape), tuple(range(len(lead), len(lead) + len(shape))))
        d = 0
    pos = names.index(name)
    major, minor = (names[:pos], names[pos + 1:]) if isinstance(axis_name, (list, tuple)) else ((), ())
    if not major and not minor:
        if split_axis == concat_axis:
            axis = split_axis + (d <= split_axis)
            out_dim = d
            x = split_into(x, axis, size)
            d += axis <= d
            return fold_axis(_swap_axes(x, d, axis), axis), out_dim
        x = fold_axis(move_axis(x, d, concat_axis), concat_axis)
        return split_into(x, split_axis, size), split_axis
    # Other names too: gather chunks into three leading axes [major, this, minor, ...].
    x = shapes.expand_dims(move_axis(x, d, 0), (0, 2))
    split, concat = split_axis + 3, concat_axis + 3
    if major:
        x = all_to_all_p.bind(x, split_axis=split, concat_axis=0, axis_name=major,
                              axis_index_groups=axis_index_groups, tiled=tiled)
    x = split_into(x, split, size)
    new_d = split
    concat += split <= concat
    split += 1
    if minor:
        x = all_to_all_p.bind(x, split_axis=split, concat_axis=2, axis_name=minor,
                              axis_index_groups=axis_index_groups, tiled=tiled)
    x = fold_axis(fold_axis(x, 0), 0)
    concat -= 2
    new_d -= 2
    x = fold_axis(move_axis(x, 0, concat - 1), concat - 1)
    return x, new_d - 1


def _swap_axes(x, a: int, b: int):
    # JAX's moveaxis((a, b), (b, a)): the two axes trade places.
    ndim = core.get_aval(x).ndim
    perm = list(range(ndim))
    perm[a], perm[b] = perm[b], perm[a]
    return shapes.transpose(x, tuple(perm))


all_to_all_p.def_batch(_all_to_all_batch)


def _all_to_all_transpose(ct, operand, *, split_axis, concat_axis, axis_name, axis_index_groups, tiled):
    return [all_to_all(ct, axis_name, concat_axis, split_axis, axis_index_groups=axis_index_groups, tiled=tiled)]


deflinear(all_to_all_p, _all_to_all_transpose)


def all_to_all(x, axis_name, split_axis, concat_axis, *, axis_index_groups=None, tiled=False):
    """Materialize the mapped axis and map a different axis.

    The lanes of ``axis_name`` exchange chunks: ``x`` is split along
    ``split_axis`` into one chunk per lane, and the chunks received are
    stacked at ``concat_axis`` (concatenated into it when ``tiled``).
    """
    groups = canonical_groups(axis_index_groups)

    def bind(leaf):
        ndim = core.get_aval(leaf).ndim
        split = _canonicalize_axis(split_axis, ndim)
        concat = _canonicalize_axis(concat_axis, ndim)
        size = named_axis_size(axis_name, groups)
        n = core.get_aval(leaf).shape[split]
        if tiled:
            if n % size != 0:
                raise ValueError(f"The size of all_to_all split_axis ({n}) has to be divisible by the size of the "
                                 f"named axis {axis_name} ({size})")
        else:
            if size != n:
                raise ValueError("all_to_all requires the size of the mapped axis axis_name to equal "
                                 f"x.shape[split_axis], but they are {size} and {n} respectively.")
            if split < concat:
                concat += 1  # concat_axis counts positions after split_axis is removed
                leaf = shapes.expand_dims(leaf, (concat,))
            elif concat < split:
                leaf = shapes.expand_dims(leaf, (concat,))
                split += 1
        out = all_to_all_p.bind(leaf, split_axis=split, concat_axis=concat, axis_name=axis_name,
                                axis_index_groups=groups, tiled=tiled)
        if not tiled and split != concat:
            out = shapes.squeeze(out, (split,))
        return out

    return _tree_map(bind, x)


def pswapaxes(x, axis_name, axis, *, axis_index_groups=None):
    """Swap the mapped axis ``axis_name`` with the positional axis ``axis``
    (``all_to_all(x, axis_name, axis, axis)``)."""
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)
