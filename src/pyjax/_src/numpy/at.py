"""Functional indexed updates: `x.at[idx].set(y)` and friends.

JAX arrays are immutable, so `x[idx] = y` is written `x = x.at[idx].set(y)`;
the result is a new array. An update parses `idx` exactly as `x[idx]` does
(indexing.py) and writes through the scatter that mirrors that gather:
`set` is `scatter`, `add` is `scatter-add`, `min`/`max` are
`scatter-min`/`scatter-max`, `apply` is `scatter` with the function as its
combiner. `multiply`, `divide` and `power` scatter-multiply the values (or
build a factor array of ones and divide / raise by it), as JAX does.
Repeated indices accumulate for the combining updates; for `set` the last
write wins on this backend.
"""

from __future__ import annotations

import warnings

import numpy as np

from pyjax._src import config, dtypes
from pyjax._src.lax import gather_scatter as lax_gs
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src import dispatch
from pyjax._src.numpy import indexing
from pyjax._src.numpy.util import aval_of, convert_element_type, promote_dtypes


def scatter_update(x, idx, y, scatter_op, indices_are_sorted: bool, unique_indices: bool, mode=None,
                   normalize_indices: bool = True):
    """`x` with `x[idx] op= y` applied, functionally (no array is modified).

    `scatter_op` is one of the lax scatter wrappers (or a function with their
    signature).
    """
    from pyjax._src.numpy.creation import asarray
    from pyjax._src.numpy.shape_ops import broadcast_to

    x = asarray(x)
    x_aval = aval_of(x)
    y = _values(x_aval, y)
    shape = x_aval.shape
    parsed = indexing.expand_bool_indices(indexing.parse_indices(idx, shape), shape)

    dtype, weak_type = x_aval.dtype, x_aval.weak_type
    if not dtypes.safe_to_cast(y, x):
        warnings.warn(
            "scatter inputs have incompatible types: cannot safely cast value "
            f"from dtype={aval_of(y).dtype} to dtype={dtype} with "
            f"jax_numpy_dtype_promotion={config.numpy_dtype_promotion.value}. "
            "In future JAX releases this will result in an error.",
            FutureWarning, stacklevel=3)
    indexer = indexing.to_gather(parsed, shape, normalize=normalize_indices)
    if 0 in indexer.slice_shape:
        return x
    x, y = promote_dtypes("scatter", x, y)
    y = broadcast_to(y, tuple(indexer.slice_shape))
    if indexer.newaxis_dims:
        y = lax_shapes.squeeze(y, indexer.newaxis_dims)
    if indexer.reversed_y_dims:
        y = lax_shapes.rev(y, indexer.reversed_y_dims)
    if indexer.scalar_bool_dims:
        x = lax_shapes.expand_dims(x, indexer.scalar_bool_dims)
    dnums = lax_gs.ScatterDimensionNumbers(
        update_window_dims=indexer.dnums.offset_dims,
        inserted_window_dims=indexer.dnums.collapsed_slice_dims,
        scatter_dims_to_operand_dims=indexer.dnums.start_index_map,
        operand_batching_dims=indexer.dnums.operand_batching_dims,
        scatter_indices_batching_dims=indexer.dnums.start_indices_batching_dims,
    )
    out = scatter_op(x, indexer.gather_indices, y, dnums,
                     indices_are_sorted=indexer.indices_are_sorted or indices_are_sorted,
                     unique_indices=indexer.unique_indices or unique_indices, mode=mode)
    if indexer.scalar_bool_dims:
        out = lax_shapes.squeeze(out, indexer.scalar_bool_dims)
    return convert_element_type(out, dtype, weak_type)


def _values(x_aval, y):
    from pyjax._src.numpy.creation import asarray

    # An in-range Python int keeps an integer operand's dtype (no promotion).
    if (type(y) is int and dtypes.issubdtype(x_aval.dtype, np.integer)
            and np.iinfo(x_aval.dtype).min <= y <= np.iinfo(x_aval.dtype).max):
        return asarray(y, dtype=x_aval.dtype)
    return asarray(y)


_plain_scatter_update = scatter_update
# Eager updates with a static index run a compiled scatter from the second
# call with the same avals, index and options (dispatch.py `fast_path`).
scatter_update = dispatch.fast_path(scatter_update)


