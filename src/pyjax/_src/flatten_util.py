"""ravel_pytree: a pytree of arrays as one flat vector, and the way back.

The flat vector's dtype is the promotion of the leaves' dtypes; when every
leaf already has it no conversion is staged and unravel accepts a vector of
any dtype (a 1-D vector of float16 unravels to float16 leaves), as in JAX.
The unravel function compares and hashes by the tree's structure, shapes and
dtypes, so it can be a static argument of jit.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from pyjax._src import dtypes
from pyjax._src.lax import elementwise, shapes, slicing
from pyjax._src.tree_util import tree_flatten, tree_unflatten


def ravel_pytree(pytree: Any) -> tuple[Any, Callable[[Any], Any]]:
    """Ravel (flatten) a pytree of arrays down to a 1D array.

    Args:
      pytree: a pytree of arrays and scalars to ravel.

    Returns:
      A pair where the first element is a 1D array representing the flattened
      and concatenated leaf values, with dtype determined by promoting the
      dtypes of leaf values, and the second element is a callable for
      unflattening a 1D vector of the same length back to a pytree of the same
      structure as the input ``pytree``. If the input pytree is empty (i.e.
      has no leaves) then as a convention a 1D empty array of dtype float32
      is returned in the first component of the output.
    """
    leaves, treedef = tree_flatten(pytree)
    if not leaves:
        return shapes.full([0], 0, "float32"), _Unravel(treedef, (), (), None, None)
    from_dtypes = tuple(dtypes.dtype(leaf, canonicalize=True) for leaf in leaves)
    to_dtype = dtypes.result_type(*from_dtypes)
    sizes = tuple(int(np.size(leaf)) for leaf in leaves)
    leaf_shapes = tuple(tuple(np.shape(leaf)) for leaf in leaves)
    if all(d == to_dtype for d in from_dtypes):
        parts = [_reshape(leaf, (size,)) for leaf, size in zip(leaves, sizes)]
        return shapes.concatenate(parts, 0), _Unravel(treedef, sizes, leaf_shapes, None, None)
    parts = [_reshape(elementwise.convert_element_type(leaf, to_dtype), (size,))
             for leaf, size in zip(leaves, sizes)]
    flat = shapes.concatenate(parts, 0)
    return flat, _Unravel(treedef, sizes, leaf_shapes, from_dtypes, to_dtype)


def _reshape(x, shape: tuple[int, ...]):
    # A leaf already of the wanted shape stages no reshape (JAX's Array.reshape).
    return x if tuple(np.shape(x)) == shape else shapes.reshape(x, shape)


class _Unravel:
    """Rebuilds the raveled tree from a flat vector; equal for equal structures."""

    __slots__ = ("treedef", "sizes", "shapes", "from_dtypes", "to_dtype")

    def __init__(self, treedef, sizes, leaf_shapes, from_dtypes, to_dtype):
        self.treedef, self.sizes, self.shapes = treedef, sizes, leaf_shapes
        self.from_dtypes, self.to_dtype = from_dtypes, to_dtype

    def _key(self):
        return (self.treedef, self.sizes, self.shapes, self.from_dtypes, self.to_dtype)

    def __eq__(self, other):
        return type(other) is _Unravel and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"<unravel function of {self.treedef}>"

    def __call__(self, flat):
        if not self.sizes:
            return tree_unflatten(self.treedef, [])
        if self.to_dtype is not None:
            flat_dtype = dtypes.dtype(flat, canonicalize=True)
            if flat_dtype != self.to_dtype:
                raise TypeError(f"unravel function given array of dtype {flat_dtype}, "
                                f"but expected dtype {self.to_dtype}")
        chunks = slicing.split(flat, self.sizes)
        if self.from_dtypes is None:
            leaves = [_reshape(chunk, shape) for chunk, shape in zip(chunks, self.shapes)]
        else:  # each leaf reshaped, then converted back, one after the other
            leaves = [elementwise._convert_element_type(_reshape(chunk, shape), dtype,
                                                        warn_on_complex_to_real_cast=False)
                      for chunk, shape, dtype in zip(chunks, self.shapes, self.from_dtypes)]
        return tree_unflatten(self.treedef, leaves)
