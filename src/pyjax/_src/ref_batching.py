"""vmap of the reference primitives (ref_primitives.py).

A batched reference holds every example's contents, batch axis first: a
reference made inside the mapped function is made batched (its initial value
broadcast), and one passed in batched has its axis moved to the front. An
access with unbatched indices addresses each example's part through a
leading full slice. Writing a batched value into an unbatched reference is
JAX's error; batched indices are not supported yet.
"""

from __future__ import annotations

from pyjax._src import core
from pyjax._src.interpreters.batching import not_mapped
from pyjax._src.ref_primitives import (addupdate_p, empty_ref_p, free_ref_p, freeze_p, get_p, new_ref_p,
                                       swap_p)
from pyjax._src.ref_types import IndexEntry, Indexer


def _front(x, dim, size: int):
    """`x` with its batch axis first (broadcast there if unbatched)."""
    import pyjax.numpy as jnp

    if dim is not_mapped:
        return jnp.broadcast_to(x, (size, *jnp.shape(x)))
    return jnp.moveaxis(x, dim, 0) if dim != 0 else x


def _batched_tree(tree, ref_shape: tuple):
    """The indexer on the batched reference, and where the batch axis of what it addresses is."""
    size = ref_shape[0]
    if tree is None:
        return None, 0
    new = Indexer((IndexEntry("slice", 0, size, 1),) + tree.entries, ref_shape)
    positions = [i for i, e in enumerate(new.entries) if e.kind != "slice"]
    if positions and positions != list(range(positions[0], positions[-1] + 1)):
        # Non-adjacent integer indices go first (NumPy's rule): the batch axis follows them.
        return new, None
    return new, 0


def _check_indices_unbatched(dims) -> None:
    if any(d is not not_mapped for d in dims):
        raise NotImplementedError("vmap of a reference access with batched indices is not implemented in pyjax yet")


def _out_dim(new_tree, idx, axis0):
    if axis0 is not None:
        return axis0
    shapes = [core.get_aval(i).shape for i in idx]
    import numpy as np

    return len(np.broadcast_shapes(*shapes))


def _new_ref_batch(axis_data, vals, dims, **params):
    (x,), (d,) = vals, dims
    return new_ref_p.bind(_front(x, d, axis_data.size), **params), 0


def _ref_front(ref, dim):
    if dim != 0:
        raise NotImplementedError("vmap of a reference batched along an axis other than the first")
    return ref


def _get_batch(axis_data, vals, dims, *, tree):
    ref, *idx = vals
    _check_indices_unbatched(dims[1:])
    ref = _ref_front(ref, dims[0])
    new_tree, axis0 = _batched_tree(tree, core.get_aval(ref).shape)
    return get_p.bind(ref, *idx, tree=new_tree), _out_dim(new_tree, idx, axis0)


def _write_batch(primitive, axis_data, vals, dims, tree):
    ref, value, *idx = vals
    _check_indices_unbatched(dims[2:])
    if dims[0] is not_mapped:
        raise Exception(f"performing a set/swap operation with vmapped value on an unbatched array reference "
                        f"of type {core.get_aval(ref)}. Move the array reference to be an argument to the "
                        "vmapped function?")
    import pyjax.numpy as jnp

    ref = _ref_front(ref, dims[0])
    new_tree, axis0 = _batched_tree(tree, core.get_aval(ref).shape)
    out_dim = _out_dim(new_tree, idx, axis0)
    value = jnp.moveaxis(_front(value, dims[1], axis_data.size), 0, out_dim)
    return primitive.bind(ref, value, *idx, tree=new_tree), out_dim


def _swap_batch(axis_data, vals, dims, *, tree):
    return _write_batch(swap_p, axis_data, vals, dims, tree)


def _addupdate_batch(axis_data, vals, dims, *, tree):
    _write_batch(addupdate_p, axis_data, vals, dims, tree)
    return [], []


def _freeze_batch(axis_data, vals, dims):
    return freeze_p.bind(_ref_front(vals[0], dims[0])), 0


def _free_ref_batch(axis_data, vals, dims):
    free_ref_p.bind(*vals)
    return [], []


def _empty_ref_batch(axis_data, vals, dims, *, ty, memory_space):
    return empty_ref_p.bind(ty=ty.update(shape=(axis_data.size, *ty.shape)), memory_space=memory_space), 0


new_ref_p.def_batch(_new_ref_batch)
get_p.def_batch(_get_batch)
swap_p.def_batch(_swap_batch)
addupdate_p.def_batch(_addupdate_batch)
freeze_p.def_batch(_freeze_batch)
free_ref_p.def_batch(_free_ref_batch)
empty_ref_p.def_batch(_empty_ref_batch)