def _out_sharding(out_sharding, api_name: str):
    # JAX's checks of `.at[...].<op>(out_sharding=)` (an assert, then the
    # canonical sharding on the mesh in context).
    from pyjax._src.lax.sharding_rules import canonicalize_sharding
    from pyjax._src.sharding.named import NamedSharding
    from pyjax._src.sharding.partition_spec import PartitionSpec

    if out_sharding is None:
        return None
    assert isinstance(out_sharding, (NamedSharding, PartitionSpec))
    return canonicalize_sharding(out_sharding, api_name)


def _dynamic(entry) -> bool:
    return isinstance(entry, np.ndarray) or hasattr(entry, "aval")


def under_auto_axes(fn, out_sharding, arrays: tuple, idx):
    """``fn(*arrays, idx)`` run with the mesh's Explicit axes Auto, its array
    operands then the index arrays resharded there, the result resharded to
    `out_sharding`: how JAX runs a gather or scatter given `out_sharding=`."""
    from pyjax._src.sharding.api import auto_axes

    entries = idx if type(idx) is tuple else (idx,)
    where = [k for k, e in enumerate(entries) if _dynamic(e)]

    def inner(*args):
        *operands, dynamic = args
        rebuilt = list(entries)
        for k, v in zip(where, dynamic):
            rebuilt[k] = v
        return fn(*operands, tuple(rebuilt) if type(idx) is tuple else rebuilt[0])

    return auto_axes(inner, out_sharding=out_sharding)(*arrays, [entries[k] for k in where])


class _IndexUpdateHelper:
    """The `at` property: `x.at[idx]` names the positions an update touches.

    ==============================  ================================
    Alternate syntax                Equivalent in-place expression
    ==============================  ================================
    ``x = x.at[idx].set(y)``        ``x[idx] = y``
    ``x = x.at[idx].add(y)``        ``x[idx] += y``
    ``x = x.at[idx].subtract(y)``   ``x[idx] -= y``
    ``x = x.at[idx].multiply(y)``   ``x[idx] *= y``
    ``x = x.at[idx].divide(y)``     ``x[idx] /= y``
    ``x = x.at[idx].power(y)``      ``x[idx] **= y``
    ``x = x.at[idx].min(y)``        ``x[idx] = minimum(x[idx], y)``
    ``x = x.at[idx].max(y)``        ``x[idx] = maximum(x[idx], y)``
    ``x = x.at[idx].apply(ufunc)``  ``ufunc.at(x, idx)``
    ``x = x.at[idx].get()``         ``x = x[idx]``
    ==============================  ================================

    None of these modify `x`; each returns a new array. Unlike NumPy's
    in-place operators, repeated indices apply every update.

    Keyword arguments of every method:
      mode: out-of-bound indices: 'promise_in_bounds' (the default: `get`
        clips, updates drop), 'clip', 'drop' or 'fill' ('fill' = 'drop';
        `get` then returns `fill_value`).
      wrap_negative_indices: negative indices count from the end (default True).
      indices_are_sorted, unique_indices: promises about the indices.
      fill_value: (`get` only) what out-of-bound reads return with mode='fill'.

    Example:
      >>> x = jnp.arange(5.0)
      >>> x.at[2].add(10)
      Array([ 0.,  1., 12.,  3.,  4.], dtype=float32)
    """

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index):
        return _IndexUpdateRef(self.array, index)

    def __repr__(self):
        return f"_IndexUpdateHelper({self.array!r})"


class _IndexUpdateRef:
    """An array and an index into it; its methods return updated copies."""

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array = array
        self.index = index

    def __repr__(self):
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def _update(self, values, op, indices_are_sorted, unique_indices, mode, wrap_negative_indices,
                out_sharding=None, array=None):
        array = self.array if array is None else array
        if out_sharding is not None:
            from pyjax._src.numpy.creation import asarray

            x = asarray(array)

            def scatter(x, y, idx):
                return _plain_scatter_update(x, idx, y, op, indices_are_sorted, unique_indices, mode,
                                             wrap_negative_indices)

            return under_auto_axes(scatter, out_sharding, (x, _values(aval_of(x), values)), self.index)
        return scatter_update(array, self.index, values, op, indices_are_sorted=indices_are_sorted,
                              unique_indices=unique_indices, mode=mode, normalize_indices=wrap_negative_indices)

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None, fill_value=None,
            out_sharding=None, wrap_negative_indices=True):
        """Equivalent to ``x[idx]``, with the keyword options of `.at`."""
        return indexing.rewriting_take(self.array, self.index, indices_are_sorted=indices_are_sorted,
                                       unique_indices=unique_indices, mode=mode, fill_value=fill_value,
                                       normalize_indices=wrap_negative_indices,
                                       out_sharding=_out_sharding(out_sharding, ".get"))

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None, out_sharding=None,
            wrap_negative_indices=True):
        """Pure equivalent of ``x[idx] = y``."""
        return self._update(values, lax_gs.scatter, indices_are_sorted, unique_indices, mode,
                            wrap_negative_indices, _out_sharding(out_sharding, ".set"))

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None,
              wrap_negative_indices=True):
        """Pure equivalent of ``func.at(x, idx)`` for a unary function: `func`
        is applied once per time an element is indexed."""
        def scatter_apply(x, indices, y, dnums, **kwargs):
            return lax_gs.scatter_apply(x, indices, func, dnums, update_shape=aval_of(y).shape, **kwargs)

        zero = np.zeros((), aval_of(self.array).dtype)[()]
        return self._update(convert_element_type(zero, aval_of(self.array).dtype,
                                                         aval_of(self.array).weak_type),
                            scatter_apply, indices_are_sorted, unique_indices, mode, wrap_negative_indices)

    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None, out_sharding=None,
            wrap_negative_indices=True):
        """Pure equivalent of ``x[idx] += y``."""
        return self._update(values, lax_gs.scatter_add, indices_are_sorted, unique_indices, mode,
                            wrap_negative_indices, _out_sharding(out_sharding, ".add"))

    def subtract(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None, out_sharding=None,
                 wrap_negative_indices=True):
        """Pure equivalent of ``x[idx] -= y``."""
        return self._update(values, lax_gs.scatter_sub, indices_are_sorted, unique_indices, mode,
                            wrap_negative_indices, _out_sharding(out_sharding, ".subtract"))

    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None, out_sharding=None,
                 wrap_negative_indices=True):
        """Pure equivalent of ``x[idx] *= y``."""
        return self._update(values, lax_gs.scatter_mul, indices_are_sorted, unique_indices, mode,
                            wrap_negative_indices, _out_sharding(out_sharding, ".multiply"))

    mul = multiply

    def _factor(self, values, indices_are_sorted, unique_indices, mode, wrap_negative_indices, out_sharding=None):
        # Ones, scatter-multiplied by the values at the indexed positions.
        from pyjax._src.numpy.creation import ones_like

        return self._update(values, lax_gs.scatter_mul, indices_are_sorted, unique_indices, mode,
                            wrap_negative_indices, out_sharding, array=ones_like(self.array))

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None, out_sharding=None,
               wrap_negative_indices=True):
        """Pure equivalent of ``x[idx] /= y``."""
        from pyjax._src.numpy.ufuncs import divide

        return divide(self.array, self._factor(values, indices_are_sorted, unique_indices, mode,
                                               wrap_negative_indices,
                                               _out_sharding(out_sharding, ".divide")))

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None, out_sharding=None,
              wrap_negative_indices=True):
        """Pure equivalent of ``x[idx] **= y``."""
        from pyjax._src.numpy.ufuncs import power

        return power(self.array, self._factor(values, indices_are_sorted, unique_indices, mode,
                                              wrap_negative_indices,
                                              _out_sharding(out_sharding, ".power")))

    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None, out_sharding=None,
            wrap_negative_indices=True):
        """Pure equivalent of ``x[idx] = minimum(x[idx], y)``."""
        return self._update(values, lax_gs.scatter_min, indices_are_sorted, unique_indices, mode,
                            wrap_negative_indices, _out_sharding(out_sharding, ".min"))

    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None, out_sharding=None,
            wrap_negative_indices=True):
        """Pure equivalent of ``x[idx] = maximum(x[idx], y)``."""
        return self._update(values, lax_gs.scatter_max, indices_are_sorted, unique_indices, mode,
                            wrap_negative_indices, _out_sharding(out_sharding, ".max"))


at_property = property(_IndexUpdateHelper, doc=_IndexUpdateHelper.__doc__)
